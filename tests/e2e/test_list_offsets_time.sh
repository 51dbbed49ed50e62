#!/usr/bin/env bash
# Nothing proportional to the log's size runs on the event loop (issue 19):
# on one node holding a ~50 MB log (kq-load, 50,000 records of 1,000 B),
# one connection pipelines 100 ListOffsets with timestamp -3 (each a scan
# of the whole log, on the thread pool) while another times ApiVersions
# one after the other. Every ListOffsets is answered in order with the same
# offset, and no ApiVersions waits past the fetch timeout (2 s, a generous
# bound: the figure is printed).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_server

LOADGEN="$(dirname "$SERVER_BIN")/kq-load"
[[ -x "$LOADGEN" ]] || fail "$LOADGEN not built (run scripts/build.sh)"
port="$(pick_ports 44100 1)" || fail "no free port"
write_props "$E2E_TMP/s1.properties" 1 "$port" "$E2E_TMP/data1"
start_server s1 "$E2E_TMP/s1.properties" "$port"
wait_leader 30 "$port" > /dev/null || fail "no leader elected within 30s"

timeout 120 "$LOADGEN" --bootstrap "localhost:$port" --records 50000 --record-size 1000 \
    --acks -1 > "$E2E_TMP/load.out" 2> "$E2E_TMP/load.err" ||
    fail "kq-load failed: $(tail -n 3 "$E2E_TMP/load.err")"
bytes=$(du -sb "$E2E_TMP/data1/__cluster_metadata-0" | cut -f1)
log "log holds $bytes bytes"
((bytes > 40000000)) || fail "the log holds only $bytes bytes"

out=$($PY "$E2E_ROOT/tests/e2e/list_offsets_time.py" "$port" 100 2000) ||
    fail "list_offsets_time.py: $out"
log "$out"
server_alive s1 || fail "the server stopped"
pass "100 pipelined ListOffsets -3 on a $((bytes / 1000000)) MB log: $out"
