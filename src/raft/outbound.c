/* Outbound request slots: one request in flight per peer, a deadline after
 * which it counts as failed (messages may be lost), and a retry backoff. */
#include "raft_internal.h"

bool raft_can_request(raft *r, const raft_peer *peer, const raft_output *out)
{
    return !peer->out.inflight && r->now_ms >= peer->out.retry_at_ms &&
           raft_out_has_room(r, out);
}

bool raft_request(raft *r, raft_output *out, raft_peer *peer, raft_msg *msg)
{
    if (!raft_can_request(r, peer, out))
        return false;
    msg->from = r->cfg.node_id;
    msg->to = peer->id;
    msg->token = 0;
    raft_out_send(out, msg);
    int64_t timeout = r->cfg.request_timeout_ms;
    if (msg->type == RAFT_MSG_FETCH_REQUEST) /* the leader may hold it max_wait */
        timeout += msg->u.fetch_request.max_wait_ms;
    peer->out.inflight = true;
    peer->out.type = msg->type;
    peer->out.epoch = r->q.epoch;
    peer->out.sent_ms = r->now_ms;
    peer->out.deadline_ms = r->now_ms + timeout;
    if (msg->type == RAFT_MSG_FETCH_REQUEST) {
        peer->out.fetch_offset = msg->u.fetch_request.fetch_offset;
        peer->out.fetch_last_epoch = msg->u.fetch_request.last_fetched_epoch;
        peer->out.fetch_max_wait_ms = msg->u.fetch_request.max_wait_ms;
        peer->out.fetch_keepalive = false; /* the caller sets it */
    }
    return true;
}

bool raft_request_pending(const raft *r, const raft_peer *peer,
                          enum raft_msg_type response_type)
{
    return peer->out.inflight && peer->out.type + 1 == response_type &&
           peer->out.epoch == r->q.epoch;
}

bool raft_request_done(raft *r, raft_peer *peer, enum raft_msg_type response_type)
{
    if (!raft_request_pending(r, peer, response_type))
        return false;
    peer->out.inflight = false;
    return true;
}

void raft_request_failed(raft *r, raft_peer *peer)
{
    peer->out.inflight = false;
    peer->out.retry_at_ms = r->now_ms + r->cfg.retry_backoff_ms;
}

void raft_requests_expire(raft *r)
{
    for (int i = 0; i < raft_peer_count(r); i++) {
        raft_peer *p = raft_peer_at(r, i);
        if (p->out.inflight && r->now_ms >= p->out.deadline_ms)
            raft_request_failed(r, p);
    }
}

void raft_requests_wake(raft *r, raft_output *out)
{
    for (int i = 0; i < raft_peer_count(r); i++) {
        const raft_peer *p = raft_peer_at(r, i);
        if (p->out.inflight)
            raft_wake(out, p->out.deadline_ms);
        else if (p->out.retry_at_ms > r->now_ms)
            raft_wake(out, p->out.retry_at_ms);
    }
}

void raft_peers_reset(raft *r)
{
    for (int i = 0; i < r->voter_count; i++) {
        raft_peer *p = &r->voters[i];
        int32_t id = p->id;
        *p = (raft_peer){.id = id, .end_offset = -1, .last_fetch_ms = -1,
                         .last_caught_up_ms = -1};
    }
    r->observer_count = 0;
    /* the bootstrap servers stay (their ids are fixed), a leader goes */
    r->contact_count = r->cfg.bootstrap_count;
    for (int i = 0; i < r->contact_count; i++)
        r->contacts[i] = (raft_peer){.id = raft_bootstrap_id(i), .end_offset = -1,
                                     .last_fetch_ms = -1, .last_caught_up_ms = -1};
}

raft_peer *raft_peer_of(raft *r, int32_t id)
{
    raft_peer *p = raft_voter(r, id);
    for (int i = 0; !p && i < r->contact_count; i++)
        if (r->contacts[i].id == id)
            p = &r->contacts[i];
    return p ? p : raft_observer(r, id, false); /* a leader outside our set */
}
