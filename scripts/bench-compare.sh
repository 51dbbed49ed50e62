#!/usr/bin/env bash
# Side-by-side producer-perf-test: our quorum (scripts/bench.sh) against
# Apache Kafka 4.0.0 at equal durability (scripts/bench-kafka.sh), for small
# and 1 KB records on 1 and 3 nodes. Prints a Markdown table.
#
#   scripts/bench-compare.sh [--small-records N] [--large-records N]
#                            [--acks all|1] [--nodes "1 3"]
#
# Defaults: 300000 records of 10 bytes, 60000 records of 1024 bytes,
# acks=all, 1 and 3 nodes. Each run's full output goes to a log kept only
# when the run fails.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
small=300000
large=60000
acks=all
node_counts="1 3"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --small-records) small="$2"; shift 2 ;;
        --large-records) large="$2"; shift 2 ;;
        --acks) acks="$2"; shift 2 ;;
        --nodes) node_counts="$2"; shift 2 ;;
        -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
        *) echo "bench-compare: unknown argument $1" >&2; exit 1 ;;
    esac
done

logdir="$(mktemp -d /tmp/kq-bench-compare.XXXXXX)"
keep_logs=0
cleanup() {
    if ((keep_logs)); then
        echo "bench-compare: logs of failed runs kept in $logdir" >&2
    else
        rm -rf "$logdir"
    fi
}
trap cleanup EXIT

# "N records sent, R records/sec (M MB/sec), A ms avg latency, X ms max
# latency, P50 ms 50th, P95 ms 95th, P99 ms 99th, P999 ms 99.9th."
# -> "R | M | A | P99"
parse() {
    sed -nE 's/^[0-9]+ records sent, ([0-9.]+) records\/sec \(([0-9.]+) MB\/sec\), ([0-9.]+) ms avg latency, .* ([0-9.]+) ms 99th,.*/\1 | \2 | \3 | \4/p' <<< "$1"
}

rows=()
run() {
    local system="$1" script="$2" nodes="$3" records="$4" size="$5"
    local log="$logdir/$system-n$nodes-s$size.log" out line started
    echo "bench-compare: $system, $nodes node(s), $records x $size B ..." >&2
    started=$SECONDS
    if out="$("$root/scripts/$script" --nodes "$nodes" --records "$records" \
        --record-size "$size" --acks "$acks" 2> "$log")"; then
        line="$(parse "$out")"
    else
        line=""
    fi
    if [[ -z "$line" ]]; then
        keep_logs=1
        printf '%s\n' "$out" >> "$log"
        echo "bench-compare: $system run failed (log: $log)" >&2
        line="failed | - | - | -"
    else
        rm -f "$log"
        echo "bench-compare:   $line ($((SECONDS - started)) s)" >&2
    fi
    rows+=("| $system | $nodes | $size B | $line |")
}

for size in 10 1024; do
    if ((size == 10)); then records=$small; else records=$large; fi
    for nodes in $node_counts; do
        run ours bench.sh "$nodes" "$records" "$size"
        run kafka-4.0.0 bench-kafka.sh "$nodes" "$records" "$size"
    done
done

echo
echo "acks=$acks; ${small} x 10 B and ${large} x 1024 B records; config/producer.properties"
echo
echo "| system | nodes | record size | records/s | MB/s | avg ms | p99 ms |"
echo "|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
