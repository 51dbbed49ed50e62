# Helpers for the TLS end-to-end tests, sourced after lib.sh and
# quorum_lib.sh: certificates (gen_certs.sh) in $CERTS, a three-voter
# quorum whose client listener (CLIENT, SSL) and controller listener
# (CONTROLLER, SSL with ssl.client.auth=required and voter principals) are
# both TLS, and the client settings for kcat, the Java tools and the probes.

CERTS="$E2E_TMP/certs"
sh "$E2E_ROOT/tests/e2e/gen_certs.sh" "$CERTS" > "$E2E_TMP/gen_certs.log" 2>&1 ||
    fail "gen_certs.sh failed: $(tail -n 3 "$E2E_TMP/gen_certs.log")"
# quorum_probe.py and forge_fetch.py speak TLS when these are set.
export KQ_TLS_CA="$CERTS/ca.crt"
KCAT_TLS=(-X security.protocol=ssl -X "ssl.ca.location=$CERTS/ca.crt")

# Java clients (VerifiableProducer, kafka-metadata-quorum.sh --command-config).
JAVA_TLS_PROPS="$E2E_TMP/client-ssl.properties"
cat > "$JAVA_TLS_PROPS" <<EOF2
acks=all
security.protocol=SSL
ssl.truststore.type=PEM
ssl.truststore.location=$CERTS/ca.crt
EOF2

# tls_quorum_config <client base port> <controller base port>: n1..n3;
# node 2 uses a PKCS#12 keystore, the others PEM.
tls_quorum_config() {
    local base=$1 cbase=$2 i voters=""
    QUORUM_BASE=$base
    QUORUM_N=3
    for i in 1 2 3; do
        voters+="${voters:+,}$i@localhost:$((cbase + i - 1))"
    done
    for i in 1 2 3; do
        {
            echo "node.id=$i"
            echo "listeners=CLIENT://localhost:$((base + i - 1)),CONTROLLER://localhost:$((cbase + i - 1))"
            echo "listener.security.protocol.map=CLIENT:SSL,CONTROLLER:SSL"
            echo "controller.listener.names=CONTROLLER"
            echo "controller.quorum.voters=$voters"
            echo "log.dirs=$E2E_TMP/data$i"
            if ((i == 2)); then
                echo "ssl.keystore.type=PKCS12"
                echo "ssl.keystore.location=$CERTS/node$i.p12"
                echo "ssl.keystore.password=storepass"
            else
                echo "ssl.keystore.location=$CERTS/node$i.pem"
            fi
            echo "ssl.truststore.location=$CERTS/ca.crt"
            echo "listener.name.controller.ssl.client.auth=required"
            echo 'ssl.principal.mapping.rules=RULE:^CN=([^,]*),OU=quorum,.*$/$1/,DEFAULT'
            echo "controller.quorum.voter.principals=1:User:node1,2:User:node2,3:User:node3"
        } > "$E2E_TMP/n$i.properties"
    done
}
