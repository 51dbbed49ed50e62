/* Elections: answering Vote requests (real and KIP-996 pre-votes), counting
 * votes and pre-votes, prospective and candidate timers and the randomized
 * exponential backoff between failed rounds. */
#include <stdio.h>
#include <string.h>

#include "kq/kafka_errors.h"
#include "raft_internal.h"

static bool log_up_to_date(const raft *r, const raft_vote_request *req)
{
    if (r->cfg.mutants & RAFT_MUTANT_VOTE_NO_LOG_CHECK)
        return true;
    int32_t my_epoch = raft_ec_last_epoch(&r->ec);
    int64_t my_end = r->end_offset; /* full log, not flushed */
    if (raft_repairing(r) && (r->repair_epoch > my_epoch ||
                              (r->repair_epoch == my_epoch && r->repair_end > my_end))) {
        my_epoch = r->repair_epoch; /* as if it still had what corruption took */
        my_end = r->repair_end;
    }
    /* A new directory (issue 20 item 6) may stand in for a wiped one that
     * acknowledged data: until it has caught up with a leader it only helps
     * elect candidates as empty as itself (a fresh cluster's first leader). */
    if (r->q.new_directory && !(r->cfg.mutants & RAFT_MUTANT_IGNORE_DIRECTORY_ID) &&
        (req->last_epoch != 0 || req->last_epoch_end_offset != 0))
        return false;
    if (req->last_epoch != my_epoch)
        return req->last_epoch > my_epoch;
    return req->last_epoch_end_offset >= my_end;
}

/* A pre-vote (KIP-996) asks, in the asker's own epoch, whether we would vote
 * for it in the next one: only the log and whether a leader is still around
 * matter, never our vote (QuorumState.unattachedOrProspectiveCanGrantVote,
 * CandidateState and ResignedState: granted iff the log is up to date;
 * LeaderState: never). A follower refuses while its leader is alive: Kafka's
 * FollowerState refuses once it has fetched from the leader in this epoch
 * (hasFetchedFromLeader) and leaves for Prospective on its fetch timeout; we
 * refuse while any leader contact (fetch answer, BeginQuorumEpoch, snapshot
 * chunk) is younger than the fetch timeout, which is as strict while Kafka's
 * follower would still be one and stricter before its first fetch. The one
 * exception: after the leader's EndQuorumEpoch (end_epoch_shortened) the
 * leader is gone by its own word, so we grant as the resigned leader does. */
static bool may_grant_pre_vote(const raft *r, const raft_vote_request *req)
{
    if (r->role == RAFT_ROLE_LEADER)
        return false;
    if (r->role == RAFT_ROLE_FOLLOWER && !r->end_epoch_shortened &&
        !(r->cfg.mutants & RAFT_MUTANT_PREVOTE_IGNORES_LEADER_CONTACT) &&
        r->leader_contact_ms >= 0 &&
        r->now_ms - r->leader_contact_ms < (int64_t)r->cfg.fetch_timeout_ms)
        return false; /* happily following a leader */
    return log_up_to_date(r, req);
}

/* KafkaRaftClient.handleVoteRequest answers INVALID_REQUEST (before any
 * state change) for a negative last offset or epoch, and for a last epoch the
 * asker cannot have: a candidate raised its epoch past its log's last one,
 * a prospective node asks in its current epoch, which its log may reach. */
static bool illegal_vote_request(const raft_vote_request *req)
{
    if (req->last_epoch < 0 || req->last_epoch_end_offset < 0)
        return true;
    return req->pre_vote ? req->last_epoch > req->candidate_epoch
                         : req->last_epoch >= req->candidate_epoch;
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
    case RAFT_ROLE_PROSPECTIVE: /* still in its epoch, with its vote and leader */
        if (r->q.voted_id >= 0)
            return r->q.voted_id == req->candidate_id;
        if (r->q.leader_id >= 0)
            return false; /* this epoch had a leader */
        return log_up_to_date(r, req);
    default:
        return false; /* candidate (voted for itself), leader, follower, resigned */
    }
}

/* The request is meant for another directory of this node id (Kafka's
 * VoterDirectoryId): one this node replaced. */
static bool names_other_directory(const raft *r, const raft_vote_request *req)
{
    return raft_dir_checks(r) && raft_dir_set(&req->voter_directory_id) &&
           memcmp(&req->voter_directory_id, &r->cfg.directory_id, sizeof(kq_uuid)) != 0;
}

/* Static voters: both must be voters. With the voter set in the log
 * (KIP-853) either side's set may be behind, so, as Kafka's
 * handleVoteRequest, the log check alone decides (a candidate counts only
 * the votes of its own set). */
static bool inconsistent_voters(raft *r, const raft_vote_request *req)
{
    if (req->candidate_id == r->cfg.node_id)
        return true;
    if (raft_voters_dynamic(r))
        return false;
    return !r->is_voter || !raft_voter(r, req->candidate_id);
}

/* A voter's Vote request also tells us its directory id (KIP-853). */
static void learn_candidate(raft *r, const raft_vote_request *req, raft_output *out)
{
    if (!raft_voter(r, req->candidate_id))
        return;
    raft_dir_learn(r, out, req->candidate_id, &req->candidate_directory_id);
    /* A voter with an empty log asks: the cluster had nothing committed
     * when this new directory joined it, so it stands in for no one
     * (a fresh cluster's first election; kq/raft.h new_directory). */
    if (req->last_epoch == 0 && req->last_epoch_end_offset == 0 &&
        req->candidate_id != r->cfg.node_id && !names_other_directory(r, req))
        raft_dir_caught_up(r, out);
}

static void decide_vote(raft *r, const raft_vote_request *req, raft_vote_response *v,
                        raft_output *out)
{
    if (raft_dir_other_key(r, &req->voter_directory_id)) {
        /* Meant for the directory this one replaced: the voter set names
         * that one, not us (KafkaRaftClient.isValidVoterKey). */
        v->partition_error = KAFKA_INVALID_VOTER_KEY;
    } else if (req->candidate_epoch < r->q.epoch) {
        v->partition_error = KAFKA_FENCED_LEADER_EPOCH; /* validateVoterOnlyRequest */
    } else if (req->candidate_id < 0) {
        v->partition_error = KAFKA_INVALID_REQUEST; /* validateVoterOnlyRequest */
    } else if (inconsistent_voters(r, req)) {
        v->partition_error = KAFKA_INCONSISTENT_VOTER_SET;
    } else if ((r->q.new_directory || raft_voters_dynamic(r)) &&
               names_other_directory(r, req)) {
        /* Meant for the directory we replaced (KafkaRaftClient's
         * isValidVoterKey): not granted, nothing changes. With the voter
         * set in the log (KIP-853) always, as Kafka: the set names its
         * voters' directories and an operator adds the new one. In static
         * mode only until caught up: then we are a full copy and a stale
         * id is only stale, nothing tells the other voters our new id, and
         * refusing them could leave no majority (docs/deviations.md). */
        v->vote_granted = false;
    } else {
        /* Any Vote in a newer epoch, a pre-vote too, moves us there first
         * (handleVoteRequest's transitionToUnattached). A prospective node
         * asks in its current epoch (buildVoteRequest), so a healthy
         * leader's epoch is never passed by a pre-vote. A pre-vote grant
         * carries the asker's old epoch: once it stands as a candidate in
         * the next one, a late grant is stale (raft_on_vote_response). */
        if (req->candidate_epoch > r->q.epoch)
            raft_become_unattached(r, out, req->candidate_epoch,
                                   req->pre_vote ? "pre-vote request in a newer epoch"
                                                 : "vote request in a newer epoch");
        if (req->pre_vote) {
            v->vote_granted = may_grant_pre_vote(r, req); /* no vote is recorded */
        } else if (may_grant(r, req)) {
            v->vote_granted = true;
            if (r->role != RAFT_ROLE_VOTED)
                raft_become_voted(r, out, r->q.epoch, req->candidate_id);
        }
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
    if (illegal_vote_request(req)) {
        v->partition_error = KAFKA_INVALID_REQUEST; /* nothing learned, nothing moves */
    } else {
        learn_candidate(r, req, out);
        decide_vote(r, req, v, out);
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

static void tally(const raft *r, int *granted, int *rejected)
{
    *granted = *rejected = 0;
    for (int i = 0; i < r->voter_count; i++) {
        if (r->voters[i].vote_granted)
            (*granted)++;
        else if (r->voters[i].vote_responded)
            (*rejected)++;
    }
}

/* A prospective node's answer to a pre-vote in flight. Its epoch may be older
 * than ours (the voter did not move for a pre-vote): the slot, cleared on
 * every transition, says whether it answers this round's request. */
static void on_pre_vote_response(raft *r, raft_peer *peer, const raft_vote_response *v,
                                 raft_output *out)
{
    if (!raft_request_done(r, peer, RAFT_MSG_VOTE_RESPONSE))
        return;
    if (v->error != KAFKA_NONE || v->partition_error != KAFKA_NONE) {
        peer->out.retry_at_ms = r->now_ms + r->cfg.retry_backoff_ms;
        return;
    }
    int32_t leader = r->q.leader_id;
    if (!v->vote_granted && v->leader_epoch == r->q.epoch && leader >= 0 &&
        v->leader_id == leader && leader != r->cfg.node_id) {
        if (r->leader_resigned_epoch == r->q.epoch) {
            /* Our leader told us it resigned; this voter has not heard yet
             * (the messages race): ask it again shortly. */
            peer->out.retry_at_ms = r->now_ms + r->cfg.retry_backoff_ms;
            return;
        }
        /* Someone still knows our leader in our epoch: go back to it. */
        char why[64];
        snprintf(why, sizeof(why), "pre-vote rejected by %d", peer->id);
        raft_become_follower(r, out, r->q.epoch, leader, why);
        return;
    }
    peer->vote_responded = true;
    peer->vote_granted = v->vote_granted;

    int granted, rejected;
    tally(r, &granted, &rejected);
    if (granted >= raft_majority(r)) {
        char list[64];
        size_t used = 0;
        list[0] = '\0';
        for (int i = 0, n = 0; i < r->voter_count && used < sizeof(list); i++) {
            if (!r->voters[i].vote_granted || r->voters[i].id == r->cfg.node_id)
                continue;
            int w = snprintf(list + used, sizeof(list) - used, "%s%d", n++ ? "," : "",
                             r->voters[i].id);
            if (w < 0)
                break;
            used += (size_t)w;
        }
        raft_become_candidate(r, out, "pre-vote granted");
        if (r->role == RAFT_ROLE_CANDIDATE)
            raft_out_reason(out, "pre-vote granted by %s: candidate in epoch %d", list,
                            r->q.epoch);
    } else if (rejected > r->voter_count - raft_majority(r) && !r->backing_off) {
        start_backoff(r);
    }
}

void raft_on_vote_response(raft *r, const raft_msg *m, raft_output *out)
{
    const raft_vote_response *v = &m->u.vote_response;
    raft_peer *peer = raft_voter(r, m->from);
    if (!peer)
        return;
    if (raft_observe_leader(r, out, v->leader_id, v->leader_epoch))
        return; /* news of a newer epoch or leader, whatever it answers */
    if (r->role == RAFT_ROLE_PROSPECTIVE) {
        on_pre_vote_response(r, peer, v, out);
        return;
    }
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

    int granted, rejected;
    tally(r, &granted, &rejected);
    if (granted >= raft_majority(r))
        raft_become_leader(r, out);
    else if (rejected > r->voter_count - raft_majority(r) && !r->backing_off)
        start_backoff(r);
}

/* Vote requests to every voter that has not answered yet: a candidate asks
 * in its new epoch, a prospective node in its current one (KIP-996,
 * KafkaRaftClient.buildVoteRequest: the epoch only rises once a majority
 * granted the pre-vote). */
static void send_votes(raft *r, raft_output *out, bool pre_vote)
{
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
            .pre_vote = pre_vote,
            .candidate_directory_id = r->cfg.directory_id,
            .voter_directory_id = raft_peer_dir(r, p->id),
        };
        raft_request(r, out, p, &m);
    }
}

void raft_poll_candidate(raft *r, raft_output *out)
{
    if (r->backing_off) {
        if (r->now_ms >= r->backoff_deadline_ms) {
            raft_start_election(r, out, "election backoff expired");
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
    send_votes(r, out, false);
    raft_wake(out, r->election_deadline_ms);
}

void raft_poll_prospective(raft *r, raft_output *out)
{
    if (r->backing_off) {
        if (r->now_ms < r->backoff_deadline_ms) {
            raft_wake(out, r->backoff_deadline_ms);
            return;
        }
        /* A new round in the same epoch; answers still in flight count for it. */
        r->backing_off = false;
        r->election_retries++;
        r->election_deadline_ms = r->now_ms + raft_election_timeout(r);
        for (int i = 0; i < r->voter_count; i++) {
            raft_peer *p = &r->voters[i];
            bool self = p->id == r->cfg.node_id;
            p->vote_responded = self;
            p->vote_granted = self;
        }
    }
    if (r->now_ms >= r->election_deadline_ms) {
        start_backoff(r);
        raft_wake(out, r->backoff_deadline_ms);
        return;
    }
    send_votes(r, out, true);
    raft_wake(out, r->election_deadline_ms);
}

void raft_poll_unattached(raft *r, raft_output *out)
{
    if (!r->is_voter) {
        raft_maybe_fetch(r, out); /* observers look for the leader */
        return;
    }
    if (r->now_ms >= r->election_deadline_ms) {
        raft_start_election(r, out, "election timeout");
        return;
    }
    raft_wake(out, r->election_deadline_ms);
}
