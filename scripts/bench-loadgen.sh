#!/usr/bin/env bash
# kq-load (tools/loadgen) against Kafka's producer-perf-test on the same
# fresh quorum in the same session: for each record size, kq-load (unlimited
# rate, acks=-1, --json) then producer-perf-test (acks=all,
# config/producer.properties), each after every voter has caught up
# (quorum_probe.py --wait-synced). Prints one line per run with the client's
# CPU use (user+sys over wall time, % of one core; /usr/bin/time for Java).
#
#   scripts/bench-loadgen.sh [--nodes 1|3] [--sizes "10 1024"]
#                            [--records-10 N] [--records-1024 N] [--port BASE]
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
nodes=1
sizes="10 1024"
rec_small=1000000
rec_large=150000
base=33092
while [[ $# -gt 0 ]]; do
    case "$1" in
        --nodes) nodes="$2"; shift 2 ;;
        --sizes) sizes="$2"; shift 2 ;;
        --records-10) rec_small="$2"; shift 2 ;;
        --records-1024) rec_large="$2"; shift 2 ;;
        --port) base="$2"; shift 2 ;;
        -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
        *) echo "bench-loadgen: unknown argument $1" >&2; exit 1 ;;
    esac
done

"$root/scripts/install-deps.sh" --test
"$root/scripts/build.sh" build > /dev/null
"$root/scripts/fetch-kafka-tools.sh" > /dev/null

tmp="$(mktemp -d /tmp/kq-bench-loadgen.XXXXXX)"
csv="$tmp/unused.csv"
bench_name=bench-loadgen
# shellcheck source=scripts/bench/lib.sh
source "$root/scripts/bench/lib.sh"
trap 'bench_cleanup; rm -rf "$tmp"' EXIT
start_ours "$nodes" "$base"
bootstrap="$ours_bootstrap"
sync_all() { ours_wait_synced; }

for size in $sizes; do
    records=$rec_large
    ((size < 100)) && records=$rec_small
    sync_all
    "$root/build/kq-load" --bootstrap "$bootstrap" --records "$records" \
        --record-size "$size" --acks -1 --warmup-seconds 1 --json |
        /usr/bin/python3 -c 'import json,sys
d = json.loads(sys.stdin.read())
print("kq-load   nodes=%s size=%s: %d records, %.0f records/s, %.2f MB/s, p50 %.1f p99 %.1f max %.1f ms, client CPU %.0f%%" % (
    sys.argv[1], sys.argv[2], d["records_acked"], d["records_per_s"], d["mb_per_s"],
    d["latency_p50_ms"], d["latency_p99_ms"], d["latency_max_ms"], d["cpu_pct"]))' "$nodes" "$size"
    sync_all
    /usr/bin/time -o "$tmp/time" -f '%U %S %e' "$root/bin/kafka-producer-perf-test.sh" \
        --topic __cluster_metadata --num-records "$records" --throughput -1 \
        --record-size "$size" --producer.config "$root/config/producer.properties" \
        --producer-props acks=all bootstrap.servers="$bootstrap" > "$tmp/perf.out" 2>&1
    read -r u s e < "$tmp/time"
    printf 'perf-test nodes=%s size=%s: %s [JVM CPU %.0f%% over its %.1f s incl. start-up]\n' \
        "$nodes" "$size" "$(tail -n 1 "$tmp/perf.out")" \
        "$(echo "($u + $s) * 100 / $e" | bc -l)" "$e"
done
