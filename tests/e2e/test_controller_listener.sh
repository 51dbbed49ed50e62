#!/usr/bin/env bash
# Issue 9: only the quorum speaks for the quorum. Three voters, each with a
# client listener (PLAINTEXT) and a controller listener (CONTROLLER, named in
# controller.listener.names) that the voters use. Clients bootstrap on the
# client listeners and Metadata sends them to the client listeners (the
# nodes learn each other's from DescribeCluster). With both followers
# killed, a client forging replica fetches (naming the right cluster id) as
# the two followers at offsets up to past the leader's end on the client
# listener is refused (CLUSTER_AUTHORIZATION_FAILED,
# a log line naming it), the high watermark does not move and an acks=all
# write is not acknowledged. A forged fetch without the cluster id on the
# controller listener is refused too (INCONSISTENT_CLUSTER_ID). After the
# followers restart, the write that timed out is retried and everything is
# read back.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/quorum_lib.sh"
require_multinode
require_server

base="$(pick_ports 34100 3)" || fail "no free ports"
cbase="$(pick_ports $((base + 40)) 3)" || fail "no free controller ports"
voters="1@localhost:$cbase,2@localhost:$((cbase + 1)),3@localhost:$((cbase + 2))"
QUORUM_BASE=$base
QUORUM_N=3
for i in 1 2 3; do
    cat > "$E2E_TMP/n$i.properties" <<EOF
node.id=$i
listeners=PLAINTEXT://localhost:$((base + i - 1)),CONTROLLER://localhost:$((cbase + i - 1))
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
controller.listener.names=CONTROLLER
controller.quorum.voters=$voters
log.dirs=$E2E_TMP/data$i
# The leader must not resign (check-quorum) while the followers are down.
controller.quorum.fetch.timeout.ms=60000
EOF
done
quorum_start 1 2 3
read -r leader epoch _ < <(wait_probe_leader 60) || fail "no leader within 60s"
lport=$((base + leader - 1))
log "leader $leader (epoch $epoch) on client port $lport"

# Metadata names every node by its client listener once they have asked
# each other (within a second of start).
meta=""
for ((t = 0; t < 50; t++)); do
    meta="$(timeout 10 kcat -L -b "localhost:$base" 2>/dev/null)"
    n=0
    for i in 1 2 3; do
        grep -q "broker $i at localhost:$((base + i - 1))" <<<"$meta" && n=$((n + 1))
    done
    ((n == 3)) && break
    sleep 0.2
done
((n == 3)) || fail "Metadata does not name the client listeners: $meta"

echo "before" | timeout 30 kcat -P -b "localhost:$base" -t "$TOPIC" -p 0 -X acks=all \
    -X message.timeout.ms=20000 || fail "acks=all produce failed with all voters up"

for i in 1 2 3; do
    [[ $i == "$leader" ]] || kill9_server "n$i"
done
read -r _ _ hw0 < <($PY "$QPROBE" --leader "localhost:$lport") || fail "no DescribeQuorum"
end="$(timeout 10 kcat -Q -b "localhost:$lport" -t "$TOPIC:0:-1" 2>/dev/null |
    sed -n 's/.*offset \([0-9]\+\).*/\1/p')"
log "followers killed; HW $hw0, leader end ${end:-?}"

# The writer waits on the leader (its write cannot commit) while the forger
# claims the followers have the whole log, offset by offset.
( echo "during" | timeout 30 kcat -P -b "localhost:$lport" -t "$TOPIC" -p 0 -X acks=all \
    -X message.timeout.ms=5000 > "$E2E_TMP/during.out" 2>&1; echo "rc=$?" >> "$E2E_TMP/during.out" ) &
writer=$!
sleep 0.5
for replica in 1 2 3; do
    [[ $replica == "$leader" ]] && continue
    for off in 1 2 3 4 5 100; do
        got="$($PY "$E2E_ROOT/tests/e2e/forge_fetch.py" "localhost:$lport" "$replica" "$off" \
            "$epoch" kq-raft-test-cluster)"
        [[ "$got" == 31 ]] ||
            fail "forged fetch as voter $replica at $off on the client listener answered $got, want 31"
    done
done
got="$($PY "$E2E_ROOT/tests/e2e/forge_fetch.py" "localhost:$((cbase + leader - 1))" 2 100 "$epoch")"
[[ "$got" == 104 ]] || fail "forged fetch without cluster id on the controller listener answered $got, want 104"
wait "$writer"
grep -q "rc=0" "$E2E_TMP/during.out" && fail "an acks=all write was acknowledged by the leader alone"
read -r _ _ hw1 < <($PY "$QPROBE" --leader "localhost:$lport") || fail "no DescribeQuorum"
[[ "$hw1" == "$hw0" ]] || fail "the high watermark moved from $hw0 to $hw1 with both followers down"
grep -q "on a client listener; refused" "$E2E_TMP/n$leader.log" ||
    fail "the leader did not log the refusal"
grep -q "cluster id null" "$E2E_TMP/n$leader.log" ||
    fail "the leader did not log the null cluster id"
log "forged fetches refused; HW stayed $hw0; the acks=all write timed out"

for i in 1 2 3; do
    [[ $i == "$leader" ]] || restart_server "n$i"
done
echo "after" | timeout 60 kcat -P -b "localhost:$base" -t "$TOPIC" -p 0 -X acks=all \
    -X message.timeout.ms=30000 || fail "acks=all produce failed after the followers came back"
out="$E2E_TMP/read.txt"
consume_all "$base" "$out"
grep -q $'\tbefore$' "$out" || fail "record 'before' is missing"
grep -q $'\tafter$' "$out" || fail "record 'after' is missing"
pass "forged replica fetches refused on the client listener; HW $hw0 unchanged; service resumed"
