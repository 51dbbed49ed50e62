/* A fake node for the handler tests: a real Raft core, a real log in a temp
 * dir and real producer state, driven synchronously the way src/daemon/node.c
 * drives them, except that a requested flush runs only when the test says so
 * (tn_flush). Replies are recorded per slot so tests can decode the bytes. */
#ifndef HANDLER_TEST_NODE_H
#define HANDLER_TEST_NODE_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kq/buf.h"
#include "kq/handler.h"
#include "kq/kafka_errors.h"
#include "kq/log.h"
#include "kq/producer_state.h"
#include "kq/raft.h"
#include "kq/record.h"
#include "kq/wire.h"

#define TN_QUEUE_MAX 256
#define TN_CLUSTER_ID "test-cluster-id"
#define TN_PORT_BASE 9090

enum tn_reply_kind { TN_REPLY = 1, TN_REPLY_NONE, TN_REPLY_CLOSE };

/* An opaque client slot as the handler sees it. */
typedef struct tn_slot {
    int id;
} tn_slot;

typedef struct tn_reply {
    tn_slot *slot;
    enum tn_reply_kind kind;
    uint8_t *data;
    size_t len;
} tn_reply;

typedef struct tn_node {
    char dir[64];
    kq_log *log;
    raft *raft;
    producer_state *producers;
    handler *h;
    int32_t node_id;
    int64_t now;
    int64_t next_pid;
    bool flush_wanted; /* the core asked for a flush; tn_flush carries it out */
    bool eager_flush;  /* flush at once when asked (FLUSHED queued inside the step) */
    bool stepping;
    raft_event queue[TN_QUEUE_MAX];
    uint32_t queue_head, queue_tail;
    raft_output out;
    raft_quorum_state qstate;
    int qstate_stores;
    int peer_requests; /* requests the core sent to peers (encoded, then dropped) */
    tn_reply *replies;
    int reply_count, reply_cap;
    kq_arena arena; /* for decoding responses */
    tn_slot internal_slot;
} tn_node;

static inline int tn_rm_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* ---- handler_services callbacks */

static inline void tn_record_reply(tn_node *n, void *slot, enum tn_reply_kind kind,
                                   const uint8_t *data, size_t len)
{
    if (n->reply_count == n->reply_cap) {
        n->reply_cap = n->reply_cap ? n->reply_cap * 2 : 64;
        n->replies = realloc(n->replies, sizeof(*n->replies) * (size_t)n->reply_cap);
        assert_non_null(n->replies);
    }
    tn_reply *r = &n->replies[n->reply_count++];
    r->slot = slot;
    r->kind = kind;
    r->len = len;
    r->data = NULL;
    if (len > 0) {
        r->data = malloc(len);
        assert_non_null(r->data);
        memcpy(r->data, data, len);
    }
}

/* The reply callbacks carry no node pointer: the node in use is global. */
static tn_node *tn_current;

static inline void tn_reply_cb(void *slot, const uint8_t *data, size_t len)
{
    assert_non_null(data);
    assert_true(len >= 4);
    tn_record_reply(tn_current, slot, TN_REPLY, data, len);
}

static inline void tn_reply_none_cb(void *slot)
{
    tn_record_reply(tn_current, slot, TN_REPLY_NONE, NULL, 0);
}

static inline void tn_reply_close_cb(void *slot, const char *why)
{
    assert_non_null(why);
    tn_record_reply(tn_current, slot, TN_REPLY_CLOSE, NULL, 0);
}

static inline const char *tn_slot_peer_cb(void *slot)
{
    (void)slot;
    return "test-client";
}

static inline int64_t tn_now_cb(void *node)
{
    return ((tn_node *)node)->now;
}

static inline int64_t tn_next_pid_cb(void *node)
{
    return ((tn_node *)node)->next_pid++;
}

static inline int tn_rebuild_batch(void *ctx, const uint8_t *batch, size_t len)
{
    producer_state_record_batches(ctx, batch, len);
    return 0;
}

static inline void tn_step(void *node, raft_event *ev, raft_output *out);

static inline void tn_execute(tn_node *n, raft_output *out)
{
    char err[512];
    for (int i = 0; i < out->action_count; i++) {
        raft_action *a = &out->actions[i];
        switch (a->type) {
        case RAFT_ACTION_STORE_QSTATE:
            n->qstate = a->qstate; /* "durable" in memory */
            n->qstate_stores++;
            break;
        case RAFT_ACTION_TRUNCATE:
            assert_int_equal(kq_log_truncate(n->log, a->offset, err, sizeof(err)), 0);
            producer_state_clear(n->producers);
            assert_true(kq_log_scan(n->log, kq_log_start_offset(n->log), tn_rebuild_batch,
                                    n->producers) >= 0);
            break;
        case RAFT_ACTION_APPEND: {
            uint8_t *data = (uint8_t *)a->append.records;
            int rc = kq_log_append(n->log, data, a->append.len, a->append.base_offset,
                                   a->append.epoch, err, sizeof(err));
            if (rc != 0)
                fail_msg("kq_log_append: %s", err);
            producer_state_record_batches(n->producers, data, a->append.len);
            break;
        }
        case RAFT_ACTION_FLUSH:
            if (n->eager_flush) {
                kq_log_flush_job *job = NULL;
                assert_int_equal(kq_log_flush_begin(n->log, &job), 0);
                if (job) {
                    assert_int_equal(kq_log_flush_run(job), 0);
                    kq_log_flush_end(n->log, job);
                }
                raft_event ev;
                memset(&ev, 0, sizeof(ev));
                ev.type = RAFT_EVENT_FLUSHED;
                ev.flushed_offset = kq_log_flushed_offset(n->log);
                tn_step(n, &ev, &n->out); /* queued: we are inside a step */
            } else {
                n->flush_wanted = true;
            }
            break;
        case RAFT_ACTION_SEND:
            if (a->msg.token != 0) {
                handler_send_raft_response(n->h, &a->msg);
            } else {
                uint8_t *data = NULL;
                size_t len = 0;
                assert_true(handler_encode_raft_request(n->h, &a->msg, 1, &data, &len));
                free(data);
                n->peer_requests++;
            }
            break;
        }
    }
    handler_on_progress(n->h);
}

static inline void tn_step_now(tn_node *n, raft_event *ev, raft_output *out);

static inline void tn_step(void *node, raft_event *ev, raft_output *out)
{
    tn_node *n = node;
    if (n->stepping) { /* raised while carrying out a step: queued, as node.c does */
        assert_true(n->queue_tail - n->queue_head < TN_QUEUE_MAX);
        n->queue[n->queue_tail++ % TN_QUEUE_MAX] = *ev;
        return;
    }
    tn_step_now(n, ev, out);
    while (n->queue_head != n->queue_tail) {
        raft_event q = n->queue[n->queue_head++ % TN_QUEUE_MAX];
        tn_step_now(n, &q, &n->out);
    }
}

static inline void tn_step_now(tn_node *n, raft_event *ev, raft_output *out)
{
    n->stepping = true;
    ev->now_ms = n->now;
    raft_step(n->raft, ev, out);
    tn_execute(n, out);
    n->stepping = false;
}

static inline void tn_event(tn_node *n, enum raft_event_type type, int64_t flushed)
{
    raft_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.type = type;
    ev.flushed_offset = flushed;
    tn_step(n, &ev, &n->out);
}

/* ---- set-up */

/* Node node_id among voters 1..voter_count, every one listed as an endpoint
 * (host "node<id>.test", port TN_PORT_BASE + id). Steps one TICK at time 0. */
static inline void tn_open(tn_node *n, int32_t node_id, int voter_count)
{
    memset(n, 0, sizeof(*n));
    tn_current = n;
    n->node_id = node_id;
    n->next_pid = 1000;
    n->now = 1000000;
    snprintf(n->dir, sizeof(n->dir), "/tmp/kq-handler-XXXXXX");
    assert_non_null(mkdtemp(n->dir));
    char err[512];
    n->log = kq_log_open(n->dir, 1 << 20, err, sizeof(err));
    if (!n->log)
        fail_msg("kq_log_open: %s", err);
    n->producers = producer_state_create(64);
    assert_non_null(n->producers);

    raft_config c;
    memset(&c, 0, sizeof(c));
    c.node_id = node_id;
    for (int i = 0; i < voter_count; i++)
        c.voter_ids[i] = i + 1;
    c.voter_count = voter_count;
    c.election_timeout_ms = 1000;
    c.fetch_timeout_ms = 2000;
    c.election_backoff_max_ms = 1000;
    c.request_timeout_ms = 500;
    c.retry_backoff_ms = 50;
    c.fetch_max_wait_ms = 400;
    c.fetch_max_bytes = 1 << 20;
    c.random_seed = 7;
    raft_quorum_state qs = {.epoch = 0, .voted_id = -1, .leader_id = -1};
    raft_log_state ls = {.end_offset = kq_log_end_offset(n->log)};
    n->raft = raft_create(&c, &qs, &ls, n->now);
    assert_non_null(n->raft);

    handler_services s;
    memset(&s, 0, sizeof(s));
    s.node = n;
    s.raft = n->raft;
    s.log = n->log;
    s.producers = n->producers;
    s.node_id = node_id;
    s.cluster_id = TN_CLUSTER_ID;
    for (int i = 0; i < voter_count; i++) {
        s.nodes[i].node_id = i + 1;
        snprintf(s.nodes[i].host, sizeof(s.nodes[i].host), "node%d.test", i + 1);
        s.nodes[i].port = (uint16_t)(TN_PORT_BASE + i + 1);
    }
    s.node_count = voter_count;
    s.frame_bytes_max = 1 << 20;
    s.step = tn_step;
    s.now_ms = tn_now_cb;
    s.next_producer_id = tn_next_pid_cb;
    s.reply = tn_reply_cb;
    s.reply_none = tn_reply_none_cb;
    s.reply_close = tn_reply_close_cb;
    s.slot_peer = tn_slot_peer_cb;
    s.forward_to_leader = NULL;
    n->h = handler_create(&s);
    assert_non_null(n->h);
    kq_arena_init(&n->arena, 0);
    tn_event(n, RAFT_EVENT_TICK, 0);
}

/* Carries out the flush the core asked for (if any) and reports FLUSHED;
 * repeats while the core asks again. Returns how many flushes ran. */
static inline int tn_flush(tn_node *n)
{
    int flushes = 0;
    while (n->flush_wanted) {
        n->flush_wanted = false;
        kq_log_flush_job *job = NULL;
        assert_int_equal(kq_log_flush_begin(n->log, &job), 0);
        if (job) {
            assert_int_equal(kq_log_flush_run(job), 0);
            kq_log_flush_end(n->log, job);
        }
        flushes++;
        tn_event(n, RAFT_EVENT_FLUSHED, kq_log_flushed_offset(n->log));
    }
    return flushes;
}

/* Makes the log durable without telling the core (its HW does not move). */
static inline int64_t tn_flush_silently(tn_node *n)
{
    kq_log_flush_job *job = NULL;
    assert_int_equal(kq_log_flush_begin(n->log, &job), 0);
    if (job) {
        assert_int_equal(kq_log_flush_run(job), 0);
        kq_log_flush_end(n->log, job);
    }
    return kq_log_flushed_offset(n->log);
}

/* A single-voter leader (node 1) whose LeaderChange batch at offset 0 is
 * committed: HW 1. */
static inline void tn_open_leader(tn_node *n)
{
    tn_open(n, 1, 1);
    raft_status st;
    raft_get_status(n->raft, &st);
    assert_int_equal(st.role, RAFT_ROLE_LEADER);
    assert_int_equal(kq_log_end_offset(n->log), 1);
    assert_true(n->flush_wanted);
    tn_flush(n);
    raft_get_status(n->raft, &st);
    assert_int_equal(st.high_watermark, 1);
}

static inline void tn_tick(tn_node *n, int64_t now)
{
    n->now = now;
    handler_on_tick(n->h, now);
    tn_event(n, RAFT_EVENT_TICK, 0);
}

static inline void tn_close(tn_node *n)
{
    handler_destroy(n->h);
    raft_destroy(n->raft);
    kq_log_close(n->log);
    producer_state_destroy(n->producers);
    nftw(n->dir, tn_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
    for (int i = 0; i < n->reply_count; i++)
        free(n->replies[i].data);
    free(n->replies);
    kq_arena_free(&n->arena);
    tn_current = NULL;
}

static inline raft_status tn_status(tn_node *n)
{
    raft_status st;
    raft_get_status(n->raft, &st);
    return st;
}

/* ---- requests and replies */

static inline void tn_begin_request(kq_writer *w, int16_t key, int16_t version, int32_t corr)
{
    kq_writer_init(w, 0);
    wire_request_header hdr = {.api_key = key, .api_version = version,
                               .correlation_id = corr, .client_id = kq_slice_cstr("tester")};
    wire_request_header_encode(w, &hdr);
}

/* Hands a copy of the frame in w to the handler (which may rewrite it) and
 * frees w. */
static inline void tn_deliver(tn_node *n, tn_slot *slot, kq_writer *w)
{
    assert_false(w->error);
    uint8_t *frame = malloc(w->len ? w->len : 1);
    assert_non_null(frame);
    memcpy(frame, w->data, w->len);
    handler_on_frame(n->h, slot, frame, w->len);
    free(frame);
    kq_writer_free(w);
}

static inline void tn_deliver_raw(tn_node *n, tn_slot *slot, const uint8_t *data, size_t len)
{
    uint8_t *frame = malloc(len ? len : 1);
    assert_non_null(frame);
    if (len)
        memcpy(frame, data, len);
    handler_on_frame(n->h, slot, frame, len);
    free(frame);
}

/* Encodes a request with the wire encoder for the API and delivers it. */
#define TN_SEND(n, slot, key, version, corr, encode_fn, body)                                    \
    do {                                                                                       \
        kq_writer tn_w_;                                                                       \
        tn_begin_request(&tn_w_, (key), (version), (corr));                                    \
        encode_fn(&tn_w_, (version), (body));                                                  \
        tn_deliver((n), (slot), &tn_w_);                                                       \
    } while (0)

static inline int tn_count(const tn_node *n, const tn_slot *slot)
{
    int c = 0;
    for (int i = 0; i < n->reply_count; i++)
        if (n->replies[i].slot == slot)
            c++;
    return c;
}

static inline const tn_reply *tn_last(const tn_node *n, const tn_slot *slot)
{
    for (int i = n->reply_count - 1; i >= 0; i--)
        if (n->replies[i].slot == slot)
            return &n->replies[i];
    return NULL;
}

/* The slot's latest reply as a reader after its response header (whose
 * correlation id must be corr). */
static inline kq_reader tn_response(tn_node *n, const tn_slot *slot, int16_t key, int16_t version,
                                    int32_t corr)
{
    const tn_reply *rep = tn_last(n, slot);
    assert_non_null(rep);
    assert_int_equal(rep->kind, TN_REPLY);
    kq_reader r;
    kq_reader_init(&r, rep->data, rep->len);
    int32_t got = 0;
    assert_int_equal(wire_response_header_decode(&r, key, version, &got), 0);
    assert_int_equal(got, corr);
    kq_arena_reset(&n->arena);
    return r;
}

/* Decodes the slot's latest reply with the wire decoder; the body must take
 * every byte. */
#define TN_DECODE(n, slot, key, version, corr, decode_fn, out)                                   \
    do {                                                                                       \
        kq_reader tn_r_ = tn_response((n), (slot), (key), (version), (corr));                  \
        assert_int_equal(decode_fn(&tn_r_, (version), &(n)->arena, (out)), 0);                 \
        assert_int_equal(kq_reader_remaining(&tn_r_), 0);                                      \
    } while (0)

/* ---- record batches */

/* One uncompressed batch of count records with values "<tag>-<i>". */
static inline void tn_batch(kq_writer *w, int64_t pid, int16_t epoch, int32_t seq, int count,
                            const char *tag)
{
    static char values[32][64];
    record recs[32];
    assert_true(count > 0 && count <= 32);
    for (int i = 0; i < count; i++) {
        snprintf(values[i], sizeof(values[i]), "%s-%d", tag, i);
        memset(&recs[i], 0, sizeof(recs[i]));
        recs[i].timestamp = 1600000000000 + i;
        recs[i].key = (kq_slice){NULL, -1};
        recs[i].value = kq_slice_cstr(values[i]);
    }
    record_batch_builder_args a = {
        .base_offset = 0,
        .partition_leader_epoch = -1,
        .base_timestamp = 1600000000000,
        .producer_id = pid,
        .producer_epoch = pid >= 0 ? epoch : -1,
        .base_sequence = pid >= 0 ? seq : -1,
        .records = recs,
        .record_count = count,
    };
    kq_writer_init(w, 0);
    assert_true(record_batch_build(w, &a));
}

/* Counts the batches in the log and returns the base offset of the last. */
typedef struct tn_scan {
    int batches;
    int64_t last_base;
} tn_scan;

static inline int tn_scan_cb(void *ctx, const uint8_t *batch, size_t len)
{
    tn_scan *s = ctx;
    record_batch_header h;
    assert_int_equal(record_batch_check(batch, len, &h), RECORD_OK);
    s->batches++;
    s->last_base = h.base_offset;
    return 0;
}

static inline tn_scan tn_scan_log(tn_node *n)
{
    tn_scan s = {0, -1};
    assert_true(kq_log_scan(n->log, kq_log_start_offset(n->log), tn_scan_cb, &s) >= 0);
    return s;
}

/* The value of record i of the batch at data (whole batch expected). */
static inline void tn_assert_record_value(const uint8_t *data, size_t len, int index,
                                          const char *value)
{
    record_iter it;
    assert_int_equal(record_iter_open(&it, data, len), RECORD_OK);
    record rec;
    bool found = false;
    for (int i = 0; record_iter_next(&it, &rec); i++) {
        if (i == index) {
            assert_int_equal(rec.value.len, (int32_t)strlen(value));
            assert_memory_equal(rec.value.ptr, value, strlen(value));
            found = true;
            break;
        }
    }
    record_iter_close(&it);
    assert_true(found);
}

#endif
