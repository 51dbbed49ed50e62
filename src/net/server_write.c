/* Response slots and the write path: completed slots leave in request order,
 * gathered into one uv_write per connection per loop turn. Every response
 * byte counts in its connection's write queue from the moment the slot
 * completes until libuv reports it written, so a client that never reads
 * pauses its own connection (server_read.c) instead of growing memory. */
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
        kq_budget_charge(c->server->config.budget, c->server->config.budget_class, bytes);
    if (c->write_queued_bytes > st->write_queued_bytes_conn_peak)
        st->write_queued_bytes_conn_peak = c->write_queued_bytes;
}

static void write_queue_sub(net_conn *c, uint64_t bytes)
{
    c->write_queued_bytes -= bytes;
    c->server->stats.write_queued_bytes -= bytes;
    if (c->server->config.budget)
        kq_budget_release(c->server->config.budget, c->server->config.budget_class, bytes);
}

void conn_free_slots(net_conn *c)
{
    for (uint32_t i = c->head; i != c->tail; i++) {
        net_slot *s = &c->slots[i % NET_SLOTS_PER_CONN];
        if (s->data)
            write_queue_sub(c, s->len);
        free(s->data);
        s->data = NULL;
    }
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
    c->outstanding++; /* keep c alive across the resume */
    conn_resume_backlog(c);
    c->outstanding--;
    conn_maybe_free(c);
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
        if (s->data) {
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
            conn_close(c, "out of memory");
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
        return kq_budget_grant(cfg->budget, cfg->budget_class, c->write_queued_bytes, want);
    uint64_t room = c->write_queued_bytes < cfg->write_queue_bytes_max
                        ? cfg->write_queue_bytes_max - c->write_queued_bytes
                        : 0;
    return want < room ? want : room;
}

void net_slot_authenticated(net_slot *slot)
{
    slot->conn->authenticated = true;
}
