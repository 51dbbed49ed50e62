#!/bin/sh
# Generates the TLS unit tests' certificates into OUTDIR with the openssl CLI
# (nothing of this is committed). Every key is RSA 2048 so that both ECDHE-RSA
# (TLS 1.2) and TLS 1.3 suites work with every certificate.
#
#   ca.crt            the trusted CA (PEM truststore)
#   node1.pem         node1's key + certificate + CA (PEM keystore), SAN
#                     DNS:localhost, DNS:node1, IP:127.0.0.1
#   node2.pem         the same for node2 (SAN DNS:localhost, DNS:node2)
#   client.pem        a client certificate (CN=client,OU=clients,O=kq)
#   expired.pem       signed by the CA, already expired
#   rogue.pem         signed by an untrusted CA (rogue-ca.crt, not included)
#   node1-enc.pem     node1 with its key encrypted (password "keypass")
#   mismatch.pem      node1's certificate with node2's key
#   node1.p12         node1 as a PKCS#12 keystore (password "storepass")
#   trust.p12         the CA as a PKCS#12 truststore (password "trustpass")
set -eu
OUT=${1:?usage: gen-certs.sh OUTDIR}
command -v openssl >/dev/null 2>&1 || { echo "gen-certs.sh: openssl CLI not found" >&2; exit 127; }
mkdir -p "$OUT"
cd "$OUT"

ca() { # name subject
    openssl req -x509 -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.crt" \
        -subj "$2" -days 3650 -addext basicConstraints=critical,CA:TRUE \
        -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
}

leaf() { # name subject san days ca
    openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "$2" 2>/dev/null
    printf 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth,clientAuth\nsubjectAltName=%s\n' \
        "$3" > "$1.ext"
    openssl x509 -req -in "$1.csr" -CA "$5.crt" -CAkey "$5.key" -CAcreateserial \
        -days "$4" -extfile "$1.ext" -out "$1.crt" 2>/dev/null
    cat "$1.key" "$1.crt" "$5.crt" > "$1.pem"
}

ca ca "/O=kq/CN=kq-test-ca"
ca rogue-ca "/O=rogue/CN=rogue-ca"
leaf node1 "/O=kq/OU=quorum/CN=node1" "DNS:localhost,DNS:node1,IP:127.0.0.1" 365 ca
leaf node2 "/O=kq/OU=quorum/CN=node2" "DNS:localhost,DNS:node2" 365 ca
leaf client "/O=kq/OU=clients/CN=client" "DNS:client" 365 ca
# -days -1: notAfter lies before now (the certificate is born expired).
leaf expired "/O=kq/OU=quorum/CN=expired" "DNS:localhost" -1 ca
leaf rogue "/O=rogue/CN=rogue" "DNS:localhost" 365 rogue-ca
cat rogue.key rogue.crt > rogue.pem # without its CA: the issuer is unknown

openssl pkcs8 -topk8 -v2 aes-256-cbc -in node1.key -passout pass:keypass -out node1-enc.key
cat node1-enc.key node1.crt ca.crt > node1-enc.pem
cat node2.key node1.crt ca.crt > mismatch.pem

openssl pkcs12 -export -in node1.crt -inkey node1.key -certfile ca.crt -name node1 \
    -passout pass:storepass -out node1.p12
openssl pkcs12 -export -nokeys -in ca.crt -passout pass:trustpass -out trust.p12
echo "gen-certs.sh: certificates in $OUT"
