#!/usr/bin/env bash
# Malformed network input (garbage, oversized, truncated and empty frames,
# bad headers, an unknown API key, an unsupported ApiVersions version) must
# not stop the server: it keeps serving metadata, produce and fetch. Bad
# configuration files must make it exit with status 2 and a
# "<file>:<line>: <key>: <reason>" message, before creating the log dir.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_server

# --- bad configuration files -------------------------------------------
# expect_config_error <name> <expected message fragment> <properties text>
expect_config_error() {
    local name=$1 want=$2 text=$3
    local file="$E2E_TMP/$name.properties"
    printf '%s' "$text" > "$file"
    timeout 20 "$SERVER_BIN" "$file" > "$E2E_TMP/$name.out" 2> "$E2E_TMP/$name.err"
    local rc=$?
    [[ $rc -eq 2 ]] || fail "config $name: exit status $rc, expected 2"
    grep -qF -- "$want" "$E2E_TMP/$name.err" ||
        fail "config $name: stderr lacks \"$want\": $(head -n 3 "$E2E_TMP/$name.err")"
    [[ ! -e "$E2E_TMP/never" ]] || fail "config $name: log dir was created"
}
f="$E2E_TMP"
expect_config_error num "$f/num.properties:3: quorum.election.timeout.ms: not a number: \"abc\"" \
    $'broker.id=1\nlog.dirs='"$f"$'/never\nquorum.election.timeout.ms=abc\n'
expect_config_error ssl "$f/ssl.properties:2: ssl.keystore.location: required for a TLS listener (listener SSL)" \
    $'broker.id=1\nlisteners=SSL://localhost:19999\nlog.dirs='"$f"$'/never\n'
expect_config_error noid "$f/noid.properties: broker.id: required" \
    $'listeners=PLAINTEXT://localhost:19999\nlog.dirs='"$f"$'/never\n'
expect_config_error notvoter "$f/notvoter.properties:2: quorum.voters: this node's id 5" \
    $'broker.id=5\nquorum.voters=1@localhost:19999\nlog.dirs='"$f"$'/never\n'
expect_config_error counts "$f/counts.properties:4: quorum.bootstrap.voters: 2 voter ids" \
    $'broker.id=1\nlog.dirs='"$f"$'/never\nquorum.bootstrap.servers=localhost:1\nquorum.bootstrap.voters=1,2\n'
timeout 20 "$SERVER_BIN" "$f/does-not-exist.properties" > /dev/null 2> "$f/missing.err"
rc=$?
[[ $rc -eq 2 ]] || fail "missing config file: exit status $rc, expected 2"
grep -qF "$f/does-not-exist.properties" "$f/missing.err" ||
    fail "missing config file: message does not name the file: $(head -n 2 "$f/missing.err")"
log "bad config files: exit 2 with file:line:key messages"

# --- bad frames ----------------------------------------------------------
port="$(pick_ports 31592 1)" || fail "no free port"
write_props "$E2E_TMP/s1.properties" 1 "$port" "$E2E_TMP/data1"
start_server s1 "$E2E_TMP/s1.properties" "$port"
wait_leader 30 "$port" > /dev/null || fail "no leader elected within 30s"

still_serving() {
    server_alive s1 || fail "server died after: $1"
    timeout 10 kcat -L -b "localhost:$port" -t "$TOPIC" 2>/dev/null | grep -q "partition 0" ||
        fail "metadata request failed after: $1"
}

cases=(garbage oversized negative truncated empty short_header bad_client_id
       unknown_api apiversions_v99 metadata_bad_body produce_bad_records flood)
for c in "${cases[@]}"; do
    out="$(timeout 30 $PY - "$port" "$c" 2>&1 <<'PYEOF'
import os, socket, struct, sys

port, case = int(sys.argv[1]), sys.argv[2]

def conn():
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    return s

def header(api_key, version, corr, client=b"e2e"):
    return struct.pack(">hhih", api_key, version, corr, len(client)) + client

def frame(body):
    return struct.pack(">i", len(body)) + body

def recv_frame(s):
    """Returns the response payload, or None when the server closed."""
    buf = b""
    try:
        while len(buf) < 4:
            chunk = s.recv(4 - len(buf))
            if not chunk:
                return None
            buf += chunk
        n = struct.unpack(">i", buf)[0]
        data = b""
        while len(data) < n:
            chunk = s.recv(n - len(data))
            if not chunk:
                return None
            data += chunk
        return data
    except (socket.timeout, ConnectionResetError):
        return None

s = conn()
if case == "garbage":
    s.sendall(frame(os.urandom(200)))
    s.sendall(os.urandom(1000))
elif case == "oversized":
    s.sendall(struct.pack(">i", 0x7FFFFFF0) + b"\0" * 64)
elif case == "negative":
    s.sendall(struct.pack(">i", -5) + b"\0" * 16)
elif case == "truncated":
    s.sendall(struct.pack(">i", 1000) + header(18, 3, 1) + b"\0" * 10)
elif case == "empty":
    s.sendall(struct.pack(">i", 0))
elif case == "short_header":
    s.sendall(frame(b"\x00\x12\x00"))
elif case == "bad_client_id":
    s.sendall(frame(struct.pack(">hhih", 18, 0, 1, 30000) + b"x" * 10))
elif case == "unknown_api":
    s.sendall(frame(header(999, 0, 7) + b"\0" * 8))
    resp = recv_frame(s)
    if resp is not None and len(resp) >= 4 and struct.unpack(">i", resp[:4])[0] != 7:
        print("wrong correlation id in response to unknown API key")
        sys.exit(1)
elif case == "apiversions_v99":
    # KIP-511: an unsupported ApiVersions version gets a v0 response with
    # error 35 (UNSUPPORTED_VERSION) and the supported range of key 18.
    s.sendall(frame(header(18, 99, 42) + b"\0" * 4))
    resp = recv_frame(s)
    if resp is None or len(resp) < 6:
        print("no ApiVersions response to v99")
        sys.exit(1)
    corr, err = struct.unpack(">ih", resp[:6])
    if corr != 42 or err != 35:
        print(f"ApiVersions v99: correlation {corr} error {err}, expected 42 / 35")
        sys.exit(1)
elif case == "metadata_bad_body":
    # Metadata v1 claiming 1000000 topics in a few bytes.
    s.sendall(frame(header(3, 1, 5) + struct.pack(">i", 1000000) + b"\0\x01a"))
elif case == "produce_bad_records":
    # Produce v3 whose records blob is a corrupt batch header.
    body = header(0, 3, 9) + struct.pack(">hhi", -1, -1, 5000)
    body += struct.pack(">i", 1) + struct.pack(">h", 18) + b"__cluster_metadata"
    body += struct.pack(">i", 1) + struct.pack(">i", 0)
    blob = struct.pack(">qiib", 0, 200, -1, 2) + os.urandom(60)
    body += struct.pack(">i", len(blob)) + blob
    s.sendall(frame(body))
    resp = recv_frame(s)
    # Either a response carrying an error or a closed connection is fine;
    # what matters is that the server keeps serving.
elif case == "flood":
    for i in range(200):
        t = conn()
        t.sendall(os.urandom(37))
        t.close()
try:
    s.close()
except OSError:
    pass
PYEOF
)" || fail "case $c: $out"
    still_serving "$c"
done
log "bad frames: server kept serving"

# Real traffic still works end to end.
printf 'after-bad-input-1\nafter-bad-input-2\n' |
    timeout 30 kcat -P -q -b "localhost:$port" -t "$TOPIC" -p 0 -X acks=all ||
    fail "produce after bad input failed"
timeout 30 kcat -C -q -b "localhost:$port" -t "$TOPIC" -p 0 -o beginning -e -f '%s\n' \
    > "$E2E_TMP/after.txt" 2>/dev/null
[[ "$(grep -c '^after-bad-input-' "$E2E_TMP/after.txt")" -eq 2 ]] ||
    fail "records produced after bad input not read back: $(head -n 3 "$E2E_TMP/after.txt")"

pass "${#cases[@]} kinds of bad frames and 6 bad configs handled; server kept serving"
