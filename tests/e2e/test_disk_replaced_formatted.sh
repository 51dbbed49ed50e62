#!/usr/bin/env bash
# Issue 20's disk replacement with formatted directories (kraft.version 1,
# KIP-853), done the way the README tells a Kafka operator: three voters
# formatted with --initial-controllers; follower B paused; 1,000 records
# acks=all acknowledged by the leader L and follower A; L killed; A's disk
# wiped and formatted again (--no-initial-controllers: a new directory id);
# A started (an observer: the voter set names its old directory); B
# resumed. A and B must elect no one (A's vote is refused as the wrong
# voter key, INVALID_VOTER_KEY). L restarted; then Kafka 4.4's
# kafka-metadata-quorum.sh remove-controller of A's old directory and
# add-controller of its new one. Every acknowledged record survives on every
# replica, and the voters name A's new directory.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/quorum_lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/voters_lib.sh"
require_multinode
require_server
require_kafka_tools_44
STORAGE="$E2E_ROOT/bin/kafka-storage.sh"

base="$(pick_ports 35300 3)" || fail "no free ports"
QUORUM_BASE=$base
QUORUM_N=3
cid="$("$STORAGE" random-uuid)" || fail "random-uuid failed"
initial=""
for i in 1 2 3; do
    d[$i]="$("$STORAGE" random-uuid)"
    initial+="${initial:+,}$i@localhost:$((base + i - 1)):${d[$i]}"
done
bootstrap="localhost:$base,localhost:$((base + 1)),localhost:$((base + 2))"
for i in 1 2 3; do
    cat > "$E2E_TMP/n$i.properties" <<EOP
process.roles=controller
node.id=$i
listeners=CONTROLLER://localhost:$((base + i - 1))
controller.listener.names=CONTROLLER
controller.quorum.bootstrap.servers=$bootstrap
log.dirs=$E2E_TMP/data$i
EOP
    "$STORAGE" format --config "$E2E_TMP/n$i.properties" --cluster-id "$cid" \
        --initial-controllers "$initial" > "$E2E_TMP/format$i.out" 2>&1 ||
        fail "format n$i: $(cat "$E2E_TMP/format$i.out")"
done
quorum_start 1 2 3
read -r L _ < <(wait_probe_leader 60) || fail "no leader within 60s"
A=$((L % 3 + 1))
B=$((A % 3 + 1))
log "leader $L, follower A=$A (disk replaced), follower B=$B (paused)"
sleep 2
kill -STOP "${SERVER_PID[n$B]}"

n=1000
prod="$E2E_TMP/produced.jsonl"
timeout 120 "$E2E_ROOT/bin/kafka-run-class.sh" org.apache.kafka.tools.VerifiableProducer \
    --bootstrap-server "localhost:$((base + L - 1)),localhost:$((base + A - 1))" \
    --topic "$TOPIC" --max-messages "$n" --throughput 1000 --acks -1 --value-prefix 1 \
    > "$prod" 2> "$E2E_TMP/producer.err" || fail "VerifiableProducer failed"
acked="$(grep -c '"producer_send_success"' "$prod")"
((acked == n)) || fail "only $acked of $n records acknowledged with B paused"

kill9_server "n$L"
kill9_server "n$A"
rm -rf "$E2E_TMP/data$A"
"$STORAGE" format --config "$E2E_TMP/n$A.properties" --cluster-id "$cid" \
    --no-initial-controllers > "$E2E_TMP/reformat.out" 2>&1 || fail "reformat: $(cat "$E2E_TMP/reformat.out")"
newdir="$(sed -n 's/^directory\.id=//p' "$E2E_TMP/data$A/meta.properties")"
[[ -n "$newdir" && "$newdir" != "${d[$A]}" ]] || fail "no new directory id for A"
restart_server "n$A"
kill -CONT "${SERVER_PID[n$B]}"
sleep 8 # B's fetch timeout passes; A and B together must elect no one
for p in $((base + A - 1)) $((base + B - 1)); do
    l="$(leader_at "$p")"
    [[ "$l" == "$B" ]] && fail "B ($B) was elected without the acknowledged records"
done
restart_server "n$L"
read -r leader _ < <(wait_probe_leader 60) || fail "no leader once L was back"

tool() {
    timeout 60 "$E2E_ROOT/bin/kafka-metadata-quorum.sh" --bootstrap-controller "$bootstrap" "$@" \
        2> "$E2E_TMP/tool.err"
}
tool remove-controller --controller-id "$A" --controller-directory-id "${d[$A]}" \
    > "$E2E_TMP/remove.out" || fail "remove-controller: $(tail -n 3 "$E2E_TMP/tool.err")"
tool --command-config "$E2E_TMP/n$A.properties" add-controller > "$E2E_TMP/add.out" ||
    fail "add-controller: $(tail -n 3 "$E2E_TMP/tool.err")"
grep -q "^Added controller $A with directory id $newdir" "$E2E_TMP/add.out" ||
    fail "add-controller printed: $(cat "$E2E_TMP/add.out")"
status="$(tool describe --status)"
grep -q "\"id\": $A, \"directoryId\": \"$newdir\"" <<<"$status" ||
    fail "the voters do not name A's new directory: $status"

read -r leader _ < <(wait_probe_leader 60) || fail "no leader at the end"
consume_all $((base + leader - 1)) "$E2E_TMP/consumed.txt"
summary="$($PY "$E2E_ROOT/tests/e2e/verify.py" "$E2E_TMP/consumed.txt" "$prod" \
    --min-acked "$n")" || fail "read-back: $summary"
sleep 2
for i in 1 2 3; do kill9_server "n$i"; done
for i in 1 2 3; do
    $PY "$E2E_ROOT/tests/e2e/logvalues.py" "$E2E_TMP/data$i/__cluster_metadata-0" \
        > "$E2E_TMP/disk$i.txt" || fail "cannot read node $i's log"
    dsum="$($PY "$E2E_ROOT/tests/e2e/verify.py" "$E2E_TMP/disk$i.txt" "$prod" \
        --min-acked "$n")" || fail "node $i's log on disk: $dsum"
done
pass "formatted quorum: L=$L killed, A=$A's disk reformatted, B=$B paused: no election without the records; remove/add-controller gave A its new directory; all $n acked records on every replica ($summary)"
