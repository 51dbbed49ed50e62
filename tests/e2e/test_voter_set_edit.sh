#!/usr/bin/env bash
# A node whose configured voters differ from the voters its quorum-state file
# recorded refuses to start: one message naming both sets and the file, exit
# status 2, the log directory untouched (issue 8: an edited quorum.voters on
# some nodes would give two majorities).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_server
require_multinode

base="$(pick_ports 31200 5)" || fail "no free ports"
dir="$E2E_TMP/logs-1"
props="$E2E_TMP/n1.properties"
three="1@localhost:$base,2@localhost:$((base + 1)),3@localhost:$((base + 2))"
write_props "$props" 1 "$base" "$dir" "$three"
write_props "$E2E_TMP/n2.properties" 2 "$((base + 1))" "$E2E_TMP/logs-2" "$three"
start_server n1 "$props" "$base"
start_server n2 "$E2E_TMP/n2.properties" "$((base + 1))"
# Two of three elect a leader and store their quorum state; wait for it.
for ((i = 0; i < 200; i++)); do
    [[ -s "$dir/__cluster_metadata-0/quorum-state" ]] && break
    sleep 0.1
done
[[ -s "$dir/__cluster_metadata-0/quorum-state" ]] || fail "no quorum-state written"
kill9_server n1
kill9_server n2
before="$(cd "$dir" && find . -type f -exec sha256sum {} + | sort)"

five="$three,4@localhost:$((base + 3)),5@localhost:$((base + 4))"
write_props "$props" 1 "$base" "$dir" "$five"
timeout 20 "$SERVER_BIN" "$props" > "$E2E_TMP/edit.out" 2> "$E2E_TMP/edit.err"
rc=$?
[[ $rc -eq 2 ]] || fail "edited voters: exit status $rc, expected 2 ($(head -n 3 "$E2E_TMP/edit.err"))"
grep -qF "configured voters {1,2,3,4,5} differ from the voters {1,2,3}" "$E2E_TMP/edit.err" ||
    fail "message does not name both sets: $(head -n 3 "$E2E_TMP/edit.err")"
grep -qF "$dir/__cluster_metadata-0/quorum-state" "$E2E_TMP/edit.err" ||
    fail "message does not name the file: $(head -n 3 "$E2E_TMP/edit.err")"
after="$(cd "$dir" && find . -type f -exec sha256sum {} + | sort)"
[[ "$before" == "$after" ]] || fail "the refused start changed the log directory"

# The original set still starts.
write_props "$props" 1 "$base" "$dir" "$three"
start_server n1 "$props" "$base"
server_alive n1 || fail "the original voter set no longer starts"
pass "voters {1,2,3} -> {1,2,3,4,5} refused with exit 2 naming both sets and the file; directory untouched; {1,2,3} starts again"
