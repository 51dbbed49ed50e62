#!/usr/bin/env bash
# Issue 19: no client can poison, stop or exhaust the quorum. On one node and
# on three, tests/e2e/hostile.py runs each attack (from 127.0.0.2, so that
# per-address limits apply to it) for KQ_HOSTILE_SECS seconds against the
# leader while Kafka's VerifiableProducer writes with acks=all and a consumer
# group reads:
#   control      Produce with a control batch after data batches (refused
#                with INVALID_RECORD, nothing appended)
#   idle         20,000 idle connections (up to the descriptor limit: the
#                servers run with `ulimit -n` KQ_HOSTILE_NOFILE, 4096)
#   fetch        200 connections pipelining 2,000 consumer Fetch of 1 MiB, never reading
#   partial      200 connections announcing 64 MiB frames, sending 1 byte
#   tls          100 stalled TLS handshakes on the SSL listener (legitimate
#                TLS clients get in, the node's log stays small)
#   joingroup    JoinGroup to 5,000 groups with 256 KiB of member metadata
#   commit       OffsetCommit to 5,000 groups (200 B ids, 4,000 B metadata)
#   listoffsets  ListOffsets by timestamp -3, 100 pipelined on 4 connections
#   metrics      slowloris on the metrics endpoint (scrapes still answered)
# Checks per attack: no node stops; VmRSS under KQ_HOSTILE_HWM_MIB; a fresh
# ApiVersions answered within KQ_HOSTILE_PROBE_MS; a new consumer group
# joins and commits during and after; the producer gets acknowledgements;
# on three nodes the leader and epoch do not change. At the end: VmHWM of
# every node under the bound, the reading group made progress, every
# acknowledged record is read back, and (one node) the node restarts over
# its log. A table (attack, check, PASS/FAIL, figure) is printed.
# Topology 3s: three nodes as the seed's files have them, ONE listener per
# node for clients and peers alike (no controller.listener.names), under the
# fetch and idle attacks only: the peers' connections, promoted to the
# quorum's class once a quorum request on them is accepted, keep the leader
# and the replication going (the same checks).
#
# Knobs: KQ_HOSTILE=0 skips it (prints SKIP, exits 0); KQ_HOSTILE_SKIP=a,b
# skips attacks;
# KQ_HOSTILE_ONLY=a,b runs only those; KQ_HOSTILE_NODES ("1 3 3s");
# KQ_HOSTILE_SECS (6); KQ_HOSTILE_HWM_MIB (1024); KQ_HOSTILE_PROBE_MS
# (3000); KQ_HOSTILE_NOFILE (4096); KQ_HOSTILE_IDLE_CONNS (20000).
# Ports 44500-44700 (3s: 44650-44682).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/quorum_lib.sh"

if [[ "${KQ_HOSTILE:-1}" == 0 ]]; then
    skip "KQ_HOSTILE=0"
fi
require_server
source "$(dirname "${BASH_SOURCE[0]}")/tls_lib.sh"
# Only the certificates: the probes speak plaintext to the client listeners.
unset KQ_TLS_CA

ATTACKS=(control idle fetch partial tls joingroup commit listoffsets metrics)
SECS="${KQ_HOSTILE_SECS:-6}"
HWM_MIB="${KQ_HOSTILE_HWM_MIB:-1024}"
PROBE_MS="${KQ_HOSTILE_PROBE_MS:-3000}"
NOFILE="${KQ_HOSTILE_NOFILE:-4096}"
HOSTILE="$E2E_ROOT/tests/e2e/hostile.py"
TABLE="$E2E_TMP/table.tsv"
: > "$TABLE"

# The servers run under a lower descriptor limit (soft and hard) than the
# attacker, so that the idle flood reaches it cheaply; the wrapper execs,
# so the recorded pid is the server's.
REAL_BIN="$SERVER_BIN"
SERVER_BIN="$E2E_TMP/server-nofile.sh"
printf '#!/bin/sh\nulimit -n %s || exit 97\nexec "%s" "$@"\n' "$NOFILE" "$REAL_BIN" > "$SERVER_BIN"
chmod +x "$SERVER_BIN"

selected() {
    local a=$1
    [[ -n "${KQ_HOSTILE_ONLY:-}" && ",$KQ_HOSTILE_ONLY," != *",$a,"* ]] && return 1
    [[ ",${KQ_HOSTILE_SKIP:-}," == *",$a,"* ]] && return 1
    return 0
}

row() { printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" >> "$TABLE"; }

# hostile_config <n> <base>: n nodes, client PLAINTEXT base+i-1, TLS base+10+i-1,
# CONTROLLER base+20+i-1 (the voters), metrics base+30+i-1. With SHARED=1
# the seed's layout instead: one PLAINTEXT listener base+i-1 for clients and
# voters, no controller.listener.names.
hostile_config() {
    local n=$1 base=$2 i voters=""
    QUORUM_BASE=$base
    QUORUM_N=$n
    if ((SHARED)); then
        for ((i = 1; i <= n; i++)); do
            voters+="${voters:+,}localhost:$((base + i - 1))"
        done
        for ((i = 1; i <= n; i++)); do
            cat > "$E2E_TMP/n$i.properties" <<EOF
broker.id=$i
listeners=PLAINTEXT://localhost:$((base + i - 1))
quorum.bootstrap.servers=$voters
quorum.bootstrap.voters=$(seq -s, 1 "$n")
log.dirs=$E2E_TMP/data$i
metrics.port=$((base + 30 + i - 1))
verbose=false
EOF
        done
        return
    fi
    for ((i = 1; i <= n; i++)); do
        voters+="${voters:+,}$i@localhost:$((base + 20 + i - 1))"
    done
    for ((i = 1; i <= n; i++)); do
        cat > "$E2E_TMP/n$i.properties" <<EOF
node.id=$i
listeners=PLAINTEXT://localhost:$((base + i - 1)),TLS://localhost:$((base + 10 + i - 1)),CONTROLLER://localhost:$((base + 20 + i - 1))
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,TLS:SSL,CONTROLLER:PLAINTEXT
controller.listener.names=CONTROLLER
controller.quorum.voters=$voters
log.dirs=$E2E_TMP/data$i
metrics.port=$((base + 30 + i - 1))
ssl.keystore.location=$CERTS/node$i.pem
verbose=false
EOF
    done
}

stop_nodes() {
    local name
    for name in "${!SERVER_PID[@]}"; do
        kill -9 "${SERVER_PID[$name]}" 2>/dev/null
        wait "${SERVER_PID[$name]}" 2>/dev/null
        unset "SERVER_PID[$name]"
        # Each run's logs apart: the next run's log checks see only its own.
        mv "$E2E_TMP/$name.log" "$E2E_TMP/$name-run$SEGMENT.log" 2>/dev/null
    done
}

# prefill <port>: 3,000 records of 1 KiB (3 MiB: more than one Fetch of
# 1 MiB can take), so that fetches and timestamp lookups have a log to read.
prefill() {
    head -c 1024 /dev/zero | tr '\0' 'p' > "$E2E_TMP/kib.txt"
    echo >> "$E2E_TMP/kib.txt"
    for _ in $(seq 1 3000); do cat "$E2E_TMP/kib.txt"; done |
        timeout 60 kcat -P -q -b "localhost:$1" -t "$TOPIC" -p 0 -X acks=all \
            > "$E2E_TMP/prefill.out" 2>&1
}

# run_topology <n> <base> <attack>...: fresh nodes, then the attacks in
# turn. When one stops a node, this run's end checks are made and the
# remaining attacks get fresh nodes (a new segment), so that one
# unprotected hole does not hide the others' results.
run_topology() {
    local n=$1 base=$2 i pids="" logs="" dirs="" quorum="" lport
    shift 2
    SEGMENT=$((SEGMENT + 1))
    local tag="${n}n"
    ((SHARED)) && tag="${n}s"
    rm -rf "$E2E_TMP"/data*
    hostile_config "$n" "$base"
    for ((i = 1; i <= n; i++)); do
        start_server "n$i" "$E2E_TMP/n$i.properties" $((base + i - 1))
    done
    local leader epoch
    read -r leader epoch _ < <(wait_probe_leader 60) || fail "$tag: no leader within 60s"
    log "$tag: leader $leader epoch $epoch (segment $SEGMENT: $*)"
    lport=$((base + leader - 1))
    for ((i = 1; i <= n; i++)); do
        pids+="${pids:+,}${SERVER_PID[n$i]}"
        logs+="${logs:+,}$E2E_TMP/n$i.log"
        dirs+="${dirs:+,}$E2E_TMP/data$i"
    done
    ((n > 1)) && quorum="$(quorum_bootstrap)"
    prefill "$lport" || fail "$tag: prefill failed: $(tail -n 3 "$E2E_TMP/prefill.out")"

    local prod="$E2E_TMP/produced-$tag-$SEGMENT.jsonl"
    start_producer 10000000 100 "$prod"
    wait_acked "$prod" 1 60 || fail "$tag: VerifiableProducer got no acknowledgement"
    local gfile="$E2E_TMP/groupread-$tag-$SEGMENT.txt"
    $PY "$HOSTILE" groupread --bootstrap "$(quorum_bootstrap)" --group "hostile-reader-$SEGMENT" \
        --out "$gfile" 2> "$gfile.err" &
    local reader=$!

    local a extra out rest=()
    while (($# > 0)); do
        a=$1
        shift
        extra=()
        [[ "$a" == idle ]] && extra=(--conns "${KQ_HOSTILE_IDLE_CONNS:-20000}")
        # The attack goes to whoever leads now (a previous attack may have
        # moved the leadership; the rows said so).
        local now
        read -r now _ _ < <(wait_probe_leader 30) || {
            row "$tag" "$a" "leader_before" "FAIL" "no leader within 30s"
            rest=("$@")
            break
        }
        lport=$((base + now - 1))
        log "$tag: attack $a on node $now (${SECS}s)"
        out="$E2E_TMP/attack-$tag-$a"
        $PY "$HOSTILE" attack "$a" --port "$lport" --tls-port $((lport + 10)) \
            --tls-ca "$CERTS/ca.crt" --metrics-port $((lport + 30)) --pids "$pids" \
            --logs "$logs" --data-dirs "$dirs" ${quorum:+--quorum "$quorum"} \
            --bootstrap "$(quorum_bootstrap)" --acks "$prod" --secs "$SECS" \
            --bound-mib "$HWM_MIB" --probe-ms "$PROBE_MS" "${extra[@]}" \
            > "$out.out" 2> "$out.err"
        grep -q '^ROW' "$out.out" ||
            row "$tag" "$a" "attacker" "FAIL" "no rows: $(tail -n 1 "$out.err")"
        sed -n "s/^ROW\t/$tag\t/p" "$out.out" >> "$TABLE"
        for ((i = 1; i <= n; i++)); do
            server_alive "n$i" || { rest=("$@"); break 2; }
        done
    done

    kill -TERM "$PRODUCER_PID" 2>/dev/null
    wait_producer 30
    kill -TERM "$reader" 2>/dev/null
    for ((i = 0; i < 50; i++)); do kill -0 "$reader" 2>/dev/null || break; sleep 0.2; done
    kill_tree "$reader"
    wait "$reader" 2>/dev/null
    end_checks "$n" "$base" "$tag" "end#$SEGMENT" "$leader" "$epoch" "$prod" "$gfile"
    stop_nodes
    ((${#rest[@]} == 0)) || run_topology "$n" "$base" "${rest[@]}"
}

# end_checks <n> <base> <tag> <name> <leader> <epoch> <acks file> <reader summary>
end_checks() {
    local n=$1 base=$2 tag=$3 name=$4 leader=$5 epoch=$6 prod=$7 gfile=$8 i gr hwm why up=1
    gr="$(cat "$gfile" 2>/dev/null)"
    if [[ "$gr" =~ records=([0-9]+)\ commits_ok=([0-9]+) ]] &&
        ((BASH_REMATCH[1] > 0 && BASH_REMATCH[2] > 0)); then
        row "$tag" "$name" "group_reader" "PASS" "$gr"
    else
        row "$tag" "$name" "group_reader" "FAIL" "${gr:-no summary: $(tail -n 1 "$gfile.err")}"
    fi
    for ((i = 1; i <= n; i++)); do
        if ! server_alive "n$i"; then
            up=0
            why="$(grep FATAL "$E2E_TMP/n$i.log" | tail -n 1 | cut -c 1-160)"
            row "$tag" "$name" "alive_n$i" "FAIL" "${why:-no FATAL line: killed past the memory bound}"
            continue
        fi
        hwm="$(awk '/^VmHWM:/ { print int($2 / 1024) }' "/proc/${SERVER_PID[n$i]}/status")"
        if ((hwm <= HWM_MIB)); then
            row "$tag" "$name" "vmhwm_n$i" "PASS" "$hwm MiB (bound $HWM_MIB)"
        else
            row "$tag" "$name" "vmhwm_n$i" "FAIL" "$hwm MiB (bound $HWM_MIB)"
        fi
    done
    if ((n > 1 && up)); then
        local l2="" e2=""
        read -r l2 e2 _ < <(wait_probe_leader 30)
        if [[ "$l2" == "$leader" && "$e2" == "$epoch" ]]; then
            row "$tag" "$name" "leader" "PASS" "$leader/$epoch -> $l2/$e2"
        else
            row "$tag" "$name" "leader" "FAIL" "$leader/$epoch -> ${l2:-none}/${e2:-none}"
        fi
    fi
    local acked sum="" rport=""
    acked="$(acked_count "$prod")"
    for ((i = 1; i <= n; i++)); do
        server_alive "n$i" && { rport=$((base + i - 1)); break; }
    done
    if ((n == 1)); then
        # The node must start again over what the attacks left in its log.
        server_alive n1 && kill9_server n1
        launch_server n1 "${SERVER_PROPS[n1]}" "${SERVER_PORT[n1]}"
        local t
        for ((t = 0; t < 300; t++)); do
            server_alive n1 || break
            wait_probe_leader 1 > /dev/null && break
        done
        if server_alive n1 && wait_probe_leader 1 > /dev/null; then
            row "$tag" "$name" "restart" "PASS" "node 1 restarted over its log"
            rport=$base
        else
            row "$tag" "$name" "restart" "FAIL" \
                "$(grep -i 'fatal\|corrupt' "$E2E_TMP/n1.log" | tail -n 1 | cut -c 1-160)"
        fi
    fi
    if [[ -n "$rport" ]] && timeout 150 kcat -C -q -b "localhost:$rport" -t "$TOPIC" -p 0 \
        -o beginning -e -f '%o\t%s\n' > "$E2E_TMP/consumed.txt" 2> "$E2E_TMP/consumed.err" &&
        sum="$($PY "$E2E_ROOT/tests/e2e/verify.py" "$E2E_TMP/consumed.txt" "$prod" \
            --min-acked 1)"; then
        row "$tag" "$name" "acked_read_back" "PASS" "$acked acked: $sum"
    else
        row "$tag" "$name" "acked_read_back" "FAIL" "$acked acked: ${sum:-no node serves}"
    fi
}

selected_attacks() {
    local a
    for a in "${ATTACKS[@]}"; do
        if selected "$a"; then echo "$a"; else row "-" "$a" "-" "SKIP" "KQ_HOSTILE_SKIP/ONLY"; fi
    done
}

SEGMENT=0
SHARED=0
mapfile -t RUN < <(selected_attacks)
((${#RUN[@]} > 0)) || fail "every attack skipped"
# The shared-listener topology runs only these (the CI budget): the floods
# that fill the clients' response share and pool.
SHARED_RUN=()
for a in "${RUN[@]}"; do
    [[ "$a" == fetch || "$a" == idle ]] && SHARED_RUN+=("$a")
done
for nodes in ${KQ_HOSTILE_NODES:-1 3 3s}; do
    case "$nodes" in
        1) run_topology 1 44500 "${RUN[@]}" ;;
        3) if [[ "${KQ_SKIP_MULTINODE:-0}" == 1 ]]; then
               row 3n all - SKIP "KQ_SKIP_MULTINODE=1"
           else
               run_topology 3 44600 "${RUN[@]}"
           fi ;;
        3s) if [[ "${KQ_SKIP_MULTINODE:-0}" == 1 ]]; then
               row 3s all - SKIP "KQ_SKIP_MULTINODE=1"
           elif ((${#SHARED_RUN[@]} == 0)); then
               row 3s all - SKIP "neither fetch nor idle selected"
           else
               SHARED=1
               run_topology 3 44650 "${SHARED_RUN[@]}"
               SHARED=0
           fi ;;
        *) fail "KQ_HOSTILE_NODES: $nodes (1, 3 or 3s)" ;;
    esac
done

{
    printf 'nodes\tattack\tcheck\tresult\tfigure\n'
    cat "$TABLE"
} | column -t -s $'\t' 2>/dev/null || cat "$TABLE"
failed="$(awk -F'\t' '$4 == "FAIL"' "$TABLE" | wc -l)"
checks="$(awk -F'\t' '$4 == "PASS" || $4 == "FAIL"' "$TABLE" | wc -l)"
((failed == 0)) || fail "$failed of $checks checks failed (table above)"
pass "$checks checks passed"
