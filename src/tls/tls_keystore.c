/* The keystore: our private key and certificate chain, from a PEM file, a
 * PKCS#12 file or Kafka's in-line PEM keys, checked to belong together. */
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <string.h>

#include "tls_internal.h"

/* Never prompts: a missing password is an empty one. */
static int password_cb(char *buf, int size, int rwflag, void *u)
{
    (void)rwflag;
    const char *pass = u;
    if (!pass || size <= 0 || strlen(pass) > (size_t)size)
        return 0;
    size_t len = strlen(pass);
    memcpy(buf, pass, len);
    return (int)len;
}

static bool use_cert_and_key(SSL_CTX *ctx, X509 *cert, EVP_PKEY *pkey, const char *key,
                             const char *where, char *err, size_t errlen)
{
    if (X509_check_private_key(cert, pkey) != 1) {
        ERR_clear_error();
        return tls_fail(err, errlen, key, "the private key does not match the certificate in %s",
                        where);
    }
    if (SSL_CTX_use_certificate(ctx, cert) != 1 || SSL_CTX_use_PrivateKey(ctx, pkey) != 1) {
        tls_fail(err, errlen, key, "cannot use the key and certificate of %s", where);
        tls_append_openssl_errors(err, errlen);
        return false;
    }
    return true;
}

/* Certificates of text: the first is ours, the rest its chain. */
static bool pem_chain(SSL_CTX *ctx, const char *text, size_t len, X509 **leaf, const char *key,
                      const char *where, char *err, size_t errlen)
{
    BIO *bio = BIO_new_mem_buf(text, (int)len);
    if (!bio)
        return tls_fail(err, errlen, key, "out of memory");
    X509 *cert;
    while ((cert = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
        if (!*leaf) {
            *leaf = cert;
        } else if (SSL_CTX_add0_chain_cert(ctx, cert) != 1) {
            X509_free(cert);
            break;
        }
    }
    BIO_free(bio);
    unsigned long e = ERR_peek_last_error();
    bool at_end = ERR_GET_LIB(e) == ERR_LIB_PEM && ERR_GET_REASON(e) == PEM_R_NO_START_LINE;
    if (!*leaf || !at_end) {
        tls_fail(err, errlen, key, *leaf ? "bad certificate in %s" : "no certificate in %s", where);
        if (*leaf)
            tls_append_openssl_errors(err, errlen);
        ERR_clear_error();
        return false;
    }
    ERR_clear_error();
    return true;
}

static EVP_PKEY *pem_key(const char *text, size_t len, const char *password, const char *key,
                         const char *where, char *err, size_t errlen)
{
    BIO *bio = BIO_new_mem_buf(text, (int)len);
    if (!bio) {
        tls_fail(err, errlen, key, "out of memory");
        return NULL;
    }
    EVP_PKEY *pkey = PEM_read_bio_PrivateKey(bio, NULL, password_cb, (void *)password);
    BIO_free(bio);
    if (pkey) {
        ERR_clear_error();
        return pkey;
    }
    bool encrypted = strstr(text, "ENCRYPTED") != NULL;
    if (encrypted && !password)
        tls_fail(err, errlen, "ssl.key.password",
                 "the private key in %s is encrypted and no password is set", where);
    else if (encrypted)
        tls_fail(err, errlen, "ssl.key.password",
                 "cannot decrypt the private key in %s (wrong password?)", where);
    else if (!strstr(text, "PRIVATE KEY"))
        tls_fail(err, errlen, key, "no private key in %s", where);
    else
        tls_fail(err, errlen, key, "bad private key in %s", where);
    if (encrypted || strstr(text, "PRIVATE KEY"))
        tls_append_openssl_errors(err, errlen);
    ERR_clear_error();
    return NULL;
}

/* key_text may be chain_text (one PEM file holding both). */
static bool load_pem(SSL_CTX *ctx, const char *chain_text, size_t chain_len, const char *key_text,
                     size_t key_len, const kq_tls_settings *s, const char *key, const char *where,
                     char *err, size_t errlen)
{
    X509 *leaf = NULL;
    EVP_PKEY *pkey = NULL;
    bool ok = pem_chain(ctx, chain_text, chain_len, &leaf, key, where, err, errlen) &&
              (pkey = pem_key(key_text, key_len, s->key_password, key, where, err, errlen)) &&
              use_cert_and_key(ctx, leaf, pkey, key, where, err, errlen);
    X509_free(leaf);
    EVP_PKEY_free(pkey);
    return ok;
}

static bool use_pkcs12_chain(SSL_CTX *ctx, STACK_OF(X509) *ca, char *err, size_t errlen)
{
    for (int i = 0; i < sk_X509_num(ca); i++)
        if (SSL_CTX_add1_chain_cert(ctx, sk_X509_value(ca, i)) != 1)
            return tls_fail(err, errlen, "ssl.keystore.location", "out of memory");
    return true;
}

static bool load_pkcs12(SSL_CTX *ctx, const kq_tls_settings *s, char *err, size_t errlen)
{
    const char *path = s->keystore_location;
    PKCS12 *p12 = NULL;
    bool ok = tls_read_pkcs12(path, s->keystore_password, "ssl.keystore.location",
                              "ssl.keystore.password", &p12, err, errlen);
    EVP_PKEY *pkey = NULL;
    X509 *cert = NULL;
    STACK_OF(X509) *ca = NULL;
    if (ok && PKCS12_parse(p12, s->keystore_password, &pkey, &cert, &ca) != 1) {
        ok = tls_fail(err, errlen, "ssl.keystore.password", "cannot decrypt %s", path);
        tls_append_openssl_errors(err, errlen);
    } else if (ok && (!pkey || !cert)) {
        ok = tls_fail(err, errlen, "ssl.keystore.location", "no %s in %s",
                      pkey ? "certificate for the private key" : "private key", path);
    } else if (ok) {
        ok = use_cert_and_key(ctx, cert, pkey, "ssl.keystore.location", path, err, errlen) &&
             use_pkcs12_chain(ctx, ca, err, errlen);
    }
    ERR_clear_error();
    EVP_PKEY_free(pkey);
    X509_free(cert);
    sk_X509_pop_free(ca, X509_free);
    PKCS12_free(p12);
    return ok;
}

static bool load_pem_file(SSL_CTX *ctx, const kq_tls_settings *s, char *err, size_t errlen)
{
    const char *key = "ssl.keystore.location";
    size_t len = 0;
    char *text = tls_read_file(s->keystore_location, key, &len, err, errlen);
    if (!text)
        return false;
    bool ok = strlen(text) == len
                  ? load_pem(ctx, text, len, text, len, s, key, s->keystore_location, err, errlen)
                  : tls_fail(err, errlen, key,
                             "%s is not PEM text (a NUL byte; PKCS12 needs ssl.keystore.type)",
                             s->keystore_location);
    tls_file_free(text);
    return ok;
}

bool tls_load_keystore(SSL_CTX *ctx, const kq_tls_settings *s, bool server, char *err,
                       size_t errlen)
{
    bool inline_chain = s->keystore_certificate_chain && *s->keystore_certificate_chain;
    bool inline_key = s->keystore_key && *s->keystore_key;
    bool file = s->keystore_location && *s->keystore_location;
    if (inline_chain != inline_key)
        return tls_fail(err, errlen,
                        inline_key ? "ssl.keystore.certificate.chain" : "ssl.keystore.key",
                        "required with %s", inline_key ? "ssl.keystore.key"
                                                       : "ssl.keystore.certificate.chain");
    if (inline_chain && file)
        return tls_fail(err, errlen, "ssl.keystore.location",
                        "set either it or ssl.keystore.key and ssl.keystore.certificate.chain");
    if (inline_chain && s->keystore_type != KQ_TLS_STORE_PEM)
        return tls_fail(err, errlen, "ssl.keystore.type", "must be PEM with ssl.keystore.key");
    if (inline_chain)
        return load_pem(ctx, s->keystore_certificate_chain, strlen(s->keystore_certificate_chain),
                        s->keystore_key, strlen(s->keystore_key), s, "ssl.keystore.key",
                        "ssl.keystore.key", err, errlen);
    if (!file)
        return server ? tls_fail(err, errlen, "ssl.keystore.location",
                                 "required for a TLS listener")
                      : true;
    if (s->keystore_type == KQ_TLS_STORE_PKCS12)
        return load_pkcs12(ctx, s, err, errlen);
    return load_pem_file(ctx, s, err, errlen);
}
