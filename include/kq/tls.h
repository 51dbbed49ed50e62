/* TLS for the Kafka listener and the voter-to-voter channels, on OpenSSL
 * memory BIOs so that the event loop never blocks: the module never touches
 * a socket. The caller moves bytes between the socket and a kq_tls_conn.
 *
 *   contexts  built from Kafka's ssl.* keys (kq_tls_settings); every error
 *             names the key and the reason ("ssl.keystore.location: cannot
 *             read /x: No such file or directory"): the text before the first
 *             ": " is the key, so the caller can print file:line: key: reason.
 *   conns     one per connection: ciphertext in (feed), plaintext out (read),
 *             plaintext in (write), ciphertext out (pending_out/take_out).
 *   identity  the peer certificate's subject DN as Kafka prints it and its
 *             SAN DNS names; ssl.principal.mapping.rules (KIP-371).
 *
 * Ownership: every pointer passed in is borrowed for the call only (data is
 * copied); every buffer written to belongs to the caller. A context must
 * outlive its connections. Nothing here is thread-safe across threads
 * sharing one connection; distinct connections may be used on distinct
 * threads. Memory held per connection is bounded by kq/limits.h
 * (KQ_TLS_CONN_CIPHER_IN_BYTES_MAX, KQ_TLS_CONN_CIPHER_OUT_BYTES_MAX, plus
 * OpenSSL's own record buffers, released when idle). No session
 * resumption: every connection does a full handshake (and so a full
 * certificate check). Renegotiation is refused. */
#ifndef KQ_TLS_H
#define KQ_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kq/limits.h"

/* ---- contexts */

typedef enum kq_tls_store_type {
    /* Kafka's default is JKS, which is not supported: unset means PEM. */
    KQ_TLS_STORE_PEM = 0,
    KQ_TLS_STORE_PKCS12,
} kq_tls_store_type;

typedef enum kq_tls_client_auth {
    KQ_TLS_CLIENT_AUTH_NONE = 0, /* Kafka's default */
    KQ_TLS_CLIENT_AUTH_REQUESTED,
    KQ_TLS_CLIENT_AUTH_REQUIRED,
} kq_tls_client_auth;

/* Kafka's keys as written in the properties file; NULL means the key is not
 * set (Kafka's default applies). The strings are borrowed for the call of
 * kq_tls_ctx_create_* only. */
typedef struct kq_tls_settings {
    kq_tls_store_type keystore_type;       /* ssl.keystore.type */
    /* ssl.keystore.location. PEM: one file with the private key and the
     * certificate chain (leaf first), in any order of blocks. PKCS12: the
     * key, its certificate and the chain. */
    const char *keystore_location;
    const char *keystore_password;         /* ssl.keystore.password (PKCS12) */
    /* ssl.key.password: the PEM private key's password (encrypted PKCS#8 or
     * legacy encrypted PEM). Ignored for PKCS12 (the store password opens
     * the key, as keytool writes them). */
    const char *key_password;
    /* ssl.keystore.certificate.chain / ssl.keystore.key: the same in-line
     * (PEM text, type PEM only), instead of keystore_location. */
    const char *keystore_certificate_chain;
    const char *keystore_key;
    kq_tls_store_type truststore_type;     /* ssl.truststore.type */
    /* ssl.truststore.location: CA certificates (PEM file or PKCS12). Unset
     * (and no in-line certificates): the system's default CA paths, as Java
     * falls back to its cacerts. */
    const char *truststore_location;
    const char *truststore_password;       /* ssl.truststore.password (PKCS12) */
    const char *truststore_certificates;   /* ssl.truststore.certificates (in-line PEM) */
    kq_tls_client_auth client_auth;        /* ssl.client.auth (server side) */
    /* ssl.enabled.protocols: comma-separated, from TLSv1.2 and TLSv1.3;
     * older versions are refused. Unset: TLSv1.2,TLSv1.3 (TLSv1.2 when
     * ssl.protocol is TLSv1.2), Kafka's default. */
    const char *enabled_protocols;
    /* ssl.protocol: TLSv1.3 (Kafka's default), TLSv1.2 or TLS. It only picks
     * the default of ssl.enabled.protocols, as in Java. */
    const char *protocol;
    /* ssl.cipher.suites: comma-separated IANA (JSSE) names such as
     * TLS_AES_128_GCM_SHA256 or TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384; an
     * OpenSSL name is accepted too. Unset or empty: OpenSSL's defaults. */
    const char *cipher_suites;
    /* ssl.endpoint.identification.algorithm: "https" (Kafka's default, used
     * when NULL) verifies the server's host name or IP address against its
     * certificate when we are the client; "" does not. */
    const char *endpoint_identification_algorithm;
} kq_tls_settings;

typedef struct kq_tls_ctx kq_tls_ctx;

/* Helpers for the config loader: parse ssl.keystore.type /
 * ssl.truststore.type ("PEM", "PKCS12", case-insensitive) and ssl.client.auth
 * ("required", "requested", "none"). On failure write the reason (without
 * the key) to err and return false. */
bool kq_tls_parse_store_type(const char *value, kq_tls_store_type *out, char *err, size_t errlen);
bool kq_tls_parse_client_auth(const char *value, kq_tls_client_auth *out, char *err,
                              size_t errlen);

/* A listener's context: the keystore is required; clients are verified
 * against the truststore according to client_auth. NULL on error, with
 * "key: reason" in err. */
kq_tls_ctx *kq_tls_ctx_create_server(const kq_tls_settings *settings, char *err, size_t errlen);
/* A voter-to-voter (outbound) context: the server is always verified
 * against the truststore, and its name too per
 * endpoint_identification_algorithm; our keystore's certificate, when
 * configured, is presented for mutual TLS. NULL on error, as above. */
kq_tls_ctx *kq_tls_ctx_create_client(const kq_tls_settings *settings, char *err, size_t errlen);
/* NULL is ignored. Every connection of ctx must be destroyed first. */
void kq_tls_ctx_destroy(kq_tls_ctx *ctx);

/* ---- connections */

/* A libuv connection drives one kq_tls_conn like this:
 *   alloc_cb: a buffer of min(suggested, kq_tls_conn_feed_room()) bytes;
 *             room 0: uv_read_stop until plaintext was read.
 *   read_cb:  feed the nread bytes (keep what was not consumed for after
 *             the reads), then kq_tls_conn_read until 0 and hand the
 *             plaintext to the frame parser, then flush.
 *   send:     kq_tls_conn_write (keep the rest queued, retry after a
 *             flush or once the handshake is done), then flush.
 *   flush:    while pending_out: take_out into a malloc'd buffer, uv_write
 *             it, free it in the write callback.
 *   negative: flush (the alert), close, log kq_tls_conn_error.
 * The handshake timeout (KQ_TLS_HANDSHAKE_TIMEOUT_MS) and the cap on
 * handshakes in progress (KQ_TLS_HANDSHAKES_MAX) are the caller's to run. */
typedef struct kq_tls_conn kq_tls_conn;

/* Negative results of feed/read/write (the connection is finished; the
 * caller closes the socket after sending what pending_out still holds,
 * which may carry an alert telling the peer why). */
#define KQ_TLS_ERR_FATAL (-1)  /* protocol, verification or library error */
#define KQ_TLS_ERR_CLOSED (-2) /* the peer ended the session (close_notify) */

/* server must match the context's side. host (client side only, else
 * ignored; borrowed for the call): the name or IP address verified against
 * the server certificate when host name verification is on, and sent as
 * SNI when it is a name; NULL skips both (only allowed when verification is
 * off). A client connection starts its handshake at once: its ClientHello
 * is in pending_out. NULL on allocation failure or a host OpenSSL refuses. */
kq_tls_conn *kq_tls_conn_create(kq_tls_ctx *ctx, bool server, const char *host);
/* NULL is ignored. */
void kq_tls_conn_destroy(kq_tls_conn *conn);

/* Ciphertext received from the socket. Copies as much of data as the input
 * buffer has room for (kq_tls_conn_feed_room) and advances the handshake.
 * Returns the bytes consumed (0..len; less than len only when the buffer is
 * full: pull plaintext with kq_tls_conn_read, then feed the rest), or a
 * KQ_TLS_ERR_* value. */
ptrdiff_t kq_tls_conn_feed(kq_tls_conn *conn, const uint8_t *data, size_t len);
/* Bytes kq_tls_conn_feed would accept now (size a read buffer with it). */
size_t kq_tls_conn_feed_room(const kq_tls_conn *conn);

/* Decrypted plaintext into dst (the caller's, cap bytes). Returns the bytes
 * written (> 0), 0 when no whole record is buffered (feed more ciphertext;
 * always 0 before the handshake is done), or a KQ_TLS_ERR_* value. Call it
 * until it returns 0 after every feed: plaintext of a fed record stays
 * inside until read. May queue protocol output (alerts, key updates). */
ptrdiff_t kq_tls_conn_read(kq_tls_conn *conn, uint8_t *dst, size_t cap);

/* Plaintext to send, encrypted into the output buffer. Returns the bytes
 * accepted (possibly fewer than len: 0 before the handshake is done or when
 * the output buffer is full; take ciphertext out and write the rest later),
 * or a KQ_TLS_ERR_* value. */
ptrdiff_t kq_tls_conn_write(kq_tls_conn *conn, const uint8_t *data, size_t len);

/* Ciphertext waiting to go to the socket, in bytes. Check it after every
 * create/feed/read/write/shutdown: any of them may produce some. */
size_t kq_tls_conn_pending_out(const kq_tls_conn *conn);
/* Moves up to cap bytes of that ciphertext into dst (the caller's, e.g. a
 * uv_write buffer freed in its callback). Returns the bytes moved. */
size_t kq_tls_conn_take_out(kq_tls_conn *conn, uint8_t *dst, size_t cap);

/* Queues a close_notify alert (then take it out and close the socket). */
void kq_tls_conn_shutdown(kq_tls_conn *conn);

bool kq_tls_conn_handshake_done(const kq_tls_conn *conn);
/* True once a KQ_TLS_ERR_* value was returned; every later call returns it
 * again. */
bool kq_tls_conn_failed(const kq_tls_conn *conn);
/* Why the connection failed: OpenSSL's reasons and the certificate
 * verification result ("TLS handshake failed: certificate verify failed;
 * verify: certificate has expired"), "" when it did not. Owned by conn,
 * valid until it is destroyed. */
const char *kq_tls_conn_error(const kq_tls_conn *conn);
/* Negotiated protocol ("TLSv1.3") and cipher (OpenSSL's name); "" before the
 * handshake is done. Static strings. */
const char *kq_tls_conn_protocol(const kq_tls_conn *conn);
const char *kq_tls_conn_cipher(const kq_tls_conn *conn);

/* ---- peer identity */

typedef struct kq_tls_peer_identity {
    bool has_certificate; /* false: the peer sent none (client_auth not required) */
    /* The subject DN in RFC 2253 form as Java's X500Principal.getName()
     * prints it, which is what Kafka's principal builder maps, e.g.
     * "CN=node1,OU=quorum,O=kq" (see tls_peer.c for the differences). */
    char subject[KQ_TLS_DN_BYTES_MAX];
    size_t dns_count; /* SAN dNSName entries, in certificate order */
    char dns[KQ_TLS_SAN_DNS_MAX][KQ_TLS_DNS_NAME_BYTES_MAX];
    /* SAN DNS names not kept: past KQ_TLS_SAN_DNS_MAX, too long, or holding
     * a NUL byte. */
    size_t dns_skipped;
} kq_tls_peer_identity;

/* Fills out (the caller's) after the handshake. Returns false when the
 * handshake is not done or the subject does not fit KQ_TLS_DN_BYTES_MAX
 * (then out->has_certificate is true and out->subject is ""). */
bool kq_tls_conn_peer_identity(const kq_tls_conn *conn, kq_tls_peer_identity *out);

/* ---- ssl.principal.mapping.rules (KIP-371) */

typedef struct kq_tls_principal_rules kq_tls_principal_rules;

/* Parses a comma-separated list of "DEFAULT" and
 * "RULE:pattern/replacement/" with an optional L (lower case) or U (upper
 * case) suffix; '/' and ',' inside a pattern or replacement are escaped as
 * "\/" and need no escape respectively; "$1".."$9" in a replacement are the
 * pattern's groups ($0 the whole DN), "\x" is a literal x. NULL or "" is
 * "DEFAULT" (Kafka's default). The regular expressions are POSIX extended
 * ones (tls_principal.c lists what differs from Java's). NULL on error with
 * "ssl.principal.mapping.rules: reason" in err. */
kq_tls_principal_rules *kq_tls_principal_rules_parse(const char *rules, char *err, size_t errlen);
/* NULL is ignored. */
void kq_tls_principal_rules_free(kq_tls_principal_rules *rules);

typedef enum kq_tls_principal_result {
    KQ_TLS_PRINCIPAL_OK = 0,
    KQ_TLS_PRINCIPAL_NO_MATCH, /* no rule matched: Kafka fails the authentication */
    KQ_TLS_PRINCIPAL_TOO_LONG, /* the name does not fit cap */
} kq_tls_principal_result;

/* Applies the first rule whose pattern matches the whole dn (DEFAULT always
 * matches and yields the DN unchanged); writes the principal's name
 * (without Kafka's "User:" prefix) NUL-terminated to dst (cap bytes). */
kq_tls_principal_result kq_tls_principal_map(const kq_tls_principal_rules *rules, const char *dn,
                                             char *dst, size_t cap);

#endif
