#!/usr/bin/env bash
# Voter-change benchmark (KIP-853; not a test: prints figures, asserts no
# timings). Nodes on loopback formatted as a Kafka operator does (node 1
# --standalone, the others --no-initial-controllers, configs with only
# controller.quorum.bootstrap.servers); the voters are changed with Kafka
# 4.4's kafka-metadata-quorum.sh add-controller / remove-controller.
#
# 1. Write gaps: kq-load produces 1,000 records/s (100 B, acks=all) and logs
#    the CLOCK_MONOTONIC time of every acknowledgement (--ack-log). For each
#    change the figure is the longest gap between two consecutive acks in
#    the window [just before the tool starts, tool returned + 5 s]:
#      add 1->2 (a caught-up observer), add 2->3, remove a follower 3->2,
#      remove the leader itself 3->2 (it resigns: the gap holds the election),
#    and a control window without a change (sleep 1 in place of the tool).
#    The tool's own wall time (JVM start included) is printed too.
# 2. Catch-up: node 1 alone, its log preloaded with N MB (kq-load, 1 KB
#    records); then node 2 (--no-initial-controllers) is started and
#    add-controller is retried until it succeeds; the figure is the time
#    from starting node 2 to success. "snapshot": the leader snapshots every
#    8 MiB and keeps 16 MiB of log (metadata.max.retention.bytes), so its log
#    start is past 0 and node 2 must FetchSnapshot; "no snapshot": retention
#    off, node 2 fetches the whole log from offset 0. Also printed: the time
#    until node 2 has caught up (the leader's DescribeQuorum shows its log end
#    at the high watermark of when it was started).
# Every figure is run --runs times (median, min, max in a markdown table).
#
#   scripts/bench-reconfig.sh [--runs 3] [--sizes "0 64 256"] [--port 36400]
# Environment: KQ_SERVER_BIN (default build/raft-server), KQ_KEEP_TMP=1.
set -uo pipefail

runs=3
sizes="0 64 256"
port=36400
cmdline="scripts/bench-reconfig.sh $*"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --runs) runs="$2"; shift 2 ;;
        --sizes) sizes="$2"; shift 2 ;;
        --port) port="$2"; shift 2 ;;
        -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
        *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
done

source "$(dirname "${BASH_SOURCE[0]}")/../tests/e2e/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/../tests/e2e/quorum_lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/../tests/e2e/voters_lib.sh"
for target in raft-server kq-load; do
    KQ_BUILD_TARGET=$target "$E2E_ROOT/scripts/build.sh" build > /dev/null 2>&1 ||
        fail "scripts/build.sh build (target $target) failed"
done
require_server
LOAD="$E2E_ROOT/build/kq-load"
[[ -x "$LOAD" ]] || fail "$LOAD not built"
command -v java > /dev/null || fail "no java (Kafka's tools need it)"
export KQ_KAFKA_TOOLS_VERSION=4.4.0
"$E2E_ROOT/scripts/fetch-kafka-tools.sh" > /dev/null 2> "$E2E_TMP/fetch.err" ||
    fail "Kafka 4.4.0 tools not available: $(tail -n 1 "$E2E_TMP/fetch.err")"
STORAGE="$E2E_ROOT/bin/kafka-storage.sh"
RESULTS="$E2E_TMP/results.txt" # "<figure> <value>" lines
: > "$RESULTS"

mono_us() { $PY -c 'import time; print(time.monotonic_ns() // 1000)'; }
dirid() { sed -n 's/^directory\.id=//p' "$WORK/data$1/meta.properties"; }

# cluster <n> [extra property...]: a fresh directory $WORK with n formatted
# nodes (1 standalone, the others observers-to-be); nothing started.
cluster() {
    local n=$1 i how cid
    shift
    stop_all
    WORK="$E2E_TMP/c$((++CLUSTER_SEQ))"
    mkdir -p "$WORK"
    base="$(pick_ports "$port" "$n")" || fail "no free ports"
    QUORUM_BASE=$base
    QUORUM_N=$n
    BOOT="localhost:$base"
    for ((i = 2; i <= n && i <= 3; i++)); do BOOT+=",localhost:$((base + i - 1))"; done
    cid="$("$STORAGE" random-uuid 2>/dev/null)" || fail "random-uuid failed"
    for ((i = 1; i <= n; i++)); do
        {
            echo "process.roles=controller"
            echo "node.id=$i"
            echo "listeners=CONTROLLER://localhost:$((base + i - 1))"
            echo "controller.listener.names=CONTROLLER"
            echo "listener.security.protocol.map=CONTROLLER:PLAINTEXT"
            echo "controller.quorum.bootstrap.servers=$BOOT"
            echo "log.dirs=$WORK/data$i"
            local extra
            for extra in "$@"; do echo "$extra"; done
        } > "$WORK/n$i.properties"
        if ((i == 1)); then how=--standalone; else how=--no-initial-controllers; fi
        "$STORAGE" format --config "$WORK/n$i.properties" --cluster-id "$cid" $how \
            > "$WORK/format$i.out" 2>&1 || fail "format n$i: $(cat "$WORK/format$i.out")"
    done
}
CLUSTER_SEQ=0

start_node() { start_server "n$1" "$WORK/n$1.properties" $((QUORUM_BASE + $1 - 1)); }

stop_all() {
    local name
    for name in "${!SERVER_PID[@]}"; do
        kill -9 "${SERVER_PID[$name]}" 2>/dev/null
        wait "${SERVER_PID[$name]}" 2>/dev/null
        unset "SERVER_PID[$name]"
    done
}

# tool <args>: kafka-metadata-quorum.sh against the bootstrap controllers.
tool() { MQ_BOOTSTRAP="$BOOT" MQ_ERR="$WORK/tool.err" mq_tool "$@"; }
add_once() { tool --command-config "$WORK/n$1.properties" add-controller > "$WORK/add$1.out"; }
remove_once() {
    tool remove-controller --controller-id "$1" --controller-directory-id "$(dirid "$1")" \
        > "$WORK/remove$1.out"
}
wait_voters() { MQ_BOOTSTRAP="$BOOT" MQ_ERR="$WORK/tool.err" mq_wait_voters "$@"; }

# gap <name> <acks file> <from us> <to us>: the longest gap (ms) between
# consecutive acks from the last ack before <from> to the first after <to>.
gap() {
    local v
    v="$($PY - "$2" "$3" "$4" <<'PYEOF'
import sys
f, lo, hi = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ts = sorted(int(l.split()[0]) for l in open(f) if l.strip())
before = [t for t in ts if t < lo]
inside = [t for t in ts if lo <= t <= hi]
after = [t for t in ts if t > hi]
seq = before[-1:] + inside + after[:1]
if len(seq) < 2:
    print("nan")
else:
    print(f"{max(b - a for a, b in zip(seq, seq[1:])) / 1000:.1f}")
PYEOF
)"
    echo "$1 $v" >> "$RESULTS"
    echo "$v"
}

# timed_change <name> <acks> <cmd...>: runs the tool command between two
# clock reads, waits 5 s, records the gap and the tool's wall time.
timed_change() {
    local name=$1 acks=$2 t0 t1 g
    shift 2
    t0="$(mono_us)"
    "$@" || fail "$name: $(tail -n 3 "$WORK/tool.err")"
    t1="$(mono_us)"
    sleep 5
    g="$(gap "gap:$name" "$acks" "$t0" $((t1 + 5000000)))"
    echo "tool:$name $(((t1 - t0) / 1000))" >> "$RESULTS"
    log "$name: longest ack gap ${g} ms, tool $(((t1 - t0) / 1000)) ms"
}

gaps_run() {
    local r=$1 acks leader lpid
    cluster 3
    start_node 1; start_node 2; start_node 3
    read -r leader _ < <(wait_probe_leader 60) || fail "no leader"
    acks="$WORK/acks.txt"
    "$LOAD" --bootstrap "$BOOT" --rate 1000 --seconds 3600 --record-size 100 --acks -1 \
        --ack-log "$acks" -X message.timeout.ms=600000 > "$WORK/load.out" 2> "$WORK/load.err" &
    lpid=$!
    sleep 5 # the producer is steady, the observers have caught up
    [[ -s "$acks" ]] || fail "no acks: $(tail -n 3 "$WORK/load.err")"
    timed_change "no change (control)" "$acks" sleep 1
    timed_change "add 1->2" "$acks" add_once 2
    wait_voters 1,2
    timed_change "add 2->3" "$acks" add_once 3
    wait_voters 1,2,3
    read -r leader _ < <(wait_probe_leader 60) || fail "no leader"
    local f=1; [[ $leader == 1 ]] && f=3
    timed_change "remove follower 3->2" "$acks" remove_once "$f"
    add_once "$f" || fail "re-add $f: $(tail -n 3 "$WORK/tool.err")"
    wait_voters 1,2,3
    sleep 3
    read -r leader _ < <(wait_probe_leader 60) || fail "no leader"
    timed_change "remove leader 3->2" "$acks" remove_once "$leader"
    kill "$lpid" 2>/dev/null
    wait "$lpid" 2>/dev/null
    log "gaps run $r done ($(wc -l < "$acks") acks)"
}

log_start() {
    local v
    v="$(awk 'NR == 3 { print $3 }' "$WORK/data1/__cluster_metadata-0/log-start-offset-checkpoint" 2>/dev/null)"
    echo "${v:-0}"
}

catchup_run() {
    local r=$1 mb=$2 mode=$3 t0 t1 tries=0 recs
    if [[ $mode == snapshot ]]; then
        cluster 2 metadata.log.segment.bytes=4194304 \
            metadata.log.max.record.bytes.between.snapshots=8388608 \
            metadata.max.retention.bytes=16777216
    else
        cluster 2 metadata.log.segment.bytes=67108864 metadata.max.retention.bytes=-1 \
            metadata.max.retention.ms=-1
    fi
    start_node 1
    wait_probe_leader 60 > /dev/null || fail "no leader"
    recs=$((mb * 1024))
    if ((recs > 0)); then
        "$LOAD" --bootstrap "$BOOT" --records "$recs" --record-size 1000 --acks -1 \
            --json > "$WORK/preload.json" 2> "$WORK/preload.err" ||
            fail "preload: $(tail -n 3 "$WORK/preload.err")"
    fi
    if [[ $mode == snapshot && $mb -gt 16 ]]; then
        local deadline=$((SECONDS + 60))
        # until retention is done: the log start past 0, at most the
        # retained 16 MiB plus a segment or two left
        while { (($(log_start) == 0)) || (($(du -sm "$WORK/data1" 2>/dev/null | cut -f1) > 26)); } &&
            ((SECONDS < deadline)); do sleep 0.5; done
        (($(log_start) > 0)) || fail "log start still 0 after the preload"
    fi
    log "$mode ${mb} MB: log start $(log_start), data1 $(du -sm "$WORK/data1" 2>/dev/null | cut -f1) MB"
    t0="$(mono_us)"
    $PY - "$t0" "localhost:$base" "$E2E_ROOT/tests/e2e" > "$WORK/caughtup.txt" 2>&1 <<'PYEOF' &
# Node 2 has caught up once the leader reports its (observer) log end offset
# at the leader's high watermark as it was when node 2 was started.
import sys, time
sys.path.insert(0, sys.argv[3])
from quorum_probe import leader_view
t0, addr = int(sys.argv[1]), sys.argv[2]
hw0 = leader_view([addr])["hw"]
while time.monotonic_ns() // 1000 - t0 < 120e6:
    res = leader_view([addr]) or {}
    if any(rid == 2 and leo >= hw0 for rid, leo in res.get("observers", []) + res.get("voters", [])):
        print(f"{(time.monotonic_ns() // 1000 - t0) / 1000:.0f}")
        break
    time.sleep(0.01)
else:
    print("nan")
PYEOF
    local wpid=$!
    start_node 2
    until add_once 2; do
        ((++tries < 60)) || fail "add-controller 2 never succeeded: $(tail -n 3 "$WORK/tool.err")"
        sleep 0.2
    done
    t1="$(mono_us)"
    wait "$wpid"
    local caught
    caught="$(tail -n 1 "$WORK/caughtup.txt")"
    echo "added:$mode:$mb $(((t1 - t0) / 1000))" >> "$RESULTS"
    echo "caughtup:$mode:$mb $caught" >> "$RESULTS"
    log "$mode ${mb} MB: node start -> caught up $caught ms, added $(((t1 - t0) / 1000)) ms ($((tries + 1)) add-controller calls)"
    grep -h 'Error\|Exception' "$WORK/tool.err" 2>/dev/null | sort | uniq -c | head -n 3 >&2
}

started=$(date +%s)
for ((r = 1; r <= runs; r++)); do gaps_run "$r"; done
for mb in $sizes; do
    for mode in "no snapshot" snapshot; do
        ((mb == 0)) && [[ $mode == snapshot ]] && continue # nothing to snapshot past
        for ((r = 1; r <= runs; r++)); do catchup_run "$r" "$mb" "${mode// /-}"; done
    done
done
stop_all

$PY - "$RESULTS" "$cmdline" "$(nproc)" "$(date -u '+%Y-%m-%d %H:%M UTC')" \
    "$(( $(date +%s) - started ))" <<'PYEOF'
import statistics, sys
res, cmd, ncpu, when, secs = sys.argv[1:6]
fig = {}
for l in open(res):
    k, v = l.rstrip("\n").rsplit(" ", 1)
    fig.setdefault(k, []).append(float(v))
def row(label, vals):
    ok = [v for v in vals if v == v]
    if not ok:
        return f"| {label} | ? | ? | ? | {len(vals)} |"
    return (f"| {label} | {statistics.median(ok):.0f} | {min(ok):.0f} | {max(ok):.0f} "
            f"| {len(ok)} |")
print(f"\nCommand: `{cmd}` (took {secs} s)  ")
print(f"Machine: nproc={ncpu}, {when}\n")
print("Longest gap between two acknowledged writes (1,000 records/s, 100 B, acks=all), ms;")
print("tool = kafka-metadata-quorum.sh wall time (JVM start included), ms\n")
print("| change | median | min | max | runs |")
print("|---|---|---|---|---|")
for k in [k for k in fig if k.startswith("gap:")]:
    print(row(k[4:], fig[k]))
for k in [k for k in fig if k.startswith("tool:") and "control" not in k]:
    print(row(k[5:] + " (tool)", fig[k]))
print("\nNew voter, from starting the node (ms): caught up = the leader reports its log end")
print("at the leader's high watermark of that moment; added = add-controller succeeded\n")
print("| log preloaded | snapshot | figure | median | min | max | runs |")
print("|---|---|---|---|---|---|---|")
for k in [k for k in fig if k.startswith("added:")]:
    _, mode, mb = k.split(":")
    for what in ("caughtup", "added"):
        vals = fig.get(f"{what}:{mode}:{mb}", [])
        label = f"{mb} MB | {mode.replace('-', ' ')} | {what.replace('caughtup', 'caught up')}"
        print(row(label, vals))
PYEOF
