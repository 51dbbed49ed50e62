/* Role transitions and the durable quorum state.
 *
 * Transition table (E = current epoch; "store" = STORE_QSTATE is emitted
 * before anything that depends on the new state):
 *
 *   from          on                                        to
 *   any           request/response with epoch > E           unattached(E') or follower(E', L)
 *                 (a pre-vote request never moves the epoch)
 *   unattached    election timeout (voter)                  prospective(E)
 *   unattached    vote granted                              voted(E)
 *   unattached    BeginQuorumEpoch(E) / response naming L   follower(E, L)
 *   voted         election timeout                          prospective(E)
 *   voted         BeginQuorumEpoch(E)                       follower(E, L)
 *   prospective   majority of pre-votes                     candidate(E+1)
 *   prospective   election timeout / rejected by majority   prospective, backing off; then a new round
 *   prospective   pre-vote rejected naming its leader L     follower(E, L)
 *   prospective   BeginQuorumEpoch(E) / response naming     follower(E, L)
 *                 a leader other than the one it kept
 *   prospective   vote granted (real Vote in E)             voted(E)
 *   candidate     majority of votes                         leader(E)
 *   candidate     election timeout / rejected by majority   candidate, backing off; then prospective(E)
 *   candidate     BeginQuorumEpoch(E)                       follower(E, L)
 *   leader        check quorum fails / graceful shutdown    resigned(E)
 *   follower      fetch timeout (voter, randomized)         prospective(E)
 *   follower      fetch timeout after EndQuorumEpoch        prospective(E) (see follower.c)
 *   follower      fetch timeout (observer)                  unattached(E)
 *   follower      EndQuorumEpoch from L                     follower with a shortened fetch timeout
 *   resigned      election timeout (voter, not shutting down) prospective(E)
 *
 * Pre-vote (KIP-996): a prospective node keeps its durable state (epoch,
 * vote, the leader it followed) and sends Vote requests with pre_vote set for
 * E+1; only a majority of grants makes it a candidate. A voter grants a
 * pre-vote iff the candidate's log is at least as up to date as its own and it
 * is not a leader or a follower that heard from its leader within the fetch
 * timeout; answering changes nothing. So a voter cut off from the quorum stays
 * in its epoch and cannot force a healthy leader out when it comes back. A
 * single voter skips the pre-vote (it is its own majority).
 *
 * A voter's fetch timeout is quorum.fetch.timeout.ms plus a random jitter
 * (raft_fetch_timeout): followers whose timers one leader response reset
 * together would otherwise stand in the same epoch together and, with a voter
 * down, split the vote and wait out a whole election timeout.
 *
 * Restart: leader_id == self -> resigned(E); leader_id other -> follower;
 * voted_id == self -> candidate(E); voted_id other -> voted; else unattached.
 * Observers (not in the voter set) never become candidates or vote. */
#include <stdio.h>
#include <string.h>

#include "raft_internal.h"


int raft_majority(const raft *r)
{
    return r->voter_count / 2 + 1;
}

raft_peer *raft_voter(raft *r, int32_t id)
{
    for (int i = 0; i < r->voter_count; i++)
        if (r->voters[i].id == id)
            return &r->voters[i];
    return NULL;
}

int64_t raft_election_timeout(raft *r)
{
    return (int64_t)r->cfg.election_timeout_ms +
           raft_prng_below(r, r->cfg.election_timeout_ms);
}

int64_t raft_fetch_timeout(raft *r)
{
    if (!r->is_voter)
        return r->cfg.fetch_timeout_ms; /* never a candidate: nothing to split */
    return (int64_t)r->cfg.fetch_timeout_ms +
           raft_prng_below(r, r->cfg.election_timeout_ms / 2);
}

static void transition(raft *r, raft_output *out, enum raft_role role, int32_t epoch,
                       int32_t leader, int32_t voted)
{
    raft_quorum_state nq = r->q; /* directory ids stay */
    nq.epoch = epoch;
    nq.voted_id = voted;
    nq.leader_id = leader;
    bool changed = nq.epoch != r->q.epoch || nq.voted_id != r->q.voted_id ||
                   nq.leader_id != r->q.leader_id;
    if (nq.epoch != r->q.epoch || nq.leader_id != r->q.leader_id)
        r->leader_contact_ms = -1;
    if (nq.epoch != r->q.epoch || nq.leader_id != r->q.leader_id || role != RAFT_ROLE_FOLLOWER)
        raft_snapshot_drop(r, out); /* a transfer is from one leader in one epoch */
    r->q = nq;
    r->role = role;
    if (changed || r->qstate_pending) {
        raft_action *a = raft_out_push(out, RAFT_ACTION_STORE_QSTATE);
        if (a)
            a->qstate = r->q;
        r->qstate_pending = false;
    }
    raft_peers_reset(r);
    r->backing_off = false;
    r->fetch_target = -1;
    r->fetch_verified_end = 0;
    r->end_epoch_shortened = false;
    out->role_changed = true;
}

void raft_become_unattached(raft *r, raft_output *out, int32_t epoch, const char *why)
{
    int32_t voted = epoch == r->q.epoch ? r->q.voted_id : -1;
    /* As Kafka 4.0: a node already waiting for an election keeps its timer, so
     * a stream of hopeless candidates cannot postpone its own candidacy. */
    bool keep = r->role == RAFT_ROLE_UNATTACHED || r->role == RAFT_ROLE_VOTED ||
                r->role == RAFT_ROLE_CANDIDATE || r->role == RAFT_ROLE_PROSPECTIVE;
    transition(r, out, RAFT_ROLE_UNATTACHED, epoch, -1, voted);
    if (!keep)
        r->election_deadline_ms = r->now_ms + raft_election_timeout(r);
    raft_out_reason(out, "unattached in epoch %d: %s", epoch, why);
}

void raft_become_voted(raft *r, raft_output *out, int32_t epoch, int32_t candidate)
{
    transition(r, out, RAFT_ROLE_VOTED, epoch, -1, candidate);
    r->election_deadline_ms = r->now_ms + raft_election_timeout(r);
    raft_out_reason(out, "voted for %d in epoch %d", candidate, epoch);
}

static void grant_self(raft *r)
{
    raft_peer *self = raft_voter(r, r->cfg.node_id);
    if (self) {
        self->vote_responded = true;
        self->vote_granted = true;
    }
}

void raft_become_prospective(raft *r, raft_output *out, const char *why)
{
    /* The durable state stays as it is: no epoch bump, no vote for itself. */
    transition(r, out, RAFT_ROLE_PROSPECTIVE, r->q.epoch, r->q.leader_id, r->q.voted_id);
    r->election_retries++;
    r->election_deadline_ms = r->now_ms + raft_election_timeout(r);
    grant_self(r);
    raft_out_reason(out, "prospective in epoch %d: %s", r->q.epoch, why);
}

void raft_start_election(raft *r, raft_output *out, const char *why)
{
    if (raft_repairing(r)) {
        /* It lacks data it once held durably: it waits for a leader (whose
         * BeginQuorumEpoch or fetch answer it follows) rather than lead. */
        r->election_deadline_ms = r->now_ms + raft_election_timeout(r);
        r->fetch_deadline_ms = r->now_ms + raft_election_timeout(r);
        return;
    }
    if (raft_majority(r) <= 1)
        raft_become_candidate(r, out, why);
    else
        raft_become_prospective(r, out, why);
}

void raft_become_candidate(raft *r, raft_output *out, const char *why)
{
    int32_t epoch = r->q.epoch + 1;
    transition(r, out, RAFT_ROLE_CANDIDATE, epoch, -1, r->cfg.node_id);
    r->election_retries++;
    r->election_deadline_ms = r->now_ms + raft_election_timeout(r);
    grant_self(r);
    raft_out_reason(out, "candidate in epoch %d: %s", epoch, why);
    if (raft_majority(r) <= 1)
        raft_become_leader(r, out);
}

void raft_become_follower(raft *r, raft_output *out, int32_t epoch, int32_t leader,
                          const char *why)
{
    int32_t voted = epoch == r->q.epoch ? r->q.voted_id : -1;
    transition(r, out, RAFT_ROLE_FOLLOWER, epoch, leader, voted);
    r->election_retries = 0;
    r->fetch_deadline_ms = r->now_ms + raft_fetch_timeout(r);
    r->fetch_target = leader;
    r->leader_hw = -1;
    raft_out_reason(out, "following %d in epoch %d: %s", leader, epoch, why);
}

void raft_become_leader(raft *r, raft_output *out)
{
    /* Remember who granted before the transition clears the tallies. */
    int32_t granting[RAFT_VOTERS_MAX];
    int n = 0;
    for (int i = 0; i < r->voter_count; i++)
        if (r->voters[i].vote_granted)
            granting[n++] = r->voters[i].id;
    transition(r, out, RAFT_ROLE_LEADER, r->q.epoch, r->cfg.node_id, r->cfg.node_id);
    r->election_retries = 0;

    char list[64];
    size_t used = 0;
    list[0] = '\0';
    for (int i = 0; i < n && used < sizeof(list); i++) {
        int w = snprintf(list + used, sizeof(list) - used, "%s%d", i ? "," : "",
                         granting[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    raft_out_reason(out, "won election in epoch %d with votes from %s", r->q.epoch, list);
    for (int i = 0; i < n; i++) {
        raft_peer *p = raft_voter(r, granting[i]);
        if (p)
            p->vote_granted = true;
    }
    raft_leader_on_elected(r, out);
}

void raft_become_resigned(raft *r, raft_output *out, const int32_t *successors,
                          int successor_count, const char *why)
{
    transition(r, out, RAFT_ROLE_RESIGNED, r->q.epoch, r->cfg.node_id, r->q.voted_id);
    r->successor_count = 0;
    for (int i = 0; i < successor_count && i < RAFT_VOTERS_MAX; i++)
        r->successors[r->successor_count++] = successors[i];
    r->election_deadline_ms = r->now_ms + raft_election_timeout(r);
    raft_out_reason(out, "resigned in epoch %d: %s", r->q.epoch, why);
}

bool raft_observe_leader(raft *r, raft_output *out, int32_t leader_id, int32_t epoch)
{
    /* With the voter set in the log (KIP-853) ours may be behind: a leader
     * it does not name yet is followed all the same (we learn the set by
     * fetching from it), as Kafka does. */
    bool known = leader_id >= 0 && leader_id != r->cfg.node_id &&
                 (raft_voters_dynamic(r) || raft_voter(r, leader_id));
    if (epoch > r->q.epoch) {
        if (known)
            raft_become_follower(r, out, epoch, leader_id, "learned of a newer leader");
        else
            raft_become_unattached(r, out, epoch, "learned of a newer epoch");
        return true;
    }
    /* A prospective node kept the leader it followed: hearing that name again
     * is no news (election.c decides what a pre-vote answer naming it means). */
    bool prospective_news = r->role == RAFT_ROLE_PROSPECTIVE && leader_id != r->q.leader_id;
    if (epoch == r->q.epoch && known &&
        (r->role == RAFT_ROLE_UNATTACHED || r->role == RAFT_ROLE_VOTED ||
         r->role == RAFT_ROLE_CANDIDATE || prospective_news)) {
        raft_become_follower(r, out, epoch, leader_id, "learned the leader");
        return true;
    }
    return false;
}
