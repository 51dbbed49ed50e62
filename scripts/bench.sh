#!/usr/bin/env bash
# Throughput benchmark with Kafka's own producer-perf-test against a fresh
# quorum on loopback (verbose=false, temporary log directories).
#
#   scripts/bench.sh [--nodes 1|3] [--records N] [--record-size BYTES]
#                    [--acks all|1] [--idempotent] [--port BASE]
#
# Defaults: 1 node, 500000 records of 100 bytes, acks=all. Prints the tool's
# final line ("N records sent, R records/sec (M MB/sec), ... latency ...").
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
nodes=1
records=500000
size=100
acks=all
props="$root/config/producer.properties"
base=32092
while [[ $# -gt 0 ]]; do
    case "$1" in
        --nodes) nodes="$2"; shift 2 ;;
        --records) records="$2"; shift 2 ;;
        --record-size) size="$2"; shift 2 ;;
        --acks) acks="$2"; shift 2 ;;
        --idempotent) props="$root/config/producer-idempotent.properties"; shift ;;
        --port) base="$2"; shift 2 ;;
        -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
        *) echo "bench: unknown argument $1" >&2; exit 1 ;;
    esac
done
[[ "$nodes" =~ ^[1-9]$ ]] || { echo "bench: --nodes must be 1..9" >&2; exit 1; }

"$root/scripts/install-deps.sh" --test
KQ_BUILD_TARGET=raft-server "$root/scripts/build.sh" build
"$root/scripts/fetch-kafka-tools.sh" > /dev/null

tmp="$(mktemp -d /tmp/kq-bench.XXXXXX)"
pids=()
cleanup() {
    local p
    for p in "${pids[@]}"; do
        kill "$p" 2>/dev/null || true
    done
    for p in "${pids[@]}"; do
        wait "$p" 2>/dev/null || true
    done
    rm -rf "$tmp"
}
trap cleanup EXIT

voters=""
bootstrap=""
for ((i = 1; i <= nodes; i++)); do
    voters+="${voters:+,}$i@localhost:$((base + i - 1))"
    bootstrap+="${bootstrap:+,}localhost:$((base + i - 1))"
done
for ((i = 1; i <= nodes; i++)); do
    port=$((base + i - 1))
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        echo "bench: port $port is in use (choose another with --port)" >&2
        exit 1
    fi
    cat > "$tmp/n$i.properties" <<EOF
broker.id=$i
listeners=PLAINTEXT://localhost:$port
quorum.voters=$voters
log.dirs=$tmp/data$i
verbose=false
EOF
    "$root/build/raft-server" "$tmp/n$i.properties" > "$tmp/n$i.log" 2>&1 &
    pids+=($!)
done
for ((i = 1; i <= nodes; i++)); do
    port=$((base + i - 1))
    for ((t = 0; t < 300; t++)); do
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
        sleep 0.1
    done
done

echo "bench: $nodes node(s), $records records of $size bytes, acks=$acks, $(basename "$props")" >&2
"$root/bin/kafka-producer-perf-test.sh" --topic __cluster_metadata \
    --num-records "$records" --throughput -1 --record-size "$size" \
    --producer.config "$props" \
    --producer-props acks="$acks" bootstrap.servers="$bootstrap" |
    tail -n 1
