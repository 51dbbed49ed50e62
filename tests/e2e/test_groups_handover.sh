#!/usr/bin/env bash
# Partition handover inside a consumer group. Three nodes (one with
# KQ_SKIP_MULTINODE=1); VerifiableProducer (acks=all) writes in the
# background; two VerifiableConsumers (classic protocol, range assignor,
# synchronous commits after every poll) join group H. The one holding the
# partition is stopped with SIGTERM (a clean close: it leaves the group);
# the other must be assigned the partition and begin exactly at the offset
# the leaver last committed successfully. Afterwards every acknowledged
# record must have been read by one of the two (duplicates allowed: counted
# and reported).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/groups_lib.sh"

E2E="$E2E_ROOT/tests/e2e"
n=${KQ_GROUPS_RECORDS:-2000}
H=handover-group
nodes=3
[[ "${KQ_SKIP_MULTINODE:-0}" == 1 ]] && nodes=1

groups_start "$nodes" "$(pick_ports 37300 3)" || fail "no free ports"
log "nodes $G_BOOTSTRAP"

# vconsumer <out>: sets VC_PID (the JVM: the wrappers exec java).
vconsumer() {
    "$E2E_ROOT/bin/kafka-verifiable-consumer.sh" --bootstrap-server "$G_BOOTSTRAP" \
        --topic "$TOPIC" --group-id "$H" --group-protocol classic --reset-policy earliest \
        --session-timeout 10000 --verbose > "$1" 2> "$1.err" &
    VC_PID=$!
}
# holds <out>: the consumer's latest assignment includes partition 0.
holds() {
    grep '"partitions_assigned"\|"partitions_revoked"' "$1" 2>/dev/null | tail -n 1 |
        grep -q '"partitions_assigned".*"partition":0'
}
# events <out> <name>: how many such events.
events() { grep -c "\"name\":\"$2\"" "$1" 2>/dev/null || true; }
max_read() {
    local m
    m="$(grep -o '"name":"record_data"[^}]*"offset":[0-9]*' "$1" 2>/dev/null |
        sed 's/.*"offset"://' | sort -n | tail -n 1)"
    echo "${m:--1}"
}
wait_for() { # <secs> <command...>
    local deadline=$((SECONDS + $1))
    shift
    while ((SECONDS < deadline)); do
        "$@" && return 0
        sleep 0.2
    done
    return 1
}
reads_past() { (($(max_read "$1") >= $2)); }
has_event() { (($(events "$1" "$2") >= ${3:-1})); }

prod="$E2E_TMP/produced.jsonl"
ca="$E2E_TMP/consumerA.jsonl"
cb="$E2E_TMP/consumerB.jsonl"
timeout 300 "$E2E_ROOT/bin/kafka-verifiable-producer.sh" --bootstrap-server "$G_BOOTSTRAP" \
    --topic "$TOPIC" --max-messages "$n" --throughput 100 --acks -1 \
    --producer.config "$E2E_ROOT/config/producer.properties" > "$prod" 2> "$prod.err" &
prod_pid=$!

vconsumer "$ca"
pid_a=$VC_PID
wait_for 60 holds "$ca" || g_fail "consumer A was not assigned the partition within 60s: $(tail -n 3 "$ca" "$ca.err")"
wait_for 60 reads_past "$ca" 0 || g_fail "consumer A read nothing within 60s: $(tail -n 3 "$ca.err")"
log "consumer A holds the partition and reads (at $(max_read "$ca"))"

vconsumer "$cb"
pid_b=$VC_PID
# B's join makes the group rebalance: A's partition is revoked, then both
# get their assignment (the partition to one of them).
wait_for 60 has_event "$cb" partitions_assigned ||
    g_fail "consumer B got no assignment within 60s (the group did not rebalance): $(tail -n 3 "$cb" "$cb.err")"
wait_for 30 has_event "$ca" partitions_revoked ||
    g_fail "consumer A's partition was not revoked when B joined: $(grep -v record_data "$ca" | tail -n 3)"
wait_for 30 has_event "$ca" partitions_assigned 2 ||
    g_fail "consumer A got no new assignment after the rebalance: $(grep -v record_data "$ca" | tail -n 3)"
if holds "$cb" && ! holds "$ca"; then
    holder=B hout=$cb hpid=$pid_b tout=$ca tpid=$pid_a
elif holds "$ca" && ! holds "$cb"; then
    holder=A hout=$ca hpid=$pid_a tout=$cb tpid=$pid_b
else
    g_fail "after B joined not exactly one consumer holds the partition: A: $(grep -v record_data "$ca" | tail -n 2) B: $(grep -v record_data "$cb" | tail -n 2)"
fi
before=$(max_read "$hout")
wait_for 60 reads_past "$hout" $((before + 50)) ||
    g_fail "the holder ($holder) does not read after the rebalance (at $(max_read "$hout"))"
kill -0 "$prod_pid" 2>/dev/null || g_fail "the producer finished before the handover (raise KQ_GROUPS_RECORDS)"

log "consumer $holder holds the partition (at $(max_read "$hout")); SIGTERM to it"
t0=$SECONDS
kill -TERM "$hpid"
wait_for 30 eval '! kill -0 '"$hpid"' 2>/dev/null' || { kill_tree "$hpid"; g_fail "consumer $holder did not exit within 30s of SIGTERM"; }
wait "$hpid" 2>/dev/null
has_event "$hout" shutdown_complete || log "note: consumer $holder did not report shutdown_complete"
committed="$($PY - "$hout" <<'PYEOF'
import json, sys
last = None
for line in open(sys.argv[1]):
    if '"offsets_committed"' in line:
        ev = json.loads(line)
        if ev.get("success"):
            for o in ev["offsets"]:
                if o["partition"] == 0:
                    last = o["offset"]
print(-1 if last is None else last)
PYEOF
)"
((committed >= 0)) || g_fail "consumer $holder never committed successfully: $(grep offsets_committed "$hout" | tail -n 2)"
taker=$([[ $holder == A ]] && echo B || echo A)
wait_for 60 holds "$tout" ||
    g_fail "consumer $taker was not assigned the partition within 60s of $holder leaving: $(grep -v record_data "$tout" | tail -n 3)"
took=$((SECONDS - t0))
log "consumer $taker took the partition over ${took}s after the SIGTERM; $holder last committed $committed"

wait "$prod_pid"
rc=$?
[[ $rc -eq 0 ]] || g_fail "VerifiableProducer exited $rc: $(tail -n 3 "$prod.err")"
last="$(grep '"producer_send_success"' "$prod" | grep -o '"offset":[0-9]*' | cut -d: -f2 | sort -n | tail -n 1)"
acked="$(grep -c '"producer_send_success"' "$prod")"
((acked == n)) || g_fail "only $acked of $n records acknowledged (no failover in this test)"
wait_for 90 reads_past "$tout" "$last" ||
    g_fail "consumer $taker did not reach the last acknowledged offset $last within 90s (at $(max_read "$tout"))"
sleep 1
kill -TERM "$tpid"
wait_for 15 eval '! kill -0 '"$tpid"' 2>/dev/null' || kill_tree "$tpid"
wait "$tpid" 2>/dev/null

# The taker's first record after its final assignment is the first data
# record at or after the committed offset (kcat lists the data records: the
# log also holds control batches, e.g. the commits themselves).
consume_all "${G_PORTS[0]}" "$E2E_TMP/all.txt"
ssum="$($PY "$E2E/vc_check.py" start "$tout" "$committed" "$E2E_TMP/all.txt")" ||
    g_fail "after $holder left (last commit $committed): $ssum"
sum="$($PY "$E2E/vc_check.py" consumed "$ca,$cb" "$prod")" || g_fail "handover: $sum"
pass "consumer $holder left, $taker took over ${took}s after SIGTERM: $ssum; $sum"
