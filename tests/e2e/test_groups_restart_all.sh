#!/usr/bin/env bash
# Committed group offsets (issue 12) survive a SIGKILL of every node: three
# voters with small snapshots, kafka-python (simple consumers: assign +
# commit) commits for group gA, enough data follows for a snapshot to hold
# gA's offsets, then gB commits (held only by the log after that snapshot).
# All three nodes are killed with SIGKILL and restarted: both groups'
# committed offsets and metadata come back. The commits are invisible to
# consumers of the topic (kcat reads exactly the produced values), and
# Kafka's DumpLogSegments reads a segment holding them (as an unknown
# control type) and the snapshot holding gA's.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_server
require_multinode
source "$E2E_ROOT/tests/e2e/quorum_lib.sh"
$PY -c 'import kafka' 2>/dev/null || fail "kafka-python missing ($PY; apt-get install python3-kafka)"

base="$(pick_ports 37100 3)" || fail "no free ports"
quorum_config "$base" 3 "metadata.log.max.record.bytes.between.snapshots=4096" \
    "metadata.log.max.snapshot.interval.ms=500"
quorum_start 1 2 3
wait_leader 60 $base $((base + 1)) $((base + 2)) > /dev/null || fail "no leader within 60s"
boot="$(quorum_bootstrap)"

# client.py <bootstrap> <topic> produce N PREFIX | commit GROUP OFFSET META | committed GROUP
cat > "$E2E_TMP/client.py" <<'PYEOF'
import sys, time
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.structs import OffsetAndMetadata

boot, topic, cmd = sys.argv[1].split(","), sys.argv[2], sys.argv[3]
tp = TopicPartition(topic, 0)
if cmd == "produce":
    n, prefix = int(sys.argv[4]), sys.argv[5]
    p = KafkaProducer(bootstrap_servers=boot, acks="all", linger_ms=5, retries=20,
                      request_timeout_ms=30000)
    for f in [p.send(topic, value=f"{prefix}-{i}".encode(), partition=0) for i in range(n)]:
        f.get(timeout=60)
    p.close(timeout=30)
    print(n)
    sys.exit(0)
group = sys.argv[4]
c = KafkaConsumer(bootstrap_servers=boot, group_id=group, enable_auto_commit=False,
                  request_timeout_ms=30000, api_version_auto_timeout_ms=30000)
c.assign([tp])
deadline = time.time() + 60
while True:
    try:
        if cmd == "commit":
            c.commit({tp: OffsetAndMetadata(int(sys.argv[5]), sys.argv[6])})
            print("committed")
        else:
            # committed() answers None for "no offset"; print its metadata too.
            c._coordinator.ensure_coordinator_ready()
            r = c._coordinator.fetch_committed_offsets([tp])
            om = r.get(tp)
            print("none" if om is None else f"{om.offset} {om.metadata}")
        break
    except Exception as e:  # coordinator moving: retry until the deadline
        if time.time() > deadline:
            print(f"FAILDETAIL {cmd} {group}: {e!r}")
            sys.exit(1)
        time.sleep(0.5)
c.close(autocommit=False)
PYEOF
client() { timeout 120 $PY "$E2E_TMP/client.py" "$boot" "$TOPIC" "$@" 2>> "$E2E_TMP/client.err"; }

n1=300
client produce $n1 a > /dev/null || fail "produce a: $(tail -n 3 "$E2E_TMP/client.err")"
for off in 50 120 200; do
    out="$(client commit gA $off "gA-at-$off")" || fail "commit gA $off: $out"
done
[[ "$(client committed gA)" == "200 gA-at-200" ]] || fail "gA not committed at 200 before the restart"
# Enough data after gA's last commit for every node to snapshot past it.
client produce 600 b > /dev/null || fail "produce b: $(tail -n 3 "$E2E_TMP/client.err")"
deadline=$((SECONDS + 30))
while :; do
    snaps=0
    for i in 1 2 3; do
        # A snapshot whose end (the name's first number) lies past gA's commits.
        end="$(ls "$E2E_TMP/data$i/__cluster_metadata-0/" | sed -n 's/^0*\([0-9]\+\)-[0-9]*\.checkpoint$/\1/p' | sort -n | tail -n 1)"
        [[ -n "$end" ]] && ((end >= n1 + 20)) && snaps=$((snaps + 1))
    done
    ((snaps == 3)) && break
    ((SECONDS < deadline)) || fail "only $snaps of 3 nodes wrote a snapshot past gA's commits within 30s"
    sleep 0.5
done
for off in 10 777; do
    out="$(client commit gB $off "gB-at-$off")" || fail "commit gB $off: $out"
done
[[ "$(client committed gB)" == "777 gB-at-777" ]] || fail "gB not committed at 777 before the restart"
[[ "$(client committed gNone)" == "none" ]] || fail "a group that never committed has an offset"

log "SIGKILL every node, then restart them all"
for i in 1 2 3; do kill9_server "n$i"; done
quorum_start 1 2 3
wait_leader 60 $base $((base + 1)) $((base + 2)) > /dev/null || fail "no leader within 60s after restart"
a="$(client committed gA)"
b="$(client committed gB)"
[[ "$a" == "200 gA-at-200" ]] || fail "after restarting every node gA reads '$a', committed 200 gA-at-200"
[[ "$b" == "777 gB-at-777" ]] || fail "after restarting every node gB reads '$b', committed 777 gB-at-777"
log "after the restart: gA $a, gB $b"

# Consumers of the topic never see the commits.
consume_all "$base" "$E2E_TMP/consumed.txt"
got="$(wc -l < "$E2E_TMP/consumed.txt")"
want=$((n1 + 600))
# The log may start above 0 after retention; with no retention configured it does not.
[[ "$got" -eq "$want" ]] || fail "kcat read $got records, produced $want (commits must be invisible)"
bad="$(cut -f2 "$E2E_TMP/consumed.txt" | grep -cvE '^(a|b)-[0-9]+$')"
[[ "$bad" -eq 0 ]] || fail "$bad consumed values are not produced ones"

# Kafka's DumpLogSegments reads the segment with the commits and the snapshot.
seg="$(ls "$E2E_TMP/data1/__cluster_metadata-0/"*.log | head -n 1)"
timeout 120 "$E2E_ROOT/bin/kafka-dump-log.sh" --files "$seg" --print-data-log > "$E2E_TMP/dump.txt" 2>&1 ||
    fail "kafka-dump-log.sh failed on $seg: $(tail -n 3 "$E2E_TMP/dump.txt")"
ncommit="$(grep -c 'UNKNOWN(19281)' "$E2E_TMP/dump.txt")"
((ncommit >= 5)) || fail "DumpLogSegments lists $ncommit offset-commit records, expected 5"
snap="$(ls "$E2E_TMP/data1/__cluster_metadata-0/"*.checkpoint | tail -n 1)"
timeout 120 "$E2E_ROOT/bin/kafka-dump-log.sh" --files "$snap" > "$E2E_TMP/dump-snap.txt" 2>&1 ||
    fail "kafka-dump-log.sh failed on $snap: $(tail -n 3 "$E2E_TMP/dump-snap.txt")"
grep -q 'Exception' "$E2E_TMP/dump-snap.txt" && fail "DumpLogSegments: $(grep -m1 Exception "$E2E_TMP/dump-snap.txt")"

pass "gA (in a snapshot) and gB (in the log) kept their offsets and metadata across a SIGKILL of all 3 nodes; $got records read with no commit among them; DumpLogSegments lists $ncommit commits"
