/* ConsumerGroupDescribe (KIP-848, API 69): each group id, DESCRIBE on the
 * group permitting, through the coordinator's gate and
 * group_consumer_describe(): state, epochs, assignor and members with their
 * current and target assignments (topics by id and name). A classic group or
 * none is GROUP_ID_NOT_FOUND with Kafka's message: the admin client then
 * asks DescribeGroups. */
#include <string.h>

#include "group_handlers.h"
#include "kq/group_consumer.h"
#include "kq/wire_consumer_group_describe.h"

#define NULL_SLICE ((kq_slice){NULL, -1})

static kq_slice cstr_or_null(const char *s)
{
    return s ? kq_slice_cstr(s) : NULL_SLICE;
}

/* The coordinator's partitions of some topics in wire form; false: out of
 * memory. */
static bool topics_to_wire(handler *h, const group_topic_partitions *in, int n,
                           wire_cgd_assignment *out)
{
    wire_cgd_topic_partitions *t = kq_arena_alloc(&h->arena, sizeof(*t) * (size_t)(n ? n : 1));
    if (!t)
        return false;
    for (int i = 0; i < n; i++) {
        memcpy(t[i].topic_id.bytes, in[i].topic_id, sizeof t[i].topic_id.bytes);
        t[i].topic_name = kq_slice_cstr(in[i].topic_name ? in[i].topic_name : "");
        t[i].partitions = (int32_t *)in[i].partitions;
        t[i].partition_count = in[i].partition_count;
    }
    *out = (wire_cgd_assignment){t, n};
    return true;
}

static bool member_to_wire(handler *h, const group_consumer_member_view *mv, wire_cgd_member *m)
{
    int ns = mv->subscribed_topic_count > 0 ? mv->subscribed_topic_count : 0;
    kq_slice *names = kq_arena_alloc(&h->arena, sizeof(*names) * (size_t)(ns ? ns : 1));
    if (!names)
        return false;
    for (int i = 0; i < ns; i++)
        names[i] = kq_slice_cstr(mv->subscribed_topic_names[i]);
    *m = (wire_cgd_member){
        .member_id = kq_slice_cstr(mv->member_id),
        .instance_id = cstr_or_null(mv->instance_id),
        .rack_id = cstr_or_null(mv->rack_id),
        .member_epoch = mv->member_epoch,
        .client_id = kq_slice_cstr(mv->client_id ? mv->client_id : ""),
        .client_host = kq_slice_cstr(mv->client_host ? mv->client_host : ""),
        .subscribed_topic_names = names,
        .subscribed_topic_count = ns,
        .subscribed_topic_regex = cstr_or_null(mv->subscribed_topic_regex),
        .member_type = mv->member_type};
    return topics_to_wire(h, mv->assignment, mv->assignment_count, &m->assignment) &&
           topics_to_wire(h, mv->target_assignment, mv->target_assignment_count,
                          &m->target_assignment);
}

/* One group's description; false when memory runs out. */
static bool describe_one(handler *h, handler_request *req, kq_slice id, wire_cgd_group *out)
{
    *out = (wire_cgd_group){.group_id = id, .error_message = NULL_SLICE,
                            .group_state = kq_slice_cstr(""), .assignor_name = kq_slice_cstr(""),
                            .authorized_operations = INT32_MIN};
    const char *group_id = NULL, *message = NULL;
    if (!handler_authorized(h, req->slot, HANDLER_OP_DESCRIBE, "ConsumerGroupDescribe"))
        out->error_code = KAFKA_GROUP_AUTHORIZATION_FAILED;
    else if (!groups_cstr(h, id, &group_id) || !group_id || !group_id[0])
        out->error_code = KAFKA_INVALID_GROUP_ID;
    else
        out->error_code = groups_gate(h);
    if (out->error_code != KAFKA_NONE)
        return true;
    group_consumer_summary s;
    out->error_code = (int16_t)group_consumer_describe(h->groups->coord, group_id, &s, &message);
    if (out->error_code != KAFKA_NONE) {
        out->error_message = cstr_or_null(message);
        return true;
    }
    out->group_state = kq_slice_cstr(group_consumer_state_name(s.state));
    out->group_epoch = s.group_epoch;
    out->assignment_epoch = s.assignment_epoch;
    out->assignor_name = kq_slice_cstr(s.assignor_name ? s.assignor_name : "");
    int n = s.member_count > 0 ? s.member_count : 0;
    out->members = kq_arena_alloc(&h->arena, sizeof(*out->members) * (size_t)(n ? n : 1));
    if (!out->members)
        return false;
    group_consumer_member_view mv;
    for (int i = 0; i < n && group_consumer_member_at(h->groups->coord, group_id, i, &mv); i++) {
        if (!member_to_wire(h, &mv, &out->members[i]))
            return false;
        out->member_count++;
    }
    return true;
}

void handle_consumer_group_describe(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_consumer_group_describe_request body;
    if (wire_consumer_group_describe_request_decode(r, v, &h->arena, &body) != 0) {
        groups_malformed(h, req, "ConsumerGroupDescribe");
        return;
    }
    int n = body.group_count > 0 ? body.group_count : 0;
    wire_consumer_group_describe_response resp = {0};
    resp.groups = kq_arena_alloc(&h->arena, sizeof(*resp.groups) * (size_t)(n ? n : 1));
    bool ok = resp.groups != NULL;
    for (int i = 0; ok && i < n; i++)
        ok = describe_one(h, req, body.group_ids[i], &resp.groups[i]);
    if (!ok) {
        h->svc.reply_close(h->svc.ctx, req->slot, "out of memory");
        return;
    }
    resp.group_count = n;
    handler_begin_response(h, &req->header);
    wire_consumer_group_describe_response_encode(&h->out, v, &resp);
    handler_finish_response(h, req->slot);
}
