/* JoinGroup and SyncGroup: the request becomes a coordinator call with a
 * token; the answer (now, or from a later call or tick) is encoded for the
 * version the member asked in. */
#include <string.h>

#include "group_handlers.h"
#include "kq/wire_join_group.h"
#include "kq/wire_sync_group.h"

/* v7+ name the protocol nullable: null when there is none. */
static kq_slice maybe_null(const char *s, bool nullable)
{
    if (nullable && (!s || !s[0]))
        return (kq_slice){NULL, -1};
    return kq_slice_cstr(s ? s : "");
}

static void answer_join(handler *h, const group_pending *p, const group_answer *a)
{
    wire_join_group_response resp = {
        .error_code = (int16_t)a->error,
        .generation_id = a->error == KAFKA_NONE ? a->generation : -1,
        .protocol_type = maybe_null(a->protocol_type, p->version >= 7),
        .protocol_name = maybe_null(a->protocol_name, p->version >= 7),
        .leader = kq_slice_cstr(a->leader_id),
        .member_id = kq_slice_cstr(a->member_id),
    };
    if (a->error == KAFKA_NONE && a->is_leader && h->groups->coord) {
        int cap = KQ_GROUP_MAX_SIZE_DEFAULT;
        wire_join_group_member *m = kq_arena_alloc(&h->arena, sizeof(*m) * (size_t)cap);
        group_member_view v;
        for (int i = 0; m && i < cap && group_join_member_at(h->groups->coord, p->group_id, i, &v);
             i++) {
            m[i] = (wire_join_group_member){
                .member_id = kq_slice_cstr(v.member_id),
                .group_instance_id = maybe_null(v.instance_id, true),
                .metadata = {v.metadata, (int32_t)v.metadata_len}};
            resp.member_count++;
        }
        resp.members = m;
    }
    wire_request_header hdr = {.api_key = WIRE_API_JOIN_GROUP, .api_version = p->version,
                               .correlation_id = p->correlation_id};
    handler_begin_response(h, &hdr);
    wire_join_group_response_encode(&h->out, p->version, &resp);
    groups_finish(h, p->slot, &hdr, groups_join_error); /* held: issue 24 */
}

static void answer_sync(handler *h, const group_pending *p, const group_answer *a)
{
    wire_sync_group_response resp = {
        .error_code = (int16_t)a->error,
        .protocol_type = maybe_null(a->protocol_type, true),
        .protocol_name = maybe_null(a->protocol_name, true),
        .assignment = {a->assignment, (int32_t)a->assignment_len},
    };
    if (a->error != KAFKA_NONE || !a->assignment)
        resp.assignment = kq_slice_cstr("");
    wire_request_header hdr = {.api_key = WIRE_API_SYNC_GROUP, .api_version = p->version,
                               .correlation_id = p->correlation_id};
    handler_begin_response(h, &hdr);
    wire_sync_group_response_encode(&h->out, p->version, &resp);
    groups_finish(h, p->slot, &hdr, groups_sync_error); /* held: issue 24 */
}

void groups_answer(handler *h, const group_pending *p, const group_answer *a)
{
    /* The arena belongs to the request being handled: an answer given from
     * a tick or for another slot uses it only while encoding. */
    if (p->kind == GROUP_ANSWER_JOIN)
        answer_join(h, p, a);
    else
        answer_sync(h, p, a);
}

void groups_answer_error(handler *h, void *slot, const wire_request_header *hdr,
                         enum group_answer_kind kind, int16_t error)
{
    group_pending p = {.kind = kind, .slot = slot, .version = hdr->api_version,
                       .correlation_id = hdr->correlation_id};
    group_answer a = {.kind = kind, .error = (enum kafka_error)error, .generation = -1};
    groups_answer(h, &p, &a);
}

/* The protocols as the coordinator takes them (names NUL-terminated). */
static bool join_protocols(handler *h, const wire_join_group_request *body,
                           group_protocol **out)
{
    *out = NULL;
    if (body->protocol_count <= 0)
        return true;
    group_protocol *ps = kq_arena_alloc(&h->arena, sizeof(*ps) * (size_t)body->protocol_count);
    if (!ps)
        return false;
    for (int32_t i = 0; i < body->protocol_count; i++) {
        const wire_join_group_protocol *w = &body->protocols[i];
        if (!groups_cstr(h, w->name, &ps[i].name) || !ps[i].name)
            return false;
        ps[i].metadata = w->metadata.ptr;
        ps[i].metadata_len = w->metadata.len > 0 ? (size_t)w->metadata.len : 0;
    }
    *out = ps;
    return true;
}

/* The strings of a JoinGroup; false when one cannot be a C string. */
static bool join_strings(handler *h, handler_request *req, const wire_join_group_request *body,
                         group_join_request *jr)
{
    const char *client_id = NULL;
    group_protocol *ps = NULL;
    if (!groups_cstr(h, body->group_id, &jr->group_id) ||
        !groups_cstr(h, body->member_id, &jr->member_id) ||
        !groups_cstr(h, body->group_instance_id, &jr->instance_id) ||
        !groups_cstr(h, body->protocol_type, &jr->protocol_type) ||
        !groups_cstr(h, req->header.client_id, &client_id) || !join_protocols(h, body, &ps))
        return false;
    jr->group_id = jr->group_id ? jr->group_id : "";
    jr->member_id = jr->member_id ? jr->member_id : "";
    jr->protocol_type = jr->protocol_type ? jr->protocol_type : "";
    jr->client_id = client_id ? client_id : "";
    jr->client_host = h->svc.slot_peer(h->svc.ctx, req->slot);
    jr->protocols = ps;
    jr->protocol_count = body->protocol_count > 0 ? body->protocol_count : 0;
    return true;
}

void handle_join_group(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_join_group_request body;
    if (wire_join_group_request_decode(r, v, &h->arena, &body) != 0) {
        groups_malformed(h, req, "JoinGroup");
        return;
    }
    group_join_request jr = {.session_timeout_ms = body.session_timeout_ms,
                             .rebalance_timeout_ms = v == 0 ? body.session_timeout_ms
                                                            : body.rebalance_timeout_ms,
                             .require_known_member_id = v >= 4};
    int16_t error = KAFKA_NONE;
    if (!handler_authorized(h, req->slot, HANDLER_OP_CONSUME, "JoinGroup"))
        error = KAFKA_GROUP_AUTHORIZATION_FAILED;
    else if (!join_strings(h, req, &body, &jr))
        error = KAFKA_INVALID_REQUEST;
    else if (!jr.group_id[0])
        error = KAFKA_INVALID_GROUP_ID;
    else if (strlen(jr.group_id) >= KQ_GROUP_NAME_BYTES_MAX)
        error = KAFKA_INVALID_REQUEST; /* as the coordinator answers a long name */
    else
        error = groups_gate(h);
    if (error == KAFKA_NONE && (jr.token = groups_pending_add(h, req, GROUP_ANSWER_JOIN,
                                                              jr.group_id)) == 0)
        error = KAFKA_COORDINATOR_NOT_AVAILABLE;
    if (error != KAFKA_NONE) {
        groups_answer_error(h, req->slot, &req->header, GROUP_ANSWER_JOIN, error);
        return;
    }
    groups_deliver(h, group_join(h->groups->coord, &jr, h->svc.now_ms(h->svc.ctx)));
    groups_persist_now(h);
}

/* The leader's assignments as the coordinator takes them. */
static bool sync_assignments(handler *h, const wire_sync_group_request *body,
                             group_assignment **out)
{
    *out = NULL;
    if (body->assignment_count <= 0)
        return true;
    group_assignment *as =
        kq_arena_alloc(&h->arena, sizeof(*as) * (size_t)body->assignment_count);
    if (!as)
        return false;
    for (int32_t i = 0; i < body->assignment_count; i++) {
        const wire_sync_group_assignment *w = &body->assignments[i];
        if (!groups_cstr(h, w->member_id, &as[i].member_id) || !as[i].member_id)
            return false;
        as[i].assignment = w->assignment.ptr;
        as[i].assignment_len = w->assignment.len > 0 ? (size_t)w->assignment.len : 0;
    }
    *out = as;
    return true;
}

static bool sync_strings(handler *h, const wire_sync_group_request *body, group_sync_request *sr)
{
    group_assignment *as = NULL;
    if (!groups_cstr(h, body->group_id, &sr->group_id) ||
        !groups_cstr(h, body->member_id, &sr->member_id) ||
        !groups_cstr(h, body->group_instance_id, &sr->instance_id) ||
        !groups_cstr(h, body->protocol_type, &sr->protocol_type) ||
        !groups_cstr(h, body->protocol_name, &sr->protocol_name) ||
        !sync_assignments(h, body, &as))
        return false;
    sr->group_id = sr->group_id ? sr->group_id : "";
    sr->member_id = sr->member_id ? sr->member_id : "";
    sr->assignments = as;
    sr->assignment_count = body->assignment_count > 0 ? body->assignment_count : 0;
    return true;
}

void handle_sync_group(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_sync_group_request body;
    if (wire_sync_group_request_decode(r, v, &h->arena, &body) != 0) {
        groups_malformed(h, req, "SyncGroup");
        return;
    }
    group_sync_request sr = {.generation = body.generation_id};
    int16_t error = KAFKA_NONE;
    if (!handler_authorized(h, req->slot, HANDLER_OP_CONSUME, "SyncGroup"))
        error = KAFKA_GROUP_AUTHORIZATION_FAILED;
    else if (!sync_strings(h, &body, &sr))
        error = KAFKA_INVALID_REQUEST;
    else if (!sr.group_id[0])
        error = KAFKA_INVALID_GROUP_ID;
    else if (strlen(sr.group_id) >= KQ_GROUP_NAME_BYTES_MAX)
        error = KAFKA_INVALID_REQUEST;
    else
        error = groups_gate(h);
    if (error == KAFKA_NONE && (sr.token = groups_pending_add(h, req, GROUP_ANSWER_SYNC,
                                                              sr.group_id)) == 0)
        error = KAFKA_COORDINATOR_NOT_AVAILABLE;
    if (error != KAFKA_NONE) {
        groups_answer_error(h, req->slot, &req->header, GROUP_ANSWER_SYNC, error);
        return;
    }
    groups_deliver(h, group_sync(h->groups->coord, &sr, h->svc.now_ms(h->svc.ctx)));
    groups_persist_now(h);
}
