# Helpers for the N-node quorum tests, sourced after lib.sh. Nodes are named
# n1..nN, listen on base..base+N-1 and are all voters (quorum.voters form).

QPROBE="$E2E_ROOT/tests/e2e/quorum_probe.py"

# A directory of our own name: on shared machines people clean up
# /tmp/kq-e2e-* by hand while tests run. lib.sh's exit trap removes whatever
# E2E_TMP names when the test ends.
rmdir "$E2E_TMP" 2>/dev/null
E2E_TMP="$(mktemp -d "/tmp/kqq-$E2E_NAME.XXXXXX")"
QUORUM_N=0
QUORUM_BASE=0

# quorum_config <base port> <n> [extra properties line...]
quorum_config() {
    local base=$1 n=$2 i voters=""
    shift 2
    QUORUM_BASE=$base
    QUORUM_N=$n
    for ((i = 1; i <= n; i++)); do
        voters+="${voters:+,}$i@localhost:$((base + i - 1))"
    done
    for ((i = 1; i <= n; i++)); do
        {
            echo "broker.id=$i"
            echo "listeners=PLAINTEXT://localhost:$((base + i - 1))"
            echo "quorum.voters=$voters"
            echo "log.dirs=$E2E_TMP/data$i"
            echo "verbose=false"
            local extra
            for extra in "$@"; do echo "$extra"; done
        } > "$E2E_TMP/n$i.properties"
    done
}

# quorum_start <id>...: starts these nodes (the config must exist).
quorum_start() {
    local i
    for i in "$@"; do
        start_server "n$i" "$E2E_TMP/n$i.properties" $((QUORUM_BASE + i - 1))
    done
}

# host:port of every configured node (dead ones included: the probe skips them).
quorum_addrs() {
    local i
    for ((i = 1; i <= QUORUM_N; i++)); do
        echo "localhost:$((QUORUM_BASE + i - 1))"
    done
}

quorum_bootstrap() {
    local a
    a="$(quorum_addrs | paste -sd,)"
    echo "$a"
}

# Prints "leader epoch hw" as reported by the node that says it leads, or
# fails after <secs>. With <not id> the leader must be someone else.
wait_probe_leader() {
    local secs=$1 not=${2:--1} deadline out addrs
    deadline=$(($(date +%s%N) / 1000000 + secs * 1000))
    while (($(date +%s%N) / 1000000 < deadline)); do
        mapfile -t addrs < <(quorum_addrs)
        out="$($PY "$QPROBE" --leader "${addrs[@]}" 2>/dev/null)"
        set -- $out
        if [[ $# -eq 3 && "$1" != -1 && "$1" != "$not" ]] && server_alive "n$1"; then
            echo "$out"
            return 0
        fi
        sleep 0.05
    done
    return 1
}

# stop_leader_timed <signal> <leader id>: sends the signal to the leader's
# server with a leader-change watcher already polling (every 10 ms), so the
# figure excludes the watcher's start-up. Prints "new_leader epoch ms".
stop_leader_timed() {
    local sig=$1 old=$2 out="$E2E_TMP/leader-change.txt" addrs since wpid
    mapfile -t addrs < <(quorum_addrs)
    $PY "$QPROBE" --wait-leader-change "$old" --timeout 60 "${addrs[@]}" > "$out" &
    wpid=$!
    sleep 0.3
    since="$(date +%s.%N)"
    log "kill -$sig n$old (pid ${SERVER_PID[n$old]})"
    kill -"$sig" "${SERVER_PID[n$old]}"
    wait "$wpid" || return 1
    read -r new epoch _ at < "$out"
    echo "$new $epoch $(awk -v a="$at" -v s="$since" 'BEGIN { printf "%.0f", (a - s) * 1000 }')"
}

acked_count() {
    local c
    c="$(grep -c '"producer_send_success"' "$1" 2>/dev/null)"
    echo "${c:-0}"
}

# wait_acked <file> <count> <secs>
wait_acked() {
    local deadline=$((SECONDS + $3))
    while ((SECONDS < deadline)); do
        (($(acked_count "$1") >= $2)) && return 0
        sleep 0.1
    done
    return 1
}

# start_producer <count> <rate> <out> [producer.config]: VerifiableProducer
# in the background; its pid (the JVM's: kafka-run-class.sh execs java, so
# lib.sh's exit trap kills it) is in PRODUCER_PID.
start_producer() {
    local n=$1 rate=$2 out=$3 cfg=${4:-$E2E_ROOT/config/producer.properties}
    "$E2E_ROOT/bin/kafka-run-class.sh" org.apache.kafka.tools.VerifiableProducer \
        --bootstrap-server "$(quorum_bootstrap)" --topic "$TOPIC" \
        --max-messages "$n" --throughput "$rate" --acks -1 \
        --producer.config "$cfg" > "$out" 2> "$out.err" &
    PRODUCER_PID=$!
}

# wait_producer <secs>: waits for the producer to exit; returns its status,
# or kills it and returns 124 after <secs>.
wait_producer() {
    local deadline=$((SECONDS + $1))
    while kill -0 "$PRODUCER_PID" 2>/dev/null; do
        if ((SECONDS >= deadline)); then
            kill -9 "$PRODUCER_PID" 2>/dev/null
            wait "$PRODUCER_PID" 2>/dev/null
            return 124
        fi
        sleep 0.2
    done
    wait "$PRODUCER_PID"
}

# HW poller writing JSON lines to $E2E_TMP/hw.jsonl; pid in POLLER_PID.
start_hw_poller() {
    local addrs
    mapfile -t addrs < <(quorum_addrs)
    $PY "$QPROBE" --poll 0 --out "$E2E_TMP/hw.jsonl" "${addrs[@]}" &
    POLLER_PID=$!
}

# Stops the poller and checks the leaders' HW never went down; prints the
# checker's summary line.
check_hw_monotonic() {
    kill -TERM "$POLLER_PID" 2>/dev/null
    wait "$POLLER_PID" 2>/dev/null
    $PY "$QPROBE" --check-monotonic "$E2E_TMP/hw.jsonl"
}

# Once all voters report a log end offset equal to the HW, compares every
# node's on-disk batches up to the HW byte for byte (reading the files of
# running servers is fine: the committed prefix is never rewritten).
# Prints "hw=H batches=B"; returns non-zero with a reason on stdout.
compare_committed_logs() {
    local secs=${1:-60} hw i out first="" addrs
    mapfile -t addrs < <(quorum_addrs)
    hw="$($PY "$QPROBE" --wait-synced "$secs" "${addrs[@]}" 2> "$E2E_TMP/synced.err")" || {
        echo "voters not in sync: $(tail -n 1 "$E2E_TMP/synced.err")"
        return 1
    }
    for ((i = 1; i <= QUORUM_N; i++)); do
        out="$($PY "$QPROBE" --dump-log "$E2E_TMP/data$i" --upto "$hw" \
            --out "$E2E_TMP/committed$i.bin")" || {
            echo "node $i: $out"
            return 1
        }
        if [[ -z "$first" ]]; then
            first="$out"
        elif [[ "$out" != "$first" ]]; then
            echo "node $i's committed log differs from node 1's: $out vs $first"
            return 1
        fi
    done
    for ((i = 2; i <= QUORUM_N; i++)); do
        cmp -s "$E2E_TMP/committed1.bin" "$E2E_TMP/committed$i.bin" || {
            echo "node $i's committed bytes differ from node 1's"
            return 1
        }
    done
    echo "hw=$hw ${first%% sha256=*}"
}

# Reads everything back through a consumer and checks the acked values.
verify_readback() {
    local port=$1 prod=$2 min=$3
    consume_all "$port" "$E2E_TMP/consumed.txt"
    $PY "$E2E_ROOT/tests/e2e/verify.py" "$E2E_TMP/consumed.txt" "$prod" --min-acked "$min"
}
