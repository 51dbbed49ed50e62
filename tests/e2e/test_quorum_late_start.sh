#!/usr/bin/env bash
# Late joiners. (1) Voters 1 and 2 of three start, elect a leader and commit
# a few thousand records with acks=all; then voter 3 starts and must catch
# up: its committed log becomes byte-for-byte identical to the others' up to
# the high watermark. (2) A fresh quorum started in the order 3, 2, 1 (with
# 3 alone for longer than an election timeout) elects a leader, serves
# writes and ends with identical logs.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/quorum_lib.sh"
require_multinode
require_server

# produce_all <count> <rate> <out>: every record must be acked (no failover).
produce_all() {
    start_producer "$1" "$2" "$3"
    wait_producer 120
    local rc=$?
    [[ $rc -eq 0 ]] || fail "VerifiableProducer exited $rc: $(tail -n 3 "$3.err")"
    local acked
    acked=$(acked_count "$3")
    ((acked == $1)) || fail "$acked of $1 records acked without any failure"
}

# --- 1: third voter joins late ------------------------------------------
base="$(pick_ports 33400 3)" || fail "no free ports"
quorum_config "$base" 3
quorum_start 1 2
read -r leader epoch _ < <(wait_probe_leader 60) || fail "1,2: no leader within 60s"
log "nodes 1,2 up: leader $leader (epoch $epoch)"
n=${KQ_LATE_RECORDS:-4000}
produce_all "$n" 2000 "$E2E_TMP/produced1.jsonl"
read -r _ _ hw < <(wait_probe_leader 10) || fail "1,2: lost the leader"
log "$n records committed (hw $hw) with node 3 down"
[[ ! -e "$E2E_TMP/data3" ]] || fail "node 3's log dir exists before it started"

t0=$SECONDS
quorum_start 3
sync="$(compare_committed_logs 90)" || fail "after node 3 joined: $sync"
log "node 3 caught up in ~$((SECONDS - t0))s: $sync"
$PY "$E2E_ROOT/tests/e2e/logvalues.py" "$E2E_TMP/data3/__cluster_metadata-0" > "$E2E_TMP/disk3.txt" ||
    fail "cannot read node 3's log"
disk="$($PY "$E2E_ROOT/tests/e2e/verify.py" "$E2E_TMP/disk3.txt" "$E2E_TMP/produced1.jsonl" \
    --min-acked "$n")" || fail "node 3's log: $disk"
# It also serves as a voter: the quorum still commits with node 1 or 2 down.
victim=$(( leader == 1 ? 2 : 1 ))
kill9_server "n$victim"
produce_all 500 1000 "$E2E_TMP/produced1b.jsonl"
restart_server "n$victim"
sync1="$(compare_committed_logs 90)" || fail "after restarting node $victim: $sync1"
part1="late node 3 caught up ($sync), committed with node $victim down ($sync1)"
for i in 1 2 3; do kill9_server "n$i"; done

# --- 2: start order 3, 2, 1 ---------------------------------------------
base="$(pick_ports 33410 3)" || fail "no free ports"
rm -rf "$E2E_TMP"/data[123]
quorum_config "$base" 3
quorum_start 3
sleep 2.5  # alone for more than two election timeouts: cannot win
read -r l _ < <($PY "$QPROBE" --leader $(quorum_addrs))
[[ "$l" == -1 ]] || fail "node 3 alone claims leader $l"
quorum_start 2
read -r leader epoch _ < <(wait_probe_leader 60) || fail "3,2: no leader within 60s"
log "nodes 3,2 up: leader $leader (epoch $epoch)"
quorum_start 1
produce_all 2000 2000 "$E2E_TMP/produced2.jsonl"
sync2="$(compare_committed_logs 90)" || fail "order 3,2,1: $sync2"
read -r leader _ < <(wait_probe_leader 30) || fail "order 3,2,1: no leader at the end"
summary="$(verify_readback $((base + leader - 1)) "$E2E_TMP/produced2.jsonl" 2000)" ||
    fail "order 3,2,1 read-back: $summary"

pass "$part1; order 3,2,1: leader $leader, $sync2 identical on all, $summary"
