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
# Three voters, the same settings (unless KQ_SKIP_MULTINODE=1):
#  4. a follower's checkpoint, once retention advanced it, gets its first
#     digit changed to 9: restarted, the follower starts (a quorum repairs
#     the checkpoint instead of refusing), logs one line naming the file,
#     keeps it as log-start-offset-checkpoint.damaged, rewrites it with a
#     start no later than the true one, deletes no segment file, catches up
#     with 1000 more records, and its files hold every record the leader
#     served (and every one acknowledged after the restart) at its offset
#     from its log start on.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/quorum_lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/disk_lib.sh"
require_server

port="$(pick_ports 44010 1)" || fail "no free port"
data="$E2E_TMP/single1"
pdir="$data/__cluster_metadata-0"
props="$E2E_TMP/s1.properties"
write_props "$props" 1 "$port" "$data"
settings=(log.segment.bytes=65536 metadata.log.max.record.bytes.between.snapshots=65536
    metadata.log.max.snapshot.interval.ms=1000 metadata.max.retention.bytes=262144
    metadata.max.retention.ms=3600000)
printf '%s\n' "${settings[@]}" >> "$props"

start_server s1 "$props" "$port"
wait_leader 30 "$port" > /dev/null || fail "no leader elected within 30s"

pad=$(printf 'x%.0s' $(seq 1 200))
# produce_rounds <bootstrap> <first round> <last round>: 1000 records a round.
produce_rounds() {
    local round
    for ((round = $2; round <= $3; round++)); do
        seq $((round * 1000)) $((round * 1000 + 999)) | sed "s/\$/-$pad/" |
            timeout 60 kcat -P -q -b "$1" -t "$TOPIC" -p 0 -X acks=all -X batch.num.messages=50 2> "$E2E_TMP/kcat.err" ||
            fail "kcat produce failed: $(tail -n 3 "$E2E_TMP/kcat.err")"
        sleep 1.5 # a snapshot and a retention pass between rounds
    done
}
produce_rounds "localhost:$port" 1 4
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
kill -TERM "${SERVER_PID[s1]}"
wait "${SERVER_PID[s1]}" 2> /dev/null
unset "SERVER_PID[s1]"
single="bad quorum-state and checkpoint refused on one node, nothing deleted; $nrec records read back"
if [[ "${KQ_SKIP_MULTINODE:-0}" == 1 ]]; then
    pass "$single (three-node case skipped)"
fi

# 4. three voters: a follower's damaged checkpoint is repaired
qbase="$(pick_ports 44020 3)" || fail "no free ports"
quorum_config "$qbase" 3 "${settings[@]}"
quorum_start 1 2 3
read -r leader _ < <(wait_probe_leader 60) || fail "three nodes: no leader within 60s"
produce_rounds "$(quorum_bootstrap)" 1 4
read -r leader _ < <(wait_probe_leader 30) || fail "three nodes: no leader"
f=$((leader % 3 + 1))
fdir="$E2E_TMP/data$f/$PARTITION"
fckpt="$fdir/log-start-offset-checkpoint"
for _ in $(seq 1 100); do
    [[ -s "$fckpt" ]] && break
    sleep 0.2
done
[[ -s "$fckpt" ]] || fail "the log start of follower n$f never advanced (no $fckpt)"
mapfile -t addrs < <(quorum_addrs)
$PY "$QPROBE" --wait-synced 60 "${addrs[@]}" > /dev/null 2> "$E2E_TMP/synced.err" ||
    fail "three nodes: not in sync before the damage: $(tail -n 1 "$E2E_TMP/synced.err")"
consume_all $((qbase + leader - 1)) "$E2E_TMP/q-before.txt"
term_server "n$f"
fstart=$(sed -n '3s/^__cluster_metadata 0 //p' "$fckpt")
[[ "$fstart" =~ ^[1-8][0-9]*$ ]] || fail "unexpected log start '$fstart' of n$f"
ls "$fdir"/*.log | sort > "$E2E_TMP/q-segs.before"
sed -i '3s/^\(__cluster_metadata 0 \)[0-9]/\19/' "$fckpt"
bad=$(sed -n '3s/^__cluster_metadata 0 //p' "$fckpt")
log "three nodes: n$leader leads; follower n$f's checkpoint $fstart changed to $bad; restarting it"
try_start "n$f" "$E2E_TMP/n$f.properties" $((qbase + f - 1)) ||
    fail "the follower refused its damaged checkpoint in a quorum (exit $TRY_RC): $(last_run_log "n$f" | grep -m1 -i refus)"
note="$(last_run_log "n$f" | grep -m1 'log-start-offset-checkpoint' || true)"
[[ "$note" == *"says $bad"* && "$note" == *"not believed"* && "$note" == *".damaged"* ]] ||
    fail "no repair line naming the checkpoint, its value and the kept file: ${note:-none}"
log "repair: ${note#*] }"
[[ "$(sed -n 3p "$fdir/log-start-offset-checkpoint.damaged")" == "__cluster_metadata 0 $bad" ]] ||
    fail "the damaged checkpoint was not kept: $(cat "$fdir/log-start-offset-checkpoint.damaged" 2>&1)"
nstart=$(sed -n '3s/^__cluster_metadata 0 //p' "$fckpt")
[[ "$nstart" =~ ^[0-9]+$ ]] && ((nstart <= fstart)) ||
    fail "the repaired log start '$nstart' is above the true one $fstart (records it served hidden)"
ls "$fdir"/*.log | sort > "$E2E_TMP/q-segs.after"
missing=$(comm -23 "$E2E_TMP/q-segs.before" "$E2E_TMP/q-segs.after")
[[ -z "$missing" ]] || fail "the repair deleted segment files: $missing"
# held_all <served> <when>: every record of <served> ("offset<TAB>value")
# at or above the follower's log start is in its files at that offset. The
# start is read after the files: retention may move it meanwhile, and only
# deletes whole segments below it. Sets HELD to "<checked> from <start>".
held_all() {
    $PY "$E2E_ROOT/tests/e2e/logvalues.py" "$fdir" > "$E2E_TMP/q-follower.txt" ||
        fail "cannot read n$f's log"
    local start out
    start=$(sed -n '3s/^__cluster_metadata 0 //p' "$fckpt")
    out=$(awk -F'\t' -v start="$start" 'NR == FNR { have[$1] = $2; next }
        $1 >= start { c++; if (have[$1] != $2) { n++; if (n == 1) first = $1 } }
        END { print c + 0, n + 0, first }' "$E2E_TMP/q-follower.txt" "$1")
    read -r checked lost first <<<"$out"
    ((lost == 0)) || fail "$2, the repaired follower lacks $lost of the $checked records served from its log start $start on (first at offset $first)"
    ((checked > 0)) || fail "$2: no record served at or above the follower's log start $start"
    HELD="$checked from $start"
}
held_all "$E2E_TMP/q-before.txt" "right after the repair"
after_repair=$HELD
produce_rounds "$(quorum_bootstrap)" 5 5
read -r leader _ < <(wait_probe_leader 30) || fail "three nodes: no leader after the repair"
$PY "$QPROBE" --wait-synced 60 "${addrs[@]}" > /dev/null 2> "$E2E_TMP/synced.err" ||
    fail "the repaired follower did not catch up: $(tail -n 1 "$E2E_TMP/synced.err")"
consume_all $((qbase + leader - 1)) "$E2E_TMP/q-after.txt"
cat "$E2E_TMP/q-before.txt" "$E2E_TMP/q-after.txt" | grep -- "-$pad" | sort -u > "$E2E_TMP/q-served.txt"
held_all "$E2E_TMP/q-served.txt" "after catching up"
after_catchup=$HELD
pass "$single; three nodes: follower n$f's checkpoint $fstart -> $bad repaired to $nstart (no segment deleted, the file kept); its log holds every record served ($after_repair right after the repair, $after_catchup after catching up)"
