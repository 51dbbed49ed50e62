# Helpers for the on-disk damage tests (torn tail, bit flips), sourced after
# lib.sh.

SEGTOOL="$E2E_ROOT/tests/e2e/seg_tool.py"
PARTITION=__cluster_metadata-0

# try_start <name> <props> <port> [secs]: like start_server, but a server
# that exits during startup is not a failure: returns 0 once it listens, 1
# if it exited (its status in TRY_RC), 2 if it neither listened nor exited.
try_start() {
    local name=$1 props=$2 port=$3 secs=${4:-30} i
    launch_server "$name" "$props" "$port"
    TRY_RC=""
    for ((i = 0; i < secs * 10; i++)); do
        if ! kill -0 "${SERVER_PID[$name]}" 2>/dev/null; then
            wait "${SERVER_PID[$name]}"
            TRY_RC=$?
            return 1
        fi
        port_in_use "$port" && return 0
        sleep 0.1
    done
    return 2
}

# The lines of <name>.log written since its last start.
last_run_log() {
    awk '/^=== start /{buf=""} {buf = buf $0 "\n"} END {printf "%s", buf}' "$E2E_TMP/$1.log"
}

# Stops a server with SIGTERM (graceful: everything flushed) and waits.
term_server() {
    local name=$1 pid=${SERVER_PID[$1]} i
    kill -TERM "$pid" 2>/dev/null
    for ((i = 0; i < 300; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -0 "$pid" 2>/dev/null && fail "server $name did not stop within 30s of SIGTERM"
    wait "$pid" 2>/dev/null
}

# Whether the storage keeps a recovery point (the issue-8 storage fix).
# has_recovery_point <log dir>: recovery-point-offset-checkpoint (or any
# recovery-point* file) in its partition directory.
has_recovery_point() {
    compgen -G "$1/$PARTITION/recovery-point*" > /dev/null
}

# produce_acked <bootstrap> <label> <count> <out>: kafka-python, acks=all,
# small batches (about five 170-byte records each, so a 16 KiB segment holds
# many), retries with one request in flight (so a retried batch cannot land
# behind a later one); appends "offset<TAB>value" of every acknowledged
# record to <out>.
produce_acked() {
    timeout 120 $PY - "$1" "$TOPIC" "$2" "$3" >> "$4" 2> "$E2E_TMP/produce.err" <<'PYEOF' ||
import sys
from kafka import KafkaProducer
bootstrap, topic, label, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
p = KafkaProducer(bootstrap_servers=bootstrap.split(","), acks="all", linger_ms=2,
                  batch_size=1024, request_timeout_ms=30000, retries=50,
                  retry_backoff_ms=200, max_in_flight_requests_per_connection=1)
pad = "p" * 150
futs = [(f"{label}-{i}-{pad}", p.send(topic, value=f"{label}-{i}-{pad}".encode(), partition=0))
        for i in range(n)]
for v, f in futs:
    print(f"{f.get(timeout=60).offset}\t{v}")
p.close(timeout=30)
PYEOF
        fail "producing $2: $(tail -n 3 "$E2E_TMP/produce.err")"
}
