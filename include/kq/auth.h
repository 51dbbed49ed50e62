/* Server-side SASL for the Kafka listener (issue 9): the credential store an
 * operator manages, SASL PLAIN (RFC 4616) and SCRAM-SHA-256/512 (RFC 5802,
 * RFC 7677, Kafka's KIP-84 flavour) as transport-free state machines. The
 * caller carries the tokens of SaslHandshake/SaslAuthenticate
 * (include/kq/wire_sasl.h) in and out; nothing here does network I/O.
 *
 * No password is kept at rest: both mechanisms check against salted SCRAM
 * credentials, as Kafka stores them. A PLAIN login derives SaltedPassword
 * from the presented password with PBKDF2 and compares StoredKey.
 *
 * Credentials file (src/auth/README.md): UTF-8 text, one user a line,
 *
 *   <user> SCRAM-SHA-256=salt=<b64>,stored_key=<b64>,server_key=<b64>,iterations=<n> [SCRAM-SHA-512=...]
 *
 * fields separated by blanks, at least one mechanism per user, each at most
 * once; blank lines and lines starting with '#' are ignored. <user> is
 * printable ASCII without blanks (SASLprep leaves such names unchanged);
 * it may hold ',' and '=', which SCRAM clients send as "=2C" and "=3D".
 * Base64 is the standard alphabet with padding; keys are one hash long;
 * salts AUTH_SALT_BYTES_MIN..MAX bytes; iterations AUTH_SCRAM_ITERATIONS_MIN
 * ..MAX. kq-scram-credential prints such lines.
 *
 * Failures look the same to the client whatever the cause (unknown user,
 * wrong password, malformed token): an unknown user gets a complete fake
 * SCRAM exchange with a salt derived from the name, and only the `reason`
 * for the server log tells them apart.
 *
 * Threads: a store is read-only after loading and may be shared; one
 * session belongs to one connection. */
#ifndef KQ_AUTH_H
#define KQ_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kq/buf.h"
#include "kq/limits.h"

enum kq_sasl_mech {
    KQ_SASL_PLAIN = 0,
    KQ_SASL_SCRAM_SHA_256,
    KQ_SASL_SCRAM_SHA_512,
};

/* Exact, case-sensitive mechanism names ("PLAIN", "SCRAM-SHA-256",
 * "SCRAM-SHA-512"), as SaslHandshake carries them. Returns 0 or -1. */
int kq_sasl_mech_parse(kq_slice name, enum kq_sasl_mech *out);
const char *kq_sasl_mech_name(enum kq_sasl_mech mech);

/* The hash behind a SCRAM credential. */
enum kq_scram_hash {
    KQ_SCRAM_SHA_256 = 0,
    KQ_SCRAM_SHA_512,
    KQ_SCRAM_HASH_COUNT,
};

/* "SCRAM-SHA-256" or "SCRAM-SHA-512". */
const char *kq_scram_hash_name(enum kq_scram_hash hash);
/* 32 or 64. */
size_t kq_scram_hash_bytes(enum kq_scram_hash hash);

/* One user's credential for one hash (RFC 5802 section 3). */
typedef struct kq_scram_credential {
    bool present;
    uint32_t iterations;
    size_t salt_bytes;
    uint8_t salt[AUTH_SALT_BYTES_MAX];
    uint8_t stored_key[AUTH_HASH_BYTES_MAX]; /* H(ClientKey) */
    uint8_t server_key[AUTH_HASH_BYTES_MAX]; /* HMAC(SaltedPassword, "Server Key") */
} kq_scram_credential;

/* Derives a credential from a password and salt (salt_bytes and iterations
 * within the limits). Returns 0, or -1 on bad arguments or an OpenSSL
 * failure. */
int kq_scram_credential_derive(enum kq_scram_hash hash, const uint8_t *password,
                               size_t password_bytes, const uint8_t *salt, size_t salt_bytes,
                               uint32_t iterations, kq_scram_credential *out);
/* The same with AUTH_SALT_BYTES_DEFAULT random bytes (RAND_bytes) of salt. */
int kq_scram_credential_new(enum kq_scram_hash hash, const uint8_t *password,
                            size_t password_bytes, uint32_t iterations,
                            kq_scram_credential *out);

/* A credentials-file line (no newline) for user with the present entries of
 * creds (indexed by enum kq_scram_hash). Returns its length, or -1 if the
 * name is not valid in the file, no entry is present or out is too small
 * (AUTH_CRED_LINE_BYTES_MAX always suffices). */
int kq_cred_line_format(const char *user, const kq_scram_credential creds[KQ_SCRAM_HASH_COUNT],
                        char *out, size_t out_bytes);

typedef struct kq_cred_store kq_cred_store;

/* Loads the credentials file. Returns 0 and *out (free with
 * kq_cred_store_free), or -1 with "path:line: reason" (or "path: reason")
 * in err; the daemon then exits 2. */
int kq_cred_store_load(const char *path, kq_cred_store **out, char *err, size_t err_bytes);
/* The same from text in memory; name stands for the path in errors. */
int kq_cred_store_parse(const char *name, const char *text, size_t text_bytes,
                        kq_cred_store **out, char *err, size_t err_bytes);
void kq_cred_store_free(kq_cred_store *store);
size_t kq_cred_store_count(const kq_cred_store *store);
/* The credential of user (unescaped, not NUL-terminated) for hash, or NULL
 * if the user is unknown or has none for that hash. */
const kq_scram_credential *kq_cred_store_find(const kq_cred_store *store, const char *user,
                                              size_t user_bytes, enum kq_scram_hash hash);

typedef enum kq_sasl_status {
    KQ_SASL_CONTINUE = 0, /* send out->bytes, expect another token */
    KQ_SASL_SUCCESS,      /* send out->bytes; out->principal is authenticated */
    KQ_SASL_FAILURE,      /* answer with kq_sasl_failure_message(); log out->reason */
} kq_sasl_status;

/* What one step produces. */
typedef struct kq_sasl_output {
    uint8_t bytes[AUTH_SASL_REPLY_BYTES_MAX]; /* AuthBytes to send back */
    size_t len;
    char principal[AUTH_PRINCIPAL_BYTES_MAX]; /* "User:<name>" on success, else "" */
    char reason[AUTH_REASON_BYTES_MAX];       /* why it failed; for the log only */
} kq_sasl_output;

/* SaslAuthenticate's ErrorMessage for any failure of mech: the same text for
 * every cause, as Kafka's. */
const char *kq_sasl_failure_message(enum kq_sasl_mech mech);

/* One PLAIN token "[authzid] NUL authcid NUL passwd" (RFC 4616 section 2).
 * authzid must be empty or equal authcid. On failure out->len is 0. */
kq_sasl_status kq_sasl_plain_authenticate(const kq_cred_store *store, const uint8_t *in,
                                          size_t in_bytes, kq_sasl_output *out);

/* One connection's SCRAM exchange: fixed size, no allocation. Fields are
 * private to src/auth. */
typedef struct kq_scram_server {
    const kq_cred_store *store;
    enum kq_scram_hash hash;
    int stage;
    bool user_known;
    kq_scram_credential cred; /* the user's, or a fake one */
    char user[AUTH_USERNAME_BYTES_MAX + 1];
    size_t user_bytes;
    char client_first[AUTH_SCRAM_MESSAGE_BYTES_MAX]; /* gs2 header + bare message */
    size_t client_first_bytes, gs2_bytes;
    char server_first[AUTH_SASL_REPLY_BYTES_MAX];
    size_t server_first_bytes, nonce_bytes; /* the nonce follows "r=" */
    size_t client_nonce_bytes;             /* its first part, the client's */
    char fixed_nonce[AUTH_SCRAM_SERVER_NONCE_BYTES_MAX]; /* tests only */
    size_t fixed_nonce_bytes;
} kq_scram_server;

/* store must outlive the exchange. */
void kq_scram_server_init(kq_scram_server *s, const kq_cred_store *store, enum kq_scram_hash hash);
/* Tests only: use this printable (RFC 5802 "printable", no ',') server nonce
 * part instead of a random one. Returns 0, or -1 if it is not valid. */
int kq_scram_server_set_nonce(kq_scram_server *s, const char *nonce, size_t nonce_bytes);
/* Feeds the next client message: client-first gives CONTINUE with
 * server-first; client-final gives SUCCESS with "v=<ServerSignature>" or
 * FAILURE, with an RFC 5802 "e=..." message in out->bytes where one
 * applies. Any token after SUCCESS or FAILURE fails. */
kq_sasl_status kq_scram_server_step(kq_scram_server *s, const uint8_t *in, size_t in_bytes,
                                    kq_sasl_output *out);
/* Wipes the keys and messages (OPENSSL_cleanse). */
void kq_scram_server_clear(kq_scram_server *s);

/* Any mechanism behind one interface, for the connection code. */
typedef struct kq_sasl_session {
    enum kq_sasl_mech mech;
    const kq_cred_store *store;
    bool finished;
    kq_scram_server scram;
} kq_sasl_session;

void kq_sasl_session_init(kq_sasl_session *s, const kq_cred_store *store, enum kq_sasl_mech mech);
kq_sasl_status kq_sasl_session_step(kq_sasl_session *s, const uint8_t *in, size_t in_bytes,
                                    kq_sasl_output *out);
void kq_sasl_session_clear(kq_sasl_session *s);

#endif
