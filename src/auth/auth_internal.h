/* Private helpers of src/auth: strict base64, the SCRAM primitives over
 * OpenSSL, fake credentials for unknown users, the SCRAM message parsers
 * and the store's layout. */
#ifndef KQ_AUTH_INTERNAL_H
#define KQ_AUTH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kq/auth.h"

/* ---- base64 (standard alphabet, padded; RFC 4648 section 4) */

/* Writes the base64 of in and a NUL; returns its length, or 0 when the
 * output (with the NUL) would not fit out_bytes (n == 0 also gives 0). */
size_t auth_b64_encode(const uint8_t *in, size_t n, char *out, size_t out_bytes);
/* Strict: length a multiple of 4, alphabet only, '=' only as final padding,
 * canonical (unused bits zero). Returns 0 and *out_len, or -1. */
int auth_b64_decode(const char *in, size_t n, uint8_t *out, size_t out_bytes, size_t *out_len);

/* ---- SCRAM primitives (RFC 5802 section 3) */

int auth_hmac(enum kq_scram_hash hash, const uint8_t *key, size_t key_bytes, const void *data,
              size_t data_bytes, uint8_t *out);
int auth_digest(enum kq_scram_hash hash, const void *data, size_t data_bytes, uint8_t *out);
/* SaltedPassword = Hi(password, salt, i), i.e. PBKDF2 with HMAC. */
int auth_salted_password(enum kq_scram_hash hash, const uint8_t *password, size_t password_bytes,
                         const uint8_t *salt, size_t salt_bytes, uint32_t iterations,
                         uint8_t *out);
/* ClientKey = HMAC(SaltedPassword, "Client Key"). */
int auth_client_key(enum kq_scram_hash hash, const uint8_t *salted, uint8_t *out);

/* The credential shown for an unknown user: salt HMAC(per-process random
 * key, hash name and user), default iterations, random keys, so that the
 * same name always gets the same salt and nothing tells it from a real one. */
int auth_fake_credential(enum kq_scram_hash hash, const char *user, size_t user_bytes,
                         kq_scram_credential *out);

/* Whether a name may appear in the credentials file: 1..USERNAME_BYTES_MAX
 * bytes of printable ASCII without blanks, not starting with '#'. */
bool auth_username_valid(const char *name, size_t n);

/* Copies a reason into out->reason; formats as printf. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void auth_set_reason(kq_sasl_output *out, const char *fmt, ...);
void auth_output_reset(kq_sasl_output *out);
/* A client-supplied name made safe for a log line: bytes outside printable
 * ASCII become '?'; truncated to fit dst (always NUL-terminated). */
void auth_log_name(char *dst, size_t dst_bytes, const char *src, size_t n);
void auth_set_principal(kq_sasl_output *out, const char *user, size_t user_bytes);

/* ---- the store */

typedef struct auth_user {
    char name[AUTH_USERNAME_BYTES_MAX + 1];
    size_t name_bytes;
    int line; /* where it was defined, for duplicate errors */
    kq_scram_credential cred[KQ_SCRAM_HASH_COUNT];
} auth_user;

struct kq_cred_store {
    auth_user *users; /* sorted by name once loaded */
    size_t count, cap;
};

/* Parses one non-comment line into *u; on error writes the reason (without
 * file and line) to err and returns -1. */
int auth_cred_line_parse(const char *line, size_t n, auth_user *u, char *err, size_t err_bytes);

/* ---- SCRAM messages (RFC 5802 section 7) */

typedef struct scram_client_first {
    size_t gs2_bytes; /* "n,," or "y,," or with "a=": through the second ',' */
    char user[AUTH_USERNAME_BYTES_MAX + 1];
    size_t user_bytes;
    const char *nonce;
    size_t nonce_bytes;
} scram_client_first;

typedef struct scram_client_final {
    uint8_t cbind[AUTH_SCRAM_MESSAGE_BYTES_MAX]; /* c=, decoded */
    size_t cbind_bytes;
    const char *nonce;
    size_t nonce_bytes;
    uint8_t proof[AUTH_HASH_BYTES_MAX];
    size_t proof_bytes;
    size_t without_proof_bytes; /* client-final-message-without-proof */
} scram_client_final;

/* Both return 0, or -1 with a reason for the log in *why and, for the
 * final message, the RFC 5802 server-error-value in *e. */
int scram_parse_client_first(const char *msg, size_t n, scram_client_first *out,
                             const char **why);
int scram_parse_client_final(const char *msg, size_t n, enum kq_scram_hash hash,
                             scram_client_final *out, const char **why, const char **e);
/* RFC 5802 "printable": %x21-2B / %x2D-7E. */
bool scram_printable(const char *s, size_t n);

#endif
