#!/usr/bin/env bash
# Single node, kafka-python 2.0.2 (Debian python3-kafka): produce with
# acks=all, acks=1 and gzip, then consume everything back with a
# manually assigned consumer and check values and offsets.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_server
$PY -c 'import kafka' 2>/dev/null || fail "kafka-python missing ($PY; apt-get install python3-kafka)"

port="$(pick_ports 31392 1)" || fail "no free port"
write_props "$E2E_TMP/s1.properties" 1 "$port" "$E2E_TMP/data1"
start_server s1 "$E2E_TMP/s1.properties" "$port"
wait_leader 30 "$port" > /dev/null || fail "no leader elected within 30s"

out="$(timeout 180 $PY - "localhost:$port" "$TOPIC" 2> "$E2E_TMP/python.err" <<'PYEOF'
import sys
from kafka import KafkaConsumer, KafkaProducer, TopicPartition

bootstrap, topic = sys.argv[1], sys.argv[2]
n = 1000
acked = []  # (offset, value)
for label, kwargs in (("all", {"acks": "all"}), ("one", {"acks": 1}),
                      ("gzip", {"acks": "all", "compression_type": "gzip"})):
    p = KafkaProducer(bootstrap_servers=bootstrap, linger_ms=5,
                      request_timeout_ms=30000, **kwargs)
    futures = [(f"{label}-{i}", p.send(topic, value=f"{label}-{i}".encode(), partition=0))
               for i in range(n)]
    for value, fut in futures:
        md = fut.get(timeout=60)
        if md.partition != 0 or md.offset < 0:
            print(f"FAILDETAIL bad metadata for {value}: {md}")
            sys.exit(1)
        acked.append((md.offset, value))
    p.close(timeout=30)

c = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None,
                  enable_auto_commit=False, auto_offset_reset="earliest",
                  consumer_timeout_ms=10000)
tp = TopicPartition(topic, 0)
c.assign([tp])
c.seek_to_beginning(tp)
got = {}
for msg in c:
    got[msg.offset] = msg.value.decode(errors="replace")
    if len(got) >= 3 * n and all(o in got for o, _ in acked):
        break
c.close()
missing = [(o, v) for o, v in acked if got.get(o) != v]
values = list(got.values())
dups = len(values) - len(set(values))
if missing or dups:
    print(f"FAILDETAIL {len(missing)} acked records not read back at their offset "
          f"(first {missing[:3]}), {dups} duplicate values, consumed {len(got)}")
    sys.exit(1)
offs = [o for o, _ in acked]
if offs != sorted(offs) or len(set(offs)) != len(offs):
    print("FAILDETAIL acked offsets not strictly increasing")
    sys.exit(1)
print(f"acked={len(acked)} consumed={len(got)} offsets {offs[0]}..{offs[-1]}")
PYEOF
)"
rc=$?
[[ $rc -eq 0 ]] || fail "kafka-python run exited $rc: $out $(tail -n 3 "$E2E_TMP/python.err")"
pass "kafka-python acks=all/1/gzip produce and consume: $out"
