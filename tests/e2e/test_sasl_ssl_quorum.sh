#!/usr/bin/env bash
# Issue 9: the security a Kafka user configures. Three voters with mutual
# TLS between them (controller listener SSL, ssl.client.auth=required,
# voters proven by certificate) and SASL_SSL with SCRAM for clients (client
# listener). Kafka's VerifiableProducer and kafka-producer-perf-test
# (SCRAM-SHA-256 and SCRAM-SHA-512 through sasl.jaas.config and a PEM
# truststore), kcat and kafka-python (SCRAM over TLS) write and read;
# kafka-metadata-quorum.sh works with --command-config; a client that
# authenticates but is not allowed to produce is refused.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/quorum_lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/tls_lib.sh"
require_multinode
require_server
TOOL="$(dirname "$SERVER_BIN")/kq-scram-credential"
[[ -x "$TOOL" ]] || fail "kq-scram-credential not built next to $SERVER_BIN"

printf 'alice-secret' > "$E2E_TMP/alice.pw"
printf 'carol-secret' > "$E2E_TMP/carol.pw"
{
    "$TOOL" --user alice --password-file "$E2E_TMP/alice.pw"
    "$TOOL" --user carol --password-file "$E2E_TMP/carol.pw"
} > "$E2E_TMP/credentials" || fail "kq-scram-credential failed"

base="$(pick_ports 35300 3)" || fail "no free ports"
cbase="$(pick_ports $((base + 40)) 3)" || fail "no free controller ports"
tls_quorum_config "$base" "$cbase"
for i in 1 2 3; do
    sed -i 's/^listener.security.protocol.map=.*/listener.security.protocol.map=CLIENT:SASL_SSL,CONTROLLER:SSL/' \
        "$E2E_TMP/n$i.properties"
    cat >> "$E2E_TMP/n$i.properties" <<EOF
listener.name.client.sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512
sasl.credentials.file=$E2E_TMP/credentials
authorizer.class.name=kq
super.users=User:node1;User:node2;User:node3
acl.produce.principals=User:alice
acl.consume.principals=User:alice,User:carol
# the probes: TLS with the client certificate on the controller listener
acl.describe.principals=User:CN=client,OU=clients,O=kq
EOF
done
quorum_start 1 2 3
bootstrap="$(quorum_bootstrap)" # the client listeners
# The probes (DescribeQuorum) speak plain TLS, not SASL: they ask the
# controller listeners, with the client certificate for its mutual TLS.
QUORUM_BASE=$cbase
export KQ_TLS_CERT="$CERTS/client.pem"
read -r leader epoch _ < <(wait_probe_leader 60) || fail "no leader within 60s"
log "leader $leader epoch $epoch"
grep -q "listener CLIENT on localhost:$base (SASL_SSL)" "$E2E_TMP/n1.log" ||
    fail "n1 does not report a SASL_SSL client listener"

java_props() { # java_props <file> <mechanism> <user> <password>
    cat > "$1" <<EOF
acks=all
security.protocol=SASL_SSL
sasl.mechanism=$2
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="$3" password="$4";
ssl.truststore.type=PEM
ssl.truststore.location=$CERTS/ca.crt
EOF
}
java_props "$E2E_TMP/alice256.properties" SCRAM-SHA-256 alice alice-secret
java_props "$E2E_TMP/alice512.properties" SCRAM-SHA-512 alice alice-secret
KCAT_SASL=("${KCAT_TLS[@]}" -X security.protocol=sasl_ssl -X sasl.mechanisms=SCRAM-SHA-512)

echo "kcat-sasl-ssl" | timeout 30 kcat "${KCAT_SASL[@]}" -X sasl.username=alice \
    -X sasl.password=alice-secret -P -b "$bootstrap" -t "$TOPIC" -p 0 -X acks=all \
    -X message.timeout.ms=20000 || fail "kcat (SASL_SSL, SCRAM-SHA-512) could not produce"
echo "carol-write" | timeout 30 kcat "${KCAT_SASL[@]}" -X sasl.username=carol \
    -X sasl.password=carol-secret -P -b "$bootstrap" -t "$TOPIC" -p 0 -X acks=all \
    -X message.timeout.ms=8000 2> "$E2E_TMP/carol.err" && fail "carol's produce was acknowledged"
grep -q "Topic authorization failed" "$E2E_TMP/carol.err" || fail "carol: $(tail -n 2 "$E2E_TMP/carol.err")"

$PY - "$bootstrap" "$KQ_TLS_CA" > "$E2E_TMP/kp.txt" 2>&1 <<'PYEOF' || fail "kafka-python: $(tail -n 3 "$E2E_TMP/kp.txt")"
import sys
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
boot, ca = sys.argv[1].split(","), sys.argv[2]
auth = dict(security_protocol="SASL_SSL", ssl_cafile=ca, sasl_mechanism="SCRAM-SHA-256",
            sasl_plain_username="alice", sasl_plain_password="alice-secret", api_version=(2, 8))
p = KafkaProducer(bootstrap_servers=boot, acks="all", **auth)
md = p.send("__cluster_metadata", value=b"kafka-python-sasl-ssl", partition=0).get(timeout=30)
p.close()
c = KafkaConsumer(bootstrap_servers=boot, consumer_timeout_ms=10000, enable_auto_commit=False, **auth)
tp = TopicPartition("__cluster_metadata", 0)
c.assign([tp])
c.seek(tp, md.offset)
if not any(m.value == b"kafka-python-sasl-ssl" for m in c):
    sys.exit("kafka-python did not read its record back")
print("ok")
PYEOF

out="$(timeout 120 "$E2E_ROOT/bin/kafka-metadata-quorum.sh" --bootstrap-server "localhost:$base" \
    --command-config "$E2E_TMP/alice256.properties" describe --status 2> "$E2E_TMP/tool.err")" ||
    fail "kafka-metadata-quorum.sh over SASL_SSL failed: $(tail -n 5 "$E2E_TMP/tool.err")"
grep -Eq "^LeaderId:[[:space:]]+$leader\$" <<<"$out" || fail "describe --status: $out"

cp "$E2E_TMP/alice512.properties" "$E2E_TMP/perf.properties"
echo "bootstrap.servers=$bootstrap" >> "$E2E_TMP/perf.properties"
timeout 180 "$E2E_ROOT/bin/kafka-producer-perf-test.sh" --topic "$TOPIC" --num-records 3000 \
    --throughput -1 --record-size 100 --producer.config "$E2E_TMP/perf.properties" \
    > "$E2E_TMP/perf.out" 2> "$E2E_TMP/perf.err" ||
    fail "kafka-producer-perf-test over SASL_SSL failed: $(tail -n 3 "$E2E_TMP/perf.err")"
grep -q "^3000 records sent" "$E2E_TMP/perf.out" || fail "perf-test: $(tail -n 2 "$E2E_TMP/perf.out")"

n=600
timeout 150 "$E2E_ROOT/bin/kafka-run-class.sh" org.apache.kafka.tools.VerifiableProducer \
    --bootstrap-server "$bootstrap" --topic "$TOPIC" --max-messages "$n" --throughput 600 \
    --acks -1 --producer.config "$E2E_TMP/alice256.properties" > "$E2E_TMP/produced.jsonl" \
    2> "$E2E_TMP/produced.jsonl.err" ||
    fail "VerifiableProducer over SASL_SSL: $(tail -n 3 "$E2E_TMP/produced.jsonl.err")"
acked="$(acked_count "$E2E_TMP/produced.jsonl")"
((acked == n)) || fail "VerifiableProducer: $acked of $n acknowledged"
timeout 120 kcat "${KCAT_SASL[@]}" -X sasl.username=carol -X sasl.password=carol-secret -C -q \
    -b "$bootstrap" -t "$TOPIC" -p 0 -o beginning -e -f '%o\t%s\n' > "$E2E_TMP/consumed.txt" \
    2> "$E2E_TMP/consumed.err" || fail "carol could not read: $(tail -n 3 "$E2E_TMP/consumed.err")"
grep -q $'\tkcat-sasl-ssl$' "$E2E_TMP/consumed.txt" || fail "the kcat record is missing"
grep -q $'\tkafka-python-sasl-ssl$' "$E2E_TMP/consumed.txt" || fail "the kafka-python record is missing"
summary="$($PY "$E2E_ROOT/tests/e2e/verify.py" "$E2E_TMP/consumed.txt" "$E2E_TMP/produced.jsonl" \
    --min-acked "$n")" || fail "read-back: $summary"
pass "mTLS between voters, SASL_SSL SCRAM for clients: kcat, kafka-python, VerifiableProducer, producer-perf-test, metadata-quorum tool; carol refused to write: $summary"
