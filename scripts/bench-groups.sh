#!/usr/bin/env bash
# Consumer-group figures (issue 24), ours against Apache Kafka 4.4.0 on this
# machine, the same shape on both sides: 3 nodes (ours: 3 voters; Kafka: 3
# KRaft combined brokers configured as scripts/bench-kafka.sh, flush.messages=1,
# rf=3, min.insync.replicas=2, __consumer_offsets of one partition like ours'
# one log), one partition, group.initial.rebalance.delay.ms the same on both
# (--delay-ms, default 3000: Kafka's default and ours). Every client is
# tests/e2e/java/GroupClient.java (kafka-clients 4.4.0, default consumer
# settings, all consumers of a run in one JVM). Not part of the test suite;
# prints figures, asserts no timing.
#
#  rebalance: N consumers (--consumers, default 10) join one new group at
#    once, per protocol (classic: range assignor, eager; consumer: KIP-848,
#    the broker's uniform assignor). The time runs from the first consumer's
#    subscribe() to the later of (a) the last assignment callback of any
#    consumer (each has had onPartitionsAssigned; classic: all of one
#    generation) and (b) the first record fetched by the consumer that holds
#    the partition after its last assignment; the group is then left alone
#    3 s to make sure nothing moves. Each JVM does one unmeasured run, then
#    --runs measured ones (a new group each). The records are there before.
#  failover: a producer (acks=all, --rate records/s) and two groups of
#    --fo-consumers members (one consumer-protocol, one classic) committing
#    after every poll; the leader is SIGKILLed (Kafka: the group
#    coordinator, made leader of the data partition first, so that both fail
#    over as with our leader), and the time is measured, from the moment the
#    killed process is gone (reaped), until each group's partition holder
#    reads a record sent after that moment (so written by the new leader),
#    and until it commits past that record;
#    the node is restarted and everything caught up before the next kill
#    (--kills, default 3). Also counted: the assignment callbacks after each
#    kill (0 = no rebalance).
# Each target is started fresh (a leader elected, every voter and replica in
# sync) and warmed by the unmeasured runs; medians of the runs with
# [min..max].
#
#   scripts/bench-groups.sh [--targets "ours kafka"] [--parts "rebalance failover"]
#                           [--protocols "classic consumer"] [--runs 3] [--kills 3]
#                           [--consumers 10] [--fo-consumers 3] [--rate 100]
#                           [--delay-ms 3000] [--port 29700]
# Servers from build/raft-server (KQ_BENCH_SERVER). The ports (ours BASE..+2,
# Kafka's brokers BASE+10.., controllers BASE+110..) are below the kernel's
# ephemeral range, so that no client's outgoing connection takes one first.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
targets="ours kafka"
parts="rebalance failover"
protocols="classic consumer"
runs=3
kills=3
consumers=10
fo_consumers=3
rate=100
delay=3000
base=29700
while [[ $# -gt 0 ]]; do
    case "$1" in
        --targets) targets="$2"; shift 2 ;;
        --parts) parts="$2"; shift 2 ;;
        --protocols) protocols="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --kills) kills="$2"; shift 2 ;;
        --consumers) consumers="$2"; shift 2 ;;
        --fo-consumers) fo_consumers="$2"; shift 2 ;;
        --rate) rate="$2"; shift 2 ;;
        --delay-ms) delay="$2"; shift 2 ;;
        --port) base="$2"; shift 2 ;;
        -h|--help) sed -n '2,38p' "$0"; exit 0 ;;
        *) echo "bench-groups: unknown argument $1" >&2; exit 1 ;;
    esac
done

tmp="$(mktemp -d /tmp/kq-bench-groups.XXXXXX)"
csv=/dev/null
bench_name=bench-groups
KQ_BENCH_KAFKA_VERSION=4.4.0
export KQ_BENCH_KAFKA_EXTRA="offsets.topic.num.partitions=1
group.initial.rebalance.delay.ms=$delay"
export KQ_BENCH_OURS_EXTRA="group.initial.rebalance.delay.ms=$delay"
# shellcheck source=scripts/bench/lib.sh
source "$root/scripts/bench/lib.sh"
# shellcheck source=tests/e2e/java_lib.sh
source "$root/tests/e2e/java_lib.sh"
EV="$root/tests/e2e/group_events.py"
trap 'bench_cleanup; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

cp="$(java_client_classpath "$root" GroupClient)" || die "cannot compile tests/e2e/java/GroupClient.java"
"$root/scripts/fetch-kafka-tools.sh" > /dev/null
jclient() {
    java -Xms256m -Xmx768m -XX:+UseSerialGC -Dorg.slf4j.simpleLogger.defaultLogLevel=error \
        -Dorg.slf4j.simpleLogger.logFile=System.err -cp "$cp" GroupClient "$@"
}
mmm() {
    (($# > 0)) || { echo "-"; return; }
    printf '%s [%s..%s]' "$(median "$@")" "$(printf '%s\n' "$@" | sort -g | head -n 1)" \
        "$(printf '%s\n' "$@" | sort -g | tail -n 1)"
}
now_ms() { date +%s%3N; }

# --- the targets: start, leader, kill, restart ---------------------------------
bs="" topic="" sys=""
start_target() {
    case "$1" in
        ours) start_ours 3 "$base"; bs="$ours_bootstrap"; topic=__cluster_metadata ;;
        kafka) start_kafka 3 "$((base + 10))"; bs="$kafka_bootstrap"; topic=bench ;;
    esac
    sys=$1
}
# The node to kill: our leader; Kafka's group coordinator once it also
# leads the data partition. Prints its id (1..3).
victim() {
    if [[ "$sys" == ours ]]; then
        "$PY" "$QPROBE" --leader "${ours_addrs[@]}" 2>/dev/null | awk '{ print $1 }'
    else
        jclient colocate "$bs" "$topic" 2> "$tmp/colocate.err" | sed -n 's/^coordinator\t//p'
    fi
}
kill_node() {
    local pid
    if [[ "$sys" == ours ]]; then pid="${ours_pids[$1 - 1]}"; else pid="${kafka_pids[$1 - 1]}"; fi
    kill -9 "$pid"
    { wait "$pid"; } 2>/dev/null || true
}
restart_node() {
    local i=$1 lib
    if [[ "$sys" == ours ]]; then
        "${KQ_BENCH_SERVER:-$root/build/raft-server}" "$tmp/ours3/n$i.properties" >> "$tmp/ours3/n$i.log" 2>&1 &
        ours_pids[i - 1]=$!
        wait_listen "${ours_pids[i - 1]}" $((base + i - 1)) "ours n$i" 300
        ours_wait_synced
    else
        lib="$(kafka_lib)"
        java "${kafka_java_opts[@]}" -cp "$lib/*" kafka.Kafka "$tmp/kafka3/n$i.properties" \
            >> "$tmp/kafka3/n$i.log" 2>&1 &
        kafka_pids[i - 1]=$!
        wait_listen "${kafka_pids[i - 1]}" $((base + 10 + i - 1)) "kafka broker $i" 900
        kafka_wait_synced 3
        kafka_offsets_synced
    fi
}
# Every replica of __consumer_offsets-0 in the ISR.
kafka_offsets_synced() {
    local t isr
    for ((t = 0; t < 120; t++)); do
        isr="$(ktool org.apache.kafka.tools.TopicCommand --bootstrap-server "$bs" --describe \
            --topic __consumer_offsets 2>/dev/null | sed -n 's/.*Isr: \([0-9,]*\).*/\1/p' | head -n 1)"
        [[ -n "$isr" ]] && (($(tr ',' '\n' <<< "$isr" | wc -l) == 3)) && return 0
        sleep 1
    done
    die "kafka: __consumer_offsets-0 not in sync"
}

# --- (a) rebalance -------------------------------------------------------------
declare -A RB=() FO_F=() FO_C=() FO_CB=()
rebalance() {
    local p=$1 out="$tmp/rebalance-$sys-$p.txt" ms=()
    say "$sys: rebalance of $consumers consumers, protocol $p, 1 warm-up + $runs runs"
    if ! timeout 600 java -Xms256m -Xmx768m -XX:+UseSerialGC -Dorg.slf4j.simpleLogger.defaultLogLevel=error \
        -Dorg.slf4j.simpleLogger.logFile=System.err -cp "$cp" GroupClient rebalance boot="$bs" topic="$topic" \
        protocol="$p" consumers="$consumers" runs="$runs" warmup=1 timeout_s=60 group="bench-rb" \
        > "$out" 2> "$out.err"; then
        say "$sys $p rebalance failed: $(grep -m1 -o 'failed: .*' "$out.err" | cut -c1-200)"
        RB[$sys/$p]="failed"
        return 0
    fi
    while read -r l; do say "$sys $p: $l"; done < "$out"
    mapfile -t ms < <(awk '$1 == "run" { print $4 }' "$out")
    RB[$sys/$p]="$(mmm "${ms[@]}")"
    RB[$sys/$p/gen]="$(awk '$1 == "run" { print $6 }' "$out" | sort -n | uniq | paste -sd/)"
}

# --- (b) failover ----------------------------------------------------------------
failover() {
    local d="$tmp/fo-$sys" spec="" g k v t ks=() glist="" p e0 e1 i
    mkdir -p "$d"
    for p in $protocols; do
        spec+="${spec:+,}bfo-$p:$p:$fo_consumers"
        glist+="${glist:+,}bfo-$p"
    done
    say "$sys: failover: groups $spec, producer at $rate/s, $kills SIGKILLs"
    jclient members boot="$bs" topic="$topic" groups="$spec" commit=sync records=100000000 \
        rate="$rate" prefix=bfo stop="$d/stop" max_s=1800 > "$d/events" 2> "$d/client.err" &
    client_pid=$!
    for ((t = 0; t < 300; t++)); do
        "$PY" "$EV" stable "$d/events" ${glist//,/ } && break
        sleep 0.2
    done
    # Measure the groups that settled; a group that did not is "failed".
    local ok=""
    for g in ${glist//,/ }; do
        if "$PY" "$EV" stable "$d/events" "$g"; then
            ok+="${ok:+,}$g"
        else
            say "$sys: group $g did not settle: $(grep -m1 -P "^error\t\d+\t$g\t" "$d/events" | cut -f5 | cut -c1-200)"
            FO_F[$sys/${g#bfo-}]=failed
        fi
    done
    [[ -n "$ok" ]] || { touch "$d/stop"; wait "$client_pid" || true; client_pid=""; return 0; }
    glist=$ok
    for ((k = 1; k <= kills; k++)); do
        sleep 3
        v="$(victim)"
        [[ "$v" =~ ^[1-3]$ ]] || die "$sys: no node to kill: $(tail -n 3 "$tmp/colocate.err" 2>/dev/null)"
        t="$(now_ms)"
        "$PY" "$EV" fetched-since "$d/events" $((t - 1000)) ${glist//,/ } || say "note: a group fetched nothing in the second before kill $k"
        e0=""
        [[ "$sys" == ours ]] && e0="$("$PY" "$QPROBE" --leader "${ours_addrs[@]}" 2>/dev/null | awk -v v="$v" '$1 == v { print $2 }')"
        kill_node "$v"
        # From the moment the killed process is gone (reaped): a record sent
        # from then on can only be written by the next leader.
        t="$(now_ms)"
        for ((i = 0; i < 1200; i++)); do
            "$PY" "$EV" fetched-since "$d/events" "$t" ${glist//,/ } && break
            sleep 0.1
        done
        if [[ "$sys" == ours ]]; then
            e1="$("$PY" "$QPROBE" --leader "${ours_addrs[@]}" 2>/dev/null | awk '{ print $2 }')"
            if [[ -z "$e0" || "${e1:-0}" -le "$e0" ]]; then
                say "note: kill $k: node $v did not lead when killed (epoch ${e0:-?} -> ${e1:-?}); sample dropped"
                restart_node "$v"
                continue
            fi
        fi
        ks+=("$t")
        say "$sys kill $k (node $v): $("$PY" "$EV" times "$d/events" --kills "$t" --groups "$glist" | cut -d' ' -f3-)"
        restart_node "$v"
    done
    sleep 3
    t="$(now_ms)"
    touch "$d/stop"
    wait "$client_pid" || true
    client_pid=""
    "$PY" "$EV" times "$d/events" --kills "$(IFS=,; echo "${ks[*]}")" --groups "$glist" --until "$t" > "$d/times"
    for p in $protocols; do
        [[ ",$glist," == *",bfo-$p,"* ]] || continue
        mapfile -t f < <(grep -o "bfo-$p fetch=[0-9]*" "$d/times" | cut -d= -f2)
        mapfile -t c < <(grep -o "bfo-$p fetch=[0-9a-z]* commit=[0-9]*" "$d/times" | sed 's/.*commit=//')
        FO_F[$sys/$p]="$(mmm "${f[@]}")"
        FO_C[$sys/$p]="$(mmm "${c[@]}")"
        FO_CB[$sys/$p]="$(grep -o "bfo-$p fetch=[^ ]* commit=[^ ]* callbacks=[0-9]*" "$d/times" | sed 's/.*callbacks=//' | paste -sd/)"
    done
}

for target in $targets; do
    case "$target" in ours|kafka) ;; *) die "unknown target $target (ours kafka)" ;; esac
    say "$target: starting 3 nodes (group.initial.rebalance.delay.ms=$delay)"
    start_target "$target"
    jclient produce "$bs" "$topic" bench-rec 100 > "$tmp/produce.out" 2> "$tmp/produce.err" ||
        die "$target: cannot produce: $(tail -n 3 "$tmp/produce.err")"
    for part in $parts; do
        case "$part" in
            rebalance) for p in $protocols; do rebalance "$p"; done ;;
            failover) failover ;;
            *) die "unknown part $part (rebalance failover)" ;;
        esac
    done
    bench_cleanup
done

echo
echo "bench-groups: 3 nodes each, 1 partition, group.initial.rebalance.delay.ms=$delay, kafka-clients 4.4.0"
if [[ " $parts " == *" rebalance "* ]]; then
    printf '%-7s %-9s %-36s %s\n' target protocol "rebalance of $consumers, ms med [min..max]" "generations per run"
    for target in $targets; do
        for p in $protocols; do
            printf '%-7s %-9s %-36s %s\n' "$target" "$p" "${RB[$target/$p]:--}" "${RB[$target/$p/gen]:--}"
        done
    done
fi
if [[ " $parts " == *" failover "* ]]; then
    printf '%-7s %-9s %-30s %-30s %s\n' target protocol "SIGKILL->fetch ms med [min..max]" "SIGKILL->commit ms" "callbacks per kill"
    for target in $targets; do
        for p in $protocols; do
            printf '%-7s %-9s %-30s %-30s %s\n' "$target" "$p" "${FO_F[$target/$p]:--}" "${FO_C[$target/$p]:--}" "${FO_CB[$target/$p]:--}"
        done
    done
fi
