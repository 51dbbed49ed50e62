#!/usr/bin/env bash
# Issue 19 items 2, 7, 8: connections bounded below the descriptor limit.
# One node under `ulimit -n 1024` (RLIMIT_NOFILE raised to its hard limit,
# here also 1024), a PLAINTEXT and an SSL client listener, a controller
# listener and the metrics endpoint; max.connections left at its default
# (1024 - KQ_FD_RESERVE - KQ_CONTROLLER_CONNECTIONS_MAX = 640),
# max.connections.per.ip=500. conn_flood.py holds idle sockets from
# 127.0.0.2 past the per-ip limit and from 127.0.0.3 past max.connections
# (evicting 127.0.0.2's idlest), then from 127.0.0.7 (an override lets it
# hold every slot), stalled TLS handshakes from 127.0.0.4 and a metrics
# slowloris from 127.0.0.5; kcat from 127.0.0.1 produces with acks=all and
# consumes throughout (so the log's fsyncs keep working with every client
# slot taken), also while every slot is taken: its connections evict the
# heaviest address's idlest (the controller listener then still answers
# DescribeQuorum from its own slots); a TLS handshake and /metrics scrapes from
# 127.0.0.1 get through. Then: the node is alive, never
# logged FATAL, logged the refusals rate-limited, and every record produced
# is read back.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_server
command -v kcat > /dev/null || fail "kcat missing"
ulimit -n 1024 || fail "cannot set ulimit -n 1024"

CERTS="$E2E_TMP/certs"
sh "$E2E_ROOT/tests/e2e/gen_certs.sh" "$CERTS" > "$E2E_TMP/gen_certs.log" 2>&1 ||
    fail "gen_certs.sh failed: $(tail -n 3 "$E2E_TMP/gen_certs.log")"

base="$(pick_ports 41500 4)" || fail "no free ports"
plain=$base ssl=$((base + 1)) mport=$((base + 2)) cport=$((base + 3))
PER_IP=500
MAX_CONN=640 # 1024 - KQ_FD_RESERVE - KQ_CONTROLLER_CONNECTIONS_MAX
cat > "$E2E_TMP/s1.properties" <<EOF2
node.id=1
listeners=PLAINTEXT://localhost:$plain,SECURE://localhost:$ssl,CONTROLLER://localhost:$cport
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SECURE:SSL,CONTROLLER:PLAINTEXT
controller.listener.names=CONTROLLER
controller.quorum.voters=1@localhost:$cport
log.dirs=$E2E_TMP/data1
ssl.keystore.location=$CERTS/node1.pem
ssl.truststore.location=$CERTS/ca.crt
metrics.port=$mport
metrics.host=127.0.0.1
max.connections.per.ip=$PER_IP
max.connections.per.ip.overrides=127.0.0.7:$MAX_CONN
EOF2
start_server s1 "$E2E_TMP/s1.properties" "$plain"
S1LOG="$E2E_TMP/s1.log"
for ((t = 0; t < 50; t++)); do
    grep -q "max.connections=" "$S1LOG" && break
    sleep 0.1
done
grep -q "RLIMIT_NOFILE soft 1024 -> 1024 (hard 1024)" "$S1LOG" ||
    fail "the descriptor figures are not logged: $(grep RLIMIT "$S1LOG")"
grep -q "max.connections=$MAX_CONN, max.connections.per.ip=$PER_IP" "$S1LOG" ||
    fail "max.connections is not derived from RLIMIT_NOFILE: $(grep 'max.connections' "$S1LOG")"

out="$(timeout 300 "$PY" "$E2E_ROOT/tests/e2e/conn_flood.py" "$plain" "$ssl" "$mport" \
    "$CERTS/ca.crt" "$PER_IP" "$MAX_CONN" "$cport")" || fail "conn_flood.py failed (see above)"
n="$(echo "$out" | sed -n 's/^produced \([0-9]*\)$/\1/p')"
[[ -n "$n" && "$n" -ge 4 ]] || fail "conn_flood.py produced ${n:-nothing}"

server_alive s1 || fail "the node stopped: $(tail -n 5 "$S1LOG")"
grep -q "FATAL" "$S1LOG" && fail "FATAL in the log: $(grep FATAL "$S1LOG" | head -n 3)"
refused_lines="$(grep -c "refused:" "$S1LOG")"
((refused_lines < 100)) || fail "$refused_lines refusal lines logged: not rate-limited"
grep -q "similar lines suppressed" "$S1LOG" || fail "no line reports suppressed lines"

got="$(timeout 30 kcat -C -b "localhost:$plain" -t "$TOPIC" -p 0 -o beginning -e -q |
    grep -c '^conn-flood-')"
[[ "$got" -eq "$n" ]] || fail "read $got of $n records produced"
evicted_lines="$(grep -c "closed: evicted for" "$S1LOG")"
((evicted_lines > 0)) || fail "no eviction logged"
pass "excess connections refused at accept (per ip, total, TLS per address) or evicted for a lighter address ($evicted_lines lines), $n records produced and read, metrics served under slowloris, $refused_lines refusal lines"
