/* The answers of the transactional APIs, encoded from the request's frame
 * and the errors decided per item (in the request's order: one for
 * InitProducerId, AddOffsetsToTxn and EndTxn, one per partition for
 * AddPartitionsToTxn and TxnOffsetCommit). An item decided KAFKA_NONE was
 * appended and gets appended_error (the append's outcome: KAFKA_NONE once
 * committed). The frame is decoded again: the same decoder that let it in. */
#include "txn_handlers.h"
#include "kq/wire_add_offsets_to_txn.h"
#include "kq/wire_add_partitions_to_txn.h"
#include "kq/wire_end_txn.h"
#include "kq/wire_init_producer_id.h"
#include "kq/wire_txn_offset_commit.h"

typedef struct answer_ctx {
    handler *h;
    void *slot;
    wire_request_header hdr;
    const int16_t *errors;
    int count;
    int next;
    int16_t appended;
} answer_ctx;

/* Versions before PRODUCER_FENCED existed get INVALID_PRODUCER_EPOCH, as
 * Kafka's KafkaApis answers them. */
static int16_t for_version(const wire_request_header *hdr, int16_t e)
{
    if (e != KAFKA_PRODUCER_FENCED)
        return e;
    int16_t v = hdr->api_version;
    bool old = (hdr->api_key == WIRE_API_INIT_PRODUCER_ID && v < 4) ||
               (hdr->api_key == WIRE_API_END_TXN && v < 2) ||
               (hdr->api_key == WIRE_API_ADD_PARTITIONS_TO_TXN && v < 2) ||
               (hdr->api_key == WIRE_API_ADD_OFFSETS_TO_TXN && v < 2);
    return old ? KAFKA_INVALID_PRODUCER_EPOCH : e;
}

static int16_t next_error(answer_ctx *a)
{
    int16_t e = a->next < a->count ? a->errors[a->next] : KAFKA_UNKNOWN_SERVER_ERROR;
    a->next++;
    return for_version(&a->hdr, e == KAFKA_NONE ? a->appended : e);
}

static void finish(answer_ctx *a)
{
    handler_finish_response(a->h, a->slot);
}

static wire_add_partitions_to_txn_topic_result *
add_results(answer_ctx *a, const wire_add_partitions_to_txn_topic *topics, int32_t n)
{
    kq_arena *arena = &a->h->arena;
    wire_add_partitions_to_txn_topic_result *out =
        kq_arena_alloc(arena, sizeof(*out) * (size_t)(n > 0 ? n : 1));
    for (int32_t t = 0; out && t < n; t++) {
        int32_t pc = topics[t].partition_count > 0 ? topics[t].partition_count : 0;
        wire_add_partitions_to_txn_partition_result *p =
            kq_arena_alloc(arena, sizeof(*p) * (size_t)(pc ? pc : 1));
        if (!p)
            return NULL;
        for (int32_t k = 0; k < pc; k++)
            p[k] = (wire_add_partitions_to_txn_partition_result){
                .partition_index = topics[t].partitions[k], .partition_error_code = next_error(a)};
        out[t] = (wire_add_partitions_to_txn_topic_result){
            .name = topics[t].name, .results_by_partition = p, .partition_count = pc};
    }
    return out;
}

static void answer_add_partitions(answer_ctx *a, kq_reader *r)
{
    int16_t v = a->hdr.api_version;
    wire_add_partitions_to_txn_request b;
    wire_add_partitions_to_txn_response resp = {0};
    if (wire_add_partitions_to_txn_request_decode(r, v, &a->h->arena, &b) != 0)
        goto fail;
    if (v < 4) {
        resp.results_by_topic_v3_and_below = add_results(a, b.v3_and_below_topics,
                                                         b.v3_and_below_topic_count);
        resp.v3_and_below_topic_count = b.v3_and_below_topic_count;
        if (!resp.results_by_topic_v3_and_below)
            goto fail;
    } else {
        int32_t n = b.transaction_count > 0 ? b.transaction_count : 0;
        resp.results_by_transaction =
            kq_arena_alloc(&a->h->arena, sizeof(*resp.results_by_transaction) * (size_t)(n ? n : 1));
        if (!resp.results_by_transaction)
            goto fail;
        for (int32_t i = 0; i < n; i++) {
            wire_add_partitions_to_txn_result *x = &resp.results_by_transaction[i];
            x->transactional_id = b.transactions[i].transactional_id;
            x->topic_count = b.transactions[i].topic_count;
            x->topic_results = add_results(a, b.transactions[i].topics, x->topic_count);
            if (!x->topic_results)
                goto fail;
        }
        resp.result_count = n;
    }
    handler_begin_response(a->h, &a->hdr);
    wire_add_partitions_to_txn_response_encode(&a->h->out, v, &resp);
    finish(a);
    return;
fail:
    a->h->svc.reply_close(a->h->svc.ctx, a->slot, "AddPartitionsToTxn answer lost");
}

static void answer_txn_offset_commit(answer_ctx *a, kq_reader *r)
{
    int16_t v = a->hdr.api_version;
    wire_txn_offset_commit_request b;
    wire_txn_offset_commit_response resp = {0};
    if (wire_txn_offset_commit_request_decode(r, v, &a->h->arena, &b) != 0)
        goto fail;
    int32_t n = b.topic_count > 0 ? b.topic_count : 0;
    resp.topics = kq_arena_alloc(&a->h->arena, sizeof(*resp.topics) * (size_t)(n ? n : 1));
    if (!resp.topics)
        goto fail;
    for (int32_t t = 0; t < n; t++) {
        int32_t pc = b.topics[t].partition_count > 0 ? b.topics[t].partition_count : 0;
        wire_txn_offset_commit_partition_response *p =
            kq_arena_alloc(&a->h->arena, sizeof(*p) * (size_t)(pc ? pc : 1));
        if (!p)
            goto fail;
        for (int32_t k = 0; k < pc; k++)
            p[k] = (wire_txn_offset_commit_partition_response){
                .partition_index = b.topics[t].partitions[k].partition_index,
                .error_code = next_error(a)};
        resp.topics[t] = (wire_txn_offset_commit_topic_response){
            .name = b.topics[t].name, .topic_id = b.topics[t].topic_id, .partitions = p,
            .partition_count = pc};
    }
    resp.topic_count = n;
    handler_begin_response(a->h, &a->hdr);
    wire_txn_offset_commit_response_encode(&a->h->out, v, &resp);
    finish(a);
    return;
fail:
    a->h->svc.reply_close(a->h->svc.ctx, a->slot, "TxnOffsetCommit answer lost");
}

void txn_answer(handler *h, void *slot, const uint8_t *frame, size_t len, const int16_t *errors,
                int count, int16_t appended_error, int64_t producer_id, int16_t producer_epoch)
{
    answer_ctx a = {.h = h, .slot = slot, .errors = errors, .count = count,
                    .appended = appended_error};
    kq_reader r;
    kq_reader_init(&r, frame, len);
    if (wire_request_header_decode(&r, &a.hdr) != 0) {
        h->svc.reply_close(h->svc.ctx, slot, "transactional answer lost");
        return;
    }
    /* Within a frame the arena holds the request being handled (errors
     * may point into it); outside one it is ours to reuse. */
    if (!h->decision)
        kq_arena_reset(&h->arena);
    int16_t v = a.hdr.api_version;
    switch (a.hdr.api_key) {
    case WIRE_API_ADD_PARTITIONS_TO_TXN:
        answer_add_partitions(&a, &r);
        return;
    case WIRE_API_TXN_OFFSET_COMMIT:
        answer_txn_offset_commit(&a, &r);
        return;
    default:
        break;
    }
    int16_t error = next_error(&a);
    handler_begin_response(h, &a.hdr);
    if (a.hdr.api_key == WIRE_API_INIT_PRODUCER_ID) {
        bool ok = error == KAFKA_NONE;
        wire_init_producer_id_response resp = {.error_code = error,
                                               .producer_id = ok ? producer_id : -1,
                                               .producer_epoch = ok ? producer_epoch : -1};
        wire_init_producer_id_response_encode(&h->out, v, &resp);
    } else if (a.hdr.api_key == WIRE_API_ADD_OFFSETS_TO_TXN) {
        wire_add_offsets_to_txn_response resp = {.error_code = error};
        wire_add_offsets_to_txn_response_encode(&h->out, v, &resp);
    } else if (a.hdr.api_key == WIRE_API_END_TXN) {
        wire_end_txn_response resp = {.error_code = error, .producer_id = producer_id,
                                      .producer_epoch = producer_epoch};
        wire_end_txn_response_encode(&h->out, v, &resp);
    } else {
        h->svc.reply_close(h->svc.ctx, slot, "transactional answer of no known API");
        return;
    }
    finish(&a);
}
