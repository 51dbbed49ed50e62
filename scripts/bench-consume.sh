#!/usr/bin/env bash
# Consumer fetch throughput (issue 19: streaming fetch responses must not be
# slower): one node of each server binary given holds RECORDS records of
# SIZE bytes (kq-load, acks=-1); then, alternating between the binaries in
# each round, the whole log is read by build/kq-load --consume (librdkafka,
# assigned partition, no group) and by Kafka's ConsumerPerformance
# (kafka-consumer-perf-test, Java, group "bench-consume-N"; its fetch.MB.sec,
# which leaves out the group join). MB = 10^6 bytes. Medians of
# --runs rounds with min and max; a warm-up read per binary first.
#
#   scripts/bench-consume.sh [--servers "name=path ..."] [--sizes "1024 65536"]
#                            [--mb MB] [--runs N] [--clients "native perf"] [--port BASE]
#
# Defaults: --servers "now=build/raft-server", sizes 1024 and 65536, 256 MB
# of records per size, 3 runs, base port 27000. To compare with an earlier
# build, copy its raft-server somewhere (e.g. .cache/before/) and name both.
# Prints a Markdown table on stdout.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bench_name=bench-consume
servers="now=$root/build/raft-server" sizes="1024 65536" mb=256 runs=3 clients="native perf" base=27000
while [[ $# -gt 0 ]]; do
    case "$1" in
        --servers) servers="$2"; shift 2 ;;
        --sizes) sizes="$2"; shift 2 ;;
        --mb) mb="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --clients) clients="$2"; shift 2 ;;
        --port) base="$2"; shift 2 ;;
        -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
        *) echo "bench-consume: unknown argument $1" >&2; exit 1 ;;
    esac
done
[[ -x "$root/build/kq-load" ]] || { echo "bench-consume: build first (scripts/build.sh build)" >&2; exit 1; }
tmp="$(mktemp -d /tmp/kq-bench-consume.XXXXXX)"
csv="$tmp/raw.csv"
# shellcheck source=bench/lib.sh
source "$root/scripts/bench/lib.sh"
trap 'bench_cleanup' EXIT

# read_once <client> <bootstrap> <records> <group>: prints MB/s.
read_once() {
    local client=$1 bs=$2 n=$3 group=$4
    if [[ "$client" == native ]]; then
        "$root/build/kq-load" --consume --bootstrap "$bs" --records "$n" --json \
            -X fetch.max.bytes=$((55 << 20)) 2> "$tmp/read.err" |
            "$PY" -c 'import json,sys; print(json.load(sys.stdin)["mb_per_s"])'
    else
        # start, end, data.consumed.in.MB, MB.sec, nMsg, nMsg.sec, rebalance.time.ms,
        # fetch.time.ms, fetch.MB.sec (field 9: without the group join), ...
        KQ_KAFKA_TOOLS_VERSION=$KAFKA_VERSION KQ_TOOLS_LOG_LEVEL=error \
            "$root/bin/kafka-run-class.sh" org.apache.kafka.tools.ConsumerPerformance \
            --bootstrap-server "$bs" --topic __cluster_metadata --num-records "$n" \
            --group "$group" --timeout 60000 2> "$tmp/read.err" |
            awk -F', *' '$9 ~ /^[0-9.]+$/ { print $9 * 1.048576; ok = 1 } END { exit !ok }'
    fi
}

names=() paths=()
for s in $servers; do names+=("${s%%=*}"); paths+=("${s#*=}"); done
echo "| client | record bytes | server | MB/s median | min | max |"
echo "|---|---:|---|---:|---:|---:|"
gid=0
for size in $sizes; do
    n=$((mb * 1000000 / size))
    for c in $clients; do
        declare -A res=()
        for ((r = 0; r <= runs; r++)); do
            for ((k = 0; k < ${#names[@]}; k++)); do
                port=$((base + k))
                KQ_BENCH_SERVER="${paths[k]}" OURS_LEADER_ONLY=1 start_ours 1 "$port"
                "$root/build/kq-load" --bootstrap "localhost:$port" --records "$n" \
                    --record-size "$size" --acks -1 --json > /dev/null 2> "$tmp/fill.err" ||
                    die "fill failed: $(tail -n 2 "$tmp/fill.err")"
                gid=$((gid + 1))
                v="$(read_once "$c" "localhost:$port" "$n" "bench-consume-$gid")" ||
                    die "${names[k]} $c read failed: $(tail -n 2 "$tmp/read.err")"
                stop_pids "${ours_pids[@]}"; ours_pids=()
                ((r == 0)) && continue # warm-up
                res[$k]+="$v "
            done
        done
        for ((k = 0; k < ${#names[@]}; k++)); do
            read -ra vs <<< "${res[$k]}"
            printf '| %s | %s | %s | %s | %s | %s |\n' "$c" "$size" "${names[k]}" \
                "$(median "${vs[@]}")" "$(printf '%s\n' "${vs[@]}" | sort -g | head -n 1)" \
                "$(printf '%s\n' "${vs[@]}" | sort -g | tail -n 1)"
        done
        unset res
    done
done
