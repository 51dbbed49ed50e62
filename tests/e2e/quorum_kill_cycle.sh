# The kill cycle, sourced by test_quorum_three.sh and test_quorum_five.sh
# after they set VOTERS, RECORDS, RATE and PORT_BASE.
# VerifiableProducer writes RECORDS records at RATE/s with acks=all while the
# leader is SIGKILLed twice and a follower once (each restarted two seconds
# later).
# A poller asks every node for DescribeQuorum every 100 ms: the high
# watermark reported by the leaders must never go down. At the end every
# acknowledged value is read back exactly once, in order, at its acked
# offset, and all committed logs are byte-for-byte identical up to the final
# high watermark.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/quorum_lib.sh"
require_multinode
require_server

base="$(pick_ports "$PORT_BASE" "$VOTERS")" || fail "no free ports"
quorum_config "$base" "$VOTERS"
quorum_start $(seq 1 "$VOTERS")
read -r leader epoch _ < <(wait_probe_leader 60) || fail "no leader within 60s"
log "initial leader $leader (epoch $epoch)"
start_hw_poller

n=$RECORDS
prod="$E2E_TMP/produced.jsonl"
start_producer "$n" "$RATE" "$prod"

for round in 1 2 3; do
    target=$((n * (round * 30 - 15) / 100))
    wait_acked "$prod" "$target" 120 || fail "round $round: fewer than $target records acked"
    read -r leader epoch _ < <(wait_probe_leader 30) || fail "round $round: no leader"
    if ((round < 3)); then
        victim=$leader
        what="leader"
    else
        victim=$((leader % VOTERS + 1))
        what="follower"
    fi
    kill -0 "$PRODUCER_PID" 2>/dev/null || fail "round $round: the producer finished before the kill"
    kill9_server "n$victim"
    read -r new nepoch _ < <(wait_probe_leader 30 "$( ((round < 3)) && echo "$victim" || echo -1)") ||
        fail "round $round: no leader among the survivors"
    log "round $round: killed $what $victim (epoch $epoch) after $(acked_count "$prod") acks; leader now $new (epoch $nepoch)"
    sleep 2
    restart_server "n$victim"
done

wait_producer 180
rc=$?
[[ $rc -eq 0 ]] || fail "VerifiableProducer exited $rc: $(tail -n 3 "$prod.err")"
acked=$(acked_count "$prod")
((acked >= n / 2)) || fail "only $acked of $n records acknowledged"

sync="$(compare_committed_logs 60)" || fail "committed logs: $sync"
mono="$(check_hw_monotonic)" || fail "high watermark: $mono"
log "hw poll: $mono"
read -r leader _ < <(wait_probe_leader 30) || fail "no leader at the end"
summary="$(verify_readback $((base + leader - 1)) "$prod" $((n / 2)))" || fail "read-back: $summary"

pass "$VOTERS voters, $n records at $RATE/s, 2 leader kills + 1 follower kill; $sync identical on all; hw monotonic; $summary"
