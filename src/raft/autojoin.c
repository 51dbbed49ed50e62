/* Auto-join (controller.quorum.auto.join.enable, KIP-853 and KIP-1186): a
 * node outside the voter set of a kraft.version 1 quorum that follows a
 * leader asks it, every two fetch timeouts, to add it (AddRaftVoter with
 * AckWhenCommitted false), or first to remove an entry that has its id
 * with another directory id (its replaced disk), as Kafka's
 * pollFollowerAsObserver. The leader decides (reconfig.c): it adds the
 * node once it has caught up. One request at a time, on its own slot (the
 * fetch slot keeps fetching). */
#include <string.h>

#include "kq/kafka_errors.h"
#include "raft_internal.h"

void raft_auto_join_failed(raft *r)
{
    r->join_inflight = false;
}

void raft_on_auto_join_answer(raft *r, const raft_msg *m)
{
    if (!r->join_inflight || m->from != r->q.leader_id)
        return; /* a late or stray answer */
    r->join_inflight = false;
    int16_t e = m->u.voter_change_response.error;
    /* This leader knows us (Kafka: hasUpdatedLeader), or cannot take the
     * request at all: Kafka's TestRaftServer advertises UpdateRaftVoter but
     * answers UNKNOWN_SERVER_ERROR and logs an ERROR for each (issue 22).
     * Kafka's own follower asks again every period; ours once per epoch. */
    if (r->join_is_update &&
        (e == KAFKA_NONE || e == KAFKA_UNSUPPORTED_VERSION || e == KAFKA_UNKNOWN_SERVER_ERROR))
        r->updated_epoch = r->q.epoch;
    r->join_next_ms = r->now_ms + 2 * (int64_t)r->cfg.fetch_timeout_ms;
}

/* The request to send now, if any: remove a stale entry of our id, else
 * add ourselves. False: nothing to ask (already a voter). */
static bool join_request(raft *r, raft_msg *m)
{
    const kq_voter_set *set = raft_voters(r);
    int i = kq_voter_set_find(set, r->cfg.node_id);
    if (i >= 0 && memcmp(&set->voters[i].directory_id, &r->cfg.directory_id,
                         sizeof(kq_uuid)) != 0) {
        m->type = RAFT_MSG_REMOVE_VOTER_REQUEST;
        m->u.remove_voter_request.voter_id = r->cfg.node_id;
        m->u.remove_voter_request.directory_id = set->voters[i].directory_id;
        return true;
    }
    if (i >= 0)
        return false;
    m->type = RAFT_MSG_ADD_VOTER_REQUEST;
    m->u.add_voter_request.voter = r->cfg.local;
    m->u.add_voter_request.voter.id = r->cfg.node_id;
    m->u.add_voter_request.voter.directory_id = r->cfg.directory_id;
    m->u.add_voter_request.ack_when_committed = false;
    m->u.add_voter_request.timeout_ms = (int32_t)r->cfg.request_timeout_ms;
    return true;
}

void raft_poll_auto_join(raft *r, raft_output *out)
{
    if (r->role != RAFT_ROLE_FOLLOWER || r->shutting_down)
        return;
    raft_msg m = {.from = r->cfg.node_id, .to = r->q.leader_id};
    bool update = raft_upgrade_update_request(r, &m); /* kraft.version 0 voters */
    bool join = !update && r->cfg.auto_join && !r->is_voter && raft_kraft_version(r) >= 1 &&
                raft_dir_set(&r->cfg.directory_id) && join_request(r, &m);
    if (!update && !join)
        return;
    if (r->join_inflight && r->now_ms >= r->join_deadline_ms)
        r->join_inflight = false; /* no answer: try again when due */
    if (r->join_inflight || r->now_ms < r->join_next_ms || !raft_out_has_room(r, out)) {
        raft_wake(out, r->join_inflight ? r->join_deadline_ms : r->join_next_ms);
        return;
    }
    raft_out_send(out, &m);
    r->join_inflight = true;
    r->join_is_update = update;
    r->join_deadline_ms = r->now_ms + r->cfg.request_timeout_ms;
    r->join_next_ms = r->now_ms + 2 * (int64_t)r->cfg.fetch_timeout_ms;
    raft_wake(out, r->join_deadline_ms);
}
