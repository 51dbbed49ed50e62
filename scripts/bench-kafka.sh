#!/usr/bin/env bash
# The scripts/bench.sh benchmark (Kafka's producer-perf-test) run against
# real Apache Kafka 4.0.0 brokers on loopback, configured for the same
# durability as our server: every append is fsync'd before it counts
# (flush.messages=1), acks=all needs a majority in sync (min.insync.replicas),
# no unclean leader election.
#
#   scripts/bench-kafka.sh [--nodes 1|3] [--records N] [--record-size BYTES]
#                          [--acks all|1] [--idempotent] [--port BASE]
#
# Defaults: 1 node, 500000 records of 100 bytes, acks=all, base port 41092.
# KRaft combined mode (broker+controller per JVM, -Xmx1G each); broker i
# listens on BASE+i-1, its controller on BASE+100+i-1. Topic `bench`,
# 1 partition, replication factor = nodes. The broker and its dependencies
# are fetched with Maven into .cache/kafka-broker/lib on first use.
# Prints a header (stderr) and the tool's final line (stdout).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
nodes=1
records=500000
size=100
acks=all
props="$root/config/producer.properties"
base=41092
kafka_version="${KQ_KAFKA_BROKER_VERSION:-4.0.0}"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --nodes) nodes="$2"; shift 2 ;;
        --records) records="$2"; shift 2 ;;
        --record-size) size="$2"; shift 2 ;;
        --acks) acks="$2"; shift 2 ;;
        --idempotent) props="$root/config/producer-idempotent.properties"; shift ;;
        --port) base="$2"; shift 2 ;;
        -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
        *) echo "bench-kafka: unknown argument $1" >&2; exit 1 ;;
    esac
done
[[ "$nodes" =~ ^[1-9]$ ]] || { echo "bench-kafka: --nodes must be 1..9" >&2; exit 1; }
[[ "$base" =~ ^[0-9]+$ ]] || { echo "bench-kafka: --port must be a number" >&2; exit 1; }
min_isr=$((nodes / 2 + 1))

lib="$(KQ_KAFKA_BROKER_VERSION=$kafka_version "$root/scripts/fetch-kafka-broker.sh")"
"$root/scripts/fetch-kafka-tools.sh" > /dev/null

port_open() {
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# Our tools wrapper (bin/kafka-run-class.sh) runs TopicCommand from the tools
# classpath; quiet and small.
topics() {
    KAFKA_HEAP_OPTS=-Xmx256M KQ_TOOLS_LOG_LEVEL=error \
        "$root/bin/kafka-run-class.sh" org.apache.kafka.tools.TopicCommand "$@"
}

tmp="$(mktemp -d /tmp/kq-bench-kafka.XXXXXX)"
pids=()
cleanup() {
    local p t
    for p in "${pids[@]}"; do
        kill "$p" 2>/dev/null || true
    done
    # A broker's controlled shutdown can stall without a quorum; bound it.
    for ((t = 0; t < 150; t++)); do
        local alive=0
        for p in "${pids[@]}"; do
            kill -0 "$p" 2>/dev/null && alive=1
        done
        ((alive == 0)) && break
        sleep 0.1
    done
    for p in "${pids[@]}"; do
        kill -9 "$p" 2>/dev/null || true
        wait "$p" 2>/dev/null || true
    done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

voters=""
bootstrap=""
for ((i = 1; i <= nodes; i++)); do
    voters+="${voters:+,}$i@localhost:$((base + 100 + i - 1))"
    bootstrap+="${bootstrap:+,}localhost:$((base + i - 1))"
done
for ((i = 1; i <= nodes; i++)); do
    for port in $((base + i - 1)) $((base + 100 + i - 1)); do
        if port_open "$port"; then
            echo "bench-kafka: port $port is in use (choose another with --port)" >&2
            exit 1
        fi
    done
done

java_opts=(-Xms1G -Xmx1G -XX:+UseG1GC -XX:MaxGCPauseMillis=20
    -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent
    -Djava.awt.headless=true
    -Dorg.slf4j.simpleLogger.defaultLogLevel="${KQ_KAFKA_LOG_LEVEL:-warn}"
    -Dorg.slf4j.simpleLogger.logFile=System.err)

cluster_id="$(java -Dorg.slf4j.simpleLogger.defaultLogLevel=error -cp "$lib/*" \
    kafka.tools.StorageTool random-uuid 2>/dev/null | tail -n 1)"
[[ -n "$cluster_id" ]] || { echo "bench-kafka: could not make a cluster id" >&2; exit 1; }

for ((i = 1; i <= nodes; i++)); do
    port=$((base + i - 1))
    cport=$((base + 100 + i - 1))
    cat > "$tmp/n$i.properties" <<EOF
process.roles=broker,controller
node.id=$i
listeners=PLAINTEXT://localhost:$port,CONTROLLER://localhost:$cport
advertised.listeners=PLAINTEXT://localhost:$port
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
controller.quorum.voters=$voters
log.dirs=$tmp/data$i
num.partitions=1
default.replication.factor=$nodes
min.insync.replicas=$min_isr
unclean.leader.election.enable=false
auto.create.topics.enable=false
# Equal durability: fsync every append before it can be acknowledged.
log.flush.interval.messages=1
offsets.topic.replication.factor=$nodes
transaction.state.log.replication.factor=$nodes
transaction.state.log.min.isr=$min_isr
share.coordinator.state.topic.replication.factor=$nodes
share.coordinator.state.topic.min.isr=$min_isr
group.initial.rebalance.delay.ms=0
num.network.threads=3
num.io.threads=8
EOF
    java -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$lib/*" \
        kafka.tools.StorageTool format --cluster-id "$cluster_id" \
        --config "$tmp/n$i.properties" --ignore-formatted \
        > "$tmp/format$i.log" 2>&1 ||
        { echo "bench-kafka: storage format failed:" >&2; cat "$tmp/format$i.log" >&2; exit 1; }
done
for ((i = 1; i <= nodes; i++)); do
    java "${java_opts[@]}" -cp "$lib/*" kafka.Kafka "$tmp/n$i.properties" \
        > "$tmp/n$i.log" 2>&1 &
    pids+=($!)
done

fail() {
    echo "bench-kafka: $1" >&2
    for ((i = 1; i <= nodes; i++)); do
        echo "--- broker $i log (tail) ---" >&2
        tail -n 20 "$tmp/n$i.log" >&2 || true
    done
    exit 1
}

for ((i = 1; i <= nodes; i++)); do
    port=$((base + i - 1))
    for ((t = 0; t < 600; t++)); do
        port_open "$port" && break
        kill -0 "${pids[i - 1]}" 2>/dev/null || fail "broker $i exited"
        sleep 0.1
    done
    port_open "$port" || fail "broker $i did not listen on $port within 60 s"
done

# Create the topic once the brokers have registered (retry, bounded).
created=0
for ((t = 0; t < 20; t++)); do
    if topics --bootstrap-server "$bootstrap" --create --if-not-exists --topic bench \
        --partitions 1 --replication-factor "$nodes" \
        --config min.insync.replicas="$min_isr" \
        --config flush.messages=1 \
        --config unclean.leader.election.enable=false \
        > "$tmp/create.log" 2>&1; then
        created=1
        break
    fi
    sleep 1
done
((created)) || { cat "$tmp/create.log" >&2; fail "could not create topic bench"; }

# Wait until every replica is in sync, so the run starts from a full ISR.
insync=0
for ((t = 0; t < 30; t++)); do
    desc="$(topics --bootstrap-server "$bootstrap" --describe --topic bench 2>/dev/null || true)"
    isr="$(sed -n 's/.*Isr: \([0-9,]*\).*/\1/p' <<< "$desc" | head -n 1)"
    if [[ -n "$isr" ]] && (($(tr ',' '\n' <<< "$isr" | wc -l) == nodes)) &&
        grep -q 'Leader: [0-9]' <<< "$desc"; then
        insync=1
        break
    fi
    sleep 1
done
((insync)) || fail "topic bench did not reach $nodes in-sync replicas within 30 s"

echo "bench-kafka: Apache Kafka $kafka_version, $nodes node(s) KRaft combined," \
    "rf=$nodes min.insync.replicas=$min_isr flush.messages=1;" \
    "$records records of $size bytes, acks=$acks, $(basename "$props")" >&2
echo "bench-kafka: topic $(grep -o 'Configs: .*' <<< "$desc" | head -n 1)" >&2
# No pipefail-abort on the perf tool: print what it produced, then its status.
set +o pipefail
"$root/bin/kafka-producer-perf-test.sh" --topic bench \
    --num-records "$records" --throughput -1 --record-size "$size" \
    --producer.config "$props" \
    --producer-props acks="$acks" bootstrap.servers="$bootstrap" |
    tail -n 1
exit "${PIPESTATUS[0]}"
