/* Outbound channel to one quorum peer: connect with a timeout, reconnect
 * after quorum.retry.backoff.ms, pipeline requests and match responses by
 * correlation id, fail a request after quorum.request.timeout.ms. A peer that
 * is down, slow or sends garbage only ever costs its own channel. */
#include "peer_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/log_line.h"

static void peer_write_pending(net_peer *p);
static void peer_connect(net_peer *p);

static peer_request *peer_at(net_peer *p, uint32_t i)
{
    return &p->queue[i % PEER_QUEUE_MAX];
}

static void peer_fail_all(net_peer *p)
{
    while (p->head != p->tail) {
        peer_request *r = peer_at(p, p->head);
        p->head++;
        free(r->data);
        r->data = NULL;
        p->config.on_response(p->config.ctx, p, r->request_ctx, NULL, 0);
    }
}

static void peer_on_timer(uv_timer_t *t)
{
    net_peer *p = t->data;
    uint64_t now = uv_now(p->loop);
    if (p->state == PEER_BACKOFF) {
        p->state = PEER_IDLE;
        if (p->head != p->tail)
            peer_connect(p);
        return;
    }
    if (p->state == PEER_CONNECTING && now >= p->connect_deadline_ms) {
        peer_disconnect(p, "connect timed out");
        return;
    }
    if (p->head != p->tail && now >= peer_at(p, p->head)->deadline_ms) {
        peer_disconnect(p, "request timed out");
        return;
    }
    peer_arm_timer(p);
}

void peer_arm_timer(net_peer *p)
{
    uint64_t now = uv_now(p->loop);
    uint64_t due = UINT64_MAX;
    if (p->state == PEER_CONNECTING)
        due = p->connect_deadline_ms;
    if (p->head != p->tail && peer_at(p, p->head)->deadline_ms < due)
        due = peer_at(p, p->head)->deadline_ms;
    if (due == UINT64_MAX) {
        uv_timer_stop(&p->timer);
        return;
    }
    uv_timer_start(&p->timer, peer_on_timer, due > now ? due - now : 0, 0);
}

static void peer_unref(net_peer *p)
{
    if (--p->refs == 0 && p->destroyed) {
        free(p->rbuf);
        free(p->tls_scratch);
        free(p);
    }
}

static void peer_on_closed(uv_handle_t *h)
{
    net_peer *p = h->data;
    free(h);
    peer_unref(p);
}

static void peer_on_timer_closed(uv_handle_t *h)
{
    peer_unref(h->data);
}

void peer_disconnect(net_peer *p, const char *why)
{
    peer_tls_end(p);
    if (p->tcp) {
        uv_close((uv_handle_t *)p->tcp, peer_on_closed);
        p->tcp = NULL;
    }
    if (!p->logged_down && why) {
        log_line("peer %d (%s:%u) unavailable: %s", p->config.node_id, p->host, p->config.port,
                 why);
        p->logged_down = true;
    }
    p->rlen = 0;
    p->state = PEER_BACKOFF;
    peer_fail_all(p);
    uv_timer_start(&p->timer, peer_on_timer, p->config.retry_backoff_ms, 0);
}

bool peer_reserve_read(net_peer *p)
{
    size_t want = p->rlen + PEER_READ_CHUNK;
    if (p->rlen >= 4) {
        uint32_t size = ((uint32_t)p->rbuf[0] << 24) | ((uint32_t)p->rbuf[1] << 16) |
                        ((uint32_t)p->rbuf[2] << 8) | p->rbuf[3];
        if (size <= (uint32_t)p->config.frame_bytes_max && size + 4 > want)
            want = (size_t)size + 4;
    }
    if (want > p->rcap) {
        uint8_t *n = realloc(p->rbuf, want);
        if (!n)
            return false;
        p->rbuf = n;
        p->rcap = want;
    }
    return true;
}

static void peer_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)suggested;
    net_peer *p = h->data;
    *buf = uv_buf_init(NULL, 0);
    if (p->tls) {
        peer_tls_alloc(p, buf);
        return;
    }
    if (!peer_reserve_read(p))
        return;
    *buf = uv_buf_init((char *)p->rbuf + p->rlen, (unsigned)(p->rcap - p->rlen));
}

bool peer_parse(net_peer *p)
{
    size_t pos = 0;
    while (p->rlen - pos >= 4) {
        const uint8_t *f = p->rbuf + pos;
        int32_t size = (int32_t)(((uint32_t)f[0] << 24) | ((uint32_t)f[1] << 16) |
                                 ((uint32_t)f[2] << 8) | f[3]);
        if (size < 4 || size > p->config.frame_bytes_max) {
            peer_disconnect(p, "bad response frame size");
            return false;
        }
        if (p->rlen - pos < (size_t)size + 4)
            break;
        int32_t corr = (int32_t)(((uint32_t)f[4] << 24) | ((uint32_t)f[5] << 16) |
                                 ((uint32_t)f[6] << 8) | f[7]);
        if (p->head == p->tail || !peer_at(p, p->head)->written ||
            peer_at(p, p->head)->correlation_id != corr) {
            peer_disconnect(p, "response with an unexpected correlation id");
            return false;
        }
        peer_request *r = peer_at(p, p->head);
        p->head++;
        free(r->data);
        r->data = NULL;
        p->config.on_response(p->config.ctx, p, r->request_ctx, f + 4, (size_t)size);
        if (p->destroyed || p->state != PEER_CONNECTED)
            return false;
        pos += (size_t)size + 4;
    }
    if (pos > 0) {
        memmove(p->rbuf, p->rbuf + pos, p->rlen - pos);
        p->rlen -= pos;
    }
    return true;
}

static void peer_on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    (void)buf;
    net_peer *p = s->data;
    if (n > 0)
        p->stats.received_bytes += (uint64_t)n;
    if (p->tls && n >= 0) {
        peer_tls_on_read(p, n);
        return;
    }
    if (n < 0) {
        peer_disconnect(p, n == UV_EOF ? "connection closed by peer" : uv_strerror((int)n));
        return;
    }
    p->rlen += (size_t)n;
    if (peer_parse(p))
        peer_arm_timer(p);
}

typedef struct peer_write {
    uv_write_t req;
} peer_write;

static void peer_on_written(uv_write_t *req, int status)
{
    free(req);
    (void)status; /* a failed write surfaces as a read error / timeout */
}

static void peer_write_pending(net_peer *p)
{
    if (p->tls) {
        peer_tls_write_pending(p);
        return;
    }
    while (p->state == PEER_CONNECTED) {
        uv_buf_t bufs[64];
        int count = 0;
        for (uint32_t i = p->head; i != p->tail && count < 64; i++) {
            peer_request *r = peer_at(p, i);
            if (r->written)
                continue;
            bufs[count++] = uv_buf_init((char *)r->data, (unsigned)r->len);
            r->written = true;
        }
        if (count == 0)
            return;
        uv_write_t *w = malloc(sizeof(*w));
        if (!w || uv_write(w, (uv_stream_t *)p->tcp, bufs, count, peer_on_written) != 0) {
            free(w);
            peer_disconnect(p, "write failed");
            return;
        }
        for (int i = 0; i < count; i++)
            p->stats.sent_bytes += bufs[i].len;
    }
}

static void peer_on_connect(uv_connect_t *req, int status)
{
    net_peer *p = req->data;
    if (p->destroyed || p->state != PEER_CONNECTING)
        return; /* cancelled by a close */
    if (status < 0) {
        peer_disconnect(p, uv_strerror(status));
        return;
    }
    p->state = PEER_CONNECTED;
    if (!p->config.tls) { /* TLS: once the handshake is done (peer_tls.c) */
        if (p->logged_down)
            log_line("peer %d (%s:%u) connected", p->config.node_id, p->host, p->config.port);
        p->logged_down = false;
    }
    uv_tcp_nodelay(p->tcp, 1);
    uv_read_start((uv_stream_t *)p->tcp, peer_alloc, peer_on_read);
    if (p->config.tls && !peer_tls_start(p))
        return;
    /* Requests queued while disconnected were failed; start their clocks now. */
    uint64_t now = uv_now(p->loop);
    for (uint32_t i = p->head; i != p->tail; i++)
        peer_at(p, i)->deadline_ms = now + p->config.request_timeout_ms;
    peer_write_pending(p);
    peer_arm_timer(p);
}

static void peer_on_resolved(uv_getaddrinfo_t *req, int status, struct addrinfo *res)
{
    net_peer *p = req->data;
    p->resolving = false;
    if (p->destroyed || p->state != PEER_RESOLVING) {
        /* destroyed, or the attempt was abandoned (timeout) while resolving */
        uv_freeaddrinfo(res);
        peer_unref(p);
        return;
    }
    p->refs--; /* p->refs > 0: the timer holds one */
    if (status < 0 || !res) {
        uv_freeaddrinfo(res);
        peer_disconnect(p, "cannot resolve host");
        return;
    }
    p->tcp = malloc(sizeof(*p->tcp));
    if (!p->tcp) {
        uv_freeaddrinfo(res);
        peer_disconnect(p, "out of memory");
        return;
    }
    uv_tcp_init(p->loop, p->tcp);
    p->tcp->data = p;
    p->refs++;
    p->state = PEER_CONNECTING;
    p->connect_req.data = p;
    p->connect_deadline_ms = uv_now(p->loop) + p->config.request_timeout_ms;
    int rc = uv_tcp_connect(&p->connect_req, p->tcp, res->ai_addr, peer_on_connect);
    uv_freeaddrinfo(res);
    if (rc != 0) {
        peer_disconnect(p, uv_strerror(rc));
        return;
    }
    peer_arm_timer(p);
}

static void peer_connect(net_peer *p)
{
    if (p->state != PEER_IDLE)
        return;
    struct addrinfo hints = {0};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    char port[16];
    snprintf(port, sizeof(port), "%u", p->config.port);
    p->state = PEER_RESOLVING;
    if (p->resolving)
        return; /* the resolve still in flight carries on with this attempt */
    p->resolve_req.data = p;
    p->resolving = true;
    p->refs++;
    if (uv_getaddrinfo(p->loop, &p->resolve_req, peer_on_resolved, p->host, port, &hints) != 0) {
        p->resolving = false;
        p->refs--;
        peer_disconnect(p, "cannot resolve host");
    }
}

net_peer *net_peer_create(uv_loop_t *loop, const net_peer_config *config)
{
    net_peer *p = calloc(1, sizeof(*p));
    if (!p)
        return NULL;
    p->loop = loop;
    p->config = *config;
    snprintf(p->host, sizeof(p->host), "%s", config->host);
    p->config.host = p->host;
    uv_timer_init(loop, &p->timer);
    p->timer.data = p;
    p->refs = 1;
    p->state = PEER_IDLE;
    return p;
}

void net_peer_destroy(net_peer *p)
{
    if (!p)
        return;
    p->destroyed = true;
    /* Pending requests are dropped without callbacks: the owner is going away. */
    while (p->head != p->tail) {
        peer_request *r = peer_at(p, p->head);
        p->head++;
        free(r->data);
        r->data = NULL;
    }
    peer_tls_end(p);
    if (p->tcp) {
        uv_close((uv_handle_t *)p->tcp, peer_on_closed);
        p->tcp = NULL;
    }
    uv_timer_stop(&p->timer);
    /* p is freed once the timer, the socket and any resolve in flight let go */
    uv_close((uv_handle_t *)&p->timer, peer_on_timer_closed);
}

bool net_peer_send(net_peer *p, int32_t correlation_id, const uint8_t *data, size_t len,
                   void *request_ctx)
{
    if (p->tail - p->head >= PEER_QUEUE_MAX || len > INT32_MAX)
        return false;
    if (p->state == PEER_BACKOFF)
        return false;
    uint8_t *buf = malloc(len + 4);
    if (!buf)
        return false;
    uint32_t n = (uint32_t)len;
    buf[0] = (uint8_t)(n >> 24);
    buf[1] = (uint8_t)(n >> 16);
    buf[2] = (uint8_t)(n >> 8);
    buf[3] = (uint8_t)n;
    memcpy(buf + 4, data, len);
    peer_request *r = peer_at(p, p->tail);
    p->tail++;
    r->correlation_id = correlation_id;
    r->data = buf;
    r->len = len + 4;
    r->request_ctx = request_ctx;
    r->written = false;
    r->sent = 0;
    r->deadline_ms = uv_now(p->loop) + p->config.request_timeout_ms;
    if (p->state == PEER_IDLE)
        peer_connect(p);
    else
        peer_write_pending(p);
    peer_arm_timer(p);
    return true;
}

int32_t net_peer_node_id(const net_peer *p)
{
    return p->config.node_id;
}

void net_peer_get_stats(const net_peer *p, net_peer_stats *out)
{
    *out = p->stats;
}
