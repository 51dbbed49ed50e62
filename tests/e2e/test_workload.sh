#!/usr/bin/env bash
# Issue 10: the built-in workload of Kafka's TestRaftServer. Three voters
# started with --throughput 2000 --record-size 100: the leader appends
# records itself and logs Kafka's line "Throughput (bytes/second): X,
# Latency (ms): P75 a P99 b P999 c" every 5 s; after a kill -9 of the
# leader, the new leader takes the workload over. The records are ordinary
# committed records (100 bytes each) that kcat reads back, and the nodes'
# committed logs agree.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/quorum_lib.sh"
require_multinode
require_server

# Every node runs with the workload flags (only the leader acts on them).
real="$SERVER_BIN"
SERVER_BIN="$E2E_TMP/raft-server-workload"
printf '#!/bin/sh\nexec "%s" "$@" --throughput 2000 --record-size 100\n' "$real" > "$SERVER_BIN"
chmod +x "$SERVER_BIN"

base="$(pick_ports 35500 3)" || fail "no free ports"
quorum_config "$base" 3
quorum_start 1 2 3
read -r leader epoch _ < <(wait_probe_leader 60) || fail "no leader within 60s"
log "leader $leader epoch $epoch"

# wait_line <node> <pattern> <secs>
wait_line() {
    local d=$((SECONDS + $3))
    while ((SECONDS < d)); do
        grep -q "$2" "$E2E_TMP/n$1.log" && return 0
        sleep 0.5
    done
    return 1
}
line='Throughput (bytes/second): [1-9][0-9]*, Latency (ms): P75 [0-9]* P99 [0-9]* P999 [0-9]*'
wait_line "$leader" "$line" 20 || fail "leader $leader logged no throughput line: $(tail -n 3 "$E2E_TMP/n$leader.log")"
log "leader: $(grep -o "$line" "$E2E_TMP/n$leader.log" | tail -n 1)"
for i in 1 2 3; do
    [[ $i == "$leader" ]] && continue
    grep -q "Throughput (bytes/second)" "$E2E_TMP/n$i.log" && fail "follower n$i runs the workload"
done

kill9_server "n$leader"
read -r new epoch2 _ < <(wait_probe_leader 30 "$leader") || fail "no new leader after kill -9"
log "new leader $new (epoch $epoch2)"
wait_line "$new" "workload of 2000 records/s of 100 bytes started" 10 || fail "n$new did not take the workload over"
before="$(grep -c "Throughput (bytes/second)" "$E2E_TMP/n$new.log")"
d=$((SECONDS + 20))
while ((SECONDS < d)) && (($(grep -c "$line" "$E2E_TMP/n$new.log") <= before)); do sleep 0.5; done
(($(grep -c "$line" "$E2E_TMP/n$new.log") > before)) || fail "the new leader logged no throughput line"
restart_server "n$leader"

out="$E2E_TMP/read.txt"
# The workload keeps appending: read the first 4000 records, not to the end.
timeout 60 kcat -C -q -b "localhost:$((base + new - 1))" -t "$TOPIC" -p 0 -o beginning -c 4000 \
    -f '%S\n' > "$out" 2> "$out.err" || fail "kcat failed: $(tail -n 2 "$out.err")"
n="$(wc -l < "$out")"
((n == 4000)) || fail "only $n records read back"
bad="$(grep -vc '^100$' "$out")"
((bad == 0)) || fail "$bad records are not 100 bytes"
pass "built-in workload: leader $leader then $new logged Kafka's line; $n records of 100 bytes read back"
