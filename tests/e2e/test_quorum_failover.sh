#!/usr/bin/env bash
# Three voters. VerifiableProducer writes with acks=all (300/s) while the leader is
# SIGKILLed and restarted twice and a follower once. Every acknowledged
# record must survive exactly once, in order, at its acknowledged offset,
# and all three replicas must end up with the same log.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_multinode
require_server

base="$(pick_ports 31692 3)" || fail "no free ports"
start_quorum "$base"
ports=("$base" $((base + 1)) $((base + 2)))
leader="$(wait_leader 60 "${ports[@]}")" || fail "no leader agreed within 60s"
log "initial leader: $leader"

acked_count() { grep -c '"producer_send_success"' "$1" 2>/dev/null || true; }
# Records the producer has finished with (acknowledged or failed: the tool
# does not retry, so sends in flight around a failover fail).
done_count() { grep -cE '"producer_send_(success|error)"' "$1" 2>/dev/null || true; }
wait_done() {
    local deadline=$((SECONDS + $3))
    while ((SECONDS < deadline)); do
        (( $(done_count "$1") >= $2 )) && return 0
        sleep 0.2
    done
    return 1
}

n=${KQ_FAILOVER_RECORDS:-6000}
prod="$E2E_TMP/produced.jsonl"
bootstrap="localhost:${ports[0]},localhost:${ports[1]},localhost:${ports[2]}"
timeout 600 "$E2E_ROOT/bin/kafka-run-class.sh" org.apache.kafka.tools.VerifiableProducer \
    --bootstrap-server "$bootstrap" --topic "$TOPIC" \
    --max-messages "$n" --throughput 300 --acks -1 --value-prefix 1 \
    --producer.config "$E2E_ROOT/config/producer.properties" \
    > "$prod" 2> "$E2E_TMP/producer.err" &
prod_pid=$!

step=$((n / 4))
for round in 1 2 3; do
    wait_done "$prod" $((round * step)) 180 ||
        fail "round $round: the producer did not get past record $((round * step))"
    leader="$(wait_leader 60 "${ports[@]}")" || fail "round $round: no leader agreed"
    if ((round < 3)); then
        victim="n$leader"
        what="leader $leader"
    else
        victim="n$(( leader % 3 + 1 ))"
        what="follower ${victim#n}"
    fi
    kill9_server "$victim"
    # The two survivors must agree on a leader (possibly a new one).
    mapfile -t alive < <(live_ports)
    new="$(wait_leader 60 "${alive[@]}")" || fail "round $round: survivors agree on no leader"
    log "round $round: killed $what after $(acked_count "$prod") acks of $(done_count "$prod"); leader now $new"
    sleep 1
    restart_server "$victim"
done

wait "$prod_pid"
rc=$?
[[ $rc -eq 0 ]] || fail "VerifiableProducer exited $rc: $(tail -n 3 "$E2E_TMP/producer.err")"
acked=$(acked_count "$prod")
(( acked >= n / 4 )) || fail "only $acked of $n records acknowledged"

# With the quorum whole again, a second producer must get every record
# acknowledged.
leader="$(wait_leader 60 "${ports[@]}")" || fail "no leader after the failovers"
n2=1000
prod2="$E2E_TMP/produced2.jsonl"
timeout 120 "$E2E_ROOT/bin/kafka-run-class.sh" org.apache.kafka.tools.VerifiableProducer \
    --bootstrap-server "$bootstrap" --topic "$TOPIC" \
    --max-messages "$n2" --throughput 1000 --acks -1 --value-prefix 2 \
    --producer.config "$E2E_ROOT/config/producer.properties" \
    > "$prod2" 2> "$E2E_TMP/producer2.err" || fail "second VerifiableProducer failed"
acked2=$(acked_count "$prod2")
(( acked2 == n2 )) || fail "after recovery only $acked2 of $n2 records acknowledged"

consume_all "${ports[0]}" "$E2E_TMP/consumed.txt"
summary="$($PY "$E2E_ROOT/tests/e2e/verify.py" "$E2E_TMP/consumed.txt" "$prod" "$prod2" \
    --min-acked $((n / 4 + n2)))" || fail "read-back: $summary"

# Every replica converges on the leader's log: after a quiet period each
# node's stored data batches (read from disk once it is stopped) hold the
# same values. Stop the nodes one by one and compare the on-disk logs.
sleep 3
for i in 1 2 3; do
    kill9_server "n$i"
done
for i in 1 2 3; do
    $PY "$E2E_ROOT/tests/e2e/logvalues.py" "$E2E_TMP/data$i/__cluster_metadata-0" \
        > "$E2E_TMP/disk$i.txt" || fail "cannot read node $i's log"
done
cmp -s "$E2E_TMP/disk1.txt" "$E2E_TMP/disk2.txt" && cmp -s "$E2E_TMP/disk1.txt" "$E2E_TMP/disk3.txt" ||
    fail "replica logs differ ($(wc -l < "$E2E_TMP/disk1.txt")/$(wc -l < "$E2E_TMP/disk2.txt")/$(wc -l < "$E2E_TMP/disk3.txt") records)"
dsum="$($PY "$E2E_ROOT/tests/e2e/verify.py" "$E2E_TMP/disk1.txt" "$prod" "$prod2" \
    --min-acked $((n / 4 + n2)))" ||
    fail "on-disk log: $dsum"

pass "2 leader kills + 1 follower kill; acked records intact on all replicas ($summary)"
