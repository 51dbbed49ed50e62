/* Internals of the TLS module shared by its files: the context and
 * connection structures and the error-text helpers. */
#ifndef KQ_TLS_INTERNAL_H
#define KQ_TLS_INTERNAL_H

#include <openssl/pkcs12.h>
#include <openssl/ssl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kq/tls.h"

struct kq_tls_ctx {
    SSL_CTX *ssl;
    bool server;
    bool verify_host; /* ssl.endpoint.identification.algorithm=https (client) */
};

struct kq_tls_conn {
    SSL *ssl;
    BIO *in;  /* ciphertext fed, read by OpenSSL */
    BIO *out; /* ciphertext written by OpenSSL, taken by the caller */
    bool server;
    bool handshake_done;
    bool fed_any;       /* first_byte is set */
    uint8_t first_byte; /* of the peer's first record: tells plaintext peers apart */
    ptrdiff_t failed; /* 0 or the KQ_TLS_ERR_* value every call returns */
    char error[KQ_TLS_ERROR_BYTES];
};

/* Writes "key: reason" to err (printf-style reason). Returns false, so that
 * a failing check can `return tls_fail(...)`. */
bool tls_fail(char *err, size_t errlen, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Appends "; " and OpenSSL's queued error reasons (oldest first) to buf,
 * emptying the queue; nothing when it is empty. */
void tls_append_openssl_errors(char *buf, size_t cap);
/* Reads a whole file of at most KQ_TLS_STORE_FILE_BYTES_MAX, NUL-terminated
 * (*len excludes the NUL); the caller frees it with tls_file_free (it may
 * hold key material). NULL with "key: reason" in err. */
char *tls_read_file(const char *path, const char *key, size_t *len, char *err, size_t errlen);
void tls_file_free(char *data);

/* Reads the PKCS#12 file at path (option file_key) and checks its MAC with
 * password (option password_key, NULL: none); false with "key: reason". */
bool tls_read_pkcs12(const char *path, const char *password, const char *file_key,
                     const char *password_key, PKCS12 **out, char *err, size_t errlen);
/* Loads the keystore (if any) into ctx; server says one is required. */
bool tls_load_keystore(SSL_CTX *ctx, const kq_tls_settings *s, bool server, char *err,
                       size_t errlen);
/* Loads the truststore (or the system's default CAs) into ctx. */
bool tls_load_truststore(SSL_CTX *ctx, const kq_tls_settings *s, char *err, size_t errlen);
/* ssl.enabled.protocols, ssl.protocol and ssl.cipher.suites. */
bool tls_set_protocols_and_ciphers(SSL_CTX *ctx, const kq_tls_settings *s, char *err,
                                   size_t errlen);

#endif
