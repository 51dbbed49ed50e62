/* Carries out the Raft core's actions against the real world: the quorum-state
 * file, the segmented log (fsync on libuv's thread pool), peer channels and
 * client connections. The core itself never sees any of it. */
#include "node.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "committed_printer.h"
#include "kq/handler.h"
#include "kq/kafka_errors.h"
#include "kq/log.h"
#include "kq/log_line.h"
#include "kq/net.h"
#include "kq/producer_state.h"
#include "kq/quorum_state_file.h"
#include "kq/raft.h"

#define NODE_EVENT_QUEUE_MAX 512
#define NODE_PRODUCERS_MAX 65536
#define NODE_FETCH_MAX_WAIT_MS 500
#define NODE_FETCH_MAX_BYTES (8u << 20)

struct node {
    uv_loop_t *loop;
    kq_config config;
    kq_log *log;
    raft *raft;
    producer_state *producers;
    handler *handler;
    net_server *server;
    net_peer *peers[KQ_CONFIG_VOTERS_MAX];
    int peer_count;
    uv_timer_t timer;
    int64_t clock_offset_ms; /* wall clock at start minus uv_now at start */

    bool flush_in_flight;
    uv_work_t flush_work;
    kq_log_flush_job *flush_job;
    int flush_rc;

    bool stepping;
    raft_event queue[NODE_EVENT_QUEUE_MAX];
    uint32_t queue_head, queue_tail;
    raft_output out; /* for steps the node starts itself */

    committed_printer printer;
    int64_t producer_id_base;
    int64_t producer_id_count;
    int32_t next_correlation_id;
    int64_t raft_wake_ms; /* the core's last requested wake-up */

    bool shutdown_requested;
    bool stopped;
    uv_timer_t shutdown_deadline;
    enum raft_role last_role;
    int32_t last_epoch;
    int32_t last_leader;
};

static int64_t node_now(node *n)
{
    return (int64_t)uv_now(n->loop) + n->clock_offset_ms;
}

static int64_t node_now_cb(void *ctx)
{
    return node_now(ctx);
}

static void node_fatal(node *n, const char *what, const char *detail)
{
    (void)n;
    log_line("FATAL: %s: %s; stopping the node (never retried)", what, detail);
    fflush(stderr);
    _exit(1);
}

/* A client request relayed to the leader, waiting for its answer. */
typedef struct forwarded_request {
    void *slot;
    int16_t api_key;
    int16_t api_version;
    int32_t correlation_id;
} forwarded_request;

/* A peer request's context is either a forwarded_request pointer (malloc'd,
 * so even) or, for the core's own RPCs, an odd tag holding the message type
 * and API version, which is all the response decoder needs. */
static uintptr_t raft_request_ctx(enum raft_msg_type type, int16_t version)
{
    return ((uintptr_t)type << 17) | ((uintptr_t)(uint16_t)version << 1) | 1u;
}
static bool raft_request_ctx_is_raft(uintptr_t ctx)
{
    return (ctx & 1u) != 0;
}
static enum raft_msg_type raft_request_ctx_type(uintptr_t ctx)
{
    return (enum raft_msg_type)(ctx >> 17);
}
static int16_t raft_request_ctx_version(uintptr_t ctx)
{
    return (int16_t)((ctx >> 1) & 0xffff);
}

static void node_execute(node *n, raft_output *out);
static void node_drain_queue(node *n);

static int32_t node_next_correlation_id(node *n)
{
    int32_t corr = n->next_correlation_id;
    n->next_correlation_id = corr == INT32_MAX ? 1 : corr + 1;
    return corr;
}

/* Runs one event through the core and carries out what it returns. Events
 * raised while a step is being carried out are queued, never nested. */
static void node_step(node *n, raft_event *event, raft_output *out)
{
    if (n->stepping && event->type == RAFT_EVENT_CLIENT_APPEND) {
        /* Its records live only as long as the caller: never queued. (The
         * daemon never appends from inside a step; this keeps it that way.) */
        memset(out, 0, sizeof(*out));
        out->append_error = KAFKA_NOT_LEADER_OR_FOLLOWER;
        out->append_base_offset = -1;
        return;
    }
    if (n->stepping) {
        if (n->queue_tail - n->queue_head >= NODE_EVENT_QUEUE_MAX) {
            log_line("event queue full; dropping a %d event", (int)event->type);
            return;
        }
        n->queue[n->queue_tail % NODE_EVENT_QUEUE_MAX] = *event;
        n->queue_tail++;
        return;
    }
    n->stepping = true;
    event->now_ms = node_now(n);
    raft_step(n->raft, event, out);
    node_execute(n, out);
    n->stepping = false;
    node_drain_queue(n);
}

static void node_step_cb(void *ctx, raft_event *event, raft_output *out)
{
    node_step(ctx, event, out);
}

static void node_drain_queue(node *n)
{
    while (n->queue_head != n->queue_tail && !n->stepping) {
        raft_event ev = n->queue[n->queue_head % NODE_EVENT_QUEUE_MAX];
        n->queue_head++;
        node_step(n, &ev, &n->out);
    }
}

static void node_on_timer(uv_timer_t *t)
{
    node *n = t->data;
    handler_on_tick(n->handler, node_now(n));
    raft_event ev = {.type = RAFT_EVENT_TICK};
    node_step(n, &ev, &n->out);
}

static void node_arm_timer(node *n, int64_t raft_wake_ms)
{
    int64_t due = raft_wake_ms;
    int64_t h = handler_next_deadline(n->handler);
    if (h < due)
        due = h;
    int64_t now = node_now(n);
    uint64_t delay = due > now ? (uint64_t)(due - now) : 0;
    if (delay > 60000)
        delay = 60000;
    uv_timer_start(&n->timer, node_on_timer, delay, 0);
}

static void node_flush_work(uv_work_t *w)
{
    node *n = w->data;
    n->flush_rc = kq_log_flush_run(n->flush_job);
}

static void node_flush_done(uv_work_t *w, int status)
{
    node *n = w->data;
    (void)status;
    int64_t flushed = kq_log_flush_end(n->log, n->flush_job);
    n->flush_job = NULL;
    n->flush_in_flight = false;
    if (n->flush_rc != 0)
        node_fatal(n, "fsync of the log failed", strerror(-n->flush_rc));
    raft_event ev = {.type = RAFT_EVENT_FLUSHED, .flushed_offset = flushed};
    node_step(n, &ev, &n->out);
}

static void node_start_flush(node *n)
{
    if (n->flush_in_flight)
        return; /* the core never asks twice; the next FLUSHED re-triggers */
    kq_log_flush_job *job = NULL;
    int rc = kq_log_flush_begin(n->log, &job);
    if (rc != 0)
        node_fatal(n, "cannot start a log flush", strerror(-rc));
    if (!job) {
        raft_event ev = {.type = RAFT_EVENT_FLUSHED, .flushed_offset = kq_log_flushed_offset(n->log)};
        node_step(n, &ev, &n->out); /* queued: we are inside a step */
        return;
    }
    n->flush_job = job;
    n->flush_in_flight = true;
    n->flush_work.data = n;
    uv_queue_work(n->loop, &n->flush_work, node_flush_work, node_flush_done);
}

static void node_rebuild_producers(node *n);

static net_peer *node_peer(node *n, int32_t id)
{
    for (int i = 0; i < n->peer_count; i++)
        if (net_peer_node_id(n->peers[i]) == id)
            return n->peers[i];
    return NULL;
}

static void node_send_failed(node *n, const raft_msg *msg)
{
    raft_event ev = {.type = RAFT_EVENT_SEND_FAILED};
    ev.msg.type = msg->type;
    ev.msg.to = msg->to;
    ev.msg.from = n->config.node_id;
    node_step(n, &ev, &n->out); /* queued */
}

static void node_send(node *n, const raft_msg *msg)
{
    if (msg->token != 0) {
        handler_send_raft_response(n->handler, msg);
        return;
    }
    net_peer *peer = node_peer(n, msg->to);
    uint8_t *data = NULL;
    size_t len = 0;
    int32_t corr = node_next_correlation_id(n);
    if (!peer || !handler_encode_raft_request(n->handler, msg, corr, &data, &len)) {
        node_send_failed(n, msg);
        return;
    }
    /* api version rides in bytes 2..3 of the request header */
    int16_t version = (int16_t)((data[2] << 8) | data[3]);
    uintptr_t ctx = raft_request_ctx(msg->type, version);
    bool ok = net_peer_send(peer, corr, data, len, (void *)ctx);
    free(data);
    if (!ok)
        node_send_failed(n, msg);
}

static void node_on_forward_response(node *n, forwarded_request *f, const uint8_t *frame,
                                     size_t len)
{
    if (!frame || len < 4) {
        handler_forward_failed(n->handler, f->slot, f->api_key, f->api_version,
                               f->correlation_id);
    } else {
        uint8_t *copy = malloc(len);
        if (!copy) {
            net_slot_close(f->slot, "out of memory");
        } else {
            memcpy(copy, frame, len);
            uint32_t c = (uint32_t)f->correlation_id;
            copy[0] = (uint8_t)(c >> 24);
            copy[1] = (uint8_t)(c >> 16);
            copy[2] = (uint8_t)(c >> 8);
            copy[3] = (uint8_t)c;
            net_slot_respond(f->slot, copy, len);
            free(copy);
        }
    }
    free(f);
}

static bool node_forward_to_leader(void *ctx, int32_t leader_id, void *slot,
                                   const uint8_t *frame, size_t len)
{
    node *n = ctx;
    net_peer *peer = node_peer(n, leader_id);
    if (!peer || len < 8)
        return false;
    forwarded_request *f = malloc(sizeof(*f));
    uint8_t *copy = malloc(len);
    if (!f || !copy) {
        free(f);
        free(copy);
        return false;
    }
    memcpy(copy, frame, len);
    f->slot = slot;
    f->api_key = (int16_t)((frame[0] << 8) | frame[1]);
    f->api_version = (int16_t)((frame[2] << 8) | frame[3]);
    f->correlation_id = (int32_t)(((uint32_t)frame[4] << 24) | ((uint32_t)frame[5] << 16) |
                                  ((uint32_t)frame[6] << 8) | frame[7]);
    int32_t corr = node_next_correlation_id(n);
    copy[4] = (uint8_t)((uint32_t)corr >> 24);
    copy[5] = (uint8_t)((uint32_t)corr >> 16);
    copy[6] = (uint8_t)((uint32_t)corr >> 8);
    copy[7] = (uint8_t)corr;
    bool ok = net_peer_send(peer, corr, copy, len, f);
    free(copy);
    if (!ok)
        free(f);
    return ok;
}

static void node_on_peer_response(void *ctx, net_peer *peer, void *request_ctx,
                                  const uint8_t *frame, size_t len)
{
    node *n = ctx;
    uintptr_t rc = (uintptr_t)request_ctx;
    if (!raft_request_ctx_is_raft(rc)) {
        node_on_forward_response(n, request_ctx, frame, len);
        return;
    }
    enum raft_msg_type type = raft_request_ctx_type(rc);
    int16_t version = raft_request_ctx_version(rc);
    raft_event ev = {.type = RAFT_EVENT_RECEIVE};
    if (!frame || !handler_decode_raft_response(n->handler, type, version, frame, len, &ev.msg)) {
        if (frame)
            log_line("malformed response from peer %d", net_peer_node_id(peer));
        ev.type = RAFT_EVENT_SEND_FAILED;
        memset(&ev.msg, 0, sizeof(ev.msg));
        ev.msg.type = type;
        ev.msg.to = net_peer_node_id(peer);
    }
    ev.msg.from = net_peer_node_id(peer);
    ev.msg.to = ev.type == RAFT_EVENT_SEND_FAILED ? net_peer_node_id(peer) : n->config.node_id;
    node_step(n, &ev, &n->out);
}

static void node_store_qstate(node *n, const raft_quorum_state *qs)
{
    int32_t voters[KQ_CONFIG_VOTERS_MAX];
    for (int i = 0; i < n->config.voter_count; i++)
        voters[i] = n->config.voters[i].id;
    char err[512];
    int rc = kq_quorum_state_store(n->config.log_dir, qs, voters, n->config.voter_count, err,
                                   sizeof(err));
    if (rc != 0)
        node_fatal(n, "cannot store the quorum state", err);
}

static void node_log_role(node *n, const raft_output *out)
{
    raft_status st;
    raft_get_status(n->raft, &st);
    if (st.role == n->last_role && st.epoch == n->last_epoch && st.leader_id == n->last_leader)
        return;
    log_line("node %d: %s in epoch %d, leader %d%s%s", n->config.node_id, raft_role_name(st.role),
             st.epoch, st.leader_id, out->reason[0] ? ": " : "", out->reason);
    n->last_role = st.role;
    n->last_epoch = st.epoch;
    n->last_leader = st.leader_id;
}

static void node_execute(node *n, raft_output *out)
{
    char err[512];
    for (int i = 0; i < out->action_count; i++) {
        raft_action *a = &out->actions[i];
        switch (a->type) {
        case RAFT_ACTION_STORE_QSTATE:
            node_store_qstate(n, &a->qstate);
            break;
        case RAFT_ACTION_TRUNCATE:
            if (kq_log_truncate(n->log, a->offset, err, sizeof(err)) != 0)
                node_fatal(n, "cannot truncate the log", err);
            log_line("truncated the log to offset %" PRId64, a->offset);
            node_rebuild_producers(n);
            committed_printer_truncated(&n->printer, a->offset);
            break;
        case RAFT_ACTION_APPEND: {
            uint8_t *data = (uint8_t *)a->append.records; /* request buffer, ours to rewrite */
            int rc = kq_log_append(n->log, data, a->append.len, a->append.base_offset,
                                   a->append.epoch, err, sizeof(err));
            if (rc != 0)
                node_fatal(n, "cannot append to the log", err);
            producer_state_record_batches(n->producers, data, a->append.len);
            break;
        }
        case RAFT_ACTION_FLUSH:
            node_start_flush(n);
            break;
        case RAFT_ACTION_SEND:
            node_send(n, &a->msg);
            break;
        }
    }
    if (out->role_changed)
        node_log_role(n, out);
    if (out->high_watermark_changed && n->config.verbose)
        committed_printer_advance(&n->printer, n->log, out->high_watermark);
    handler_on_progress(n->handler);
    if (out->shutdown_complete && n->shutdown_requested && !n->stopped) {
        n->stopped = true;
        log_line("node %d: shutdown complete", n->config.node_id);
        uv_stop(n->loop);
        return;
    }
    n->raft_wake_ms = out->wake_at_ms;
    node_arm_timer(n, out->wake_at_ms);
}

static int node_rebuild_batch(void *ctx, const uint8_t *batch, size_t len)
{
    node *n = ctx;
    producer_state_record_batches(n->producers, batch, len);
    return 0;
}

static void node_rebuild_producers(node *n)
{
    producer_state_clear(n->producers);
    int rc = kq_log_scan(n->log, kq_log_start_offset(n->log), node_rebuild_batch, n);
    if (rc < 0)
        node_fatal(n, "cannot read the log to rebuild producer state", strerror(-rc));
}

static int64_t node_next_producer_id(void *ctx)
{
    node *n = ctx;
    return n->producer_id_base + n->producer_id_count++;
}

static void reply_cb(void *slot, const uint8_t *data, size_t len)
{
    net_slot_respond(slot, data, len);
}
static void reply_none_cb(void *slot)
{
    net_slot_skip(slot);
}
static void reply_close_cb(void *slot, const char *why)
{
    net_slot_close(slot, why);
}
static const char *slot_peer_cb(void *slot)
{
    return net_slot_peer(slot);
}

static void node_on_frame(void *ctx, net_slot *slot, uint8_t *frame, size_t len)
{
    node *n = ctx;
    handler_on_frame(n->handler, slot, frame, len);
    /* A request may park (long-poll fetch) or wait (produce) without any
     * Raft step re-arming the timer: include its deadline now. */
    if (!n->stepping)
        node_arm_timer(n, n->raft_wake_ms);
}

static void node_on_shutdown_deadline(uv_timer_t *t)
{
    node *n = t->data;
    if (!n->stopped) {
        log_line("node %d: graceful shutdown timed out; stopping", n->config.node_id);
        n->stopped = true;
        uv_stop(n->loop);
    }
}

void node_request_shutdown(node *n)
{
    if (n->shutdown_requested)
        return;
    n->shutdown_requested = true;
    log_line("node %d: shutting down", n->config.node_id);
    uv_timer_init(n->loop, &n->shutdown_deadline);
    n->shutdown_deadline.data = n;
    uv_timer_start(&n->shutdown_deadline, node_on_shutdown_deadline,
                   n->config.request_timeout_ms + 1000, 0);
    raft_event ev = {.type = RAFT_EVENT_SHUTDOWN};
    node_step(n, &ev, &n->out);
}

static int64_t wall_clock_ms(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

node *node_start(uv_loop_t *loop, const kq_config *config, char *err, size_t errlen)
{
    node *n = calloc(1, sizeof(*n));
    if (!n) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    n->loop = loop;
    n->config = *config;
    n->next_correlation_id = 1;
    n->last_role = (enum raft_role)-1;
    uv_update_time(loop);
    int64_t wall = wall_clock_ms();
    n->clock_offset_ms = wall - (int64_t)uv_now(loop);
    /* Producer ids are unique across the quorum and across restarts: the node
     * id (mod 2^22) in the top bits, then the start time in milliseconds (40
     * bits, 34 years) plus one per id handed out; a restart begins past every
     * id issued before unless more than one id per millisecond was issued. */
    n->producer_id_base = (int64_t)(((uint64_t)config->node_id & ((1u << 22) - 1)) << 40 |
                                    ((uint64_t)wall & ((UINT64_C(1) << 40) - 1)));

    char note[512] = "";
    n->log = kq_log_open(config->log_dir, config->segment_bytes, note, sizeof(note));
    if (!n->log) {
        snprintf(err, errlen, "refusing to start: %s", note);
        free(n);
        return NULL;
    }
    if (note[0])
        log_line("log recovery: %s", note);

    raft_quorum_state qs;
    int32_t stored_voters[KQ_CONFIG_VOTERS_MAX];
    int stored_voter_count = KQ_CONFIG_VOTERS_MAX;
    if (kq_quorum_state_load(config->log_dir, &qs, stored_voters, &stored_voter_count, note,
                             sizeof(note)) != 0) {
        snprintf(err, errlen, "refusing to start: %s", note);
        return NULL;
    }

    n->producers = producer_state_create(NODE_PRODUCERS_MAX);
    if (!n->producers) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    node_rebuild_producers(n);

    static raft_epoch_entry epochs[RAFT_EPOCH_CACHE_MAX];
    raft_log_state ls = {
        .end_offset = kq_log_end_offset(n->log),
        .epochs = epochs,
        .epoch_count = kq_log_epochs(n->log, epochs, RAFT_EPOCH_CACHE_MAX),
    };
    raft_config rc = {
        .node_id = config->node_id,
        .voter_count = config->voter_count,
        .election_timeout_ms = config->election_timeout_ms,
        .fetch_timeout_ms = config->fetch_timeout_ms,
        .election_backoff_max_ms = config->election_backoff_max_ms,
        .request_timeout_ms = config->request_timeout_ms,
        .retry_backoff_ms = config->retry_backoff_ms,
        .fetch_max_wait_ms = NODE_FETCH_MAX_WAIT_MS,
        .fetch_max_bytes = NODE_FETCH_MAX_BYTES,
        .random_seed = (uint64_t)wall ^ ((uint64_t)config->node_id << 32) ^ (uint64_t)getpid(),
        .mutants = 0,
    };
    for (int i = 0; i < config->voter_count; i++)
        rc.voter_ids[i] = config->voters[i].id;
    log_line("node %d: log end offset %" PRId64 ", epoch %d, voted %d, leader %d, raft seed %" PRIu64,
             config->node_id, ls.end_offset, qs.epoch, qs.voted_id, qs.leader_id, rc.random_seed);
    n->raft = raft_create(&rc, &qs, &ls, node_now(n));
    if (!n->raft) {
        snprintf(err, errlen, "invalid quorum configuration");
        return NULL;
    }
    committed_printer_init(&n->printer, config->node_id);

    handler_services hs = {
        .node = n,
        .raft = n->raft,
        .log = n->log,
        .producers = n->producers,
        .node_id = config->node_id,
        .cluster_id = n->config.cluster_id,
        .frame_bytes_max = config->socket_request_max_bytes,
        .step = node_step_cb,
        .now_ms = node_now_cb,
        .next_producer_id = node_next_producer_id,
        .reply = reply_cb,
        .reply_none = reply_none_cb,
        .reply_close = reply_close_cb,
        .slot_peer = slot_peer_cb,
        .forward_to_leader = node_forward_to_leader,
    };
    for (int i = 0; i < config->voter_count && i < HANDLER_NODES_MAX; i++) {
        hs.nodes[i].node_id = config->voters[i].id;
        snprintf(hs.nodes[i].host, sizeof(hs.nodes[i].host), "%s", config->voters[i].host);
        hs.nodes[i].port = config->voters[i].port;
        hs.node_count++;
    }
    n->handler = handler_create(&hs);
    if (!n->handler) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }

    uv_timer_init(loop, &n->timer);
    n->timer.data = n;
    for (int i = 0; i < config->voter_count; i++) {
        if (config->voters[i].id == config->node_id)
            continue;
        net_peer_config pc = {
            .node_id = config->voters[i].id,
            .host = config->voters[i].host,
            .port = config->voters[i].port,
            .request_timeout_ms = config->request_timeout_ms,
            .retry_backoff_ms = config->retry_backoff_ms,
            .frame_bytes_max = config->socket_request_max_bytes,
            .on_response = node_on_peer_response,
            .ctx = n,
        };
        n->peers[n->peer_count++] = net_peer_create(loop, &pc);
    }

    net_server_config sc = {
        .host = config->listener_host,
        .port = config->listener_port,
        .frame_bytes_max = config->socket_request_max_bytes,
        .on_frame = node_on_frame,
        .ctx = n,
    };
    n->server = net_server_start(loop, &sc, err, errlen);
    if (!n->server)
        return NULL;
    log_line("node %d: listening on %s:%u, log dir %s, %d voter(s)", config->node_id,
             config->listener_host[0] ? config->listener_host : "0.0.0.0", config->listener_port,
             config->log_dir, config->voter_count);
    raft_event ev = {.type = RAFT_EVENT_TICK};
    node_step(n, &ev, &n->out);
    return n;
}

void node_close(node *n)
{
    if (!n)
        return;
    if (n->flush_in_flight)
        return; /* a worker still uses the log; the OS closes it */
    kq_log_close(n->log);
}
