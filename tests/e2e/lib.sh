# Shared helpers for the end-to-end tests (sourced, not run). Each test gets
# a fresh temporary directory, starts real server processes on loopback ports
# and kills every server it started when it exits.
#
# Environment:
#   KQ_SERVER_BIN       server binary (default <repo>/build/raft-server)
#   KQ_KEEP_TMP=1       keep the temporary directory (logs) after the test
#   KQ_SKIP_MULTINODE=1 multi-node tests print SKIP and exit 0

E2E_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
E2E_NAME="$(basename "${0%.*}")"
SERVER_BIN="${KQ_SERVER_BIN:-$E2E_ROOT/build/raft-server}"
PY=/usr/bin/python3
TOPIC=__cluster_metadata

E2E_TMP="$(mktemp -d "/tmp/kq-e2e-$E2E_NAME.XXXXXX")"
declare -A SERVER_PID=()
declare -A SERVER_PORT=()
declare -A SERVER_PROPS=()
declare -A ID_PORT=()

# Kills a process and everything below it (a `timeout` wrapper's child, the
# JVM under kafka-run-class.sh), children first.
kill_tree() {
    local c
    for c in $(pgrep -P "$1" 2>/dev/null); do
        kill_tree "$c"
    done
    kill -9 "$1" 2>/dev/null || true
}

e2e_cleanup() {
    local rc=$?
    local name
    for name in "${!SERVER_PID[@]}"; do
        kill -9 "${SERVER_PID[$name]}" 2>/dev/null || true
        wait "${SERVER_PID[$name]}" 2>/dev/null || true
    done
    # Helper processes started in the background by the test itself.
    local p
    for p in $(jobs -p); do
        kill_tree "$p"
    done
    if [[ "${KQ_KEEP_TMP:-0}" == 1 || ( $rc -ne 0 && -n "${CI:-}" ) ]]; then
        echo "$E2E_NAME: logs kept in $E2E_TMP" >&2
    else
        rm -rf "$E2E_TMP"
    fi
    exit "$rc"
}
trap e2e_cleanup EXIT
trap 'exit 130' INT TERM

log() { echo "[$E2E_NAME $(date +%H:%M:%S)] $*" >&2; }

pass() {
    echo "PASS $E2E_NAME: $*"
    exit 0
}

fail() {
    echo "FAIL $E2E_NAME: $*"
    local name
    for name in "${!SERVER_PID[@]}"; do
        if [[ -f "$E2E_TMP/$name.log" ]]; then
            echo "--- last lines of $name.log" >&2
            tail -n 20 "$E2E_TMP/$name.log" >&2
        fi
    done
    exit 1
}

skip() {
    echo "SKIP $E2E_NAME: $*"
    exit 0
}

require_server() {
    [[ -x "$SERVER_BIN" ]] || fail "server binary $SERVER_BIN not built (run scripts/build.sh)"
}

require_multinode() {
    if [[ "${KQ_SKIP_MULTINODE:-0}" == 1 ]]; then
        skip "multi-node tests disabled (KQ_SKIP_MULTINODE=1)"
    fi
}

port_in_use() {
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# Prints the first base port >= $1 such that base..base+$2-1 are all free.
pick_ports() {
    local base=$1 count=$2 tries=0 i busy
    while ((tries < 50)); do
        busy=0
        for ((i = 0; i < count; i++)); do
            if port_in_use $((base + i)); then
                busy=1
                break
            fi
        done
        if ((busy == 0)); then
            echo "$base"
            return 0
        fi
        base=$((base + count + 7))
        tries=$((tries + 1))
    done
    echo "no free ports found from $1" >&2
    return 1
}

# write_props <file> <id> <port> <logdir> [voters]
# voters is a quorum.voters value; without it the node is a single voter.
write_props() {
    local file=$1 id=$2 port=$3 dir=$4 voters=${5:-"$2@localhost:$3"}
    cat > "$file" <<EOF
broker.id=$id
listeners=PLAINTEXT://localhost:$port
quorum.voters=$voters
log.dirs=$dir
verbose=false
EOF
}

# launch_server <name> <props file> <port>: starts it in the background,
# logging to $E2E_TMP/<name>.log (appending across restarts); no wait.
launch_server() {
    local name=$1 props=$2 port=$3
    SERVER_PROPS[$name]=$props
    SERVER_PORT[$name]=$port
    local id
    id="$(sed -n 's/^[[:space:]]*\(broker\|node\)\.id[[:space:]]*[=:][[:space:]]*\([0-9]\+\).*/\2/p' "$props" | tail -n 1)"
    [[ -n "$id" ]] && ID_PORT[$id]=$port
    echo "=== start $(date +%T.%N)" >> "$E2E_TMP/$name.log"
    "$SERVER_BIN" "$props" >> "$E2E_TMP/$name.log" 2>&1 &
    SERVER_PID[$name]=$!
}

# start_server <name> <props file> <port>: launch_server, then waits for
# the port.
start_server() {
    launch_server "$@"
    wait_port "$1" 30
}

restart_server() {
    start_server "$1" "${SERVER_PROPS[$1]}" "${SERVER_PORT[$1]}"
}

wait_port() {
    local name=$1 secs=$2 i
    for ((i = 0; i < secs * 10; i++)); do
        if ! kill -0 "${SERVER_PID[$name]}" 2>/dev/null; then
            fail "server $name exited during startup"
        fi
        if port_in_use "${SERVER_PORT[$name]}"; then
            return 0
        fi
        sleep 0.1
    done
    fail "server $name did not listen on port ${SERVER_PORT[$name]} within ${secs}s"
}

kill9_server() {
    local name=$1
    log "kill -9 $name (pid ${SERVER_PID[$name]})"
    kill -9 "${SERVER_PID[$name]}" 2>/dev/null || true
    wait "${SERVER_PID[$name]}" 2>/dev/null || true
}

server_alive() {
    kill -0 "${SERVER_PID[$1]}" 2>/dev/null
}

# Prints the partition leader id reported by the broker at port $1 (-1 if
# none or unreachable).
leader_at() {
    local out
    out="$(timeout 10 kcat -L -b "localhost:$1" -t "$TOPIC" -m 3 2>/dev/null)" || true
    local l
    l="$(sed -n 's/.*partition 0, leader \(-\?[0-9]\+\),.*/\1/p' <<<"$out" | head -n 1)"
    echo "${l:--1}"
}

# wait_leader <secs> <port>...: waits until the brokers at the given ports
# agree on a leader that is one of them and prints its id.
wait_leader() {
    local secs=$1
    shift
    local deadline=$((SECONDS + secs)) p l first
    while ((SECONDS < deadline)); do
        first=""
        for p in "$@"; do
            l="$(leader_at "$p")"
            if [[ "$l" == -1 || ( -n "$first" && "$l" != "$first" ) ]]; then
                first=""
                break
            fi
            first=$l
        done
        # The leader must be one of the brokers asked (not a dead node
        # they still remember).
        if [[ -n "$first" && " $* " == *" ${ID_PORT[$first]:-none} "* ]]; then
            echo "$first"
            return 0
        fi
        sleep 0.3
    done
    return 1
}

# Reads the whole partition from the broker at port $1 into file $2 as
# "offset<TAB>value" lines.
consume_all() {
    local port=$1 out=$2
    timeout 120 kcat -C -q -b "localhost:$port" -t "$TOPIC" -p 0 -o beginning -e \
        -f '%o\t%s\n' > "$out" 2> "$out.err" ||
        fail "kcat consume failed: $(tail -n 3 "$out.err")"
}

verifiable_producer() {
    "$E2E_ROOT/bin/kafka-run-class.sh" org.apache.kafka.tools.VerifiableProducer "$@"
}

# start_quorum <base port>: three voters (ids 1..3 on base..base+2) configured
# like config/raft-quorum-*.properties (bootstrap servers + voter ids); a
# test that defines e2e_node_props <id> gets its output appended to each
# node's properties.
start_quorum() {
    local base=$1 i servers=""
    for i in 1 2 3; do
        servers+="${servers:+,}localhost:$((base + i - 1))"
    done
    for i in 1 2 3; do
        cat > "$E2E_TMP/n$i.properties" <<EOF2
broker.id=$i
listeners=PLAINTEXT://localhost:$((base + i - 1))
quorum.bootstrap.servers=$servers
quorum.bootstrap.voters=1,2,3
log.dirs=$E2E_TMP/data$i
verbose=false
zookeeper.connect=localhost:2181
EOF2
        # More properties of the calling test, per node (a function it may define).
        if declare -F e2e_node_props > /dev/null; then
            e2e_node_props "$i" >> "$E2E_TMP/n$i.properties"
        fi
    done
    for i in 1 2 3; do
        start_server "n$i" "$E2E_TMP/n$i.properties" $((base + i - 1))
    done
}

# Ports of the running servers, for wait_leader.
live_ports() {
    local name
    for name in "${!SERVER_PID[@]}"; do
        server_alive "$name" && echo "${SERVER_PORT[$name]}"
    done
}
