/* Listener and inbound connections: size-prefixed frames in, ordered
 * responses out, one gathered uv_write per connection per loop turn. */
#include "kq/net.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/log_line.h"

#define READ_CHUNK_BYTES (64 * 1024)
#define WRITE_BUFS_MAX 64

struct net_slot {
    net_conn *conn;
    bool in_use;
    bool done;
    bool close_after;
    uint8_t *data; /* 4-byte size prefix + response */
    size_t len;
};

struct net_conn {
    uv_tcp_t tcp;
    net_server *server;
    uint8_t *rbuf;
    size_t rlen;
    size_t rcap;
    net_slot slots[NET_SLOTS_PER_CONN];
    uint32_t head; /* oldest slot not yet written */
    uint32_t tail; /* next slot to hand out */
    uint32_t outstanding; /* handed out, not completed */
    uint32_t writes_in_flight;
    bool handle_closed;
    bool closing;
    bool reading;
    bool read_paused_full;
    bool flush_queued;
    bool close_when_written;
    bool close_requested; /* a slot asked to close: no further frame is dispatched */
    net_conn *flush_next;
    net_conn *prev, *next; /* the server's live connections */
    char peer[64];
};

struct net_server {
    uv_loop_t *loop;
    uv_tcp_t listener;
    uv_check_t flush_check;
    uv_idle_t flush_idle; /* keeps the poll phase from blocking while flushes are queued */
    net_server_config config;
    net_conn *flush_list;
    net_conn *conns;
    bool stopped;
    int handles_open; /* after stop: own handles still closing */
};

typedef struct write_req {
    uv_write_t req;
    net_conn *conn;
    int count;
    uint8_t *owned[WRITE_BUFS_MAX];
} write_req;

static void conn_close(net_conn *c, const char *why);
static void conn_parse(net_conn *c);
static void conn_start_reading(net_conn *c);

static void server_maybe_free(net_server *s)
{
    if (s->stopped && s->handles_open == 0 && !s->conns)
        free(s);
}

static void server_on_handle_closed(uv_handle_t *h)
{
    net_server *s = h->data;
    s->handles_open--;
    server_maybe_free(s);
}

static void conn_maybe_free(net_conn *c)
{
    if (!c->handle_closed || c->outstanding > 0 || c->writes_in_flight > 0)
        return;
    for (uint32_t i = c->head; i != c->tail; i++) {
        net_slot *s = &c->slots[i % NET_SLOTS_PER_CONN];
        free(s->data);
    }
    net_server *server = c->server;
    if (c->prev)
        c->prev->next = c->next;
    else
        server->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    free(c->rbuf);
    free(c);
    server_maybe_free(server);
}

static void conn_on_closed(uv_handle_t *h)
{
    net_conn *c = h->data;
    c->handle_closed = true;
    conn_maybe_free(c);
}

static void conn_close(net_conn *c, const char *why)
{
    if (c->closing)
        return;
    c->closing = true;
    if (why)
        log_line("connection %s closed: %s", c->peer, why);
    uv_close((uv_handle_t *)&c->tcp, conn_on_closed);
}

static void server_on_idle(uv_idle_t *h)
{
    (void)h;
}

static void conn_queue_flush(net_conn *c)
{
    if (c->flush_queued || c->closing)
        return;
    c->flush_queued = true;
    c->flush_next = c->server->flush_list;
    c->server->flush_list = c;
    uv_idle_start(&c->server->flush_idle, server_on_idle);
}

static void conn_on_written(uv_write_t *req, int status)
{
    write_req *wr = (write_req *)req;
    net_conn *c = wr->conn;
    for (int i = 0; i < wr->count; i++)
        free(wr->owned[i]);
    free(wr);
    c->writes_in_flight--;
    if (status < 0 && !c->closing)
        conn_close(c, uv_strerror(status));
    else if (c->close_when_written && c->writes_in_flight == 0)
        conn_close(c, NULL);
    conn_maybe_free(c);
}

/* Writes every completed slot at the head of the queue, in order. */
static void conn_flush(net_conn *c)
{
    while (!c->closing && !c->close_when_written && c->head != c->tail) {
        write_req *wr = NULL;
        uv_buf_t bufs[WRITE_BUFS_MAX];
        bool stop_after = false;
        while (c->head != c->tail) {
            net_slot *s = &c->slots[c->head % NET_SLOTS_PER_CONN];
            if (!s->done)
                break;
            if (s->data) {
                if (!wr) {
                    wr = calloc(1, sizeof(*wr));
                    if (!wr) {
                        conn_close(c, "out of memory");
                        return;
                    }
                }
                bufs[wr->count] = uv_buf_init((char *)s->data, (unsigned)s->len);
                wr->owned[wr->count++] = s->data;
                s->data = NULL;
            }
            s->in_use = false;
            c->head++;
            if (s->close_after) {
                stop_after = true;
                c->close_when_written = true;
                break;
            }
            if (wr && wr->count == WRITE_BUFS_MAX)
                break;
        }
        if (wr) {
            wr->conn = c;
            c->writes_in_flight++;
            int rc = uv_write(&wr->req, (uv_stream_t *)&c->tcp, bufs, wr->count, conn_on_written);
            if (rc < 0) {
                c->writes_in_flight--;
                for (int i = 0; i < wr->count; i++)
                    free(wr->owned[i]);
                free(wr);
                conn_close(c, uv_strerror(rc));
                return;
            }
        } else if (!stop_after) {
            break;
        }
        if (stop_after) {
            if (c->writes_in_flight == 0)
                conn_close(c, NULL);
            return;
        }
    }
    if (c->read_paused_full && !c->close_when_written && !c->close_requested &&
        c->tail - c->head < NET_SLOTS_PER_CONN) {
        c->read_paused_full = false;
        conn_parse(c);
        if (!c->closing && !c->read_paused_full)
            conn_start_reading(c);
    }
}

static void server_on_check(uv_check_t *h)
{
    net_server *s = h->data;
    uv_idle_stop(&s->flush_idle);
    while (s->flush_list) {
        net_conn *c = s->flush_list;
        s->flush_list = c->flush_next;
        c->flush_queued = false;
        c->outstanding++; /* keep c alive across flush */
        conn_flush(c);
        c->outstanding--;
        conn_maybe_free(c);
    }
}

static void slot_complete(net_slot *slot)
{
    net_conn *c = slot->conn;
    slot->done = true;
    c->outstanding--;
    if (c->closing) {
        conn_maybe_free(c);
        return;
    }
    conn_queue_flush(c);
}

void net_slot_respond(net_slot *slot, const uint8_t *data, size_t len)
{
    net_conn *c = slot->conn;
    if (!c->closing && len <= INT32_MAX) {
        slot->data = malloc(len + 4);
        if (slot->data) {
            uint32_t n = (uint32_t)len;
            slot->data[0] = (uint8_t)(n >> 24);
            slot->data[1] = (uint8_t)(n >> 16);
            slot->data[2] = (uint8_t)(n >> 8);
            slot->data[3] = (uint8_t)n;
            memcpy(slot->data + 4, data, len);
            slot->len = len + 4;
        } else {
            slot->close_after = true;
        }
    }
    slot_complete(slot);
}

void net_slot_skip(net_slot *slot)
{
    slot_complete(slot);
}

void net_slot_close(net_slot *slot, const char *why)
{
    net_conn *c = slot->conn;
    if (why && !c->closing)
        log_line("closing connection %s: %s", c->peer, why);
    /* Frames pipelined behind this one are never handled: their side effects
     * (an appended Produce) would reach no client. */
    c->close_requested = true;
    if (c->reading && !c->closing) {
        uv_read_stop((uv_stream_t *)&c->tcp);
        c->reading = false;
    }
    slot->close_after = true;
    slot_complete(slot);
}

const char *net_slot_peer(const net_slot *slot)
{
    return slot->conn->peer;
}

bool net_slot_orphaned(const net_slot *slot)
{
    return slot->conn->closing;
}

static void conn_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)suggested;
    net_conn *c = h->data;
    size_t want = c->rlen + READ_CHUNK_BYTES;
    if (c->rlen >= 4) {
        uint32_t size = ((uint32_t)c->rbuf[0] << 24) | ((uint32_t)c->rbuf[1] << 16) |
                        ((uint32_t)c->rbuf[2] << 8) | c->rbuf[3];
        if (size <= (uint32_t)c->server->config.frame_bytes_max && size + 4 > want)
            want = (size_t)size + 4;
    }
    if (want > c->rcap) {
        uint8_t *p = realloc(c->rbuf, want);
        if (!p) {
            *buf = uv_buf_init(NULL, 0);
            return;
        }
        c->rbuf = p;
        c->rcap = want;
    }
    *buf = uv_buf_init((char *)c->rbuf + c->rlen, (unsigned)(c->rcap - c->rlen));
}

static void conn_parse(net_conn *c)
{
    size_t pos = 0;
    while (!c->closing && !c->close_when_written && !c->close_requested && c->rlen - pos >= 4) {
        const uint8_t *p = c->rbuf + pos;
        int32_t size = (int32_t)(((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
                                 ((uint32_t)p[2] << 8) | p[3]);
        if (size < 0 || size > c->server->config.frame_bytes_max) {
            log_line("connection %s: frame of %d bytes exceeds socket.request.max.bytes=%d",
                     c->peer, size, c->server->config.frame_bytes_max);
            conn_close(c, "oversized frame");
            return;
        }
        if (c->rlen - pos < (size_t)size + 4)
            break;
        if (c->tail - c->head >= NET_SLOTS_PER_CONN) {
            c->read_paused_full = true;
            if (c->reading) {
                uv_read_stop((uv_stream_t *)&c->tcp);
                c->reading = false;
            }
            break;
        }
        net_slot *slot = &c->slots[c->tail % NET_SLOTS_PER_CONN];
        memset(slot, 0, sizeof(*slot));
        slot->conn = c;
        slot->in_use = true;
        c->tail++;
        c->outstanding++;
        c->outstanding++; /* hold c across the callback */
        c->server->config.on_frame(c->server->config.ctx, slot, c->rbuf + pos + 4, (size_t)size);
        c->outstanding--;
        pos += (size_t)size + 4;
    }
    if (pos > 0 && !c->closing) {
        memmove(c->rbuf, c->rbuf + pos, c->rlen - pos);
        c->rlen -= pos;
    }
    if (c->rcap > 4 * READ_CHUNK_BYTES && c->rlen < READ_CHUNK_BYTES) {
        uint8_t *p = realloc(c->rbuf, READ_CHUNK_BYTES);
        if (p) {
            c->rbuf = p;
            c->rcap = READ_CHUNK_BYTES;
        }
    }
}

static void conn_on_read(uv_stream_t *stream, ssize_t n, const uv_buf_t *buf)
{
    (void)buf;
    net_conn *c = stream->data;
    if (n < 0) {
        conn_close(c, n == UV_EOF ? NULL : uv_strerror((int)n));
        return;
    }
    if (n == 0)
        return;
    c->rlen += (size_t)n;
    c->outstanding++;
    conn_parse(c);
    c->outstanding--;
    conn_maybe_free(c);
}

static void conn_start_reading(net_conn *c)
{
    if (c->reading || c->closing || c->close_requested)
        return;
    if (uv_read_start((uv_stream_t *)&c->tcp, conn_alloc, conn_on_read) == 0)
        c->reading = true;
}

static void server_on_connection(uv_stream_t *listener, int status)
{
    net_server *s = listener->data;
    if (status < 0) {
        log_line("accept failed: %s", uv_strerror(status));
        return;
    }
    net_conn *c = calloc(1, sizeof(*c));
    if (!c)
        return;
    c->server = s;
    c->next = s->conns;
    if (s->conns)
        s->conns->prev = c;
    s->conns = c;
    uv_tcp_init(s->loop, &c->tcp);
    c->tcp.data = c;
    if (uv_accept(listener, (uv_stream_t *)&c->tcp) != 0) {
        c->closing = true;
        uv_close((uv_handle_t *)&c->tcp, conn_on_closed);
        return;
    }
    uv_tcp_nodelay(&c->tcp, 1);
    struct sockaddr_storage addr;
    int len = sizeof(addr);
    snprintf(c->peer, sizeof(c->peer), "?");
    if (uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&addr, &len) == 0) {
        char ip[48] = "?";
        int port = 0;
        if (addr.ss_family == AF_INET) {
            struct sockaddr_in *a = (struct sockaddr_in *)&addr;
            uv_ip4_name(a, ip, sizeof(ip));
            port = ntohs(a->sin_port);
        } else if (addr.ss_family == AF_INET6) {
            struct sockaddr_in6 *a = (struct sockaddr_in6 *)&addr;
            uv_ip6_name(a, ip, sizeof(ip));
            port = ntohs(a->sin6_port);
        }
        snprintf(c->peer, sizeof(c->peer), "%s:%d", ip, port);
    }
    conn_start_reading(c);
}

net_server *net_server_start(uv_loop_t *loop, const net_server_config *config, char *err,
                             size_t errlen)
{
    net_server *s = calloc(1, sizeof(*s));
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->loop = loop;
    s->config = *config;
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    char port[16];
    snprintf(port, sizeof(port), "%u", config->port);
    const char *host = config->host && config->host[0] ? config->host : NULL;
    int rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0) {
        snprintf(err, errlen, "cannot resolve listener %s:%u: %s", host ? host : "*",
                 config->port, gai_strerror(rc));
        free(s);
        return NULL;
    }
    uv_tcp_init(loop, &s->listener);
    s->listener.data = s;
    rc = uv_tcp_bind(&s->listener, res->ai_addr, 0);
    freeaddrinfo(res);
    if (rc == 0)
        rc = uv_listen((uv_stream_t *)&s->listener, 1024, server_on_connection);
    if (rc != 0) {
        snprintf(err, errlen, "cannot listen on %s:%u: %s", host ? host : "*", config->port,
                 uv_strerror(rc));
        s->stopped = true;
        s->handles_open = 1;
        uv_close((uv_handle_t *)&s->listener, server_on_handle_closed); /* frees s */
        return NULL;
    }
    uv_check_init(loop, &s->flush_check);
    s->flush_check.data = s;
    uv_check_start(&s->flush_check, server_on_check);
    uv_idle_init(loop, &s->flush_idle);
    return s;
}

void net_server_stop(net_server *server)
{
    if (!server)
        return;
    server->stopped = true;
    for (net_conn *c = server->conns; c; c = c->next)
        conn_close(c, NULL);
    /* Connections whose slots are still outstanding keep server alive until
     * their last slot completes; the last one out frees it. */
    server->handles_open = 3;
    server->flush_check.data = server;
    server->flush_idle.data = server;
    uv_check_stop(&server->flush_check);
    uv_close((uv_handle_t *)&server->flush_check, server_on_handle_closed);
    uv_close((uv_handle_t *)&server->flush_idle, server_on_handle_closed);
    uv_close((uv_handle_t *)&server->listener, server_on_handle_closed);
}
