/* The metrics endpoint's HTTP server (kq/metrics_http.h). A connection
 * reads into its fixed buffer until kq_http_parse_request decides, queues
 * one answer, half-closes after it is written and discards what the client
 * still sends until it closes or the idle timer fires (closing with unread
 * input would reset the connection and could lose the answer).
 *
 * Slowloris (issue 19 item 7): the request head must be complete within
 * KQ_METRICS_HTTP_HEADER_MS; one address holds at most
 * KQ_METRICS_HTTP_CONNS_PER_IP_MAX connections; a new connection past that,
 * or with every slot taken, closes an idle one first (answer written,
 * draining), else the oldest still reading its request (of its own address
 * first). An answer being written is never cut. */
#include "kq/metrics_http.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/conn_limits.h"
#include "kq/http_request.h"
#include "kq/limits.h"
#include "kq/log_line.h"

enum mh_state { MH_FREE = 0, MH_READING, MH_WRITING, MH_DRAINING, MH_CLOSING };

typedef struct mh_conn {
    struct metrics_http *server;
    enum mh_state state;
    uv_tcp_t tcp;
    uv_timer_t timer;
    uv_write_t write_req;
    uv_shutdown_t shutdown_req;
    int handles_open;
    kq_conn_addr addr;
    uint64_t accepted_ms;
    char *answer;
    size_t len;   /* of answer */
    size_t rlen;  /* of buf */
    uint8_t buf[KQ_METRICS_HTTP_REQUEST_BYTES_MAX];
} mh_conn;

struct metrics_http {
    uv_loop_t *loop;
    uv_tcp_t listener;
    metrics_http_config config;
    char host[256];
    char *body; /* KQ_METRICS_RESPONSE_BYTES_MAX, rendered into */
    uint64_t refused;
    uint64_t evicted;
    mh_conn conns[KQ_METRICS_HTTP_CONNS_MAX + KQ_METRICS_HTTP_CLOSING_SLOTS];
};

static void mh_on_handle_closed(uv_handle_t *h)
{
    mh_conn *c = h->data;
    if (--c->handles_open == 0) {
        free(c->answer);
        c->answer = NULL;
        c->state = MH_FREE;
    }
}

static void mh_close(mh_conn *c)
{
    if (c->state == MH_CLOSING || c->state == MH_FREE)
        return;
    c->state = MH_CLOSING;
    uv_close((uv_handle_t *)&c->tcp, mh_on_handle_closed);
    uv_close((uv_handle_t *)&c->timer, mh_on_handle_closed);
}

static void mh_on_timeout(uv_timer_t *t)
{
    mh_close(t->data);
}

static void mh_on_shutdown(uv_shutdown_t *req, int status)
{
    mh_conn *c = req->data;
    if (status < 0)
        mh_close(c);
}

static void mh_on_written(uv_write_t *req, int status)
{
    mh_conn *c = req->data;
    if (c->state != MH_WRITING)
        return;
    if (status < 0) {
        mh_close(c);
        return;
    }
    c->state = MH_DRAINING;
    c->shutdown_req.data = c;
    if (uv_shutdown(&c->shutdown_req, (uv_stream_t *)&c->tcp, mh_on_shutdown) != 0)
        mh_close(c);
}

static const char *mh_reason(int status)
{
    switch (status) {
    case 200:
        return "OK";
    case 400:
        return "Bad Request";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    default:
        return "Internal Server Error";
    }
}

/* Queues the whole answer (head and body) and stops reading requests. */
static void mh_answer(mh_conn *c, int status, const char *type, const char *body, size_t len)
{
    char head[256];
    int hn = snprintf(head, sizeof head,
                      "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s"
                      "Connection: close\r\n\r\n",
                      status, mh_reason(status), type, len,
                      status == 405 ? "Allow: GET\r\n" : "");
    c->answer = malloc((size_t)hn + len);
    if (!c->answer) {
        mh_close(c);
        return;
    }
    memcpy(c->answer, head, (size_t)hn);
    memcpy(c->answer + hn, body, len);
    c->len = (size_t)hn + len;
    c->state = MH_WRITING;
    uv_timer_start(&c->timer, mh_on_timeout, KQ_METRICS_HTTP_IDLE_MS, 0); /* to write and drain */
    uv_buf_t b = uv_buf_init(c->answer, (unsigned)c->len);
    c->write_req.data = c;
    if (uv_write(&c->write_req, (uv_stream_t *)&c->tcp, &b, 1, mh_on_written) != 0)
        mh_close(c);
}

static void mh_answer_text(mh_conn *c, int status, const char *text)
{
    mh_answer(c, status, "text/plain; charset=utf-8", text, strlen(text));
}

static void mh_serve(mh_conn *c, const kq_http_request *r)
{
    metrics_http *s = c->server;
    if (strcmp(r->method, "GET") != 0) {
        mh_answer_text(c, 405, "only GET is served\n");
        return;
    }
    if (r->path_len != 8 || memcmp(r->path, "/metrics", 8) != 0) {
        mh_answer_text(c, 404, "not found: the metrics are at /metrics\n");
        return;
    }
    size_t n = s->config.render(s->config.ctx, s->body, KQ_METRICS_RESPONSE_BYTES_MAX);
    if (n == 0 || n > KQ_METRICS_RESPONSE_BYTES_MAX) {
        mh_answer_text(c, 500, "the metrics do not fit the response bound\n");
        return;
    }
    mh_answer(c, 200, "text/plain; version=0.0.4; charset=utf-8", s->body, n);
}

static void mh_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    mh_conn *c = h->data;
    (void)suggested;
    if (c->state == MH_DRAINING || c->state == MH_WRITING) {
        *buf = uv_buf_init((char *)c->buf, sizeof c->buf); /* discarded */
        return;
    }
    *buf = uv_buf_init((char *)c->buf + c->rlen, (unsigned)(sizeof c->buf - c->rlen));
}

static void mh_on_read(uv_stream_t *stream, ssize_t n, const uv_buf_t *buf)
{
    mh_conn *c = stream->data;
    (void)buf;
    if (n < 0) {
        mh_close(c);
        return;
    }
    if (c->state != MH_READING || n == 0)
        return;
    c->rlen += (size_t)n;
    kq_http_request r;
    switch (kq_http_parse_request(c->buf, c->rlen, &r)) {
    case KQ_HTTP_INCOMPLETE:
        if (c->rlen == sizeof c->buf)
            mh_answer_text(c, 400, "request head too large\n");
        break;
    case KQ_HTTP_BAD:
        mh_answer_text(c, 400, "malformed request\n");
        break;
    case KQ_HTTP_COMPLETE:
        mh_serve(c, &r);
        break;
    }
}

#define MH_SLOTS (KQ_METRICS_HTTP_CONNS_MAX + KQ_METRICS_HTTP_CLOSING_SLOTS)

static mh_conn *mh_free_conn(metrics_http *s)
{
    for (int i = 0; i < MH_SLOTS; i++)
        if (s->conns[i].state == MH_FREE)
            return &s->conns[i];
    return NULL;
}

static bool mh_live(const mh_conn *c)
{
    return c->state != MH_FREE && c->state != MH_CLOSING;
}

/* The connection to close for room: a draining one first, then the oldest
 * still reading; from addr only when addr is given. NULL: none (every one
 * is writing its answer). */
static mh_conn *mh_victim(metrics_http *s, const kq_conn_addr *addr)
{
    mh_conn *best = NULL;
    for (int i = 0; i < MH_SLOTS; i++) {
        mh_conn *c = &s->conns[i];
        if ((c->state != MH_DRAINING && c->state != MH_READING) ||
            (addr && !kq_conn_addr_equal(&c->addr, addr)))
            continue;
        if (!best || (c->state == MH_DRAINING && best->state != MH_DRAINING) ||
            (c->state == best->state && c->accepted_ms < best->accepted_ms))
            best = c;
    }
    return best;
}

/* Makes room for a connection from addr; false: refuse it. */
static bool mh_make_room(metrics_http *s, const kq_conn_addr *addr)
{
    int live = 0, from_addr = 0;
    for (int i = 0; i < MH_SLOTS; i++) {
        if (!mh_live(&s->conns[i]))
            continue;
        live++;
        from_addr += kq_conn_addr_equal(&s->conns[i].addr, addr);
    }
    mh_conn *victim = NULL;
    if (from_addr >= KQ_METRICS_HTTP_CONNS_PER_IP_MAX) {
        if (!(victim = mh_victim(s, addr)))
            return false;
    } else if (live >= KQ_METRICS_HTTP_CONNS_MAX) {
        if (!(victim = mh_victim(s, NULL)))
            return false;
    }
    if (victim) {
        s->evicted++;
        if (victim->state == MH_DRAINING) { /* its write is done: drop the answer now */
            free(victim->answer);
            victim->answer = NULL;
        }
        mh_close(victim);
    }
    return true;
}

static void mh_on_refused_closed(uv_handle_t *h)
{
    free(h);
}

/* Every slot taken: accept and close at once (the backlog must drain). */
static void mh_refuse(metrics_http *s)
{
    uv_tcp_t *t = malloc(sizeof *t);
    if (!t)
        return;
    uv_tcp_init(s->loop, t);
    if (uv_accept((uv_stream_t *)&s->listener, (uv_stream_t *)t) == 0)
        s->refused++;
    uv_close((uv_handle_t *)t, mh_on_refused_closed);
}

static void mh_on_connection(uv_stream_t *listener, int status)
{
    metrics_http *s = listener->data;
    if (status < 0)
        return;
    mh_conn *c = mh_free_conn(s);
    if (!c) {
        mh_refuse(s);
        return;
    }
    *c = (mh_conn){.server = s, .state = MH_READING, .handles_open = 2,
                   .accepted_ms = uv_now(s->loop)};
    uv_tcp_init(s->loop, &c->tcp);
    uv_timer_init(s->loop, &c->timer);
    c->tcp.data = c;
    c->timer.data = c;
    if (uv_accept(listener, (uv_stream_t *)&c->tcp) != 0) {
        mh_close(c);
        return;
    }
    struct sockaddr_storage peer;
    int plen = sizeof peer;
    if (uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&peer, &plen) == 0)
        kq_conn_addr_from_sockaddr(&c->addr, (const struct sockaddr *)&peer);
    c->state = MH_CLOSING; /* not counted while room is made */
    bool room = mh_make_room(s, &c->addr);
    c->state = MH_READING;
    if (!room) {
        s->refused++;
        mh_close(c);
        return;
    }
    if (uv_read_start((uv_stream_t *)&c->tcp, mh_alloc, mh_on_read) != 0) {
        mh_close(c);
        return;
    }
    /* the request head's deadline (slowloris); the answer gets IDLE_MS */
    uv_timer_start(&c->timer, mh_on_timeout, KQ_METRICS_HTTP_HEADER_MS, 0);
}

/* Binds the first address host resolves to (synchronously, at start). */
static bool mh_listen(metrics_http *s, char *err, size_t errlen)
{
    const char *host = s->host[0] ? s->host : "0.0.0.0";
    char port[8];
    snprintf(port, sizeof port, "%u", s->config.port);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE};
    uv_getaddrinfo_t req;
    int rc = uv_getaddrinfo(s->loop, &req, NULL, host, port, &hints);
    if (rc == 0) {
        rc = uv_tcp_bind(&s->listener, req.addrinfo->ai_addr, 0);
        uv_freeaddrinfo(req.addrinfo);
    }
    if (rc == 0)
        rc = uv_listen((uv_stream_t *)&s->listener, KQ_METRICS_HTTP_BACKLOG, mh_on_connection);
    if (rc != 0) {
        snprintf(err, errlen, "metrics endpoint %s:%u: %s", host, s->config.port,
                 uv_strerror(rc));
        return false;
    }
    return true;
}

metrics_http *metrics_http_start(uv_loop_t *loop, const metrics_http_config *config, char *err,
                                 size_t errlen)
{
    metrics_http *s = calloc(1, sizeof *s);
    char *body = malloc(KQ_METRICS_RESPONSE_BYTES_MAX);
    if (!s || !body) {
        free(s);
        free(body);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->loop = loop;
    s->config = *config;
    s->body = body;
    snprintf(s->host, sizeof s->host, "%s", config->host ? config->host : "");
    s->config.host = s->host;
    uv_tcp_init(loop, &s->listener);
    s->listener.data = s;
    if (!mh_listen(s, err, errlen))
        return NULL; /* the daemon exits; the handle stays with the loop */
    return s;
}

uint64_t metrics_http_refused(const metrics_http *server)
{
    return server->refused;
}

uint64_t metrics_http_evicted(const metrics_http *server)
{
    return server->evicted;
}
