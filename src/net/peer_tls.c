/* TLS on an outbound peer channel (kq/tls.h's recipe, client side): the
 * handshake starts once TCP connects (host name checked per
 * ssl.endpoint.identification.algorithm, this node's certificate presented
 * for mutual TLS), requests are encrypted only once it is done, and
 * responses are decrypted into the channel's read buffer, bounded by the
 * largest frame as in plaintext. A TLS failure takes the channel down like
 * any other (one log line until it connects again). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/assert.h"
#include "kq/log_line.h"
#include "peer_internal.h"

typedef struct peer_tls_write {
    uv_write_t req;
    uint8_t data[];
} peer_tls_write;

static void peer_tls_on_written(uv_write_t *req, int status)
{
    free(req);
    (void)status; /* a failed write surfaces as a read error / timeout */
}

/* Every pending ciphertext byte into one uv_write; false when p went down. */
static bool peer_tls_send(net_peer *p)
{
    size_t n = kq_tls_conn_pending_out(p->tls);
    if (n == 0)
        return true;
    peer_tls_write *w = malloc(sizeof(*w) + n);
    if (!w) {
        peer_disconnect(p, "out of memory");
        return false;
    }
    size_t got = kq_tls_conn_take_out(p->tls, w->data, n);
    KQ_ASSERT(got == n);
    uv_buf_t buf = uv_buf_init((char *)w->data, (unsigned)got);
    if (uv_write(&w->req, (uv_stream_t *)p->tcp, &buf, 1, peer_tls_on_written) != 0) {
        free(w);
        peer_disconnect(p, "write failed");
        return false;
    }
    p->stats.sent_bytes += got;
    return true;
}

static void peer_tls_fail(net_peer *p)
{
    char why[KQ_TLS_ERROR_BYTES];
    snprintf(why, sizeof(why), "%s", kq_tls_conn_error(p->tls));
    peer_tls_send(p); /* the alert, if any; the close below may cut it */
    peer_disconnect(p, why);
}

bool peer_tls_start(net_peer *p)
{
    if (!p->tls_scratch && !(p->tls_scratch = malloc(PEER_READ_CHUNK))) {
        peer_disconnect(p, "out of memory");
        return false;
    }
    p->tls = kq_tls_conn_create(p->config.tls, false, p->host);
    if (!p->tls) {
        peer_disconnect(p, "cannot set up TLS (out of memory, or a host name OpenSSL refuses)");
        return false;
    }
    return peer_tls_send(p); /* the ClientHello */
}

void peer_tls_end(net_peer *p)
{
    kq_tls_conn_destroy(p->tls);
    p->tls = NULL;
}

void peer_tls_alloc(net_peer *p, uv_buf_t *buf)
{
    size_t room = kq_tls_conn_feed_room(p->tls);
    if (room > PEER_READ_CHUNK)
        room = PEER_READ_CHUNK;
    /* room 0 cannot last: every read pulls all plaintext out (below) */
    *buf = uv_buf_init((char *)p->tls_scratch, (unsigned)room);
}

/* Decrypted plaintext into rbuf, then frames; false when p went down. */
static bool peer_tls_pull(net_peer *p)
{
    for (;;) {
        if (!peer_reserve_read(p)) {
            peer_disconnect(p, "out of memory");
            return false;
        }
        ptrdiff_t got = kq_tls_conn_read(p->tls, p->rbuf + p->rlen, p->rcap - p->rlen);
        if (got < 0) {
            peer_tls_fail(p);
            return false;
        }
        if (got == 0)
            break;
        p->rlen += (size_t)got;
        if (!peer_parse(p))
            return false;
    }
    return peer_tls_send(p);
}

void peer_tls_on_read(net_peer *p, ssize_t n)
{
    if (n == 0)
        return;
    bool was_done = kq_tls_conn_handshake_done(p->tls);
    ptrdiff_t fed = kq_tls_conn_feed(p->tls, p->tls_scratch, (size_t)n);
    if (fed < 0) {
        peer_tls_fail(p);
        return;
    }
    KQ_ASSERT((size_t)fed == (size_t)n); /* the read was sized by the room */
    if (!was_done && kq_tls_conn_handshake_done(p->tls)) {
        if (p->logged_down)
            log_line("peer %d (%s:%u) connected (%s)", p->config.node_id, p->host,
                     p->config.port, kq_tls_conn_protocol(p->tls));
        p->logged_down = false;
        peer_tls_write_pending(p);
        if (p->state != PEER_CONNECTED)
            return;
    }
    if (peer_tls_pull(p))
        peer_arm_timer(p);
}

void peer_tls_write_pending(net_peer *p)
{
    if (p->state != PEER_CONNECTED || !kq_tls_conn_handshake_done(p->tls))
        return;
    for (uint32_t i = p->head; i != p->tail; i++) {
        peer_request *r = &p->queue[i % PEER_QUEUE_MAX];
        while (!r->written) {
            ptrdiff_t w = kq_tls_conn_write(p->tls, r->data + r->sent, r->len - r->sent);
            if (w < 0) {
                peer_tls_fail(p);
                return;
            }
            r->sent += (size_t)w;
            r->written = r->sent == r->len;
            if (!peer_tls_send(p))
                return;
        }
    }
}
