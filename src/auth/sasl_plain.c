/* SASL PLAIN (RFC 4616) checked against the SCRAM credentials: the
 * presented password goes through PBKDF2 with the stored salt and the
 * resulting StoredKey is compared in constant time. An unknown user costs
 * the same derivation against a fake credential. */
#include <string.h>

#include <openssl/crypto.h>

#include "auth_internal.h"

typedef struct plain_token {
    const uint8_t *authzid, *authcid, *passwd;
    size_t authzid_bytes, authcid_bytes, passwd_bytes;
} plain_token;

/* message = [authzid] UTF8NUL authcid UTF8NUL passwd (RFC 4616 section 2):
 * exactly two NULs, authcid and passwd non-empty. */
static const char *plain_split(const uint8_t *in, size_t n, plain_token *t)
{
    if (n == 0)
        return "empty token";
    if (n > AUTH_PLAIN_MESSAGE_BYTES_MAX)
        return "token too long";
    const uint8_t *nul1 = memchr(in, 0, n);
    if (!nul1)
        return "no NUL separator";
    const uint8_t *rest = nul1 + 1, *end = in + n;
    const uint8_t *nul2 = memchr(rest, 0, (size_t)(end - rest));
    if (!nul2)
        return "one NUL separator, two needed";
    if (memchr(nul2 + 1, 0, (size_t)(end - nul2 - 1)))
        return "more than two NUL separators";
    t->authzid = in;
    t->authzid_bytes = (size_t)(nul1 - in);
    t->authcid = rest;
    t->authcid_bytes = (size_t)(nul2 - rest);
    t->passwd = nul2 + 1;
    t->passwd_bytes = (size_t)(end - nul2 - 1);
    if (t->authcid_bytes == 0 || t->authcid_bytes > AUTH_USERNAME_BYTES_MAX)
        return "user name empty or too long";
    if (t->passwd_bytes == 0 || t->passwd_bytes > AUTH_PASSWORD_BYTES_MAX)
        return "password empty or too long";
    if (t->authzid_bytes != 0 && (t->authzid_bytes != t->authcid_bytes ||
                                  memcmp(t->authzid, t->authcid, t->authcid_bytes) != 0))
        return "authorization id differs from the user name";
    return NULL;
}

/* The user's credential (SHA-256 preferred: the cheaper PBKDF2), or a fake
 * one; *known says which. */
static int plain_credential(const kq_cred_store *store, const plain_token *t,
                            kq_scram_credential *c, enum kq_scram_hash *hash, bool *known)
{
    const char *name = (const char *)t->authcid;
    const kq_scram_credential *found = NULL;
    *hash = KQ_SCRAM_SHA_256;
    found = kq_cred_store_find(store, name, t->authcid_bytes, KQ_SCRAM_SHA_256);
    if (!found && (found = kq_cred_store_find(store, name, t->authcid_bytes, KQ_SCRAM_SHA_512)))
        *hash = KQ_SCRAM_SHA_512;
    *known = found != NULL;
    if (found) {
        *c = *found;
        return 0;
    }
    return auth_fake_credential(KQ_SCRAM_SHA_256, name, t->authcid_bytes, c);
}

kq_sasl_status kq_sasl_plain_authenticate(const kq_cred_store *store, const uint8_t *in,
                                          size_t in_bytes, kq_sasl_output *out)
{
    auth_output_reset(out);
    plain_token t;
    const char *why = plain_split(in, in_bytes, &t);
    if (why) {
        auth_set_reason(out, "PLAIN: malformed token: %s", why);
        return KQ_SASL_FAILURE;
    }
    kq_scram_credential c;
    enum kq_scram_hash hash;
    bool known = false;
    uint8_t salted[AUTH_HASH_BYTES_MAX], key[AUTH_HASH_BYTES_MAX], stored[AUTH_HASH_BYTES_MAX];
    size_t h;
    int rc = plain_credential(store, &t, &c, &hash, &known);
    h = kq_scram_hash_bytes(hash);
    if (rc == 0)
        rc = auth_salted_password(hash, t.passwd, t.passwd_bytes, c.salt, c.salt_bytes,
                                  c.iterations, salted);
    if (rc == 0)
        rc = auth_client_key(hash, salted, key);
    if (rc == 0)
        rc = auth_digest(hash, key, h, stored);
    bool match = rc == 0 && CRYPTO_memcmp(stored, c.stored_key, h) == 0;
    OPENSSL_cleanse(salted, sizeof salted);
    OPENSSL_cleanse(key, sizeof key);
    OPENSSL_cleanse(&c, sizeof c);
    if (rc != 0) {
        auth_set_reason(out, "PLAIN: internal error deriving the key");
        return KQ_SASL_FAILURE;
    }
    if (!known || !match) {
        char name[64];
        auth_log_name(name, sizeof name, (const char *)t.authcid, t.authcid_bytes);
        auth_set_reason(out, "PLAIN: %s for user '%s'", known ? "wrong password" : "unknown user",
                        name);
        return KQ_SASL_FAILURE;
    }
    auth_set_principal(out, (const char *)t.authcid, t.authcid_bytes);
    return KQ_SASL_SUCCESS;
}
