#!/usr/bin/env bash
# Snapshots of any state the limits admit (issue 19 item 9), on one node with
# a snapshot every 1 MiB or second, 1 MiB segments and 2 MiB retention:
#  1. OffsetCommits to 12,000 groups with 240 B group ids and 4,096 B of
#     metadata (what killed the leader with "cannot encode a snapshot"
#     before): the first ones are answered NONE until the offsets table's
#     byte budget (KQ_GROUP_OFFSETS_BYTES_MAX) is reached, the rest
#     INVALID_COMMIT_OFFSET_SIZE, nothing else; a snapshot holding the full
#     table is written (over 38 MB, within the 64 MiB bound), and a group
#     already in the table still commits;
#  2. with the node's fdatasync of *.checkpoint.part failing with ENOSPC
#     (LD_PRELOAD fault shim), snapshots fail: kq_snapshot_failures_total
#     rises, the node keeps serving commits, the log start stays at or below
#     the newest durable snapshot; once the fault is gone a newer snapshot is
#     written;
#  3. kill -9 and restart: the node starts (from that snapshot) and
#     OffsetFetch returns the committed offsets with their whole metadata.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_server

SHIM="${KQ_FAULT_SHIM:-$(dirname "$SERVER_BIN")/libkq_fault_shim.so}"
if [[ ! -f "$SHIM" ]]; then
    SHIM="$E2E_TMP/libkq_fault_shim.so"
    cc -O2 -shared -fPIC -o "$SHIM" "$E2E_ROOT/tests/e2e/fault_shim.c" -ldl 2> "$E2E_TMP/shim.err" ||
        fail "fault shim not built and cc failed: $(tail -n 3 "$E2E_TMP/shim.err")"
fi
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
export LD_PRELOAD="$SHIM" KQ_FAULT_TRIGGER="$E2E_TMP/arm" KQ_FAULT_PATH=".checkpoint.part" \
    KQ_FAULT_ERRNO=28
CLIENT="$E2E_ROOT/tests/e2e/snap_commits.py"
GROUPS_TRIED=12000

base="$(pick_ports 43000 2)" || fail "no free ports"
port=$base
mport=$((base + 1))
props="$E2E_TMP/n1.properties"
write_props "$props" 1 "$port" "$E2E_TMP/data1"
cat >> "$props" <<PROPS
metrics.port=$mport
log.segment.bytes=1048576
metadata.log.max.record.bytes.between.snapshots=1048576
metadata.log.max.snapshot.interval.ms=1000
metadata.max.retention.bytes=2097152
PROPS
start_server n1 "$props" "$port"
wait_leader 30 "$port" > /dev/null || fail "no leader"

metric() {
    $PY - "http://localhost:$mport/metrics" "$1" <<'PYEOF'
import sys, urllib.request
body = urllib.request.urlopen(sys.argv[1], timeout=10).read().decode()
for line in body.splitlines():
    if line.split(" ")[0] == sys.argv[2]:
        print(int(float(line.split(" ")[1])))
        break
else:
    print(-1)
PYEOF
}
largest_snapshot_line() {
    sed -n 's/.*snapshot \([0-9]*\)-[0-9]* written (\([0-9]*\) bytes).*/\2 \1/p' "$E2E_TMP/n1.log" |
        sort -n | tail -n 1
}
wait_for() { # wait_for <secs> <what> <command...>
    local secs=$1 what=$2 i
    shift 2
    for ((i = 0; i < secs * 5; i++)); do
        "$@" && return 0
        server_alive n1 || fail "the node stopped while waiting for $what: $(grep FATAL "$E2E_TMP/n1.log")"
        sleep 0.2
    done
    fail "$what: not within ${secs}s"
}

# --- 1. commits at the limits
# Data first: the offsets committed below (group numbers, 4242) lie inside
# it, so each commit of another offset is appended and each is answered as
# committed (issue 24: in a log of commits only, every offset would lie in
# one run of control batches, stand for its end, and a later commit in it
# would be answered without an append).
command -v kcat > /dev/null || fail "kcat missing (scripts/install-deps.sh --test)"
seq 1 $((GROUPS_TRIED + 1000)) |
    timeout 120 kcat -P -q -b "localhost:$port" -t "$TOPIC" -p 0 -X acks=all 2> "$E2E_TMP/kcat.err" ||
    fail "kcat cannot produce: $(tail -n 3 "$E2E_TMP/kcat.err")"
out="$($PY "$CLIENT" commit "localhost:$port" 0 "$GROUPS_TRIED")" || fail "unexpected commit answers: $out"
read -r _ accepted _ refused _ other <<<"$out"
log "commits: $accepted NONE, $refused INVALID_COMMIT_OFFSET_SIZE, $other other"
# KQ_GROUP_OFFSETS_BYTES_MAX (40 MiB since issue 24 made room for the group
# store) over 80 B + the group id + the topic + 4096 B of metadata a commit:
# about 9,450 commits.
((accepted > 9000 && refused > 0 && accepted + refused == GROUPS_TRIED)) ||
    fail "expected >9000 commits taken and the rest refused by the byte budget: $out"
big_enough() { read -r b _ < <(largest_snapshot_line); ((${b:-0} > 38000000)); }
wait_for 60 "a snapshot of the full offsets table" big_enough
read -r bytes end < <(largest_snapshot_line)
log "snapshot of the full table: $bytes bytes, end offset $((10#$end))"
out="$($PY "$CLIENT" commit "localhost:$port" 0 1 7)" || fail "re-commit failed: $out"
[[ "$out" == "NONE 1 28 0 other 0" ]] || fail "a group in the full table cannot commit again: $out"
[[ "$(metric kq_snapshot_failures_total)" == 0 ]] || fail "snapshot failures before any fault"

# --- 2. snapshot files fail with ENOSPC
touch "$E2E_TMP/arm"
before_end="$(metric kq_snapshot_latest_end_offset)"
failed() { (($(metric kq_snapshot_failures_total) >= 2)); }
for ((i = 0; i < 50 && ! ($(metric kq_snapshot_failures_total) >= 2); i++)); do
    $PY "$CLIENT" commit "localhost:$port" 1 20 $((100 + i)) > /dev/null || fail "commit failed while snapshots fail"
    server_alive n1 || fail "the node stopped: $(grep FATAL "$E2E_TMP/n1.log")"
    sleep 0.5
done
failed || fail "no snapshot failure counted with the fault armed"
grep -q "cannot write a snapshot" "$E2E_TMP/n1.log" || fail "the failure is not logged"
grep -q FATAL "$E2E_TMP/n1.log" && fail "FATAL with a snapshot failure: $(grep FATAL "$E2E_TMP/n1.log")"
start="$(metric kq_log_start_offset)"
((start <= before_end)) || fail "log start $start above the newest durable snapshot $before_end"
out="$($PY "$CLIENT" commit "localhost:$port" 1 1 4242)" || fail "commit failed: $out"
log "snapshots failing ($(metric kq_snapshot_failures_total) so far); node serving, log start $start"
rm -f "$E2E_TMP/arm"
newer() { (($(metric kq_snapshot_latest_end_offset) > before_end)); }
wait_for 90 "a snapshot after the fault" newer
lines="$(grep -c "cannot write a snapshot" "$E2E_TMP/n1.log")"
log "a newer snapshot after the fault ($lines failure line(s) logged)"

# --- 3. restart from it
kill9_server n1
restart_server n1
wait_leader 60 "$port" > /dev/null || fail "no leader after the restart"
$PY "$CLIENT" fetch "localhost:$port" 1 4242 || fail "group 1's commit lost over the restart"
$PY "$CLIENT" fetch "localhost:$port" $((accepted - 1)) $((accepted - 1)) ||
    fail "the last accepted commit lost over the restart"
pass
