#!/usr/bin/env bash
# Single node: kafka-producer-perf-test (idempotent, acks=all) with 10-byte and
# 1 KB records; every record must be sent without error. Prints the figures.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_server

port="$(pick_ports 31192 1)" || fail "no free port"
write_props "$E2E_TMP/s1.properties" 1 "$port" "$E2E_TMP/data1"
start_server s1 "$E2E_TMP/s1.properties" "$port"
wait_leader 30 "$port" > /dev/null || fail "no leader elected within 30s"

results=()
expected_total=0
for spec in "${KQ_PERF_SMALL:-200000}:10" "${KQ_PERF_LARGE:-50000}:1024"; do
    n="${spec%%:*}"
    size="${spec##*:}"
    out="$E2E_TMP/perf-$size.out"
    log "producer-perf-test: $n records of $size bytes, acks=all"
    timeout 600 "$E2E_ROOT/bin/kafka-producer-perf-test.sh" --topic "$TOPIC" \
        --num-records "$n" --throughput -1 --record-size "$size" \
        --producer.config "$E2E_ROOT/config/producer.properties" \
        --producer-props acks=all bootstrap.servers="localhost:$port" \
        > "$out" 2> "$out.err"
    rc=$?
    [[ $rc -eq 0 ]] || fail "perf test ($size B) exited $rc: $(tail -n 3 "$out.err")"
    final="$(grep -E '^[0-9]+ records sent, .*99.9th' "$out" | tail -n 1)"
    [[ -n "$final" ]] || fail "perf test ($size B) printed no final line: $(tail -n 3 "$out")"
    echo "$size-byte records: $final"
    sent="${final%% *}"
    [[ "$sent" -eq "$n" ]] || fail "perf test ($size B): $sent of $n records sent"
    if grep -qE 'Exception|ERROR' "$out" "$out.err"; then
        fail "perf test ($size B) reported errors: $(grep -hE 'Exception|ERROR' "$out" "$out.err" | head -n 3)"
    fi
    results+=("${size}B: $final")
    expected_total=$((expected_total + n))
done

# Everything the tool counted as sent is in the log.
end="$(timeout 30 kcat -Q -b "localhost:$port" -t "$TOPIC:0:-1" 2>/dev/null |
    sed -n 's/.*\[0\] offset \([0-9]\+\).*/\1/p')"
if [[ -n "$end" && "$end" -lt "$expected_total" ]]; then
    fail "log end offset $end is below the $expected_total records sent"
fi

pass "all records sent without errors; ${results[*]}"
