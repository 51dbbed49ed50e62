/* The truststore: the CA certificates peers are verified against, from a
 * PEM file, a PKCS#12 file, Kafka's in-line PEM key or the system default;
 * and reading PKCS#12 files (shared with the keystore). */
#include <openssl/err.h>
#include <openssl/pem.h>
#include <string.h>

#include "tls_internal.h"

bool tls_read_pkcs12(const char *path, const char *password, const char *file_key,
                     const char *password_key, PKCS12 **out, char *err, size_t errlen)
{
    size_t len = 0;
    char *data = tls_read_file(path, file_key, &len, err, errlen);
    if (!data)
        return false;
    const unsigned char *p = (const unsigned char *)data;
    PKCS12 *p12 = d2i_PKCS12(NULL, &p, (long)len);
    tls_file_free(data);
    if (!p12) {
        ERR_clear_error();
        return tls_fail(err, errlen, file_key, "%s is not a PKCS#12 file", path);
    }
    /* Java writes stores without a MAC when they have no password. */
    if (PKCS12_mac_present(p12) && PKCS12_verify_mac(p12, password, -1) != 1) {
        ERR_clear_error();
        PKCS12_free(p12);
        return tls_fail(err, errlen, password_key, "wrong password for %s%s", path,
                        password ? "" : " (none set)");
    }
    *out = p12;
    return true;
}

static bool add_cert(X509_STORE *store, X509 *cert, char *err, size_t errlen)
{
    if (X509_STORE_add_cert(store, cert) == 1)
        return true;
    /* A certificate listed twice is harmless. */
    unsigned long e = ERR_peek_last_error();
    if (ERR_GET_REASON(e) == X509_R_CERT_ALREADY_IN_HASH_TABLE) {
        ERR_clear_error();
        return true;
    }
    tls_fail(err, errlen, "ssl.truststore.location", "cannot add a certificate");
    tls_append_openssl_errors(err, errlen);
    return false;
}

static bool trust_pem(X509_STORE *store, const char *text, const char *key, const char *where,
                      char *err, size_t errlen)
{
    BIO *bio = BIO_new_mem_buf(text, -1);
    if (!bio)
        return tls_fail(err, errlen, key, "out of memory");
    int count = 0;
    X509 *cert;
    bool ok = true;
    while (ok && (cert = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
        ok = add_cert(store, cert, err, errlen);
        X509_free(cert);
        count++;
    }
    BIO_free(bio);
    unsigned long e = ERR_peek_last_error();
    bool at_end = ERR_GET_LIB(e) == ERR_LIB_PEM && ERR_GET_REASON(e) == PEM_R_NO_START_LINE;
    if (ok && (count == 0 || !at_end)) {
        ok = tls_fail(err, errlen, key, count ? "bad certificate in %s" : "no certificate in %s",
                      where);
        if (count)
            tls_append_openssl_errors(err, errlen);
    }
    ERR_clear_error();
    return ok;
}

static bool trust_pkcs12(X509_STORE *store, const kq_tls_settings *s, char *err, size_t errlen)
{
    const char *path = s->truststore_location;
    PKCS12 *p12 = NULL;
    if (!tls_read_pkcs12(path, s->truststore_password, "ssl.truststore.location",
                         "ssl.truststore.password", &p12, err, errlen))
        return false;
    EVP_PKEY *pkey = NULL;
    X509 *cert = NULL;
    STACK_OF(X509) *ca = NULL;
    bool ok = PKCS12_parse(p12, s->truststore_password, &pkey, &cert, &ca) == 1;
    if (!ok) {
        tls_fail(err, errlen, "ssl.truststore.password", "cannot decrypt %s", path);
        tls_append_openssl_errors(err, errlen);
    }
    if (ok && cert)
        ok = add_cert(store, cert, err, errlen);
    for (int i = 0; ok && i < sk_X509_num(ca); i++)
        ok = add_cert(store, sk_X509_value(ca, i), err, errlen);
    if (ok && !cert && sk_X509_num(ca) == 0)
        ok = tls_fail(err, errlen, "ssl.truststore.location", "no certificate in %s", path);
    ERR_clear_error();
    EVP_PKEY_free(pkey);
    X509_free(cert);
    sk_X509_pop_free(ca, X509_free);
    PKCS12_free(p12);
    return ok;
}

static bool trust_pem_file(X509_STORE *store, const char *path, char *err, size_t errlen)
{
    size_t len = 0;
    char *text = tls_read_file(path, "ssl.truststore.location", &len, err, errlen);
    if (!text)
        return false;
    bool ok = strlen(text) == len
                  ? trust_pem(store, text, "ssl.truststore.location", path, err, errlen)
                  : tls_fail(err, errlen, "ssl.truststore.location",
                             "%s is not PEM text (a NUL byte; PKCS12 needs ssl.truststore.type)",
                             path);
    tls_file_free(text);
    return ok;
}

bool tls_load_truststore(SSL_CTX *ctx, const kq_tls_settings *s, char *err, size_t errlen)
{
    bool file = s->truststore_location && *s->truststore_location;
    bool inline_pem = s->truststore_certificates && *s->truststore_certificates;
    X509_STORE *store = SSL_CTX_get_cert_store(ctx);
    if (file && inline_pem)
        return tls_fail(err, errlen, "ssl.truststore.location",
                        "set either it or ssl.truststore.certificates");
    if (inline_pem && s->truststore_type != KQ_TLS_STORE_PEM)
        return tls_fail(err, errlen, "ssl.truststore.type",
                        "must be PEM with ssl.truststore.certificates");
    if (inline_pem)
        return trust_pem(store, s->truststore_certificates, "ssl.truststore.certificates",
                         "ssl.truststore.certificates", err, errlen);
    if (!file) {
        if (SSL_CTX_set_default_verify_paths(ctx) != 1)
            ERR_clear_error(); /* no system CAs: every peer fails verification */
        return true;
    }
    if (s->truststore_type == KQ_TLS_STORE_PKCS12)
        return trust_pkcs12(store, s, err, errlen);
    return trust_pem_file(store, s->truststore_location, err, errlen);
}
