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
# 1 partition, replication factor = nodes, every replica in the ISR and
# every metadata-quorum voter at lag 0 before the run (start_kafka in
# scripts/bench/lib.sh, shared with scripts/bench-all.sh). The broker and
# its dependencies are fetched with Maven into .cache/kafka-broker/lib on
# first use (KQ_KAFKA_BROKER_VERSION picks another release).
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
        -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
        *) echo "bench-kafka: unknown argument $1" >&2; exit 1 ;;
    esac
done
[[ "$nodes" =~ ^[1-9]$ ]] || { echo "bench-kafka: --nodes must be 1..9" >&2; exit 1; }
[[ "$base" =~ ^[0-9]+$ ]] || { echo "bench-kafka: --port must be a number" >&2; exit 1; }
min_isr=$((nodes / 2 + 1))

tmp="$(mktemp -d /tmp/kq-bench-kafka.XXXXXX)"
csv=/dev/null
bench_name=bench-kafka
KQ_BENCH_KAFKA_VERSION=$kafka_version
# shellcheck source=scripts/bench/lib.sh
source "$root/scripts/bench/lib.sh"
trap 'bench_cleanup; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
"$root/scripts/fetch-kafka-tools.sh" > /dev/null
start_kafka "$nodes" "$base"

echo "bench-kafka: Apache Kafka $kafka_version, $nodes node(s) KRaft combined," \
    "rf=$nodes min.insync.replicas=$min_isr flush.messages=1;" \
    "$records records of $size bytes, acks=$acks, $(basename "$props")" >&2
# No pipefail-abort on the perf tool: print what it produced, then its status.
set +o pipefail
"$root/bin/kafka-producer-perf-test.sh" --topic bench \
    --num-records "$records" --throughput -1 --record-size "$size" \
    --producer.config "$props" \
    --producer-props acks="$acks" bootstrap.servers="$kafka_bootstrap" |
    tail -n 1
exit "${PIPESTATUS[0]}"
