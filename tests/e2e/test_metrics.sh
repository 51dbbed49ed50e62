#!/usr/bin/env bash
# Issue 10, part 4: the Prometheus metrics endpoint (docs/metrics.md).
# Three voters with metrics.port set; records produced with kcat; every
# node scraped and parsed with prometheus_client's parser
# (tests/e2e/metrics_check.py): one leader by current_state, agreement on
# current_leader and current_epoch, number_of_voters 3, the high watermark
# past what was produced, fsync and per-API request latency histograms
# well formed. Then bad requests (404, 405, 400 for garbage and an
# oversized head) and a flood of silent connections, after which every
# node still answers and is still alive.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/quorum_lib.sh"
require_multinode
require_server
"$PY" -c 'import prometheus_client.parser' 2>/dev/null ||
    fail "python3 prometheus_client missing (scripts/install-deps.sh --test)"

RECORDS=2000
base="$(pick_ports 35600 6)" || fail "no free ports"
quorum_config "$base" 3
urls=()
for i in 1 2 3; do
    echo "metrics.port=$((base + 2 + i))" >> "$E2E_TMP/n$i.properties"
    urls+=("http://localhost:$((base + 2 + i))/metrics")
done
quorum_start 1 2 3
read -r leader epoch _ < <(wait_probe_leader 60) || fail "no leader within 60s"
log "leader $leader epoch $epoch"

seq 1 "$RECORDS" | timeout 60 kcat -P -q -b "$(quorum_bootstrap)" -t "$TOPIC" -p 0 \
    -X acks=all > "$E2E_TMP/kcat.out" 2>&1 || fail "kcat produce failed: $(tail -n 3 "$E2E_TMP/kcat.out")"

# The followers' high watermark follows on their next fetch.
ok=0
for _ in $(seq 1 20); do
    if "$PY" "$E2E_ROOT/tests/e2e/metrics_check.py" scrape --min-hw "$RECORDS" "${urls[@]}" \
        > "$E2E_TMP/check.out" 2>&1; then
        ok=1
        break
    fi
    sleep 0.5
done
cat "$E2E_TMP/check.out"
((ok)) || fail "metrics check failed: $(tail -n 3 "$E2E_TMP/check.out")"

"$PY" "$E2E_ROOT/tests/e2e/metrics_check.py" abuse "${urls[$((leader - 1))]}" ||
    fail "the endpoint mishandled bad requests or a connection flood"
for i in 1 2 3; do
    server_alive "n$i" || fail "n$i died"
done
"$PY" "$E2E_ROOT/tests/e2e/metrics_check.py" scrape --min-hw "$RECORDS" "${urls[@]}" ||
    fail "the quorum's metrics are wrong after the abuse"
pass "3 voters scraped with prometheus_client; bad requests and a flood survived"
