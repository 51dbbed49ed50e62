#!/usr/bin/env bash
# Kafka transactions: transactions per second and commit latency (p50/p99)
# for 1 and 10 records per transaction, on 1 and 3 nodes of ours and on
# Apache Kafka 4.4.0 brokers (1 and 3, KRaft combined, configured as
# scripts/bench-kafka.sh: flush.messages=1, rf=nodes, min.insync.replicas a
# majority; __transaction_state of one partition, like ours' one log), all on
# this machine with the same client: tests/e2e/java/TxnClient.java (bench
# mode, kafka-clients 4.4.0, one transactional producer, acks=all, linger 0),
# one transaction at a time: begin, RECORDS sends, commitTransaction().
# Not part of the test suite; prints figures.
#
#   scripts/bench-txn.sh [--runs 3] [--txns 300] [--warmup 100]
#                        [--records "1 10"] [--targets "ours1 ours3 kafka1 kafka3"]
#                        [--port 41500]   (target k uses BASE+10k.., Kafka's
#                                          controllers BASE+10k+100..)
#
# Each target is started fresh, a leader elected and every voter (Kafka:
# every replica in the ISR and every metadata voter at lag 0) caught up
# before the runs; each run is a new JVM that does --warmup transactions
# (not measured), then --txns timed ones. Prints, per target and record
# count, the median of the runs with [min..max]: transactions per second,
# commitTransaction() p50 and p99 in ms (the call: it flushes the sends,
# then EndTxn), and begin-to-commit p50. Servers from build/raft-server.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs=3
txns=300
warmup=100
recs="1 10"
targets="ours1 ours3 kafka1 kafka3"
base=41500
while [[ $# -gt 0 ]]; do
    case "$1" in
        --runs) runs="$2"; shift 2 ;;
        --txns) txns="$2"; shift 2 ;;
        --warmup) warmup="$2"; shift 2 ;;
        --records) recs="$2"; shift 2 ;;
        --targets) targets="$2"; shift 2 ;;
        --port) base="$2"; shift 2 ;;
        -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
        *) echo "bench-txn: unknown argument $1" >&2; exit 1 ;;
    esac
done

tmp="$(mktemp -d /tmp/kq-bench-txn.XXXXXX)"
csv=/dev/null
bench_name=bench-txn
KQ_BENCH_KAFKA_VERSION=4.4.0
export KQ_BENCH_KAFKA_EXTRA="transaction.state.log.num.partitions=1"
# shellcheck source=scripts/bench/lib.sh
source "$root/scripts/bench/lib.sh"
# shellcheck source=tests/e2e/txn_lib.sh
source "$root/tests/e2e/txn_lib.sh"
trap 'bench_cleanup; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

cp="$(txn_java_classpath "$root")" || die "cannot compile tests/e2e/java/TxnClient.java"
"$root/scripts/fetch-kafka-tools.sh" > /dev/null

# one_run <bootstrap> <topic> <records> <run>: prints TxnClient's bench line.
one_run() {
    java -Xms256m -Xmx512m -XX:+UseSerialGC -Dorg.slf4j.simpleLogger.defaultLogLevel=error \
        -cp "$cp" TxnClient bench "$1" "$2" "bench-txn-$3-$4-$RANDOM" "$3" "$warmup" "$txns" 2> "$tmp/client.err" ||
        die "client failed: $(tail -n 3 "$tmp/client.err")"
}

# field <name> <line>: the value after name in a bench line.
field() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' <<< "$2"; }
mmm() { printf '%s [%s..%s]' "$(median "$@")" "$(printf '%s\n' "$@" | sort -g | head -n 1)" "$(printf '%s\n' "$@" | sort -g | tail -n 1)"; }

printf '%-8s %-4s %-24s %-24s %-24s %-20s\n' target recs "txn/s med [min..max]" "commit p50 ms" "commit p99 ms" "txn p50 ms" 
ti=0
for target in $targets; do
    nodes="${target##*[a-z]}"
    port=$((base + 10 * ti)) ti=$((ti + 1))
    case "$target" in
        ours[13]) start_ours "$nodes" "$port"; bs="$ours_bootstrap"; topic=__cluster_metadata ;;
        kafka[13]) start_kafka "$nodes" "$port"; bs="$kafka_bootstrap"; topic=bench ;;
        *) die "unknown target $target (ours1 ours3 kafka1 kafka3)" ;;
    esac
    for r in $recs; do
        tps=() c50=() c99=() t50=()
        for ((i = 1; i <= runs; i++)); do
            line="$(one_run "$bs" "$topic" "$r" "$i")"
            say "$target records=$r run $i: $line"
            tps+=("$(field tps "$line")") c50+=("$(field commit_p50_ms "$line")")
            c99+=("$(field commit_p99_ms "$line")") t50+=("$(field txn_p50_ms "$line")")
        done
        printf '%-8s %-4s %-24s %-24s %-24s %-20s\n' "$target" "$r" "$(mmm "${tps[@]}")" \
            "$(mmm "${c50[@]}")" "$(mmm "${c99[@]}")" "$(mmm "${t50[@]}")"
    done
    bench_cleanup
done
