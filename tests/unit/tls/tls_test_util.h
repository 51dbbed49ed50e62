/* Shared helpers for the TLS tests: certificates generated at test time by
 * gen-certs.sh into a temporary directory, settings for them, and an
 * in-memory pump that moves bytes between a client and a server connection
 * in random chunk sizes (no sockets). */
#ifndef KQ_TLS_TEST_UTIL_H
#define KQ_TLS_TEST_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kq/tls.h"

static char tt_dir[256];

/* cmocka group setup: runs gen-certs.sh (next to this file) into a fresh
 * temporary directory; fails the whole group clearly without openssl. */
static int tt_certs_setup(void **state)
{
    (void)state;
    if (system("command -v openssl >/dev/null 2>&1") != 0) {
        fprintf(stderr, "TLS tests: the openssl CLI is not installed (apt-get install openssl); "
                        "it generates the test certificates\n");
        return -1;
    }
    snprintf(tt_dir, sizeof tt_dir, "/tmp/kq-tls-test-XXXXXX");
    if (!mkdtemp(tt_dir)) {
        perror("mkdtemp");
        return -1;
    }
    char src[512];
    snprintf(src, sizeof src, "%s", __FILE__);
    char *slash = strrchr(src, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(src, sizeof src, ".");
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "sh '%s/gen-certs.sh' '%s' >'%s/gen.log' 2>&1", src, tt_dir, tt_dir);
    if (system(cmd) != 0) {
        fprintf(stderr, "TLS tests: gen-certs.sh failed; see %s/gen.log\n", tt_dir);
        return -1;
    }
    return 0;
}

static int tt_certs_teardown(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tt_dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* A path in the certificate directory (a few stay valid at once). */
static const char *tt_path(const char *name)
{
    static char paths[8][320];
    static unsigned next;
    char *p = paths[next++ % 8];
    snprintf(p, sizeof paths[0], "%s/%s", tt_dir, name);
    return p;
}

/* node1 as a listener: its PEM keystore and the CA as PEM truststore. */
static kq_tls_settings tt_server_settings(void)
{
    kq_tls_settings s = {0};
    s.keystore_location = tt_path("node1.pem");
    s.truststore_location = tt_path("ca.crt");
    return s;
}

/* A client trusting the CA, without a certificate of its own. */
static kq_tls_settings tt_client_settings(void)
{
    kq_tls_settings s = {0};
    s.truststore_location = tt_path("ca.crt");
    return s;
}

static kq_tls_ctx *tt_ctx(const kq_tls_settings *s, bool server)
{
    char err[KQ_TLS_ERROR_BYTES];
    kq_tls_ctx *ctx = server ? kq_tls_ctx_create_server(s, err, sizeof err)
                             : kq_tls_ctx_create_client(s, err, sizeof err);
    if (!ctx)
        fprintf(stderr, "context refused: %s\n", err);
    return ctx;
}

/* ---- the pump */

static uint64_t tt_rng = 0x9E3779B97F4A7C15ull;

static size_t tt_rand(size_t max) /* 1..max */
{
    tt_rng ^= tt_rng << 13;
    tt_rng ^= tt_rng >> 7;
    tt_rng ^= tt_rng << 17;
    return max ? (size_t)(tt_rng % max) + 1 : 0;
}

typedef struct tt_end {
    kq_tls_conn *conn;
    const uint8_t *send; /* plaintext to write */
    size_t send_len, sent;
    uint8_t *recv; /* plaintext read */
    size_t recv_len, recv_cap;
    size_t chunk_max; /* largest random chunk; 0: move everything at once */
    size_t in_peak, out_peak; /* the most this end's buffers held */
    uint8_t wire[1 << 16]; /* ciphertext taken from conn, not yet fed to the peer */
    size_t wire_len;
} tt_end;

static size_t tt_chunk(const tt_end *e, size_t max)
{
    if (max == 0)
        return 0;
    size_t c = e->chunk_max ? tt_rand(e->chunk_max) : max;
    return c < max ? c : max;
}

/* One round from a to b; returns whether any byte moved. */
static bool tt_step(tt_end *a, tt_end *b)
{
    bool moved = false;
    if (a->sent < a->send_len) {
        ptrdiff_t w = kq_tls_conn_write(a->conn, a->send + a->sent,
                                        tt_chunk(a, a->send_len - a->sent));
        if (w > 0) {
            a->sent += (size_t)w;
            moved = true;
        }
    }
    size_t out = kq_tls_conn_pending_out(a->conn);
    if (out > a->out_peak)
        a->out_peak = out;
    size_t n = kq_tls_conn_take_out(a->conn, a->wire + a->wire_len,
                                    tt_chunk(a, sizeof a->wire - a->wire_len));
    a->wire_len += n;
    ptrdiff_t f = kq_tls_conn_feed(b->conn, a->wire, tt_chunk(a, a->wire_len));
    if (f > 0) {
        memmove(a->wire, a->wire + f, a->wire_len - (size_t)f);
        a->wire_len -= (size_t)f;
    }
    size_t in = KQ_TLS_CONN_CIPHER_IN_BYTES_MAX - kq_tls_conn_feed_room(b->conn);
    if (in > b->in_peak)
        b->in_peak = in;
    /* Always read: alerts arrive after a TLS 1.3 client's handshake ended. */
    static uint8_t scratch[16384];
    for (;;) {
        bool keep = b->recv_len < b->recv_cap;
        uint8_t *dst = keep ? b->recv + b->recv_len : scratch;
        size_t cap = keep ? b->recv_cap - b->recv_len : sizeof scratch;
        ptrdiff_t r = kq_tls_conn_read(b->conn, dst, tt_chunk(b, cap));
        if (r <= 0)
            break;
        if (keep)
            b->recv_len += (size_t)r;
        moved = true;
    }
    return moved || n > 0 || f > 0;
}

/* Pumps both ways until nothing moves (done, stuck or failed). */
static void tt_pump(tt_end *client, tt_end *server)
{
    for (int idle = 0, i = 0; idle < 4 && i < 1000000; i++) {
        bool moved = tt_step(client, server);
        moved = tt_step(server, client) || moved;
        idle = moved ? 0 : idle + 1;
        if (kq_tls_conn_failed(client->conn) && kq_tls_conn_failed(server->conn))
            break;
    }
}

/* A handshake between fresh connections of sctx and cctx; host as given to
 * the client. The caller destroys both ends' conns. */
static void tt_handshake(kq_tls_ctx *cctx, kq_tls_ctx *sctx, const char *host, tt_end *client,
                         tt_end *server)
{
    memset(client, 0, sizeof *client);
    memset(server, 0, sizeof *server);
    server->conn = kq_tls_conn_create(sctx, true, NULL);
    client->conn = kq_tls_conn_create(cctx, false, host);
    tt_pump(client, server);
}

#endif
