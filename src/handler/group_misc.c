/* Heartbeat, LeaveGroup and DescribeGroups: answered at once from the
 * coordinator's state (a leave may also answer other members' waiting
 * joins). */
#include <stdio.h>
#include <string.h>

#include "group_handlers.h"
#include "kq/wire_describe_groups.h"
#include "kq/wire_heartbeat.h"
#include "kq/wire_leave_group.h"

/* Checks common to the single-group APIs; KAFKA_NONE: the coordinator may
 * be asked about *group_id. */
static int16_t group_check(handler *h, handler_request *req, kq_slice id, const char *what,
                           const char **group_id)
{
    if (!handler_authorized(h, req->slot, HANDLER_OP_CONSUME, what))
        return KAFKA_GROUP_AUTHORIZATION_FAILED;
    if (!groups_cstr(h, id, group_id) || !*group_id)
        return KAFKA_INVALID_REQUEST;
    if (!(*group_id)[0])
        return KAFKA_INVALID_GROUP_ID;
    return groups_gate(h);
}

void handle_heartbeat(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_heartbeat_request body;
    if (wire_heartbeat_request_decode(r, v, &h->arena, &body) != 0) {
        groups_malformed(h, req, "Heartbeat");
        return;
    }
    const char *group_id = NULL, *member_id = NULL, *instance_id = NULL;
    int16_t error = group_check(h, req, body.group_id, "Heartbeat", &group_id);
    if (error == KAFKA_NONE && (!groups_cstr(h, body.member_id, &member_id) ||
                                !groups_cstr(h, body.group_instance_id, &instance_id)))
        error = KAFKA_INVALID_REQUEST;
    if (error == KAFKA_NONE)
        error = (int16_t)group_heartbeat(h->groups->coord, group_id, member_id ? member_id : "",
                                         instance_id, body.generation_id,
                                         h->svc.now_ms(h->svc.ctx));
    wire_heartbeat_response resp = {.error_code = error};
    handler_begin_response(h, &req->header);
    wire_heartbeat_response_encode(&h->out, v, &resp);
    handler_finish_response(h, req->slot);
}

/* The members leaving: v0-2 name one by member id, v3+ a batch. */
static group_leave_member *leave_members(handler *h, int16_t v,
                                         const wire_leave_group_request *body, int *count)
{
    int n = v < 3 ? 1 : (body->member_count > 0 ? body->member_count : 0);
    *count = n;
    group_leave_member *m = kq_arena_alloc(&h->arena, sizeof(*m) * (size_t)(n ? n : 1));
    if (!m)
        return NULL;
    for (int i = 0; i < n; i++) {
        kq_slice mid = v < 3 ? body->member_id : body->members[i].member_id;
        kq_slice iid = v < 3 ? (kq_slice){NULL, -1} : body->members[i].group_instance_id;
        if (!groups_cstr(h, mid, &m[i].member_id) || !groups_cstr(h, iid, &m[i].instance_id))
            return NULL;
        m[i].member_id = m[i].member_id ? m[i].member_id : "";
    }
    return m;
}

/* A held LeaveGroup answer that cannot be sent (issue 24). */
static void leave_error(handler *h, void *slot, const wire_request_header *hdr, int16_t error)
{
    wire_leave_group_response resp = {.error_code = error};
    handler_begin_response(h, hdr);
    wire_leave_group_response_encode(&h->out, hdr->api_version, &resp);
    handler_finish_response(h, slot);
}

static void leave_respond(handler *h, handler_request *req, const wire_leave_group_request *body,
                          int16_t error, const group_leave_member *m, int count)
{
    int16_t v = req->header.api_version;
    wire_leave_group_response resp = {.error_code = error};
    if (v >= 3 && error == KAFKA_NONE && count > 0) {
        resp.members = kq_arena_alloc(&h->arena, sizeof(*resp.members) * (size_t)count);
        for (int i = 0; resp.members && i < count; i++) {
            resp.members[i] = (wire_leave_group_member_response){
                .member_id = body->members[i].member_id,
                .group_instance_id = body->members[i].group_instance_id,
                .error_code = (int16_t)m[i].error};
            resp.member_count++;
        }
    }
    if (v < 3 && error == KAFKA_NONE && count == 1)
        resp.error_code = (int16_t)m[0].error;
    handler_begin_response(h, &req->header);
    wire_leave_group_response_encode(&h->out, v, &resp);
    groups_finish(h, req->slot, &req->header, leave_error); /* held: issue 24 */
}

void handle_leave_group(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_leave_group_request body;
    if (wire_leave_group_request_decode(r, v, &h->arena, &body) != 0) {
        groups_malformed(h, req, "LeaveGroup");
        return;
    }
    const char *group_id = NULL;
    int count = 0;
    group_leave_member *m = NULL;
    int16_t error = group_check(h, req, body.group_id, "LeaveGroup", &group_id);
    if (error == KAFKA_NONE && !(m = leave_members(h, v, &body, &count)))
        error = KAFKA_INVALID_REQUEST;
    const group_output *out = NULL;
    if (error == KAFKA_NONE)
        error = (int16_t)group_leave(h->groups->coord, group_id, m, count,
                                     h->svc.now_ms(h->svc.ctx), &out);
    /* Our answer first, then those the leave completed; ours waits for the
     * member's tombstone (issue 24). */
    h->groups->hold_seq = error == KAFKA_NONE ? groups_persist_seq(h, group_id) : 0;
    leave_respond(h, req, &body, error, m, count);
    h->groups->hold_seq = 0;
    if (out)
        groups_deliver(h, out);
    groups_persist_now(h);
}

/* One group's description; a group known only by its offsets is Empty,
 * one not known at all Dead (Kafka's answers). */
static void describe_one(handler *h, handler_request *req, kq_slice id,
                         wire_describe_groups_group *out)
{
    *out = (wire_describe_groups_group){.group_id = id, .error_message = {NULL, -1},
                                        .group_state = kq_slice_cstr("Dead"),
                                        .protocol_type = kq_slice_cstr(""),
                                        .protocol_data = kq_slice_cstr(""),
                                        .authorized_operations = INT32_MIN};
    const char *group_id = NULL;
    if (!handler_authorized(h, req->slot, HANDLER_OP_CONSUME, "DescribeGroups"))
        out->error_code = KAFKA_GROUP_AUTHORIZATION_FAILED;
    else if (!groups_cstr(h, id, &group_id) || !group_id)
        out->error_code = KAFKA_INVALID_GROUP_ID;
    else
        out->error_code = groups_gate(h);
    group_summary s;
    if (out->error_code != KAFKA_NONE)
        return;
    enum group_type type;
    if (group_type_of(h->groups->coord, group_id, &type) && type == GROUP_TYPE_CONSUMER) {
        /* Kafka's describeGroups reads classic groups only: a KIP-848 group
         * is Dead to v0-5 and GROUP_ID_NOT_FOUND to v6. */
        if (req->header.api_version >= 6) {
            size_t len = strlen(group_id) + 40;
            char *msg = kq_arena_alloc(&h->arena, len);
            out->error_code = KAFKA_GROUP_ID_NOT_FOUND;
            if (msg) {
                snprintf(msg, len, "Group %s is not a classic group.", group_id);
                out->error_message = kq_slice_cstr(msg);
            }
        }
        return;
    }
    if (group_describe(h->groups->coord, group_id, &s) != KAFKA_NONE) {
        if (h->svc.offsets && groups_id_storable(group_id) &&
            group_offsets_has_group(h->svc.offsets, group_id))
            out->group_state = kq_slice_cstr("Empty");
        return;
    }
    out->group_state = kq_slice_cstr(group_state_name(s.state));
    out->protocol_type = kq_slice_cstr(s.protocol_type);
    out->protocol_data = kq_slice_cstr(s.protocol_name);
    wire_describe_groups_member *m =
        kq_arena_alloc(&h->arena, sizeof(*m) * (size_t)(s.member_count ? s.member_count : 1));
    group_member_view mv;
    for (int i = 0; m && i < s.member_count && group_member_at(h->groups->coord, group_id, i, &mv);
         i++) {
        m[i] = (wire_describe_groups_member){
            .member_id = kq_slice_cstr(mv.member_id),
            .group_instance_id = mv.instance_id ? kq_slice_cstr(mv.instance_id)
                                                : (kq_slice){NULL, -1},
            .client_id = kq_slice_cstr(mv.client_id),
            .client_host = kq_slice_cstr(mv.client_host),
            .member_metadata = {mv.metadata ? mv.metadata : (const uint8_t *)"",
                                (int32_t)mv.metadata_len},
            .member_assignment = {mv.assignment ? mv.assignment : (const uint8_t *)"",
                                  (int32_t)mv.assignment_len}};
        out->member_count++;
    }
    out->members = m;
}

void handle_describe_groups(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_describe_groups_request body;
    if (wire_describe_groups_request_decode(r, v, &h->arena, &body) != 0) {
        groups_malformed(h, req, "DescribeGroups");
        return;
    }
    int n = body.group_count > 0 ? body.group_count : 0;
    wire_describe_groups_response resp = {0};
    resp.groups = kq_arena_alloc(&h->arena, sizeof(*resp.groups) * (size_t)(n ? n : 1));
    if (!resp.groups) {
        h->svc.reply_close(h->svc.ctx, req->slot, "too many groups");
        return;
    }
    for (int i = 0; i < n; i++)
        describe_one(h, req, body.groups[i], &resp.groups[i]);
    resp.group_count = n;
    handler_begin_response(h, &req->header);
    wire_describe_groups_response_encode(&h->out, v, &resp);
    handler_finish_response(h, req->slot);
}
