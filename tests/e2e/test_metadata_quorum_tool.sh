#!/usr/bin/env bash
# Kafka's own kafka-metadata-quorum.sh (MetadataQuorumCommand, Kafka tools
# 4.0) against a three-voter quorum: `describe --status` and
# `describe --replication`, through --bootstrap-controller (DescribeCluster
# v1 with EndpointType 2, then DescribeQuorum to the leader) and through
# --bootstrap-server. Asserts the leader id and epoch the tool prints match
# what DescribeQuorum on the wire says, that all three voters are listed
# with their endpoints, that the high watermark covers what was written, and
# that the replication table shows one Leader and two Followers.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/quorum_lib.sh"
require_multinode
require_server

base="$(pick_ports 33700 3)" || fail "no free ports"
quorum_config "$base" 3
quorum_start 1 2 3
read -r leader epoch _ < <(wait_probe_leader 60) || fail "no leader within 60s"
log "leader $leader epoch $epoch"
start_producer 500 1000 "$E2E_TMP/produced.jsonl"
wait_producer 120 || fail "VerifiableProducer failed: $(tail -n 3 "$E2E_TMP/produced.jsonl.err")"
read -r leader epoch hw < <(wait_probe_leader 10) || fail "lost the leader"
((hw >= 500)) || fail "high watermark $hw below the 500 records written"

tool() {
    timeout 120 "$E2E_ROOT/bin/kafka-metadata-quorum.sh" "$@" 2> "$E2E_TMP/tool.err"
}

# Any node works as the bootstrap controller: it names the leader.
for port in "$base" $((base + 2)); do
    out="$(tool --bootstrap-controller "localhost:$port" describe --status)" ||
        fail "describe --status via controller localhost:$port failed: $(tail -n 5 "$E2E_TMP/tool.err")"
    echo "$out" > "$E2E_TMP/status.$port.txt"
    grep -Eq "^LeaderId:[[:space:]]+$leader\$" <<<"$out" || fail "status: LeaderId is not $leader: $out"
    grep -Eq "^LeaderEpoch:[[:space:]]+$epoch\$" <<<"$out" || fail "status: LeaderEpoch is not $epoch: $out"
    shown_hw="$(sed -n -E 's/^HighWatermark:[[:space:]]+([0-9]+)$/\1/p' <<<"$out")"
    [[ -n "$shown_hw" ]] && ((shown_hw >= hw)) || fail "status: HighWatermark '$shown_hw' below $hw"
    for id in 1 2 3; do
        grep -q "\"id\": $id, \"directoryId\": null, \"endpoints\": \[\"PLAINTEXT://localhost:$((base + id - 1))\"\]" <<<"$out" ||
            fail "status: voter $id with its endpoint missing from CurrentVoters: $out"
    done
    grep -Eq '^CurrentObservers:[[:space:]]+\[\]$' <<<"$out" || fail "status: unexpected observers: $out"
done

out="$(tool --bootstrap-controller "localhost:$((base + 1))" describe --replication)" ||
    fail "describe --replication failed: $(tail -n 5 "$E2E_TMP/tool.err")"
echo "$out" > "$E2E_TMP/replication.txt"
leaders=$(grep -Ec '[[:space:]]Leader[[:space:]]*$' <<<"$out")
followers=$(grep -Ec '[[:space:]]Follower[[:space:]]*$' <<<"$out")
((leaders == 1 && followers == 2)) || fail "replication: want 1 Leader and 2 Followers: $out"
grep -Eq "^$leader[[:space:]].*Leader[[:space:]]*\$" <<<"$out" || fail "replication: node $leader is not the Leader row: $out"
# Each row's LogEndOffset reaches the high watermark once followers caught up.
while read -r id _dir leo _rest; do
    [[ "$id" =~ ^[0-9]+$ ]] || continue
    ((leo >= hw)) || fail "replication: node $id LogEndOffset $leo below HW $hw"
done <<<"$out"

# Through a follower: it relays DescribeQuorum to the leader, as a Kafka
# broker forwards it to the active controller.
follower_port=$((base + leader % 3))
out="$(tool --bootstrap-server "localhost:$follower_port" describe --status)" ||
    fail "describe --status via --bootstrap-server (follower) failed: $(tail -n 5 "$E2E_TMP/tool.err")"
grep -Eq "^LeaderId:[[:space:]]+$leader\$" <<<"$out" || fail "bootstrap-server status: LeaderId is not $leader: $out"

pass "kafka-metadata-quorum.sh describe --status/--replication: leader $leader epoch $epoch hw>=$hw, 3 voters, 1 Leader + 2 Followers"
