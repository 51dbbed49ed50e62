#!/usr/bin/env bash
# raft-server takes Kafka 4.4 TestRaftServer's command line (issue 22):
#   raft-server --config F --replica-directory-id ID [--throughput N] [--record-size B]
#  1. bad ids (wrong length, not base64url, padding, the zero Uuid, a
#     reserved one) and a missing value exit 2 naming the reason, before
#     anything is written to the directory;
#  2. an unformatted directory takes the given id (the start line names it)
#     and keeps it in its quorum-state file; restarted with another id it
#     exits 2 naming both, with the same id (and without the flag) it starts;
#  3. a directory formatted by kq-storage (meta.properties directory.id)
#     starts with its own id and exits 2 naming both for another one;
#  4. bin/test-raft-server-start.sh passes the same form through.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_server

port="$(pick_ports 44310 1)" || fail "no free port"
data="$E2E_TMP/data"
props="$E2E_TMP/n1.properties"
write_props "$props" 1 "$port" "$data"

# expect_exit2 <what the message must say> <raft-server arguments...>
# (KQ_START: the command; default the server binary)
expect_exit2() {
    local want=$1 rc
    shift
    timeout 120 ${KQ_START:-"$SERVER_BIN"} "$@" > "$E2E_TMP/out.txt" 2>&1
    rc=$?
    [[ $rc -eq 2 ]] || fail "raft-server $*: exit $rc, want 2: $(cat "$E2E_TMP/out.txt")"
    grep -q -- "$want" "$E2E_TMP/out.txt" ||
        fail "raft-server $*: message lacks '$want': $(cat "$E2E_TMP/out.txt")"
    log "exit 2: $(head -n 1 "$E2E_TMP/out.txt")"
}

id_a=Zm9vYmFyYmF6cXV4MTIzNA   # any non-reserved 16 bytes
id_b=q2lZGG6oT8G0b2KTyb1V3w
for bad in Zm9vYmFyYmF6cXV4MTIzNA== Zm9vYmFyYmF6cXV4MTIzN Zm9vYmFyYmF6cXV4MTIz!A \
    Zm9vYmFyYmF6cXV4MTIzNAAA; do
    expect_exit2 "not a Uuid" --config "$props" --replica-directory-id "$bad"
done
expect_exit2 "the zero Uuid" --config "$props" --replica-directory-id AAAAAAAAAAAAAAAAAAAAAA
expect_exit2 "reserves this id" --config "$props" --replica-directory-id AAAAAAAAAAAAAAAAAAAAAQ
expect_exit2 "needs a Uuid" --config "$props" --replica-directory-id
[[ ! -e "$data" ]] || fail "a refused start created $data"

# start_with <args...>: runs raft-server in the background until it leads.
start_with() {
    SERVER_PORT[n1]=$port
    ID_PORT[1]=$port
    echo "=== start $(date +%T.%N)" >> "$E2E_TMP/n1.log"
    "$SERVER_BIN" "$@" >> "$E2E_TMP/n1.log" 2>&1 &
    SERVER_PID[n1]=$!
    wait_port n1 30
    wait_leader 30 "$port" > /dev/null || fail "no leader within 30s"
}

start_with --config "$props" --replica-directory-id "$id_a" --throughput 50 --record-size 64
grep -q "directory id $id_a" "$E2E_TMP/n1.log" || fail "the start line does not name $id_a"
qs="$data/__cluster_metadata-0/quorum-state"
for _ in $(seq 1 50); do
    grep -q "$id_a" "$qs" 2> /dev/null && break
    sleep 0.1
done
grep -q "$id_a" "$qs" || fail "quorum-state does not keep $id_a: $(cat "$qs")"
kill9_server n1

expect_exit2 "gives this directory the id $id_a" --config "$props" --replica-directory-id "$id_b"
start_with --config "$props" --replica-directory-id "$id_a"
kill9_server n1
start_with "$props"
[[ "$(grep -c "directory id $id_a" "$E2E_TMP/n1.log")" -eq 3 ]] ||
    fail "a restart changed the directory id: $(grep 'directory id' "$E2E_TMP/n1.log")"
kill9_server n1

# A formatted directory: meta.properties names its id.
fdata="$E2E_TMP/formatted"
fprops="$E2E_TMP/f1.properties"
write_props "$fprops" 1 "$port" "$fdata"
echo "cluster.id=MkU3OEVBNTcwNTJENDM2Qg" >> "$fprops"
"$E2E_ROOT/bin/kafka-storage.sh" format --config "$fprops" --cluster-id MkU3OEVBNTcwNTJENDM2Qg \
    > "$E2E_TMP/format.txt" 2>&1 || fail "kafka-storage.sh format: $(cat "$E2E_TMP/format.txt")"
own="$(sed -n 's/^directory.id=//p' "$fdata/meta.properties")"
[[ ${#own} -eq 22 ]] || fail "no directory.id in $fdata/meta.properties"
other=$id_a
[[ "$own" != "$other" ]] || other=$id_b
expect_exit2 "meta.properties gives this directory the id $own" \
    --config "$fprops" --replica-directory-id "$other"
start_with --config "$fprops" --replica-directory-id "$own"
kill9_server n1

KQ_START="$E2E_ROOT/bin/test-raft-server-start.sh" expect_exit2 "not a Uuid" --config "$props" \
    --replica-directory-id nope
pass "bad ids refused with exit 2, the given id taken, kept and checked against the directory's"
