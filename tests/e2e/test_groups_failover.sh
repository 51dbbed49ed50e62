#!/usr/bin/env bash
# Consumer groups through leader failovers (issue 24): three nodes; one JVM
# (tests/e2e/java/GroupClient.java, kafka-clients 4.4.0) runs a producer
# (acks=all, 50 records/s) and two groups of two consumers each, one with
# group.protocol=consumer (KIP-848) and one with classic, committing
# synchronously after every poll. The leader is SIGKILLed, the group fetches
# again, the node comes back; then a second time. Checks (group_events.py
# check): from the first kill on no partition is revoked, lost or assigned
# (a ConsumerRebalanceListener counts them) and no member changes its member
# id; no commit fails and every group commits after every kill; every
# acknowledged record is read by both groups at its offset, and a record is
# read twice only at or above the group's last commit before a kill;
# `kafka-consumer-groups.sh --describe --members --verbose` (Kafka 4.4.0's
# tool) shows the same member ids before the kills and after. Prints, per
# kill and group, the time from the SIGKILL until the group fetched a record
# again and until it committed again.
# KQ_GROUPS_KAFKA=1 runs the same against three Apache Kafka 4.4.0 brokers,
# where the broker killed is the group coordinator after it was made the
# leader of the data partition too (GroupClient colocate), as our leader is
# both. KQ_GROUPS_PROTOCOLS limits the groups (default "consumer classic").
set -uo pipefail
export KQ_KAFKA_TOOLS_VERSION=4.4.0
[[ "${KQ_GROUPS_KAFKA:-0}" == 1 ]] && export KQ_KAFKA_BROKER_VERSION=4.4.0
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/groups_lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/java_lib.sh"
require_multinode

E2E="$E2E_ROOT/tests/e2e"
EV="$E2E/group_events.py"
protocols=(${KQ_GROUPS_PROTOCOLS:-consumer classic})
D="$E2E_TMP/fo"
mkdir -p "$D"
JCP="$(java_client_classpath "$E2E_ROOT" GroupClient)" || fail "cannot compile tests/e2e/java/GroupClient.java against kafka-clients 4.4.0"

groups_start 3 "$(pick_ports 37500 3)" || fail "no free ports"
log "3 nodes $([[ "$G_KAFKA" == 1 ]] && echo "of Apache Kafka $KQ_KAFKA_BROKER_VERSION" || echo "of ours"): $G_BOOTSTRAP, topic $TOPIC"

groups=() spec=""
for p in "${protocols[@]}"; do
    groups+=("fo-$p")
    spec+="${spec:+,}fo-$p:$p:2"
done
glist="$(IFS=,; echo "${groups[*]}")"
errtail() { tail -n 3 "$1" 2>/dev/null | tr '\n' ' '; }
# wait_ev <secs> <group_events.py args...>
wait_ev() {
    local deadline=$((SECONDS + $1))
    shift
    while ((SECONDS < deadline)); do
        $PY "$EV" "$@" && return 0
        kill -0 "$cpid" 2>/dev/null || return 1
        sleep 0.3
    done
    return 1
}
# Kafka: every replica of TOPIC-0 and __consumer_offsets-0 in sync.
wait_isr() {
    local t tp out
    [[ "$G_KAFKA" == 1 ]] || return 0
    for tp in "$TOPIC" __consumer_offsets; do
        for ((t = 0; ; t++)); do
            out="$(timeout 10 kcat -L -b "$G_BOOTSTRAP" -t "$tp" 2>/dev/null)"
            [[ "$(sed -n 's/.*isrs: \([0-9,]*\).*/\1/p' <<< "$out" | tr ',' '\n' | grep -c .)" == 3 ]] && break
            ((t < 240)) || return 1
            sleep 0.5
        done
    done
}
members_describe() {
    local args=() g
    for g in "${groups[@]}"; do args+=(--group "$g"); done
    g_groups_cmd --describe --members --verbose "${args[@]}" > "$1" 2> "$1.err"
}

java -Xms64m -Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
    -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -Dorg.slf4j.simpleLogger.logFile=System.err \
    -cp "$JCP" GroupClient members boot="$G_BOOTSTRAP" topic="$TOPIC" groups="$spec" \
    commit=sync records=100000 rate=50 prefix=fo stop="$D/stop" pstop="$D/pstop" max_s=400 \
    > "$D/events" 2> "$D/client.err" &
cpid=$!
wait_ev 60 stable "$D/events" "${groups[@]}" ||
    g_fail "the groups did not settle (assignment, a record fetched) within 60 s: $(grep -m3 -P '^error\t' "$D/events" | cut -f3- | tr '\n' ' ') $(errtail "$D/client.err")"
log "groups ${groups[*]} consuming"
members_describe "$D/describe.before" ||
    g_fail "--describe --members --verbose failed: $(errtail "$D/describe.before.err")"
for g in "${groups[@]}"; do
    log "$g members before: $($PY "$EV" describe-members "$D/describe.before" "$g")"
done

# probe_leader: "leader epoch" from DescribeQuorum (ours), the freshest view.
probe_leader() {
    local l e
    read -r l e _ < <($PY "$E2E/quorum_probe.py" --leader ${G_BOOTSTRAP//,/ } 2>/dev/null) || return 1
    [[ -n "$l" && "$l" != -1 ]] || return 1
    echo "$l $e"
}
kills=()
for round in 1 2; do
    leader="$(wait_leader 60 "${G_PORTS[@]}")" || g_fail "round $round: no leader"
    epoch=""
    if [[ "$G_KAFKA" != 1 ]]; then
        read -r leader epoch < <(probe_leader) || g_fail "round $round: DescribeQuorum names no leader"
    else
        # The coordinator must lead the data partition too (our leader is both).
        leader="$(java -Xmx128m -XX:TieredStopAtLevel=1 -Dorg.slf4j.simpleLogger.defaultLogLevel=error \
            -cp "$JCP" GroupClient colocate "$G_BOOTSTRAP" "$TOPIC" 2> "$D/colocate.err" | sed -n 's/^coordinator\t//p')"
        [[ -n "$leader" ]] || g_fail "round $round: cannot colocate the coordinator and $TOPIC-0's leader: $(errtail "$D/colocate.err")"
    fi
    # The groups fetch right now (a kill lands on consumers at work).
    now="$(date +%s%3N)"
    wait_ev 30 fetched-since "$D/events" "$((now - 500))" "${groups[@]}" || g_fail "round $round: the groups do not fetch before the kill"
    kill9_server "n$leader"
    # From the moment the killed process is gone (reaped): a record sent
    # from then on can only be written by the next leader (one sent just
    # before could still commit on the old one).
    k="$(date +%s%3N)"
    kills+=("$k")
    mapfile -t alive < <(live_ports)
    new="$(wait_leader 60 "${alive[@]}")" || g_fail "round $round: the survivors agree on no leader"
    if [[ -n "$epoch" ]]; then
        read -r _ e2 < <(probe_leader)
        # The node killed led (a later epoch now): else the figure would lie.
        ((${e2:-0} > epoch)) || g_fail "round $round: the epoch did not change (${e2:-?} after $epoch): n$leader did not lead when killed"
    fi
    wait_ev 60 fetched-since "$D/events" "$k" "${groups[@]}" ||
        g_fail "round $round: a group did not fetch again within 60 s of the SIGKILL of n$leader"
    log "round $round: n$leader killed, new leader n$new; $($PY "$EV" times "$D/events" --kills "$k" --groups "$glist" | cut -d' ' -f3-)"
    g_restart "n$leader"
    wait_leader 90 "${G_PORTS[@]}" > /dev/null || g_fail "round $round: no leader agreed after the restart"
    wait_isr || g_fail "round $round: n$leader not back in sync"
    if [[ "$G_KAFKA" != 1 ]]; then
        $PY "$E2E/quorum_probe.py" --wait-synced 60 ${G_BOOTSTRAP//,/ } > /dev/null 2> "$D/synced.err" ||
            g_fail "round $round: the voters did not catch up: $(errtail "$D/synced.err")"
    fi
done

touch "$D/pstop"
for ((t = 0; t < 600; t++)); do grep -q $'^pdone\t' "$D/events" && break; sleep 0.1; done
grep -q $'^pdone\t' "$D/events" || g_fail "the producer did not stop: $(errtail "$D/client.err")"
last="$(grep $'^ack\t' "$D/events" | cut -f3 | sort -n | tail -n 1)"
[[ -n "$last" ]] || g_fail "no record acknowledged: $(grep -m3 $'^perr\t' "$D/events")"
wait_ev 60 caught-up "$D/events" "$last" "${groups[@]}" ||
    g_fail "the groups did not read and commit up to offset $last within 60 s"
members_describe "$D/describe.after" ||
    g_fail "--describe --members --verbose (after) failed: $(errtail "$D/describe.after.err")"
for g in "${groups[@]}"; do
    log "$g members after: $($PY "$EV" describe-members "$D/describe.after" "$g")"
done
until="$(date +%s%3N)"
touch "$D/stop"
for ((t = 0; t < 300; t++)); do kill -0 "$cpid" 2>/dev/null || break; sleep 0.1; done
kill_tree "$cpid"
wait "$cpid" 2>/dev/null

times="$($PY "$EV" times "$D/events" --kills "$(IFS=,; echo "${kills[*]}")" --groups "$glist" --until "$until")"
while read -r l; do log "$l"; done <<< "$times"
sum="$($PY "$EV" check "$D/events" --kills "$(IFS=,; echo "${kills[*]}")" --groups "$glist" \
    --until "$until" --describe-before "$D/describe.before" --describe-after "$D/describe.after")" ||
    g_fail "through 2 leader kills: $sum"
pass "2 leader SIGKILLs under ${groups[*]}: $sum; ms from SIGKILL to fetch/commit again: $(tr '\n' ' ' <<< "$times")"
