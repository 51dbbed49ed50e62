/* The Raft core's entry points: create (restart rules), step (event
 * dispatch, then each role's timers, then flush scheduling) and status. */
#include <stdlib.h>
#include <string.h>

#include "kq/assert.h"
#include "kq/kafka_errors.h"
#include "kq/limits.h"
#include "raft_internal.h"

const char *raft_role_name(enum raft_role role)
{
    switch (role) {
    case RAFT_ROLE_UNATTACHED: return "unattached";
    case RAFT_ROLE_VOTED: return "voted";
    case RAFT_ROLE_CANDIDATE: return "candidate";
    case RAFT_ROLE_LEADER: return "leader";
    case RAFT_ROLE_FOLLOWER: return "follower";
    case RAFT_ROLE_RESIGNED: return "resigned";
    case RAFT_ROLE_PROSPECTIVE: return "prospective";
    }
    return "unknown";
}

bool raft_is_voter(const raft *r, int32_t node_id)
{
    for (int i = 0; i < r->voter_count; i++)
        if (r->voters[i].id == node_id)
            return true;
    return false;
}

/* The voter history handed over at create: ascending, bounded, and some
 * voters somewhere (static or in it). */
static bool history_valid(const raft_config *c, const raft_log_state *log)
{
    int n = log ? log->voter_history_count : 0;
    if (n < 0 || n > RAFT_VOTER_HISTORY_MAX || (n > 0 && !log->voter_history))
        return false;
    bool voters = c->voter_count > 0 || c->bootstrap_count > 0; /* an observer may know none */
    for (int i = 0; i < n; i++) {
        const raft_voter_entry *e = &log->voter_history[i];
        if (e->offset < -1 || (i > 0 && e->offset < log->voter_history[i - 1].offset) ||
            e->kraft_version < 0 || e->kraft_version > 1 ||
            (e->has_voters && (e->voters.count < 1 || e->voters.count > KQ_VOTER_SET_MAX)))
            return false;
        voters |= e->has_voters;
    }
    return voters;
}

static bool config_valid(const raft_config *c)
{
    if (c->node_id < 0 || c->voter_count < 0 || c->voter_count > RAFT_VOTERS_MAX)
        return false;
    if (c->election_timeout_ms == 0 || c->fetch_timeout_ms == 0 || c->request_timeout_ms == 0)
        return false;
    if (c->bootstrap_count < 0 || c->bootstrap_count > RAFT_BOOTSTRAP_SERVERS_MAX)
        return false;
    if (c->fetch_max_wait_ms > INT32_MAX || c->fetch_max_bytes > INT32_MAX ||
        c->append_linger_ms > RAFT_APPEND_LINGER_MS_MAX)
        return false;
    for (int i = 0; i < c->voter_count; i++) {
        if (c->voter_ids[i] < 0)
            return false;
        for (int j = 0; j < i; j++)
            if (c->voter_ids[j] == c->voter_ids[i])
                return false;
    }
    return true;
}

/* Where a restarted node resumes (see the table in quorum.c). */
static void restore_role(raft *r)
{
    int32_t self = r->cfg.node_id;
    raft_quorum_state *q = &r->q;
    r->seek_fallback = q->leader_id != self ? q->leader_id : -1; /* kept as a hint */
    if (q->leader_id >= 0 && (q->leader_id == self || !raft_is_voter(r, q->leader_id))) {
        if (q->leader_id == self && r->is_voter) {
            r->role = RAFT_ROLE_RESIGNED;
            return;
        }
        q->leader_id = -1;
        r->qstate_pending = true;
    }
    if (q->leader_id >= 0) {
        r->role = RAFT_ROLE_FOLLOWER;
        r->fetch_target = q->leader_id;
        r->fetch_deadline_ms = r->now_ms + raft_fetch_timeout(r);
    } else if (q->voted_id == self && r->is_voter) {
        r->role = RAFT_ROLE_CANDIDATE;
        raft_peer *me = raft_voter(r, self);
        me->vote_responded = me->vote_granted = true;
        r->election_retries = 1;
    } else if (q->voted_id >= 0) {
        r->role = RAFT_ROLE_VOTED;
    } else {
        r->role = RAFT_ROLE_UNATTACHED;
    }
}

raft *raft_create(const raft_config *config, const raft_quorum_state *qstate,
                  const raft_log_state *log, int64_t now_ms)
{
    if (!config || !config_valid(config) || !history_valid(config, log))
        return NULL;
    if (log && (log->end_offset < 0 || log->epoch_count < 0 || log->start_offset < 0 ||
                log->start_offset > log->end_offset ||
                (log->start_offset > 0 && log->start_snapshot.end_offset != log->start_offset) ||
                log->epoch_count > RAFT_EPOCH_CACHE_MAX ||
                (log->epoch_count > 0 && !log->epochs)))
        return NULL;
    raft *r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    r->ec.entries = calloc(RAFT_EPOCH_CACHE_MAX, sizeof(raft_epoch_entry));
    r->vh = calloc(RAFT_VOTER_HISTORY_MAX, sizeof(raft_voter_entry));
    r->vh_scan = calloc(RAFT_VOTER_HISTORY_MAX, sizeof(raft_voter_entry));
    kq_writer_init(&r->lc_writer, RAFT_LC_BATCH_BYTES_MAX);
    if (!r->ec.entries || !r->vh || !r->vh_scan ||
        !kq_writer_reserve(&r->lc_writer, RAFT_LC_BATCH_BYTES_MAX)) {
        raft_destroy(r);
        return NULL;
    }
    kq_writer_reset(&r->lc_writer);

    r->cfg = *config;
    r->now_ms = now_ms;
    r->prng = config->random_seed;
    r->static_voters.count = config->voter_count;
    for (int i = 0; i < config->voter_count; i++)
        r->static_voters.voters[i] = (kq_voter){.id = config->voter_ids[i]};
    for (int i = 0; log && i < log->voter_history_count; i++)
        r->vh[r->vh_count++] = log->voter_history[i];
    raft_output scratch; /* voters_changed means nothing before the first step */
    raft_voters_apply(r, &scratch);
    raft_peers_reset(r);

    r->end_offset = log ? log->end_offset : 0;
    r->flushed_offset = r->end_offset;
    r->linger_start_ms = -1;
    if (log && log->repair_end_offset > r->end_offset) {
        r->repair_end = log->repair_end_offset;
        r->repair_epoch = log->repair_last_epoch;
    }
    r->high_watermark = -1;
    r->leader_hw = -1;
    r->dir_catchup_hw = -1;
    r->leader_contact_ms = -1;
    r->leader_resigned_epoch = -1;
    r->updated_epoch = -1;
    r->fetch_target = -1;
    for (int i = 0; log && i < log->epoch_count; i++)
        if (log->epochs[i].start_offset <= r->end_offset && log->epochs[i].epoch >= 0)
            raft_ec_append(&r->ec, log->epochs[i].epoch, log->epochs[i].start_offset);
    raft_ec_truncate(&r->ec, r->end_offset + 1);
    r->latest_snapshot = (raft_snapshot_id){.end_offset = -1, .epoch = -1};
    r->start_snapshot = r->latest_snapshot;
    if (log && log->start_offset > 0) {
        r->log_start = log->start_offset;
        r->start_snapshot = log->start_snapshot;
        r->ec.base_epoch = log->start_snapshot.epoch;
    }
    if (log && log->latest_snapshot.end_offset > 0)
        r->latest_snapshot = log->latest_snapshot;
    if (r->cfg.fetch_snapshot_max_bytes == 0)
        r->cfg.fetch_snapshot_max_bytes = 1u << 20;

    r->q = qstate ? *qstate : (raft_quorum_state){.epoch = 0, .voted_id = -1, .leader_id = -1};
    if (r->q.epoch < 0) {
        r->q.epoch = 0;
        r->q.voted_id = r->q.leader_id = -1;
    }
    if (memcmp(&r->q.directory_id, &r->cfg.directory_id, sizeof(kq_uuid)) != 0) {
        r->q.directory_id = r->cfg.directory_id; /* kept with the quorum state */
        r->qstate_pending = true;
    }
    int32_t log_epoch = raft_ec_last_epoch(&r->ec);
    if (log_epoch > r->q.epoch) { /* the log saw a newer epoch than the state file */
        r->q.epoch = log_epoch;
        r->q.voted_id = r->q.leader_id = -1;
        r->qstate_pending = true;
    }
    restore_role(r);
    r->election_deadline_ms = now_ms + raft_election_timeout(r);
    if (r->is_voter && r->voter_count == 1) { /* alone: elect itself at once */
        if (r->role != RAFT_ROLE_RESIGNED)
            r->role = RAFT_ROLE_UNATTACHED;
        r->election_deadline_ms = now_ms;
    }
    return r;
}

void raft_destroy(raft *r)
{
    if (!r)
        return;
    free(r->ec.entries);
    free(r->vh);
    free(r->vh_scan);
    kq_writer_free(&r->lc_writer);
    free(r);
}

void raft_set_hw(raft *r, raft_output *out, int64_t hw)
{
    if (hw <= r->high_watermark)
        return;
    r->high_watermark = hw;
    out->high_watermark_changed = true;
    out->high_watermark = hw;
}

void raft_truncate(raft *r, raft_output *out, int64_t offset)
{
    if (offset < 0 || offset >= r->end_offset)
        return;
    /* Below the log start would cut what a snapshot covers: committed data,
     * which only a broken quorum (the vote-no-log-check mutant) asks for.
     * Storage refuses it and the executor stops the node (fail-stop), after
     * the simulator's no-truncate-committed check saw the action. */
    raft_action *a = raft_out_push(out, RAFT_ACTION_TRUNCATE);
    if (!a)
        return;
    a->offset = offset;
    raft_note_end(r, out, offset);
}

void raft_note_end(raft *r, raft_output *out, int64_t offset)
{
    if (offset < 0 || offset >= r->end_offset)
        return;
    r->end_offset = offset;
    if (r->flushed_offset > offset)
        r->flushed_offset = offset;
    if (r->flush_inflight && r->flush_target > offset)
        r->flush_target = offset; /* the pending FLUSHED cannot vouch for new data */
    if (r->fetch_verified_end > offset)
        r->fetch_verified_end = offset;
    raft_ec_truncate(&r->ec, offset);
    raft_voters_truncate(r, out, offset);
}

static void on_flushed(raft *r, const raft_event *ev, raft_output *out)
{
    int64_t v = ev->flushed_offset < r->end_offset ? ev->flushed_offset : r->end_offset;
    if (r->flush_inflight && v > r->flush_target)
        v = r->flush_target;
    r->flush_inflight = false;
    if (v > r->flushed_offset)
        r->flushed_offset = v;
    raft_leader_update_hw(r, out);
    raft_follower_update_hw(r, out);
}

/* quorum.append.linger.ms: whether the leader should still let appends
 * accumulate; if so it comes back when the linger is over. */
static bool lingering(raft *r, raft_output *out)
{
    if (r->cfg.append_linger_ms == 0 || r->role != RAFT_ROLE_LEADER)
        return false;
    if (r->linger_start_ms < 0)
        r->linger_start_ms = r->now_ms;
    int64_t due_ms = r->linger_start_ms + (int64_t)r->cfg.append_linger_ms;
    if (r->now_ms >= due_ms)
        return false;
    raft_wake(out, due_ms);
    return true;
}

static void maybe_flush(raft *r, raft_output *out)
{
    if (r->flush_inflight || r->flushed_offset >= r->end_offset)
        return;
    if (lingering(r, out))
        return;
    r->linger_start_ms = -1;
    raft_action *a = raft_out_push(out, RAFT_ACTION_FLUSH);
    if (!a)
        return;
    a->offset = r->end_offset;
    r->flush_inflight = true;
    r->flush_target = r->end_offset;
    r->flush_keepalive_at_ms = r->now_ms + raft_flush_keepalive_ms(r);
}

static void on_receive(raft *r, const raft_msg *m, raft_output *out)
{
    switch (m->type) {
    case RAFT_MSG_VOTE_REQUEST: raft_on_vote_request(r, m, out); break;
    case RAFT_MSG_VOTE_RESPONSE: raft_on_vote_response(r, m, out); break;
    case RAFT_MSG_BEGIN_EPOCH_REQUEST: raft_on_begin_epoch_request(r, m, out); break;
    case RAFT_MSG_BEGIN_EPOCH_RESPONSE: raft_on_begin_epoch_response(r, m, out); break;
    case RAFT_MSG_END_EPOCH_REQUEST: raft_on_end_epoch_request(r, m, out); break;
    case RAFT_MSG_END_EPOCH_RESPONSE: raft_on_end_epoch_response(r, m, out); break;
    case RAFT_MSG_FETCH_REQUEST: raft_on_fetch_request(r, m, out); break;
    case RAFT_MSG_FETCH_RESPONSE: raft_on_fetch_response(r, m, out); break;
    case RAFT_MSG_FETCH_SNAPSHOT_REQUEST: raft_on_fetch_snapshot_request(r, m, out); break;
    case RAFT_MSG_FETCH_SNAPSHOT_RESPONSE: raft_on_fetch_snapshot_response(r, m, out); break;
    case RAFT_MSG_ADD_VOTER_REQUEST:
    case RAFT_MSG_REMOVE_VOTER_REQUEST:
    case RAFT_MSG_UPDATE_VOTER_REQUEST: raft_on_voter_change_request(r, m, out); break;
    case RAFT_MSG_UPGRADE_KRAFT_REQUEST: raft_on_upgrade_kraft(r, m, out); break;
    case RAFT_MSG_VOTER_CHANGE_RESPONSE: raft_on_auto_join_answer(r, m); break;
    }
}

static void poll_role(raft *r, raft_output *out)
{
    switch (r->role) {
    case RAFT_ROLE_UNATTACHED:
    case RAFT_ROLE_VOTED: raft_poll_unattached(r, out); break;
    case RAFT_ROLE_CANDIDATE: raft_poll_candidate(r, out); break;
    case RAFT_ROLE_LEADER: raft_poll_leader(r, out); break;
    case RAFT_ROLE_FOLLOWER: raft_poll_follower(r, out); break;
    case RAFT_ROLE_RESIGNED: raft_poll_resigned(r, out); break;
    case RAFT_ROLE_PROSPECTIVE: raft_poll_prospective(r, out); break;
    }
}

void raft_step(raft *r, const raft_event *ev, raft_output *out)
{
    memset(out, 0, sizeof(*out));
    out->wake_at_ms = -1;
    out->append_base_offset = -1;
    out->rejected_batch_offset = -1;
    if (ev->now_ms > r->now_ms)
        r->now_ms = ev->now_ms; /* time never runs backwards inside the core */
    r->action_overflow = false;

    if (r->qstate_pending) {
        raft_action *a = raft_out_push(out, RAFT_ACTION_STORE_QSTATE);
        a->qstate = r->q;
        r->qstate_pending = false;
        out->role_changed = true;
        raft_out_reason(out, "restarted as %s in epoch %d", raft_role_name(r->role),
                        r->q.epoch);
    }
    raft_requests_expire(r);

    switch (ev->type) {
    case RAFT_EVENT_TICK: break;
    case RAFT_EVENT_RECEIVE: on_receive(r, &ev->msg, out); break;
    case RAFT_EVENT_SEND_FAILED: {
        raft_peer *p = raft_peer_of(r, ev->msg.to);
        if (ev->msg.type == RAFT_MSG_ADD_VOTER_REQUEST ||
            ev->msg.type == RAFT_MSG_REMOVE_VOTER_REQUEST ||
            ev->msg.type == RAFT_MSG_UPDATE_VOTER_REQUEST)
            raft_auto_join_failed(r); /* its own slot, not the fetch's */
        else if (p && p->out.inflight)
            raft_request_failed(r, p);
        break;
    }
    case RAFT_EVENT_FLUSHED: on_flushed(r, ev, out); break;
    case RAFT_EVENT_CLIENT_APPEND: raft_on_client_append(r, ev, out); break;
    case RAFT_EVENT_SHUTDOWN: raft_on_shutdown(r, out); break;
    case RAFT_EVENT_LOG_TRUNCATED: raft_note_end(r, out, ev->log_end_offset); break;
    case RAFT_EVENT_SNAPSHOTS: raft_on_snapshots(r, ev); break;
    case RAFT_EVENT_SNAPSHOT_INSTALLED: raft_on_snapshot_installed(r, ev, out); break;
    }

    /* Run the current role's timers until the role settles (a single voter
     * goes unattached -> candidate -> leader in one step). */
    for (int i = 0; i < 8; i++) {
        enum raft_role role = r->role;
        int32_t epoch = r->q.epoch;
        poll_role(r, out);
        if (role == r->role && epoch == r->q.epoch)
            break;
    }
    raft_reconfig_poll(r, out);
    raft_poll_auto_join(r, out);
    raft_parked_service(r, out);
    raft_poll_shutdown(r, out);
    maybe_flush(r, out);

    raft_requests_wake(r, out);
    if (r->action_overflow)
        raft_wake(out, r->now_ms);
    if (out->wake_at_ms < r->now_ms) /* nothing pending: still come back */
        out->wake_at_ms = r->now_ms + r->cfg.election_timeout_ms;
    out->high_watermark = r->high_watermark;
    out->shutdown_complete = r->shutdown_done;
}

static void replica_status(const raft_peer *p, raft_replica_status *s)
{
    s->replica_id = p->id;
    s->log_end_offset = p->end_offset;
    s->last_fetch_ms = p->last_fetch_ms;
    s->last_caught_up_ms = p->last_caught_up_ms;
}

void raft_get_status(const raft *r, raft_status *s)
{
    memset(s, 0, sizeof(*s));
    s->role = r->role;
    s->epoch = r->q.epoch;
    s->leader_id = r->q.leader_id;
    s->voted_id = r->q.voted_id;
    s->high_watermark = raft_told_hw(r); /* as in Kafka: unknown until this epoch commits */
    s->log_end_offset = r->end_offset;
    s->flushed_offset = r->flushed_offset;
    s->repair_end_offset = raft_repairing(r) ? r->repair_end : 0;
    s->log_start_offset = r->log_start;
    s->latest_snapshot = r->latest_snapshot;
    s->fetching_snapshot = r->fs_active;
    if (r->role != RAFT_ROLE_LEADER)
        return;
    for (int i = 0; i < r->voter_count; i++) {
        raft_replica_status *v = &s->voters[s->voter_count++];
        replica_status(&r->voters[i], v);
        /* a static voter has no key beyond its id (Kafka: null) */
        if (raft_voters_dynamic(r))
            v->directory_id = raft_peer_dir((raft *)r, r->voters[i].id);
        if (r->voters[i].id == r->cfg.node_id) {
            v->log_end_offset = r->end_offset;
            v->last_fetch_ms = r->now_ms;
            v->last_caught_up_ms = r->now_ms;
        }
    }
    for (int i = 0; i < r->observer_count; i++) {
        replica_status(&r->observers[i], &s->observers[s->observer_count]);
        s->observers[s->observer_count++].directory_id = r->observers[i].fetch_dir;
    }
}
