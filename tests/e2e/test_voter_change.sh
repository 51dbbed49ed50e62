#!/usr/bin/env bash
# Dynamic voters (issue 20, KIP-853) with Kafka 4.4.0's own tools, as a
# Kafka operator grows and shrinks a quorum: node 1 formatted --standalone,
# nodes 2-5 formatted --no-initial-controllers and started with only
# controller.quorum.bootstrap.servers (observers); kafka-metadata-quorum.sh
# add-controller grows the voters 1 -> 3 (a second add of a voter and a
# removal naming another directory are refused with Kafka's errors), nodes
# 4 and 5 join by themselves (controller.quorum.auto.join.enable) -> 5,
# and remove-controller shrinks them 5 -> 3, one of the removals being the
# leader's own. VerifiableProducer
# writes with acks=all throughout and a consumer group reads; the leader is
# SIGKILLed twice (restarted each time). At the end: every acknowledged
# record read back exactly once at its offset, the group read them all,
# describe --status names the three voters with their directory ids, the
# removed nodes are observers, and kafka-features.sh describe shows
# kraft.version finalized at 1.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/quorum_lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/voters_lib.sh"
require_multinode
require_server
require_kafka_tools_44
STORAGE="$E2E_ROOT/bin/kafka-storage.sh"

base="$(pick_ports 35200 5)" || fail "no free ports"
QUORUM_BASE=$base
QUORUM_N=5
cid="$("$STORAGE" random-uuid)" || fail "random-uuid failed"
for i in 1 2 3 4 5; do
    cat > "$E2E_TMP/n$i.properties" <<EOP
process.roles=controller
node.id=$i
listeners=CONTROLLER://localhost:$((base + i - 1))
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT
controller.quorum.bootstrap.servers=localhost:$base,localhost:$((base + 1)),localhost:$((base + 2))
log.dirs=$E2E_TMP/data$i
EOP
    # nodes 4 and 5 join by themselves (KIP-1186 auto-join)
    ((i >= 4)) && echo "controller.quorum.auto.join.enable=true" >> "$E2E_TMP/n$i.properties"
    if ((i == 1)); then how=--standalone; else how=--no-initial-controllers; fi
    "$STORAGE" format --config "$E2E_TMP/n$i.properties" --cluster-id "$cid" $how \
        > "$E2E_TMP/format$i.out" 2>&1 || fail "format n$i: $(cat "$E2E_TMP/format$i.out")"
done
dirid() { sed -n 's/^directory\.id=//p' "$E2E_TMP/data$1/meta.properties"; }
quorum_start 1 2 3

MQ_BOOTSTRAP="localhost:$base,localhost:$((base + 1)),localhost:$((base + 2))"
MQ_ERR="$E2E_TMP/tool.err"
tool() { : > "$MQ_ERR"; mq_tool "$@"; }
voters() { mq_voters; }
wait_voters() { mq_wait_voters "$@"; }
add() {
    tool --command-config "$E2E_TMP/n$1.properties" add-controller > "$E2E_TMP/add$1.out" ||
        fail "add-controller $1: $(cat "$E2E_TMP/add$1.out") $(tail -n 3 "$E2E_TMP/tool.err")"
    grep -q "^Added controller $1 with directory id $(dirid "$1")" "$E2E_TMP/add$1.out" ||
        fail "add-controller $1 printed: $(cat "$E2E_TMP/add$1.out")"
    log "$(cat "$E2E_TMP/add$1.out")"
}
remove() {
    tool remove-controller --controller-id "$1" --controller-directory-id "$(dirid "$1")" \
        > "$E2E_TMP/remove$1.out" ||
        fail "remove-controller $1: $(tail -n 3 "$E2E_TMP/tool.err")"
    log "$(cat "$E2E_TMP/remove$1.out")"
}
kill_leader() {
    local leader epoch
    read -r leader epoch _ < <(wait_probe_leader 60) || fail "no leader within 60s"
    kill9_server "n$leader"
    read -r nl ne _ < <(wait_probe_leader 60 "$leader") || fail "no new leader after killing $leader"
    log "leader $leader (epoch $epoch) killed; $nl leads epoch $ne"
    restart_server "n$leader"
}

read -r leader _ < <(wait_probe_leader 60) || fail "no leader within 60s"
[[ "$leader" == 1 ]] || fail "leader is $leader, want the standalone node 1"
timeout 120 "$E2E_ROOT/bin/kafka-console-consumer.sh" --bootstrap-server "localhost:$base" \
    --topic "$TOPIC" --group vc-group --from-beginning > "$E2E_TMP/group.out" \
    2> "$E2E_TMP/group.err" &
start_producer 3000 100 "$E2E_TMP/produced.jsonl"
wait_acked "$E2E_TMP/produced.jsonl" 200 60 || fail "no acks before the changes"

add 2; add 3; wait_voters 1,2,3
# Refusals with Kafka's errors, changing nothing: a voter added twice, a
# removal naming another directory of a voter.
tool --command-config "$E2E_TMP/n2.properties" add-controller > /dev/null &&
    fail "adding voter 2 twice succeeded"
grep -q "DuplicateVoterException" "$E2E_TMP/tool.err" ||
    fail "add twice: not DUPLICATE_VOTER: $(tail -n 2 "$E2E_TMP/tool.err")"
tool remove-controller --controller-id 3 --controller-directory-id "$(dirid 2)" > /dev/null &&
    fail "removing voter 3 under another directory id succeeded"
grep -q "VoterNotFoundException" "$E2E_TMP/tool.err" ||
    fail "remove with a wrong directory: not VOTER_NOT_FOUND: $(tail -n 2 "$E2E_TMP/tool.err")"
[[ "$(voters)" == 1,2,3 ]] || fail "a refused change changed the voters"
kill_leader
quorum_start 4 5 # they ask the leader to add them once caught up
wait_voters 1,2,3,4,5
log "nodes 4 and 5 joined by themselves"
# An auto-joiner adds itself back after a removal (Kafka's rule too): as
# Kafka's operators do, turn it off before removals (restart without it).
for i in 4 5; do
    sed -i '/auto.join.enable/d' "$E2E_TMP/n$i.properties"
    kill9_server "n$i"
    restart_server "n$i"
done
kill_leader
read -r leader _ < <(wait_probe_leader 60) || fail "no leader"
remove "$leader" # the leader removes itself: it resigns once that commits
left=(); for i in 1 2 3 4 5; do [[ $i != "$leader" ]] && left+=("$i"); done
other="${left[0]}"
remove "$other"
want="$(printf '%s\n' "${left[@]:1}" | sort -n | paste -sd,)"
wait_voters "$want"
read -r nl ne _ < <(wait_probe_leader 60 "$leader") || fail "no leader after the removals"
log "voters $want, leader $nl (epoch $ne)"

wait_producer 120 || fail "producer did not finish: $(tail -n 3 "$E2E_TMP/produced.jsonl.err")"
acked="$(acked_count "$E2E_TMP/produced.jsonl")"
((acked > 0)) || fail "nothing acknowledged"
read -r nl _ < <(wait_probe_leader 60) || fail "no leader at the end"
# (Kafka 4.4's VerifiableProducer prints a deprecation notice among its events)
grep '^{' "$E2E_TMP/produced.jsonl" > "$E2E_TMP/events.jsonl"
verify_readback $((base + nl - 1)) "$E2E_TMP/events.jsonl" "$acked" > "$E2E_TMP/verify.out" ||
    fail "read back: $(cat "$E2E_TMP/verify.out")"
# The group consumer saw every acknowledged value (at least once).
deadline=$((SECONDS + 60))
missing=1
while ((SECONDS < deadline)); do
    missing="$($PY - "$E2E_TMP/produced.jsonl" "$E2E_TMP/group.out" <<'EOPY'
import json, sys
acked = {json.loads(l)["value"] for l in open(sys.argv[1]) if '"producer_send_success"' in l}
seen = set(l.rstrip("\n") for l in open(sys.argv[2], errors="replace"))
print(len(acked - seen))
EOPY
)"
    [[ "$missing" == 0 ]] && break
    sleep 1
done
[[ "$missing" == 0 ]] || fail "the group consumer misses $missing acknowledged records"
out="$(tool describe --status)"
for i in "${left[@]:1}"; do
    grep -q "\"id\": $i, \"directoryId\": \"$(dirid "$i")\"" <<<"$out" ||
        fail "voter $i with its directory id missing: $out"
done
repl="$(tool describe --replication)"
for i in "$leader" "$other"; do
    grep -Eq "^$i[[:space:]]+$(dirid "$i")[[:space:]].*Observer" <<<"$repl" ||
        fail "removed node $i is not an observer: $repl"
done
features="$(timeout 60 "$E2E_ROOT/bin/kafka-features.sh" --bootstrap-controller "localhost:$base" \
    describe 2> "$E2E_TMP/features.err")" || fail "kafka-features describe: $(tail -n 2 "$E2E_TMP/features.err")"
grep -Eq "Feature: kraft.version.*SupportedMaxVersion: 1.*FinalizedVersionLevel: 1" <<<"$features" ||
    fail "kafka-features does not show kraft.version 1: $features"
for i in 1 2 3 4 5; do server_alive "n$i" || fail "n$i died"; done
pass "voters 1 -> 3 (add-controller) -> 5 (auto-join) -> 3 (remove-controller, the leader removing itself), refusals with Kafka's errors, two leader kills: $(cat "$E2E_TMP/verify.out")"
