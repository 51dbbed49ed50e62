/* Response slots and the write path: completed slots leave in request order,
 * gathered into one uv_write per connection per loop turn. Every response
 * byte counts in its connection's write queue from the moment the slot
 * completes until libuv reports it written, so a client that never reads
 * pauses its own connection (server_read.c) instead of growing memory. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/assert.h"
#include "kq/log_line.h"
#include "server_internal.h"

static void write_queue_add(net_conn *c, uint64_t bytes)
{
    net_server_stats *st = &c->server->stats;
    c->write_queued_bytes += bytes;
    st->write_queued_bytes += bytes;
    if (c->server->config.budget)
        kq_budget_charge(c->server->config.budget, c->budget_class, bytes);
    if (c->write_queued_bytes > st->write_queued_bytes_conn_peak)
        st->write_queued_bytes_conn_peak = c->write_queued_bytes;
}

static void write_queue_sub(net_conn *c, uint64_t bytes)
{
    c->write_queued_bytes -= bytes;
    c->server->stats.write_queued_bytes -= bytes;
    if (c->server->config.budget)
        kq_budget_release(c->server->config.budget, c->budget_class, bytes);
}

static void slot_stream_free(net_slot *s)
{
    if (!s->stream)
        return;
    s->stream->src.release(s->stream->src.ctx);
    free(s->stream);
    s->stream = NULL;
}

void conn_free_slots(net_conn *c)
{
    for (uint32_t i = c->head; i != c->tail; i++) {
        net_slot *s = &c->slots[i % NET_SLOTS_PER_CONN];
        if (s->data)
            write_queue_sub(c, s->len);
        free(s->data);
        s->data = NULL;
        slot_stream_free(s);
    }
}

bool conn_streaming(const net_conn *c)
{
    if (c->head == c->tail)
        return false;
    const net_slot *s = &c->slots[c->head % NET_SLOTS_PER_CONN];
    return s->done && s->stream;
}

void server_on_idle(uv_idle_t *h)
{
    (void)h;
}

void conn_queue_flush(net_conn *c)
{
    if (c->flush_queued || c->closing)
        return;
    c->flush_queued = true;
    c->flush_next = c->server->flush_list;
    c->server->flush_list = c;
    uv_idle_start(&c->server->flush_idle, server_on_idle);
}

void write_req_free(write_req *wr)
{
    for (int i = 0; i < wr->count; i++)
        free(wr->owned[i]);
    write_queue_sub(wr->conn, wr->bytes);
    KQ_ASSERT(wr->conn->stream_chunks_in_flight >= (uint32_t)wr->chunks);
    wr->conn->stream_chunks_in_flight -= (uint32_t)wr->chunks;
    free(wr);
}

static void conn_on_written(uv_write_t *req, int status)
{
    write_req *wr = (write_req *)req;
    net_conn *c = wr->conn;
    write_req_free(wr);
    c->writes_in_flight--;
    conn_touch(c);
    if (status < 0 && !c->closing)
        conn_close(c, uv_strerror(status));
    else if (c->close_when_written && c->writes_in_flight == 0)
        conn_close(c, NULL);
    else if (conn_streaming(c))
        conn_queue_flush(c); /* its next chunk */
    c->outstanding++; /* keep c alive across the resume */
    conn_resume_backlog(c);
    c->outstanding--;
    conn_maybe_free(c);
}

/* Appends buffer data (n bytes, now owned by the request) to *wr. */
static bool wr_push(net_conn *c, write_req **wr, uv_buf_t *bufs, uint8_t *data, size_t n,
                    bool chunk)
{
    if (!*wr && !(*wr = calloc(1, sizeof(**wr)))) {
        free(data);
        return false;
    }
    write_req *w = *wr;
    KQ_ASSERT(w->count < WRITE_BUFS_MAX);
    w->conn = c;
    bufs[w->count] = uv_buf_init((char *)data, (unsigned)n);
    w->lens[w->count] = n;
    w->owned[w->count++] = data;
    w->bytes += n;
    write_queue_add(c, n);
    if (chunk) {
        w->chunks++;
        c->stream_chunks_in_flight++;
    }
    return true;
}

/* Reads the next chunk of piece p of stream st into a new buffer. */
static bool stream_chunk(net_conn *c, net_stream *st, uint8_t **out, size_t *out_len)
{
    const net_stream_piece *p = &st->pieces[st->piece];
    uint64_t left = p->len - st->piece_done;
    /* A large chunk while the response budget has ample room (a batch up to
     * its size is then read once, not checked and sent in pieces); the small
     * one when it is scarce (floods of unread answers), so that what a
     * connection holds stays within the budget. */
    size_t want = KQ_FETCH_STREAM_CHUNK_BYTES;
    const net_server_config *cfg = &c->server->config;
    if (cfg->budget &&
        kq_budget_room(cfg->budget, c->budget_class) >=
            cfg->budget->headroom_bytes + 4 * (uint64_t)KQ_FETCH_STREAM_CHUNK_BYTES_MAX &&
        c->write_queued_bytes + KQ_FETCH_STREAM_CHUNK_BYTES_MAX <= cfg->budget->conn_bytes_max)
        want = KQ_FETCH_STREAM_CHUNK_BYTES_MAX;
    if (st->need_bytes > want)
        want = st->need_bytes;
    size_t cap = left < want ? (size_t)left : want;
    for (int attempt = 0; attempt < 2; attempt++) {
        uint8_t *buf = malloc(cap);
        if (!buf)
            return false;
        size_t need = 0;
        ssize_t n = st->src.read(st->src.ctx, st->piece, buf, cap, &need);
        if (n > 0 && (uint64_t)n <= left) {
            *out = buf;
            *out_len = (size_t)n;
            return true;
        }
        free(buf);
        if (n != -ENOBUFS || need <= cap || need > left)
            break;
        cap = need; /* a batch larger than a chunk: read it whole */
        st->need_bytes = need;
    }
    c->gather_error = "streamed response cut (its log data went away or could not be read)";
    return false;
}

/* Gathers the streamed response at slot s into *wr: frame bytes up to the
 * next piece, then the piece's chunks as the in-flight bound allows.
 * Returns 1 once its last byte was gathered, 0 when it must wait (chunks
 * in flight, or the request is full), -1 on failure (c->gather_error). */
static int stream_gather(net_conn *c, net_slot *s, write_req **wr, uv_buf_t *bufs)
{
    net_stream *st = s->stream;
    for (;;) {
        if (*wr && (*wr)->count >= WRITE_BUFS_MAX)
            return 0;
        if (st->piece < st->count && st->frame_pos == st->pieces[st->piece].at) {
            if (st->piece_done == st->pieces[st->piece].len) {
                st->piece++;
                st->piece_done = 0;
                continue;
            }
            /* A client that stops reading pins at most the chunks in
             * flight, never the rest of the answer. */
            if (c->stream_chunks_in_flight >= KQ_FETCH_STREAM_CHUNKS_IN_FLIGHT_MAX)
                return 0;
            uint8_t *buf;
            size_t n;
            if (!stream_chunk(c, st, &buf, &n) || !wr_push(c, wr, bufs, buf, n, true))
                return -1;
            st->piece_done += n;
            /* One chunk per write: as soon as one is written the next is
             * read while the other is still in the kernel (double buffer). */
            return 0;
        }
        size_t end = st->piece < st->count ? st->pieces[st->piece].at : s->len;
        KQ_ASSERT(end >= st->frame_pos && end <= s->len);
        if (end == st->frame_pos)
            return 1;
        uint8_t *copy = malloc(end - st->frame_pos);
        if (!copy)
            return -1;
        memcpy(copy, s->data + st->frame_pos, end - st->frame_pos);
        if (!wr_push(c, wr, bufs, copy, end - st->frame_pos, false))
            return -1;
        st->frame_pos = end;
    }
}

/* Moves the completed slots at the head of the queue into one write request
 * (at most WRITE_BUFS_MAX buffers). Sets *stop_after when a slot asked to
 * close the connection. Returns false when out of memory. */
bool conn_gather(net_conn *c, write_req **out, uv_buf_t *bufs, bool *stop_after)
{
    write_req *wr = NULL;
    while (c->head != c->tail) {
        net_slot *s = &c->slots[c->head % NET_SLOTS_PER_CONN];
        if (!s->done)
            break;
        if (s->stream) {
            int r = stream_gather(c, s, &wr, bufs);
            if (r < 0) {
                if (wr)
                    write_req_free(wr);
                *out = NULL;
                return false;
            }
            if (r == 0)
                break;
            write_queue_sub(c, s->len); /* every byte of it is in wr or written */
            free(s->data);
            s->data = NULL;
            slot_stream_free(s);
        } else if (s->data) {
            if (!wr && !(wr = calloc(1, sizeof(*wr))))
                return false;
            wr->conn = c;
            bufs[wr->count] = uv_buf_init((char *)s->data, (unsigned)s->len);
            wr->lens[wr->count] = s->len;
            wr->owned[wr->count++] = s->data;
            wr->bytes += s->len;
            s->data = NULL;
        }
        s->in_use = false;
        c->head++;
        if (s->close_after) {
            *stop_after = true;
            c->close_when_written = true;
            break;
        }
        if (wr && wr->count == WRITE_BUFS_MAX)
            break;
    }
    *out = wr;
    return true;
}

static bool conn_write(net_conn *c, write_req *wr, uv_buf_t *bufs)
{
    c->writes_in_flight++;
    int rc = uv_write(&wr->req, (uv_stream_t *)&c->tcp, bufs, (unsigned)wr->count,
                      conn_on_written);
    if (rc < 0) {
        c->writes_in_flight--;
        write_req_free(wr);
        conn_close(c, uv_strerror(rc));
        return false;
    }
    for (int i = 0; i < wr->count; i++)
        c->server->stats.sent_bytes += bufs[i].len;
    return true;
}

/* Writes every completed slot at the head of the queue, in order. */
void conn_flush(net_conn *c)
{
    if (c->tls) {
        conn_tls_flush(c);
        return;
    }
    while (!c->closing && !c->close_when_written && c->head != c->tail) {
        write_req *wr = NULL;
        uv_buf_t bufs[WRITE_BUFS_MAX];
        bool stop_after = false;
        if (!conn_gather(c, &wr, bufs, &stop_after)) {
            conn_close(c, c->gather_error ? c->gather_error : "out of memory");
            return;
        }
        if (wr && !conn_write(c, wr, bufs))
            return;
        if (stop_after) {
            if (c->writes_in_flight == 0)
                conn_close(c, NULL);
            return;
        }
        if (!wr)
            break;
    }
    conn_resume_backlog(c);
}

void server_on_check(uv_check_t *h)
{
    net_server *s = h->data;
    uv_idle_stop(&s->flush_idle);
    server_resume_deferred(s);
    server_resume_budget(s);
    while (s->flush_list) {
        net_conn *c = s->flush_list;
        s->flush_list = c->flush_next;
        c->flush_queued = false;
        c->outstanding++; /* keep c alive across flush */
        if (c->tls_pump_queued) {
            c->tls_pump_queued = false;
            conn_tls_pump_in(c);
        }
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
    c->completed_request = true;
    conn_touch(c);
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
            write_queue_add(c, slot->len);
        } else {
            slot->close_after = true;
        }
    }
    slot_complete(slot);
}

void net_slot_respond_take(net_slot *slot, uint8_t *frame, size_t len)
{
    net_conn *c = slot->conn;
    KQ_ASSERT(len >= 4 && len - 4 <= INT32_MAX);
    KQ_ASSERT(((uint32_t)frame[0] << 24 | (uint32_t)frame[1] << 16 | (uint32_t)frame[2] << 8 |
               frame[3]) == len - 4);
    if (c->closing) {
        free(frame);
    } else {
        slot->data = frame;
        slot->len = len;
        write_queue_add(c, slot->len);
    }
    slot_complete(slot);
}

void net_slot_respond_stream(net_slot *slot, uint8_t *frame, size_t len,
                             const net_stream_piece *pieces, uint32_t count,
                             net_stream_source source)
{
    net_conn *c = slot->conn;
    KQ_ASSERT(len >= 4 && count > 0);
    uint64_t total = len - 4;
    for (uint32_t i = 0; i < count; i++) {
        KQ_ASSERT(pieces[i].at >= 4 && pieces[i].at <= len && pieces[i].len > 0);
        KQ_ASSERT(i == 0 || pieces[i].at >= pieces[i - 1].at);
        total += pieces[i].len;
    }
    KQ_ASSERT(total <= INT32_MAX);
    KQ_ASSERT(((uint32_t)frame[0] << 24 | (uint32_t)frame[1] << 16 | (uint32_t)frame[2] << 8 |
               frame[3]) == total);
    net_stream *st = c->closing ? NULL : malloc(sizeof(*st) + sizeof(*pieces) * count);
    if (!st) {
        free(frame);
        source.release(source.ctx);
        if (!c->closing)
            slot->close_after = true;
        slot_complete(slot);
        return;
    }
    *st = (net_stream){.src = source, .count = count};
    memcpy(st->pieces, pieces, sizeof(*pieces) * count);
    slot->data = frame;
    slot->len = len;
    slot->stream = st;
    write_queue_add(c, slot->len);
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
        LOG_LINE_LIMITED("closing connection %s: %s", c->peer, why);
    /* Frames pipelined behind this one are never handled: their side effects
     * (an appended Produce) would reach no client. */
    c->close_requested = true;
    conn_update_reading(c);
    slot->close_after = true;
    slot_complete(slot);
}

void net_conn_close_user(void **user, const char *why)
{
    net_conn *c = (net_conn *)((char *)user - offsetof(net_conn, user));
    KQ_ASSERT(&c->user == user);
    if (c->closing || c->close_requested || c->close_when_written)
        return;
    if (why)
        LOG_LINE_LIMITED("closing connection %s: %s", c->peer, why);
    c->close_requested = true; /* none of its frames is dispatched any more */
    conn_update_reading(c);
    if (c->head != c->tail) { /* after the last answer handed out */
        c->slots[(c->tail - 1) % NET_SLOTS_PER_CONN].close_after = true;
        conn_queue_flush(c);
    } else if (c->writes_in_flight > 0 || c->tls_plain) {
        c->close_when_written = true;
        conn_queue_flush(c);
    } else {
        conn_close(c, NULL);
    }
}

const char *net_slot_peer(const net_slot *slot)
{
    return slot->conn->peer;
}

uint64_t *net_slot_stamp(net_slot *slot)
{
    return &slot->stamp;
}

uint32_t net_slot_listener_tag(const net_slot *slot)
{
    return slot->conn->server->config.tag;
}

void **net_slot_conn_user(net_slot *slot)
{
    return &slot->conn->user;
}

const char *net_slot_tls_principal(const net_slot *slot)
{
    return slot->conn->principal;
}

bool net_slot_orphaned(const net_slot *slot)
{
    return slot->conn->closing;
}

uint64_t net_slot_grant(const net_slot *slot, uint64_t want)
{
    const net_conn *c = slot->conn;
    const net_server_config *cfg = &c->server->config;
    if (cfg->budget)
        return kq_budget_grant(cfg->budget, c->budget_class, c->write_queued_bytes, want);
    uint64_t room = c->write_queued_bytes < cfg->write_queue_bytes_max
                        ? cfg->write_queue_bytes_max - c->write_queued_bytes
                        : 0;
    return want < room ? want : room;
}

void net_slot_authenticated(net_slot *slot)
{
    slot->conn->authenticated = true;
}
