/* The server side of one SCRAM exchange (RFC 5802 section 5, RFC 7677):
 * client-first -> server-first, client-final -> server-final. */
#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "auth_internal.h"
#include "kq/assert.h"

enum { STAGE_CLIENT_FIRST = 0, STAGE_CLIENT_FINAL, STAGE_DONE };

void kq_scram_server_init(kq_scram_server *s, const kq_cred_store *store, enum kq_scram_hash hash)
{
    memset(s, 0, sizeof *s);
    s->store = store;
    s->hash = hash;
    s->stage = STAGE_CLIENT_FIRST;
}

int kq_scram_server_set_nonce(kq_scram_server *s, const char *nonce, size_t nonce_bytes)
{
    if (nonce_bytes == 0 || nonce_bytes > sizeof s->fixed_nonce ||
        !scram_printable(nonce, nonce_bytes))
        return -1;
    memcpy(s->fixed_nonce, nonce, nonce_bytes);
    s->fixed_nonce_bytes = nonce_bytes;
    return 0;
}

void kq_scram_server_clear(kq_scram_server *s)
{
    OPENSSL_cleanse(s, sizeof *s);
}

/* Ends the exchange; e is an RFC 5802 server-error-value sent as "e=..."
 * (NULL: nothing is sent, as before server-first there is no place for it). */
static kq_sasl_status scram_fail(kq_scram_server *s, kq_sasl_output *out, const char *e,
                                 const char *why)
{
    char name[64];
    auth_log_name(name, sizeof name, s->user, s->user_bytes);
    s->stage = STAGE_DONE;
    out->len = 0;
    if (e) {
        int n = snprintf((char *)out->bytes, sizeof out->bytes, "e=%s", e);
        out->len = n > 0 && (size_t)n < sizeof out->bytes ? (size_t)n : 0;
    }
    auth_set_reason(out, "%s: %s%s%s%s", kq_scram_hash_name(s->hash), why,
                    s->user_bytes ? " (user '" : "", name, s->user_bytes ? "')" : "");
    return KQ_SASL_FAILURE;
}

/* The server's nonce part: the fixed one of a test, or base64 of
 * AUTH_SCRAM_SERVER_NONCE_RANDOM_BYTES random bytes (no ',' in base64). */
static int server_nonce(const kq_scram_server *s, char *out, size_t out_bytes, size_t *len)
{
    if (s->fixed_nonce_bytes) {
        memcpy(out, s->fixed_nonce, s->fixed_nonce_bytes);
        *len = s->fixed_nonce_bytes;
        return 0;
    }
    uint8_t r[AUTH_SCRAM_SERVER_NONCE_RANDOM_BYTES];
    if (RAND_bytes(r, (int)sizeof r) != 1)
        return -1;
    *len = auth_b64_encode(r, sizeof r, out, out_bytes);
    return *len ? 0 : -1;
}

/* server-first-message = "r=" c-nonce s-nonce ",s=" salt ",i=" iteration-count */
static int write_server_first(kq_scram_server *s, const scram_client_first *cf)
{
    char snonce[AUTH_SCRAM_SERVER_NONCE_BYTES_MAX + 1];
    char salt[AUTH_B64_BYTES(AUTH_SALT_BYTES_MAX) + 1];
    size_t sn = 0;
    if (server_nonce(s, snonce, sizeof snonce, &sn) != 0 ||
        !auth_b64_encode(s->cred.salt, s->cred.salt_bytes, salt, sizeof salt))
        return -1;
    int n = snprintf(s->server_first, sizeof s->server_first, "r=%.*s%.*s,s=%s,i=%u",
                     (int)cf->nonce_bytes, cf->nonce, (int)sn, snonce, salt,
                     (unsigned)s->cred.iterations);
    if (n < 0 || (size_t)n >= sizeof s->server_first)
        return -1;
    s->server_first_bytes = (size_t)n;
    s->nonce_bytes = cf->nonce_bytes + sn;
    s->client_nonce_bytes = cf->nonce_bytes;
    return 0;
}

static kq_sasl_status step_client_first(kq_scram_server *s, const char *msg, size_t n,
                                        kq_sasl_output *out)
{
    scram_client_first cf;
    const char *why = NULL;
    if (scram_parse_client_first(msg, n, &cf, &why) != 0)
        return scram_fail(s, out, NULL, why);
    memcpy(s->client_first, msg, n);
    s->client_first_bytes = n;
    s->gs2_bytes = cf.gs2_bytes;
    memcpy(s->user, cf.user, cf.user_bytes + 1);
    s->user_bytes = cf.user_bytes;
    const kq_scram_credential *c = kq_cred_store_find(s->store, cf.user, cf.user_bytes, s->hash);
    s->user_known = c != NULL;
    if (c)
        s->cred = *c;
    else if (auth_fake_credential(s->hash, cf.user, cf.user_bytes, &s->cred) != 0)
        return scram_fail(s, out, NULL, "no randomness for a fake credential");
    /* cf.nonce points into msg, still alive here */
    if (write_server_first(s, &cf) != 0)
        return scram_fail(s, out, NULL, "cannot build server-first");
    memcpy(out->bytes, s->server_first, s->server_first_bytes);
    out->len = s->server_first_bytes;
    s->stage = STAGE_CLIENT_FINAL;
    return KQ_SASL_CONTINUE;
}

/* AuthMessage = client-first-message-bare "," server-first-message ","
 * client-final-message-without-proof (RFC 5802 section 3). */
static size_t auth_message(const kq_scram_server *s, const char *final, size_t without_proof,
                           char *out, size_t cap)
{
    size_t bare = s->client_first_bytes - s->gs2_bytes;
    size_t len = bare + 1 + s->server_first_bytes + 1 + without_proof;
    KQ_ASSERT(len <= cap);
    memcpy(out, s->client_first + s->gs2_bytes, bare);
    out[bare] = ',';
    memcpy(out + bare + 1, s->server_first, s->server_first_bytes);
    out[bare + 1 + s->server_first_bytes] = ',';
    memcpy(out + bare + 2 + s->server_first_bytes, final, without_proof);
    return len;
}

/* ClientSignature = HMAC(StoredKey, AuthMessage); ClientKey = ClientProof
 * XOR ClientSignature; the proof holds iff H(ClientKey) == StoredKey
 * (section 3), compared in constant time. */
static int verify_proof(const kq_scram_server *s, const char *am, size_t am_len,
                        const uint8_t *proof, bool *ok)
{
    size_t h = kq_scram_hash_bytes(s->hash);
    uint8_t sig[AUTH_HASH_BYTES_MAX], key[AUTH_HASH_BYTES_MAX], stored[AUTH_HASH_BYTES_MAX];
    int rc = auth_hmac(s->hash, s->cred.stored_key, h, am, am_len, sig);
    for (size_t i = 0; i < h; i++)
        key[i] = proof[i] ^ sig[i];
    if (rc == 0)
        rc = auth_digest(s->hash, key, h, stored);
    *ok = rc == 0 && CRYPTO_memcmp(stored, s->cred.stored_key, h) == 0;
    OPENSSL_cleanse(key, sizeof key);
    OPENSSL_cleanse(sig, sizeof sig);
    return rc;
}

/* server-final-message = "v=" base64(HMAC(ServerKey, AuthMessage)) */
static int write_server_final(const kq_scram_server *s, const char *am, size_t am_len,
                              kq_sasl_output *out)
{
    size_t h = kq_scram_hash_bytes(s->hash);
    uint8_t sig[AUTH_HASH_BYTES_MAX];
    char *dst = (char *)out->bytes;
    if (auth_hmac(s->hash, s->cred.server_key, h, am, am_len, sig) != 0)
        return -1;
    memcpy(dst, "v=", 2);
    size_t n = auth_b64_encode(sig, h, dst + 2, sizeof out->bytes - 2);
    out->len = n ? n + 2 : 0;
    return n ? 0 : -1;
}

/* RFC 5802 section 5.1: the client sends back the server's whole nonce.
 * librdkafka before 2.6.1 sends its own nonce in front of it once more
 * (librdkafka#4895); Kafka 3.8.1 to 3.9 accept that (a suffix match) and
 * so does this server, but only in exactly that form. The proof covers the
 * message as sent, so nothing else changes. */
static bool nonce_echoed(const kq_scram_server *s, const scram_client_final *cf)
{
    const char *full = s->server_first + 2;
    if (cf->nonce_bytes == s->nonce_bytes)
        return memcmp(cf->nonce, full, s->nonce_bytes) == 0;
    return cf->nonce_bytes == s->client_nonce_bytes + s->nonce_bytes &&
           memcmp(cf->nonce, full, s->client_nonce_bytes) == 0 &&
           memcmp(cf->nonce + s->client_nonce_bytes, full, s->nonce_bytes) == 0;
}

static kq_sasl_status step_client_final(kq_scram_server *s, const char *msg, size_t n,
                                        kq_sasl_output *out)
{
    scram_client_final cf;
    const char *why = NULL, *e = NULL;
    char am[AUTH_SCRAM_MESSAGE_BYTES_MAX * 2 + AUTH_SASL_REPLY_BYTES_MAX + 2];
    bool ok = false;
    if (scram_parse_client_final(msg, n, s->hash, &cf, &why, &e) != 0)
        return scram_fail(s, out, e, why);
    /* without channel binding c= carries the gs2 header back (section 7) */
    if (cf.cbind_bytes != s->gs2_bytes || memcmp(cf.cbind, s->client_first, s->gs2_bytes) != 0)
        return scram_fail(s, out, "channel-bindings-dont-match",
                          "channel binding (c=) differs from the gs2 header");
    if (!nonce_echoed(s, &cf))
        return scram_fail(s, out, "other-error", "nonce differs from the server's");
    size_t am_len = auth_message(s, msg, cf.without_proof_bytes, am, sizeof am);
    if (verify_proof(s, am, am_len, cf.proof, &ok) != 0)
        return scram_fail(s, out, "other-error", "internal error checking the proof");
    /* the same reply for both: which users exist is not revealed */
    if (!s->user_known)
        return scram_fail(s, out, "invalid-proof", "unknown user");
    if (!ok)
        return scram_fail(s, out, "invalid-proof", "wrong password (invalid proof)");
    if (write_server_final(s, am, am_len, out) != 0)
        return scram_fail(s, out, "other-error", "cannot build server-final");
    auth_set_principal(out, s->user, s->user_bytes);
    s->stage = STAGE_DONE;
    return KQ_SASL_SUCCESS;
}

kq_sasl_status kq_scram_server_step(kq_scram_server *s, const uint8_t *in, size_t in_bytes,
                                    kq_sasl_output *out)
{
    auth_output_reset(out);
    if (s->stage == STAGE_DONE)
        return scram_fail(s, out, NULL, "token after the exchange finished");
    if (in_bytes == 0 || in_bytes > AUTH_SCRAM_MESSAGE_BYTES_MAX)
        return scram_fail(s, out, s->stage == STAGE_CLIENT_FINAL ? "invalid-encoding" : NULL,
                          in_bytes ? "message too long" : "empty message");
    if (s->stage == STAGE_CLIENT_FIRST)
        return step_client_first(s, (const char *)in, in_bytes, out);
    return step_client_final(s, (const char *)in, in_bytes, out);
}
