/* Peer traffic: the core's requests encoded by the handlers and queued on
 * the transport, their answers decoded back into RECEIVE events, and client
 * requests relayed to the leader. A request's tag says which: odd tags are
 * the core's RPCs (message type and API version), even ones a relay slot. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec_peer.h"
#include "kq/assert.h"
#include "kq/kafka_errors.h"
#include "kq/log_line.h"

static uint64_t raft_tag(enum raft_msg_type type, int16_t version)
{
    return ((uint64_t)type << 17) | ((uint64_t)(uint16_t)version << 1) | 1u;
}
bool exec_tag_is_forward(uint64_t tag)
{
    return (tag & 1u) == 0;
}

static int32_t exec_next_correlation_id(kq_exec *x)
{
    int32_t corr = x->peers->next_correlation_id;
    x->peers->next_correlation_id = corr == INT32_MAX ? 1 : corr + 1;
    return corr;
}

/* A failed send becomes a SEND_FAILED follow-up. The core addresses the
 * voters in force, each with a slot; a node without one (a leader learned
 * of before the set naming it) takes a bounded side set, and when that is
 * full the core's request timeout stands in. */
static void exec_send_failed(kq_exec *x, const raft_msg *msg)
{
    exec_peers *p = x->peers;
    int i = exec_peer_index(p, msg->to);
    if (i >= 0) {
        p->slots[i].send_failed |= 1u << msg->type;
        return;
    }
    int free_at = -1;
    for (int k = 0; k < EXEC_PEERS_UNKNOWN_FAILED_MAX; k++) {
        if (p->unknown_failed[k].types != 0 && p->unknown_failed[k].node_id == msg->to) {
            p->unknown_failed[k].types |= 1u << msg->type;
            return;
        }
        if (p->unknown_failed[k].types == 0 && free_at < 0)
            free_at = k;
    }
    if (free_at >= 0) {
        p->unknown_failed[free_at].node_id = msg->to;
        p->unknown_failed[free_at].types = 1u << msg->type;
    }
}

void exec_send(kq_exec *x, const raft_msg *msg)
{
    if (msg->token != 0) {
        handler_send_raft_response(x->handler, msg);
        return;
    }
    uint8_t *data = NULL;
    size_t len = 0;
    int16_t version = 0;
    int32_t corr = exec_next_correlation_id(x);
    if (msg->to == x->cfg.node_id || exec_peer_index(x->peers, msg->to) < 0 ||
        !handler_encode_raft_request(x->handler, msg, corr, &data, &len, &version)) {
        exec_send_failed(x, msg);
        return;
    }
    bool ok = x->env.peer_send(x->env.ctx, msg->to, corr, data, len, raft_tag(msg->type, version));
    free(data);
    if (!ok)
        exec_send_failed(x, msg);
}

/* Whether a line about peer slot i and code may go out now: once per peer
 * and code per EXEC_PEER_ERROR_LOG_MS (issue 22 item 5), so a peer that
 * answers every request with the same error is named, not repeated. */
static bool peer_error_due(kq_exec *x, int i, int16_t code)
{
    exec_peer_slot *s = &x->peers->slots[i];
    int64_t now = exec_now(x);
    int k, oldest = 0;
    for (k = 0; k < EXEC_PEER_ERROR_CODES_MAX; k++) {
        if (!s->error_logged[k].used || s->error_logged[k].code == code)
            break;
        if (s->error_logged[k].logged_ms < s->error_logged[oldest].logged_ms)
            oldest = k;
    }
    if (k == EXEC_PEER_ERROR_CODES_MAX)
        k = oldest; /* a new code: it takes the oldest one's place */
    else if (s->error_logged[k].used && now - s->error_logged[k].logged_ms < EXEC_PEER_ERROR_LOG_MS)
        return false;
    s->error_logged[k].used = true;
    s->error_logged[k].code = code;
    s->error_logged[k].logged_ms = now;
    return true;
}

static const char *msg_name(enum raft_msg_type t)
{
    switch (t) {
    case RAFT_MSG_VOTE_REQUEST: case RAFT_MSG_VOTE_RESPONSE: return "Vote";
    case RAFT_MSG_BEGIN_EPOCH_REQUEST: case RAFT_MSG_BEGIN_EPOCH_RESPONSE: return "BeginQuorumEpoch";
    case RAFT_MSG_END_EPOCH_REQUEST: case RAFT_MSG_END_EPOCH_RESPONSE: return "EndQuorumEpoch";
    case RAFT_MSG_FETCH_REQUEST: case RAFT_MSG_FETCH_RESPONSE: return "Fetch";
    case RAFT_MSG_FETCH_SNAPSHOT_REQUEST: case RAFT_MSG_FETCH_SNAPSHOT_RESPONSE: return "FetchSnapshot";
    default: return "request";
    }
}

/* A peer's error, top-level (INVALID_REQUEST, CLUSTER_AUTHORIZATION_FAILED,
 * UNSUPPORTED_VERSION, INCONSISTENT_CLUSTER_ID: its configuration differs
 * from ours) or for the partition (an election's FENCED_LEADER_EPOCH, a
 * voter set's INVALID_VOTER_KEY), named with the peer and the request. */
static void exec_note_peer_error(kq_exec *x, int32_t node_id, const raft_msg *m)
{
    int16_t err = 0, part = 0;
    switch (m->type) {
    case RAFT_MSG_VOTE_RESPONSE:
        err = m->u.vote_response.error, part = m->u.vote_response.partition_error;
        break;
    case RAFT_MSG_BEGIN_EPOCH_RESPONSE:
        err = m->u.begin_epoch_response.error, part = m->u.begin_epoch_response.partition_error;
        break;
    case RAFT_MSG_END_EPOCH_RESPONSE:
        err = m->u.end_epoch_response.error, part = m->u.end_epoch_response.partition_error;
        break;
    case RAFT_MSG_FETCH_RESPONSE:
        err = m->u.fetch_response.error, part = m->u.fetch_response.partition_error;
        break;
    case RAFT_MSG_FETCH_SNAPSHOT_RESPONSE:
        err = m->u.fetch_snapshot_response.error,
        part = m->u.fetch_snapshot_response.partition_error;
        break;
    default: break;
    }
    int i = exec_peer_index(x->peers, node_id);
    if (i < 0)
        return;
    if (err != KAFKA_NONE && peer_error_due(x, i, err))
        log_line("node %d: peer %d answers our %s with %s (%d); check its configuration "
                 "(cluster.id, quorum.topic.name, voters, version)", x->cfg.node_id, node_id,
                 msg_name(m->type), kafka_error_name(err), err);
    else if (err == KAFKA_NONE && part != KAFKA_NONE && peer_error_due(x, i, part))
        log_line("node %d: peer %d answers our %s with %s (%d) for the partition "
                 "(logged once per peer and code per %d s)", x->cfg.node_id, node_id,
                 msg_name(m->type), kafka_error_name(part), part, EXEC_PEER_ERROR_LOG_MS / 1000);
}

void exec_raft_response(kq_exec *x, int32_t node_id, uint64_t tag, const uint8_t *frame,
                        size_t len, raft_event *ev, bool *peers_changed)
{
    enum raft_msg_type type = (enum raft_msg_type)(tag >> 17);
    int16_t version = (int16_t)((tag >> 1) & 0xffff);
    *ev = (raft_event){.type = RAFT_EVENT_RECEIVE};
    handler_endpoint leader;
    if (!frame || !handler_decode_raft_response(x->handler, type, version, frame, len, &ev->msg,
                                              &leader)) {
        int i = exec_peer_index(x->peers, node_id);
        if (frame && i >= 0 && peer_error_due(x, i, KAFKA_NONE))
            log_line("node %d: peer %d's answer to our %s v%d cannot be read (%zu bytes); "
                     "treated as a failed request (logged once per peer per %d s)",
                     x->cfg.node_id, node_id, msg_name(type), version, len,
                     EXEC_PEER_ERROR_LOG_MS / 1000);
        memset(&ev->msg, 0, sizeof(ev->msg));
        ev->type = RAFT_EVENT_SEND_FAILED;
        ev->msg.type = type;
    }
    ev->msg.from = node_id;
    ev->msg.to = ev->type == RAFT_EVENT_SEND_FAILED ? node_id : x->cfg.node_id;
    if (ev->type == RAFT_EVENT_RECEIVE)
        exec_note_peer_error(x, node_id, &ev->msg);
    *peers_changed = ev->type == RAFT_EVENT_RECEIVE && leader.node_id >= 0 &&
                     exec_peers_learn(x, &leader);
}

/* ---- relays (DescribeQuorum from a follower to the leader) */

void exec_forward(kq_exec *x, void *slot, handler_forward *f)
{
    int idx = -1;
    for (int i = 0; i < EXEC_FORWARDS_MAX && idx < 0; i++)
        if (!x->peers->forwards[i].in_use)
            idx = i;
    bool ok = false;
    if (idx >= 0 && exec_peer_index(x->peers, f->leader_id) >= 0) {
        exec_relay *e = &x->peers->forwards[idx];
        e->generation = ++x->peers->forward_generation;
        uint64_t tag = ((uint64_t)e->generation << 8) | ((uint64_t)idx << 1);
        int32_t corr = exec_next_correlation_id(x);
        handler_forward_set_correlation_id(f, corr); /* ours replaces the client's */
        ok = x->env.peer_send(x->env.ctx, f->leader_id, corr, f->frame, f->len, tag);
        if (ok) {
            e->in_use = true;
            e->slot = slot;
            e->f = *f;
            e->f.frame = NULL;
        }
    }
    free(f->frame);
    f->frame = NULL;
    if (!ok)
        handler_forward_answer(x->handler, slot, f, NULL, 0);
}

void exec_forward_response(kq_exec *x, uint64_t tag, const uint8_t *frame, size_t len)
{
    uint32_t idx = (uint32_t)((tag >> 1) & 0x7f);
    if (idx >= EXEC_FORWARDS_MAX)
        return;
    exec_relay *e = &x->peers->forwards[idx];
    if (!e->in_use || e->generation != (uint32_t)(tag >> 8))
        return; /* the transport answers each request once; a stale tag is a bug there */
    e->in_use = false;
    handler_forward_answer(x->handler, e->slot, &e->f, frame, len);
}
