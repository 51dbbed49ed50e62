/* TxnOffsetCommit: a transactional producer commits a group's offsets
 * inside its transaction. The valid partitions become one OffsetCommit
 * control batch carrying the producer id and epoch with the transactional
 * bit (src/storage/FORMAT.md "Transactions"): the offsets table holds them
 * aside until the producer's marker (visible on COMMIT, dropped on
 * ABORT). The transaction must be Ongoing with the group added
 * (AddOffsetsToTxn; KIP-890's check), and a named member must be one of
 * the group's current generation, as for OffsetCommit. */
#include <string.h>

#include "group_handlers.h"
#include "txn_handlers.h"
#include "kq/group_consumer.h"
#include "kq/wire_txn_offset_commit.h"

static bool has_group(const txn_entry *e, const char *group)
{
    for (int i = 0; i < e->group_count; i++)
        if (strcmp(e->groups[i], group) == 0)
            return true;
    return false;
}

static int16_t check_member(handler *h, int16_t version,
                            const wire_txn_offset_commit_request *b,
                            const char *group)
{
    const char *member = NULL, *instance = NULL;
    if (!groups_cstr(h, b->member_id, &member) || !groups_cstr(h, b->group_instance_id, &instance))
        return KAFKA_INVALID_REQUEST;
    if (b->generation_id_or_member_epoch < 0 && (!member || !member[0]))
        return KAFKA_NONE; /* no member named: Kafka checks nothing more */
    int16_t error = groups_gate(h);
    if (error != KAFKA_NONE)
        return error;
    group_commit_check check = {.group_id = group, .member_id = member ? member : "",
                                .instance_id = instance,
                                .generation = b->generation_id_or_member_epoch,
                                .api_version = version, .transactional = true};
    bool exists = false;
    return (int16_t)group_validate_commit(h->groups->coord, &check, &exists);
}

/* The request-level checks: KAFKA_NONE when its partitions may commit. */
static int16_t check_request(handler *h, handler_request *req,
                             const wire_txn_offset_commit_request *b, const char **group)
{
    int16_t error = KAFKA_NONE;
    if (!handler_authorized(h, req->slot, HANDLER_OP_PRODUCE, "TxnOffsetCommit"))
        return KAFKA_TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
    if (!handler_authorized(h, req->slot, HANDLER_OP_CONSUME, "TxnOffsetCommit"))
        return KAFKA_GROUP_AUTHORIZATION_FAILED;
    if ((error = txns_gate(h)) != KAFKA_NONE)
        return error;
    const char *tid = txns_id(h, b->transactional_id, &error);
    if (!tid)
        return error;
    if (!groups_cstr(h, b->group_id, group) || !*group || !groups_id_storable(*group))
        return KAFKA_INVALID_GROUP_ID;
    txn_entry e;
    if ((error = txns_check_producer(h, tid, b->producer_id, b->producer_epoch, &e)) != KAFKA_NONE)
        return error;
    if (e.state != TXN_ONGOING || !has_group(&e, *group))
        return KAFKA_INVALID_TXN_STATE; /* AddOffsetsToTxn first */
    return check_member(h, req->header.api_version, b, *group);
}

static int16_t check_partition(handler *h, int16_t v, const wire_txn_offset_commit_topic *t,
                               const wire_txn_offset_commit_partition *p)
{
    if (v >= 6 && !handler_is_metadata_topic_id(h, &t->topic_id))
        return KAFKA_UNKNOWN_TOPIC_ID;
    if ((v < 6 && !handler_is_metadata_topic(h, t->name)) || p->partition_index != 0)
        return KAFKA_UNKNOWN_TOPIC_OR_PARTITION;
    if (p->committed_metadata.len > (int32_t)KQ_GROUP_OFFSET_METADATA_BYTES_MAX)
        return KAFKA_OFFSET_METADATA_TOO_LARGE;
    if (p->committed_metadata.len > 0 &&
        memchr(p->committed_metadata.ptr, 0, (size_t)p->committed_metadata.len))
        return KAFKA_INVALID_REQUEST;
    if (p->committed_offset < -1)
        return KAFKA_INVALID_COMMIT_OFFSET_SIZE;
    return KAFKA_NONE;
}

/* Fills errors and the valid partitions' entries; returns how many. */
static int fill(handler *h, int16_t v, const wire_txn_offset_commit_request *b, const char *group,
                int16_t top, int16_t *errors, group_offset *entries)
{
    int valid = 0, i = 0;
    uint64_t admitted = 0;
    int64_t now = h->svc.now_ms(h->svc.ctx);
    for (int32_t t = 0; t < b->topic_count; t++) {
        for (int32_t k = 0; k < b->topics[t].partition_count; k++, i++) {
            const wire_txn_offset_commit_partition *p = &b->topics[t].partitions[k];
            int16_t error = top != KAFKA_NONE ? top : check_partition(h, v, &b->topics[t], p);
            const char *metadata = NULL;
            if (error == KAFKA_NONE && !groups_cstr(h, p->committed_metadata, &metadata))
                error = KAFKA_INVALID_REQUEST;
            group_offset *e = &entries[valid];
            *e = (group_offset){.group_id = group, .topic = h->svc.topic_name,
                                .partition = p->partition_index, .offset = p->committed_offset,
                                .leader_epoch = p->committed_leader_epoch, .metadata = metadata,
                                .commit_timestamp_ms = now, .log_offset = -1};
            if (error == KAFKA_NONE && h->svc.offsets &&
                !group_offsets_admits_txn(h->svc.offsets, e, admitted))
                error = KAFKA_INVALID_COMMIT_OFFSET_SIZE;
            errors[i] = error;
            if (error == KAFKA_NONE) {
                admitted += group_offsets_entry_bytes(e) + KQ_TXN_OFFSET_EXTRA_BYTES;
                valid++;
            }
        }
    }
    return valid;
}

void handle_txn_offset_commit(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_txn_offset_commit_request body;
    if (wire_txn_offset_commit_request_decode(r, v, &h->arena, &body) != 0) {
        groups_malformed(h, req, "TxnOffsetCommit");
        return;
    }
    int64_t count = 0;
    for (int32_t t = 0; t < body.topic_count; t++)
        count += body.topics[t].partition_count > 0 ? body.topics[t].partition_count : 0;
    const char *group = NULL;
    int16_t top = check_request(h, req, &body, &group);
    if (top == KAFKA_NONE && count > KQ_GROUP_COMMIT_PARTITIONS_MAX)
        top = KAFKA_INVALID_COMMIT_OFFSET_SIZE;
    int16_t *errors = count <= INT32_MAX
                          ? kq_arena_alloc(&h->arena, sizeof(*errors) * (size_t)(count ? count : 1))
                          : NULL;
    group_offset *entries =
        errors ? kq_arena_alloc(&h->arena, sizeof(*entries) * (size_t)(count ? count : 1)) : NULL;
    if (!entries) {
        h->svc.reply_close(h->svc.ctx, req->slot, "TxnOffsetCommit request too large");
        return;
    }
    int valid = fill(h, v, &body, group, top, errors, entries);
    kq_writer *batch = &h->txns->batch;
    kq_writer_reset(batch);
    if (valid > 0 &&
        !group_offsets_build_txn_batch(batch, entries, valid, h->svc.now_ms(h->svc.ctx),
                                       body.producer_id, body.producer_epoch)) {
        for (int64_t i = 0; i < count; i++)
            if (errors[i] == KAFKA_NONE)
                errors[i] = KAFKA_INVALID_REQUEST;
        valid = 0;
    }
    if (valid == 0) {
        txn_answer(h, req->slot, req->frame, req->len, errors, (int)count, KAFKA_NONE, -1, -1);
        return;
    }
    txns_submit(h, req, errors, (int)count, valid, -1, -1);
}
