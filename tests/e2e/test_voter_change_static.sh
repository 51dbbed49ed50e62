#!/usr/bin/env bash
# Issue 20 (KIP-853) while the quorum is static (kraft.version 0): Kafka
# 4.4.0's own kafka-metadata-quorum.sh remove-controller, through
# --bootstrap-controller, against three voters given in quorum.voters.
# RemoveRaftVoter reaches the leader, which answers as a Kafka 4.4 leader at
# kraft.version 0 does (UNSUPPORTED_VERSION, "Cluster doesn't support
# removing voter because the kraft.version feature is 0"): the tool fails
# with that message, and describe --status then shows the same leader,
# epoch and three voters. Then Kafka's own upgrade: kafka-features.sh
# upgrade --feature kraft.version=1 moves the voters into the log, after
# which remove-controller works.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/quorum_lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/voters_lib.sh"
require_multinode
require_server
require_kafka_tools_44

base="$(pick_ports 34600 3)" || fail "no free ports"
quorum_config "$base" 3
quorum_start 1 2 3
read -r leader epoch _ < <(wait_probe_leader 60) || fail "no leader within 60s"
log "leader $leader epoch $epoch"

tool() {
    timeout 60 "$E2E_ROOT/bin/kafka-metadata-quorum.sh" "$@" 2> "$E2E_TMP/tool.err"
}

# A follower as the bootstrap controller: the admin client finds the leader.
victim=$((leader % 3 + 1))
follower_port=$((base + victim - 1))
tool --bootstrap-controller "localhost:$follower_port" remove-controller \
    --controller-id "$victim" --controller-directory-id "AAAAAAAAAAAAAAAAAAAAZA" \
    > "$E2E_TMP/remove.out"
rc=$?
cat "$E2E_TMP/remove.out" "$E2E_TMP/tool.err" > "$E2E_TMP/remove.all"
((rc != 0)) || fail "remove-controller succeeded on a static quorum: $(cat "$E2E_TMP/remove.all")"
grep -q "UnsupportedVersionException" "$E2E_TMP/remove.all" ||
    fail "remove-controller: no UnsupportedVersionException: $(tail -n 5 "$E2E_TMP/remove.all")"
grep -qF "Cluster doesn't support removing voter because the kraft.version feature is 0" \
    "$E2E_TMP/remove.all" || fail "remove-controller: not Kafka's message: $(tail -n 5 "$E2E_TMP/remove.all")"

log "remove-controller (exit $rc): $(grep -m1 -F "kraft.version" "$E2E_TMP/remove.all")"

# Nothing changed: the same leader, epoch and voters.
out="$(tool --bootstrap-controller "localhost:$base" describe --status)" ||
    fail "describe --status failed: $(tail -n 5 "$E2E_TMP/tool.err")"
echo "$out" > "$E2E_TMP/status.txt"
grep -Eq "^LeaderId:[[:space:]]+$leader\$" <<<"$out" || fail "LeaderId is not $leader: $out"
grep -Eq "^LeaderEpoch:[[:space:]]+$epoch\$" <<<"$out" || fail "LeaderEpoch is not $epoch: $out"
for id in 1 2 3; do
    grep -q "\"id\": $id, " <<<"$out" || fail "voter $id missing from CurrentVoters: $out"
done
for i in 1 2 3; do server_alive "n$i" || fail "n$i died"; done

# Kafka's upgrade of a static quorum (KIP-853): every voter has told the
# leader its directory id and endpoint (UpdateRaftVoter at kraft.version
# 0); kafka-features.sh upgrade moves the voters into the log, and then
# remove-controller works.
features() {
    timeout 60 "$E2E_ROOT/bin/kafka-features.sh" --bootstrap-controller "localhost:$base" "$@" \
        2> "$E2E_TMP/features.err"
}
deadline=$((SECONDS + 30))
until features upgrade --feature kraft.version=1 > "$E2E_TMP/upgrade.out"; do
    ((SECONDS < deadline)) || fail "kraft.version upgrade failed: $(tail -n 3 "$E2E_TMP/features.err")"
    sleep 1 # a voter may not have told the leader yet
done
log "upgrade: $(cat "$E2E_TMP/upgrade.out")"
features describe | grep -Eq "Feature: kraft.version.*FinalizedVersionLevel: 1" ||
    fail "kraft.version is not finalized at 1 after the upgrade"
out="$(tool --bootstrap-controller "localhost:$base" describe --status)"
grep -Eq '"id": [0-9]+, "directoryId": "[A-Za-z0-9_-]{22}"' <<<"$out" ||
    fail "the voters in the log carry no directory ids: $out"
read -r leader epoch _ < <(wait_probe_leader 60) || fail "no leader after the upgrade"
victim=$((leader % 3 + 1))
vdir="$(grep -o "\"id\": $victim, \"directoryId\": \"[^\"]*\"" <<<"$out" | sed 's/.*"directoryId": "//; s/"$//')"
tool --bootstrap-controller "localhost:$base" remove-controller --controller-id "$victim" \
    --controller-directory-id "$vdir" > "$E2E_TMP/remove2.out" ||
    fail "remove-controller after the upgrade: $(tail -n 3 "$E2E_TMP/tool.err")"
out="$(tool --bootstrap-controller "localhost:$base" describe --status)"
grep "^CurrentVoters:" <<<"$out" | grep -q "\"id\": $victim, " &&
    fail "voter $victim still in CurrentVoters: $out"
pass "remove-controller on a static quorum: Kafka's UNSUPPORTED_VERSION message, nothing changed; kafka-features.sh upgrade --feature kraft.version=1 moved the voters into the log and remove-controller then took $victim out"
