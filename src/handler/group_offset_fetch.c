/* OffsetFetch: a group's committed offsets (those below the high
 * watermark, as the offsets table holds them; one in a run of control
 * batches is answered the run's end, issue 24: a caught-up consumer shows
 * lag 0). Only __cluster_metadata-0 can have one; any other partition is
 * answered offset -1, as Kafka answers a partition without a commit. v8+
 * batch groups. */
#include <string.h>

#include "group_handlers.h"
#include "kq/group_consumer.h"
#include "kq/mutants.h"
#include "kq/wire_fetch.h"
#include "kq/wire_offset_fetch.h"

static void fill_partition(handler *h, const char *group_id, bool ours, int32_t index,
                           bool require_stable, wire_offset_fetch_partition *out)
{
    *out = (wire_offset_fetch_partition){.partition_index = index, .committed_offset = -1,
                                         .committed_leader_epoch = -1,
                                         .metadata = kq_slice_cstr("")};
    const group_offsets *o = h->svc.offsets;
    if (!ours || index != 0 || !o || !groups_id_storable(group_id))
        return;
    /* KIP-447: a read_committed consumer asks for stable offsets; one that
     * an open transaction may still change is retriable (issue 23). */
    if (require_stable && group_offsets_txn_pending(o, group_id, h->svc.topic_name, 0)) {
        out->error_code = KAFKA_UNSTABLE_OFFSET_COMMIT;
        return;
    }
    group_offset e;
    bool found = (h->svc.mutants & KQ_MUTANT_OFFSETS_VISIBLE_AT_END)
        ? group_offsets_get_at_end(o, group_id, h->svc.topic_name, 0, &e)
        : group_offsets_fetch(o, group_id, h->svc.topic_name, 0, &e);
    if (!found)
        return;
    out->committed_offset = e.offset;
    out->committed_leader_epoch = e.leader_epoch;
    /* Copied: the table's strings change with the next commit. */
    out->metadata = kq_slice_cstr("");
    const char *m = e.metadata ? e.metadata : "";
    char *c = kq_arena_alloc(&h->arena, strlen(m) + 1);
    if (c) {
        memcpy(c, m, strlen(m) + 1);
        out->metadata = kq_slice_cstr(c);
    }
}

/* Topics null: every committed offset of the group (here at most one). */
typedef struct all_ctx {
    const char *topic;
    int found;
} all_ctx;

static int count_cb(void *ctx, const group_offset *e)
{
    all_ctx *c = ctx;
    if (strcmp(e->topic, c->topic) == 0 && e->partition == 0)
        c->found = 1;
    return 0;
}

static bool fill_all(handler *h, int16_t v, const char *group_id, bool stable,
                     wire_offset_fetch_topic **topics, int32_t *count)
{
    all_ctx c = {.topic = h->svc.topic_name};
    *topics = NULL;
    *count = 0;
    if (h->svc.offsets && groups_id_storable(group_id))
        group_offsets_foreach_group(h->svc.offsets, group_id, count_cb, &c);
    if (!c.found)
        return true;
    wire_offset_fetch_topic *t = kq_arena_alloc(&h->arena, sizeof(*t));
    wire_offset_fetch_partition *p = kq_arena_alloc(&h->arena, sizeof(*p));
    if (!t || !p)
        return false;
    *t = (wire_offset_fetch_topic){.name = handler_topic(h),
                                   .topic_id = h->svc.topic_id, .partitions = p,
                                   .partition_count = 1};
    if (v < 10)
        t->topic_id = (kq_uuid){{0}};
    else
        t->name = (kq_slice){NULL, -1};
    fill_partition(h, group_id, true, 0, stable, p);
    *topics = t;
    *count = 1;
    return true;
}

static bool fill_topics(handler *h, int16_t v, const char *group_id, bool stable,
                        const wire_offset_fetch_request_topic *req, int32_t n,
                        wire_offset_fetch_topic **topics)
{
    wire_offset_fetch_topic *t = kq_arena_alloc(&h->arena, sizeof(*t) * (size_t)(n ? n : 1));
    if (!t)
        return false;
    for (int32_t i = 0; i < n; i++) {
        const wire_offset_fetch_request_topic *q = &req[i];
        bool ours = v >= 10 ? handler_is_metadata_topic_id(h, &q->topic_id)
                            : handler_is_metadata_topic(h, q->name);
        int32_t pc = q->partition_index_count > 0 ? q->partition_index_count : 0;
        wire_offset_fetch_partition *p =
            kq_arena_alloc(&h->arena, sizeof(*p) * (size_t)(pc ? pc : 1));
        if (!p)
            return false;
        t[i] = (wire_offset_fetch_topic){.name = q->name, .topic_id = q->topic_id,
                                         .partitions = p, .partition_count = pc};
        for (int32_t k = 0; k < pc; k++) {
            fill_partition(h, group_id, ours, q->partition_indexes[k], stable, &p[k]);
            if (v >= 10 && !ours)
                p[k].error_code = KAFKA_UNKNOWN_TOPIC_ID;
        }
    }
    *topics = t;
    return true;
}

/* v9+: a KIP-848 member names itself and its epoch (Kafka's
 * ConsumerGroup.validateOffsetFetch: UNKNOWN_MEMBER_ID, STALE_MEMBER_EPOCH
 * for the whole group). Older versions and classic groups: nothing to check. */
static int16_t fetch_check_member(handler *h, int16_t v, const char *group_id,
                                  const wire_offset_fetch_request_group *q)
{
    const char *member_id = NULL;
    if (v < 9 || !q)
        return KAFKA_NONE;
    if (!groups_cstr(h, q->member_id, &member_id))
        return KAFKA_INVALID_REQUEST;
    /* A null member id with epoch -1 is the admin client's (accepted); ""
     * is a member id nobody has. */
    return (int16_t)group_validate_offset_fetch(h->groups->coord, group_id, member_id,
                                                q->member_epoch);
}

/* One group's answer; false when memory runs out. q: the v8+ group entry. */
static bool fetch_group(handler *h, handler_request *req, kq_slice id, bool stable,
                        const wire_offset_fetch_request_topic *topics, int32_t topic_count,
                        const wire_offset_fetch_request_group *q, wire_offset_fetch_group *out)
{
    int16_t v = req->header.api_version;
    *out = (wire_offset_fetch_group){.group_id = id};
    const char *group_id = NULL;
    if (!handler_authorized(h, req->slot, HANDLER_OP_CONSUME, "OffsetFetch"))
        out->error_code = KAFKA_GROUP_AUTHORIZATION_FAILED;
    else if (!groups_cstr(h, id, &group_id) || !group_id)
        out->error_code = KAFKA_INVALID_GROUP_ID;
    else if ((out->error_code = groups_gate(h)) == KAFKA_NONE)
        out->error_code = fetch_check_member(h, v, group_id, q);
    if (out->error_code != KAFKA_NONE && v >= 2)
        return true;
    if (out->error_code != KAFKA_NONE) {
        /* v1 has no group error: each partition asked for carries it. */
        if (!fill_topics(h, v, NULL, false, topics, topic_count > 0 ? topic_count : 0, &out->topics))
            return false;
        out->topic_count = topic_count > 0 ? topic_count : 0;
        for (int32_t t = 0; t < out->topic_count; t++)
            for (int32_t k = 0; k < out->topics[t].partition_count; k++)
                out->topics[t].partitions[k].error_code = out->error_code;
        return true;
    }
    if (topic_count < 0)
        return fill_all(h, v, group_id, stable, &out->topics, &out->topic_count);
    out->topic_count = topic_count;
    return fill_topics(h, v, group_id, stable, topics, topic_count, &out->topics);
}

void handle_offset_fetch(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_offset_fetch_request body;
    if (wire_offset_fetch_request_decode(r, v, &h->arena, &body) != 0) {
        groups_malformed(h, req, "OffsetFetch");
        return;
    }
    wire_offset_fetch_response resp = {0};
    bool ok = true;
    if (v < 8) {
        wire_offset_fetch_group g;
        /* v1 has no null topics: an empty list there means none. */
        ok = fetch_group(h, req, body.group_id, v >= 7 && body.require_stable, body.topics,
                         body.topic_count, NULL, &g);
        resp.topics = g.topics;
        resp.topic_count = g.topic_count;
        resp.error_code = g.error_code;
    } else {
        int32_t n = body.group_count > 0 ? body.group_count : 0;
        resp.groups = kq_arena_alloc(&h->arena, sizeof(*resp.groups) * (size_t)(n ? n : 1));
        ok = resp.groups != NULL;
        for (int32_t i = 0; ok && i < n; i++) {
            const wire_offset_fetch_request_group *q = &body.groups[i];
            ok = fetch_group(h, req, q->group_id, body.require_stable, q->topics, q->topic_count,
                             q, &resp.groups[i]);
        }
        resp.group_count = n;
    }
    if (!ok) {
        h->svc.reply_close(h->svc.ctx, req->slot, "out of memory");
        return;
    }
    handler_begin_response(h, &req->header);
    wire_offset_fetch_response_encode(&h->out, v, &resp);
    handler_finish_response(h, req->slot);
}
