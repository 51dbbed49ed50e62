/* Leader duties: the LeaderChange batch opening each epoch, BeginQuorumEpoch,
 * client appends, the high watermark, check quorum, and resigning (check
 * quorum failure or graceful shutdown) with EndQuorumEpoch. */
#include <stdio.h>

#include "kq/assert.h"
#include "kq/kafka_errors.h"
#include "kq/record.h"
#include "raft_internal.h"

int64_t raft_leader_serve_end(const raft *r)
{
    return (r->cfg.mutants & RAFT_MUTANT_SKIP_FLUSH) ? r->end_offset : r->flushed_offset;
}

void raft_leader_on_elected(raft *r, raft_output *out)
{
    int32_t voters[RAFT_VOTERS_MAX], granting[RAFT_VOTERS_MAX];
    int granted = 0;
    for (int i = 0; i < r->voter_count; i++) {
        voters[i] = r->voters[i].id;
        if (r->voters[i].vote_granted)
            granting[granted++] = r->voters[i].id;
    }
    raft_dir_caught_up(r, out); /* a majority made it leader */
    raft_upgrade_on_elected(r);
    r->epoch_start_offset = r->end_offset;
    r->leader_hw_known = false;
    r->check_quorum_deadline_ms = r->now_ms + r->cfg.fetch_timeout_ms;
    raft_ec_append(&r->ec, r->q.epoch, r->end_offset);

    /* KIP-853 (LeaderState.appendStartOfEpochControlRecords): a voter set
     * still only in the bootstrap checkpoint is copied into the log. */
    raft_voter_entry copy;
    bool copy_voters = raft_kraft_version(r) >= 1 && raft_voters_at(r, r->end_offset, &copy) &&
                       copy.has_voters && raft_voters_from_bootstrap(r);
    record_control_args c = {.base_offset = r->end_offset, .epoch = r->q.epoch,
                             .timestamp_ms = r->now_ms, .leader_id = r->cfg.node_id,
                             .lc_voters = voters, .lc_voter_count = r->voter_count,
                             .lc_granting = granting, .lc_granting_count = granted,
                             .kraft_version = copy_voters ? copy.kraft_version : -1,
                             .voters = copy_voters ? &copy.voters : NULL};
    if (!raft_leader_append_control(r, out, &c, 1 + 2 * copy_voters))
        return;
    if (copy_voters) { /* the same state, now from the log (its Voters record) */
        copy.offset = c.base_offset + 2;
        raft_voters_push(r, out, &copy);
    }
}

bool raft_leader_append_control(raft *r, raft_output *out, const record_control_args *c,
                                int records)
{
    kq_writer_reset(&r->lc_writer);
    KQ_ASSERT(record_build_control(&r->lc_writer, c) && !r->lc_writer.error); /* sized for it */
    raft_action *a = raft_out_push(out, RAFT_ACTION_APPEND);
    if (!a)
        return false;
    a->append.records = r->lc_writer.data;
    a->append.len = r->lc_writer.len;
    a->append.base_offset = r->end_offset;
    a->append.epoch = r->q.epoch;
    r->end_offset += records;
    return true;
}

void raft_leader_update_hw(raft *r, raft_output *out)
{
    if (r->role != RAFT_ROLE_LEADER)
        return;
    int64_t v[RAFT_VOTERS_MAX + RAFT_OBSERVERS_MAX];
    int n = 0;
    for (int i = 0; i < r->voter_count; i++)
        v[n++] = r->voters[i].id == r->cfg.node_id ? raft_leader_serve_end(r)
                 : r->voters[i].dir_replaced       ? -1 /* not its old self yet */
                                                   : r->voters[i].end_offset;
    int counted = r->voter_count;
    for (int i = 0; i < r->observer_count; i++) {
        bool removed = r->observers[i].removed_voter &&
                       (r->cfg.mutants & RAFT_MUTANT_HW_COUNTS_REMOVED_VOTER);
        if (removed || (r->cfg.mutants & RAFT_MUTANT_HW_COUNTS_OBSERVER))
            v[n++] = r->observers[i].end_offset;
        counted += removed;
    }
    for (int i = 1; i < n; i++) /* descending insertion sort */
        for (int j = i; j > 0 && v[j] > v[j - 1]; j--) {
            int64_t t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    int64_t candidate = v[counted / 2]; /* the majority's offset */
    if (!(r->cfg.mutants & RAFT_MUTANT_HW_ANY_EPOCH) && candidate <= r->epoch_start_offset)
        return; /* nothing of this epoch is committed yet */
    if (candidate <= r->high_watermark)
        return;
    r->leader_hw_known = true;
    raft_set_hw(r, out, candidate);
}

int raft_successors_by_progress(raft *r, int32_t *ids)
{
    const raft_peer *p[RAFT_VOTERS_MAX];
    int n = 0;
    for (int i = 0; i < r->voter_count; i++)
        if (r->voters[i].id != r->cfg.node_id)
            p[n++] = &r->voters[i];
    for (int i = 1; i < n; i++) /* most caught up first, stable */
        for (int j = i; j > 0 && p[j]->end_offset > p[j - 1]->end_offset; j--) {
            const raft_peer *t = p[j];
            p[j] = p[j - 1];
            p[j - 1] = t;
        }
    for (int i = 0; i < n; i++)
        ids[i] = p[i]->id;
    return n;
}

static bool check_quorum(raft *r, raft_output *out)
{
    if (r->now_ms < r->check_quorum_deadline_ms)
        return true;
    int64_t t[RAFT_VOTERS_MAX];
    int n = 0;
    for (int i = 0; i < r->voter_count; i++)
        t[n++] = r->voters[i].id == r->cfg.node_id ? r->now_ms : r->voters[i].last_fetch_ms;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && t[j] > t[j - 1]; j--) {
            int64_t x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
    int64_t latest_majority = t[raft_majority(r) - 1];
    if (latest_majority >= 0 && latest_majority + r->cfg.fetch_timeout_ms > r->now_ms) {
        r->check_quorum_deadline_ms = latest_majority + r->cfg.fetch_timeout_ms;
        return true;
    }
    int32_t succ[RAFT_VOTERS_MAX];
    int k = raft_successors_by_progress(r, succ);
    raft_become_resigned(r, out, succ, k, "");
    raft_out_reason(out, "resigned in epoch %d: no fetch from a majority within %u ms",
                    r->q.epoch, r->cfg.fetch_timeout_ms);
    return false;
}

void raft_poll_leader(raft *r, raft_output *out)
{
    if (!check_quorum(r, out))
        return;
    if (!r->is_voter && raft_voters_committed(r)) {
        /* It removed itself (KIP-853): it leads until that change is
         * committed, then hands over (RemoveVoterHandler, requestResign). */
        int32_t succ[RAFT_VOTERS_MAX];
        int k = raft_successors_by_progress(r, succ);
        raft_become_resigned(r, out, succ, k, "removed from the voters");
        return;
    }
    for (int i = 0; i < r->voter_count; i++) {
        raft_peer *p = &r->voters[i];
        if (p->id == r->cfg.node_id || p->begin_acked)
            continue;
        raft_msg m = {.type = RAFT_MSG_BEGIN_EPOCH_REQUEST};
        m.u.begin_epoch_request.leader_epoch = r->q.epoch;
        m.u.begin_epoch_request.leader_id = r->cfg.node_id;
        m.u.begin_epoch_request.voter_directory_id = raft_peer_dir(r, p->id);
        raft_request(r, out, p, &m);
    }
    raft_wake(out, r->check_quorum_deadline_ms);
}

void raft_poll_resigned(raft *r, raft_output *out)
{
    bool all_acked = true;
    for (int i = 0; i < r->voter_count; i++) {
        raft_peer *p = &r->voters[i];
        if (p->id == r->cfg.node_id || p->end_acked)
            continue;
        all_acked = false;
        raft_msg m = {.type = RAFT_MSG_END_EPOCH_REQUEST};
        raft_end_epoch_request *e = &m.u.end_epoch_request;
        e->leader_epoch = r->q.epoch;
        e->leader_id = r->cfg.node_id;
        for (int k = 0; k < r->successor_count; k++)
            e->preferred_successors[k] = r->successors[k];
        e->preferred_count = r->successor_count;
        raft_request(r, out, p, &m);
    }
    if (r->shutting_down) {
        if (all_acked)
            r->shutdown_done = true;
        return; /* no new election from a node on its way out */
    }
    /* A leader that removed itself (KIP-853) stands for nothing: once the
     * voters have its EndQuorumEpoch it looks for the new leader as an
     * observer at once, rather than naming itself leader to clients for
     * an election timeout. */
    if (r->now_ms >= r->election_deadline_ms || (!r->is_voter && all_acked)) {
        if (r->is_voter)
            raft_start_election(r, out, "election timeout after resigning");
        else /* removed itself (KIP-853): an observer looking for the leader */
            raft_become_unattached(r, out, r->q.epoch, "resigned, not a voter");
        return;
    }
    raft_wake(out, r->election_deadline_ms);
}

void raft_on_client_append(raft *r, const raft_event *ev, raft_output *out)
{
    if (r->role != RAFT_ROLE_LEADER) {
        out->append_error = KAFKA_NOT_LEADER_OR_FOLLOWER;
        return;
    }
    if (!ev->append.records || ev->append.len == 0 || ev->append.offset_count <= 0) {
        out->append_error = KAFKA_INVALID_REQUEST;
        return;
    }
    raft_action *a = raft_out_push(out, RAFT_ACTION_APPEND);
    if (!a) {
        out->append_error = KAFKA_REQUEST_TIMED_OUT;
        return;
    }
    a->append.records = ev->append.records;
    a->append.len = ev->append.len;
    a->append.base_offset = r->end_offset;
    a->append.epoch = r->q.epoch;
    out->append_base_offset = r->end_offset;
    r->end_offset += ev->append.offset_count;
}

void raft_on_shutdown(raft *r, raft_output *out)
{
    if (r->shutting_down)
        return;
    r->shutting_down = true;
    if (r->role != RAFT_ROLE_LEADER) {
        r->shutdown_done = true;
        return;
    }
    int32_t succ[RAFT_VOTERS_MAX];
    int k = raft_successors_by_progress(r, succ);
    raft_become_resigned(r, out, succ, k, "graceful shutdown");
    r->shutdown_deadline_ms = r->now_ms + r->cfg.request_timeout_ms;
    if (k == 0)
        r->shutdown_done = true;
}

/* Takes a Begin/EndQuorumEpoch response as the answer to the request in
 * flight to p, setting *acked or backing off. Ignored (false) when it cannot
 * be that answer: with no request in flight it is a duplicate or a late one,
 * and a success from an older epoch is stale (a voter that accepts moves to
 * our epoch first). */
static bool take_epoch_answer(raft *r, raft_peer *p, const raft_epoch_response *e,
                              enum raft_msg_type type, bool *acked)
{
    bool failed = e->error != KAFKA_NONE || e->partition_error != KAFKA_NONE;
    if ((!failed && e->leader_epoch != r->q.epoch) || !raft_request_done(r, p, type))
        return false;
    if (failed)
        p->out.retry_at_ms = r->now_ms + r->cfg.retry_backoff_ms;
    else
        *acked = true;
    return true;
}

void raft_on_begin_epoch_response(raft *r, const raft_msg *m, raft_output *out)
{
    const raft_epoch_response *e = &m->u.begin_epoch_response;
    raft_peer *p = raft_voter(r, m->from);
    if (!p)
        return;
    if (raft_observe_leader(r, out, e->leader_id, e->leader_epoch))
        return;
    if (r->role == RAFT_ROLE_LEADER)
        take_epoch_answer(r, p, e, RAFT_MSG_BEGIN_EPOCH_RESPONSE, &p->begin_acked);
}

void raft_on_end_epoch_response(raft *r, const raft_msg *m, raft_output *out)
{
    const raft_epoch_response *e = &m->u.end_epoch_response;
    raft_peer *p = raft_voter(r, m->from);
    if (!p)
        return;
    if (raft_observe_leader(r, out, e->leader_id, e->leader_epoch))
        return;
    if (r->role == RAFT_ROLE_RESIGNED)
        take_epoch_answer(r, p, e, RAFT_MSG_END_EPOCH_RESPONSE, &p->end_acked);
}

void raft_poll_shutdown(raft *r, raft_output *out)
{
    if (!r->shutting_down || r->shutdown_done)
        return;
    if (r->role != RAFT_ROLE_RESIGNED || r->now_ms >= r->shutdown_deadline_ms)
        r->shutdown_done = true;
    else
        raft_wake(out, r->shutdown_deadline_ms);
}
