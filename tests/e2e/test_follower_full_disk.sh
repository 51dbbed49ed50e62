#!/usr/bin/env bash
# A follower's disk fills up (issue 8: "a follower full disk").
#
# Three voters; node 3's log directory is a 2 MiB tmpfs (needs root and
# mount; SKIP otherwise). Nodes 1 and 2 are started first and elect a leader,
# then node 3 joins as a follower. A kafka-python producer (acks=all) writes
# 2 KB values until node 3's disk is full. Checks: node 3 stops by itself
# with a non-zero status and a FATAL line saying the disk is full (ENOSPC,
# "No space left on device"); the other two keep committing (at least 500
# writes acknowledged after node 3's FATAL line); every acknowledged record
# is at its acknowledged offset in both healthy logs, below the high
# watermark, and a consumer reads each back exactly once.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/quorum_lib.sh"
require_multinode
require_server
$PY -c 'import kafka' 2>/dev/null || fail "kafka-python missing ($PY; apt-get install python3-kafka)"
((EUID == 0)) || skip "needs root to mount a tmpfs as the follower's log directory"

small="$E2E_TMP/data3"
mkdir -p "$small"
mount -t tmpfs -o size=2m tmpfs "$small" 2> "$E2E_TMP/mount.err" ||
    skip "cannot mount a tmpfs at $small: $(head -n 1 "$E2E_TMP/mount.err")"
MOUNTED=1

# Unmounts before lib.sh's cleanup removes the directory (node 3 must be
# dead first, or the mount is busy).
full_disk_cleanup() {
    local rc=$?
    if [[ -n "${SERVER_PID[n3]:-}" ]]; then
        kill -9 "${SERVER_PID[n3]}" 2>/dev/null
        wait "${SERVER_PID[n3]}" 2>/dev/null
    fi
    if ((MOUNTED)); then
        umount "$small" 2>/dev/null || umount -l "$small" 2>/dev/null ||
            echo "$E2E_NAME: could not unmount $small" >&2
    fi
    (exit "$rc")
    e2e_cleanup
}
trap full_disk_cleanup EXIT

base="$(pick_ports 30460 3)" || fail "no free ports"
quorum_config "$base" 3
quorum_start 1 2
read -r leader epoch _ < <(wait_probe_leader 60) || fail "no leader among nodes 1 and 2 within 60s"
quorum_start 3
log "leader $leader (epoch $epoch); node 3 joined with its log on a 2 MiB tmpfs"

acks="$E2E_TMP/acks.jsonl"
$PY "$E2E_ROOT/tests/e2e/kp_producer.py" "$(quorum_bootstrap)" "$acks" "$E2E_TMP/stop" 500 full - 2000 \
    2> "$E2E_TMP/producer.err" &
ppid=$!

pid=${SERVER_PID[n3]}
deadline=$((SECONDS + 90))
while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
kill -0 "$pid" 2>/dev/null && fail "node 3 still running after 90s of writes ($(acked_count "$acks") acked; df: $(df -h "$small" | tail -n 1))"
wait "$pid"
rc=$?
((rc != 0)) || fail "node 3 exited with status 0 on a full disk"
fatal="$(grep -m 1 'FATAL' "$E2E_TMP/n3.log")" || fail "node 3 exited $rc without a FATAL line"
grep -qiE 'No space left|ENOSPC' <<<"$fatal" || fail "node 3's FATAL line does not say the disk is full: $fatal"
log "node 3 exited $rc: $fatal"
fatal_ms="$($PY - "$E2E_TMP/n3.log" <<'PYEOF'
import datetime, re, sys
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3})\] FATAL", line)
    if m:
        t = datetime.datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S")
        print(int(t.timestamp()) * 1000 + int(m.group(2)))
        break
PYEOF
)"
[[ -n "$fatal_ms" ]] || fail "no timestamp on node 3's FATAL line"

# The other two keep committing.
after_fatal() { grep '"producer_send_success"' "$acks" | sed -n 's/.*"t": \([0-9]\+\).*/\1/p' |
    awk -v f="$fatal_ms" '$1 > f { n++ } END { print n + 0 }'; }
deadline=$((SECONDS + 60))
while (($(after_fatal) < 500)) && ((SECONDS < deadline)); do sleep 0.2; done
late=$(after_fatal)
((late >= 500)) || fail "only $late writes acknowledged after node 3 stopped"
touch "$E2E_TMP/stop"
wait "$ppid" || fail "producer exited non-zero: $(tail -n 3 "$E2E_TMP/producer.err")"
server_alive "n1" && server_alive "n2" || fail "a healthy node stopped"

read -r leader2 _ hw < <(wait_probe_leader 30) || fail "no leader at the end"
sum="$($PY "$E2E_ROOT/tests/e2e/acks_check.py" --acks "$acks" --hw "$hw" --wait 30 \
    "$E2E_TMP/data1/__cluster_metadata-0" "$E2E_TMP/data2/__cluster_metadata-0")" ||
    fail "acknowledged writes: $sum"
consume_all $((base + leader2 - 1)) "$E2E_TMP/consumed.txt"
readback="$($PY "$E2E_ROOT/tests/e2e/verify.py" "$E2E_TMP/consumed.txt" "$acks" --min-acked 1000)" ||
    fail "read-back: $readback"
pass "node 3 (2 MiB tmpfs) exited $rc: \"${fatal#*FATAL: }\"; $late writes acked after it by nodes 1 and 2 (leader $leader2); $sum; read back: $readback"
