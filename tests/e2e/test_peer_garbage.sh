#!/usr/bin/env bash
# Three voters replicating under load (VerifiableProducer, acks=all) while a
# fake "peer" keeps attacking the leader's listener: random garbage, a
# negative and an oversized frame size, truncated Vote / BeginQuorumEpoch /
# EndQuorumEpoch / Fetch requests, and frames stalled half-way on sockets
# held open for seconds. Replication must go on: every send is acknowledged,
# the leader keeps its epoch, and the leader's log reports the bad frames.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/quorum_lib.sh"
require_multinode
require_server

base="$(pick_ports 33500 3)" || fail "no free ports"
quorum_config "$base" 3
quorum_start 1 2 3
read -r leader epoch _ < <(wait_probe_leader 60) || fail "no leader within 60s"
log "leader $leader (epoch $epoch)"
lport=$((base + leader - 1))

n=${KQ_GARBAGE_RECORDS:-20000}
prod="$E2E_TMP/produced.jsonl"
start_producer "$n" 1000 "$prod"
wait_acked "$prod" 500 60 || fail "the producer got no acks before the attack"

$PY - "$lport" 12 > "$E2E_TMP/attacker.out" 2>&1 <<'PYEOF' &
import os, random, socket, struct, sys, time

port, secs = int(sys.argv[1]), float(sys.argv[2])
rnd = random.Random(1234)
counts = {}

def conn():
    return socket.create_connection(("127.0.0.1", port), timeout=5)

def header_v2(api, ver, corr):
    cid = b"garbage-peer"
    return struct.pack(">hhih", api, ver, corr, len(cid)) + cid + b"\x00"

def send_and_drain(data, hold=0.0):
    s = conn()
    try:
        s.sendall(data)
        if hold:
            time.sleep(hold)
        s.settimeout(2)
        try:
            while s.recv(65536):
                pass
        except OSError:
            pass
    finally:
        s.close()

def bump(k):
    counts[k] = counts.get(k, 0) + 1

def garbage():
    send_and_drain(bytes(rnd.getrandbits(8) for _ in range(rnd.randint(1, 3000))))
    bump("garbage")

def negative():
    send_and_drain(struct.pack(">i", -5) + b"xxxx")
    bump("negative")

def oversized():
    send_and_drain(struct.pack(">i", 0x7FFFFFF0) + b"\x00\x37\x00\x00" + b"y" * 4096)
    bump("oversized")

def truncated(api, ver=0):
    # A compact string that claims 100 bytes and carries 3.
    body = header_v2(api, ver, rnd.randint(1, 1 << 30)) + b"\x65abc"
    send_and_drain(struct.pack(">i", len(body)) + body)
    bump(f"truncated_api{api}")

stalled = []
def stall():
    body = header_v2(1, 4, 7) + b"\x00" * 600
    s = conn()
    s.sendall(struct.pack(">i", len(body)) + body[:len(body) // 2])
    stalled.append((time.time(), s))
    bump("stalled")

def release_stalled(force=False):
    now = time.time()
    for item in list(stalled):
        if force or now - item[0] > 4:
            item[1].close()
            stalled.remove(item)

cases = [garbage, negative, oversized, stall,
         lambda: truncated(52), lambda: truncated(53), lambda: truncated(54),
         lambda: truncated(1, 13)]
end = time.time() + secs
i = 0
while time.time() < end:
    try:
        cases[i % len(cases)]()
    except OSError as e:
        bump(f"error_{type(e).__name__}")
    i += 1
    release_stalled()
    time.sleep(0.05)
release_stalled(force=True)
print(" ".join(f"{k}={v}" for k, v in sorted(counts.items())))
PYEOF
attacker=$!
wait "$attacker"
attack="$(tail -n 1 "$E2E_TMP/attacker.out")"
log "attack done: $attack"
[[ "$attack" == *stalled=* && "$attack" != *error_* ]] ||
    fail "the attacker could not complete its sends: $(tail -n 3 "$E2E_TMP/attacker.out")"
server_alive "n$leader" || fail "the leader died under the attack"
acked_mid=$(acked_count "$prod")
kill -0 "$PRODUCER_PID" 2>/dev/null || fail "the producer finished before the attack ended ($acked_mid acks)"

wait_producer 180
rc=$?
[[ $rc -eq 0 ]] || fail "VerifiableProducer exited $rc: $(tail -n 3 "$prod.err")"
acked=$(acked_count "$prod")
errors=$(grep -c '"producer_send_error"' "$prod")
((acked == n && errors == 0)) ||
    fail "$acked of $n acked, $errors send errors: $(grep -m 2 '"producer_send_error"' "$prod")"

read -r l2 e2 _ < <(wait_probe_leader 10) || fail "no leader after the attack"
[[ "$l2" == "$leader" && "$e2" == "$epoch" ]] ||
    fail "leadership changed under the attack: $leader/$epoch -> $l2/$e2"

nlog="$E2E_TMP/n$leader.log"
for pat in "exceeds socket.request.max.bytes" "malformed"; do
    grep -q "$pat" "$nlog" || fail "the leader's log never mentions \"$pat\""
done
bad=$(grep -c "exceeds socket.request.max.bytes\|malformed\|closing connection\|closed:" "$nlog")

sync="$(compare_committed_logs 60)" || fail "committed logs: $sync"
summary="$(verify_readback "$lport" "$prod" "$n")" || fail "read-back: $summary"
pass "attack ($attack) on leader $leader: epoch unchanged, $bad bad-frame log lines, $acked/$n acked; $sync identical; $summary"
