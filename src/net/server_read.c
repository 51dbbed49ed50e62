/* The read path: size-prefixed frames in, dispatched to slots, and the two
 * reasons a connection stops reading.
 *
 * Backlog: every slot in use, or the connection's write queue at its limit
 * (a client that pipelines and never reads). Reading resumes as soon as a
 * slot is written or the queue drains below the limit.
 *
 * Memory: every connection's read buffer is charged to one budget shared
 * by every listener of the node (queued.max.request.bytes, net_shared). The buffer grows as the frame's bytes
 * arrive, at most doubling what the connection sent of it (issue 19 item 5:
 * an announced size alone reserves one read step, not the frame), and a
 * buffer is freed as soon as it holds nothing. A share of the budget serves
 * only first read steps (a fresh connection's request is read whatever big
 * frames hold). A connection whose buffer
 * would have to grow past the budget stops reading and waits on a list;
 * freed memory wakes the waiters that fit. Connections with room in their
 * buffer keep reading (that is what frees memory), and a connection may grow
 * whatever the budget when no other connection holds buffer memory, or when
 * every other one that does waits too, so the budget never deadlocks (the
 * sum is then at most the budget plus one frame).
 *
 * waiters are woken across listeners.
 *
 * Turns: a connection dispatches at most NET_FRAMES_PER_TURN_MAX frames per
 * loop turn, the client connections of the node at most
 * KQ_NET_CLIENT_FRAMES_PER_TURN_MAX together (server_turns.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/log_line.h"
#include "server_internal.h"

#define MEMORY_LOG_INTERVAL_MS 10000 /* the "budget reached" line, at most */

static uint32_t frame_size_at(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

/* Bytes the buffer must span for the frame at its start, or 0 while the
 * size is unknown or invalid (the parser closes on an invalid size). */
static size_t conn_frame_bytes(const net_conn *c)
{
    if (c->rlen < 4)
        return 0;
    uint32_t size = frame_size_at(c->rbuf);
    if (size > (uint32_t)conn_frame_bytes_max(c))
        return 0;
    return (size_t)size + 4;
}

int32_t conn_frame_bytes_max(const net_conn *c)
{
    const net_server_config *cfg = &c->server->config;
    if (!c->authenticated && cfg->unauthenticated_frame_bytes_max > 0 &&
        cfg->unauthenticated_frame_bytes_max < cfg->frame_bytes_max)
        return cfg->unauthenticated_frame_bytes_max;
    return cfg->frame_bytes_max;
}

/* Reallocates the buffer to cap bytes (0 frees it), charging the budget. */
static bool conn_set_rcap(net_conn *c, size_t cap)
{
    net_server_stats *st = &c->server->stats;
    if (cap == 0) {
        free(c->rbuf);
        c->rbuf = NULL;
    } else {
        uint8_t *p = realloc(c->rbuf, cap);
        if (!p)
            return false;
        c->rbuf = p;
    }
    net_shared *s = c->server->shared;
    if (c->rcap > 0 && c->rcap <= KQ_NET_READ_CHUNK_BYTES)
        s->first_read_bytes -= c->rcap;
    if (cap > 0 && cap <= KQ_NET_READ_CHUNK_BYTES)
        s->first_read_bytes += cap;
    if (s->memory_escape == c && cap <= KQ_NET_READ_CHUNK_BYTES)
        s->memory_escape = NULL; /* its frame is through (or it closed) */
    if ((c->rcap > 0) != (cap > 0)) { /* holders, and those of them waiting */
        int d = cap > 0 ? 1 : -1;
        s->memory_holders += d;
        if (c->waiting_memory)
            s->memory_holders_waiting += d;
    }
    st->request_bytes_buffered = st->request_bytes_buffered - c->rcap + cap;
    if (st->request_bytes_buffered > st->request_bytes_buffered_peak)
        st->request_bytes_buffered_peak = st->request_bytes_buffered;
    s->request_bytes = s->request_bytes - c->rcap + cap;
    if (s->request_bytes > s->request_bytes_peak)
        s->request_bytes_peak = s->request_bytes;
    c->rcap = cap;
    return true;
}

/* ---- The memory wait list. */

static bool memory_fits(const net_shared *s, const net_conn *c, size_t need)
{
    uint64_t used = s->request_bytes;
    uint64_t max = s->request_bytes_max;
    uint64_t first_max = max / KQ_NET_FIRST_READ_SHARE_DIV;
    if (used + need <= max || used == c->rcap || s->memory_escape == c)
        return true;
    if (c->rcap + need <= KQ_NET_READ_CHUNK_BYTES) /* a first read step: its own share */
        return s->first_read_bytes + need <= first_max;
    if (used - s->first_read_bytes + need <= max - first_max)
        return true;
    /* Every other holder waits for memory too: nothing would free any. One
     * connection at a time (the oldest waiter, or a reader not yet waiting)
     * grows past the budget until its frame is through. */
    uint32_t others = s->memory_holders - (c->rcap > 0);
    uint32_t others_waiting = s->memory_holders_waiting - (c->waiting_memory && c->rcap > 0);
    return !s->memory_escape && others == others_waiting &&
           (!c->waiting_memory || s->mem_head == c);
}

static void memory_wait(net_conn *c, size_t need)
{
    net_shared *s = c->server->shared;
    c->memory_need_bytes = need;
    if (c->waiting_memory)
        return;
    c->waiting_memory = true;
    s->request_waits++;
    s->conns_waiting++;
    if (c->rcap > 0)
        s->memory_holders_waiting++;
    c->mem_next = NULL;
    c->mem_prev = s->mem_tail;
    if (s->mem_tail)
        s->mem_tail->mem_next = c;
    else
        s->mem_head = c;
    s->mem_tail = c;
    uint64_t now = uv_now(c->server->loop);
    if (!s->memory_logged || now - s->memory_logged_ms >= MEMORY_LOG_INTERVAL_MS) {
        s->memory_logged = true;
        s->memory_logged_ms = now;
        log_line("request memory budget reached (queued.max.request.bytes=%llu, %llu buffered): "
                 "connection %s waits for a read buffer of %zu bytes (logged at most every %d s)",
                 (unsigned long long)s->request_bytes_max,
                 (unsigned long long)s->request_bytes, c->peer, need + c->rcap,
                 MEMORY_LOG_INTERVAL_MS / 1000);
    }
}

void conn_memory_unwait(net_conn *c)
{
    net_shared *s = c->server->shared;
    if (!c->waiting_memory)
        return;
    s->conns_waiting--;
    if (c->mem_prev)
        c->mem_prev->mem_next = c->mem_next;
    else
        s->mem_head = c->mem_next;
    if (c->mem_next)
        c->mem_next->mem_prev = c->mem_prev;
    else
        s->mem_tail = c->mem_prev;
    c->mem_prev = c->mem_next = NULL;
    c->waiting_memory = false;
    if (c->rcap > 0)
        s->memory_holders_waiting--;
}

/* Lets every waiter whose growth now fits read again, oldest first, on
 * every listener sharing the budget. Each asks again when libuv allocates
 * for it, so one that loses the race to an earlier one waits again; none
 * waits while memory it fits in is free. */
static void memory_wake(net_shared *s)
{
    net_conn *c = s->mem_head;
    while (c) {
        net_conn *next = c->mem_next;
        if (memory_fits(s, c, c->memory_need_bytes)) {
            conn_memory_unwait(c);
            conn_update_reading(c);
            if (c->tls) { /* its plaintext may wait inside TLS: pull it at the next check */
                c->tls_pump_queued = true;
                conn_queue_flush(c);
            }
        }
        c = next;
    }
}

void conn_release_buffer(net_conn *c)
{
    conn_memory_unwait(c);
    if (c->rcap == 0)
        return;
    conn_set_rcap(c, 0);
    c->rlen = 0;
    memory_wake(c->server->shared);
}

/* Shrinks the buffer to what its contents need: nothing when empty, else the
 * frame being read (at least one read step). */
static void conn_fit_buffer(net_conn *c)
{
    size_t want = 0;
    if (c->rlen > 0) {
        want = conn_frame_bytes(c);
        if (want < KQ_NET_READ_CHUNK_BYTES)
            want = KQ_NET_READ_CHUNK_BYTES;
        if (want < c->rlen)
            want = c->rlen;
    }
    if (want >= c->rcap || (want > 0 && c->rcap <= KQ_NET_READ_CHUNK_BYTES))
        return;
    if (conn_set_rcap(c, want))
        memory_wake(c->server->shared);
}

/* ---- Reading. */

bool conn_reserve_read(net_conn *c)
{
    size_t want = c->rcap > KQ_NET_READ_CHUNK_BYTES ? c->rcap : KQ_NET_READ_CHUNK_BYTES;
    size_t frame = conn_frame_bytes(c);
    if (frame > want) {
        /* Grow with what arrived, up to the frame (issue 19 item 5). */
        size_t step = c->rlen > KQ_NET_READ_GROWTH_MIN_BYTES ? c->rlen : KQ_NET_READ_GROWTH_MIN_BYTES;
        want = c->rlen + step < frame ? c->rlen + step : frame;
        if (want < c->rcap)
            want = c->rcap;
    }
    if (want <= c->rlen)
        want = c->rlen + KQ_NET_READ_CHUNK_BYTES; /* not expected: keep reading */
    if (want > c->rcap) {
        size_t need = want - c->rcap;
        net_shared *s = c->server->shared;
        if (!memory_fits(s, c, need)) {
            memory_wait(c, need);
            return false;
        }
        if (!s->memory_escape && c->rcap + need > KQ_NET_READ_CHUNK_BYTES &&
            s->request_bytes - s->first_read_bytes + need >
                s->request_bytes_max - s->request_bytes_max / KQ_NET_FIRST_READ_SHARE_DIV &&
            s->request_bytes != c->rcap)
            s->memory_escape = c; /* admitted past the budget: see memory_fits */
        if (!conn_set_rcap(c, want))
            return false;
    }
    return true;
}

static void conn_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)suggested;
    net_conn *c = h->data;
    *buf = uv_buf_init(NULL, 0);
    if (c->tls) {
        conn_tls_alloc(c, buf);
        return;
    }
    if (!conn_reserve_read(c))
        return; /* read_cb gets UV_ENOBUFS and stops reading */
    *buf = uv_buf_init((char *)c->rbuf + c->rlen, (unsigned)(c->rcap - c->rlen));
}

static void conn_on_read(uv_stream_t *stream, ssize_t n, const uv_buf_t *buf)
{
    (void)buf;
    net_conn *c = stream->data;
    if (n > 0)
        c->server->stats.received_bytes += (uint64_t)n;
    if (c->tls) {
        conn_tls_on_read(c, n);
        return;
    }
    if (n == UV_ENOBUFS && c->waiting_memory) {
        conn_update_reading(c);
        return;
    }
    if (n < 0) {
        conn_close(c, n == UV_EOF ? NULL : uv_strerror((int)n));
        return;
    }
    if (n == 0) { /* EAGAIN: an idle connection holds no buffer */
        conn_fit_buffer(c);
        return;
    }
    c->rlen += (size_t)n;
    conn_touch(c);
    c->outstanding++;
    conn_parse(c);
    c->outstanding--;
    conn_maybe_free(c);
}

void conn_start_reading(net_conn *c)
{
    conn_update_reading(c);
}

void conn_update_reading(net_conn *c)
{
    if (c->closing)
        return;
    bool want = !c->close_requested && !c->close_when_written && !c->paused_backlog &&
                !c->waiting_memory && !c->tls_in_full;
    if (want && !c->reading) {
        if (uv_read_start((uv_stream_t *)&c->tcp, conn_alloc, conn_on_read) == 0)
            c->reading = true;
    } else if (!want && c->reading) {
        uv_read_stop((uv_stream_t *)&c->tcp);
        c->reading = false;
    }
}

void conn_set_paused_budget(net_conn *c, bool paused)
{
    if (paused == c->paused_budget)
        return;
    c->paused_budget = paused;
    if (paused)
        c->server->paused_budget_count++;
    else
        c->server->paused_budget_count--;
}

bool conn_backlog_full(net_conn *c)
{
    const net_server_config *cfg = &c->server->config;
    if (c->tail - c->head >= NET_SLOTS_PER_CONN ||
        c->write_queued_bytes >= cfg->write_queue_bytes_max)
        return true;
    bool refused = cfg->budget && !kq_budget_may_read(cfg->budget, c->budget_class,
                                                      c->write_queued_bytes);
    conn_set_paused_budget(c, refused);
    return refused;
}

void server_resume_budget(net_server *s)
{
    kq_budget *b = s->config.budget;
    if (!b || s->paused_budget_count == 0 || b->released == s->budget_released_seen)
        return;
    s->budget_released_seen = b->released;
    net_conn *next = NULL;
    for (net_conn *c = s->conns; c; c = next) {
        next = c->next;
        if (!c->paused_budget || c->closing)
            continue;
        c->outstanding++; /* keep c alive across the resume */
        conn_resume_backlog(c);
        c->outstanding--;
        conn_maybe_free(c);
    }
}

/* Stops dispatching (true) when the slots, the write queue, the response
 * budget or this turn's frames say so. */
static bool conn_pause_dispatch(net_conn *c)
{
    return conn_backlog_full(c) || conn_turn_defer(c);
}

static void conn_dispatch(net_conn *c, uint8_t *frame, size_t size)
{
    conn_turn_count(c);
    net_slot *slot = &c->slots[c->tail % NET_SLOTS_PER_CONN];
    memset(slot, 0, sizeof(*slot));
    slot->conn = c;
    slot->in_use = true;
    c->tail++;
    c->outstanding++;
    c->outstanding++; /* hold c across the callback */
    c->server->config.on_frame(c->server->config.ctx, slot, frame, size);
    c->outstanding--;
}

void conn_parse(net_conn *c)
{
    size_t pos = 0;
    while (!c->closing && !c->close_when_written && !c->close_requested && c->rlen - pos >= 4) {
        int32_t size = (int32_t)frame_size_at(c->rbuf + pos);
        int32_t size_max = conn_frame_bytes_max(c);
        if (size < 0 || size > size_max) {
            bool sasl = size_max < c->server->config.frame_bytes_max;
            LOG_LINE_LIMITED("connection %s: frame of %d bytes exceeds %s=%d", c->peer, size,
                     sasl ? "sasl.server.max.receive.size (not authenticated)"
                          : "socket.request.max.bytes",
                     size_max);
            conn_close(c, "oversized frame");
            return;
        }
        if (c->rlen - pos < (size_t)size + 4)
            break;
        if (conn_pause_dispatch(c)) {
            c->paused_backlog = true;
            break;
        }
        conn_dispatch(c, c->rbuf + pos + 4, (size_t)size);
        pos += (size_t)size + 4;
    }
    if (c->closing)
        return;
    if (pos > 0) {
        memmove(c->rbuf, c->rbuf + pos, c->rlen - pos);
        c->rlen -= pos;
    }
    conn_fit_buffer(c);
    conn_update_reading(c);
}

void conn_resume_backlog(net_conn *c)
{
    if (!c->paused_backlog || c->closing || conn_pause_dispatch(c))
        return;
    c->paused_backlog = false;
    conn_parse(c);
    if (c->tls)
        conn_tls_pump_in(c); /* plaintext left inside TLS while paused */
}
