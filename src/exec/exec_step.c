/* Carrying out the core's output: the actions in order (quorum state durable
 * before anything after it), then the follow-up events they raised, then
 * what the progress allows the handlers to answer. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "exec_internal.h"
#include "kq/assert.h"
#include "kq/kafka_errors.h"
#include "kq/log_line.h"
#include "kq/mutants.h"
#include "kq/quorum_state_file.h"

static void exec_store_qstate(kq_exec *x, const raft_quorum_state *qs)
{
    int32_t voters[EXEC_VOTERS_MAX];
    for (int i = 0; i < x->cfg.voter_count; i++)
        voters[i] = x->cfg.voters[i].node_id;
    char err[512];
    int rc = kq_quorum_state_store_fs(x->env.fs, x->log_dir, qs, voters, x->cfg.voter_count,
                                      err, sizeof(err));
    if (rc != 0) {
        exec_fatal(x, "cannot store the quorum state", err);
        return;
    }
    x->stored_qstate = *qs;
}

static void exec_truncate(kq_exec *x, int64_t offset)
{
    char err[512];
    /* A peer's DivergingEpoch end may fall inside one of our batches: cut at
     * the start of that batch, as Kafka does, and tell the core after. */
    int64_t start = kq_log_batch_start(x->log, offset);
    if (start >= 0 && start < offset) {
        log_line("node %d: truncation point %" PRId64 " lies inside a batch; cutting at its "
                 "start %" PRId64, x->cfg.node_id, offset, start);
        offset = start;
        x->truncated_lower = offset;
    }
    if (kq_log_truncate(x->log, offset, err, sizeof(err)) != 0) {
        exec_fatal(x, "cannot truncate the log", err);
        return;
    }
    log_line("node %d: truncated the log to offset %" PRId64, x->cfg.node_id, offset);
    exec_snapshot_truncated(x, offset);
    exec_rebuild_producers(x);
    if (x->env.on_truncated && !x->failed)
        x->env.on_truncated(x->env.ctx, offset);
}

static void exec_start_flush(kq_exec *x)
{
    if (x->flush_job)
        return; /* the core never asks twice; the next FLUSHED re-triggers */
    kq_log_flush_job *job = NULL;
    int rc = kq_log_flush_begin(x->log, &job);
    if (rc != 0) {
        exec_fatal(x, "cannot start a log flush", strerror(-rc));
        return;
    }
    if (!job) {
        x->flush_idle = true; /* stepped after this output */
        return;
    }
    x->flush_job = job;
    exec_metrics_flush_started(x);
    x->env.flush_start(x->env.ctx, job);
}

static void exec_action(kq_exec *x, const raft_action *a)
{
    switch (a->type) {
    case RAFT_ACTION_STORE_QSTATE:
        exec_store_qstate(x, &a->qstate);
        break;
    case RAFT_ACTION_TRUNCATE:
        exec_truncate(x, a->offset);
        break;
    case RAFT_ACTION_APPEND:
        exec_log_append(x, a);
        break;
    case RAFT_ACTION_FLUSH:
        exec_start_flush(x);
        break;
    case RAFT_ACTION_SEND:
        if (a->msg.token != 0 && a->msg.type == RAFT_MSG_FETCH_SNAPSHOT_RESPONSE)
            exec_snapshot_answer(x, &a->msg); /* an answer with a chunk of the file */
        else
            exec_send(x, &a->msg);
        break;
    case RAFT_ACTION_SNAPSHOT_WRITE:
    case RAFT_ACTION_SNAPSHOT_INSTALL:
    case RAFT_ACTION_SNAPSHOT_ABORT: {
        /* the core installs only with no flush out */
        KQ_ASSERT(a->type != RAFT_ACTION_SNAPSHOT_INSTALL || x->flush_job == NULL);
        int64_t ts;
        exec_tables t = exec_tables_of(x);
        if (exec_snapshot_action(x, a, &t, &ts))
            exec_publish(x, a->snapshot.id, ts); /* installed */
        break;
    }
    }
}

/* The vote-send-before-store mutant: the sends after a STORE_QSTATE leave
 * first (so a crash between them forgets a vote already granted). */
static void exec_reorder_for_mutant(const kq_exec *x, raft_output *out)
{
    if (!(x->cfg.mutants & KQ_MUTANT_VOTE_SEND_BEFORE_STORE))
        return;
    for (int i = 0; i + 1 < out->action_count; i++) {
        if (out->actions[i].type != RAFT_ACTION_STORE_QSTATE)
            continue;
        int j = i + 1;
        while (j < out->action_count && out->actions[j].type == RAFT_ACTION_SEND)
            j++;
        raft_action store = out->actions[i];
        memmove(&out->actions[i], &out->actions[i + 1], sizeof(raft_action) * (size_t)(j - i - 1));
        out->actions[j - 1] = store;
        i = j - 1;
    }
}

static void exec_log_role(kq_exec *x, const raft_output *out)
{
    raft_status st;
    raft_get_status(x->raft, &st);
    exec_metrics_role(x, st.role);
    if (st.role == x->last_role && st.epoch == x->last_epoch && st.leader_id == x->last_leader)
        return;
    log_line("node %d: %s in epoch %d, leader %d%s%s", x->cfg.node_id, raft_role_name(st.role),
             st.epoch, st.leader_id, out->reason[0] ? ": " : "", out->reason);
    x->last_role = st.role;
    x->last_epoch = st.epoch;
    x->last_leader = st.leader_id;
}

static void exec_carry_out(kq_exec *x, raft_output *out)
{
    exec_reorder_for_mutant(x, out);
    for (int i = 0; i < out->action_count && !x->failed; i++) {
        const raft_action *a = &out->actions[i];
        if (x->env.crash_before_action && x->env.crash_before_action(x->env.ctx, a)) {
            x->failed = true; /* the process died here; the env crashes the node */
            return;
        }
        exec_action(x, a);
    }
    if (x->failed)
        return;
    if (out->role_changed)
        exec_log_role(x, out);
    if (out->rejected_batch_offset >= 0 && out->rejected_batch_offset != x->rejected_logged) {
        x->rejected_logged = out->rejected_batch_offset; /* once per offset */
        log_line("node %d: rejected a fetched batch at offset %" PRId64
                 " that fails its CRC; fetching it again after the backoff",
                 x->cfg.node_id, out->rejected_batch_offset);
    }
    if (out->high_watermark_changed) {
        exec_metrics_committed(x, out->high_watermark);
        exec_workload_committed(x, out->high_watermark);
    }
    if (out->high_watermark_changed && x->env.on_committed)
        x->env.on_committed(x->env.ctx, out->high_watermark);
    x->raft_wake_ms = out->wake_at_ms;
    if (out->shutdown_complete && x->shutdown_requested && !x->shutdown_reported) {
        x->shutdown_reported = true;
        log_line("node %d: shutdown complete", x->cfg.node_id);
        if (x->env.on_shutdown_complete)
            x->env.on_shutdown_complete(x->env.ctx);
    }
}

static void exec_step_one(kq_exec *x, raft_event *event)
{
    KQ_ASSERT(!x->stepping); /* never nested: follow-ups wait for the output */
    x->stepping = true;
    event->now_ms = exec_now(x);
    raft_step(x->raft, event, &x->out);
    /* Before the actions: they may address a voter the step added. */
    if (x->out.voters_changed || x->out.role_changed)
        exec_follow_voters(x);
    exec_carry_out(x, &x->out);
    x->stepping = false;
}

/* Takes one follow-up event raised by the last output; false if none. */
static bool exec_next_followup(kq_exec *x, raft_event *ev)
{
    memset(ev, 0, sizeof(*ev));
    if (exec_snapshot_followup(x, ev))
        return true;
    if (x->truncated_lower >= 0) {
        ev->type = RAFT_EVENT_LOG_TRUNCATED;
        ev->log_end_offset = x->truncated_lower;
        x->truncated_lower = -1;
        return true;
    }
    if (x->flush_idle) {
        x->flush_idle = false;
        ev->type = RAFT_EVENT_FLUSHED;
        ev->flushed_offset = kq_log_flushed_offset(x->log);
        return true;
    }
    int32_t to;
    enum raft_msg_type type;
    if (exec_peers_take_send_failed(x->peers, &to, &type)) {
        ev->type = RAFT_EVENT_SEND_FAILED;
        ev->msg.type = type;
        ev->msg.to = to;
        ev->msg.from = x->cfg.node_id;
        return true;
    }
    return false;
}

static void exec_step_followups(kq_exec *x)
{
    raft_event ev;
    while (!x->failed && exec_next_followup(x, &ev))
        exec_step_one(x, &ev);
}

void exec_step(kq_exec *x, raft_event *event)
{
    if (x->failed)
        return;
    exec_step_one(x, event);
    exec_step_followups(x);
}

void exec_step_append(kq_exec *x, raft_event *event, kq_request_result *res)
{
    KQ_ASSERT(event->type == RAFT_EVENT_CLIENT_APPEND);
    *res = (kq_request_result){.error = KAFKA_NOT_LEADER_OR_FOLLOWER, .base_offset = -1,
                               .last_offset = -1, .epoch = -1, .producer_id = -1};
    if (x->failed)
        return;
    exec_step_one(x, event);
    /* Its answer and epoch, before follow-ups reuse the output. */
    if (x->out.append_error == KAFKA_NONE) {
        raft_status st;
        raft_get_status(x->raft, &st);
        res->error = KAFKA_NONE;
        res->base_offset = x->out.append_base_offset;
        res->last_offset = x->out.append_base_offset + event->append.offset_count - 1;
        res->epoch = st.epoch;
        exec_metrics_leader_appended(x, res->last_offset, event->append.offset_count);
    } else {
        res->error = x->out.append_error;
    }
    exec_step_followups(x);
}

static bool exec_reads_ok(kq_exec *x)
{
    const char *why = handler_read_failure(x->handler);
    if (why)
        exec_fatal(x, "cannot read flushed log data", why);
    return !x->failed;
}

void exec_settle(kq_exec *x)
{
    if (!exec_reads_ok(x))
        return;
    exec_offsets_settle(x); /* before the handlers answer waiting commits */
    exec_txn_settle(x);     /* the last stable offset, before they answer */
    handler_on_progress(x->handler);
    if (!exec_reads_ok(x))
        return;
    exec_settle_snapshots(x);
    if (x->failed)
        return;
    int64_t due = x->raft_wake_ms;
    int64_t h = handler_next_deadline(x->handler);
    if (h < due)
        due = h;
    int64_t e = exec_endpoint_due(x);
    if (e < due)
        due = e;
    int64_t wl = exec_workload_due(x);
    if (wl < due)
        due = wl;
    int64_t sn = exec_snapshot_due(x);
    if (sn < due)
        due = sn;
    x->env.arm_timer(x->env.ctx, due);
}
