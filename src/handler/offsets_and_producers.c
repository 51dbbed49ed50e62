/* ListOffsets (earliest / latest committed / by timestamp) and
 * InitProducerId (idempotent producers; ids unique across the quorum). */
#include <string.h>

#include "handler_internal.h"
#include "kq/assert.h"
#include "kq/record.h"
#include "kq/wire_init_producer_id.h"
#include "kq/wire_list_offsets.h"

#define LIST_OFFSETS_LATEST (-1)
#define LIST_OFFSETS_EARLIEST (-2)
#define LIST_OFFSETS_MAX_TIMESTAMP (-3)

typedef struct timestamp_search {
    int64_t timestamp;
    int64_t limit; /* high watermark */
    int64_t found_offset;
    int64_t found_timestamp;
} timestamp_search;

static int search_batch(void *ctx, const uint8_t *batch, size_t len)
{
    timestamp_search *s = ctx;
    record_batch_header h;
    if (record_batch_parse_header(batch, len, &h) != RECORD_OK || h.base_offset >= s->limit)
        return 1;
    if (s->timestamp == LIST_OFFSETS_MAX_TIMESTAMP) {
        if (h.max_timestamp > s->found_timestamp || s->found_offset < 0) {
            s->found_timestamp = h.max_timestamp;
            s->found_offset = h.base_offset;
        }
        return 0;
    }
    if (h.max_timestamp >= s->timestamp) {
        s->found_offset = h.base_offset;
        s->found_timestamp = h.max_timestamp;
        return 1;
    }
    return 0;
}

static int16_t lookup_offset(handler *h, const raft_status *st, int64_t timestamp,
                             int64_t *offset, int64_t *found_ts)
{
    *found_ts = -1;
    if (st->role != RAFT_ROLE_LEADER)
        return KAFKA_NOT_LEADER_OR_FOLLOWER;
    /* A new leader knows its high watermark only once an entry of its own
     * epoch commits; until then "latest" is unknown (KIP-207: retriable). */
    if (st->high_watermark < 0 && timestamp != LIST_OFFSETS_EARLIEST)
        return KAFKA_OFFSET_NOT_AVAILABLE;
    int64_t hw = st->high_watermark;
    if (timestamp == LIST_OFFSETS_EARLIEST) {
        *offset = kq_log_start_offset(h->svc.log);
        return KAFKA_NONE;
    }
    if (timestamp == LIST_OFFSETS_LATEST) {
        *offset = hw;
        return KAFKA_NONE;
    }
    timestamp_search s = {.timestamp = timestamp, .limit = hw, .found_offset = -1,
                          .found_timestamp = -1};
    if (kq_log_scan(h->svc.log, kq_log_start_offset(h->svc.log), search_batch, &s) < 0)
        return KAFKA_KAFKA_STORAGE_ERROR;
    *offset = s.found_offset;
    *found_ts = s.found_timestamp;
    return KAFKA_NONE;
}

void handle_list_offsets(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_list_offsets_request body;
    if (wire_list_offsets_request_decode(r, v, &h->arena, &body) != 0) {
        h->svc.reply_close(h->svc.ctx, req->slot, "malformed ListOffsets request");
        return;
    }
    raft_status st;
    raft_get_status(h->svc.raft, &st);
    wire_list_offsets_topic_response *topics =
        kq_arena_alloc(&h->arena, sizeof(*topics) * (size_t)(body.topic_count + 1));
    if (!topics) {
        h->svc.reply_close(h->svc.ctx, req->slot, "ListOffsets request too large");
        return;
    }
    bool may_describe = handler_authorized(h, req->slot, HANDLER_OP_DESCRIBE, "ListOffsets");
    for (int32_t t = 0; t < body.topic_count; t++) {
        const wire_list_offsets_topic *rt = &body.topics[t];
        wire_list_offsets_partition_response *parts =
            kq_arena_alloc(&h->arena, sizeof(*parts) * (size_t)(rt->partition_count + 1));
        int64_t *old = kq_arena_alloc(&h->arena, sizeof(int64_t) * (size_t)(rt->partition_count + 1));
        if (!parts || !old) {
            h->svc.reply_close(h->svc.ctx, req->slot, "ListOffsets request too large");
            return;
        }
        topics[t] = (wire_list_offsets_topic_response){
            .name = rt->name, .partitions = parts, .partition_count = rt->partition_count};
        for (int32_t p = 0; p < rt->partition_count; p++) {
            const wire_list_offsets_partition *rp = &rt->partitions[p];
            wire_list_offsets_partition_response *pr = &parts[p];
            *pr = (wire_list_offsets_partition_response){
                .partition_index = rp->partition_index, .timestamp = -1, .offset = -1,
                .leader_epoch = -1};
            if (!handler_is_metadata_topic(rt->name) || rp->partition_index != 0) {
                pr->error_code = KAFKA_UNKNOWN_TOPIC_OR_PARTITION;
                continue;
            }
            if (!may_describe) {
                pr->error_code = KAFKA_TOPIC_AUTHORIZATION_FAILED;
                continue;
            }
            if (rp->current_leader_epoch >= 0 && rp->current_leader_epoch != st.epoch) {
                pr->error_code = rp->current_leader_epoch < st.epoch ? KAFKA_FENCED_LEADER_EPOCH
                                                                     : KAFKA_UNKNOWN_LEADER_EPOCH;
                continue;
            }
            int64_t offset = -1, ts = -1;
            pr->error_code = lookup_offset(h, &st, rp->timestamp, &offset, &ts);
            if (pr->error_code == KAFKA_NONE) {
                pr->offset = offset;
                pr->timestamp = ts;
                pr->leader_epoch = st.epoch;
                if (v == 0 && offset >= 0) {
                    old[p] = offset;
                    pr->old_style_offsets = &old[p];
                    pr->old_style_offset_count = 1;
                }
            }
        }
    }
    wire_list_offsets_response resp = {.topics = topics, .topic_count = body.topic_count};
    handler_begin_response(h, &req->header);
    wire_list_offsets_response_encode(&h->out, v, &resp);
    handler_finish_response(h, req->slot);
}

void handle_init_producer_id(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_init_producer_id_request body;
    if (wire_init_producer_id_request_decode(r, v, &h->arena, &body) != 0) {
        h->svc.reply_close(h->svc.ctx, req->slot, "malformed InitProducerId request");
        return;
    }
    wire_init_producer_id_response resp = {.producer_id = -1, .producer_epoch = -1};
    if (!handler_authorized(h, req->slot, HANDLER_OP_PRODUCE, "InitProducerId")) {
        resp.error_code = KAFKA_CLUSTER_AUTHORIZATION_FAILED; /* Kafka: IDEMPOTENT_WRITE */
    } else if (body.transactional_id.len >= 0) {
        /* No transaction coordinator here: transactions are not supported. */
        resp.error_code = KAFKA_INVALID_REQUEST;
    } else if (body.producer_id >= 0 && body.producer_epoch >= 0 &&
               body.producer_epoch < INT16_MAX - 1) {
        /* KIP-360: an idempotent producer bumping its epoch keeps its id. */
        resp.producer_id = body.producer_id;
        resp.producer_epoch = (int16_t)(body.producer_epoch + 1);
    } else {
        /* The executor reserves a new id durably: handler_producer_id_result. */
        h->decision->kind = HANDLER_PRODUCER_ID;
        h->init_pid_open = true;
        h->init_pid_slot = req->slot;
        h->init_pid_header = req->header;
        h->init_pid_header.client_id = (kq_slice){NULL, -1}; /* the frame goes away */
        return;
    }
    handler_begin_response(h, &req->header);
    wire_init_producer_id_response_encode(&h->out, v, &resp);
    handler_finish_response(h, req->slot);
}

void handler_producer_id_result(handler *h, int16_t error, int64_t producer_id)
{
    KQ_ASSERT(h->init_pid_open);
    h->init_pid_open = false;
    wire_init_producer_id_response resp = {.error_code = error, .producer_id = -1,
                                           .producer_epoch = -1};
    if (error == KAFKA_NONE) {
        resp.producer_id = producer_id;
        resp.producer_epoch = 0;
    }
    handler_begin_response(h, &h->init_pid_header);
    wire_init_producer_id_response_encode(&h->out, h->init_pid_header.api_version, &resp);
    handler_finish_response(h, h->init_pid_slot);
}
