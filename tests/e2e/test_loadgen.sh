#!/usr/bin/env bash
# Single node, the native load generator (build/kq-load, tools/loadgen):
# 20000 x 100 B records through two idempotent producer instances (each on
# its own driver thread, --threads 2) with
# acks=-1, then a paced run (2000 records/s for 3 s, with a warm-up second
# and --json). Every run must exit 0, the paced one must come close to its
# rate, and kcat must read back at least as many records as were
# acknowledged.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_server

LOADGEN="$(dirname "$SERVER_BIN")/kq-load"
[[ -x "$LOADGEN" ]] || fail "$LOADGEN not built (run scripts/build.sh)"

port="$(pick_ports 31392 1)" || fail "no free port"
write_props "$E2E_TMP/s1.properties" 1 "$port" "$E2E_TMP/data1"
start_server s1 "$E2E_TMP/s1.properties" "$port"
wait_leader 30 "$port" > /dev/null || fail "no leader elected within 30s"

log "kq-load --records 20000 --record-size 100 --acks -1 --idempotent --connections 2 --threads 2"
timeout 60 "$LOADGEN" --bootstrap "localhost:$port" --records 20000 --record-size 100 \
    --acks -1 --idempotent --connections 2 --threads 2 \
    > "$E2E_TMP/run1.out" 2> "$E2E_TMP/run1.err"
rc=$?
cat "$E2E_TMP/run1.out" >&2
[[ $rc -eq 0 ]] || fail "kq-load (fixed count) exited $rc: $(tail -n 3 "$E2E_TMP/run1.err")"
grep -q '^20000 records sent, 20000 acked, 0 failed' "$E2E_TMP/run1.out" ||
    fail "unexpected summary: $(head -n 1 "$E2E_TMP/run1.out")"

log "kq-load --rate 2000 --seconds 3 --warmup-seconds 1 --json"
timeout 60 "$LOADGEN" --bootstrap "localhost:$port" --rate 2000 --seconds 3 \
    --warmup-seconds 1 --record-size 100 --acks -1 --json \
    > "$E2E_TMP/run2.json" 2> "$E2E_TMP/run2.err"
rc=$?
cat "$E2E_TMP/run2.json" >&2
[[ $rc -eq 0 ]] || fail "kq-load (paced) exited $rc: $(tail -n 3 "$E2E_TMP/run2.err")"
read -r acked warm rps < <($PY -c 'import json,sys
d = json.load(open(sys.argv[1]))
assert d["records_failed"] == 0 and d["records_acked"] == d["records_sent"], d
print(d["records_acked"], d["warmup_acked"], d["records_per_s"])' "$E2E_TMP/run2.json") ||
    fail "bad JSON report: $(cat "$E2E_TMP/run2.json")"
# 3 s at 2000/s is 6000 records (plus the first token); allow scheduling slack.
((acked >= 5800 && acked <= 6100)) || fail "paced run acknowledged $acked records, expected ~6000"
((warm >= 1900)) || fail "warm-up acknowledged only $warm records"

want=$((20000 + acked + warm))
timeout 60 kcat -C -q -b "localhost:$port" -t "$TOPIC" -p 0 -o beginning -e -f '%o\n' \
    > "$E2E_TMP/offsets.txt" 2> "$E2E_TMP/consume.err" ||
    fail "kcat consume failed: $(tail -n 3 "$E2E_TMP/consume.err")"
got="$(wc -l < "$E2E_TMP/offsets.txt")"
((got >= want)) || fail "kcat read back $got records, expected at least $want"

pass "20000 + $acked paced (+$warm warm-up) records acknowledged, $got read back ($rps records/s paced)"
