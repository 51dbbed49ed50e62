#!/usr/bin/env bash
# Producer ids never repeat, whatever the clock does (issue 8, hole 1).
#
# Single node. Four runs on one log directory, each ended by SIGKILL:
#   A  normal clock: a burst of InitProducerId requests;
#   B  restarted at once: another burst (more ids were handed out in A than
#      milliseconds passed before B started);
#   C  restarted under libfaketime with the wall clock set back to just
#      before A's start: another burst;
#   D  restarted with the normal clock: a last burst, then Kafka's own
#      idempotent producer (VerifiableProducer, enable.idempotence=true,
#      acks=all; kafka-python 2.0.2 has no idempotent producer).
# Every id of every burst also produces one idempotent batch (epoch 0,
# sequence 0) through hand-encoded Produce v3 (tests/e2e/pid_client.py), so
# the log holds producer state for each id: a reissued id's first batch
# would match it and be answered DUPLICATE with the old offset, appending
# nothing. Checks: no id repeats across the bursts; every batch is answered
# without error at an offset not given before; a consumer reads every
# acknowledged value exactly once at its offset.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_server
$PY -c 'import kafka' 2>/dev/null || fail "kafka-python missing ($PY; apt-get install python3-kafka)"

FAKETIME_LIB=""
for f in /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 \
         /usr/lib/*/faketime/libfaketime.so.1 /usr/lib/faketime/libfaketime.so.1 \
         /usr/local/lib/faketime/libfaketime.so.1; do
    [[ -f "$f" ]] && { FAKETIME_LIB=$f; break; }
done
[[ -n "$FAKETIME_LIB" ]] || skip "libfaketime not installed (Debian package libfaketime, or faketime; apt-get install -y faketime)"

CLIENT="$E2E_ROOT/tests/e2e/pid_client.py"
BURST=${KQ_PID_BURST:-1500}
port="$(pick_ports 31560 1)" || fail "no free port"
write_props "$E2E_TMP/s1.properties" 1 "$port" "$E2E_TMP/data1"

burst() {
    local label=$1
    timeout 60 $PY "$CLIENT" burst "localhost:$port" "$BURST" "$label" "$E2E_TMP/$label.txt" \
        2> "$E2E_TMP/$label.err" || fail "burst $label: $(tail -n 3 "$E2E_TMP/$label.err")"
    log "burst $label: ids $(head -n 1 "$E2E_TMP/$label.txt" | cut -d' ' -f1)..$(tail -n 1 "$E2E_TMP/$label.txt" | cut -d' ' -f1)"
}

# Run A.
start_server s1 "$E2E_TMP/s1.properties" "$port"
wait_leader 30 "$port" > /dev/null || fail "run A: no leader within 30s"
burst A
kill9_server s1

# Run B: at once, same clock.
restart_server s1
wait_leader 30 "$port" > /dev/null || fail "run B: no leader within 30s"
burst B
kill9_server s1

# Run C: the wall clock set back to half a second before A's first id was
# handed out (ids used to be node_id << 40 | start ms, plus one per id).
first_a="$(head -n 1 "$E2E_TMP/A.txt" | cut -d' ' -f1)"
now_ms="$(date +%s%3N)"
back_ms=$(( (now_ms & ((1 << 40) - 1)) - (first_a & ((1 << 40) - 1)) + 500 ))
if ((back_ms > 86400000)); then
    back_ms=60000 # ids not clock-based (any more): just go back a minute
fi
offset="-$((back_ms / 1000)).$(printf '%03d' $((back_ms % 1000)))"
# The monotonic clock is left alone, as a wall-clock step leaves it.
export FAKETIME_DONT_FAKE_MONOTONIC=1 FAKETIME_NO_CACHE=1
faked="$(LD_PRELOAD=$FAKETIME_LIB FAKETIME="$offset" date +%s%3N)"
real="$(date +%s%3N)"
((real - faked >= back_ms / 2)) ||
    fail "libfaketime at $FAKETIME_LIB did not set the clock back (FAKETIME=$offset: $faked vs $real)"
log "run C: wall clock set back by ${offset#-}s (FAKETIME=$offset)"
LD_PRELOAD="$FAKETIME_LIB" FAKETIME="$offset" restart_server s1
grep -q faketime "/proc/${SERVER_PID[s1]}/maps" || fail "run C: the server did not load libfaketime"
wait_leader 30 "$port" > /dev/null || fail "run C: no leader within 30s"
burst C
kill9_server s1

# Run D: the normal clock again.
restart_server s1
wait_leader 30 "$port" > /dev/null || fail "run D: no leader within 30s"
burst D

# No id repeats; every batch appended at an offset never answered before.
check="$($PY - "$E2E_TMP"/{A,B,C,D}.txt <<'PYEOF'
import sys
seen, offsets, problems, total = {}, {}, [], 0
for path in sys.argv[1:]:
    run = path.rsplit("/", 1)[1][0]
    for line in open(path):
        pid, epoch, err, base, value = line.split()
        pid, err, base = int(pid), int(err), int(base)
        total += 1
        if pid in seen:
            problems.append(f"producer id {pid} handed out in run {seen[pid]} and again in run {run}")
        seen[pid] = run
        if err != 0:
            problems.append(f"run {run}: batch of producer {pid} answered with error {err}")
        elif base in offsets:
            problems.append(f"run {run}: batch of producer {pid} answered with offset {base}, "
                            f"already given to {offsets[base]} (a duplicate, nothing appended)")
        else:
            offsets[base] = value
print(f"ids={total} distinct={len(seen)} batches_appended={len(offsets)}")
for p in problems[:8]:
    print("  " + p)
print(f"  ({len(problems)} problems)" if problems else "", end="")
sys.exit(1 if problems else 0)
PYEOF
)" || fail "$check"
log "$check"

# A fresh idempotent producer (Kafka's client) after all this.
n=2000
prod="$E2E_TMP/produced.jsonl"
timeout 120 "$E2E_ROOT/bin/kafka-run-class.sh" org.apache.kafka.tools.VerifiableProducer \
    --bootstrap-server "localhost:$port" --topic "$TOPIC" --max-messages "$n" \
    --throughput -1 --acks -1 --producer.config "$E2E_ROOT/config/producer-idempotent.properties" \
    > "$prod" 2> "$E2E_TMP/producer.err"
rc=$?
[[ $rc -eq 0 ]] || fail "VerifiableProducer exited $rc: $(tail -n 3 "$E2E_TMP/producer.err")"
errors=$(grep -c '"producer_send_error"' "$prod")
((errors == 0)) || fail "$errors idempotent sends failed: $(grep -m 2 '"producer_send_error"' "$prod")"

# Read everything back: every acknowledged value once, at its offset.
awk '{ print $4 "\t" $5 }' "$E2E_TMP"/{A,B,C,D}.txt > "$E2E_TMP/acked_bursts.txt"
consume_all "$port" "$E2E_TMP/consumed.txt"
summary="$($PY "$E2E_ROOT/tests/e2e/verify.py" "$E2E_TMP/consumed.txt" \
    "$E2E_TMP/acked_bursts.txt" "$prod" --min-acked $((4 * BURST + n)))" ||
    fail "read-back: $summary"
grep -q ' missing=0 duplicated=0 ' <<<"$summary" || fail "read-back: $summary"
pass "4 runs (one with the wall clock set back ${offset#-}s by libfaketime), $check, idempotent VerifiableProducer $n/$n acked; read back: $summary"
