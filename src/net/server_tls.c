/* TLS on a listener (security protocol SSL), following kq/tls.h's recipe:
 * ciphertext read from the socket goes into the connection's kq_tls_conn
 * at once (a read is sized by its input room, through one scratch buffer
 * per server), decrypted plaintext is pulled into the read buffer under the
 * same request-memory budget as a plaintext connection and parsed into
 * frames there (server_read.c); completed responses stay counted in the
 * write queue until encrypted, and at most KQ_TLS_CONN_CIPHER_OUT_BYTES_MAX
 * of ciphertext per connection is inside uv_writes at a time.
 *
 * Handshakes are bounded: at most KQ_TLS_HANDSHAKES_MAX in progress per
 * listener and KQ_TLS_HANDSHAKES_PER_IP_MAX per address (more are closed at
 * accept), and each has a deadline. Every
 * failure is one log line with the peer and the engine's reason, then the
 * connection closes (after the alert, if any, was written). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/assert.h"
#include "kq/log_line.h"
#include "server_internal.h"

typedef struct tls_write {
    uv_write_t req;
    net_conn *conn;
    size_t len;
    uint8_t data[];
} tls_write;

static void conn_tls_closing(net_conn *c)
{
    if (c->writes_in_flight == 0) {
        conn_close(c, NULL);
        return;
    }
    c->close_when_written = true; /* the alert goes out first */
    conn_update_reading(c);
}

/* One line naming the peer and the reason, then close. */
static void conn_tls_fail(net_conn *c, const char *why);

static void conn_tls_on_written(uv_write_t *req, int status)
{
    tls_write *w = (tls_write *)req;
    net_conn *c = w->conn;
    c->writes_in_flight--;
    c->tls_cipher_in_flight -= w->len;
    free(w);
    conn_touch(c);
    if (status < 0 && !c->closing) {
        conn_close(c, uv_strerror(status));
    } else if (!c->closing) {
        c->outstanding++; /* keep c alive across the flush */
        if (kq_tls_conn_failed(c->tls))
            conn_tls_closing(c);
        else
            conn_tls_flush(c);
        c->outstanding--;
    }
    conn_maybe_free(c);
}

/* Moves every pending ciphertext byte into one uv_write. */
static bool conn_tls_send(net_conn *c)
{
    size_t n = kq_tls_conn_pending_out(c->tls);
    if (n == 0 || c->closing)
        return !c->closing;
    tls_write *w = malloc(sizeof(*w) + n);
    if (!w) {
        conn_close(c, "out of memory");
        return false;
    }
    w->conn = c;
    w->len = kq_tls_conn_take_out(c->tls, w->data, n);
    KQ_ASSERT(w->len == n);
    uv_buf_t buf = uv_buf_init((char *)w->data, (unsigned)w->len);
    c->writes_in_flight++;
    c->tls_cipher_in_flight += w->len;
    int rc = uv_write(&w->req, (uv_stream_t *)&c->tcp, &buf, 1, conn_tls_on_written);
    if (rc < 0) {
        c->writes_in_flight--;
        c->tls_cipher_in_flight -= w->len;
        free(w);
        conn_close(c, uv_strerror(rc));
        return false;
    }
    c->server->stats.sent_bytes += w->len;
    return true;
}

static void conn_tls_fail(net_conn *c, const char *why)
{
    if (c->closing)
        return;
    c->server->stats.tls_failures++;
    if (!kq_tls_conn_failed(c->tls) || why)
        LOG_LINE_LIMITED("connection %s: %s", c->peer, why ? why : "TLS error");
    else if (strstr(kq_tls_conn_error(c->tls), "close_notify") == NULL)
        LOG_LINE_LIMITED("connection %s: %s", c->peer, kq_tls_conn_error(c->tls));
    if (conn_tls_send(c))
        conn_tls_closing(c);
}

bool conn_tls_accept(net_conn *c)
{
    net_server *s = c->server;
    if (s->tls_handshakes >= KQ_TLS_HANDSHAKES_MAX) {
        s->stats.tls_failures++;
        s->stats.refused_tls_handshakes++;
        LOG_LINE_LIMITED("connection %s refused: %u TLS handshakes already in progress "
                         "(KQ_TLS_HANDSHAKES_MAX)",
                         c->peer, (unsigned)s->tls_handshakes);
        conn_close(c, NULL);
        return false;
    }
    /* Per address too, so that one flooding address leaves room for others. */
    uint32_t from_ip = kq_addr_counts_get(&s->tls_per_ip, &c->addr);
    if (from_ip >= KQ_TLS_HANDSHAKES_PER_IP_MAX) {
        s->stats.tls_failures++;
        s->stats.refused_tls_handshakes_per_ip++;
        LOG_LINE_LIMITED("connection %s refused: %u TLS handshakes from its address already in "
                         "progress (KQ_TLS_HANDSHAKES_PER_IP_MAX)",
                         c->peer, (unsigned)from_ip);
        conn_close(c, NULL);
        return false;
    }
    c->tls = kq_tls_conn_create(s->config.tls, true, NULL);
    if (!c->tls) {
        conn_close(c, "out of memory (TLS)");
        return false;
    }
    if (!kq_addr_counts_add(&s->tls_per_ip, &c->addr)) {
        conn_close(c, "out of memory (TLS)");
        return false;
    }
    c->tls_counted_ip = true;
    c->tls_handshaking = true;
    s->tls_handshakes++;
    return true;
}

void conn_tls_handshake_end(net_conn *c)
{
    if (c->tls_counted_ip) {
        c->tls_counted_ip = false;
        kq_addr_counts_remove(&c->server->tls_per_ip, &c->addr);
    }
    if (c->tls_handshaking) {
        c->tls_handshaking = false;
        c->server->tls_handshakes--;
    }
}

void conn_tls_release(net_conn *c)
{
    if (c->tls_plain)
        write_req_free(c->tls_plain);
    c->tls_plain = NULL;
    kq_tls_conn_destroy(c->tls);
    c->tls = NULL;
    free(c->principal);
    c->principal = NULL;
}

/* ---- the handshake */

/* The client certificate's subject through ssl.principal.mapping.rules;
 * false when the connection was failed. */
static bool conn_tls_established(net_conn *c)
{
    conn_tls_handshake_end(c);
    static kq_tls_peer_identity id; /* large; one loop thread */
    bool ok = kq_tls_conn_peer_identity(c->tls, &id);
    if (!id.has_certificate)
        return true; /* User:ANONYMOUS */
    if (!ok) {
        conn_tls_fail(c, "TLS client certificate subject too long");
        return false;
    }
    char name[KQ_TLS_DN_BYTES_MAX];
    kq_tls_principal_result r = KQ_TLS_PRINCIPAL_OK;
    if (c->server->config.tls_principal_rules)
        r = kq_tls_principal_map(c->server->config.tls_principal_rules, id.subject, name,
                                 sizeof(name));
    else
        snprintf(name, sizeof(name), "%s", id.subject);
    if (r != KQ_TLS_PRINCIPAL_OK) {
        char why[KQ_TLS_DN_BYTES_MAX + 96];
        snprintf(why, sizeof(why), "TLS client certificate %s: %s", id.subject,
                 r == KQ_TLS_PRINCIPAL_NO_MATCH ? "no ssl.principal.mapping.rules rule matches"
                                                : "principal too long");
        conn_tls_fail(c, why);
        return false;
    }
    size_t n = strlen(name) + 6;
    c->principal = malloc(n);
    if (!c->principal) {
        conn_close(c, "out of memory");
        return false;
    }
    snprintf(c->principal, n, "User:%s", name);
    return true;
}

static void server_on_tls_timer(uv_timer_t *t)
{
    net_server *s = t->data;
    uint64_t now = uv_now(s->loop);
    uint32_t limit = s->config.tls_handshake_timeout_ms;
    for (net_conn *c = s->conns; c; c = c->next) {
        if (!c->tls_handshaking || c->closing || now - c->accepted_ms < limit)
            continue;
        char why[96];
        snprintf(why, sizeof(why), "TLS handshake not done after %u ms", (unsigned)limit);
        conn_tls_fail(c, why);
    }
}

void server_tls_start(net_server *s)
{
    uv_timer_init(s->loop, &s->tls_timer);
    s->tls_timer.data = s;
    if (!s->config.tls)
        return;
    uint64_t every_ms = s->config.tls_handshake_timeout_ms / 4;
    if (every_ms > 1000)
        every_ms = 1000;
    if (every_ms == 0)
        every_ms = 1;
    uv_timer_start(&s->tls_timer, server_on_tls_timer, every_ms, every_ms);
}

/* ---- reading */

void conn_tls_alloc(net_conn *c, uv_buf_t *buf)
{
    size_t room = kq_tls_conn_feed_room(c->tls);
    if (room == 0) {
        c->tls_in_full = true; /* read_cb gets UV_ENOBUFS and stops reading */
        return;
    }
    if (room > KQ_NET_READ_CHUNK_BYTES)
        room = KQ_NET_READ_CHUNK_BYTES;
    *buf = uv_buf_init((char *)c->server->tls_scratch, (unsigned)room);
}

void conn_tls_on_read(net_conn *c, ssize_t n)
{
    if (n == UV_ENOBUFS) {
        conn_update_reading(c);
        return;
    }
    if (n < 0) {
        if (c->tls_handshaking && n == UV_EOF) {
            c->server->stats.tls_failures++;
            LOG_LINE_LIMITED("connection %s: closed by the peer during the TLS handshake",
                             c->peer);
        }
        conn_close(c, n == UV_EOF ? NULL : uv_strerror((int)n));
        return;
    }
    if (n == 0)
        return;
    conn_touch(c);
    ptrdiff_t fed = kq_tls_conn_feed(c->tls, c->server->tls_scratch, (size_t)n);
    if (fed < 0) {
        conn_tls_fail(c, NULL);
        return;
    }
    KQ_ASSERT((size_t)fed == (size_t)n); /* the read was sized by the room */
    if (c->tls_handshaking && kq_tls_conn_handshake_done(c->tls) && !conn_tls_established(c))
        return;
    conn_tls_pump_in(c);
}

void conn_tls_pump_in(net_conn *c)
{
    c->outstanding++; /* keep c alive across the frames' callbacks */
    while (!c->closing && !c->close_requested && !c->close_when_written &&
           !c->paused_backlog && !c->waiting_memory) {
        if (!kq_tls_conn_handshake_done(c->tls) || !conn_reserve_read(c))
            break;
        ptrdiff_t got = kq_tls_conn_read(c->tls, c->rbuf + c->rlen, c->rcap - c->rlen);
        if (got < 0) {
            conn_tls_fail(c, NULL);
            break;
        }
        if (got == 0)
            break;
        c->rlen += (size_t)got;
        conn_parse(c);
    }
    if (c->rlen == 0 && c->rcap > 0 && !c->closing)
        conn_parse(c); /* fits the buffer: an idle connection holds none */
    if (!c->closing) {
        c->tls_in_full = kq_tls_conn_feed_room(c->tls) == 0;
        conn_update_reading(c);
        conn_tls_send(c); /* the handshake's or the protocol's own output */
    }
    c->outstanding--;
    conn_maybe_free(c);
}

/* ---- writing */

/* Encrypts tls_plain from where it stopped while the ciphertext in flight
 * stays under its bound. Returns false when c failed. */
static bool conn_tls_encrypt(net_conn *c)
{
    write_req *wr = c->tls_plain;
    while (c->tls_plain_index < wr->count &&
           c->tls_cipher_in_flight < KQ_TLS_CONN_CIPHER_OUT_BYTES_MAX) {
        size_t left = wr->lens[c->tls_plain_index] - c->tls_plain_offset;
        size_t budget = KQ_TLS_CONN_CIPHER_OUT_BYTES_MAX - c->tls_cipher_in_flight;
        ptrdiff_t w = kq_tls_conn_write(c->tls, wr->owned[c->tls_plain_index] + c->tls_plain_offset,
                                        left < budget ? left : budget);
        if (w < 0) {
            conn_tls_fail(c, NULL);
            return false;
        }
        if (!conn_tls_send(c))
            return false;
        if (w == 0)
            break;
        c->tls_plain_offset += (size_t)w;
        if (c->tls_plain_offset == wr->lens[c->tls_plain_index]) {
            c->tls_plain_index++;
            c->tls_plain_offset = 0;
        }
    }
    if (c->tls_plain_index == wr->count) {
        write_req_free(wr); /* its bytes leave the write queue */
        c->tls_plain = NULL;
    }
    return true;
}

void conn_tls_flush(net_conn *c)
{
    while (!c->closing && kq_tls_conn_handshake_done(c->tls) && !kq_tls_conn_failed(c->tls)) {
        if (!c->tls_plain) {
            if (c->close_when_written)
                break; /* everything before the closing slot is encrypted */
            uv_buf_t bufs[WRITE_BUFS_MAX];
            bool stop_after = false;
            if (!conn_gather(c, &c->tls_plain, bufs, &stop_after)) {
                conn_close(c, c->gather_error ? c->gather_error : "out of memory");
                return;
            }
            c->tls_plain_index = 0;
            c->tls_plain_offset = 0;
            if (!c->tls_plain) {
                if (stop_after)
                    continue;
                break;
            }
        }
        if (!conn_tls_encrypt(c))
            return;
        if (c->tls_plain)
            break; /* the ciphertext bound: resumed as writes complete */
    }
    if (c->closing)
        return;
    if (c->close_when_written && !c->tls_plain && c->writes_in_flight == 0) {
        conn_close(c, NULL);
        return;
    }
    conn_resume_backlog(c);
}
