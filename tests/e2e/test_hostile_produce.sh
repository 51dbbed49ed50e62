#!/usr/bin/env bash
# Issue 19: only the server writes control records. On one node, Produce
# requests (raw, tests/e2e/hostile_kafka.py) carrying a control batch first,
# in the middle or after ordinary data batches (a forged offset commit of
# group "victim", one whose value does not parse, a LeaderChangeMessage) are
# refused with INVALID_RECORD and Kafka's message, nothing of them appended,
# no forged offset visible; the node stays up and restarts fine. Then a log
# that already holds such a record (appended to the segment while the node is
# down, CRC-valid) starts: the record is skipped, logged with its offset and
# counted in kq_records_unparsable_skipped_total, and the node serves.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_server

base="$(pick_ports 41000 2)" || fail "no free ports"
port=$base
mport=$((base + 1))
props="$E2E_TMP/s1.properties"
write_props "$props" 1 "$port" "$E2E_TMP/data1"
echo "metrics.port=$mport" >> "$props"
HK="$E2E_ROOT/tests/e2e/hostile_kafka.py"

start_server s1 "$props" "$port"
wait_leader 30 "$port" > /dev/null || fail "no leader elected within 30s"

out="$(timeout 60 "$PY" "$HK" smuggle "localhost:$port" 2>&1)" ||
    fail "smuggled control batches: $out"
log "smuggled control batches refused: $out"
server_alive s1 || fail "the node died after the smuggled control batches"
! grep -q "FATAL" "$E2E_TMP/s1.log" || fail "the node logged FATAL: $(grep FATAL "$E2E_TMP/s1.log")"
end="${out#ok }"

# A clean restart over that log.
kill -TERM "${SERVER_PID[s1]}"
wait "${SERVER_PID[s1]}" 2>/dev/null
restart_server s1
wait_leader 30 "$port" > /dev/null || fail "no leader after the restart"
now="$(timeout 20 "$PY" "$HK" end "localhost:$port")" || fail "ListOffsets after the restart"
((now >= end)) || fail "the log end went from $end to $now over a restart"

# A log already holding an unparsable offset commit (written by a server
# before the fix): it must start, skip the record and count it.
kill -TERM "${SERVER_PID[s1]}"
wait "${SERVER_PID[s1]}" 2>/dev/null
part="$(dirname "$(ls "$E2E_TMP"/data1/*/*.log | tail -n 1)")"
at="$("$PY" "$HK" segment-append "$part")" || fail "cannot append to the segment: $at"
log "appended an unparsable offset commit at offset $at"
restart_server s1
wait_leader 30 "$port" > /dev/null || fail "no leader over a log holding an unparsable offset commit"
grep -q "skipped 1 offset-commit control record(s) .* the first at offset $at" "$E2E_TMP/s1.log" ||
    fail "no log line naming the skipped record at offset $at: $(tail -n 5 "$E2E_TMP/s1.log")"
metric="$(curl -s "http://localhost:$mport/metrics" | sed -n 's/^kq_records_unparsable_skipped_total //p')"
[[ "$metric" == 1 ]] || fail "kq_records_unparsable_skipped_total is '$metric', expected 1"
out="$(timeout 60 "$PY" "$HK" smuggle "localhost:$port" 2>&1)" ||
    fail "the node does not serve over the skipped record: $out"
server_alive s1 || fail "the node died"
! grep -q "FATAL" "$E2E_TMP/s1.log" || fail "the node logged FATAL: $(grep FATAL "$E2E_TMP/s1.log")"
pass "control batches refused in every position, nothing appended; restart over an unparsable commit skips and counts it"
