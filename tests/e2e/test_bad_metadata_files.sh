#!/usr/bin/env bash
# Startup never deletes data because a metadata file says so (issue 19).
# One node, 64 KiB segments, retention of 256 KiB, a snapshot every 64 KiB
# (or second), so log-start-offset-checkpoint has advanced:
#  1. quorum-state's leaderEpoch lowered to 0 (behind the log's last
#     epoch): the server refuses to start, naming the file; restored, it
#     starts;
#  2. the checkpoint's first digit changed to 9 (an offset above the log
#     end, no snapshot there): the server refuses, naming the file, and
#     every segment file is byte-identical afterwards;
#  3. the checkpoint restored: the server starts and serves every record
#     it served before, at the same offsets.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_server

port="$(pick_ports 44010 1)" || fail "no free port"
data="$E2E_TMP/data1"
pdir="$data/__cluster_metadata-0"
props="$E2E_TMP/s1.properties"
write_props "$props" 1 "$port" "$data"
cat >> "$props" <<EOF2
log.segment.bytes=65536
metadata.log.max.record.bytes.between.snapshots=65536
metadata.log.max.snapshot.interval.ms=1000
metadata.max.retention.bytes=262144
metadata.max.retention.ms=3600000
EOF2

start_server s1 "$props" "$port"
wait_leader 30 "$port" > /dev/null || fail "no leader elected within 30s"

pad=$(printf 'x%.0s' $(seq 1 200))
for round in 1 2 3 4; do
    seq $((round * 1000)) $((round * 1000 + 999)) | sed "s/\$/-$pad/" |
        timeout 60 kcat -P -q -b "localhost:$port" -t "$TOPIC" -p 0 -X acks=all -X batch.num.messages=50 2> "$E2E_TMP/kcat.err" ||
        fail "kcat produce failed: $(tail -n 3 "$E2E_TMP/kcat.err")"
    sleep 1.5 # a snapshot and a retention pass between rounds
done
ckpt="$pdir/log-start-offset-checkpoint"
for _ in $(seq 1 100); do
    [[ -s "$ckpt" ]] && break
    sleep 0.2
done
[[ -s "$ckpt" ]] || fail "the log start never advanced (no $ckpt)"
consume_all "$port" "$E2E_TMP/before.txt"
nrec=$(grep -c -- "-$pad" "$E2E_TMP/before.txt")
((nrec > 0)) || fail "nothing read back"
kill -TERM "${SERVER_PID[s1]}"
wait "${SERVER_PID[s1]}" 2> /dev/null
start=$(sed -n '3s/^__cluster_metadata 0 //p' "$ckpt")
log "log start $start, $nrec records served, $(ls "$pdir"/*.log | wc -l) segments"
[[ "$start" =~ ^[1-8][0-9]*$ ]] || fail "unexpected log start '$start'"

# refused <what>: the server must exit by itself within 30 s, naming <what>.
refused() {
    launch_server s1 "$props" "$port"
    local i
    for ((i = 0; i < 300; i++)); do
        server_alive s1 || break
        sleep 0.1
    done
    server_alive s1 && fail "the server started despite a bad $1"
    wait "${SERVER_PID[s1]}" 2> /dev/null
    local rc=$?
    ((rc != 0)) || fail "the server refusing a bad $1 exited 0"
    local msg
    msg=$(awk '/^=== start/ { buf = "" } { buf = buf $0 "\n" } END { printf "%s", buf }' "$E2E_TMP/s1.log" |
        grep -m1 "refusing")
    [[ "$msg" == *"$1"* ]] || fail "the refusal does not name $1: $msg"
    log "refused (exit $rc): $msg"
}

# 1. quorum-state going backwards
qs="$pdir/quorum-state"
cp "$qs" "$E2E_TMP/quorum-state.good"
epoch=$(sed -n 's/.*"leaderEpoch":\([0-9]*\).*/\1/p' "$qs")
((epoch >= 1)) || fail "quorum-state epoch $epoch"
sed -i 's/"leaderEpoch":[0-9]*/"leaderEpoch":0/' "$qs"
refused quorum-state
cp "$E2E_TMP/quorum-state.good" "$qs"

# 2. the checkpoint's first digit changed to 9
(cd "$pdir" && sha256sum ./*.log ./*.index ./*.checkpoint) > "$E2E_TMP/files.before"
cp "$ckpt" "$E2E_TMP/ckpt.good"
sed -i '3s/^\(__cluster_metadata 0 \)[0-9]/\19/' "$ckpt"
log "checkpoint now says $(sed -n 3p "$ckpt")"
refused log-start-offset-checkpoint
(cd "$pdir" && sha256sum ./*.log ./*.index ./*.checkpoint) > "$E2E_TMP/files.after"
diff "$E2E_TMP/files.before" "$E2E_TMP/files.after" > /dev/null ||
    fail "a refusal changed the log: $(diff "$E2E_TMP/files.before" "$E2E_TMP/files.after" | head -5)"

# 3. restored: every record back
cp "$E2E_TMP/ckpt.good" "$ckpt"
restart_server s1
wait_leader 30 "$port" > /dev/null || fail "no leader after the checkpoint was restored"
consume_all "$port" "$E2E_TMP/after.txt"
grep -- "-$pad" "$E2E_TMP/before.txt" > "$E2E_TMP/before.rec"
grep -- "-$pad" "$E2E_TMP/after.txt" > "$E2E_TMP/after.rec"
cmp -s "$E2E_TMP/before.rec" "$E2E_TMP/after.rec" ||
    fail "records differ after the restart: $(diff "$E2E_TMP/before.rec" "$E2E_TMP/after.rec" | head -3)"
pass "bad quorum-state and checkpoint refused, nothing deleted; $nrec records read back"
