/* Listener and inbound connections: accepting, closing and freeing
 * connections, the idle sweep (connections.max.idle.ms) and the server's
 * lifetime. Frames in: server_read.c; responses out: server_write.c. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/assert.h"
#include "kq/log_line.h"
#include "server_internal.h"

#define IDLE_SWEEP_MS_MAX 1000

static void server_on_accept_timer(uv_timer_t *t);

static void server_maybe_free(net_server *s)
{
    if (s->stopped && s->handles_open == 0 && !s->conns) {
        net_shared_destroy(s->own_shared);
        free(s->tls_scratch);
        kq_addr_counts_free(&s->tls_per_ip);
        free(s);
    }
}

static void server_on_handle_closed(uv_handle_t *h)
{
    net_server *s = h->data;
    s->handles_open--;
    server_maybe_free(s);
}

void conn_maybe_free(net_conn *c)
{
    if (!c->handle_closed || c->outstanding > 0 || c->writes_in_flight > 0)
        return;
    conn_free_slots(c);
    net_server *server = c->server;
    conn_set_paused_budget(c, false);
    if (server->config.budget)
        kq_budget_conn_close(server->config.budget, c->budget_class);
    if (c->user && server->config.on_conn_closed)
        server->config.on_conn_closed(server->config.ctx, c->user);
    if (c->prev)
        c->prev->next = c->next;
    else
        server->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    conn_tls_release(c);
    free(c->rbuf);
    free(c);
    server_maybe_free(server);
}

static void conn_on_closed(uv_handle_t *h)
{
    net_conn *c = h->data;
    c->handle_closed = true;
    conn_release_buffer(c);
    conn_maybe_free(c);
}

void conn_close(net_conn *c, const char *why)
{
    if (c->closing)
        return;
    c->closing = true;
    c->reading = false;
    conn_memory_unwait(c);
    conn_undefer(c);
    conn_tls_handshake_end(c);
    if (c->promoted) {
        KQ_ASSERT(c->server->shared->promoted_open > 0);
        c->server->shared->promoted_open--;
    }
    if (c->admitted) { /* uv_close releases the descriptor at once */
        c->admitted = false;
        kq_conn_pool_release_member(c->server->config.pool, &c->addr, &c->member);
    }
    if (why)
        LOG_LINE_LIMITED("connection %s closed: %s", c->peer, why);
    uv_close((uv_handle_t *)&c->tcp, conn_on_closed);
}

/* Activity; for eviction (kq/conn_evict.h) a connection counts as used
 * once it authenticated (SASL listeners: SaslHandshake alone does not
 * count) or, elsewhere, once it was answered a request. */
void conn_touch(net_conn *c)
{
    c->active_ms = uv_now(c->server->loop);
    if (!c->admitted)
        return;
    bool sasl = c->server->config.unauthenticated_frame_bytes_max > 0;
    kq_conn_evict_touch(&c->member, sasl ? c->authenticated : c->completed_request);
}

/* ---- connections.max.idle.ms */

/* Idle: no request being handled, no byte read, and no byte of a pending
 * write taken by the kernel (a client that never reads is idle too, as in
 * Kafka). A connection the server itself paused for memory is not. */
static void conn_check_idle(net_conn *c, uint64_t now)
{
    if (c->closing)
        return;
    size_t queued = uv_stream_get_write_queue_size((uv_stream_t *)&c->tcp);
    if (queued != c->idle_write_queue_size || c->waiting_memory) {
        c->idle_write_queue_size = queued;
        c->active_ms = now;
        return;
    }
    uint64_t idle_ms = (uint64_t)c->server->config.idle_ms;
    if (c->outstanding > 0 || now - c->active_ms < idle_ms)
        return;
    c->server->stats.conns_closed_idle++;
    char why[96];
    snprintf(why, sizeof(why), "idle for %llu ms (connections.max.idle.ms=%llu)",
             (unsigned long long)(now - c->active_ms), (unsigned long long)idle_ms);
    conn_close(c, why);
}

static void server_on_idle_timer(uv_timer_t *t)
{
    net_server *s = t->data;
    uint64_t now = uv_now(s->loop);
    /* conn_close only unlinks later, from the close callback */
    for (net_conn *c = s->conns; c; c = c->next)
        conn_check_idle(c, now);
}

static void server_start_idle_timer(net_server *s)
{
    uv_timer_init(s->loop, &s->idle_timer);
    s->idle_timer.data = s;
    if (s->config.idle_ms < 0)
        return;
    uint64_t every_ms = (uint64_t)s->config.idle_ms / 4;
    if (every_ms > IDLE_SWEEP_MS_MAX)
        every_ms = IDLE_SWEEP_MS_MAX;
    if (every_ms == 0)
        every_ms = 1;
    uv_timer_start(&s->idle_timer, server_on_idle_timer, every_ms, every_ms);
}

/* ---- Accepting. */

static void conn_describe_peer(net_conn *c)
{
    struct sockaddr_storage addr;
    int len = sizeof(addr);
    snprintf(c->peer, sizeof(c->peer), "?");
    if (uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&addr, &len) != 0)
        return;
    kq_conn_addr_from_sockaddr(&c->addr, (const struct sockaddr *)&addr);
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

#define CONN_OF_MEMBER(m) ((net_conn *)((char *)(m)-offsetof(net_conn, member)))

/* May be closed to make room: no request being handled, no response
 * pending (kq/conn_evict.h). */
static bool conn_evictable(kq_conn_member *m)
{
    const net_conn *c = CONN_OF_MEMBER(m);
    KQ_ASSERT(!c->promoted); /* kept out of the eviction index */
    return !c->closing && c->outstanding == 0 && c->writes_in_flight == 0 &&
           c->write_queued_bytes == 0 && !c->tls_plain;
}

/* The pool took v's slot for c (v is from another, heavier address, and of
 * any listener sharing the pool): v is already released from the pool. */
static void conn_evict(net_conn *c, kq_conn_member *m)
{
    net_conn *v = CONN_OF_MEMBER(m);
    KQ_ASSERT(v->admitted && v != c);
    v->admitted = false;
    v->server->stats.evicted++;
    char why[160];
    snprintf(why, sizeof why, "evicted for %s: %u connections open (%s), its address holds the most",
             c->peer, (unsigned)c->server->config.pool->max_connections,
             c->server->config.pool_name ? c->server->config.pool_name : "max.connections");
    conn_close(v, why);
}

/* max.connections / max.connections.per.ip: false when refused (closed). */
static bool conn_admit(net_conn *c)
{
    net_server *s = c->server;
    if (!s->config.pool)
        return true;
    kq_conn_member *victim = NULL;
    kq_conn_verdict v =
        kq_conn_pool_admit_member(s->config.pool, &c->addr, &c->member, conn_evictable, &victim);
    if (victim)
        conn_evict(c, victim);
    if (v == KQ_CONN_ADMIT) {
        c->admitted = true;
        return true;
    }
    const char *name = s->config.pool_name ? s->config.pool_name : "max.connections";
    if (v == KQ_CONN_REFUSE_PER_IP) {
        s->stats.refused_per_ip++;
        LOG_LINE_LIMITED("connection %s refused: %u connections from its address (%s)", c->peer,
                         (unsigned)kq_conn_pool_ip_limit(s->config.pool, &c->addr),
                         s->config.pool_per_ip_name ? s->config.pool_per_ip_name
                                                    : "max.connections.per.ip");
    } else {
        s->stats.refused_max_connections++;
        LOG_LINE_LIMITED("connection %s refused: %u connections open (%s)%s", c->peer,
                         (unsigned)s->config.pool->open, name,
                         v == KQ_CONN_REFUSE_MEMORY ? ", out of memory" : "");
    }
    conn_close(c, NULL);
    return false;
}

static void server_accept_one(net_server *s)
{
    net_conn *c = calloc(1, sizeof(*c));
    if (!c) {
        /* leave it with libuv (polling stops) and try again after a back-off */
        s->accept_pending = true;
        s->accept_paused = true;
        uv_timer_start(&s->accept_timer, server_on_accept_timer, KQ_ACCEPT_BACKOFF_MS, 0);
        return;
    }
    c->server = s;
    c->budget_class = s->config.budget_class;
    c->turns = s->turns;
    if (s->config.budget)
        kq_budget_conn_open(s->config.budget, c->budget_class);
    c->next = s->conns;
    if (s->conns)
        s->conns->prev = c;
    s->conns = c;
    uv_tcp_init(s->loop, &c->tcp);
    c->tcp.data = c;
    if (uv_accept((uv_stream_t *)&s->listener, (uv_stream_t *)&c->tcp) != 0) {
        c->closing = true;
        uv_close((uv_handle_t *)&c->tcp, conn_on_closed);
        return;
    }
    conn_describe_peer(c);
    if (!conn_admit(c))
        return;
    uv_tcp_nodelay(&c->tcp, 1);
    conn_touch(c);
    c->accepted_ms = c->active_ms;
    if (s->config.tls && !conn_tls_accept(c))
        return;
    conn_start_reading(c);
}

static void server_on_accept_timer(uv_timer_t *t)
{
    net_server *s = t->data;
    s->accept_paused = false;
    if (s->accept_pending && !s->stopped) {
        s->accept_pending = false;
        server_accept_one(s); /* uv_accept resumes polling the listener */
    }
}

/* EMFILE/ENFILE: libuv first accepts and closes what is waiting through a
 * descriptor it keeps for that, and reports the error here only when that
 * failed too; then take nothing for KQ_ACCEPT_BACKOFF_MS. A resource error
 * of the listener, never a storage failure. */
static void server_on_connection(uv_stream_t *listener, int status)
{
    net_server *s = listener->data;
    if (status < 0) {
        if (status == UV_EMFILE || status == UV_ENFILE) {
            s->stats.accept_fd_exhausted++;
            LOG_LINE_LIMITED("accept failed: %s; not accepting for %d ms (%llu times so far)",
                             uv_strerror(status), KQ_ACCEPT_BACKOFF_MS,
                             (unsigned long long)s->stats.accept_fd_exhausted);
            if (!s->accept_paused) {
                s->accept_paused = true;
                uv_timer_start(&s->accept_timer, server_on_accept_timer, KQ_ACCEPT_BACKOFF_MS, 0);
            }
        } else {
            LOG_LINE_LIMITED("accept failed: %s", uv_strerror(status));
        }
        return;
    }
    if (s->accept_paused) {
        s->accept_pending = true; /* libuv stops polling until uv_accept */
        return;
    }
    server_accept_one(s);
}

/* ---- Lifetime. */

static void server_apply_defaults(net_server_config *c)
{
    if (c->request_bytes_max == 0)
        c->request_bytes_max = KQ_QUEUED_REQUEST_BYTES_DEFAULT;
    if (c->write_queue_bytes_max == 0)
        c->write_queue_bytes_max = KQ_CONN_WRITE_QUEUE_BYTES_MAX;
    if (c->idle_ms == 0)
        c->idle_ms = KQ_CONNECTION_IDLE_MS_DEFAULT;
    if (c->tls_handshake_timeout_ms == 0)
        c->tls_handshake_timeout_ms = KQ_TLS_HANDSHAKE_TIMEOUT_MS;
}

static int server_listen(net_server *s, char *err, size_t errlen)
{
    const net_server_config *config = &s->config;
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
        return -1;
    }
    uv_tcp_init(s->loop, &s->listener);
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
        return -2;
    }
    return 0;
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
    server_apply_defaults(&s->config);
    if ((config->tls && !(s->tls_scratch = malloc(KQ_NET_READ_CHUNK_BYTES))) ||
        !server_turns_init(s)) {
        free(s->tls_scratch);
        free(s);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    int rc = server_listen(s, err, errlen);
    if (rc != 0) {
        if (rc == -1) {
            net_shared_destroy(s->own_shared);
            free(s->tls_scratch);
            free(s);
        }
        return NULL;
    }
    uv_check_init(loop, &s->flush_check);
    s->flush_check.data = s;
    uv_check_start(&s->flush_check, server_on_check);
    uv_idle_init(loop, &s->flush_idle);
    uv_timer_init(loop, &s->accept_timer);
    s->accept_timer.data = s;
    server_start_idle_timer(s);
    server_tls_start(s);
    return s;
}

void net_server_stop(net_server *server)
{
    if (!server)
        return;
    server->stopped = true;
    for (net_conn *c = server->conns; c; c = c->next)
        conn_close(c, NULL);
    server_turns_stop(server);
    /* Connections whose slots are still outstanding keep server alive until
     * their last slot completes; the last one out frees it. */
    server->handles_open = 6;
    server->flush_check.data = server;
    server->flush_idle.data = server;
    uv_check_stop(&server->flush_check);
    uv_timer_stop(&server->idle_timer);
    uv_timer_stop(&server->tls_timer);
    uv_timer_stop(&server->accept_timer);
    uv_close((uv_handle_t *)&server->accept_timer, server_on_handle_closed);
    uv_close((uv_handle_t *)&server->tls_timer, server_on_handle_closed);
    uv_close((uv_handle_t *)&server->flush_check, server_on_handle_closed);
    uv_close((uv_handle_t *)&server->flush_idle, server_on_handle_closed);
    uv_close((uv_handle_t *)&server->idle_timer, server_on_handle_closed);
    uv_close((uv_handle_t *)&server->listener, server_on_handle_closed);
}

void net_server_get_stats(const net_server *server, net_server_stats *out)
{
    *out = server->stats;
    out->connections = 0;
    out->conns_waiting_memory = 0;
    out->conns_paused_backlog = 0;
    out->conns_paused_budget = 0;
    for (const net_conn *c = server->conns; c; c = c->next) {
        if (c->closing)
            continue;
        out->connections++;
        out->conns_waiting_memory += c->waiting_memory;
        out->conns_paused_backlog += c->paused_backlog;
        out->conns_paused_budget += c->paused_budget;
    }
    out->tls_handshakes = server->tls_handshakes;
}
