#!/usr/bin/env bash
# Issue 9: bad input against TLS listeners. A three-voter quorum with a
# mutual-TLS controller listener (voter principals) and a TLS client
# listener. Each of these is refused with one log line naming the peer and
# the reason, and a good TLS client is served after each:
#   - a plaintext Kafka request (ApiVersions) to the TLS client port;
#   - a client certificate that has expired, and one from an untrusted CA,
#     on the controller listener (ssl.client.auth=required);
#   - a forged replica Fetch on the controller listener with a valid client
#     (non-voter) certificate: CLUSTER_AUTHORIZATION_FAILED (31);
#   - a voter's certificate claiming to be another voter: 31 as well;
#   - a keystore file that does not exist: the daemon exits 2 with one
#     "file:line: key: reason" line.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/quorum_lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/tls_lib.sh"
require_multinode
require_server

base="$(pick_ports 35300 3)" || fail "no free ports"
cbase="$(pick_ports $((base + 40)) 3)" || fail "no free controller ports"
tls_quorum_config "$base" "$cbase"
quorum_start 1 2 3
read -r leader epoch _ < <(wait_probe_leader 60) || fail "no leader within 60s (over TLS)"
lport=$((cbase + leader - 1))
llog="$E2E_TMP/n$leader.log"
log "leader $leader epoch $epoch; its controller listener on $lport"

good_client() { # $1: what came before
    local out
    out="$(timeout 20 kcat "${KCAT_TLS[@]}" -L -b "localhost:$base" -t "$TOPIC" -m 10 2>&1)" ||
        fail "after $1: a good TLS client was not served: $out"
    grep -q "3 brokers" <<<"$out" || fail "after $1: metadata without 3 brokers: $out"
}

# expect_log <file> <count before> <pattern> <what>: a new line matches.
expect_log() {
    local now
    now="$(grep -c -- "$3" "$1")"
    ((now > $2)) || fail "$4: no log line matching '$3' in $(basename "$1")"
}
count() { grep -c -- "$2" "$1"; }

good_client "start"

# 1. Plaintext ApiVersions to the TLS client port: no Kafka answer, closed.
pat="the peer does not speak TLS"
c0="$(count "$E2E_TMP/n1.log" "$pat")"
got="$($PY - "$base" <<'PYEOF'
import socket, struct, sys
s = socket.create_connection(("localhost", int(sys.argv[1])), timeout=10)
client = b"plain"
frame = struct.pack(">hhih", 18, 0, 4242, len(client)) + client
s.sendall(struct.pack(">i", len(frame)) + frame)
data = b""
try:
    while True:
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
except OSError:
    pass
# A Kafka answer would start with a size and correlation id 4242.
print("answered" if len(data) >= 8 and struct.unpack(">i", data[4:8])[0] == 4242 else "closed")
PYEOF
)"
[[ "$got" == closed ]] || fail "a plaintext ApiVersions on the TLS port was $got"
expect_log "$E2E_TMP/n1.log" "$c0" "connection 127.0.0.1:[0-9]*: TLS handshake failed: .*$pat" \
    "plaintext to the TLS port"
good_client "a plaintext request"

# 2. An expired client certificate on the controller listener.
c0="$(count "$llog" "certificate has expired")"
got="$(KQ_TLS_CERT="$CERTS/expired.pem" $PY "$E2E_ROOT/tests/e2e/forge_fetch.py" \
    "localhost:$lport" 2 0 "$epoch" kq-raft-test-cluster)"
[[ "$got" == tls-refused ]] || fail "an expired client certificate got '$got', want tls-refused"
expect_log "$llog" "$c0" "connection 127.0.0.1:[0-9]*: TLS handshake failed: .*certificate has expired" \
    "expired certificate"
good_client "an expired certificate"

# 3. A client certificate from an untrusted CA.
pat="verify: unable to get local issuer certificate"
c0="$(count "$llog" "$pat")"
got="$(KQ_TLS_CERT="$CERTS/rogue.pem" $PY "$E2E_ROOT/tests/e2e/forge_fetch.py" \
    "localhost:$lport" 2 0 "$epoch" kq-raft-test-cluster)"
[[ "$got" == tls-refused ]] || fail "an untrusted client certificate got '$got', want tls-refused"
expect_log "$llog" "$c0" "connection 127.0.0.1:[0-9]*: TLS handshake failed: .*$pat" "untrusted CA"
good_client "an untrusted certificate"

# 4. A valid client (non-voter) certificate forging a replica Fetch.
other=$((leader % 3 + 1))
pat="as replica $other from User:CN=client,OU=clients,O=kq, not a voter's certificate; refused"
c0="$(count "$llog" "$pat")"
got="$(KQ_TLS_CERT="$CERTS/client.pem" $PY "$E2E_ROOT/tests/e2e/forge_fetch.py" \
    "localhost:$lport" "$other" 100 "$epoch" kq-raft-test-cluster)"
[[ "$got" == 31 ]] || fail "a forged replica Fetch with a client certificate answered '$got', want 31"
expect_log "$llog" "$c0" "$pat" "forged fetch with a client certificate"
good_client "a forged fetch with a client certificate"

# 5. A voter's certificate claiming another voter's id.
third=$((other % 3 + 1))
[[ $third == "$leader" ]] && third=$((third % 3 + 1))
pat="as replica $other from User:node$third, the certificate of another voter; refused"
c0="$(count "$llog" "$pat")"
got="$(KQ_TLS_CERT="$CERTS/node$third.pem" $PY "$E2E_ROOT/tests/e2e/forge_fetch.py" \
    "localhost:$lport" "$other" 100 "$epoch" kq-raft-test-cluster)"
[[ "$got" == 31 ]] || fail "voter $third's certificate claiming voter $other answered '$got', want 31"
expect_log "$llog" "$c0" "$pat" "a voter claiming another voter"
good_client "a voter claiming another voter"

# The quorum still works: an acks=all write commits through the voters' TLS channels.
echo "after-bad-input" | timeout 30 kcat "${KCAT_TLS[@]}" -P -b "$(quorum_bootstrap)" -t "$TOPIC" \
    -p 0 -X acks=all -X message.timeout.ms=20000 || fail "acks=all produce failed after the bad input"

# 6. A missing keystore file: exit 2, one line naming file, line, key and reason.
bad="$E2E_TMP/missing-keystore.properties"
sed "s|^ssl.keystore.location=.*|ssl.keystore.location=$CERTS/no-such-keystore.pem|" \
    "$E2E_TMP/n1.properties" > "$bad"
line="$(grep -n '^ssl.keystore.location=' "$bad" | cut -d: -f1)"
"$SERVER_BIN" "$bad" > "$E2E_TMP/missing.out" 2> "$E2E_TMP/missing.err"
rc=$?
[[ $rc == 2 ]] || fail "a missing keystore exited $rc, want 2: $(cat "$E2E_TMP/missing.err")"
want="raft-server: $bad:$line: ssl.keystore.location: cannot read $CERTS/no-such-keystore.pem: No such file or directory"
[[ "$(cat "$E2E_TMP/missing.err")" == "$want" ]] ||
    fail "missing keystore: got '$(cat "$E2E_TMP/missing.err")', want '$want'"
[[ -e "$E2E_TMP/data1/__cluster_metadata-0" ]] || fail "n1's log directory vanished"
good_client "a missing keystore"
pass "plaintext, expired and untrusted certificates, forged fetches (client and voter certificates), missing keystore: each refused and logged; good clients served"
