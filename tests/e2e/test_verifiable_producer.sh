#!/usr/bin/env bash
# Single node: Kafka's VerifiableProducer writes 2000 records with acks=all;
# every acknowledged value must be read back exactly once, in order, at its
# acknowledged offset (kcat), and the Java console consumer must see them too.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_server

port="$(pick_ports 31092 1)" || fail "no free port"
write_props "$E2E_TMP/s1.properties" 1 "$port" "$E2E_TMP/data1"
start_server s1 "$E2E_TMP/s1.properties" "$port"
wait_leader 30 "$port" > /dev/null || fail "no leader elected within 30s"

n=2000
log "VerifiableProducer: $n records at 500/s, acks=all"
timeout 180 "$E2E_ROOT/bin/kafka-run-class.sh" org.apache.kafka.tools.VerifiableProducer \
    --bootstrap-server "http://localhost:$port" --topic "$TOPIC" \
    --max-messages "$n" --throughput 500 --acks -1 \
    --producer.config "$E2E_ROOT/config/producer.properties" \
    > "$E2E_TMP/produced.jsonl" 2> "$E2E_TMP/producer.err"
rc=$?
[[ $rc -eq 0 ]] || fail "VerifiableProducer exited $rc: $(tail -n 3 "$E2E_TMP/producer.err")"
acked="$(grep -c '"producer_send_success"' "$E2E_TMP/produced.jsonl")"
[[ "$acked" -eq "$n" ]] || fail "only $acked of $n records acknowledged"

consume_all "$port" "$E2E_TMP/consumed.txt"
summary="$($PY "$E2E_ROOT/tests/e2e/verify.py" "$E2E_TMP/consumed.txt" \
    "$E2E_TMP/produced.jsonl" --min-acked "$n")" || fail "kcat read-back: $summary"
log "kcat: $summary"

# The Java consumer (manual assignment, no consumer group needed).
total="$(wc -l < "$E2E_TMP/consumed.txt")"
timeout 120 "$E2E_ROOT/bin/kafka-console-consumer.sh" --bootstrap-server "localhost:$port" \
    --topic "$TOPIC" --partition 0 --offset earliest --max-messages "$total" \
    --timeout-ms 60000 > "$E2E_TMP/java-consumed.txt" 2> "$E2E_TMP/java-consumer.err"
jsum="$($PY "$E2E_ROOT/tests/e2e/verify.py" --values-only "$E2E_TMP/java-consumed.txt" \
    "$E2E_TMP/produced.jsonl" --min-acked "$n")" ||
    fail "console consumer read-back: $jsum $(tail -n 3 "$E2E_TMP/java-consumer.err")"

pass "$n records acked and read back exactly once in order ($summary)"
