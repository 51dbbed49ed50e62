/* A node for the handler tests: the real executor (src/exec) over a real
 * log in a temp dir, exactly as the daemon runs it, with test seams: the
 * clock is n->now, replies are recorded per slot so tests can decode the
 * bytes, peer requests are counted and dropped, and a flush job runs only
 * when the test says so (tn_flush), or at once with eager_flush. */
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
#include "kq/exec.h"
#include "kq/fs.h"
#include "kq/handler.h"
#include "kq/kafka_errors.h"
#include "kq/log.h"
#include "kq/raft.h"
#include "kq/record.h"
#include "kq/wire.h"

#define TN_CLUSTER_ID "test-cluster-id"
#define TN_PORT_BASE 9090

enum tn_reply_kind { TN_REPLY = 1, TN_REPLY_NONE, TN_REPLY_CLOSE };

/* An opaque client slot as the handler sees it. */
/* Slots with ids from TN_CLIENT_LISTENER_ID came on a client listener; ids
 * from TN_VOTER_CERT_ID + k on a controller listener proving voters by
 * certificate, with voter k's certificate (k = 0: no voter's); the others
 * on a plain controller (quorum) listener. */
#define TN_CLIENT_LISTENER_ID 1000
#define TN_VOTER_CERT_ID 2000
/* Ids TN_SASL_ID + k: connection k of a SASL listener (PLAIN and
 * SCRAM-SHA-256) whose credentials are tn_sasl_store. */
#define TN_SASL_ID 3000
#define TN_SASL_CONNS 1200
static struct kq_cred_store *tn_sasl_store;
/* exec_env.search_start of the next tn_open (NULL: searches run inline). */
static void (*tn_search_start)(void *ctx, struct exec_search_job *job);
/* exec_env.slot_grant of the next tn_open (NULL: every Fetch gets what it asks). */
static uint64_t (*tn_slot_grant)(void *ctx, void *slot, uint64_t want);
static void *tn_sasl_cells[TN_SASL_CONNS];
/* exec_env.session_close asked to close SASL connection k (reset by tn_close). */
static bool tn_sasl_closed[TN_SASL_CONNS];
/* Issue 19: the authorizer tn_open gives the node (NULL: none), and whether
 * the SASL listener is a quorum one (no controller.listener.names). */
static const handler_acl *tn_acl;
static bool tn_sasl_quorum;
/* SASL connection k comes from "10.0.0.<k % tn_sasl_addresses>" (0: every
 * slot is "test-client"); failed logins wait tn_failed_auth_delay_ms. */
static int tn_sasl_addresses;
static int32_t tn_failed_auth_delay_ms;
/* Ids TN_LISTENER_ID + k: a client listener of kind k (enum tn_listener
 * _kind: PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL; the SASL ones use
 * SASL cells TN_SASL_CONNS - 4 + k) where this node advertises
 * tn_listener_endpoints[k]. */
#define TN_LISTENER_ID 10000
enum tn_listener_kind { TN_PLAINTEXT = 0, TN_SSL, TN_SASL_PLAINTEXT, TN_SASL_SSL, TN_KINDS };
static handler_endpoint tn_listener_endpoints[TN_KINDS];
static const char *const tn_listener_names[TN_KINDS] = {"PLAIN", "TLS", "SASL", "SASL_TLS"};
/* exec_env.reply_stream of the next tn_open (NULL: the executor reads a
 * streamed Fetch answer's pieces itself and calls reply). */
static void (*tn_reply_stream)(void *ctx, void *slot, uint8_t *frame, size_t len,
                               exec_stream_piece *pieces, uint32_t count);
/* Called by tn_open on the executor's configuration before it starts. */
static void (*tn_config_hook)(exec_config *c);
/* Set: told of every request the node sends a peer (never answered). */
static void (*tn_peer_send_hook)(int32_t node_id, int32_t corr, uint64_t tag);
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
    kq_exec *x;
    kq_log *log;       /* exec_log(x), for reads */
    handler *h;        /* exec_handler(x) */
    int32_t node_id;
    int64_t now;
    bool flush_wanted; /* a flush job was started and is not done */
    bool flush_ran;    /* tn_flush_silently ran it */
    bool eager_flush;  /* complete flush jobs as soon as the executor returns */
    kq_log_flush_job *job;
    int peer_requests; /* requests the core sent to peers (encoded, then dropped) */
    tn_reply *replies;
    int reply_count, reply_cap;
    kq_arena arena; /* for decoding responses */
    /* The transport's response budget (exec_env.slot_grant): when set, a
     * consumer Fetch answer may hold at most grant_bytes of log data. */
    bool grant_set;
    uint64_t grant_bytes;
    /* exec_env.slot_quorum_accepted (issue 19, a shared listener's
     * promotion): how often, and the last slot and replica id. */
    int quorum_accepted;
    int quorum_accepted_slot;
    int32_t quorum_accepted_replica;
} tn_node;

static inline int tn_rm_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* ---- exec_env seams */

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

static inline void tn_reply_cb(void *ctx, void *slot, const uint8_t *data, size_t len)
{
    assert_non_null(data);
    assert_true(len >= 4 || ((const tn_slot *)slot)->id >= TN_SASL_ID); /* raw SASL tokens */
    tn_record_reply(ctx, slot, TN_REPLY, data, len);
}
static inline uint64_t tn_slot_grant_cb(void *ctx, void *slot, uint64_t want)
{
    if (tn_slot_grant) /* a test's own budget */
        return tn_slot_grant(ctx, slot, want);
    const tn_node *n = ctx;
    return n->grant_set && n->grant_bytes < want ? n->grant_bytes : want;
}
static inline void tn_reply_none_cb(void *ctx, void *slot)
{
    tn_record_reply(ctx, slot, TN_REPLY_NONE, NULL, 0);
}
static inline void tn_reply_close_cb(void *ctx, void *slot, const char *why)
{
    assert_non_null(why);
    tn_record_reply(ctx, slot, TN_REPLY_CLOSE, NULL, 0);
}
static inline void tn_session_close_cb(void *ctx, void **session, const char *why)
{
    (void)ctx;
    assert_non_null(why);
    assert_true(session >= tn_sasl_cells && session < tn_sasl_cells + TN_SASL_CONNS);
    assert_non_null(*session); /* its state stays until exec_conn_closed */
    tn_sasl_closed[session - tn_sasl_cells] = true;
}
/* Every slot is a connection of its own ("address:port" in the daemon). */
static inline const char *tn_slot_peer_cb(void *ctx, void *slot)
{
    static char peer[64];
    (void)ctx;
    int id = ((const tn_slot *)slot)->id;
    if (tn_sasl_addresses <= 0 || id < TN_SASL_ID || id >= TN_SASL_ID + TN_SASL_CONNS) {
        snprintf(peer, sizeof(peer), "test-client-%p", slot);
        return peer;
    }
    snprintf(peer, sizeof peer, "10.0.0.%d:%d", (id - TN_SASL_ID) % tn_sasl_addresses,
             10000 + id - TN_SASL_ID);
    return peer;
}
static inline void tn_slot_conn_cb(void *ctx, void *slot, handler_conn *out)
{
    (void)ctx;
    int id = ((const tn_slot *)slot)->id;
    if (id >= TN_LISTENER_ID) {
        int k = id - TN_LISTENER_ID;
        assert_true(k < TN_KINDS);
        bool sasl = k == TN_SASL_PLAINTEXT || k == TN_SASL_SSL;
        *out = (handler_conn){.voter_id = -1,
                              .principal = k == TN_SSL ? "User:CN=client" : NULL,
                              .sasl_listener = sasl, .sasl_mechanisms = 1u << 0,
                              .session = sasl ? &tn_sasl_cells[TN_SASL_CONNS - 4 + k] : NULL,
                              .advertised = &tn_listener_endpoints[k],
                              .listener_name = tn_listener_names[k]};
        return;
    }
    if (id >= TN_SASL_ID) {
        assert_true(id < TN_SASL_ID + TN_SASL_CONNS);
        *out = (handler_conn){.quorum_listener = tn_sasl_quorum, .voter_id = -1,
                              .sasl_listener = true,
                              .sasl_mechanisms = (1u << 0) | (1u << 1),
                              .session = &tn_sasl_cells[id - TN_SASL_ID]};
        return;
    }
    *out = (handler_conn){.quorum_listener = id < TN_CLIENT_LISTENER_ID || id >= TN_VOTER_CERT_ID,
                          .voter_proof_required = id >= TN_VOTER_CERT_ID,
                          .voter_id = id > TN_VOTER_CERT_ID ? id - TN_VOTER_CERT_ID : -1};
}
static inline void tn_slot_quorum_accepted_cb(void *ctx, void *slot, int32_t replica_id)
{
    tn_node *n = ctx;
    n->quorum_accepted++;
    n->quorum_accepted_slot = ((const tn_slot *)slot)->id;
    n->quorum_accepted_replica = replica_id;
}
static inline int64_t tn_now_cb(void *ctx)
{
    return ((tn_node *)ctx)->now;
}
static inline bool tn_peer_send_cb(void *ctx, int32_t node_id, int32_t corr, const uint8_t *frame,
                                   size_t len, uint64_t tag)
{
    assert_true(frame != NULL && len >= 8);
    ((tn_node *)ctx)->peer_requests++;
    if (tn_peer_send_hook)
        tn_peer_send_hook(node_id, corr, tag);
    return true; /* dropped: never answered */
}
static inline void tn_flush_start_cb(void *ctx, kq_log_flush_job *job)
{
    tn_node *n = ctx;
    assert_null(n->job);
    n->job = job;
    n->flush_wanted = true;
    n->flush_ran = false;
}
static inline void tn_arm_timer_cb(void *ctx, int64_t due_ms)
{
    (void)ctx;
    (void)due_ms;
}
static inline void tn_fatal_cb(void *ctx, const char *what, const char *detail)
{
    (void)ctx;
    fail_msg("fatal: %s: %s", what, detail);
}

/* Completes the flush job started (if any); false if there was none. */
static inline bool tn_complete_flush(tn_node *n)
{
    if (!n->job)
        return false;
    kq_log_flush_job *job = n->job;
    int rc = n->flush_ran ? 0 : kq_log_flush_run(job);
    assert_int_equal(rc, 0);
    n->job = NULL;
    n->flush_wanted = false;
    exec_flush_done(n->x, job, rc);
    return true;
}

/* After every call into the executor: eager flushes complete at once. */
static inline void tn_after(tn_node *n)
{
    while (n->eager_flush && tn_complete_flush(n))
        ;
}

/* ---- set-up */

/* The coordinator's settings of the nodes a test opens (max_size 0:
 * Kafka's defaults). */
static group_config tn_group_config;

/* Node node_id among voters 1..voter_count, every one listed as an endpoint
 * (host "node<id>.test", port TN_PORT_BASE + id), on dir (NULL: a new
 * one) at time now (tn_open_at; tn_open: a new dir at 1000000 ms). Steps
 * one TICK. */
/* Set before tn_open: the mutants the node runs with (tn_acl above). */
static uint32_t tn_mutants;

/* Creates and starts the executor over n->dir (a fresh or an existing log). */
static inline void tn_start(tn_node *n, int32_t node_id, int voter_count)
{
    exec_config c = {
        .acl = tn_acl,
        .mutants = tn_mutants,
        .node_id = node_id,
        .voter_count = voter_count,
        .cluster_id = TN_CLUSTER_ID,
        .log_dir = n->dir,
        .segment_bytes = 1 << 20,
        .frame_bytes_max = 1 << 20,
        .election_timeout_ms = 1000,
        .fetch_timeout_ms = 2000,
        .election_backoff_max_ms = 1000,
        .request_timeout_ms = 500,
        .retry_backoff_ms = 50,
        .random_seed = 7,
        .producer_id_base = 1000,
        .sasl_credentials = tn_sasl_store,
        .group = tn_group_config,
        .failed_auth_delay_ms = tn_failed_auth_delay_ms,
    };
    for (int i = 0; i < voter_count; i++) {
        c.voters[i].node_id = i + 1;
        snprintf(c.voters[i].host, sizeof(c.voters[i].host), "node%d.test", i + 1);
        c.voters[i].port = (uint16_t)(TN_PORT_BASE + i + 1);
    }
    if (tn_config_hook)
        tn_config_hook(&c);
    exec_env env = {
        .ctx = n,
        .fs = kq_fs_posix(),
        .now_ms = tn_now_cb,
        .peer_send = tn_peer_send_cb,
        .reply = tn_reply_cb,
        .reply_stream = tn_reply_stream,
        .reply_none = tn_reply_none_cb,
        .reply_close = tn_reply_close_cb,
        .slot_peer = tn_slot_peer_cb,
        .slot_conn = tn_slot_conn_cb,
        .slot_grant = tn_slot_grant_cb,
        .slot_quorum_accepted = tn_slot_quorum_accepted_cb,
        .session_close = tn_session_close_cb,
        .flush_start = tn_flush_start_cb,
        .search_start = tn_search_start,
        .arm_timer = tn_arm_timer_cb,
        .fatal = tn_fatal_cb,
    };
    char err[512];
    n->x = exec_create(&c, &env, err, sizeof(err));
    if (!n->x)
        fail_msg("exec_create: %s", err);
    n->log = exec_log(n->x);
    n->h = exec_handler(n->x);
    exec_start(n->x);
    tn_after(n);
}

static inline void tn_open_at(tn_node *n, int32_t node_id, int voter_count, const char *dir,
                              int64_t now)
{
    memset(n, 0, sizeof(*n));
    n->node_id = node_id;
    n->now = now;
    if (dir) {
        snprintf(n->dir, sizeof(n->dir), "%s", dir);
    } else {
        snprintf(n->dir, sizeof(n->dir), "/tmp/kq-handler-XXXXXX");
        assert_non_null(mkdtemp(n->dir));
    }
    kq_arena_init(&n->arena, 0);
    tn_start(n, node_id, voter_count);
}

static inline void tn_open(tn_node *n, int32_t node_id, int voter_count)
{
    tn_open_at(n, node_id, voter_count, NULL, 1000000);
}

/* Carries out the flush job the executor started (if any) and lets it report
 * FLUSHED; repeats while it starts another. Returns how many ran. */
static inline int tn_flush(tn_node *n)
{
    int flushes = 0;
    while (tn_complete_flush(n))
        flushes++;
    return flushes;
}

/* Makes the pending flush job durable without telling the executor (its
 * flushed offset and the core's HW do not move); returns what it covers. */
static inline int64_t tn_flush_silently(tn_node *n)
{
    assert_non_null(n->job);
    assert_int_equal(kq_log_flush_run(n->job), 0);
    n->flush_ran = true;
    return kq_log_flush_job_offset(n->job);
}

/* FLUSHED: completes the pending job; TICK: the timer fires. */
static inline void tn_event(tn_node *n, enum raft_event_type type, int64_t flushed)
{
    (void)flushed;
    if (type == RAFT_EVENT_FLUSHED)
        assert_true(tn_complete_flush(n));
    else
        exec_on_timer(n->x);
    tn_after(n);
}

/* A single-voter leader (node 1) whose LeaderChange batch at offset 0 is
 * committed: HW 1. */
static inline raft_status tn_status(tn_node *n)
{
    raft_status st;
    raft_get_status(exec_raft(n->x), &st);
    return st;
}

static inline void tn_open_leader(tn_node *n)
{
    tn_open(n, 1, 1);
    assert_int_equal(tn_status(n).role, RAFT_ROLE_LEADER);
    assert_int_equal(kq_log_end_offset(n->log), 1);
    assert_true(n->flush_wanted);
    tn_flush(n);
    assert_int_equal(tn_status(n).high_watermark, 1);
}

static inline void tn_tick(tn_node *n, int64_t now)
{
    n->now = now;
    exec_on_timer(n->x);
    tn_after(n);
}

/* Records commit (flushes) and the executor's timer runs what follows
 * (group membership's next take, issue 24), as the daemon's loop does at
 * once, until nothing is left. */
static inline void tn_settle(tn_node *n)
{
    for (int i = 0; i < 16; i++) {
        int flushed = tn_flush(n);
        tn_tick(n, n->now);
        if (!flushed && !n->job)
            return;
    }
}

/* Stops the executor (its flushes done) and starts a new one over the same
 * directory, as a restart of the daemon (single voter). */
static inline void tn_restart(tn_node *n)
{
    tn_flush(n);
    for (int i = 0; i < TN_SASL_CONNS; i++) {
        exec_conn_closed(n->x, tn_sasl_cells[i]);
        tn_sasl_cells[i] = NULL;
    }
    exec_destroy(n->x, false);
    n->flush_wanted = false;
    n->job = NULL;
    tn_start(n, n->node_id, 1);
}

static inline void tn_close(tn_node *n)
{
    tn_flush(n); /* a job still out completes (and may start another) */
    for (int i = 0; i < TN_SASL_CONNS; i++) {
        exec_conn_closed(n->x, tn_sasl_cells[i]);
        tn_sasl_cells[i] = NULL;
        tn_sasl_closed[i] = false;
    }
    exec_destroy(n->x, false);
    nftw(n->dir, tn_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
    for (int i = 0; i < n->reply_count; i++)
        free(n->replies[i].data);
    free(n->replies);
    kq_arena_free(&n->arena);
}

/* ---- requests and replies */

/* The core's request m as the handler sends it to a peer, checked to go as
 * api key `key` at `version` with correlation id corr; *r reads its body
 * (after the header). Returns the frame, which the caller frees. */
static inline uint8_t *tn_encode_outbound(tn_node *n, const raft_msg *m, int32_t corr, int16_t key,
                                          int16_t version, kq_reader *r)
{
    uint8_t *data = NULL;
    size_t len = 0;
    int16_t v = -1;
    assert_true(handler_encode_raft_request(n->h, m, corr, &data, &len, &v));
    assert_int_equal(v, version);
    kq_reader_init(r, data, len);
    wire_request_header hdr;
    assert_int_equal(wire_request_header_decode(r, &hdr), 0);
    assert_int_equal(hdr.api_key, key);
    assert_int_equal(hdr.api_version, version);
    assert_int_equal(hdr.correlation_id, corr);
    return data;
}

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
    exec_on_frame(n->x, slot, frame, w->len);
    tn_after(n);
    free(frame);
    kq_writer_free(w);
}

static inline void tn_deliver_raw(tn_node *n, tn_slot *slot, const uint8_t *data, size_t len)
{
    uint8_t *frame = malloc(len ? len : 1);
    assert_non_null(frame);
    if (len)
        memcpy(frame, data, len);
    exec_on_frame(n->x, slot, frame, len);
    tn_after(n);
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
