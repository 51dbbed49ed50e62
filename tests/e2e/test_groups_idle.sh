#!/usr/bin/env bash
# Lag 0 and no idle appends (issue 24), on three nodes (one with
# KQ_SKIP_MULTINODE=1): two idle Java 4.4 consumers
# (tests/e2e/java/GroupClient.java), one with group.protocol=consumer and one
# classic, each alone in its group, auto-committing every second
# (auto.commit.interval.ms=1000), read the 100 records of the partition and
# then sit idle for 60 s. Checks: once caught up, kafka-consumer-groups.sh
# --describe --offsets (Kafka 4.4.0's tool) shows CURRENT-OFFSET =
# LOG-END-OFFSET, LAG 0, for both groups, before and after the minute; the
# partition's log end offset does not move during the minute (the commits
# append nothing); and the commits did go on all along (so the check is not
# vacuous): at least one OffsetCommit per group every 2 s, counted by our
# metrics endpoint (kq_request_latency_seconds_count{api="OffsetCommit"}),
# or on Kafka by the growth of __consumer_offsets-0.
# KQ_GROUPS_KAFKA=1 runs the same against three Apache Kafka 4.4.0 brokers
# (where the commits go to __consumer_offsets, so the data partition's end
# cannot move). KQ_GROUPS_PROTOCOLS limits the groups (default "consumer
# classic"); KQ_IDLE_S changes the minute.
set -uo pipefail
export KQ_KAFKA_TOOLS_VERSION=4.4.0
[[ "${KQ_GROUPS_KAFKA:-0}" == 1 ]] && export KQ_KAFKA_BROKER_VERSION=4.4.0
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/groups_lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/java_lib.sh"

E2E="$E2E_ROOT/tests/e2e"
EV="$E2E/group_events.py"
NODES=3
[[ "${KQ_SKIP_MULTINODE:-0}" == 1 ]] && NODES=1
IDLE_S=${KQ_IDLE_S:-60}
protocols=(${KQ_GROUPS_PROTOCOLS:-consumer classic})
D="$E2E_TMP/idle"
mkdir -p "$D"
e2e_node_props() { echo "metrics.port=$((G_BASE + 60 + $1))"; }

command -v kcat > /dev/null || fail "kcat missing (scripts/install-deps.sh --test)"
JCP="$(java_client_classpath "$E2E_ROOT" GroupClient)" || fail "cannot compile tests/e2e/java/GroupClient.java against kafka-clients 4.4.0"
groups_start "$NODES" "$(pick_ports 37700 "$NODES")" || fail "no free ports"
log "$NODES node(s) $([[ "$G_KAFKA" == 1 ]] && echo "of Apache Kafka $KQ_KAFKA_BROKER_VERSION" || echo "of ours"): $G_BOOTSTRAP, topic $TOPIC"

errtail() { tail -n 3 "$1" 2>/dev/null | tr '\n' ' ' | cut -c1-400; }
col() {
    awk -v g="$2" -v c="$3" -v t="$TOPIC" '
        /CURRENT-OFFSET/ { delete h; for (i = 1; i <= NF; i++) h[$i] = i; next }
        h["GROUP"] && $h["GROUP"] == g && $h["TOPIC"] == t && $h["PARTITION"] == 0 { print $h[c]; exit }' "$1"
}
# commits_count: OffsetCommit requests served so far (ours: summed over the
# nodes' metrics; Kafka: the end offset of __consumer_offsets-0).
commits_count() {
    if [[ "$G_KAFKA" == 1 ]]; then
        g_ktool org.apache.kafka.tools.GetOffsetShell --bootstrap-server "$G_BOOTSTRAP" \
            --topic __consumer_offsets --time -1 2>/dev/null | awk -F: '$2 == 0 { print $3 }'
    else
        $PY - "$G_BASE" "$NODES" <<'PY'
import sys, urllib.request
base, n = int(sys.argv[1]), int(sys.argv[2])
total = 0
for i in range(1, n + 1):
    body = urllib.request.urlopen(f"http://localhost:{base + 60 + i}/metrics", timeout=10).read().decode()
    for line in body.splitlines():
        if line.startswith('kq_request_latency_seconds_count{api="OffsetCommit"}'):
            total += int(float(line.split()[-1]))
print(total)
PY
    fi
}
groups=() spec=""
for p in "${protocols[@]}"; do
    groups+=("idle-$p")
    spec+="${spec:+,}idle-$p:$p:1"
done

for ((i = 0; i < 100; i++)); do echo "idle-$i"; done |
    timeout 60 kcat -P -q -b "$G_BOOTSTRAP" -t "$TOPIC" -p 0 -X acks=all 2> "$D/kcat.err" ||
    fail "kcat cannot produce: $(errtail "$D/kcat.err")"
last="$(timeout 60 kcat -C -q -b "$G_BOOTSTRAP" -t "$TOPIC" -p 0 -o beginning -e -f '%o\n' 2>/dev/null | tail -n 1)"
[[ -n "$last" ]] || fail "kcat cannot read $TOPIC back"

java -Xms64m -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
    -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -Dorg.slf4j.simpleLogger.logFile=System.err \
    -cp "$JCP" GroupClient members boot="$G_BOOTSTRAP" topic="$TOPIC" groups="$spec" \
    commit=auto auto_ms=1000 stop="$D/stop" max_s=300 > "$D/events" 2> "$D/client.err" &
cpid=$!
for ((t = 0; t < 200; t++)); do
    $PY "$EV" caught-up "$D/events" "$last" "${groups[@]}" && break
    grep -q $'^error\t.*UnsupportedVersion' "$D/events" && break
    kill -0 "$cpid" 2>/dev/null || break
    sleep 0.3
done
$PY "$EV" caught-up "$D/events" "$last" "${groups[@]}" ||
    g_fail "${groups[*]} did not read to offset $last within 60 s: $(grep -m2 -P '^error\t' "$D/events" | cut -f3- | tr '\n' ' ' | cut -c1-300) $(errtail "$D/client.err")"

failures=()
# describe_lag <out> <when>: --describe --offsets; records a failure unless
# every group shows LAG 0. Leaves the partition's end in $leo.
describe_lag() {
    local g cur lag
    g_groups_cmd --describe --offsets $(printf -- '--group %s ' "${groups[@]}") > "$1" 2> "$1.err"
    leo=""
    for g in "${groups[@]}"; do
        cur="$(col "$1" "$g" CURRENT-OFFSET)" lag="$(col "$1" "$g" LAG)"
        leo="$(col "$1" "$g" LOG-END-OFFSET)"
        [[ -n "$cur" && "$cur" == "$leo" && "$lag" == 0 ]] && continue
        [[ "$2" == try ]] && return 1
        failures+=("$2: $g shows CURRENT-OFFSET '$cur' LOG-END-OFFSET '$leo' LAG '$lag' (read up to offset $last)")
    done
    [[ -n "$leo" ]] || failures+=("$2: no LOG-END-OFFSET: $(errtail "$1.err")")
}
# The first auto-commits after the last record: LAG 0 within 20 s.
for ((t = 0; t < 10; t++)); do
    describe_lag "$D/describe0" try && break
    sleep 1
done
describe_lag "$D/describe0" "caught up"
leo0=$leo
c0="$(commits_count)"
t0=$SECONDS
log "caught up: log end offset $leo0, LAG: $(for g in "${groups[@]}"; do printf '%s=%s ' "$g" "$(col "$D/describe0" "$g" LAG)"; done); idle for $IDLE_S s"
sleep $((IDLE_S - (SECONDS - t0)))
describe_lag "$D/describe1" "after $IDLE_S s idle"
leo1=$leo
c1="$(commits_count)"
log "after $((SECONDS - t0)) s: log end offset $leo1, LAG: $(for g in "${groups[@]}"; do printf '%s=%s ' "$g" "$(col "$D/describe1" "$g" LAG)"; done); commits counted ${c0:-?} -> ${c1:-?}"
touch "$D/stop"
for ((t = 0; t < 300; t++)); do kill -0 "$cpid" 2>/dev/null || break; sleep 0.1; done
kill_tree "$cpid"
wait "$cpid" 2>/dev/null

[[ -n "$leo0" && "$leo0" == "$leo1" ]] ||
    failures+=("the log end offset moved from '$leo0' to '$leo1' in $IDLE_S s of idle auto-commits ($(( ${leo1:-0} - ${leo0:-0} )) offsets)")
want=$((IDLE_S * ${#groups[@]} / 2))
[[ "$c0" =~ ^[0-9]+$ && "$c1" =~ ^[0-9]+$ ]] && ((c1 - c0 >= want)) ||
    failures+=("only $((${c1:-0} - ${c0:-0})) commits counted in $IDLE_S s (at least $want expected): the check would be vacuous")
grep -q $'^commit\t.*err' "$D/events" && failures+=("a commit failed: $(grep -m1 $'^commit\t.*err' "$D/events")")
((${#failures[@]} == 0)) || fail "${#failures[@]} failures: ${failures[*]}"
pass "${groups[*]} caught up and idle for $IDLE_S s with auto.commit.interval.ms=1000: LAG 0, log end offset $leo0 unchanged, $((c1 - c0)) commits counted"
