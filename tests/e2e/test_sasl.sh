#!/usr/bin/env bash
# Issue 9: SASL for clients and the allow-list authorizer, as Kafka users
# configure their clients. One node with a SASL_PLAINTEXT listener (PLAIN,
# SCRAM-SHA-256, SCRAM-SHA-512; credentials made by kq-scram-credential) and
# authorizer.class.name set: alice may produce and consume, bob only
# consume. kcat (librdkafka) with SCRAM-SHA-256 and PLAIN, kafka-python with
# SCRAM-SHA-512, Kafka's VerifiableProducer (ScramLoginModule) and
# kafka-metadata-quorum.sh --command-config all work as alice; bob's produce
# is refused (TOPIC_AUTHORIZATION_FAILED) but he reads; a wrong password and
# a client that does not speak SASL are turned away with a log line, and
# alice is served after each. The node also has a PLAINTEXT listener (the
# voter endpoint): Metadata asked on each listener names that listener
# (issue 19 item 13), so kcat with SASL keeps working after bootstrap.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_server
$PY -c 'import kafka' 2>/dev/null || fail "kafka-python missing ($PY; apt-get install python3-kafka)"
TOOL="$(dirname "$SERVER_BIN")/kq-scram-credential"
[[ -x "$TOOL" ]] || fail "kq-scram-credential not built next to $SERVER_BIN"

printf 'alice-secret' > "$E2E_TMP/alice.pw"
printf 'bob-secret' > "$E2E_TMP/bob.pw"
{
    echo "# made by kq-scram-credential"
    "$TOOL" --user alice --password-file "$E2E_TMP/alice.pw" || fail "kq-scram-credential failed"
    "$TOOL" --user bob --password-file "$E2E_TMP/bob.pw" --mechanism SCRAM-SHA-512
} > "$E2E_TMP/credentials"
grep -q "alice-secret" "$E2E_TMP/credentials" && fail "a password is stored in the clear"

port="$(pick_ports 34300 1)" || fail "no free port"
pport="$(pick_ports 43500 1)" || fail "no free port for the PLAINTEXT listener"
cat > "$E2E_TMP/s1.properties" <<EOF
node.id=1
listeners=PLAINTEXT://localhost:$pport,SASL_PLAINTEXT://localhost:$port
sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512
sasl.credentials.file=$E2E_TMP/credentials
log.dirs=$E2E_TMP/data1
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
super.users=User:admin
acl.produce.principals=User:alice
acl.consume.principals=User:alice,User:bob
EOF
start_server s1 "$E2E_TMP/s1.properties" "$port"
S1LOG="$E2E_TMP/s1.log"

kc() { # kc <mechanism> <user> <password> kcat-args...
    local mech=$1 user=$2 pw=$3
    shift 3
    timeout 30 kcat -b "localhost:$port" -X security.protocol=SASL_PLAINTEXT \
        -X sasl.mechanisms="$mech" -X sasl.username="$user" -X sasl.password="$pw" "$@"
}
produce() { # produce <mechanism> <user> <password> <value>
    echo "$4" | kc "$1" "$2" "$3" -P -t "$TOPIC" -p 0 -X acks=all -X message.timeout.ms=8000
}

for ((t = 0; t < 50; t++)); do
    produce SCRAM-SHA-256 alice alice-secret "kcat-scram" 2> /dev/null && break
    sleep 0.2
done
((t < 50)) || fail "kcat (SCRAM-SHA-256) could not produce as alice"
# Each listener advertises itself: SASL clients are sent to the SASL port.
kc PLAIN alice alice-secret -L > "$E2E_TMP/md-sasl.txt" || fail "kcat -L on the SASL listener failed"
grep -q "broker 1 at localhost:$port" "$E2E_TMP/md-sasl.txt" ||
    fail "Metadata on the SASL listener: $(grep broker "$E2E_TMP/md-sasl.txt")"
timeout 30 kcat -b "localhost:$pport" -L > "$E2E_TMP/md-plain.txt" || fail "kcat -L on PLAINTEXT failed"
grep -q "broker 1 at localhost:$pport" "$E2E_TMP/md-plain.txt" ||
    fail "Metadata on the PLAINTEXT listener: $(grep broker "$E2E_TMP/md-plain.txt")"
produce PLAIN alice alice-secret "kcat-plain" || fail "kcat (PLAIN) could not produce as alice"

# bob may read, not write.
produce SCRAM-SHA-512 bob bob-secret "bob-write" 2> "$E2E_TMP/bob.err" &&
    fail "bob's produce was acknowledged"
grep -q "Topic authorization failed" "$E2E_TMP/bob.err" ||
    fail "bob's produce did not fail with TOPIC_AUTHORIZATION_FAILED: $(tail -n 2 "$E2E_TMP/bob.err")"
grep -q "Produce denied to User:bob" "$S1LOG" || fail "no log line names User:bob"
kc SCRAM-SHA-512 bob bob-secret -C -t "$TOPIC" -p 0 -o beginning -e -q > "$E2E_TMP/bob.read" ||
    fail "bob could not read"
grep -qx "kcat-scram" "$E2E_TMP/bob.read" || fail "bob did not read alice's record"

# A wrong password, then a client without SASL: turned away, logged.
produce SCRAM-SHA-256 alice wrong "nope" 2> "$E2E_TMP/wrong.err" && fail "a wrong password was accepted"
grep -q "authentication failed" "$S1LOG" || fail "the failed login is not logged"
echo x | timeout 20 kcat -P -b "localhost:$port" -t "$TOPIC" -p 0 -X message.timeout.ms=3000 \
    2> /dev/null && fail "a client without SASL could produce"
grep -q "before SASL authentication" "$S1LOG" || fail "the unauthenticated request is not logged"

# Issue 19: 1,200 connections that only send SaslHandshake (more than the
# 1,024 pending handshakes held, all from one address) do not lock alice
# out while they stay open; the oldest are evicted, and their connections
# closed at once (they send nothing more).
$PY - "$port" > "$E2E_TMP/flood.out" 2>&1 <<'PYEOF' &
import socket, struct, sys, time
port = int(sys.argv[1])
body = struct.pack(">hhih", 17, 1, 1, 5) + b"flood" + struct.pack(">h", 5) + b"PLAIN"
frame = struct.pack(">i", len(body)) + body
conns = []
for i in range(1200):
    s = socket.create_connection(("localhost", port))
    s.sendall(frame)
    conns.append(s)
print("flooding", len(conns), flush=True)
time.sleep(1)
closed = 0
for s in conns:
    s.setblocking(False)
    try:
        while s.recv(65536):
            pass
        closed += 1  # EOF after the handshake answer
    except BlockingIOError:
        pass
    except ConnectionResetError:
        closed += 1
print("closed", closed, flush=True)
time.sleep(7)
PYEOF
flood=$!
for ((t = 0; t < 100; t++)); do grep -q flooding "$E2E_TMP/flood.out" && break; sleep 0.1; done
grep -q flooding "$E2E_TMP/flood.out" || fail "the handshake flood did not start: $(cat "$E2E_TMP/flood.out")"
sleep 1 # the server has read every handshake
produce SCRAM-SHA-256 alice alice-secret "during-flood" ||
    fail "alice could not log in during a flood of SaslHandshake-only connections"
grep -Eq "SASL handshake from [^ ]+ evicted" "$S1LOG" || fail "no eviction was logged"
wait "$flood"
# All but the address's last 32 (KQ_SASL_PENDING_PER_ADDRESS_MAX) evicted.
closed="$(awk '$1 == "closed" {print $2}' "$E2E_TMP/flood.out")"
[[ -n "$closed" && "$closed" -ge $((1200 - 32)) && "$closed" -lt 1200 ]] ||
    fail "evicted handshakes were not closed at once: $(cat "$E2E_TMP/flood.out")"

# kafka-python, SCRAM-SHA-512.
out="$(timeout 120 $PY - "localhost:$port" "$TOPIC" 2> "$E2E_TMP/python.err" <<'PYEOF'
import sys
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
bootstrap, topic = sys.argv[1], sys.argv[2]
auth = dict(security_protocol="SASL_PLAINTEXT", sasl_mechanism="SCRAM-SHA-512",
            sasl_plain_username="alice", sasl_plain_password="alice-secret")
p = KafkaProducer(bootstrap_servers=bootstrap, acks="all", **auth)
md = p.send(topic, value=b"python-scram", partition=0).get(timeout=60)
p.close()
c = KafkaConsumer(bootstrap_servers=bootstrap, consumer_timeout_ms=10000, **auth)
tp = TopicPartition(topic, 0)
c.assign([tp])
c.seek_to_beginning(tp)
values = [m.value for m in c if m.offset <= md.offset]
print("ok" if b"python-scram" in values and b"kcat-scram" in values else "missing %r" % values)
PYEOF
)" || fail "kafka-python failed: $(tail -n 3 "$E2E_TMP/python.err")"
[[ "$out" == ok ]] || fail "kafka-python read-back: $out"

# Kafka's Java client: VerifiableProducer and kafka-metadata-quorum.sh.
cat > "$E2E_TMP/client.properties" <<EOF
acks=all
security.protocol=SASL_PLAINTEXT
sasl.mechanism=SCRAM-SHA-256
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="alice-secret";
EOF
n=300
timeout 180 "$E2E_ROOT/bin/kafka-run-class.sh" org.apache.kafka.tools.VerifiableProducer \
    --bootstrap-server "localhost:$port" --topic "$TOPIC" --max-messages "$n" --throughput 300 \
    --acks -1 --producer.config "$E2E_TMP/client.properties" \
    > "$E2E_TMP/produced.jsonl" 2> "$E2E_TMP/producer.err" ||
    fail "VerifiableProducer failed: $(tail -n 3 "$E2E_TMP/producer.err")"
acked="$(grep -c '"producer_send_success"' "$E2E_TMP/produced.jsonl")"
[[ "$acked" -eq "$n" ]] || fail "VerifiableProducer: only $acked of $n acknowledged"
status="$(timeout 120 "$E2E_ROOT/bin/kafka-metadata-quorum.sh" --bootstrap-server "localhost:$port" \
    --command-config "$E2E_TMP/client.properties" describe --status 2> "$E2E_TMP/quorum.err")" ||
    fail "kafka-metadata-quorum.sh failed: $(tail -n 3 "$E2E_TMP/quorum.err")"
grep -Eq "^LeaderId:[[:space:]]+1$" <<<"$status" || fail "kafka-metadata-quorum.sh: $status"

kc SCRAM-SHA-256 alice alice-secret -C -t "$TOPIC" -p 0 -o beginning -e -q -f '%o\t%s\n' \
    > "$E2E_TMP/consumed.txt" || fail "alice could not read back"
summary="$($PY "$E2E_ROOT/tests/e2e/verify.py" "$E2E_TMP/consumed.txt" "$E2E_TMP/produced.jsonl" \
    --min-acked "$n")" || fail "read-back: $summary"
pass "SASL PLAIN/SCRAM-256/SCRAM-512 with kcat, kafka-python and the Java client; bob refused to write; bad logins turned away ($summary)"
