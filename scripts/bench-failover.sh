#!/usr/bin/env bash
# Failover benchmark (not a test: no timing assertions). Three voters on
# loopback; a kafka-python producer writes continuously at a steady rate
# with acks=all and unlimited retries. Each round stops the current leader
# (SIGKILL by default, or SIGTERM for a graceful resignation), measures
#   election_ms: signal -> a surviving node answers DescribeQuorum as leader
#   failover_ms: signal -> first acknowledged write under the new leader
#                (first ack with an offset above the new epoch's
#                LeaderChange record, read from the log afterwards)
# then restarts the stopped node and waits until it has caught up.
#
#   scripts/bench-failover.sh [--rounds N] [--signal KILL|TERM] [--rate R]
#                             [--port BASE]
# Environment: KQ_SERVER_BIN (default build/raft-server), KQ_KEEP_TMP=1.
set -uo pipefail

rounds=10
sig=KILL
rate=200
port=33600
while [[ $# -gt 0 ]]; do
    case "$1" in
        --rounds) rounds="$2"; shift 2 ;;
        --signal) sig="${2#SIG}"; shift 2 ;;
        --rate) rate="$2"; shift 2 ;;
        --port) port="$2"; shift 2 ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
done
case "$sig" in KILL|TERM) ;; *) echo "--signal must be KILL or TERM" >&2; exit 2 ;; esac

source "$(dirname "${BASH_SOURCE[0]}")/../tests/e2e/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/../tests/e2e/quorum_lib.sh"
require_server

base="$(pick_ports "$port" 3)" || fail "no free ports"
quorum_config "$base" 3
quorum_start 1 2 3
read -r leader epoch _ < <(wait_probe_leader 60) || fail "no leader within 60s"
mapfile -t addrs < <(quorum_addrs)

acks="$E2E_TMP/acks.txt"
$PY - "$(quorum_bootstrap)" "$TOPIC" "$rate" "$acks" 2> "$E2E_TMP/producer.err" <<'PYEOF' &
import signal, sys, threading, time
from kafka import KafkaProducer

bootstrap, topic, rate, out = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
stop = threading.Event()
signal.signal(signal.SIGTERM, lambda *_: stop.set())
f = open(out, "w", buffering=1)
lock = threading.Lock()

def on_ack(md):
    t = time.time()
    with lock:
        f.write(f"{t:.4f} {md.offset}\n")

p = KafkaProducer(bootstrap_servers=bootstrap, acks="all", retries=2147483647,
                  max_in_flight_requests_per_connection=1, linger_ms=0,
                  retry_backoff_ms=20, reconnect_backoff_ms=20,
                  reconnect_backoff_max_ms=200, request_timeout_ms=5000,
                  metadata_max_age_ms=60000)
period = 1.0 / rate
nxt = time.time()
i = 0
while not stop.is_set():
    p.send(topic, value=str(i).encode(), partition=0).add_callback(on_ack)
    i += 1
    nxt += period
    d = nxt - time.time()
    if d > 0:
        time.sleep(d)
p.close(timeout=5)
PYEOF
prod_pid=$!

count_acks() { if [[ -f "$acks" ]]; then wc -l < "$acks"; else echo 0; fi; }
wait_more_acks() {  # <how many> <secs>
    local want=$(($(count_acks) + $1)) deadline=$((SECONDS + $2))
    while ((SECONDS < deadline)); do
        (($(count_acks) >= want)) && return 0
        kill -0 "$prod_pid" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}
wait_more_acks "$rate" 60 || fail "the producer got no acks: $(tail -n 3 "$E2E_TMP/producer.err")"

rounds_file="$E2E_TMP/rounds.txt"
: > "$rounds_file"
for ((r = 1; r <= rounds; r++)); do
    read -r leader epoch _ < <(wait_probe_leader 30) || fail "round $r: no leader"
    pid=${SERVER_PID[n$leader]}
    out="$(stop_leader_timed "$sig" "$leader" 2>/dev/null)" || fail "round $r: no new leader within 60s"
    read -r new nepoch election_ms <<<"$out"
    since="$(awk -v a="$(cut -d' ' -f4 "$E2E_TMP/leader-change.txt")" -v ms="$election_ms" \
        'BEGIN { printf "%.4f", a - ms / 1000 }')"
    echo "$r $since $leader $new $nepoch $election_ms" >> "$rounds_file"
    wait_more_acks 20 60 || fail "round $r: no acks under the new leader"
    for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    restart_server "n$leader"
    $PY "$QPROBE" --wait-synced 60 "${addrs[@]}" > /dev/null || fail "round $r: node $leader did not catch up"
    wait_more_acks "$rate" 60 || fail "round $r: the producer stalled after the restart"
    log "round $r: SIG$sig leader $leader -> $new (epoch $nepoch) election ${election_ms} ms"
done

kill -TERM "$prod_pid" 2>/dev/null
wait "$prod_pid" 2>/dev/null
# The committed log (any node) tells where each epoch started.
$PY "$QPROBE" --control-batches "$E2E_TMP/data1" > "$E2E_TMP/epochs.txt"

$PY - "$rounds_file" "$E2E_TMP/epochs.txt" "$acks" "$sig" <<'PYEOF'
import statistics, sys

rounds = [l.split() for l in open(sys.argv[1]) if l.strip()]
start = {int(e): int(o) for o, e in (l.split() for l in open(sys.argv[2]) if l.strip())}
acks = [(float(t), int(o)) for t, o in (l.split() for l in open(sys.argv[3]) if l.strip())]
sig = sys.argv[4]
fo, el = [], []
for r, since, old, new, epoch, election_ms in rounds:
    since, epoch = float(since), int(epoch)
    s = start.get(epoch)
    first = None if s is None else next(
        (t for t, o in sorted(acks) if t >= since and o > s), None)
    if first is None:
        print(f"round {r}: SIG{sig} leader {old} -> {new} (epoch {epoch}) "
              f"election_ms={election_ms} failover_ms=? (no ack under epoch {epoch})")
        continue
    ms = (first - since) * 1000
    fo.append(ms)
    el.append(float(election_ms))
    print(f"round {r}: SIG{sig} leader {old} -> {new} (epoch {epoch}) "
          f"election_ms={election_ms} failover_ms={ms:.0f}")
if el:
    print(f"election_ms median={statistics.median(el):.0f} worst={max(el):.0f} n={len(el)}")
if fo:
    print(f"failover_ms median={statistics.median(fo):.0f} worst={max(fo):.0f} n={len(fo)}")
else:
    print("failover_ms median=? worst=? n=0")
PYEOF
