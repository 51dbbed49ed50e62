# Helpers for the consumer-group tests (test_groups_*.sh), sourced after
# lib.sh. They start either our server (default) or, with KQ_GROUPS_KAFKA=1,
# real Apache Kafka 4.0.0 brokers (KRaft combined mode, a topic of one
# partition replicated to every node) so that the tests' client logic can be
# checked against the reference implementation. Nodes are named n1..nN,
# their client ports are base..base+N-1 (Kafka's controllers base+50..).
#
# G_KAFKA_EXTRA_PROPS: more broker properties (lines), for Kafka only (for
# ours, define e2e_node_props <id>: lib.sh's start_quorum);
# KQ_KAFKA_BROKER_VERSION picks the release (scripts/fetch-kafka-broker.sh).
# After groups_start: G_BOOTSTRAP (every node), G_PORTS (client ports),
# TOPIC (__cluster_metadata for our server, "grp" for Kafka).

G_KAFKA="${KQ_GROUPS_KAFKA:-0}"
G_NODES=0
G_BASE=0
G_PORTS=()
G_BOOTSTRAP=""
G_CACHE="$E2E_ROOT/.cache"
[[ "$G_KAFKA" == 1 ]] && TOPIC=grp

g_kafka_lib() { "$E2E_ROOT/scripts/fetch-kafka-broker.sh"; }

# A Kafka admin tool (the tools' classpath), quietly.
g_ktool() {
    KAFKA_HEAP_OPTS=-Xmx256M KQ_TOOLS_LOG_LEVEL=error "$E2E_ROOT/bin/kafka-run-class.sh" "$@"
}

g_launch_kafka() {
    local i=$1 lib
    lib="$(g_kafka_lib)" || fail "cannot fetch the Kafka broker"
    echo "=== start $(date +%T.%N)" >> "$E2E_TMP/n$i.log"
    java -Xms256M -Xmx512M -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Djava.awt.headless=true \
        -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -Dorg.slf4j.simpleLogger.logFile=System.err \
        -cp "$lib/*" kafka.Kafka "$E2E_TMP/n$i.properties" >> "$E2E_TMP/n$i.log" 2>&1 &
    SERVER_PID[n$i]=$!
    SERVER_PORT[n$i]=$((G_BASE + i - 1))
    SERVER_PROPS[n$i]="$E2E_TMP/n$i.properties"
    ID_PORT[$i]=$((G_BASE + i - 1))
}

g_start_kafka() {
    local n=$1 i lib cid voters="" min_isr=$(($1 / 2 + 1)) t
    lib="$(g_kafka_lib)" || fail "cannot fetch the Kafka broker"
    for ((i = 1; i <= n; i++)); do
        voters+="${voters:+,}$i@localhost:$((G_BASE + 50 + i - 1))"
    done
    cid="$(java -Dorg.slf4j.simpleLogger.defaultLogLevel=error -cp "$lib/*" \
        kafka.tools.StorageTool random-uuid 2>/dev/null | tail -n 1)"
    [[ -n "$cid" ]] || fail "kafka: no cluster id"
    for ((i = 1; i <= n; i++)); do
        cat > "$E2E_TMP/n$i.properties" <<EOF
process.roles=broker,controller
node.id=$i
listeners=PLAINTEXT://localhost:$((G_BASE + i - 1)),CONTROLLER://localhost:$((G_BASE + 50 + i - 1))
advertised.listeners=PLAINTEXT://localhost:$((G_BASE + i - 1))
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
controller.quorum.voters=$voters
log.dirs=$E2E_TMP/data$i
num.partitions=1
default.replication.factor=$n
min.insync.replicas=$min_isr
unclean.leader.election.enable=false
auto.create.topics.enable=false
offsets.topic.replication.factor=$n
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=$n
transaction.state.log.min.isr=$min_isr
share.coordinator.state.topic.replication.factor=$n
share.coordinator.state.topic.min.isr=$min_isr
group.initial.rebalance.delay.ms=0
EOF
        # Extra broker settings of the calling test (one per line).
        [[ -z "${G_KAFKA_EXTRA_PROPS:-}" ]] || printf '%s\n' "$G_KAFKA_EXTRA_PROPS" >> "$E2E_TMP/n$i.properties"
        java -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$lib/*" \
            kafka.tools.StorageTool format --cluster-id "$cid" \
            --config "$E2E_TMP/n$i.properties" --ignore-formatted > "$E2E_TMP/format$i.log" 2>&1 ||
            fail "kafka storage format failed: $(tail -n 3 "$E2E_TMP/format$i.log")"
    done
    for ((i = 1; i <= n; i++)); do
        g_launch_kafka "$i"
    done
    for ((i = 1; i <= n; i++)); do
        wait_port "n$i" 120
    done
    for ((t = 0; ; t++)); do
        g_ktool org.apache.kafka.tools.TopicCommand --bootstrap-server "$G_BOOTSTRAP" \
            --create --if-not-exists --topic "$TOPIC" --partitions 1 \
            --replication-factor "$n" > "$E2E_TMP/create.log" 2>&1 && break
        ((t < 30)) || fail "kafka: cannot create topic $TOPIC: $(tail -n 3 "$E2E_TMP/create.log")"
        sleep 1
    done
}

# groups_start <nodes> <base port>
groups_start() {
    local n=$1 i
    G_NODES=$n
    G_BASE=$2
    G_PORTS=()
    G_BOOTSTRAP=""
    for ((i = 1; i <= n; i++)); do
        G_PORTS+=($((G_BASE + i - 1)))
        G_BOOTSTRAP+="${G_BOOTSTRAP:+,}localhost:$((G_BASE + i - 1))"
    done
    if [[ "$G_KAFKA" == 1 ]]; then
        g_start_kafka "$n"
    elif ((n == 1)); then
        require_server
        write_props "$E2E_TMP/n1.properties" 1 "$G_BASE" "$E2E_TMP/data1"
        if declare -F e2e_node_props > /dev/null; then
            e2e_node_props 1 >> "$E2E_TMP/n1.properties"
        fi
        start_server n1 "$E2E_TMP/n1.properties" "$G_BASE"
    else
        require_server
        start_quorum "$G_BASE"
    fi
    wait_leader 90 "${G_PORTS[@]}" > /dev/null || fail "no leader agreed within 90s"
}

g_restart() {
    if [[ "$G_KAFKA" == 1 ]]; then
        g_launch_kafka "${1#n}"
        wait_port "$1" 120
    else
        restart_server "$1"
    fi
}

# Kafka's ConsumerGroupCommand (bin/kafka-consumer-groups.sh), stdout only.
g_groups_cmd() {
    KAFKA_HEAP_OPTS=-Xmx256M KQ_TOOLS_LOG_LEVEL=error timeout 60 \
        "$E2E_ROOT/bin/kafka-consumer-groups.sh" --bootstrap-server "$G_BOOTSTRAP" "$@"
}

# The committed offset of partition 0 of TOPIC for group $1 as shown by
# `kafka-consumer-groups.sh --describe` ("-" when none, empty on failure).
# Also leaves the whole output in $E2E_TMP/describe.last.
g_describe_offset() {
    g_groups_cmd --describe --group "$1" > "$E2E_TMP/describe.last" 2> "$E2E_TMP/describe.err" || return 1
    awk -v t="$TOPIC" '$2 == t && $3 == 0 { print $4; exit }' "$E2E_TMP/describe.last"
}

# A Python virtual environment under .cache with confluent-kafka from PyPI
# (installed once); prints its python.
g_confluent_python() {
    local venv="$G_CACHE/venv-confluent"
    if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c 'import confluent_kafka' 2>/dev/null; then
        rm -rf "$venv"
        mkdir -p "$G_CACHE"
        $PY -m venv "$venv" >&2 || return 1
        timeout 300 "$venv/bin/pip" install -q 'confluent-kafka==2.16.1' >&2 || return 1
    fi
    echo "$venv/bin/python"
}

# Builds tests/e2e/go/groupclient (franz-go) into .cache/go-bin once per
# source change; prints the binary.
g_franz_client() {
    local src="$E2E_ROOT/tests/e2e/go/groupclient" out="$G_CACHE/go-bin" sum bin
    sum="$(cat "$src"/*.go "$src/go.mod" "$src/go.sum" | sha256sum | cut -c1-16)"
    bin="$out/groupclient-$sum"
    if [[ ! -x "$bin" ]]; then
        mkdir -p "$out"
        (cd "$src" && \
            timeout 300 go build -buildvcs=false -o "$bin.tmp" .) >&2 || return 1
        mv "$bin.tmp" "$bin"
    fi
    echo "$bin"
}

# g_fail <message>: fail, after walking through the group protocol by hand
# (group_probe.py: which request answers which error) when the nodes are up;
# the probe's output goes to stderr, its first error into the message.
g_fail() {
    local p first addrs
    if [[ -n "$G_BOOTSTRAP" ]]; then
        addrs="${G_BOOTSTRAP//,/ }"
        # shellcheck disable=SC2086
        p="$(timeout 90 $PY "$E2E_ROOT/tests/e2e/group_probe.py" "probe-$RANDOM" "$TOPIC" $addrs 2>&1)"
        echo "--- group protocol probe ($G_BOOTSTRAP):" >&2
        echo "$p" >&2
        first="$(grep -E '^  [A-Za-z]+: [A-Za-z]+Error\(|^  error:|^brokers name' <<< "$p" | head -n 1 | sed 's/^ *//')"
    fi
    fail "$*${first:+ [group probe: $first]}"
}
