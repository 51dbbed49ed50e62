#!/usr/bin/env bash
# One-command fair benchmark (issue 10): on this machine, one after another,
#   - our server with 1, 3 and 5 voters,
#   - Apache Kafka brokers (KRaft combined mode, newest release on Maven
#     Central, 4.4.0) at equal durability: flush.messages=1, RF = nodes,
#     min.insync.replicas = majority,
#   - Apache Kafka's TestRaftServer (1 and 3 voters) against our built-in
#     workload (--throughput/--record-size) at the same offered load,
# each driven by Kafka's producer-perf-test (Java, default JIT,
# config/producer.properties: acks=all, linger.ms=1) and by the native
# generator build/kq-load (librdkafka defaults but linger.ms=0 and at most
# 5 requests in flight and a 32 MB send buffer, the Java client's defaults;
# two driver threads with one connection each, so that the generator is not
# the limit at 10 B; acks=-1; KQ_BENCH_LINGER_MS, KQ_BENCH_INFLIGHT,
# KQ_BENCH_QUEUE_KB, KQ_BENCH_THREADS). Before measuring,
# a leader is elected and every follower is caught up; each (client, size)
# cell starts with a warm-up run per system, then ours run i and Kafka run
# i alternate, so a ratio is taken within one run pair. The disk's own
# append+fdatasync limit is measured first (fio, else tools/disk-append).
#
#   scripts/bench-all.sh [--quick] [--runs N] [--duration-s S] [--nodes "1 3 5"]
#                        [--systems "ours kafka trs"] [--clients "native perf"]
#                        [--sizes "10 100 1024 65536"] [--rates "max 1000 20000 half"]
#                        [--out DIR] [--port BASE]
#
# Defaults (45 min on a 2-core VM, 2026-12-01): 3 runs of 3 s per cell, nodes 1 3 5,
# all four sizes, unlimited rate ("max"), 1,000/s, 20,000/s and 50% of each
# system's own unlimited median ("half"); workload runs of 30 s at 5,000
# records/s x 256 B. --quick (under 5 min): nodes 1 3, sizes 10 1024, rates
# max 1000, 1 run of 2 s, workload on 1 voter for 15 s.
# A fixed rate that neither system reached at the unlimited rate is skipped.
# Output: DIR/latest.csv (raw, one row per run), latest.md, latest.png
# (DIR defaults to bench/results).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cmdline="scripts/bench-all.sh"
(($# == 0)) || cmdline+="$(printf ' %q' "$@")"
quick=0 runs="" secs="" nodes_list="" systems="ours kafka trs" clients="native perf"
sizes="" rates="" out="$root/bench/results" base=24000
while [[ $# -gt 0 ]]; do
    case "$1" in
        --quick) quick=1; shift ;;
        --runs) runs="$2"; shift 2 ;;
        --duration-s) secs="$2"; shift 2 ;;
        --nodes) nodes_list="$2"; shift 2 ;;
        --systems) systems="$2"; shift 2 ;;
        --clients) clients="$2"; shift 2 ;;
        --sizes) sizes="$2"; shift 2 ;;
        --rates) rates="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --port) base="$2"; shift 2 ;;
        -h|--help) sed -n '2,31p' "$0"; exit 0 ;;
        *) echo "bench-all: unknown argument $1" >&2; exit 1 ;;
    esac
done
if ((quick)); then
    : "${runs:=1}" "${secs:=2}" "${nodes_list:=1 3}" "${sizes:=10 1024}" "${rates:=max 1000}"
    wl_secs=15 wl_nodes="1"
else
    : "${runs:=3}" "${secs:=3}" "${nodes_list:=1 3 5}" "${sizes:=10 100 1024 65536}"
    : "${rates:=max 1000 20000 half}"
    wl_secs=30 wl_nodes="1 3"
fi
wl_rate="${KQ_BENCH_WL_RATE:-5000}" wl_size="${KQ_BENCH_WL_SIZE:-256}"
wl_secs="${KQ_BENCH_WL_SECS:-$wl_secs}" wl_nodes="${KQ_BENCH_WL_NODES:-$wl_nodes}"
has() { [[ " $1 " == *" $2 "* ]]; }

tmp="$(mktemp -d /tmp/kq-bench-all.XXXXXX)"
csv="$tmp/latest.csv"
# shellcheck source=scripts/bench/lib.sh
source "$root/scripts/bench/lib.sh"
# shellcheck source=scripts/bench/workload.sh
source "$root/scripts/bench/workload.sh"
measured=0
on_exit() {
    local rc=$?
    trap - EXIT INT TERM
    bench_cleanup
    # An interrupted or failed run leaves what it measured for report.py.
    if ((measured == 0)) && [[ -s "$csv" ]]; then
        mkdir -p "$out" && cp "$csv" "$out/partial.csv" && say "partial results in $out/partial.csv"
    fi
    rm -rf "$tmp"
    exit "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT TERM

[[ -x "$root/build/raft-server" && -x "$root/build/kq-load" ]] ||
    die "build first: cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j2"
[[ -x /usr/bin/time ]] || die "/usr/bin/time is needed (apt-get install time)"
command -v gnuplot > /dev/null || die "gnuplot is needed (apt-get install gnuplot-nox)"
KQ_KAFKA_TOOLS_VERSION=$KAFKA_VERSION "$root/scripts/fetch-kafka-tools.sh" > /dev/null
kafka_lib > /dev/null

started=$SECONDS
echo "section,system,nodes,client,size,rate,offered,run,records_s,mb_s,p50_ms,p99_ms,p999_ms,server_cpu_pct,client_cpu_pct,wall_s" > "$csv"

say "disk: append+fdatasync limit"
KQ_BENCH_DISK_SECS=$((quick ? 1 : 3)) "$root/scripts/bench/disk.sh" "$tmp/disk" >> "$csv" || die "disk measurement failed"

# Records for one perf-test run: the tool has no duration option, so the
# count comes from the system's own rate (warm-up, then unlimited median).
perf_records() { awk -v r="$1" -v s="$secs" 'BEGIN { n = int(r * s); if (n < 200) n = 200; print n }'; }
warm_records() {
    case "$1" in
        10|100) echo 200000 ;;
        1024) echo 50000 ;;
        *) echo 2000 ;;
    esac
}

# one_run <sys> <nodes> <client> <size> <rate label> <rate> <run> [records]
one_run() {
    local sys=$1 n=$2 client=$3 size=$4 label=$5 rate=$6 run=$7 recs=${8:-0} bs topic pids
    if [[ "$sys" == ours ]]; then
        ours_wait_synced
        bs=$ours_bootstrap topic=__cluster_metadata pids=("${ours_pids[@]}")
    else
        bs=$kafka_bootstrap topic=bench pids=("${kafka_pids[@]}")
    fi
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null || die "$sys: a server died"; done
    client_run "$client" "$bs" "$topic" "$size" "$rate" "$secs" "$recs" "${pids[@]}" ||
        die "$sys $n nodes $client $size B $label run $run failed"
    # Server CPU over the measured send period (records / rate), not the
    # client JVM's start-up.
    local busy
    busy="$(awk -v n="$r_sent" -v r="$r_rps" -v w="$r_wall" 'BEGIN { b = (r > 0) ? n / r : w; if (b > w || b <= 0) b = w; print b }')"
    r_srv="$(awk -v c="$r_srv" -v w="$r_wall" -v b="$busy" 'BEGIN { printf "%.1f", c * w / b }')"
    echo "perf,$sys,$n,$client,$size,$label,$rate,$run,$r_rps,$r_mbs,$r_p50,$r_p99,$r_p999,$r_srv,$r_cli,$r_wall" >> "$csv"
    say "  $sys n=$n $client ${size}B $label run $run: $r_rps rec/s, $r_mbs MB/s, p50 $r_p50 p99 $r_p99 p99.9 $r_p999 ms, servers ${r_srv}% client ${r_cli}%"
}

# Our log only grows (no retention yet, issue 11), and at 300 MB/s a node
# section would fill the disk: each (client, size) cell after the first gets
# a fresh quorum (its VmHWM recorded first), elected and caught up again.
restart_ours() {
    record_rss ours "$1" "${ours_pids[@]}"
    stop_pids "${ours_pids[@]}"
    ours_pids=()
    start_ours "$1" "$base"
}

cell_systems=()
has "$systems" ours && cell_systems+=(ours)
has "$systems" kafka && cell_systems+=(kafka)

if ((${#cell_systems[@]} > 0)); then
    for n in $nodes_list; do
        has "$systems" ours && { say "ours: $n voter(s)"; start_ours "$n" "$base"; }
        has "$systems" kafka && { say "kafka $KAFKA_VERSION: $n broker(s)"; start_kafka "$n" $((base + 100)); }
        # Warm the servers up (JIT, page cache, connections) before the first
        # cell: kq-load at the unlimited rate, 1 KB, for 3 x the run length.
        for sys in "${cell_systems[@]}"; do
            client_run native "$([[ $sys == ours ]] && echo "$ours_bootstrap" || echo "$kafka_bootstrap")" \
                "$([[ $sys == ours ]] && echo __cluster_metadata || echo bench)" 1024 -1 $((3 * secs)) 0 \
                "${ours_pids[@]}" "${kafka_pids[@]}" || die "$sys warm-up failed"
            say "  $sys n=$n server warm-up: $r_rps rec/s"
        done
        first_cell=1
        for client in $clients; do
            for size in $sizes; do
                declare -A maxr=()
                ((first_cell)) || ! has "$systems" ours || restart_ours "$n"
                first_cell=0
                has "$systems" kafka && kafka_wait_synced "$n"
                for sys in "${cell_systems[@]}"; do   # warm-up, unmeasured
                    client_run "$client" "$([[ $sys == ours ]] && echo "$ours_bootstrap" || echo "$kafka_bootstrap")" \
                        "$([[ $sys == ours ]] && echo __cluster_metadata || echo bench)" "$size" -1 "$secs" \
                        "$(warm_records "$size")" "${ours_pids[@]}" "${kafka_pids[@]}" ||
                        die "$sys warm-up failed"
                    maxr[$sys]=$r_rps
                    say "  $sys n=$n $client ${size}B warm-up: $r_rps rec/s"
                done
                if has "$rates" max; then
                    declare -A got=()
                    for ((r = 1; r <= runs; r++)); do
                        for sys in "${cell_systems[@]}"; do
                            one_run "$sys" "$n" "$client" "$size" max -1 "$r" "$(perf_records "${maxr[$sys]}")"
                            got[$sys]+=" $r_rps"
                        done
                    done
                    for sys in "${cell_systems[@]}"; do
                        # shellcheck disable=SC2086
                        maxr[$sys]="$(median ${got[$sys]})"
                    done
                fi
                for label in $rates; do
                    [[ "$label" == max ]] && continue
                    if [[ "$label" != half ]]; then
                        reach=0
                        for sys in "${cell_systems[@]}"; do
                            awk -v m="${maxr[$sys]}" -v r="$label" 'BEGIN { exit !(m >= 0.9 * r) }' && reach=1
                        done
                        if ((reach == 0)); then
                            say "  skip ${size}B at $label/s: no system reached it"
                            echo "skip,all,$n,$client,$size,$label,$label,0,,,,,,,," >> "$csv"
                            continue
                        fi
                    fi
                    for ((r = 1; r <= runs; r++)); do
                        for sys in "${cell_systems[@]}"; do
                            rate=$label
                            [[ "$label" == half ]] && rate="$(awk -v m="${maxr[$sys]}" 'BEGIN { r = int(m / 2); if (r < 1) r = 1; print r }')"
                            # perf-test: secs worth of records at that rate, or
                            # at the system's own maximum if that is lower (a
                            # system that cannot keep up runs saturated, secs long).
                            one_run "$sys" "$n" "$client" "$size" "$label" "$rate" "$r" \
                                "$(perf_records "$(awk -v a="$rate" -v b="${maxr[$sys]}" 'BEGIN { print (a < b) ? a : b }')")"
                        done
                    done
                done
            done
        done
        has "$systems" ours && record_rss ours "$n" "${ours_pids[@]}"
        has "$systems" kafka && record_rss kafka "$n" "${kafka_pids[@]}"
        bench_cleanup
        rm -rf "$tmp/ours$n" "$tmp/kafka$n"
    done
fi

if has "$systems" trs; then
    for n in $wl_nodes; do
        for ((r = 1; r <= runs; r++)); do
            workload_ours "$n" "$base" "$wl_rate" "$wl_size" "$wl_secs" "$r"
            workload_trs "$n" $((base + 300)) "$wl_rate" "$wl_size" "$wl_secs" "$r"
        done
    done
fi
say "measured in $((SECONDS - started)) s"
measured=1
rm -f "$out/partial.csv"

mkdir -p "$out"
cp "$csv" "$out/latest.csv"
"$PY" "$root/scripts/bench/report.py" --csv "$out/latest.csv" --out "$out" \
    --cmd "$cmdline" --kafka "$KAFKA_VERSION" --elapsed "$((SECONDS - started))" \
    --runs "$runs" --secs "$secs" --wl "$wl_rate x $wl_size B for $wl_secs s" ||
    die "report failed"
say "wrote $out/latest.md, $out/latest.png, $out/latest.csv"
