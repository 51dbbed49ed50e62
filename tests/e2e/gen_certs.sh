#!/bin/sh
# Certificates for the TLS end-to-end tests, generated with the openssl CLI
# into DIR (nothing of this is committed). RSA 2048 throughout.
#
#   ca.crt             the trusted CA (PEM truststore; ssl.ca.location for kcat)
#   ca.p12             the CA as a PKCS#12 truststore (password "trustpass")
#   nodeN.pem          node N's key, certificate and CA (PEM keystore), N=1..3,
#                      subject CN=nodeN,OU=quorum,O=kq, SAN DNS:localhost,
#                      DNS:nodeN, IP:127.0.0.1
#   nodeN.p12          the same as PKCS#12 (password "storepass")
#   nodeN.key/.crt     the key and certificate alone (kafka-python, kcat)
#   client.pem/.key/.crt  a client (CN=client,OU=clients,O=kq)
#   expired.pem/.key/.crt signed by the CA, already expired
#   rogue.pem/.key/.crt   signed by an untrusted CA (rogue-ca.crt)
set -eu
OUT=${1:?usage: gen_certs.sh DIR}
command -v openssl >/dev/null 2>&1 || { echo "gen_certs.sh: openssl CLI not found" >&2; exit 127; }
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

ca ca "/O=kq/CN=kq-e2e-ca"
ca rogue-ca "/O=rogue/CN=rogue-ca"
for i in 1 2 3; do
    leaf "node$i" "/O=kq/OU=quorum/CN=node$i" "DNS:localhost,DNS:node$i,IP:127.0.0.1" 365 ca
    openssl pkcs12 -export -in "node$i.crt" -inkey "node$i.key" -certfile ca.crt \
        -name "node$i" -passout pass:storepass -out "node$i.p12"
done
leaf client "/O=kq/OU=clients/CN=client" "DNS:localhost" 365 ca
leaf expired "/O=kq/OU=clients/CN=expired" "DNS:localhost" -1 ca
leaf rogue "/O=rogue/CN=rogue" "DNS:localhost" 365 rogue-ca
cat rogue.key rogue.crt > rogue.pem # without its CA: the issuer is unknown
openssl pkcs12 -export -nokeys -in ca.crt -passout pass:trustpass -out ca.p12
echo "gen_certs.sh: certificates in $OUT"
