#!/usr/bin/env bash
# One quorum of our raft-server and Apache Kafka 4.4.0's own
# kafka.tools.TestRaftServer (issue 22), in two shapes: 2 ours + 1 Kafka,
# then 1 ours + 2 Kafka. Static voters, the topic __raft_performance_test
# (quorum.topic.name on our side), and the built-in workload of
# TestRaftServer (--throughput, --record-size) on every node. Each shape:
#  1. the leader is killed (SIGKILL) and restarted once another node
#     leads, again and again, until each side (ours, Kafka's) has led in
#     at least two epochs (bounded; the leader is found by DescribeQuorum
#     of our nodes, else from a Kafka node's log). The side that led less
#     is helped to win: the other side's follower is paused for a second
#     before the kill, so that its log is shorter;
#  2. a follower of each kind is stopped (SIGSTOP) for longer than the
#     fetch timeout and resumed: the leader and the epoch do not change
#     (a resumed node's pre-vote does not depose a healthy leader);
#  3. every node's log holds the same bytes up to the high watermark (our
#     <dir>/__cluster_metadata-0 and Kafka's <dir>/__raft_performance_test-0,
#     batch by batch), our nodes agree on leader and epoch by DescribeQuorum,
#     and no Kafka node logged an ERROR or an exception. (TestRaftServer
#     answers no DescribeQuorum: asked, it logs "Unsupported api key:
#     DESCRIBE_QUORUM" with a stack trace, so it is not asked.)
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/mixed_lib.sh"
require_server
require_multinode
require_test_raft_server

KILLS_MAX=${KQ_MIXED_KILLS_MAX:-10}
STOP_SECS=$(((MIXED_FETCH_TIMEOUT_MS + 999) / 1000 + 1)) # longer than the fetch timeout

kind_name() { [[ $1 == o ]] && echo ours || echo Kafka; }

# wait_caught_up <x> <y>: node x's log is within 100 records of node y's (a
# node restarted a moment ago may still be catching up); gives up after 30s.
wait_caught_up() {
    local deadline=$((SECONDS + 30)) ex ey
    while ((SECONDS < deadline)); do
        ex="$($PY "$E2E_ROOT/tests/e2e/quorum_probe.py" --log-end "$(mixed_part_dir "$1")")"
        ey="$($PY "$E2E_ROOT/tests/e2e/quorum_probe.py" --log-end "$(mixed_part_dir "$2")")"
        ((ex + 100 >= ey)) && return 0
        sleep 0.3
    done
    log "${NODE_KIND[$1]}$1 (log end $ex) did not catch up with ${NODE_KIND[$2]}$2 ($ey) within 30s"
}

# kill_leader <leader> <epoch> <kind wanted next>: kills the leader and
# restarts it once another node leads; sets NEW_LEADER and NEW_EPOCH. When
# a follower of the wanted kind and one of the other kind are left, the
# other one is paused (SIGSTOP) for a second before the kill and resumed
# after it: its log is then shorter than the wanted one's, which alone can
# win the election (a vote needs a log at least as long as the voter's).
kill_leader() {
    local l=$1 e=$2 want=$3 id x="" y="" l2 e2 h2
    for id in "${!NODE_KIND[@]}"; do
        [[ $id == "$l" ]] && continue
        if [[ ${NODE_KIND[$id]} == "$want" ]]; then x=$id; else y=$id; fi
    done
    if [[ -n "$x" && -n "$y" ]]; then
        wait_caught_up "$x" "$y"
        kill -STOP "${SERVER_PID[${NODE_KIND[$y]}$y]}"
        sleep 1
    fi
    kill9_server "${NODE_KIND[$l]}$l"
    [[ -n "$x" && -n "$y" ]] && kill -CONT "${SERVER_PID[${NODE_KIND[$y]}$y]}"
    read -r l2 e2 h2 < <(mixed_wait_leader 60 $((e + 1))) ||
        fail "no new leader within 60s of killing ${NODE_KIND[$l]}$l (epoch $e): $(mixed_leader)"
    mixed_start "$l"
    mixed_wait_following "$l" "$e2" 60
    NEW_LEADER=$l2 NEW_EPOCH=$e2
}

# Kills leaders until each side has led in two epochs, asking for the side
# that led less (on a tie, the one not leading); the epoch goes up every
# time.
kill_leaders() {
    local -A led=([o]=0 [k]=0)
    local kills=0 l e h want
    read -r l e h < <(mixed_wait_leader 60 1) || fail "no leader within 60s"
    while :; do
        led[${NODE_KIND[$l]}]=$((led[${NODE_KIND[$l]}] + 1))
        log "epoch $e: ${NODE_KIND[$l]}$l leads (ours led ${led[o]}, Kafka led ${led[k]})"
        ((led[o] >= 2 && led[k] >= 2)) && break
        ((kills < KILLS_MAX)) ||
            fail "after $kills leader kills ours led ${led[o]} and Kafka ${led[k]} epochs (want 2 each)"
        want=o
        if ((led[k] < led[o])) || [[ ${led[k]} == "${led[o]}" && ${NODE_KIND[$l]} == o ]]; then
            want=k
        fi
        kill_leader "$l" "$e" "$want"
        l=$NEW_LEADER e=$NEW_EPOCH
        kills=$((kills + 1))
        [[ ${NODE_KIND[$l]} == "$want" ]] ||
            log "$(kind_name "$want") was to lead, ${NODE_KIND[$l]}$l does"
    done
    log "$kills leader kills: ours led ${led[o]} epochs, Kafka ${led[k]}"
}

# A node of the kind the shape has two of leads (so that each kind has a
# follower to stop): the single one, if it leads, is killed and restarted
# once another node leads.
majority_leads() {
    local l e h
    read -r l e h < <(mixed_wait_leader 30 1) || fail "no leader"
    [[ ${NODE_KIND[$l]} == "$1" ]] || kill_leader "$l" "$e" "$1"
}

# stop_follower <kind>: SIGSTOP a follower of that kind past the fetch
# timeout; once resumed, the leader and its epoch are the same.
stop_follower() {
    local kind=$1 l e h f="" id l2 e2 h2
    read -r l e h < <(mixed_wait_leader 30 1) || fail "no leader before stopping a follower"
    for id in "${!NODE_KIND[@]}"; do
        [[ ${NODE_KIND[$id]} == "$kind" && $id != "$l" ]] && f=$id
    done
    [[ -n "$f" ]] || fail "no $(kind_name "$kind") follower (leader ${NODE_KIND[$l]}$l)"
    log "SIGSTOP $kind$f for ${STOP_SECS}s (leader ${NODE_KIND[$l]}$l, epoch $e)"
    kill -STOP "${SERVER_PID[$kind$f]}"
    sleep "$STOP_SECS"
    kill -CONT "${SERVER_PID[$kind$f]}"
    sleep "$STOP_SECS" # time to time out, pre-vote and come back
    read -r l2 e2 h2 < <(mixed_wait_leader 30 1) || fail "no leader after resuming $kind$f"
    [[ "$l2 $e2" == "$l $e" ]] ||
        fail "resuming the $(kind_name "$kind") follower $kind$f moved the quorum from leader $l epoch $e to leader $l2 epoch $e2"
    mixed_wait_following "$f" "$e" 30
}

# Every node's log is the same bytes up to the leader's high watermark.
check_logs() {
    local l e h id deadline=$((SECONDS + 60)) out sums
    read -r l e h < <(mixed_wait_leader 30 1) || fail "no leader at the end"
    # h is -1 when only Kafka's log named the leader: ask our nodes again.
    while ((h <= 0 && SECONDS < deadline)); do
        sleep 0.5
        read -r l e h < <(mixed_leader)
    done
    ((h > 0)) || fail "no high watermark from our nodes"
    while :; do
        sums=""
        for id in "${!NODE_KIND[@]}"; do
            out="$($PY "$E2E_ROOT/tests/e2e/quorum_probe.py" --dump-log "$(mixed_part_dir "$id")" \
                --upto "$h" 2>&1)" || { sums=""; break; }
            sums+="${NODE_KIND[$id]}$id ${out}"$'\n'
        done
        if [[ -n "$sums" && "$(grep -o 'sha256=[0-9a-f]*' <<<"$sums" | sort -u | wc -l)" == 1 ]]; then
            log "logs identical up to hw $h: $(head -n 1 <<<"$sums")"
            break
        fi
        ((SECONDS < deadline)) || fail "logs differ up to hw $h (leader $l epoch $e): ${sums:-$out}"
        sleep 0.5
    done
    # Our nodes agree on the leader and the epoch, and their high watermark
    # reached the one compared (a follower learns it a fetch later).
    for id in "${!NODE_KIND[@]}"; do
        [[ ${NODE_KIND[$id]} == o ]] || continue
        deadline=$((SECONDS + 10))
        while :; do
            out="$(mixed_probe "localhost:${SERVER_PORT[o$id]}")"
            [[ "$out" =~ \ leader=$l\ epoch=$e\ hw=([0-9]+) ]] && ((BASH_REMATCH[1] >= h)) && break
            ((SECONDS < deadline)) ||
                fail "o$id's DescribeQuorum disagrees with leader $l epoch $e hw >= $h: $out"
            sleep 0.2
        done
        log "DescribeQuorum of o$id: $out"
    done
}

# Kafka's nodes logged no ERROR and no exception, but for one: a follower
# (Kafka's own as well as ours) tells each new leader its endpoint and
# supported kraft.version by UpdateRaftVoter at kraft.version 0 (KIP-853),
# which TestRaftServer does not handle ("Unsupported api key:
# UPDATE_RAFT_VOTER"); counted and shown, not a failure (ours asks a leader
# that answered UNKNOWN_SERVER_ERROR once per epoch, Kafka's every period).
check_kafka_logs() {
    local id bad="" known=0 ours=0 f
    local update='apiKey=UPDATE_RAFT_VOTER|Unsupported api key: UPDATE_RAFT_VOTER'
    for id in "${!NODE_KIND[@]}"; do
        [[ ${NODE_KIND[$id]} == k ]] || continue
        f="$E2E_TMP/k$id.log"
        known=$((known + $(grep -E 'ERROR|Exception' "$f" | grep -cE "$update")))
        ours=$((ours + $(grep -E 'ERROR' "$f" | grep -E "$update" | grep -c 'clientId=raft-server-')))
        bad+="$(grep -nE 'ERROR|Exception' "$f" | grep -vE "$update" | head -n 20 | sed "s/^/k$id.log:/")"
    done
    ((known == 0)) || log "Kafka logged $known ERROR/exception lines for UpdateRaftVoter (TestRaftServer does not handle it; $ours of them for ours, which asks each leader once per epoch)"
    [[ -z "$bad" ]] || { echo "$bad" >&2; fail "Kafka's nodes logged errors (above)"; }
}

# run_shape <label> <base port> <kind of 1> <kind of 2> <kind of 3> <kind of two>
run_shape() {
    local label=$1 base id voters="" t0=$SECONDS
    base="$(pick_ports "$2" 3)" || fail "no free ports"
    NODE_KIND=([1]=$3 [2]=$4 [3]=$5)
    for id in 1 2 3; do
        voters+="${voters:+,}$id@localhost:$((base + id - 1))"
        SERVER_PORT[${NODE_KIND[$id]}$id]=$((base + id - 1))
    done
    for id in 1 2 3; do
        mixed_props "$id" $((base + id - 1)) "$voters"
        mixed_start "$id"
    done
    log "$label: nodes ${NODE_KIND[1]}1 ${NODE_KIND[2]}2 ${NODE_KIND[3]}3 on ports $base.."
    kill_leaders
    majority_leads "$6"
    stop_follower o
    stop_follower k
    check_logs
    check_kafka_logs
    for id in 1 2 3; do
        kill9_server "${NODE_KIND[$id]}$id"
        unset "SERVER_PID[${NODE_KIND[$id]}$id]"
    done
    mkdir -p "$E2E_TMP/shape$2" # the next shape's nodes start afresh
    mv "$E2E_TMP"/[ok][123]* "$E2E_TMP/shape$2/"
    log "$label passed in $((SECONDS - t0))s"
}

run_shape "2 ours + 1 Kafka" 44410 o o k o
run_shape "1 ours + 2 Kafka" 44430 k o k k
pass "both shapes: each side led twice, resumed followers left the leader alone, logs identical"
