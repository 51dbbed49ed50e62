#!/usr/bin/env bash
# Prints the failover time (a benchmark figure, not an assertion): three
# voters, a kafka-python producer with acks=all, the leader stopped with
# SIGKILL three times and with SIGTERM three times (scripts/bench-failover.sh).
# The test fails only if a round cannot be measured (no new leader, no
# acknowledged write under it), never because a figure is large.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_multinode
require_server

figures=()
for sig in KILL TERM; do
    base="$(pick_ports 33900 3)" || fail "no free ports"
    out="$E2E_TMP/failover-$sig.txt"
    KQ_SERVER_BIN="$SERVER_BIN" timeout 300 "$E2E_ROOT/scripts/bench-failover.sh" \
        --rounds 3 --signal "$sig" --port "$base" > "$out" 2> "$out.err" ||
        fail "bench-failover --signal $sig failed: $(tail -n 3 "$out.err")"
    cat "$out" >&2
    line="$(grep '^failover_ms ' "$out")" || fail "no failover_ms figure for $sig"
    [[ "$line" == *"n=3"* ]] || fail "not every $sig round was measured: $line"
    figures+=("SIG$sig $line")
done
pass "${figures[*]}"
