#!/usr/bin/env bash
# Memory held for clients that never read (issue 19): VmHWM of one node
# against the number of connections that each pipeline consumer Fetch
# requests for 1 MiB and never read an answer, ours and Apache Kafka 4.4
# (one KRaft combined broker, -Xms1G -Xmx1G as in scripts/bench-all.sh) side
# by side, same machine, same run, same attacking client
# (scripts/bench/noread_fetch.py). Each system first holds a log of about
# LOG_MB megabytes (kq-load, 1 KiB records, acks=-1), so every Fetch could
# answer 1 MiB. Steps run with 1, 10, 100 and 1,000 connections in that
# order on the same process; after each step (held HOLD_S seconds) the
# script prints VmHWM (peak so far) and VmRSS, then closes the attackers.
#
#   scripts/bench-memory.sh [--conns "1 10 100 1000"] [--pipeline N]
#                           [--log-mb MB] [--hold-s S] [--systems "ours kafka"]
#                           [--port BASE]
#
# Defaults: pipeline 200 requests per connection, 8 MB of log, 10 s hold,
# base port 26000 (ours BASE, Kafka BASE+10 and BASE+110). Needs build/
# (scripts/build.sh build); fetches the Kafka broker with Maven on first use.
# Prints a Markdown table on stdout.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bench_name=bench-memory
conns_list="1 10 100 1000" pipeline=200 log_mb=8 hold_s=10 systems="ours kafka" base=26000
while [[ $# -gt 0 ]]; do
    case "$1" in
        --conns) conns_list="$2"; shift 2 ;;
        --pipeline) pipeline="$2"; shift 2 ;;
        --log-mb) log_mb="$2"; shift 2 ;;
        --hold-s) hold_s="$2"; shift 2 ;;
        --systems) systems="$2"; shift 2 ;;
        --port) base="$2"; shift 2 ;;
        -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
        *) echo "bench-memory: unknown argument $1" >&2; exit 1 ;;
    esac
done
[[ -x "$root/build/raft-server" && -x "$root/build/kq-load" ]] ||
    { echo "bench-memory: build first (scripts/build.sh build)" >&2; exit 1; }
tmp="$(mktemp -d /tmp/kq-bench-memory.XXXXXX)"
csv="$tmp/raw.csv"
# shellcheck source=bench/lib.sh
source "$root/scripts/bench/lib.sh"
trap 'bench_cleanup' EXIT
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }

# fill <bootstrap> <topic>: about log_mb MB of 1 KiB records, acknowledged.
fill() {
    local n=$((log_mb * 1024))
    "$root/build/kq-load" --bootstrap "$1" --topic "$2" --records "$n" --record-size 1024 \
        --rate -1 --acks -1 --json > "$tmp/fill.json" 2> "$tmp/fill.err" ||
        die "fill: kq-load failed: $(tail -n 2 "$tmp/fill.err")"
}

# measure <system> <pid> <host:port> <topic>: one row per connection count.
measure() {
    local sys=$1 pid=$2 addr=$3 topic=$4 n fifo="$tmp/hold"
    for n in $conns_list; do
        rm -f "$fifo"; mkfifo "$fifo"
        "$PY" "$root/scripts/bench/noread_fetch.py" "$addr" "$topic" "$n" "$pipeline" 3600 \
            < "$fifo" > "$tmp/noread.out" 2> "$tmp/noread.err" &
        local apid=$! t
        exec 7> "$fifo"
        for ((t = 0; t < 600; t++)); do
            grep -q ready "$tmp/noread.out" 2>/dev/null && break
            kill -0 "$apid" 2>/dev/null || break
            sleep 0.1
        done
        sleep "$hold_s"
        kill -0 "$pid" 2>/dev/null || die "$sys stopped with $n connections"
        printf '| %s | %s | %s | %s | %s |\n' "$sys" "$n" "$pipeline" \
            "$(( $(vmhwm_kb "$pid") / 1024 ))" "$(( $(rss_kb "$pid") / 1024 ))"
        exec 7>&-
        wait "$apid" 2>/dev/null || say "attacker ($n connections): $(tail -n 1 "$tmp/noread.err")"
        sleep 2
    done
}

echo "| system | connections | Fetch requests each | VmHWM MiB | VmRSS MiB |"
echo "|---|---:|---:|---:|---:|"
for sys in $systems; do
    case "$sys" in
        ours)
            OURS_LEADER_ONLY=1 start_ours 1 "$base"
            fill "localhost:$base" __cluster_metadata
            measure ours "${ours_pids[0]}" "127.0.0.1:$base" __cluster_metadata
            stop_pids "${ours_pids[@]}"; ours_pids=() ;;
        kafka)
            start_kafka 1 $((base + 10))
            fill "localhost:$((base + 10))" bench
            measure "kafka $KAFKA_VERSION" "${kafka_pids[0]}" "127.0.0.1:$((base + 10))" bench
            stop_pids "${kafka_pids[@]}"; kafka_pids=() ;;
        *) die "unknown system $sys" ;;
    esac
done
