# The built-in workload against Apache Kafka's kafka.tools.TestRaftServer
# (sourced by scripts/bench-all.sh after lib.sh). Both leaders append
# <rate> records/s of <size> bytes themselves and print, every 5 s,
# "Throughput (bytes/second): X, Latency (ms): ..." (ours: "P75 a P99 b
# P999 c", Kafka: "a p75 b p99 c p999"; append to commit). A run lasts
# <secs> seconds after a leader is elected; its figure is the leader's last
# line (the earlier ones are the warm-up). One "workload" CSV row per run:
# workload,<system>,<nodes>,,<size>,<rate>,<rate>,<run>,<bytes/s>,,<p75>,<p99>,<p999>,<servers CPU %>,,<secs>

# workload_row <system> <nodes> <size> <rate> <run> <log...>
workload_row() {
    local sys=$1 n=$2 size=$3 rate=$4 run=$5 line vals
    shift 5
    line="$(grep -h 'Throughput (bytes/second)' "$@" 2>/dev/null | tail -n 1)"
    [[ -n "$line" ]] || die "$sys workload ($n voters): no throughput line"
    vals="$(sed -nE \
        -e 's/.*second\): ([0-9.]+), Latency \(ms\): P75 ([0-9.]+) P99 ([0-9.]+) P999 ([0-9.]+).*/\1 \2 \3 \4/p' \
        -e 's/.*second\): ([0-9.]+), Latency \(ms\): ([0-9.]+) p75 ([0-9.]+) p99 ([0-9.]+) p999.*/\1 \2 \3 \4/p' \
        <<< "$line")"
    read -r bps p75 p99 p999 <<< "$vals"
    [[ -n "${p999:-}" ]] || die "$sys workload: cannot parse: $line"
    echo "workload,$sys,$n,,$size,$rate,$rate,$run,$bps,,$p75,$p99,$p999,$wl_cpu,,$wl_secs" >> "$csv"
    say "  $sys workload n=$n ${rate}/s x ${size}B run $run: $bps B/s, p75 $p75 p99 $p99 p99.9 $p999 ms, servers ${wl_cpu}%"
}

# Measuring starts once a voter reports (a leader is elected and
# committing); the first 5 s line is part of the warm-up.
wl_first_line() {
    local t
    for ((t = 0; ; t++)); do
        grep -q 'Throughput (bytes/second)' "$@" 2>/dev/null && return 0
        ((t < 600)) || die "workload: no throughput line within 60 s: $(tail -q -n 2 "$@")"
        sleep 0.1
    done
}

# wl_measure <secs> <pid...>: sleeps <secs>, sets wl_cpu (servers' CPU %).
wl_measure() {
    local s=$1 b a
    shift
    b="$(ticks_sum "$@")"
    sleep "$s"
    a="$(ticks_sum "$@")"
    wl_cpu="$(awk -v t="$((a - b))" -v hz="$HZ" -v w="$s" 'BEGIN { printf "%.1f", 100 * t / hz / w }')"
}

# workload_ours <nodes> <base port> <rate> <size> <secs> <run>
workload_ours() {
    local n=$1 i
    OURS_LEADER_ONLY=1 start_ours "$n" "$2" --throughput "$3" --record-size "$4"
    local logs=()
    for ((i = 1; i <= n; i++)); do logs+=("$tmp/ours$n/n$i.log"); done
    wl_first_line "${logs[@]}"
    wl_measure "$5" "${ours_pids[@]}"
    record_rss ours-workload "$n" "${ours_pids[@]}"
    workload_row ours "$n" "$4" "$3" "$6" "${logs[@]}"
    bench_cleanup
    rm -rf "$tmp/ours$n"
}

# workload_trs <nodes> <base port> <rate> <size> <secs> <run>: TestRaftServer
# voters (process.roles=controller, a controller listener each), -Xmx1G.
workload_trs() {
    local n=$1 base=$2 i t lib dir="$tmp/trs$1" voters="" dirid logs=()
    lib="$(kafka_lib)"
    rm -rf "$dir"
    mkdir -p "$dir"
    for ((i = 1; i <= n; i++)); do
        voters+="${voters:+,}$i@localhost:$((base + i - 1))"
        port_in_use $((base + i - 1)) && die "port $((base + i - 1)) is in use (--port)"
    done
    for ((i = 1; i <= n; i++)); do
        cat > "$dir/n$i.properties" <<EOF
node.id=$i
process.roles=controller
listeners=CONTROLLER://localhost:$((base + i - 1))
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT
controller.quorum.voters=$voters
log.dirs=$dir/data$i
EOF
        dirid="$(java -Dorg.slf4j.simpleLogger.defaultLogLevel=error -cp "$lib/*" \
            kafka.tools.StorageTool random-uuid 2>/dev/null | tail -n 1)"
        java "${kafka_java_opts[@]}" -cp "$lib/*" kafka.tools.TestRaftServer \
            --config "$dir/n$i.properties" --replica-directory-id "$dirid" \
            --throughput "$3" --record-size "$4" > "$dir/n$i.log" 2>&1 &
        kafka_pids+=($!)
        logs+=("$dir/n$i.log")
    done
    wl_first_line "${logs[@]}"
    wl_measure "$5" "${kafka_pids[@]}"
    record_rss trs "$n" "${kafka_pids[@]}"
    workload_row trs "$n" "$4" "$3" "$6" "${logs[@]}"
    bench_cleanup
    rm -rf "$dir"
}
