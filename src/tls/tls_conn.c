/* One TLS connection on two memory BIOs: the caller feeds ciphertext from
 * the socket into `in` and takes ciphertext for the socket out of `out`, so
 * OpenSSL never blocks and never sees a file descriptor. Both BIOs are
 * bounded by kq/limits.h: feed takes no more than the input room, write
 * stops accepting plaintext when the output holds too much. */
#include <arpa/inet.h>
#include <limits.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/assert.h"
#include "tls_internal.h"

/* Content types a peer's first TLS record can have. */
#define TLS_RECORD_ALERT 21
#define TLS_RECORD_HANDSHAKE 22

static const char *ssl_error_name(int e)
{
    switch (e) {
    case SSL_ERROR_SYSCALL:
        return "unexpected end of the TLS stream";
    case SSL_ERROR_ZERO_RETURN:
        return "closed by the peer";
    case SSL_ERROR_SSL:
        return "protocol error";
    default:
        return "OpenSSL error";
    }
}

/* Records why the connection ended; returns the value every later call
 * returns. */
static ptrdiff_t conn_fail(kq_tls_conn *conn, const char *what, int ssl_error)
{
    char *buf = conn->error;
    size_t cap = sizeof conn->error;
    snprintf(buf, cap, "%s: ", what);
    size_t head = strlen(buf);
    tls_append_openssl_errors(buf + head, cap - head);
    if (buf[head] == '\0')
        snprintf(buf + head, cap - head, "%s", ssl_error_name(ssl_error));
    long verify = SSL_get_verify_result(conn->ssl);
    size_t used = strlen(buf);
    if (verify != X509_V_OK)
        snprintf(buf + used, cap - used, "; verify: %s", X509_verify_cert_error_string(verify));
    used = strlen(buf);
    bool tls_record = conn->first_byte == TLS_RECORD_HANDSHAKE ||
                      conn->first_byte == TLS_RECORD_ALERT;
    if (conn->fed_any && !tls_record && !conn->handshake_done)
        snprintf(buf + used, cap - used, "; the peer does not speak TLS (%s on a TLS port?)",
                 conn->server ? "a plaintext client" : "a plaintext server");
    conn->failed = KQ_TLS_ERR_FATAL;
    return conn->failed;
}

static ptrdiff_t conn_closed(kq_tls_conn *conn)
{
    ERR_clear_error();
    snprintf(conn->error, sizeof conn->error, "the peer closed the TLS session (close_notify)");
    conn->failed = KQ_TLS_ERR_CLOSED;
    return conn->failed;
}

static ptrdiff_t handshake_step(kq_tls_conn *conn)
{
    ERR_clear_error();
    int r = SSL_do_handshake(conn->ssl);
    if (r == 1) {
        conn->handshake_done = true;
        return 0;
    }
    int e = SSL_get_error(conn->ssl, r);
    if (e == SSL_ERROR_WANT_READ)
        return 0;
    if (e == SSL_ERROR_ZERO_RETURN)
        return conn_closed(conn);
    return conn_fail(conn, "TLS handshake failed", e);
}

static bool is_ip_address(const char *host)
{
    unsigned char addr[16];
    return inet_pton(AF_INET, host, addr) == 1 || inet_pton(AF_INET6, host, addr) == 1;
}

/* SNI for a name, and the name or address the certificate must carry. */
static bool client_setup(SSL *ssl, const kq_tls_ctx *ctx, const char *host)
{
    KQ_ASSERT(host != NULL || !ctx->verify_host);
    if (!host)
        return true;
    bool ip = is_ip_address(host);
    if (!ip && SSL_set_tlsext_host_name(ssl, host) != 1)
        return false;
    if (!ctx->verify_host)
        return true;
    if (ip)
        return X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) == 1;
    SSL_set_hostflags(ssl, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    return SSL_set1_host(ssl, host) == 1;
}

static BIO *new_mem_bio(void)
{
    BIO *bio = BIO_new(BIO_s_mem());
    if (bio)
        BIO_set_mem_eof_return(bio, -1); /* empty means "retry later", not end of stream */
    return bio;
}

kq_tls_conn *kq_tls_conn_create(kq_tls_ctx *ctx, bool server, const char *host)
{
    KQ_ASSERT(ctx != NULL && server == ctx->server);
    kq_tls_conn *conn = calloc(1, sizeof *conn);
    if (!conn)
        return NULL;
    conn->server = server;
    conn->ssl = SSL_new(ctx->ssl);
    conn->in = new_mem_bio();
    conn->out = new_mem_bio();
    if (!conn->ssl || !conn->in || !conn->out) {
        BIO_free(conn->in);
        BIO_free(conn->out);
        SSL_free(conn->ssl);
        free(conn);
        ERR_clear_error();
        return NULL;
    }
    SSL_set_bio(conn->ssl, conn->in, conn->out); /* the SSL owns both now */
    if (server) {
        SSL_set_accept_state(conn->ssl);
        return conn;
    }
    SSL_set_connect_state(conn->ssl);
    if (!client_setup(conn->ssl, ctx, host)) {
        kq_tls_conn_destroy(conn);
        ERR_clear_error();
        return NULL;
    }
    handshake_step(conn); /* the ClientHello; a failure shows in every later call */
    return conn;
}

void kq_tls_conn_destroy(kq_tls_conn *conn)
{
    if (!conn)
        return;
    SSL_free(conn->ssl);
    free(conn);
}

size_t kq_tls_conn_feed_room(const kq_tls_conn *conn)
{
    size_t pending = BIO_ctrl_pending(conn->in);
    return pending >= KQ_TLS_CONN_CIPHER_IN_BYTES_MAX ? 0
                                                      : KQ_TLS_CONN_CIPHER_IN_BYTES_MAX - pending;
}

ptrdiff_t kq_tls_conn_feed(kq_tls_conn *conn, const uint8_t *data, size_t len)
{
    if (conn->failed)
        return conn->failed;
    size_t room = kq_tls_conn_feed_room(conn);
    size_t n = len < room ? len : room;
    if (n > 0) {
        if (!conn->fed_any) {
            conn->fed_any = true;
            conn->first_byte = data[0];
        }
        ERR_clear_error();
        if (BIO_write(conn->in, data, (int)n) != (int)n)
            return conn_fail(conn, "TLS input", SSL_ERROR_SSL);
    }
    if (!conn->handshake_done) {
        ptrdiff_t r = handshake_step(conn);
        if (r < 0)
            return r;
    }
    return (ptrdiff_t)n;
}

ptrdiff_t kq_tls_conn_read(kq_tls_conn *conn, uint8_t *dst, size_t cap)
{
    if (conn->failed)
        return conn->failed;
    if (!conn->handshake_done || cap == 0)
        return 0;
    ERR_clear_error();
    size_t got = 0;
    int r = SSL_read_ex(conn->ssl, dst, cap, &got);
    if (r == 1)
        return (ptrdiff_t)got; /* at most one record's plaintext */
    int e = SSL_get_error(conn->ssl, r);
    if (e == SSL_ERROR_WANT_READ)
        return 0;
    if (e == SSL_ERROR_ZERO_RETURN)
        return conn_closed(conn);
    return conn_fail(conn, "TLS read failed", e);
}

ptrdiff_t kq_tls_conn_write(kq_tls_conn *conn, const uint8_t *data, size_t len)
{
    if (conn->failed)
        return conn->failed;
    if (!conn->handshake_done)
        return 0;
    size_t done = 0;
    while (done < len && BIO_ctrl_pending(conn->out) + KQ_TLS_RECORD_BYTES_MAX <=
                             KQ_TLS_CONN_CIPHER_OUT_BYTES_MAX) {
        size_t chunk = len - done < KQ_TLS_WRITE_CHUNK_BYTES ? len - done : KQ_TLS_WRITE_CHUNK_BYTES;
        size_t wrote = 0;
        ERR_clear_error();
        if (SSL_write_ex(conn->ssl, data + done, chunk, &wrote) != 1) {
            int e = SSL_get_error(conn->ssl, 0);
            if (e == SSL_ERROR_WANT_READ)
                break;
            if (e == SSL_ERROR_ZERO_RETURN)
                return conn_closed(conn);
            return conn_fail(conn, "TLS write failed", e);
        }
        done += wrote;
    }
    return (ptrdiff_t)done;
}

size_t kq_tls_conn_pending_out(const kq_tls_conn *conn)
{
    return BIO_ctrl_pending(conn->out);
}

size_t kq_tls_conn_take_out(kq_tls_conn *conn, uint8_t *dst, size_t cap)
{
    int n = BIO_read(conn->out, dst, cap > INT_MAX ? INT_MAX : (int)cap);
    return n > 0 ? (size_t)n : 0;
}

void kq_tls_conn_shutdown(kq_tls_conn *conn)
{
    if (conn->failed || !conn->handshake_done)
        return;
    SSL_shutdown(conn->ssl);
    ERR_clear_error();
}

bool kq_tls_conn_handshake_done(const kq_tls_conn *conn)
{
    return conn->handshake_done;
}

bool kq_tls_conn_failed(const kq_tls_conn *conn)
{
    return conn->failed != 0;
}

const char *kq_tls_conn_error(const kq_tls_conn *conn)
{
    return conn->error;
}

const char *kq_tls_conn_protocol(const kq_tls_conn *conn)
{
    return conn->handshake_done ? SSL_get_version(conn->ssl) : "";
}

const char *kq_tls_conn_cipher(const kq_tls_conn *conn)
{
    const SSL_CIPHER *c = conn->handshake_done ? SSL_get_current_cipher(conn->ssl) : NULL;
    return c ? SSL_CIPHER_get_name(c) : "";
}
