/* Elections: answering Vote requests, counting votes, candidate timers and
 * the randomized exponential backoff between failed elections. */
#include "kq/kafka_errors.h"
#include "raft_internal.h"

static bool log_up_to_date(const raft *r, const raft_vote_request *req)
{
    if (r->cfg.mutants & RAFT_MUTANT_VOTE_NO_LOG_CHECK)
        return true;
    int32_t my_epoch = raft_ec_last_epoch(&r->ec);
    if (req->last_epoch != my_epoch)
        return req->last_epoch > my_epoch;
    return req->last_epoch_end_offset >= r->end_offset; /* full log, not flushed */
}

static bool may_grant(const raft *r, const raft_vote_request *req)
{
    switch (r->role) {
    case RAFT_ROLE_UNATTACHED:
        if (r->q.voted_id >= 0 && r->q.voted_id != req->candidate_id)
            return false;
        return log_up_to_date(r, req);
    case RAFT_ROLE_VOTED:
        return r->q.voted_id == req->candidate_id; /* a retried request */
    default:
        return false; /* candidate (voted for itself), leader, follower, resigned */
    }
}

void raft_on_vote_request(raft *r, const raft_msg *m, raft_output *out)
{
    const raft_vote_request *req = &m->u.vote_request;
    raft_msg resp = {.type = RAFT_MSG_VOTE_RESPONSE, .from = r->cfg.node_id,
                     .to = m->from, .token = m->token};
    raft_vote_response *v = &resp.u.vote_response;
    v->error = KAFKA_NONE;
    v->partition_error = KAFKA_NONE;

    if (req->candidate_epoch < r->q.epoch) {
        v->partition_error = KAFKA_FENCED_LEADER_EPOCH;
    } else if (!r->is_voter || !raft_voter(r, req->candidate_id) ||
               req->candidate_id == r->cfg.node_id) {
        v->partition_error = KAFKA_INCONSISTENT_VOTER_SET;
    } else {
        if (req->candidate_epoch > r->q.epoch)
            raft_become_unattached(r, out, req->candidate_epoch,
                                   "vote request in a newer epoch");
        if (may_grant(r, req)) {
            v->vote_granted = true;
            if (r->role != RAFT_ROLE_VOTED)
                raft_become_voted(r, out, r->q.epoch, req->candidate_id);
        }
    }
    v->leader_id = r->q.leader_id;
    v->leader_epoch = r->q.epoch;
    raft_out_send(out, &resp);
}

/* Randomized exponential backoff before the next election, on Kafka's fixed
 * 100 ms base. Unlike Kafka it never draws 0: a candidate that just lost gives
 * the winner's BeginQuorumEpoch a chance to arrive before bumping the epoch. */
#define RAFT_ELECTION_BACKOFF_BASE_MS 100u

static void start_backoff(raft *r)
{
    int shift = r->election_retries < 1 ? 0 : r->election_retries - 1;
    if (shift > 20)
        shift = 20;
    uint64_t span = (uint64_t)RAFT_ELECTION_BACKOFF_BASE_MS * ((2u << shift) - 1);
    /* Draw below the cap rather than clamping to it: two candidates that
     * both reached the cap would otherwise retry in lockstep forever. */
    uint64_t room = r->cfg.election_backoff_max_ms > RAFT_ELECTION_BACKOFF_BASE_MS
                        ? r->cfg.election_backoff_max_ms - RAFT_ELECTION_BACKOFF_BASE_MS + 1
                        : 1;
    if (span > room)
        span = room;
    uint64_t wait = RAFT_ELECTION_BACKOFF_BASE_MS + raft_prng_below(r, (uint32_t)span);
    if (wait > r->cfg.election_backoff_max_ms)
        wait = r->cfg.election_backoff_max_ms;
    r->backing_off = true;
    r->backoff_deadline_ms = r->now_ms + (int64_t)wait;
}

void raft_on_vote_response(raft *r, const raft_msg *m, raft_output *out)
{
    const raft_vote_response *v = &m->u.vote_response;
    raft_peer *peer = raft_voter(r, m->from);
    if (!peer)
        return;
    if (raft_observe_leader(r, out, v->leader_id, v->leader_epoch))
        return; /* news of a newer epoch or leader, whatever it answers */
    bool failed = v->error != KAFKA_NONE || v->partition_error != KAFKA_NONE;
    /* Only the answer to our request in flight counts: a voter that granted
     * or refused moved to our epoch first, so an older one is stale. */
    if (r->role != RAFT_ROLE_CANDIDATE || (!failed && v->leader_epoch != r->q.epoch) ||
        !raft_request_done(r, peer, RAFT_MSG_VOTE_RESPONSE))
        return;
    if (failed) {
        peer->out.retry_at_ms = r->now_ms + r->cfg.retry_backoff_ms;
        return;
    }
    peer->vote_responded = true;
    peer->vote_granted = v->vote_granted;

    int granted = 0, rejected = 0;
    for (int i = 0; i < r->voter_count; i++) {
        if (r->voters[i].vote_granted)
            granted++;
        else if (r->voters[i].vote_responded)
            rejected++;
    }
    if (granted >= raft_majority(r))
        raft_become_leader(r, out);
    else if (rejected > r->voter_count - raft_majority(r) && !r->backing_off)
        start_backoff(r);
}

void raft_poll_candidate(raft *r, raft_output *out)
{
    if (r->backing_off) {
        if (r->now_ms >= r->backoff_deadline_ms) {
            raft_become_candidate(r, out, "election backoff expired");
            return;
        }
        raft_wake(out, r->backoff_deadline_ms);
        return;
    }
    if (r->now_ms >= r->election_deadline_ms) {
        start_backoff(r);
        raft_wake(out, r->backoff_deadline_ms);
        return;
    }
    for (int i = 0; i < r->voter_count; i++) {
        raft_peer *p = &r->voters[i];
        if (p->id == r->cfg.node_id || p->vote_responded)
            continue;
        raft_msg m = {.type = RAFT_MSG_VOTE_REQUEST};
        m.u.vote_request = (raft_vote_request){
            .candidate_epoch = r->q.epoch,
            .candidate_id = r->cfg.node_id,
            .last_epoch = raft_ec_last_epoch(&r->ec),
            .last_epoch_end_offset = r->end_offset,
        };
        raft_request(r, out, p, &m);
    }
    raft_wake(out, r->election_deadline_ms);
}

void raft_poll_unattached(raft *r, raft_output *out)
{
    if (!r->is_voter) {
        raft_maybe_fetch(r, out); /* observers look for the leader */
        return;
    }
    if (r->now_ms >= r->election_deadline_ms) {
        raft_become_candidate(r, out, "election timeout");
        return;
    }
    raft_wake(out, r->election_deadline_ms);
}
