#!/usr/bin/env bash
# Single node, librdkafka (kcat): produce with every compression codec (zstd
# also idempotent), consume everything back from the beginning and check each
# value is there exactly once and in order; the batches must be stored with
# the codec they were produced with.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_server

port="$(pick_ports 31292 1)" || fail "no free port"
write_props "$E2E_TMP/s1.properties" 1 "$port" "$E2E_TMP/data1"
start_server s1 "$E2E_TMP/s1.properties" "$port"
wait_leader 30 "$port" > /dev/null || fail "no leader elected within 30s"

n=1000
pad="abcdefghijabcdefghijabcdefghijabcdefghij"
: > "$E2E_TMP/expected.txt"
for codec in none gzip snappy lz4 zstd; do
    extra=()
    [[ "$codec" == zstd ]] && extra=(-X enable.idempotence=true)
    for ((i = 0; i < n; i++)); do echo "$codec-$i-$pad"; done > "$E2E_TMP/in-$codec.txt"
    log "kcat produce $n records with -z $codec ${extra[*]}"
    timeout 60 kcat -P -q -b "localhost:$port" -t "$TOPIC" -p 0 -z "$codec" \
        -X acks=all "${extra[@]}" < "$E2E_TMP/in-$codec.txt" 2> "$E2E_TMP/produce-$codec.err"
    rc=$?
    [[ $rc -eq 0 ]] || fail "kcat -P -z $codec exited $rc: $(tail -n 3 "$E2E_TMP/produce-$codec.err")"
    if grep -qi 'error\|fail' "$E2E_TMP/produce-$codec.err"; then
        fail "kcat -P -z $codec reported: $(head -n 3 "$E2E_TMP/produce-$codec.err")"
    fi
    cat "$E2E_TMP/in-$codec.txt" >> "$E2E_TMP/expected.txt"
done

consume_all "$port" "$E2E_TMP/consumed.txt"
summary="$($PY "$E2E_ROOT/tests/e2e/verify.py" "$E2E_TMP/consumed.txt" \
    "$E2E_TMP/expected.txt" --min-acked $((5 * n)))" || fail "read-back: $summary"
got="$(wc -l < "$E2E_TMP/consumed.txt")"
[[ "$got" -eq $((5 * n)) ]] || fail "consumed $got records, expected $((5 * n))"

# A second consumer starting in the middle of the log (inside a compressed
# batch: offsets count the leader's control records too) sees the same data.
mid_off="$(sed -n '2501p' "$E2E_TMP/consumed.txt" | cut -f1)"
timeout 60 kcat -C -q -b "localhost:$port" -t "$TOPIC" -p 0 -o "$mid_off" -c 10 -e \
    -f '%o\t%s\n' > "$E2E_TMP/mid.txt" 2>/dev/null
[[ "$(cat "$E2E_TMP/mid.txt")" == "$(sed -n '2501,2510p' "$E2E_TMP/consumed.txt")" ]] ||
    fail "consume from offset $mid_off returned $(head -n 2 "$E2E_TMP/mid.txt" | tr '\n' ' ')"

codecs="$($PY "$E2E_ROOT/tests/e2e/logcodecs.py" "$E2E_TMP/data1/__cluster_metadata-0")"
for codec in gzip snappy lz4 zstd; do
    [[ " $codecs " == *" $codec "* ]] ||
        fail "no $codec batch in the stored log (codecs seen: $codecs)"
done

pass "5 codecs x $n records round-tripped ($summary; stored codecs: $codecs)"
