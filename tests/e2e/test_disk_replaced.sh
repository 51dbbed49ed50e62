#!/usr/bin/env bash
# Issue 20 item 6, "disk replacement without loss", with real processes:
# three voters; follower B paused (SIGSTOP); 1,000 records acks=all
# acknowledged by the leader L and follower A; L killed; A's log directory
# wiped and A restarted on it empty; B resumed; L restarted. A and B are a
# majority, but A is a new directory: it must not help elect B (which lacks
# the records), and every acknowledged record must survive on every replica.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_multinode
require_server
base="$(pick_ports 31764 3)" || fail "no free ports"
start_quorum "$base"
ports=("$base" $((base + 1)) $((base + 2)))
L="$(wait_leader 60 "${ports[@]}")" || fail "no leader agreed within 60s"
A=$((L % 3 + 1))
B=$((A % 3 + 1))
log "leader $L, follower A=$A (disk replaced), follower B=$B (paused)"
grep -q "node $A: directory id .*(new" "$E2E_TMP/n$A.log" ||
    fail "node $A did not start as a new directory"
sleep 2
kill -STOP "${SERVER_PID[n$B]}"

n=1000
prod="$E2E_TMP/produced.jsonl"
timeout 120 "$E2E_ROOT/bin/kafka-run-class.sh" org.apache.kafka.tools.VerifiableProducer \
    --bootstrap-server "localhost:${ports[L - 1]},localhost:${ports[A - 1]}" --topic "$TOPIC" \
    --max-messages "$n" --throughput 1000 --acks -1 --value-prefix 1 \
    --producer.config "$E2E_ROOT/config/producer.properties" \
    > "$prod" 2> "$E2E_TMP/producer.err" || fail "VerifiableProducer failed"
acked="$(grep -c '"producer_send_success"' "$prod")"
((acked == n)) || fail "only $acked of $n records acknowledged with B paused"

kill9_server "n$L"
kill9_server "n$A"
rm -rf "$E2E_TMP/data$A"
restart_server "n$A"
kill -CONT "${SERVER_PID[n$B]}"
# B's fetch timeout passes; A and B together must elect no one.
sleep 8
for p in "${ports[A - 1]}" "${ports[B - 1]}"; do
    l="$(leader_at "$p")"
    [[ "$l" == "$B" ]] && fail "B ($B) was elected without the acknowledged records"
done
grep -c "node $A: directory id .*(new" "$E2E_TMP/n$A.log" | grep -q 2 ||
    fail "node $A did not restart as a new directory"
restart_server "n$L"
leader="$(wait_leader 60 "${ports[@]}")" || fail "no leader once L was back"
sleep 3
consume_all "${ports[leader - 1]}" "$E2E_TMP/consumed.txt"
summary="$($PY "$E2E_ROOT/tests/e2e/verify.py" "$E2E_TMP/consumed.txt" "$prod" \
    --min-acked "$n")" || fail "read-back: $summary"
for i in 1 2 3; do
    kill9_server "n$i"
done
for i in 1 2 3; do
    $PY "$E2E_ROOT/tests/e2e/logvalues.py" "$E2E_TMP/data$i/__cluster_metadata-0" \
        > "$E2E_TMP/disk$i.txt" || fail "cannot read node $i's log"
    dsum="$($PY "$E2E_ROOT/tests/e2e/verify.py" "$E2E_TMP/disk$i.txt" "$prod" \
        --min-acked "$n")" || fail "node $i's log on disk: $dsum"
done
grep -q '"directoryId"' "$E2E_TMP/data$A/__cluster_metadata-0/quorum-state" ||
    fail "node $A's quorum-state keeps no directory id"
pass "leader $L killed, A=$A's disk replaced, B=$B paused: no election without the records; all $n acked records on every replica ($summary)"
