#!/usr/bin/env bash
# Single node: while VerifiableProducer writes with acks=all, the server is
# killed with SIGKILL twice and restarted on the same log directory. At the
# end every acknowledged record must be in the log exactly once, in order,
# at the offset its acknowledgement reported.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_server

port="$(pick_ports 31492 1)" || fail "no free port"
write_props "$E2E_TMP/s1.properties" 1 "$port" "$E2E_TMP/data1"
start_server s1 "$E2E_TMP/s1.properties" "$port"
wait_leader 30 "$port" > /dev/null || fail "no leader elected within 30s"

acked_count() { grep -c '"producer_send_success"' "$1" 2>/dev/null || true; }
# Records the producer has finished with, acknowledged or failed.
done_count() { grep -cE '"producer_send_(success|error)"' "$1" 2>/dev/null || true; }

# wait_done <file> <count> <secs>
wait_done() {
    local deadline=$((SECONDS + $3))
    while ((SECONDS < deadline)); do
        (( $(done_count "$1") >= $2 )) && return 0
        sleep 0.2
    done
    return 1
}

n=6000
prod="$E2E_TMP/produced.jsonl"
log "VerifiableProducer: $n records at 500/s, acks=all"
timeout 300 "$E2E_ROOT/bin/kafka-run-class.sh" org.apache.kafka.tools.VerifiableProducer \
    --bootstrap-server "localhost:$port" --topic "$TOPIC" \
    --max-messages "$n" --throughput 500 --acks -1 \
    --producer.config "$E2E_ROOT/config/producer.properties" \
    > "$prod" 2> "$E2E_TMP/producer.err" &
prod_pid=$!

for round in 1 2; do
    target=$((round * 2000))
    wait_done "$prod" "$target" 120 || fail "round $round: the producer did not get past record $target"
    kill9_server s1
    before=$(acked_count "$prod")
    sleep 1
    restart_server s1
    wait_leader 30 "$port" > /dev/null || fail "round $round: no leader after restart"
    log "round $round: killed after $before acks, restarted"
done

wait "$prod_pid"
rc=$?
[[ $rc -eq 0 ]] || fail "VerifiableProducer exited $rc: $(tail -n 3 "$E2E_TMP/producer.err")"
acked=$(acked_count "$prod")
# Sends in flight at each kill fail (the tool does not retry).
(( acked >= n / 4 )) || fail "only $acked of $n records acknowledged"

# One more hard restart with no traffic, then read everything back.
kill9_server s1
restart_server s1
wait_leader 30 "$port" > /dev/null || fail "no leader after final restart"
consume_all "$port" "$E2E_TMP/consumed.txt"
summary="$($PY "$E2E_ROOT/tests/e2e/verify.py" "$E2E_TMP/consumed.txt" "$prod" \
    --min-acked $((n / 4)))" || fail "read-back: $summary"
pass "3 SIGKILL restarts, every acked record present once in order ($summary)"
