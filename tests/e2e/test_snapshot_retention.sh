#!/usr/bin/env bash
# Snapshots and retention (KIP-630) on three voters with 256 KiB segments,
# a snapshot every 512 KiB (or second) and metadata.max.retention.bytes
# 2 MiB, under kq-load at ~5 MB/s (1000 B records) in three phases:
#  1. every node's data directory (du -sb, sampled each second) stays under
#     retention + the bytes between snapshots + the producer's batches in
#     flight + 4 segments + 16 snapshot files, the .log segment and snapshot
#     counts stay bounded, and every log-start-offset-checkpoint advances
#     (past the marker batch of 3.);
#  2. a follower killed while the load goes on, restarted once the leader's
#     log start is past its log end, installs the leader's snapshot
#     (FetchSnapshot in 256-byte chunks), byte-identical to the leader's file,
#     with its log start at the snapshot's end, and catches up;
#  3. an idempotent batch acknowledged before all that (offset O, now below
#     every log start) is re-sent byte for byte to that follower once it
#     leads: the answer is the duplicate's (no error, base offset O) and the
#     value is not appended again;
#  4. with a VerifiableProducer in the last phase: ListOffsets earliest ==
#     the leader's log start, kcat -o beginning reads every offset from it
#     to the end (control records aside), every acknowledged record at or
#     above the log start exactly once, in order; kafka-python agrees, and a
#     fetch below the log start is OFFSET_OUT_OF_RANGE (raw Fetch; the
#     client resets to earliest, or raises with auto_offset_reset='none');
#  5. Kafka's kafka-dump-log.sh reads a snapshot file (SnapshotHeader ...
#     SnapshotFooter) and a current segment without errors.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/quorum_lib.sh"
require_multinode
require_server

LOADGEN="$(dirname "$SERVER_BIN")/kq-load"
[[ -x "$LOADGEN" ]] || fail "$LOADGEN not built (run scripts/build.sh)"
TOOL="$E2E_ROOT/tests/e2e/snap_tool.py"
SEG=262144
SNAP_BYTES=524288
RET=2097152
RATE=${KQ_SNAP_RATE:-5000}
# kq-load's librdkafka batches (5 in flight, idempotent): what a leader may
# hold beyond its high watermark, and so beyond its latest snapshot.
BATCH=131072
INFLIGHT=$((5 * BATCH))

base="$(pick_ports 36100 3)" || fail "no free ports"
quorum_config "$base" 3 "log.segment.bytes=$SEG" \
    "metadata.log.max.record.bytes.between.snapshots=$SNAP_BYTES" \
    "metadata.log.max.snapshot.interval.ms=1000" \
    "metadata.max.retention.bytes=$RET" \
    "metadata.max.retention.ms=3600000" \
    "controller.quorum.fetch.snapshot.max.bytes=256"
quorum_start 1 2 3
read -r leader epoch _ < <(wait_probe_leader 60) || fail "no leader within 60s"
log "leader $leader (epoch $epoch)"

pdir() { echo "$E2E_TMP/data$1/__cluster_metadata-0"; }
addr() { echo "localhost:$((base + $1 - 1))"; }
logstart() { $PY "$TOOL" logstart "$(pdir "$1")"; }
node_log_since_start() { awk '/^=== start/ { buf = "" } { buf = buf $0 "\n" } END { printf "%s", buf }' "$E2E_TMP/n$1.log"; }

# --- monitor: data-dir sizes every second; hard links to every snapshot
# file any node ever had (they are immutable under their final name), so
# files deleted by retention can still be compared and dumped.
mkdir -p "$E2E_TMP/snaps"/n{1,2,3}
$PY - "$E2E_TMP" > "$E2E_TMP/disk.txt" 2> "$E2E_TMP/monitor.err" <<'PYEOF' &
import glob, os, subprocess, sys, time
tmp = sys.argv[1]
t0 = time.monotonic()
next_sample = 0.0
while True:
    for i in (1, 2, 3):
        for p in glob.glob(f"{tmp}/data{i}/__cluster_metadata-0/*.checkpoint"):
            dst = f"{tmp}/snaps/n{i}/{os.path.basename(p)}"
            if not os.path.exists(dst):
                try:
                    os.link(p, dst)
                except OSError:
                    pass
    now = time.monotonic() - t0
    if now >= next_sample:
        next_sample = now + 1.0
        row = [f"{now:.0f}"]
        segs, snaps = [], []
        for i in (1, 2, 3):
            d = f"{tmp}/data{i}"
            out = subprocess.run(["du", "-sb", d], capture_output=True, text=True).stdout.split()
            row.append(out[0] if out else "0")
            segs.append(str(len(glob.glob(f"{d}/__cluster_metadata-0/*.log"))))
            snaps.append(str(len(glob.glob(f"{d}/__cluster_metadata-0/*.checkpoint"))))
        print(" ".join(row + segs + snaps), flush=True)
    time.sleep(0.02)
PYEOF
MONITOR_PID=$!

# --- the marker: one idempotent batch with a known producer id/sequence.
marker_pid=""
for try in 1 2 3 4 5; do
    read -r leader _ < <(wait_probe_leader 30) || fail "no leader for the marker batch"
    read -r marker_pid marker_epoch < <($PY "$TOOL" init "$(addr "$leader")") || continue
    read -r err O < <($PY "$TOOL" produce "$(addr "$leader")" "$marker_pid" "$marker_epoch" 0 \
        "dedup-marker-$marker_pid" "$E2E_TMP/marker.body") || continue
    [[ "$err" == 0 ]] && break
    log "marker produce: error $err, retrying"
    err=x
done
[[ "${err:-x}" == 0 && -n "$O" ]] || fail "the marker batch was not acknowledged"
marker="dedup-marker-$marker_pid"
log "marker batch: producer $marker_pid epoch $marker_epoch seq 0 at offset $O"

load() { # load <seconds> <tag>: kq-load in the background, pid in LOAD_PID
    timeout $(($1 + 60)) "$LOADGEN" --bootstrap "$(quorum_bootstrap)" --seconds "$1" \
        --record-size 1000 --rate "$RATE" --idempotent -X batch.size=$BATCH > "$E2E_TMP/load-$2.out" 2> "$E2E_TMP/load-$2.err" &
    LOAD_PID=$!
}
wait_load() {
    wait "$LOAD_PID"
    local rc=$?
    log "load $1 (rc $rc): $(head -n 1 "$E2E_TMP/load-$1.out")"
}

# --- phase 1: all three up.
log "phase 1: kq-load 15 s at $RATE x 1000 B records/s"
load 15 p1
wait_load p1
deadline=$((SECONDS + 30))
for i in 1 2 3; do
    while :; do
        s="$(logstart "$i")" || fail "node $i: malformed log-start-offset-checkpoint"
        ((s > O)) && break
        ((SECONDS < deadline)) || fail "node $i: log start $s did not pass the marker's offset $O (retention never ran?)"
        sleep 0.2
    done
    log "node $i: log start $s"
done

# --- phase 2: a follower misses enough to need the leader's snapshot.
read -r leader _ < <(wait_probe_leader 30) || fail "no leader before phase 2"
F=$(( leader % 3 + 1 ))
kill9_server "n$F"
f_end="$($PY "$TOOL" logend "$(pdir "$F")")" || fail "cannot read node $F's log end"
log "phase 2: node $F killed at log end $f_end; kq-load 25 s"
load 25 p2
deadline=$((SECONDS + 40))
while :; do
    read -r leader _ < <(wait_probe_leader 30 "$F") || fail "no leader while node $F is down"
    ls="$(logstart "$leader")"
    ((ls > f_end)) && break
    ((SECONDS < deadline)) || fail "the leader's log start $ls never passed node $F's log end $f_end"
    sleep 0.2
done
log "leader $leader: log start $ls > node $F's log end $f_end: restarting node $F under load"
install_leader=$leader
restart_server "n$F"
deadline=$((SECONDS + 60))
until node_log_since_start "$F" | grep -q "node $F: installed snapshot"; do
    ((SECONDS < deadline)) || fail "node $F did not install a snapshot within 60s of its restart"
    server_alive "n$F" || fail "node $F died after its restart"
    sleep 0.1
done
inst_line="$(node_log_since_start "$F" | grep -m 1 "node $F: installed snapshot")"
log "$inst_line"
snap_name="$(sed -n 's/.*installed snapshot \([0-9]\{20\}-[0-9]\{10\}\) from the leader.*/\1/p' <<<"$inst_line")"
[[ -n "$snap_name" ]] || fail "cannot parse the install line: $inst_line"
snap_end=$((10#${snap_name%-*}))
((snap_end > f_end)) || fail "installed snapshot ends at $snap_end, not past node $F's log end $f_end"
((snap_end > O)) || fail "installed snapshot ends at $snap_end, not past the marker's offset $O"
wait_load p2
hw="$($PY "$QPROBE" --wait-synced 90 $(quorum_addrs) 2> "$E2E_TMP/synced.err")" ||
    fail "node $F did not catch up: $(tail -n 1 "$E2E_TMP/synced.err")"
log "all voters at the high watermark $hw"

# The installed file against the leader's of the same name: the leader node
# F followed when it installed it (the log's last "following N" before).
served_by="$(node_log_since_start "$F" | awk -v f="$F" '
    match($0, /following [0-9]+ in epoch/) { l = substr($0, RSTART + 10, RLENGTH - 19) }
    index($0, "node " f ": installed snapshot") { print l; exit }')"
[[ -n "$served_by" ]] && install_leader=$served_by
sleep 0.2 # the monitor links files every 20 ms
fcopy="$E2E_TMP/snaps/n$F/$snap_name.checkpoint"
[[ -f "$fcopy" ]] || fail "node $F's installed snapshot $snap_name.checkpoint was never seen in its directory"
# Same-named files written by other nodes themselves may differ (their
# batches carry the time each node wrote them): the one to match is the
# file of the leader that served it (the leader when node F restarted).
lcopy="$E2E_TMP/snaps/n$install_leader/$snap_name.checkpoint"
[[ -f "$lcopy" ]] || fail "leader $install_leader never had $snap_name.checkpoint"
cmp -s "$fcopy" "$lcopy" ||
    fail "node $F's installed $snap_name.checkpoint differs from leader $install_leader's ($(cmp "$fcopy" "$lcopy" 2>&1))"
snap_size=$(stat -c %s "$fcopy")
f_start="$(logstart "$F")" || fail "node $F: malformed log-start-offset-checkpoint"
((f_start >= snap_end)) || fail "node $F's log start $f_start is below the installed snapshot's end $snap_end"
log "node $F: snapshot $snap_name ($snap_size B) identical to leader $install_leader's; log start now $f_start"

# --- phase 3: the marker batch again, to node F as the leader.
for i in 1 2 3; do
    s="$(logstart "$i")"
    ((s > O)) || fail "node $i: log start $s not past the marker's offset $O"
done
become_leader() { # makes node F the leader; the old leader stays down
    local try l g out
    for try in 1 2 3 4 5 6; do
        read -r l _ < <(wait_probe_leader 30) || return 1
        [[ $l == "$F" ]] && return 0
        g=$((6 - l - F))
        # With g stopped, records committed by l and F make F's log the
        # longer one: g cannot win, F gets g's vote once l is gone.
        log "leader $l: stopping node $g, writing, killing $l"
        kill -STOP "${SERVER_PID[n$g]}"
        printf 'to-%s-%s\n' "$F" "$try" | timeout 30 kcat -P -q -b "$(addr "$l")" -t "$TOPIC" -p 0 \
            -X request.required.acks=-1 2> "$E2E_TMP/kcat-p.err"
        local deadline=$((SECONDS + 20)) fl ll
        while ((SECONDS < deadline)); do
            out="$($PY "$QPROBE" "$(addr "$l")")"
            fl="$(sed -n "s/.* voters_leo=\[.*\b$F:\([0-9-]*\).*/\1/p" <<<"$out")"
            ll="$(sed -n "s/.* voters_leo=\[.*\b$l:\([0-9-]*\).*/\1/p" <<<"$out")"
            [[ -n "$fl" && "$fl" == "$ll" ]] && break
            sleep 0.1
        done
        kill9_server "n$l"
        kill -CONT "${SERVER_PID[n$g]}"
        if read -r l _ < <(wait_probe_leader 30 "$l"); then
            [[ $l == "$F" ]] && return 0
            log "node $l leads, not $F: again"
        fi
        for i in 1 2 3; do server_alive "n$i" || restart_server "n$i"; done
        $PY "$QPROBE" --wait-synced 60 $(quorum_addrs) > /dev/null 2>&1
    done
    return 1
}
become_leader || fail "could not make node $F the leader"
dead=""
for i in 1 2 3; do server_alive "n$i" || dead=$i; done
log "node $F leads (node $dead down): re-sending the marker batch"
res=""
deadline=$((SECONDS + 30))
while ((SECONDS < deadline)); do
    read -r err boff < <($PY "$TOOL" resend "$(addr "$F")" "$E2E_TMP/marker.body")
    res="$err $boff"
    [[ "$err" == 0 ]] && break
    sleep 0.2
done
[[ "$res" == "0 $O" ]] || fail "re-sent marker batch: error/base offset '$res', expected '0 $O' (the duplicate's)"
log "re-sent marker batch: no error, base offset $O (duplicate recognised from the snapshot)"
[[ -n "$dead" ]] && restart_server "n$dead"

# --- phase 4: a verifying producer alongside the load.
# The producer outlasts the load by a few seconds, so that its last records
# stay above the log start and its first ones are deleted.
log "phase 4: VerifiableProducer (idempotent, 12000 at 1000/s) + kq-load 8 s"
start_producer 12000 1000 "$E2E_TMP/produced.jsonl" "$E2E_ROOT/config/producer-idempotent.properties"
load 8 p4
wait_load p4
wait_producer 120 || fail "VerifiableProducer failed: $(tail -n 3 "$E2E_TMP/produced.jsonl.err")"
vp_acked=$(acked_count "$E2E_TMP/produced.jsonl")
hw="$($PY "$QPROBE" --wait-synced 60 $(quorum_addrs) 2> "$E2E_TMP/synced.err")" ||
    fail "voters not in sync after phase 4: $(tail -n 1 "$E2E_TMP/synced.err")"
read -r leader _ < <(wait_probe_leader 30) || fail "no leader after phase 4"
# Wait until the leader's log start stays put for 3 s (the last snapshot and
# retention pass after the load).
prev=-1
stable_since=$SECONDS
deadline=$((SECONDS + 30))
while ((SECONDS < deadline)); do
    s="$(logstart "$leader")"
    if [[ "$s" != "$prev" ]]; then
        prev=$s
        stable_since=$SECONDS
    elif ((SECONDS - stable_since >= 3)); then
        break
    fi
    sleep 0.2
done
# Requests to the leader: a leadership change in between (machines with a
# busy disk see fsync stalls of seconds) answers NOT_LEADER (6): ask again.
ask_leader() { # ask_leader <snap_tool command> <args>: prints "leader answer..."
    local deadline=$((SECONDS + 60)) l out
    while ((SECONDS < deadline)); do
        read -r l _ < <(wait_probe_leader 30) || continue
        out="$($PY "$TOOL" "$1" "$(addr "$l")" "${@:2}")" || { sleep 0.2; continue; }
        [[ "${out%% *}" == 6 || "${out%% *}" == 5 ]] || { echo "$l $out"; return 0; }
        sleep 0.2
    done
    echo "-1 timeout"
}
read -r leader err earliest < <(ask_leader list-offsets -2)
S="$(logstart "$leader")"
[[ "$err" == 0 && "$earliest" == "$S" ]] ||
    fail "ListOffsets earliest to node $leader: error $err offset $earliest, its log start is $S"
kq_earliest="$(timeout 30 kcat -Q -b "$(quorum_bootstrap)" -t "$TOPIC:0:-2" 2>&1 | sed -n 's/.*\[0\] offset \([0-9-]*\).*/\1/p')"
[[ "$kq_earliest" == "$S" ]] || fail "kcat -Q earliest '$kq_earliest', log start $S"
# ListOffsets latest == the high watermark (a leader change since the sync
# above adds its LeaderChange record: compare with the HW read right after).
for try in 1 2 3 4 5; do
    read -r leader err E < <(ask_leader list-offsets -1)
    read -r _ _ hw < <(wait_probe_leader 30)
    [[ "$err" == 0 && "$E" == "$hw" ]] && break
done
[[ "$err" == 0 && "$E" == "$hw" ]] || fail "ListOffsets latest: error $err offset $E, hw $hw"
log "leader $leader: log start $S == ListOffsets earliest (kcat -Q too), end $E"

timeout 120 kcat -C -q -b "$(quorum_bootstrap)" -t "$TOPIC" -p 0 -o beginning -e \
    -f '%o\t%S\t%s\n' > "$E2E_TMP/consumed.raw" 2> "$E2E_TMP/consume.err" ||
    fail "kcat -o beginning failed: $(tail -n 3 "$E2E_TMP/consume.err")"
$PY "$TOOL" parse-kcat "$E2E_TMP/consumed.raw" "$E2E_TMP/consumed.txt" > /dev/null || fail "cannot parse kcat's output"
$PY "$TOOL" controls "$(pdir "$leader")" > "$E2E_TMP/controls.txt"
range="$($PY "$TOOL" check-range "$E2E_TMP/consumed.txt" "$E2E_TMP/controls.txt" "$S" "$E")" ||
    fail "kcat -o beginning: $range"
first="$(head -n 1 "$E2E_TMP/consumed.txt" | cut -f 1)"
grep -qx "$S" "$E2E_TMP/controls.txt" || [[ "$first" == "$S" ]] ||
    fail "kcat's first record is at $first, the log start is $S"
log "kcat: $range"
read -r kept dropped < <($PY "$TOOL" acked-above "$E2E_TMP/produced.jsonl" "$S" "$E2E_TMP/acked.txt")
((kept > 0)) || fail "no acknowledged VerifiableProducer record at or above the log start $S"
summary="$($PY "$E2E_ROOT/tests/e2e/verify.py" "$E2E_TMP/consumed.txt" "$E2E_TMP/acked.txt" --min-acked "$kept")" ||
    fail "read-back of the acknowledged records at or above $S: $summary"
grep -q ' duplicated=0 ' <<<"$summary" || fail "duplicates: $summary"
log "VerifiableProducer: $vp_acked acked, $kept at or above the log start, $dropped below: $summary"
mcount="$(grep -c -P "\t$marker\$" "$E2E_TMP/consumed.txt")"
((mcount == 0)) || fail "the marker value appears $mcount times in the retained log (re-appended)"

read -r l err _ fstart _ < <(ask_leader fetch $((S - 1)))
[[ "$err" == 1 ]] || fail "Fetch at $((S - 1)) (below the log start $S) to node $l: error $err, expected 1 (OFFSET_OUT_OF_RANGE)"
read -r l err _ fstart nbytes < <(ask_leader fetch "$S")
[[ "$err" == 0 && "$fstart" == "$S" && "$nbytes" -gt 0 ]] ||
    fail "Fetch at the log start $S to node $l: error $err, log_start_offset $fstart, $nbytes bytes"
kp="$($PY "$TOOL" kp-check "$(quorum_bootstrap)" "$S" "$E" 2> "$E2E_TMP/kp.err")" ||
    fail "kafka-python: $kp $(tail -n 3 "$E2E_TMP/kp.err")"
log "$kp"

# --- disk figures (phases 1-4).
kill "$MONITOR_PID" 2>/dev/null
wait "$MONITOR_PID" 2>/dev/null
max_snap=$(find "$E2E_TMP/snaps" -name '*.checkpoint' -printf '%s\n' | sort -n | tail -n 1)
nsnaps=$(find "$E2E_TMP/snaps" -name '*.checkpoint' | wc -l)
# Retention keeps at most RET bytes from the latest snapshot (taken every
# SNAP_BYTES) down to a segment boundary; above it lie what was appended
# since that snapshot (up to SNAP_BYTES plus the producer's batches in
# flight) and the active segment; then up to 16 snapshot files
# (EXEC_SNAPSHOTS_MAX) and the small state files.
bound=$((RET + SNAP_BYTES + INFLIGHT + 4 * SEG + 16 * ${max_snap:-0} + 65536))
log "data-dir sizes (t du1 du2 du3 segs1 segs2 segs3 snaps1 snaps2 snaps3):"
sed 's/^/    /' "$E2E_TMP/disk.txt" >&2
read -r samples max1 max2 max3 maxseg maxsnap < <(awk '
    { n++; for (i = 2; i <= 4; i++) if ($i > m[i]) m[i] = $i
      for (i = 5; i <= 7; i++) if ($i > s) s = $i
      for (i = 8; i <= 10; i++) if ($i > c) c = $i }
    END { print n, m[2], m[3], m[4], s, c }' "$E2E_TMP/disk.txt")
((samples >= 30)) || fail "only $samples disk samples"
# A segment rolls before a batch that would take it past SEG: each holds at
# least SEG - BATCH bytes (the active one aside).
max_segs=$(( (RET + SNAP_BYTES + INFLIGHT) / (SEG - BATCH) + 2 ))
disk="max du -sb: n1 $max1 n2 $max2 n3 $max3 B (bound $bound), max $maxseg .log segments (bound $max_segs), $maxsnap snapshot files per node, $samples samples"
log "$disk"
for m in "$max1" "$max2" "$max3"; do
    ((m <= bound)) || fail "a data dir reached $m bytes, over the bound $bound: $disk"
done
((maxseg <= max_segs)) || fail "a node had $maxseg .log segments (bound $max_segs): $disk"
((maxsnap <= 17)) || fail "a node had $maxsnap snapshot files (EXEC_SNAPSHOTS_MAX is 16): $disk"

# --- phase 5: Kafka's DumpLogSegments on our files.
seg="$(ls "$(pdir "$leader")"/*.log | tail -n 1)"
mkdir -p "$E2E_TMP/dump"
cp "$seg" "$E2E_TMP/dump/" || fail "cannot copy $seg"
dumped_seg="$E2E_TMP/dump/$(basename "$seg")"
timeout 120 "$E2E_ROOT/bin/kafka-dump-log.sh" --deep-iteration --print-data-log --files "$fcopy" > "$E2E_TMP/dump-snap.txt" 2>&1 ||
    fail "kafka-dump-log.sh on $snap_name.checkpoint failed: $(tail -n 5 "$E2E_TMP/dump-snap.txt")"
grep -q '^| offset: [0-9]* .* SnapshotHeader {"version":0,' "$E2E_TMP/dump-snap.txt" &&
    grep -q '^| offset: [0-9]* .* SnapshotFooter {"version":0}' "$E2E_TMP/dump-snap.txt" ||
    fail "kafka-dump-log.sh: no SnapshotHeader/SnapshotFooter in $(head -c 2000 "$E2E_TMP/dump-snap.txt")"
grep -q "^Snapshot end offset: $snap_end, epoch: $((10#${snap_name#*-}))\$" "$E2E_TMP/dump-snap.txt" ||
    fail "kafka-dump-log.sh: snapshot id is not $snap_name: $(head -c 500 "$E2E_TMP/dump-snap.txt")"
[[ "$(sed -n '$p' "$E2E_TMP/dump-snap.txt")" == *SnapshotFooter* ]] ||
    fail "kafka-dump-log.sh: the SnapshotFooter is not the last record"
! grep -q 'isvalid: false' "$E2E_TMP/dump-snap.txt" || fail "kafka-dump-log.sh: invalid batch in the snapshot"
! grep -Eqi 'exception|error' "$E2E_TMP/dump-snap.txt" ||
    fail "kafka-dump-log.sh on the snapshot: $(grep -Ei -m 3 'exception|error' "$E2E_TMP/dump-snap.txt")"
timeout 120 "$E2E_ROOT/bin/kafka-dump-log.sh" --deep-iteration --files "$dumped_seg" > "$E2E_TMP/dump-seg.txt" 2>&1 ||
    fail "kafka-dump-log.sh on $(basename "$seg") failed: $(tail -n 5 "$E2E_TMP/dump-seg.txt")"
grep -q '^baseOffset' "$E2E_TMP/dump-seg.txt" || fail "kafka-dump-log.sh: no batches in $(head -c 2000 "$E2E_TMP/dump-seg.txt")"
! grep -q 'isvalid: false' "$E2E_TMP/dump-seg.txt" || fail "kafka-dump-log.sh: invalid batch in $(basename "$seg")"
! grep -Eqi 'exception|error' "$E2E_TMP/dump-seg.txt" ||
    fail "kafka-dump-log.sh on the segment: $(grep -Ei -m 3 'exception|error' "$E2E_TMP/dump-seg.txt")"
log "kafka-dump-log.sh: $snap_name.checkpoint ($(grep -c '^baseOffset' "$E2E_TMP/dump-snap.txt") batches, header..footer) and $(basename "$seg") ($(grep -c '^baseOffset' "$E2E_TMP/dump-seg.txt") batches) read cleanly"

pass "$disk; node $F installed $snap_name ($snap_size B, identical to the leader's), log start $f_start; marker re-sent to node $F as leader: duplicate at $O; log start $S == earliest, $range; $summary"
