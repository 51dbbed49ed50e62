/* Shared pieces of the auth tests: a SCRAM client written against OpenSSL
 * directly (independent of src/auth's helpers), store builders and a
 * driver for whole exchanges. Include after <cmocka.h>. */
#ifndef AUTH_TEST_UTIL_H
#define AUTH_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "kq/auth.h"

static inline const EVP_MD *tc_md(enum kq_scram_hash h)
{
    return h == KQ_SCRAM_SHA_512 ? EVP_sha512() : EVP_sha256();
}

static inline void tc_b64(const uint8_t *in, size_t n, char *out)
{
    EVP_EncodeBlock((unsigned char *)out, in, (int)n);
}

/* Decodes trusted (test) base64; returns the length. */
static inline size_t tc_unb64(const char *in, size_t n, uint8_t *out)
{
    int len = EVP_DecodeBlock(out, (const unsigned char *)in, (int)n);
    assert_true(len >= 0);
    size_t pad = (n > 0 && in[n - 1] == '=') + (n > 1 && in[n - 2] == '=');
    return (size_t)len - pad;
}

static inline void tc_hmac(enum kq_scram_hash h, const uint8_t *key, size_t kl, const void *d,
                           size_t dl, uint8_t *out)
{
    unsigned int len;
    assert_non_null(HMAC(tc_md(h), key, (int)kl, d, dl, out, &len));
}

/* From a server-first "r=..,s=..,i=..": builds the client-final for
 * password into final and the expected server-final into expect (both
 * NUL-terminated). gs2 and bare are the parts of the client-first. */
/* Put in front of the nonce in client-final, as librdkafka < 2.6.1 does
 * with its own nonce (librdkafka#4895). */
static const char *tc_nonce_prefix = "";

static inline void tc_client_final(enum kq_scram_hash h, const char *password, const char *gs2,
                                   const char *bare, const char *server_first, char *final,
                                   char *expect)
{
    size_t hl = h == KQ_SCRAM_SHA_512 ? 64 : 32;
    const char *s = strstr(server_first, ",s="), *i = strstr(server_first, ",i=");
    assert_true(strncmp(server_first, "r=", 2) == 0 && s && i && s < i);
    uint8_t salt[128], salted[64], ck[64], stored[64], sig[64], proof[64], sk[64], ss[64];
    size_t salt_len = tc_unb64(s + 3, (size_t)(i - s - 3), salt);
    int iter = atoi(i + 3);
    assert_int_equal(PKCS5_PBKDF2_HMAC(password, (int)strlen(password), salt, (int)salt_len,
                                       iter, tc_md(h), (int)hl, salted), 1);
    tc_hmac(h, salted, hl, "Client Key", 10, ck);
    unsigned int dl;
    assert_int_equal(EVP_Digest(ck, hl, stored, &dl, tc_md(h), NULL), 1);
    char cb[256], wp[1024], am[4096], pb[128], sb[128];
    tc_b64((const uint8_t *)gs2, strlen(gs2), cb);
    snprintf(wp, sizeof wp, "c=%s,r=%s%.*s", cb, tc_nonce_prefix, (int)(s - server_first - 2),
             server_first + 2);
    snprintf(am, sizeof am, "%s,%s,%s", bare, server_first, wp);
    tc_hmac(h, stored, hl, am, strlen(am), sig);
    for (size_t k = 0; k < hl; k++)
        proof[k] = ck[k] ^ sig[k];
    tc_b64(proof, hl, pb);
    sprintf(final, "%s,p=%s", wp, pb);
    tc_hmac(h, salted, hl, "Server Key", 10, sk);
    tc_hmac(h, sk, hl, am, strlen(am), ss);
    tc_b64(ss, hl, sb);
    sprintf(expect, "v=%s", sb);
}

/* A store from text; fails the test on a parse error. */
static inline kq_cred_store *tc_store(const char *text)
{
    kq_cred_store *s = NULL;
    char err[256];
    int rc = kq_cred_store_parse("test", text, strlen(text), &s, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "parse: %s\n", err);
    assert_int_equal(rc, 0);
    return s;
}

/* A credentials line for user/password (both hashes, given iterations). */
static inline void tc_line(const char *user, const char *password, uint32_t iterations,
                           char *out, size_t out_bytes)
{
    kq_scram_credential c[KQ_SCRAM_HASH_COUNT];
    for (int h = 0; h < KQ_SCRAM_HASH_COUNT; h++)
        assert_int_equal(kq_scram_credential_new((enum kq_scram_hash)h,
                                                 (const uint8_t *)password, strlen(password),
                                                 iterations, &c[h]), 0);
    assert_true(kq_cred_line_format(user, c, out, out_bytes) > 0);
}

static inline kq_sasl_status tc_step(kq_scram_server *s, const char *msg, kq_sasl_output *out)
{
    return kq_scram_server_step(s, (const uint8_t *)msg, strlen(msg), out);
}

/* Whole exchange as saslname (escaped) user with password; returns the
 * final status and leaves the last output in *out. */
static inline kq_sasl_status tc_exchange(const kq_cred_store *store, enum kq_scram_hash h,
                                         const char *saslname, const char *password,
                                         kq_sasl_output *out)
{
    kq_scram_server s;
    char first[520], bare[512], final[2048], expect[256];
    kq_scram_server_init(&s, store, h);
    snprintf(bare, sizeof bare, "n=%s,r=clientNonce42", saslname);
    snprintf(first, sizeof first, "n,,%s", bare);
    assert_int_equal(tc_step(&s, first, out), KQ_SASL_CONTINUE);
    char sf[AUTH_SASL_REPLY_BYTES_MAX + 1];
    memcpy(sf, out->bytes, out->len);
    sf[out->len] = '\0';
    tc_client_final(h, password, "n,,", bare, sf, final, expect);
    kq_sasl_status st = tc_step(&s, final, out);
    if (st == KQ_SASL_SUCCESS) {
        assert_int_equal(out->len, strlen(expect));
        assert_memory_equal(out->bytes, expect, out->len);
    }
    kq_scram_server_clear(&s);
    return st;
}

#endif
