/* The read path: size-prefixed frames in, dispatched to slots, and the two
 * reasons a connection stops reading.
 *
 * Backlog: every slot in use, or the connection's write queue at its limit
 * (a client that pipelines and never reads). Reading resumes as soon as a
 * slot is written or the queue drains below the limit.
 *
 * Memory: every connection's read buffer is charged to one server-wide
 * budget (queued.max.request.bytes). Once a frame's size is known the buffer
 * is grown to the whole frame at once, so a frame that was admitted can
 * always be completed, and a buffer is freed as soon as it holds nothing.
 * A connection whose buffer would have to grow past the budget stops reading
 * and waits on a list; freed memory wakes the waiters that fit. Connections
 * whose frame is already reserved keep reading (that is what frees memory),
 * and a frame is admitted whatever the budget when no other connection holds
 * buffer memory, so the budget never deadlocks. */
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
    if (size > (uint32_t)c->server->config.frame_bytes_max)
        return 0;
    return (size_t)size + 4;
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
    st->request_bytes_buffered = st->request_bytes_buffered - c->rcap + cap;
    if (st->request_bytes_buffered > st->request_bytes_buffered_peak)
        st->request_bytes_buffered_peak = st->request_bytes_buffered;
    c->rcap = cap;
    return true;
}

/* ---- The memory wait list. */

static bool memory_fits(const net_server *s, const net_conn *c, size_t need)
{
    uint64_t used = s->stats.request_bytes_buffered;
    return used + need <= s->config.request_bytes_max || used == c->rcap;
}

static void memory_wait(net_conn *c, size_t need)
{
    net_server *s = c->server;
    c->memory_need_bytes = need;
    if (c->waiting_memory)
        return;
    c->waiting_memory = true;
    c->mem_next = NULL;
    c->mem_prev = s->mem_tail;
    if (s->mem_tail)
        s->mem_tail->mem_next = c;
    else
        s->mem_head = c;
    s->mem_tail = c;
    uint64_t now = uv_now(s->loop);
    if (!s->memory_logged || now - s->memory_logged_ms >= MEMORY_LOG_INTERVAL_MS) {
        s->memory_logged = true;
        s->memory_logged_ms = now;
        log_line("request memory budget reached (queued.max.request.bytes=%llu, %llu buffered): "
                 "connection %s waits for a read buffer of %zu bytes (logged at most every %d s)",
                 (unsigned long long)s->config.request_bytes_max,
                 (unsigned long long)s->stats.request_bytes_buffered, c->peer, need + c->rcap,
                 MEMORY_LOG_INTERVAL_MS / 1000);
    }
}

void conn_memory_unwait(net_conn *c)
{
    net_server *s = c->server;
    if (!c->waiting_memory)
        return;
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
}

/* Lets every waiter whose growth now fits read again, oldest first. Each
 * asks again when libuv allocates for it, so one that loses the race to an
 * earlier one waits again; none waits while memory it fits in is free. */
static void memory_wake(net_server *s)
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
    memory_wake(c->server);
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
        memory_wake(c->server);
}

/* ---- Reading. */

bool conn_reserve_read(net_conn *c)
{
    size_t want = c->rcap > KQ_NET_READ_CHUNK_BYTES ? c->rcap : KQ_NET_READ_CHUNK_BYTES;
    size_t frame = conn_frame_bytes(c);
    if (frame > want)
        want = frame;
    if (want <= c->rlen)
        want = c->rlen + KQ_NET_READ_CHUNK_BYTES; /* not expected: keep reading */
    if (want > c->rcap) {
        size_t need = want - c->rcap;
        if (!memory_fits(c->server, c, need)) {
            memory_wait(c, need);
            return false;
        }
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

bool conn_backlog_full(const net_conn *c)
{
    return c->tail - c->head >= NET_SLOTS_PER_CONN ||
           c->write_queued_bytes >= c->server->config.write_queue_bytes_max;
}

static void conn_dispatch(net_conn *c, uint8_t *frame, size_t size)
{
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
        if (size < 0 || size > c->server->config.frame_bytes_max) {
            LOG_LINE_LIMITED("connection %s: frame of %d bytes exceeds socket.request.max.bytes=%d",
                     c->peer, size, c->server->config.frame_bytes_max);
            conn_close(c, "oversized frame");
            return;
        }
        if (c->rlen - pos < (size_t)size + 4)
            break;
        if (conn_backlog_full(c)) {
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
    if (!c->paused_backlog || c->closing || conn_backlog_full(c))
        return;
    c->paused_backlog = false;
    conn_parse(c);
    if (c->tls)
        conn_tls_pump_in(c); /* plaintext left inside TLS while paused */
}
