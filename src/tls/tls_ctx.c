/* TLS contexts (one per listener or per outbound side) from Kafka's keys,
 * and the parsers of the enum-valued keys for the config loader. */
#include <openssl/err.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "kq/assert.h"
#include "tls_internal.h"

bool kq_tls_parse_store_type(const char *value, kq_tls_store_type *out, char *err, size_t errlen)
{
    if (strcasecmp(value, "PEM") == 0) {
        *out = KQ_TLS_STORE_PEM;
        return true;
    }
    if (strcasecmp(value, "PKCS12") == 0) {
        *out = KQ_TLS_STORE_PKCS12;
        return true;
    }
    snprintf(err, errlen, "%s", strcasecmp(value, "JKS") == 0
                                    ? "JKS is not supported (convert it to PKCS12 with keytool)"
                                    : "unknown store type (PEM or PKCS12)");
    return false;
}

bool kq_tls_parse_client_auth(const char *value, kq_tls_client_auth *out, char *err,
                              size_t errlen)
{
    static const struct {
        const char *name;
        kq_tls_client_auth value;
    } names[] = {{"none", KQ_TLS_CLIENT_AUTH_NONE},
                 {"requested", KQ_TLS_CLIENT_AUTH_REQUESTED},
                 {"required", KQ_TLS_CLIENT_AUTH_REQUIRED}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(value, names[i].name) == 0) {
            *out = names[i].value;
            return true;
        }
    snprintf(err, errlen, "unknown value (required, requested or none)");
    return false;
}

static bool parse_endpoint_identification(const char *value, bool *verify_host, char *err,
                                          size_t errlen)
{
    *verify_host = !value || strcasecmp(value, "https") == 0;
    if (*verify_host || *value == '\0')
        return true;
    return tls_fail(err, errlen, "ssl.endpoint.identification.algorithm",
                    "unknown algorithm %s (https or empty)", value);
}

static int verify_mode(const kq_tls_settings *s, bool server)
{
    if (!server)
        return SSL_VERIFY_PEER;
    switch (s->client_auth) {
    case KQ_TLS_CLIENT_AUTH_REQUIRED:
        return SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
    case KQ_TLS_CLIENT_AUTH_REQUESTED:
        return SSL_VERIFY_PEER;
    case KQ_TLS_CLIENT_AUTH_NONE:
        return SSL_VERIFY_NONE;
    }
    return SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT; /* not an enum value: strictest */
}

/* Options that hold for every connection: full handshakes only (no
 * resumption that would skip the certificate check), no renegotiation,
 * OpenSSL's buffers freed while a connection is idle. */
static void set_options(SSL_CTX *ssl, bool server)
{
    SSL_CTX_set_options(ssl, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_TICKET | SSL_OP_NO_COMPRESSION);
    SSL_CTX_set_session_cache_mode(ssl, SSL_SESS_CACHE_OFF);
    if (server)
        SSL_CTX_set_num_tickets(ssl, 0);
    SSL_CTX_set_mode(ssl, SSL_MODE_RELEASE_BUFFERS);
    SSL_CTX_set_max_cert_list(ssl, KQ_TLS_PEER_CERT_CHAIN_BYTES_MAX);
}

static kq_tls_ctx *ctx_create(const kq_tls_settings *s, bool server, char *err, size_t errlen)
{
    KQ_ASSERT(s != NULL);
    if (err && errlen)
        err[0] = '\0';
    ERR_clear_error();
    kq_tls_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx) {
        tls_fail(err, errlen, "ssl", "out of memory");
        return NULL;
    }
    ctx->server = server;
    ctx->ssl = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());
    bool ok = ctx->ssl != NULL;
    if (!ok) {
        tls_fail(err, errlen, "ssl", "cannot create an OpenSSL context");
        tls_append_openssl_errors(err, errlen);
    }
    ok = ok && parse_endpoint_identification(s->endpoint_identification_algorithm,
                                             &ctx->verify_host, err, errlen);
    ok = ok && tls_set_protocols_and_ciphers(ctx->ssl, s, err, errlen);
    ok = ok && tls_load_keystore(ctx->ssl, s, server, err, errlen);
    ok = ok && tls_load_truststore(ctx->ssl, s, err, errlen);
    if (!ok) {
        kq_tls_ctx_destroy(ctx);
        ERR_clear_error();
        return NULL;
    }
    ctx->verify_host = ctx->verify_host && !server; /* Kafka never checks client names */
    set_options(ctx->ssl, server);
    SSL_CTX_set_verify(ctx->ssl, verify_mode(s, server), NULL);
    return ctx;
}

kq_tls_ctx *kq_tls_ctx_create_server(const kq_tls_settings *settings, char *err, size_t errlen)
{
    return ctx_create(settings, true, err, errlen);
}

kq_tls_ctx *kq_tls_ctx_create_client(const kq_tls_settings *settings, char *err, size_t errlen)
{
    return ctx_create(settings, false, err, errlen);
}

void kq_tls_ctx_destroy(kq_tls_ctx *ctx)
{
    if (!ctx)
        return;
    SSL_CTX_free(ctx->ssl);
    free(ctx);
}
