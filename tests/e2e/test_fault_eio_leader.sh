#!/usr/bin/env bash
# fsync EIO and read EIO on the leader of three (issue 8, hole 6 and the
# fail-stop rule for fsync errors).
#
# Every node runs under the LD_PRELOAD fault shim (tests/e2e/fault_shim.c,
# built as libkq_fault_shim.so next to the server binary, or compiled here
# with cc), armed per node by a trigger file. A kafka-python producer
# (acks=all, retries) writes throughout and logs every acknowledgement
# with the time it arrived. Once records are committed, the leader's
# trigger is touched:
#   fsync  its fdatasync/fsync of *.log files fail with EIO;
#   read   the producer pauses, then the leader's pread of *.log files
#          fail with EIO and a consumer starts reading from offset 0 on it
#          (flushed data it must read from disk); the producer resumes once
#          another leader is elected.
# Checks, for each: the leader exits with a non-zero status and a FATAL line
# naming the cause; a survivor takes over and acknowledges new writes; every
# acknowledged record (including those acknowledged after the fault) is at
# its acknowledged offset in both survivors' logs, below the high watermark;
# the failed node, restarted without the fault, rejoins and all three
# committed logs are byte-identical.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/quorum_lib.sh"
require_multinode
require_server
$PY -c 'import kafka' 2>/dev/null || fail "kafka-python missing ($PY; apt-get install python3-kafka)"

SHIM="${KQ_FAULT_SHIM:-$(dirname "$SERVER_BIN")/libkq_fault_shim.so}"
if [[ ! -f "$SHIM" ]]; then
    SHIM="$E2E_TMP/libkq_fault_shim.so"
    cc -O2 -shared -fPIC -o "$SHIM" "$E2E_ROOT/tests/e2e/fault_shim.c" -ldl 2> "$E2E_TMP/shim.err" ||
        fail "fault shim not built and cc failed: $(tail -n 3 "$E2E_TMP/shim.err")"
fi
# An ASan server refuses a preloaded library ahead of its runtime otherwise.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"

# Milliseconds since the epoch of the first "[YYYY-MM-DD HH:MM:SS,mmm] ...PATTERN" line.
line_ms() {
    $PY - "$1" "$2" <<'PYEOF'
import datetime, re, sys
for line in open(sys.argv[1], errors="replace"):
    if sys.argv[2] in line:
        m = re.match(r"\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3})\]", line)
        if m:
            t = datetime.datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S")
            print(int(t.timestamp()) * 1000 + int(m.group(2)))
            break
PYEOF
}

# scenario <op> <base port>: one fresh quorum (data in $E2E_TMP/data1..3 while it
# runs, moved to $E2E_TMP/<op>/ after), the fault on its leader.
scenario() {
    local op=$1 base=$2 i
    local sdir="$E2E_TMP/$op"
    mkdir -p "$sdir"
    quorum_config "$base" 3
    for i in 1 2 3; do
        rm -f "$sdir/trigger$i"
        LD_PRELOAD="$SHIM" KQ_FAULT_TRIGGER="$sdir/trigger$i" KQ_FAULT_OP="$op" \
            start_server "n$i" "$E2E_TMP/n$i.properties" $((base + i - 1))
    done
    local leader epoch
    read -r leader epoch _ < <(wait_probe_leader 60) || fail "$op: no leader within 60s"
    log "$op: leader $leader (epoch $epoch)"

    local acks="$sdir/acks.jsonl" stop="$sdir/stop" pause="$sdir/pause"
    $PY "$E2E_ROOT/tests/e2e/kp_producer.py" "$(quorum_bootstrap)" "$acks" "$stop" 400 "$op" \
        "$pause" 2> "$sdir/producer.err" &
    local ppid=$!
    wait_acked "$acks" 1000 60 || fail "$op: fewer than 1000 writes acknowledged before the fault"

    if [[ $op == read ]]; then
        # Quiet, so that the consumer's read of offset 0 is what hits the
        # fault (not a follower's fetch of the newest batch).
        touch "$pause"
        local a0=-1 a1
        while a1=$(acked_count "$acks"); ((a1 != a0)); do a0=$a1; sleep 1; done
    fi
    log "$op: arming the fault on leader n$leader"
    touch "$sdir/trigger$leader"
    local cpid=""
    if [[ $op == read ]]; then
        timeout 60 kcat -C -q -b "localhost:$((base + leader - 1))" -t "$TOPIC" -p 0 \
            -o beginning -e -f '%o\n' > "$sdir/consumer.txt" 2> "$sdir/consumer.err" &
        cpid=$!
    fi

    # The leader must stop by itself.
    local pid=${SERVER_PID[n$leader]} deadline=$((SECONDS + 60))
    while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && fail "$op: leader n$leader still running 60s after the fault"
    wait "$pid"
    local rc=$?
    ((rc != 0)) || fail "$op: leader n$leader exited with status 0 after the fault"
    local fatal
    fatal="$(grep -m 1 'FATAL' "$E2E_TMP/n$leader.log")" || fail "$op: no FATAL line in n$leader.log"
    case $op in
        fsync) grep -qi 'fsync' <<<"$fatal" && grep -qi 'Input/output error' <<<"$fatal" ||
                   fail "$op: FATAL line does not name a failed fsync and EIO: $fatal" ;;
        read) grep -qi 'read' <<<"$fatal" && grep -qi 'Input/output error' <<<"$fatal" ||
                  fail "$op: FATAL line does not name a failed read and EIO: $fatal" ;;
    esac
    local inj
    inj="$(sed -n 's/^kq_fault_shim: \([0-9]\+\) injected.*/\1/p' "$E2E_TMP/n$leader.log" | head -n 1)"
    [[ -n "$inj" ]] || fail "$op: the shim reports no injected fault in n$leader.log"
    local fatal_ms
    fatal_ms="$(line_ms "$E2E_TMP/n$leader.log" FATAL)"
    log "$op: n$leader exited $rc: $fatal"
    [[ -n "$cpid" ]] && { kill "$cpid" 2>/dev/null; wait "$cpid" 2>/dev/null; }

    # A survivor takes over and commits new writes.
    local new nepoch
    read -r new nepoch _ < <(wait_probe_leader 60 "$leader") || fail "$op: no new leader among the survivors"
    log "$op: new leader $new (epoch $nepoch)"
    rm -f "$pause"
    local before
    before=$(acked_count "$acks")
    wait_acked "$acks" $((before + 500)) 60 || fail "$op: the new leader did not acknowledge 500 more writes"
    touch "$stop"
    local w=0
    while kill -0 "$ppid" 2>/dev/null && ((w < 900)); do sleep 0.1; w=$((w + 1)); done
    kill -0 "$ppid" 2>/dev/null && { kill_tree "$ppid"; fail "$op: producer did not finish"; }
    wait "$ppid" || fail "$op: producer exited non-zero: $(tail -n 3 "$sdir/producer.err")"

    # Every acknowledged record in both survivors' logs, at its offset.
    local hw survivors=() start
    read -r _ _ hw < <(wait_probe_leader 30) || fail "$op: no leader at the end"
    for i in 1 2 3; do
        ((i == leader)) || survivors+=("$E2E_TMP/data$i/__cluster_metadata-0")
    done
    start="$($PY "$QPROBE" --control-batches "$E2E_TMP/data$new" | awk -v e="$nepoch" '$2 == e { print $1; exit }')"
    [[ -n "$start" ]] || fail "$op: no LeaderChange batch of epoch $nepoch in n$new's log"
    local sum
    sum="$($PY "$E2E_ROOT/tests/e2e/acks_check.py" --acks "$acks" --hw "$hw" --fail-ms "$inj" \
        --epoch-start "$start" --min-new 500 --wait 30 "${survivors[@]}")" ||
        fail "$op: acknowledged writes: $sum"
    log "$op: $sum"

    # The failed node, without the fault, rejoins; all three logs agree.
    rm -f "$sdir/trigger$leader"
    restart_server "n$leader"
    local cmp
    cmp="$(compare_committed_logs 60)" || fail "$op: after n$leader rejoined: $cmp"
    RESULT+=("$op EIO on leader n$leader: exit $rc, \"${fatal#*FATAL: }\" ($((fatal_ms - inj)) ms after the injection); n$new leads epoch $nepoch from offset $start; $sum; rejoined, $cmp identical")
    local name
    for name in n1 n2 n3; do
        kill -9 "${SERVER_PID[$name]}" 2>/dev/null
        wait "${SERVER_PID[$name]}" 2>/dev/null
        unset "SERVER_PID[$name]"
        mv "$E2E_TMP/$name.log" "$sdir/$name.log"
    done
    for i in 1 2 3; do mv "$E2E_TMP/data$i" "$sdir/data$i"; done
}

RESULT=()
ops=(${KQ_FAULT_OPS:-fsync read})
base="$(pick_ports 30400 3)" || fail "no free ports"
for op in "${ops[@]}"; do
    scenario "$op" "$base"
    base="$(pick_ports $((base + 3)) 3)" || fail "no free ports"
done
joined="$(printf '%s; ' "${RESULT[@]}")"
pass "${joined%; }"
