# Shared functions of scripts/bench-all.sh (sourced, not run). Expects
# $root (the repository), $tmp (a scratch directory) and $csv (the raw
# results file) to be set by the caller.
#
# Processes started here are recorded in the arrays ours_pids / kafka_pids
# (servers) and in $client_pid; bench_cleanup stops them all.

ours_pids=()
kafka_pids=()
client_pid=""
PY=/usr/bin/python3
QPROBE="$root/tests/e2e/quorum_probe.py"
HZ="$(getconf CLK_TCK)"
KAFKA_VERSION="${KQ_BENCH_KAFKA_VERSION:-4.4.0}"

say() { echo "${bench_name:-bench-all}: $*" >&2; }
die() {
    say "$*"
    local f
    for f in "$tmp"/*/n?.log; do
        [[ -f "$f" ]] || continue
        echo "--- last lines of $f" >&2
        tail -n 8 "$f" >&2
    done
    exit 1
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# wait_listen <pid> <port> <label> <tenths of a second>: until <port> accepts.
wait_listen() {
    local t
    for ((t = 0; ; t++)); do
        kill -0 "$1" 2>/dev/null || die "$3 exited during start-up"
        port_in_use "$2" && return 0
        ((t < $4)) || die "$3 does not listen on $2 within $(($4 / 10)) s"
        sleep 0.1
    done
}

# stop_pids <pid...>: SIGTERM, up to 15 s, then SIGKILL.
stop_pids() {
    local p t alive
    (($# > 0)) || return 0
    for p in "$@"; do kill -TERM "$p" 2>/dev/null || true; done
    for ((t = 0; t < 150; t++)); do
        alive=0
        for p in "$@"; do kill -0 "$p" 2>/dev/null && alive=1; done
        ((alive == 0)) && break
        sleep 0.1
    done
    for p in "$@"; do
        kill -9 "$p" 2>/dev/null || true
        wait "$p" 2>/dev/null || true
    done
}

kill_tree() {
    local c
    for c in $(pgrep -P "$1" 2>/dev/null); do kill_tree "$c"; done
    kill -9 "$1" 2>/dev/null || true
}

bench_cleanup() {
    if [[ -n "$client_pid" ]]; then
        kill_tree "$client_pid"
        wait "$client_pid" 2>/dev/null || true
        client_pid=""
    fi
    stop_pids "${ours_pids[@]}"
    stop_pids "${kafka_pids[@]}"
    ours_pids=() kafka_pids=()
}

# utime+stime (clock ticks) of pid $1, 0 if it is gone.
cpu_ticks() {
    local s
    s="$(cat "/proc/$1/stat" 2>/dev/null)" || { echo 0; return; }
    s="${s##*) }"
    # shellcheck disable=SC2086
    set -- $s
    echo $((${12} + ${13}))
}
ticks_sum() {
    local p sum=0
    for p in "$@"; do sum=$((sum + $(cpu_ticks "$p"))); done
    echo "$sum"
}
vmhwm_kb() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }

# record_rss <system> <nodes> <pid...>: one "rss" CSV row per server.
record_rss() {
    local sys=$1 nodes=$2 i=1 p
    shift 2
    for p in "$@"; do
        echo "rss,$sys,$nodes,$i,$(vmhwm_kb "$p")" >> "$csv"
        i=$((i + 1))
    done
}

# --- ours --------------------------------------------------------------------

# start_ours <nodes> <base port> [extra server args...]: a fresh quorum in
# $tmp/ours<nodes>; sets ours_bootstrap, ours_addrs. Waits for a leader
# and for every voter to be caught up.
start_ours() {
    local nodes=$1 base=$2 i t dir voters=""
    shift 2
    dir="$tmp/ours$nodes"
    rm -rf "$dir"
    mkdir -p "$dir"
    ours_bootstrap="" ours_addrs=()
    for ((i = 1; i <= nodes; i++)); do
        voters+="${voters:+,}$i@localhost:$((base + i - 1))"
        ours_bootstrap+="${ours_bootstrap:+,}localhost:$((base + i - 1))"
        ours_addrs+=("localhost:$((base + i - 1))")
        port_in_use $((base + i - 1)) && die "port $((base + i - 1)) is in use (--port)"
    done
    for ((i = 1; i <= nodes; i++)); do
        printf 'node.id=%s\nlisteners=PLAINTEXT://localhost:%s\ncontroller.quorum.voters=%s\nlog.dirs=%s\nverbose=false\n' \
            "$i" "$((base + i - 1))" "$voters" "$dir/data$i" > "$dir/n$i.properties"
        # More server settings of the calling benchmark (lines).
        [[ -z "${KQ_BENCH_OURS_EXTRA:-}" ]] || printf '%s\n' "$KQ_BENCH_OURS_EXTRA" >> "$dir/n$i.properties"
        "${KQ_BENCH_SERVER:-$root/build/raft-server}" "$dir/n$i.properties" "$@" > "$dir/n$i.log" 2>&1 &
        ours_pids+=($!)
    done
    for ((i = 1; i <= nodes; i++)); do
        wait_listen "${ours_pids[i - 1]}" $((base + i - 1)) "ours n$i" 300
    done
    if [[ "${OURS_LEADER_ONLY:-0}" == 1 ]]; then
        for ((t = 0; ; t++)); do
            read -r ours_leader _ < <("$PY" "$QPROBE" --leader "${ours_addrs[@]}" 2>/dev/null || true) || ours_leader=-1
            [[ -n "$ours_leader" && "$ours_leader" != -1 ]] && break
            ((t < 300)) || die "ours: no leader within 60 s"
            sleep 0.2
        done
    else
        ours_wait_synced
    fi
}

# Leader elected and every voter's log end offset at the high watermark.
ours_wait_synced() {
    "$PY" "$QPROBE" --wait-synced 120 "${ours_addrs[@]}" > /dev/null 2> "$tmp/synced.err" ||
        die "ours: voters not in sync: $(tail -n 1 "$tmp/synced.err")"
}

# --- Apache Kafka brokers ----------------------------------------------------

kafka_lib() { KQ_KAFKA_BROKER_VERSION=$KAFKA_VERSION "$root/scripts/fetch-kafka-broker.sh"; }

# Kafka's admin tools of the same release (C1 only: they start faster).
ktool() {
    KQ_KAFKA_TOOLS_VERSION=$KAFKA_VERSION KAFKA_HEAP_OPTS=-Xmx256M \
        KQ_TOOLS_LOG_LEVEL=error "$root/bin/kafka-run-class.sh" "$@"
}

kafka_java_opts=(-Xms1G -Xmx1G -XX:+UseG1GC -XX:MaxGCPauseMillis=20
    -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent
    -Djava.awt.headless=true -Dorg.slf4j.simpleLogger.defaultLogLevel=warn
    -Dorg.slf4j.simpleLogger.logFile=System.err)

# start_kafka <nodes> <base port>: KRaft combined brokers in $tmp/kafka<nodes>
# at equal durability (flush.messages=1, RF = nodes, min.insync.replicas =
# majority), topic "bench" with every replica in the ISR, and the metadata
# quorum with every voter at lag 0. Sets kafka_bootstrap.
start_kafka() {
    local nodes=$1 base=$2 i t dir lib voters="" cid min_isr=$(($1 / 2 + 1)) cport
    dir="$tmp/kafka$nodes"
    rm -rf "$dir"
    mkdir -p "$dir"
    lib="$(kafka_lib)"
    kafka_bootstrap=""
    for ((i = 1; i <= nodes; i++)); do
        voters+="${voters:+,}$i@localhost:$((base + 100 + i - 1))"
        kafka_bootstrap+="${kafka_bootstrap:+,}localhost:$((base + i - 1))"
        for p in $((base + i - 1)) $((base + 100 + i - 1)); do
            port_in_use "$p" && die "port $p is in use (--port)"
        done
    done
    cid="$(java -Dorg.slf4j.simpleLogger.defaultLogLevel=error -cp "$lib/*" \
        kafka.tools.StorageTool random-uuid 2>/dev/null | tail -n 1)"
    [[ -n "$cid" ]] || die "kafka: no cluster id"
    for ((i = 1; i <= nodes; i++)); do
        cport=$((base + 100 + i - 1))
        cat > "$dir/n$i.properties" <<EOF
process.roles=broker,controller
node.id=$i
listeners=PLAINTEXT://localhost:$((base + i - 1)),CONTROLLER://localhost:$cport
advertised.listeners=PLAINTEXT://localhost:$((base + i - 1))
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
controller.quorum.voters=$voters
log.dirs=$dir/data$i
num.partitions=1
default.replication.factor=$nodes
min.insync.replicas=$min_isr
unclean.leader.election.enable=false
auto.create.topics.enable=false
log.flush.interval.messages=1
offsets.topic.replication.factor=$nodes
transaction.state.log.replication.factor=$nodes
transaction.state.log.min.isr=$min_isr
share.coordinator.state.topic.replication.factor=$nodes
share.coordinator.state.topic.min.isr=$min_isr
group.initial.rebalance.delay.ms=0
log.retention.check.interval.ms=5000
EOF
        # More broker settings of the calling benchmark (lines).
        [[ -z "${KQ_BENCH_KAFKA_EXTRA:-}" ]] || printf '%s\n' "$KQ_BENCH_KAFKA_EXTRA" >> "$dir/n$i.properties"
        java -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$lib/*" \
            kafka.tools.StorageTool format --cluster-id "$cid" \
            --config "$dir/n$i.properties" --ignore-formatted > "$dir/format$i.log" 2>&1 ||
            die "kafka storage format failed: $(tail -n 3 "$dir/format$i.log")"
    done
    for ((i = 1; i <= nodes; i++)); do
        java "${kafka_java_opts[@]}" -cp "$lib/*" kafka.Kafka "$dir/n$i.properties" \
            > "$dir/n$i.log" 2>&1 &
        kafka_pids+=($!)
    done
    for ((i = 1; i <= nodes; i++)); do
        wait_listen "${kafka_pids[i - 1]}" $((base + i - 1)) "kafka broker $i" 900
    done
    for ((t = 0; ; t++)); do
        ktool org.apache.kafka.tools.TopicCommand --bootstrap-server "$kafka_bootstrap" \
            --create --if-not-exists --topic bench --partitions 1 \
            --replication-factor "$nodes" --config min.insync.replicas="$min_isr" \
            --config flush.messages=1 --config unclean.leader.election.enable=false \
            --config retention.bytes=2147483648 --config segment.bytes=268435456 \
            > "$dir/create.log" 2>&1 && break
        ((t < 30)) || die "kafka: cannot create topic bench: $(tail -n 3 "$dir/create.log")"
        sleep 1
    done
    kafka_wait_synced "$nodes"
}

# Topic "bench" has a leader and all <nodes> replicas in its ISR, and the
# metadata quorum's leader reports lag 0 for every voter.
kafka_wait_synced() {
    local nodes=$1 t desc isr rep dir="$tmp/kafka$1"
    for ((t = 0; ; t++)); do
        desc="$(ktool org.apache.kafka.tools.TopicCommand --bootstrap-server "$kafka_bootstrap" \
            --describe --topic bench 2>/dev/null || true)"
        isr="$(sed -n 's/.*Isr: \([0-9,]*\).*/\1/p' <<< "$desc" | head -n 1)"
        if [[ -n "$isr" ]] && (($(tr ',' '\n' <<< "$isr" | wc -l) == nodes)) &&
            grep -q 'Leader: [0-9]' <<< "$desc"; then
            break
        fi
        ((t < 60)) || die "kafka: topic bench not fully in sync: $desc"
        sleep 1
    done
    for ((t = 0; ; t++)); do
        rep="$(ktool org.apache.kafka.tools.MetadataQuorumCommand --bootstrap-server "$kafka_bootstrap" \
            describe --replication 2>/dev/null || true)"
        # NodeId DirectoryId LogEndOffset Lag LastFetchTimestamp ... Status
        if (($(awk '$NF ~ /^(Leader|Follower)$/ && $4 == 0' <<< "$rep" | wc -l) == nodes)); then
            echo "$rep" > "$dir/replication.txt"
            return 0
        fi
        ((t < 60)) || die "kafka: metadata quorum voters not at lag 0: $rep"
        sleep 1
    done
}

# --- clients -----------------------------------------------------------------

# client_run <perf|native> <bootstrap> <topic> <size> <rate|-1> <seconds> <records>
# <server pid...>: one measured run. perf = Kafka's producer-perf-test
# (config/producer.properties, --num-records <records>), native = build/kq-load
# (--seconds <seconds>). Sets r_rps r_mbs r_p50 r_p99 r_p999 r_srv (servers'
# CPU, % of one core) r_cli (client CPU %) r_wall r_sent.
client_run() {
    local client=$1 bs=$2 topic=$3 size=$4 rate=$5 secs=$6 n=$7 rc=0 t0 t1 b a out="$tmp/client.out" u s e
    shift 7
    b="$(ticks_sum "$@")"
    t0="$(date +%s%N)"
    if [[ "$client" == perf ]]; then
        KQ_KAFKA_TOOLS_VERSION=$KAFKA_VERSION KQ_TOOLS_FULL_JIT=1 KQ_TOOLS_LOG_LEVEL=error \
            /usr/bin/time -o "$tmp/time.out" -f '%U %S %e' \
            "$root/bin/kafka-producer-perf-test.sh" --topic "$topic" --num-records "$n" \
            --throughput "$rate" --record-size "$size" \
            --producer.config "$root/config/producer.properties" \
            --producer-props acks=all bootstrap.servers="$bs" > "$out" 2> "$out.err" &
    else
        /usr/bin/time -o "$tmp/time.out" -f '%U %S %e' \
            "$root/build/kq-load" --bootstrap "$bs" --topic "$topic" --seconds "$secs" \
            --record-size "$size" --rate "$rate" --acks -1 --linger-ms "${KQ_BENCH_LINGER_MS:-0}" \
            --threads "${KQ_BENCH_THREADS:-2}" \
            -X max.in.flight.requests.per.connection="${KQ_BENCH_INFLIGHT:-5}" \
            -X queue.buffering.max.kbytes="${KQ_BENCH_QUEUE_KB:-32768}" --json > "$out" 2> "$out.err" &
    fi
    client_pid=$!
    wait "$client_pid" || rc=$?
    client_pid=""
    t1="$(date +%s%N)"
    a="$(ticks_sum "$@")"
    ((rc == 0)) || { say "client $client exited $rc: $(tail -n 3 "$out.err")"; return 1; }
    r_wall="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')"
    read -r u s e < <(tail -n 1 "$tmp/time.out")
    r_cli="$(awk -v u="$u" -v s="$s" -v e="$e" 'BEGIN { printf "%.1f", 100 * (u + s) / e }')"
    r_srv="$(awk -v t="$((a - b))" -v hz="$HZ" -v w="$r_wall" 'BEGIN { printf "%.1f", 100 * t / hz / w }')"
    if [[ "$client" == perf ]]; then
        # "N records sent, R records/sec (M MB/sec), A ms avg latency, X ms max
        # latency, P50 ms 50th, P95 ms 95th, P99 ms 99th, P999 ms 99.9th."
        read -r r_sent r_rps r_mbs r_p50 r_p99 r_p999 < <(sed -nE \
            's/^([0-9]+) records sent, ([0-9.]+) records\/sec \(([0-9.]+) MB\/sec\), .* ([0-9.]+) ms 50th, .* ([0-9.]+) ms 99th, ([0-9.]+) ms 99\.9th.*/\1 \2 \3 \4 \5 \6/p' \
            "$out" | tail -n 1)
        [[ -n "${r_p999:-}" ]] || { say "perf-test: no summary: $(tail -n 2 "$out")"; return 1; }
        ((r_sent == n)) || { say "perf-test: $r_sent of $n records sent"; return 1; }
    else
        read -r r_sent r_rps r_mbs r_p50 r_p99 r_p999 < <("$PY" -c 'import json,sys
d = json.load(open(sys.argv[1]))
if d["records_failed"]: sys.exit("%d records failed" % d["records_failed"])
print(d["records_acked"], d["records_per_s"], d["mb_per_s"], d["latency_p50_ms"], d["latency_p99_ms"], d["latency_p999_ms"])' "$out") ||
            { say "kq-load: bad result: $(tail -n 2 "$out" "$out.err")"; return 1; }
    fi
}

# --- statistics --------------------------------------------------------------

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
