# Helpers for test_mixed_quorum.sh (sourced after lib.sh): a quorum of our
# raft-server nodes and Apache Kafka 4.4.0's kafka.tools.TestRaftServer
# (issue 22). Both replicate __raft_performance_test-0 (topic id
# AAAAAAAAAAAAAAAAAAAAAg) under cluster id AAAAAAAAAAAAAAAAAAAAAA (the one
# TestRaftServer hard-codes: Uuid.ZERO_UUID), over a listener named
# CONTROLLER (a Kafka follower looks the leader's endpoint up by the name
# of its own controller listener), with static voters.
#
# A node is named o<id> (ours) or k<id> (Kafka); NODE_KIND[id] is o or k.
# Every run of a node appends to $E2E_TMP/<name>.log after a "=== start"
# line.

MIXED_TOPIC=__raft_performance_test
MIXED_CLUSTER_ID=AAAAAAAAAAAAAAAAAAAAAA
MIXED_THROUGHPUT=${KQ_MIXED_THROUGHPUT:-300} # records/s of the built-in workload
MIXED_RECORD_BYTES=256
MIXED_FETCH_TIMEOUT_MS=2000 # Kafka's default, set on both sides
# Directory ids, one a node id (any non-reserved Uuids).
MIXED_DIR_IDS=(x Zm9vYmFyYmF6cXV4MTIzNA q2lZGG6oT8G0b2KTyb1V3w b8tRS7h4TJ2Vt43Dp85v2A)
declare -A NODE_KIND=()
declare -A NODE_DIR=()
MIXED_LIB=""

# Kafka 4.4.0's broker jars (kafka_2.13 holds TestRaftServer), or SKIP.
require_test_raft_server() {
    command -v java > /dev/null || skip "no java"
    MIXED_LIB="$(KQ_KAFKA_BROKER_VERSION=4.4.0 "$E2E_ROOT/scripts/fetch-kafka-broker.sh" \
        2> "$E2E_TMP/fetch.err")" ||
        skip "Kafka 4.4.0 broker jars not available: $(tail -n 1 "$E2E_TMP/fetch.err")"
}

# mixed_props <id> <port> <voters>: the properties of node id, for its kind.
mixed_props() {
    local id=$1 port=$2 voters=$3 dir="$E2E_TMP/${NODE_KIND[$1]}$1"
    NODE_DIR[$id]=$dir
    {
        echo "node.id=$id"
        echo "listeners=CONTROLLER://localhost:$port"
        echo "controller.listener.names=CONTROLLER"
        echo "listener.security.protocol.map=CONTROLLER:PLAINTEXT"
        echo "controller.quorum.voters=$voters"
        echo "controller.quorum.fetch.timeout.ms=$MIXED_FETCH_TIMEOUT_MS"
        echo "controller.quorum.election.timeout.ms=1000"
        echo "log.dirs=$dir"
        if [[ ${NODE_KIND[$id]} == o ]]; then
            echo "cluster.id=$MIXED_CLUSTER_ID"
            echo "quorum.topic.name=$MIXED_TOPIC"
            echo "verbose=false"
        fi
    } > "$E2E_TMP/${NODE_KIND[$id]}$id.properties"
}

# mixed_start <id>: starts node id in the background (no wait).
mixed_start() {
    local id=$1 name="${NODE_KIND[$1]}$1"
    local args=(--config "$E2E_TMP/$name.properties" --replica-directory-id "${MIXED_DIR_IDS[$id]}"
        --throughput "$MIXED_THROUGHPUT" --record-size "$MIXED_RECORD_BYTES")
    echo "=== start $(date +%T.%N)" >> "$E2E_TMP/$name.log"
    if [[ ${NODE_KIND[$id]} == o ]]; then
        "$SERVER_BIN" "${args[@]}" >> "$E2E_TMP/$name.log" 2>&1 &
    else
        # C1 only and a small heap: two cores run three nodes and the test.
        java -Xms64m -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
            -Dorg.slf4j.simpleLogger.showDateTime=true \
            -Dorg.slf4j.simpleLogger.dateTimeFormat="yyyy-MM-dd HH:mm:ss,SSS" -cp "$MIXED_LIB/*" \
            kafka.tools.TestRaftServer "${args[@]}" >> "$E2E_TMP/$name.log" 2>&1 &
    fi
    SERVER_PID[$name]=$!
}

mixed_alive() { server_alive "${NODE_KIND[$1]}$1"; }

# The last run's lines of node id's log.
mixed_run_log() {
    awk '/^=== start/ {buf = ""} {buf = buf $0 "\n"} END {printf "%s", buf}' \
        "$E2E_TMP/${NODE_KIND[$1]}$1.log"
}

# "leader epoch" that node id's last run logged last (nothing if none).
mixed_logged_leader() {
    if [[ ${NODE_KIND[$1]} == o ]]; then
        mixed_run_log "$1" |
            sed -n 's/.*node [0-9]*: [a-z]* in epoch \([0-9]*\), leader \([0-9]*\):.*/\2 \1/p' |
            tail -n 1
    else
        mixed_run_log "$1" | $PY -c '
import re, sys
last = ""
for line in sys.stdin:
    m = re.search(r"Completed transition to FollowerState\(fetchTimeoutMs=\d+, epoch=(\d+), leader=(\d+)", line)
    if m:
        last = m.group(2) + " " + m.group(1)
    m = re.search(r"Completed transition to Leader\(localVoterNode=VoterNode\(voterKey=ReplicaKey\(id=(\d+).*?\), epoch=(\d+), epochStartOffset", line)
    if m:
        last = m.group(1) + " " + m.group(2)
print(last)'
    fi
}

# quorum_probe.py about the mixed topic, answered by the node asked: a
# follower of ours relays DescribeQuorum to its leader otherwise, and a
# TestRaftServer leader answers none (it logs an ERROR "Unsupported api
# key: DESCRIBE_QUORUM" instead).
mixed_probe() {
    $PY "$E2E_ROOT/tests/e2e/quorum_probe.py" --topic "$MIXED_TOPIC" --local "$@"
}

# "leader epoch hw" as the quorum sees it now: DescribeQuorum of our live
# nodes (TestRaftServer does not answer DescribeQuorum), else the newest
# epoch a live Kafka node logged (hw -1). Prints "-1 -1 -1" when unknown.
mixed_leader() {
    local best_l=-1 best_e=-1 best_h=-1 id l e h
    for id in "${!NODE_KIND[@]}"; do
        mixed_alive "$id" || continue
        if [[ ${NODE_KIND[$id]} == o ]]; then
            read -r l e h < <(mixed_probe --leader "localhost:${SERVER_PORT[o$id]}" 2> /dev/null)
        else
            read -r l e < <(mixed_logged_leader "$id")
            h=-1
        fi
        [[ -n "${l:-}" && -n "${e:-}" && $l -ge 0 ]] || continue
        if ((e > best_e || (e == best_e && h > best_h))); then
            best_l=$l best_e=$e best_h=${h:--1}
        fi
    done
    echo "$best_l $best_e $best_h"
}

# mixed_wait_leader <secs> <min epoch>: a live leader in an epoch of at
# least min epoch; prints "leader epoch hw".
mixed_wait_leader() {
    local deadline=$((SECONDS + $1)) l e h
    while ((SECONDS < deadline)); do
        read -r l e h < <(mixed_leader)
        if ((l >= 0 && e >= $2)) && [[ -n "${NODE_KIND[$l]:-}" ]] && mixed_alive "$l"; then
            echo "$l $e $h"
            return 0
        fi
        sleep 0.3
    done
    return 1
}

# mixed_wait_following <id> <epoch> <secs>: node id's last run logged
# following (or leading) in epoch or later.
mixed_wait_following() {
    local deadline=$((SECONDS + $3)) l e
    while ((SECONDS < deadline)); do
        mixed_alive "$1" || fail "${NODE_KIND[$1]}$1 exited"
        read -r l e < <(mixed_logged_leader "$1")
        [[ -n "${e:-}" && $e -ge $2 ]] && return 0
        sleep 0.3
    done
    fail "${NODE_KIND[$1]}$1 does not follow a leader in epoch $2 or later within $3s"
}

# The partition directory of node id (ours keeps __cluster_metadata-0
# whatever the topic's name).
mixed_part_dir() {
    if [[ ${NODE_KIND[$1]} == o ]]; then
        echo "${NODE_DIR[$1]}/__cluster_metadata-0"
    else
        echo "${NODE_DIR[$1]}/$MIXED_TOPIC-0"
    fi
}
