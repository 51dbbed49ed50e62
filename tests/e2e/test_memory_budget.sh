#!/usr/bin/env bash
# One memory budget for everything held for clients (issue 19 items 3-5):
#  1. 40 connections each pipeline 2,000 consumer Fetch requests of 1 MiB
#     (80 GB asked) over a log of about 8 MB and never read: the answers
#     waiting together stay within queued.max.response.bytes (64 MiB here),
#     the heaviest connections stop being read, and a fresh ApiVersions and
#     Metadata are answered; VmHWM stays under FETCH_BOUND_MIB;
#  2. 4 more connections announce 64 MiB frames and send 1 byte: announced
#     sizes reserve nothing, a fresh ApiVersions is answered;
#  3. after they close, a produce and a consume of everything work.
# Memory assertions are on VmHWM (/proc/<pid>/status); the figures are printed.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_server

FETCH_BOUND_MIB=128 # 64 MiB response budget + request buffers + the rest of the server

port="$(pick_ports 42010 1)" || fail "no free port"
write_props "$E2E_TMP/s1.properties" 1 "$port" "$E2E_TMP/data1"
echo "queued.max.response.bytes=67108864" >> "$E2E_TMP/s1.properties"
start_server s1 "$E2E_TMP/s1.properties" "$port"
wait_leader 30 "$port" > /dev/null || fail "no leader elected within 30s"
pid="${SERVER_PID[s1]}"

pad="$(printf '%0990d' 0)"
for ((i = 0; i < 8000; i++)); do echo "$i-$pad"; done > "$E2E_TMP/in.txt"
timeout 60 kcat -P -q -b "localhost:$port" -t "$TOPIC" -p 0 -X acks=all \
    -X batch.num.messages=50 < "$E2E_TMP/in.txt" 2> "$E2E_TMP/produce.err" ||
    fail "kcat produce failed: $(tail -n 3 "$E2E_TMP/produce.err")"

log "40 connections x 2,000 pipelined Fetch of 1 MiB, unread (bound: VmHWM < $FETCH_BOUND_MIB MiB)"
out="$(timeout 120 $PY "$E2E_ROOT/tests/e2e/memory_budget.py" "$port" "$pid" "$FETCH_BOUND_MIB" \
    --conns 40 --requests 2000 --max-bytes 1048576 --announcers 4 \
    --announce-bytes 67108864 2>&1)" || fail "memory budget: $out"
server_alive s1 || fail "server died under 40 unread Fetch pipelines"
log "figures: $out"

echo "after-flood" | timeout 30 kcat -P -q -b "localhost:$port" -t "$TOPIC" -p 0 -X acks=all \
    2> "$E2E_TMP/produce2.err" || fail "produce after the flood failed: $(tail -n 3 "$E2E_TMP/produce2.err")"
timeout 60 kcat -C -q -b "localhost:$port" -t "$TOPIC" -p 0 -o beginning -c 8001 -e \
    -f '%s\n' > "$E2E_TMP/out.txt" 2>/dev/null
[[ "$(wc -l < "$E2E_TMP/out.txt")" -eq 8001 ]] ||
    fail "consume after the flood returned $(wc -l < "$E2E_TMP/out.txt") of 8001 records"
[[ "$(tail -n 1 "$E2E_TMP/out.txt")" == after-flood ]] || fail "the record produced after the flood is missing"

pass "$out (bound ${FETCH_BOUND_MIB} MiB)"
