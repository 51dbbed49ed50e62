/* AddRaftVoter, RemoveRaftVoter and UpdateRaftVoter (KIP-853): decoded,
 * passed through the quorum gate (quorum_auth.c; Kafka: ALTER on the
 * cluster for Add/Remove, CLUSTER_ACTION for Update ->
 * CLUSTER_AUTHORIZATION_FAILED) and the cluster id (a non-null id not ours
 * -> INCONSISTENT_CLUSTER_ID), then handed to the core as a raft_msg: the
 * leader decides and answers (src/raft/reconfig.c, Kafka's order and
 * codes), and raft_voters_encode_response writes the answer. The voter's
 * endpoint is the one on the listener the request came on (Kafka: the
 * default controller listener). */
#include <stdio.h>
#include <string.h>

#include "handler_internal.h"
#include "kq/assert.h"
#include "kq/uuid.h"
#include "kq/wire_add_raft_voter.h"
#include "kq/wire_remove_raft_voter.h"
#include "kq/wire_update_raft_voter.h"

#define VOTERS_MESSAGE_BYTES_MAX 256

/* An answer: its code and Kafka's message (empty: null). */
typedef struct voters_answer {
    int16_t error;
    char message[VOTERS_MESSAGE_BYTES_MAX];
} voters_answer;

static kq_slice message_slice(const voters_answer *a)
{
    return a->message[0] ? kq_slice_cstr(a->message) : (kq_slice){NULL, -1};
}

/* The gate and the cluster id, common to the three. Kafka lets a null
 * cluster id pass here (its admin tool sends none unless told). */
static bool refused_before_raft(handler *h, handler_request *req, kq_slice cluster_id,
                                voters_answer *a)
{
    if (!quorum_identity_allowed(h, req, -1, true)) {
        a->error = KAFKA_CLUSTER_AUTHORIZATION_FAILED;
        return true;
    }
    if (cluster_id.len >= 0 && !kq_slice_eq_cstr(cluster_id, h->svc.cluster_id)) {
        a->error = KAFKA_INCONSISTENT_CLUSTER_ID;
        snprintf(a->message, sizeof a->message,
                 "The given id \"%.*s\" doesn't match the cluster id \"%s\"",
                 (int)(cluster_id.len > 64 ? 64 : cluster_id.len),
                 cluster_id.len > 0 ? (const char *)cluster_id.ptr : "", h->svc.cluster_id);
        return true;
    }
    return false;
}

/* The request's endpoint on the listener it came on (Kafka: the default
 * controller listener), or the first when that is not known. NULL: none. */
static const wire_raft_listener *pick_listener(handler *h, const handler_request *req,
                                               const wire_raft_listener *l, int32_t n)
{
    handler_conn conn;
    handler_get_conn(h, req->slot, &conn);
    const char *name = conn.quorum_listener ? conn.listener_name : NULL;
    for (int32_t i = 0; name && i < n; i++)
        if (kq_slice_eq_cstr(l[i].name, name))
            return &l[i];
    return n > 0 && !name ? &l[0] : NULL;
}

/* The voter the request names, as the core takes it (kq/voter_set.h). An
 * endpoint that does not fit leaves host empty: refused by the core. */
static void to_voter(kq_voter *v, int32_t id, kq_uuid dir, const wire_raft_listener *l,
                     int16_t kraft_min, int16_t kraft_max)
{
    *v = (kq_voter){.id = id, .directory_id = dir, .kraft_version_min = kraft_min,
                    .kraft_version_max = kraft_max};
    if (!l || l->name.len < 1 || l->host.len < 1 || l->name.len > KQ_VOTER_NAME_BYTES_MAX ||
        l->host.len > KQ_VOTER_NAME_BYTES_MAX || l->port == 0)
        return;
    memcpy(v->listener, l->name.ptr, (size_t)l->name.len);
    memcpy(v->host, l->host.ptr, (size_t)l->host.len);
    v->port = l->port;
}

void handle_add_raft_voter(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_add_raft_voter_request body;
    if (wire_add_raft_voter_request_decode(r, v, &h->arena, &body) != 0) {
        h->svc.reply_close(h->svc.ctx, req->slot, "malformed AddRaftVoter request");
        return;
    }
    voters_answer a = {0};
    if (!refused_before_raft(h, req, body.cluster_id, &a)) {
        raft_msg m = {.type = RAFT_MSG_ADD_VOTER_REQUEST, .from = -1};
        raft_add_voter_request *q = &m.u.add_voter_request;
        to_voter(&q->voter, body.voter_id, body.voter_directory_id,
                 pick_listener(h, req, body.listeners, body.listener_count), 0, 1);
        q->ack_when_committed = body.ack_when_committed;
        q->timeout_ms = body.timeout_ms;
        step_request(h, req, &m, false);
        return;
    }
    wire_add_raft_voter_response resp = {.error_code = a.error, .error_message = message_slice(&a)};
    handler_begin_response(h, &req->header);
    wire_add_raft_voter_response_encode(&h->out, v, &resp);
    handler_finish_response(h, req->slot);
}

void handle_remove_raft_voter(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_remove_raft_voter_request body;
    if (wire_remove_raft_voter_request_decode(r, v, &h->arena, &body) != 0) {
        h->svc.reply_close(h->svc.ctx, req->slot, "malformed RemoveRaftVoter request");
        return;
    }
    voters_answer a = {0};
    if (!refused_before_raft(h, req, body.cluster_id, &a)) {
        raft_msg m = {.type = RAFT_MSG_REMOVE_VOTER_REQUEST, .from = -1};
        m.u.remove_voter_request.voter_id = body.voter_id;
        m.u.remove_voter_request.directory_id = body.voter_directory_id;
        step_request(h, req, &m, false);
        return;
    }
    wire_remove_raft_voter_response resp = {.error_code = a.error,
                                            .error_message = message_slice(&a)};
    handler_begin_response(h, &req->header);
    wire_remove_raft_voter_response_encode(&h->out, v, &resp);
    handler_finish_response(h, req->slot);
}

/* The response's CurrentLeader: the leader as this node knows it, with its
 * endpoint when it is a configured voter. */
static void fill_current_leader(const handler *h, const raft_status *st,
                                wire_update_raft_voter_response *resp)
{
    wire_update_raft_voter_current_leader *cl = &resp->current_leader;
    *cl = (wire_update_raft_voter_current_leader){.leader_id = st->leader_id,
                                                   .leader_epoch = st->epoch,
                                                   .host = kq_slice_cstr("")};
    for (int i = 0; i < h->svc.node_count; i++)
        if (st->leader_id >= 0 && h->svc.nodes[i].node_id == st->leader_id) {
            cl->host = kq_slice_cstr(h->svc.nodes[i].host);
            cl->port = h->svc.nodes[i].port;
        }
    resp->has_current_leader = st->leader_id >= 0 || st->epoch >= 0;
}

void handle_update_raft_voter(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_update_raft_voter_request body;
    if (wire_update_raft_voter_request_decode(r, v, &h->arena, &body) != 0) {
        h->svc.reply_close(h->svc.ctx, req->slot, "malformed UpdateRaftVoter request");
        return;
    }
    voters_answer a = {0};
    if (!refused_before_raft(h, req, body.cluster_id, &a)) {
        raft_msg m = {.type = RAFT_MSG_UPDATE_VOTER_REQUEST, .from = -1};
        raft_update_voter_request *q = &m.u.update_voter_request;
        q->current_leader_epoch = body.current_leader_epoch;
        const wire_update_raft_voter_kraft_version *k = &body.kraft_version_feature;
        to_voter(&q->voter, body.voter_id, body.voter_directory_id,
                 pick_listener(h, req, body.listeners, body.listener_count),
                 k->min_supported_version, k->max_supported_version);
        step_request(h, req, &m, false);
        return;
    }
    wire_update_raft_voter_response resp = {.error_code = a.error};
    raft_status st;
    raft_get_status(h->svc.raft, &st);
    if (a.error != KAFKA_CLUSTER_AUTHORIZATION_FAILED)
        fill_current_leader(h, &st, &resp);
    handler_begin_response(h, &req->header);
    wire_update_raft_voter_response_encode(&h->out, v, &resp);
    handler_finish_response(h, req->slot);
}

/* The core's answer to one of the three (raft_rpc.c routes it here). */
void raft_voters_encode_response(handler *h, const raft_pending *p, const raft_msg *msg)
{
    const raft_voter_change_response *m = &msg->u.voter_change_response;
    kq_slice message = m->message ? kq_slice_cstr(m->message) : (kq_slice){NULL, -1};
    if (p->api_key == WIRE_API_UPDATE_FEATURES) {
        update_features_encode_response(h, p, msg);
    } else if (p->api_key == WIRE_API_ADD_RAFT_VOTER) {
        wire_add_raft_voter_response resp = {.error_code = m->error, .error_message = message};
        wire_add_raft_voter_response_encode(&h->out, p->api_version, &resp);
    } else if (p->api_key == WIRE_API_REMOVE_RAFT_VOTER) {
        wire_remove_raft_voter_response resp = {.error_code = m->error,
                                                .error_message = message};
        wire_remove_raft_voter_response_encode(&h->out, p->api_version, &resp);
    } else {
        KQ_ASSERT(p->api_key == WIRE_API_UPDATE_RAFT_VOTER);
        wire_update_raft_voter_response resp = {.error_code = m->error};
        raft_status st;
        raft_get_status(h->svc.raft, &st);
        fill_current_leader(h, &st, &resp);
        wire_update_raft_voter_response_encode(&h->out, p->api_version, &resp);
    }
}

/* Auto-join (src/raft/autojoin.c): this node asks the leader to add it
 * (AddRaftVoter v1, AckWhenCommitted false, as Kafka's observer) or to
 * remove its id's stale directory (RemoveRaftVoter v0). */
void raft_voters_encode_request(handler *h, kq_writer *w, wire_request_header *hdr,
                                const raft_msg *msg)
{
    kq_slice cluster = kq_slice_cstr(h->svc.cluster_id);
    if (msg->type == RAFT_MSG_ADD_VOTER_REQUEST) {
        const raft_add_voter_request *m = &msg->u.add_voter_request;
        hdr->api_key = WIRE_API_ADD_RAFT_VOTER;
        hdr->api_version = 1;
        wire_request_header_encode(w, hdr);
        wire_raft_listener l = {.name = kq_slice_cstr(m->voter.listener),
                                .host = kq_slice_cstr(m->voter.host), .port = m->voter.port};
        wire_add_raft_voter_request req = {
            .cluster_id = cluster, .timeout_ms = m->timeout_ms, .voter_id = m->voter.id,
            .voter_directory_id = m->voter.directory_id, .listeners = &l, .listener_count = 1,
            .ack_when_committed = m->ack_when_committed};
        wire_add_raft_voter_request_encode(w, hdr->api_version, &req);
        return;
    }
    if (msg->type == RAFT_MSG_UPDATE_VOTER_REQUEST) {
        const raft_update_voter_request *u = &msg->u.update_voter_request;
        hdr->api_key = WIRE_API_UPDATE_RAFT_VOTER;
        hdr->api_version = 0;
        wire_request_header_encode(w, hdr);
        wire_raft_listener l = {.name = kq_slice_cstr(u->voter.listener),
                                .host = kq_slice_cstr(u->voter.host), .port = u->voter.port};
        wire_update_raft_voter_request req = {
            .cluster_id = cluster, .current_leader_epoch = u->current_leader_epoch,
            .voter_id = u->voter.id, .voter_directory_id = u->voter.directory_id,
            .listeners = &l, .listener_count = 1,
            .kraft_version_feature = {u->voter.kraft_version_min, u->voter.kraft_version_max}};
        wire_update_raft_voter_request_encode(w, hdr->api_version, &req);
        return;
    }
    const raft_remove_voter_request *m = &msg->u.remove_voter_request;
    hdr->api_key = WIRE_API_REMOVE_RAFT_VOTER;
    hdr->api_version = 0;
    wire_request_header_encode(w, hdr);
    wire_remove_raft_voter_request req = {.cluster_id = cluster, .voter_id = m->voter_id,
                                          .voter_directory_id = m->directory_id};
    wire_remove_raft_voter_request_encode(w, hdr->api_version, &req);
}

bool raft_voters_decode_response(handler *h, kq_reader *r, enum raft_msg_type request_type,
                                 int16_t api_version, raft_msg *out)
{
    int16_t error;
    if (request_type == RAFT_MSG_UPDATE_VOTER_REQUEST) {
        wire_update_raft_voter_response b;
        if (wire_update_raft_voter_response_decode(r, api_version, &h->arena, &b) != 0)
            return false;
        error = b.error_code;
    } else if (request_type == RAFT_MSG_ADD_VOTER_REQUEST) {
        wire_add_raft_voter_response b;
        if (wire_add_raft_voter_response_decode(r, api_version, &h->arena, &b) != 0)
            return false;
        error = b.error_code;
    } else {
        wire_remove_raft_voter_response b;
        if (wire_remove_raft_voter_response_decode(r, api_version, &h->arena, &b) != 0)
            return false;
        error = b.error_code;
    }
    out->type = RAFT_MSG_VOTER_CHANGE_RESPONSE;
    out->u.voter_change_response.error = error;
    out->u.voter_change_response.message = NULL; /* the core keeps only static text */
    return true;
}
