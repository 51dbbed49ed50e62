/* OffsetDelete (issue 24; kafka-consumer-groups.sh --delete-offsets): one
 * group's offsets for the named partitions, as Kafka's KafkaApis and
 * OffsetMetadataManager.deleteOffsets. Top-level errors (no topics then):
 * GROUP_AUTHORIZATION_FAILED without DELETE on the group, INVALID_GROUP_ID
 * for an empty id, NOT_COORDINATOR / COORDINATOR_LOAD_IN_PROGRESS as the
 * other group APIs, GROUP_ID_NOT_FOUND for a group neither the coordinator
 * nor the offsets know, NON_EMPTY_GROUP for a group with members whose
 * protocol type is not "consumer". Per partition: TOPIC_AUTHORIZATION_FAILED
 * without consume (Kafka's READ on the topic), UNKNOWN_TOPIC_OR_PARTITION
 * for another topic or partition than __cluster_metadata-0,
 * GROUP_SUBSCRIBED_TO_TOPIC when a member subscribes to the topic
 * (group_subscribes_to), else NONE, with a deletion tombstone
 * (KQ_GROUP_OFFSET_DELETED) when the key holds an offset at the log end or
 * in an open transaction; the answer waits until the tombstones are
 * committed (group_admin.c). */
#include <string.h>

#include "group_handlers.h"
#include "kq/wire_offset_delete.h"

static int stop_at_first(void *ctx, const group_offset *e)
{
    (void)ctx;
    (void)e;
    return 1;
}

/* Whether the coordinator or the offsets (at the log end, open
 * transactions included) know the group. */
static bool group_known(handler *h, const char *group_id, group_summary *s, bool *in_coord)
{
    enum group_type type;
    bool known = group_type_of(h->groups->coord, group_id, &type);
    /* A KIP-848 group takes OffsetDelete in any state (Kafka's
     * ConsumerGroup.validateOffsetDelete): only its partitions' checks. */
    *in_coord = known && type == GROUP_TYPE_CLASSIC &&
                group_describe(h->groups->coord, group_id, s) == KAFKA_NONE;
    return known ||
           (h->svc.offsets &&
            group_offsets_foreach_key_at_end(h->svc.offsets, group_id, stop_at_first, NULL));
}

/* The request-level checks: KAFKA_NONE when its partitions may be deleted. */
static int16_t check_group(handler *h, handler_request *req,
                           const wire_offset_delete_request *body, const char **group_id)
{
    if (!handler_authorized(h, req->slot, HANDLER_OP_DELETE, "OffsetDelete"))
        return KAFKA_GROUP_AUTHORIZATION_FAILED;
    if (body->group_id.len <= 0)
        return KAFKA_INVALID_GROUP_ID;
    int16_t gate = groups_gate(h);
    if (gate != KAFKA_NONE)
        return gate;
    if (!groups_admin_room(h))
        return KAFKA_COORDINATOR_NOT_AVAILABLE;
    if (!groups_cstr(h, body->group_id, group_id) || !groups_id_storable(*group_id))
        return KAFKA_GROUP_ID_NOT_FOUND; /* no group can have that id */
    group_summary s;
    bool in_coord;
    if (!group_known(h, *group_id, &s, &in_coord))
        return KAFKA_GROUP_ID_NOT_FOUND;
    /* Kafka's ClassicGroup.validateOffsetDelete. */
    if (in_coord && s.state != GROUP_EMPTY && strcmp(s.protocol_type, "consumer") != 0)
        return KAFKA_NON_EMPTY_GROUP;
    return KAFKA_NONE;
}

/* A partition's checks before the coordinator's (Kafka's KafkaApis). */
static int16_t check_partition(handler *h, bool may_read, const wire_offset_delete_topic *t,
                               const wire_offset_delete_partition *part)
{
    if (!may_read)
        return KAFKA_TOPIC_AUTHORIZATION_FAILED;
    if (!handler_is_metadata_topic(h, t->name) || part->partition_index != 0)
        return KAFKA_UNKNOWN_TOPIC_OR_PARTITION;
    return KAFKA_NONE;
}

/* The coordinator's part for a valid partition: its error, and whether its
 * key holds an offset to delete. */
static int16_t decide_partition(handler *h, const char *group_id, const char *topic,
                                int32_t partition, bool *tombstone)
{
    *tombstone = false;
    if (group_subscribes_to(h->groups->coord, group_id, topic))
        return KAFKA_GROUP_SUBSCRIBED_TO_TOPIC;
    const group_offsets *o = h->svc.offsets;
    *tombstone = o && (group_offsets_get_at_end(o, group_id, topic, partition, NULL) ||
                       group_offsets_txn_pending(o, group_id, topic, partition));
    return KAFKA_NONE;
}

/* Fills p's results in request order; the tombstones go to keys. Returns
 * how many. */
static int fill(handler *h, handler_request *req, const wire_offset_delete_request *body,
                const char *group_id, admin_pending *p, group_offset *keys)
{
    int i = 0, count = 0;
    size_t at = 0;
    bool may_read = handler_authorized(h, req->slot, HANDLER_OP_CONSUME, "OffsetDelete");
    for (int32_t t = 0; t < body->topic_count; t++) {
        const wire_offset_delete_topic *topic = &body->topics[t];
        kq_slice name = {(const uint8_t *)p->names + at, topic->name.len > 0 ? topic->name.len : 0};
        if (topic->name.len > 0) {
            memcpy(p->names + at, topic->name.ptr, (size_t)topic->name.len);
            at += (size_t)topic->name.len;
        }
        for (int32_t k = 0; k < topic->partition_count; k++, i++) {
            const wire_offset_delete_partition *part = &topic->partitions[k];
            admin_result *r = &p->results[i];
            *r = (admin_result){.topic = t, .name = name, .partition = part->partition_index};
            r->error = check_partition(h, may_read, topic, part);
            if (r->error == KAFKA_NONE)
                r->error = decide_partition(h, group_id, h->svc.topic_name,
                                            part->partition_index, &r->appended);
            /* A partition named twice is deleted once (both answered by it). */
            bool listed = false;
            for (int j = 0; r->appended && j < count; j++)
                listed = listed || keys[j].partition == part->partition_index;
            if (r->appended && !listed)
                keys[count++] = (group_offset){.group_id = group_id, .topic = h->svc.topic_name,
                                               .partition = part->partition_index};
        }
    }
    return count;
}

void handle_offset_delete(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_offset_delete_request body;
    if (wire_offset_delete_request_decode(r, v, &h->arena, &body) != 0) {
        groups_malformed(h, req, "OffsetDelete");
        return;
    }
    int64_t count = 0;
    size_t names = 0;
    for (int32_t t = 0; t < body.topic_count; t++) {
        count += body.topics[t].partition_count > 0 ? body.topics[t].partition_count : 0;
        names += body.topics[t].name.len > 0 ? (size_t)body.topics[t].name.len : 0;
    }
    admin_pending p = {.slot = req->slot, .api_key = WIRE_API_OFFSET_DELETE, .version = v,
                       .correlation_id = req->header.correlation_id};
    group_offset *keys = kq_arena_alloc(&h->arena, sizeof(*keys) * (size_t)(count ? count : 1));
    if (count > HANDLER_GROUP_ADMIN_ENTRIES_MAX || !keys ||
        !groups_admin_alloc(&p, (int)count, names)) {
        h->svc.reply_close(h->svc.ctx, req->slot, count > HANDLER_GROUP_ADMIN_ENTRIES_MAX
                                                      ? "too many partitions" : "out of memory");
        return;
    }
    const char *group_id = NULL;
    p.error = check_group(h, req, &body, &group_id);
    int tombstones = p.error == KAFKA_NONE ? fill(h, req, &body, group_id, &p, keys) : 0;
    handler_groups *g = h->groups;
    kq_writer_reset(&g->admin_batch);
    if (tombstones > 0 && !group_offsets_build_delete_batch(&g->admin_batch, keys, tombstones,
                                                            h->svc.now_ms(h->svc.ctx))) {
        groups_admin_finish(h, &p, KAFKA_COORDINATOR_NOT_AVAILABLE);
        return;
    }
    groups_admin_submit(h, &p, tombstones);
}
