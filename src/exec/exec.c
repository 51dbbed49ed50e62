/* The executor's life cycle and entry points: open the log and the quorum
 * state through the fs seam, create the core and the handlers, and route
 * frames, peer answers, timers and finished flushes into one step path. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec_internal.h"
#include "kq/group_offsets.h"
#include "kq/assert.h"
#include "kq/log_line.h"
#include "kq/quorum_state_file.h"
#include "kq/uuid.h"

bool exec_failed(const kq_exec *x)
{
    return x->failed;
}

const raft *exec_raft(const kq_exec *x)
{
    return x->raft;
}

kq_log *exec_log(kq_exec *x)
{
    return x->log;
}

struct handler *exec_handler(kq_exec *x)
{
    return x->handler;
}

raft_quorum_state exec_stored_qstate(const kq_exec *x)
{
    return x->stored_qstate;
}

/* The services the handlers get: reads and the reply outputs. */
static void h_reply(void *ctx, void *slot, const uint8_t *d, size_t n)
{
    kq_exec *x = ctx;
    exec_metrics_answered(x, slot);
    if (!x->failed)
        x->env.reply(x->env.ctx, slot, d, n);
}
static void h_reply_take(void *ctx, void *slot, uint8_t *frame, size_t len)
{
    kq_exec *x = ctx;
    exec_metrics_answered(x, slot);
    if (x->failed)
        free(frame);
    else if (x->env.reply_take)
        x->env.reply_take(x->env.ctx, slot, frame, len);
    else {
        x->env.reply(x->env.ctx, slot, frame + 4, len - 4);
        free(frame);
    }
}
static void h_reply_stream(void *ctx, void *slot, uint8_t *frame, size_t len,
                           const handler_stream_piece *pieces, uint32_t count)
{
    exec_reply_stream(ctx, slot, frame, len, pieces, count);
}
static void h_reply_none(void *ctx, void *slot)
{
    kq_exec *x = ctx;
    exec_metrics_answered(x, slot);
    if (!x->failed)
        x->env.reply_none(x->env.ctx, slot);
}
static void h_reply_close(void *ctx, void *slot, const char *why)
{
    kq_exec *x = ctx;
    exec_metrics_answered(x, slot);
    if (!x->failed)
        x->env.reply_close(x->env.ctx, slot, why);
}
static const char *h_slot_peer(void *ctx, void *slot)
{
    kq_exec *x = ctx;
    return x->env.slot_peer(x->env.ctx, slot);
}
static void h_slot_conn(void *ctx, void *slot, handler_conn *out)
{
    kq_exec *x = ctx;
    if (x->env.slot_conn)
        x->env.slot_conn(x->env.ctx, slot, out);
    else
        *out = (handler_conn){.quorum_listener = true};
}
static uint64_t h_slot_grant(void *ctx, void *slot, uint64_t want)
{
    kq_exec *x = ctx;
    return x->env.slot_grant ? x->env.slot_grant(x->env.ctx, slot, want) : want;
}
static void h_slot_authenticated(void *ctx, void *slot)
{
    kq_exec *x = ctx;
    if (x->env.slot_authenticated)
        x->env.slot_authenticated(x->env.ctx, slot);
}
static void h_slot_quorum_accepted(void *ctx, void *slot, int32_t replica_id)
{
    kq_exec *x = ctx;
    if (x->env.slot_quorum_accepted && !x->failed)
        x->env.slot_quorum_accepted(x->env.ctx, slot, replica_id);
}
static void h_session_close(void *ctx, void **session, const char *why)
{
    kq_exec *x = ctx;
    if (x->env.session_close && !x->failed)
        x->env.session_close(x->env.ctx, session, why);
}
static int64_t h_now(void *ctx)
{
    return exec_now(ctx);
}

static handler *exec_make_handler(kq_exec *x)
{
    handler_services hs = {
        .ctx = x,
        .raft = x->raft,
        .log = x->log,
        .node_id = x->cfg.node_id,
        .cluster_id = x->cluster_id,
        .topic_name = x->cfg.topic_name,
        .topic_id = x->cfg.topic_id,
        .raft_record_check = x->cfg.raft_record_check,
        .controller_listener = x->cfg.controller_listener,
        .frame_bytes_max = x->cfg.frame_bytes_max,
        .mutants = x->cfg.mutants,
        .now_ms = h_now,
        .reply = h_reply,
        .reply_take = h_reply_take,
        .reply_stream = x->cfg.fetch_inline ? NULL : h_reply_stream,
        .fetch_stream_min_bytes = x->cfg.fetch_stream_min_bytes,
        .reply_none = h_reply_none,
        .reply_close = h_reply_close,
        .slot_peer = h_slot_peer,
        .slot_conn = h_slot_conn,
        .slot_grant = h_slot_grant,
        .slot_authenticated = h_slot_authenticated,
        .slot_quorum_accepted = h_slot_quorum_accepted,
        .session_close = h_session_close,
        .acl = x->cfg.acl,
        .sasl_credentials = x->cfg.sasl_credentials,
        .failed_auth_delay_ms = x->cfg.failed_auth_delay_ms,
        .offsets = exec_offsets_table(x->offsets),
        .txns = exec_txn_table(x->txn),
        .groups = exec_groups_store(x->groups),
        .group = x->cfg.group,
        .txn_max_timeout_ms = x->cfg.txn_max_timeout_ms,
        .txn_id_expiration_ms = x->cfg.txn_id_expiration_ms,
        .txn_abort_interval_ms = x->cfg.txn_abort_interval_ms,
    };
    _Static_assert(EXEC_PEERS_MAX <= HANDLER_NODES_MAX, "every peer has an endpoint");
    hs.client_endpoint.node_id = x->cfg.node_id;
    snprintf(hs.client_endpoint.host, sizeof(hs.client_endpoint.host), "%s",
             x->cfg.client_endpoint.host);
    hs.client_endpoint.port = x->cfg.client_endpoint.port;
    KQ_ASSERT(x->cfg.client_listener_count >= 0 &&
              x->cfg.client_listener_count <= KQ_CONFIG_LISTENERS_MAX);
    for (int k = 0; k < x->cfg.client_listener_count; k++) {
        handler_listener_endpoint *l = &hs.client_listeners[k];
        snprintf(l->name, sizeof l->name, "%s", x->cfg.client_listeners[k].name);
        l->endpoint.node_id = x->cfg.node_id;
        snprintf(l->endpoint.host, sizeof l->endpoint.host, "%s",
                 x->cfg.client_listeners[k].endpoint.host);
        l->endpoint.port = x->cfg.client_listeners[k].endpoint.port;
    }
    hs.client_listener_count = x->cfg.client_listener_count;
    hs.node_count = exec_peers_nodes(x->peers, hs.nodes);
    return handler_create(&hs);
}

void exec_follow_voters(kq_exec *x)
{
    raft_status st;
    raft_get_status(x->raft, &st);
    if (exec_peers_follow(x, raft_voters(x->raft), st.leader_id))
        exec_sync_nodes(x);
}

void exec_sync_nodes(kq_exec *x)
{
    handler_endpoint nodes[HANDLER_NODES_MAX];
    handler_set_nodes(x->handler, nodes, exec_peers_nodes(x->peers, nodes));
}

static raft *exec_make_core(kq_exec *x, const raft_quorum_state *qs)
{
    static raft_epoch_entry epochs[RAFT_EPOCH_CACHE_MAX]; /* copied by raft_create */
    raft_log_state ls = {
        .end_offset = kq_log_end_offset(x->log),
        .epochs = epochs,
        .epoch_count = kq_log_epochs(x->log, epochs, RAFT_EPOCH_CACHE_MAX),
    };
    exec_snapshots_log_state(x, &ls);
    ls.voter_history = exec_voter_history(x, &ls.voter_history_count);
    if (x->repair_end > 0) {
        ls.repair_end_offset = x->repair_end;
        ls.repair_last_epoch = x->repair_epoch;
    }
    if (ls.repair_end_offset > 0 ||
        kq_log_repair(x->log, &ls.repair_end_offset, &ls.repair_last_epoch))
        log_line("node %d: repairing corruption: it votes as if its log still ended at %" PRId64
                 " (epoch %d) and stands for no election until it has fetched that far again",
                 x->cfg.node_id, ls.repair_end_offset, ls.repair_last_epoch);
    const exec_config *c = &x->cfg;
    raft_config rc = {
        .node_id = c->node_id,
        .voter_count = c->voters_from_log ? 0 : c->voter_count,
        .bootstrap_count = c->bootstrap_server_count,
        .auto_join = c->auto_join,
        .election_timeout_ms = c->election_timeout_ms,
        .fetch_timeout_ms = c->fetch_timeout_ms,
        .election_backoff_max_ms = c->election_backoff_max_ms,
        .request_timeout_ms = c->request_timeout_ms,
        .retry_backoff_ms = c->retry_backoff_ms,
        .fetch_max_wait_ms = EXEC_FETCH_MAX_WAIT_MS,
        .fetch_max_bytes = c->fetch_max_bytes ? c->fetch_max_bytes : EXEC_FETCH_MAX_BYTES,
        .fetch_snapshot_max_bytes = c->fetch_snapshot_max_bytes
                                        ? c->fetch_snapshot_max_bytes
                                        : EXEC_FETCH_SNAPSHOT_MAX_BYTES_DEFAULT,
        .append_linger_ms = c->append_linger_ms,
        .random_seed = c->random_seed,
        .directory_id = x->directory_id,
        .mutants = c->raft_mutants,
    };
    for (int i = 0; i < rc.voter_count; i++)
        rc.voter_ids[i] = c->voters[i].node_id;
    rc.local = (kq_voter){.id = c->node_id, .port = c->controller_endpoint.port,
                          .kraft_version_min = 0, .kraft_version_max = 1};
    snprintf(rc.local.listener, sizeof rc.local.listener, "%s", c->controller_listener);
    snprintf(rc.local.host, sizeof rc.local.host, "%s", c->controller_endpoint.host);
    log_line("node %d: log end offset %" PRId64 ", epoch %d, voted %d, leader %d, raft seed %" PRIu64,
             c->node_id, ls.end_offset, qs->epoch, qs->voted_id, qs->leader_id, rc.random_seed);
    return raft_create(&rc, qs, &ls, exec_now(x));
}

/* Producer state from the log's tail. A batch failing its checks there
 * lies below what storage recovery reads (it trusts its index): the same
 * rule as recovery's, refuse alone, repair in a quorum (cut at the batch,
 * refetch up to the former end). */
static bool exec_rebuild_at_start(kq_exec *x, char *err, size_t errlen)
{
    x->rebuilding_at_start = true;
    exec_rebuild_producers(x);
    int rc = x->rebuild_rc;
    int64_t bad = x->rebuild_next;
    x->rebuilding_at_start = false;
    if (rc == 0)
        return true;
    char where[STORAGE_DESCRIBE_BYTES];
    kq_log_describe(x->log, bad, where, sizeof(where));
    if (rc != -EBADMSG || !x->repair_allowed) {
        snprintf(err, errlen, "refusing to start: corrupt log: %s: %s", where, strerror(-rc));
        return false;
    }
    raft_epoch_entry last[1];
    int32_t epoch = kq_log_epochs(x->log, last, 1) == 1 ? last[0].epoch : -1;
    int64_t end = kq_log_end_offset(x->log);
    char note[512];
    if (kq_log_truncate(x->log, bad, note, sizeof(note)) != 0) {
        snprintf(err, errlen, "refusing to start: corrupt log: %s; cannot cut it: %s", where, note);
        return false;
    }
    x->repair_end = end;
    x->repair_epoch = epoch;
    log_line("node %d: log recovery: %s fails its checks; cut there; repairing: refetching "
             "offsets %" PRId64 "..%" PRId64 " from the leader", x->cfg.node_id, where, bad,
             end - 1);
    exec_rebuild_producers(x);
    return !x->failed;
}

/* Directory ids (issue 20 item 6). The file lists its voters' ids in its
 * own order: each remembered id goes to the configured voter it names. This
 * node's id is meta.properties' directory.id, else the one kept in the
 * quorum state, else the fresh one the driver drew; a directory that gets
 * its id with an empty log and no quorum-state file at all is new (a fresh
 * cluster or a replaced disk): it may not vote as a full copy until it has
 * caught up (kq/raft.h). */
static void exec_directory_ids(kq_exec *x, raft_quorum_state *qs, const int32_t *stored,
                               int stored_count)
{
    kq_uuid file_dirs[RAFT_VOTERS_MAX];
    memcpy(file_dirs, qs->voter_directory_ids, sizeof file_dirs);
    memset(qs->voter_directory_ids, 0, sizeof qs->voter_directory_ids);
    for (int i = 0; i < x->cfg.voter_count; i++)
        for (int j = 0; j < stored_count && j < RAFT_VOTERS_MAX; j++)
            if (stored[j] == x->cfg.voters[i].node_id)
                qs->voter_directory_ids[i] = file_dirs[j];
    const kq_uuid *own = &x->cfg.directory_id;
    if (kq_uuid_is_zero(own))
        own = &qs->directory_id;
    if (kq_uuid_is_zero(own)) {
        own = &x->cfg.new_directory_id;
        if (stored_count == 0 && kq_log_end_offset(x->log) == 0 &&
            !kq_uuid_is_zero(own))
            qs->new_directory = true;
    }
    x->directory_id = *own;
    char text[KQ_UUID_TEXT_BYTES + 1];
    kq_uuid_to_string(&x->directory_id, text, sizeof text);
    log_line("node %d: directory id %s%s", x->cfg.node_id, text,
             qs->new_directory ? " (new: votes only for empty logs until caught up)" : "");
}

static bool exec_open_storage(kq_exec *x, raft_quorum_state *qs, char *err, size_t errlen)
{
    char note[1024] = "";
    bool voter = false;
    for (int i = 0; i < x->cfg.voter_count; i++)
        voter |= x->cfg.voters[i].node_id == x->cfg.node_id;
    /* Peers can refill what corruption takes unless we are the only voter. */
    x->repair_allowed = x->cfg.voter_count > 1 || !voter;
    kq_log_options lo = {.fs = x->env.fs, .log_dir = x->log_dir,
                         .segment_bytes = x->cfg.segment_bytes, .mutants = x->cfg.mutants,
                         .repair = x->repair_allowed, .snapshot_at_start = true};
    x->log = kq_log_open_with(&lo, note, sizeof(note));
    if (!x->log) {
        snprintf(err, errlen, "refusing to start: %s", note);
        return false;
    }
    if (note[0])
        log_line("node %d: log recovery: %s", x->cfg.node_id, note);
    int32_t stored[EXEC_VOTERS_MAX];
    int stored_count = EXEC_VOTERS_MAX;
    if (kq_quorum_state_load_fs(x->env.fs, x->log_dir, qs, stored, &stored_count, note,
                                sizeof(note)) != 0) {
        snprintf(err, errlen, "refusing to start: %s", note);
        return false;
    }
    exec_directory_ids(x, qs, stored, stored_count);
    x->stored_qstate = *qs;
    return true;
}

/* The quorum state may not go back behind the log (issue 19): the epoch
 * of every batch and snapshot was made durable in quorum-state before it
 * was written (a leader stores its epoch before appending in it, a
 * follower before it appends a fetched batch), so a file whose epoch is
 * below the log's last epoch (or the newest snapshot's) was damaged or
 * replaced; believing it could cast a second vote in an epoch. */
static bool exec_qstate_agrees(kq_exec *x, const raft_quorum_state *qs, char *err,
                               size_t errlen)
{
    raft_epoch_entry last[1];
    int32_t epoch = kq_log_epochs(x->log, last, 1) == 1 ? last[0].epoch : -1;
    const char *what = "the log's last batch";
    int64_t repair_end;
    int32_t repair_epoch;
    if (kq_log_repair(x->log, &repair_end, &repair_epoch) && repair_epoch > epoch) {
        epoch = repair_epoch;
        what = "the log's last batch before the repair";
    }
    raft_snapshot_id latest;
    if (exec_snapshot_latest(x, &latest) && latest.epoch > epoch) {
        epoch = latest.epoch;
        what = "the newest snapshot";
    }
    if (qs->epoch >= epoch)
        return true;
    snprintf(err, errlen,
             "refusing to start: %s/" KQ_LOG_PARTITION_DIR "/quorum-state holds epoch %d, "
             "below epoch %d of %s: the file went backwards (damaged or replaced); restore it",
             x->log_dir, qs->epoch, epoch, what);
    return false;
}

kq_exec *exec_create(const exec_config *config, const exec_env *env, char *err, size_t errlen)
{
    kq_exec *x = calloc(1, sizeof(*x));
    if (!x) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    x->cfg = *config;
    x->env = *env;
    snprintf(x->cluster_id, sizeof(x->cluster_id), "%s", config->cluster_id);
    snprintf(x->log_dir, sizeof(x->log_dir), "%s", config->log_dir);
    x->cfg.cluster_id = x->cluster_id;
    x->cfg.log_dir = x->log_dir;
    x->last_role = (enum raft_role)-1;
    x->rejected_logged = -1;
    x->truncated_lower = -1;
    x->metrics = exec_metrics_create();
    x->snap = exec_snapshots_create();
    x->produce = exec_produce_create();
    x->offsets = exec_offsets_create(x->cfg.mutants);
    x->txn = exec_txn_create();
    x->groups = exec_groups_create();
    x->pids = exec_producer_ids_create();
    x->peers = exec_peers_create(&x->cfg);
    x->search = exec_searches_create();
    if (!x->metrics || !x->snap || !x->produce || !x->offsets || !x->txn || !x->groups ||
        !x->pids || !x->peers ||
        !x->search) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    exec_metrics_init(x);
    raft_quorum_state qs;
    if (!exec_open_storage(x, &qs, err, errlen) || !exec_snapshots_open(x, err, errlen) ||
        !exec_qstate_agrees(x, &qs, err, errlen))
        goto fail;
    if (!exec_rebuild_at_start(x, err, errlen) || !exec_voter_history_load(x, err, errlen))
        goto fail;
    if (!exec_producer_ids_open(x, err, errlen))
        goto fail;
    x->raft = exec_make_core(x, &qs);
    /* The leader the quorum state names, a hint for a node whose voter set
     * names no one else to ask (the core's seek fallback): its peer slot
     * is kept like the last leader followed's (exec_peers_follow). */
    exec_peers_hint_leader(x->peers, qs.leader_id, x->cfg.node_id);
    if (!x->raft) {
        snprintf(err, errlen, "invalid quorum configuration");
        goto fail;
    }
    x->handler = exec_make_handler(x);
    if (!x->handler || !exec_workload_create(x)) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    return x;
fail:
    exec_destroy(x, true);
    return NULL;
}

void exec_start(kq_exec *x)
{
    exec_follow_voters(x); /* the voters the log named at start */
    exec_ask_endpoints(x);
    raft_event ev = {.type = RAFT_EVENT_TICK};
    exec_step(x, &ev);
    exec_settle(x);
}

void exec_destroy(kq_exec *x, bool abandon_flush)
{
    if (!x)
        return;
    exec_workload_destroy(x);
    exec_searches_destroy(x);
    handler_destroy(x->handler);
    if (x->flush_job) {
        KQ_ASSERT(abandon_flush);
        kq_log_flush_end(x->log, x->flush_job); /* frees the job; the log closes next */
        x->flush_job = NULL;
    }
    exec_snapshots_close(x, abandon_flush);
    if (x->log && abandon_flush)
        kq_log_abandon(x->log); /* a crash: nothing more reaches the disk */
    else if (x->log)
        kq_log_close(x->log);
    if (x->raft)
        raft_destroy(x->raft);
    exec_produce_destroy(x->produce);
    exec_offsets_destroy(x->offsets);
    exec_txn_destroy(x->txn);
    exec_groups_destroy(x->groups);
    exec_producer_ids_destroy(x->pids);
    exec_peers_destroy(x->peers);
    exec_snapshots_destroy(x->snap);
    exec_metrics_destroy(x->metrics);
    free(x);
}
