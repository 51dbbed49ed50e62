/* The transaction APIs (issue 23) until the transaction coordinator answers
 * them: each request is decoded with its codec (a malformed frame closes the
 * connection) and every entry answered COORDINATOR_NOT_AVAILABLE, so that a
 * client retries rather than acts. To be replaced by the real handlers. */
#include "handler_internal.h"
#include "kq/wire_add_offsets_to_txn.h"
#include "kq/wire_add_partitions_to_txn.h"
#include "kq/wire_describe_transactions.h"
#include "kq/wire_end_txn.h"
#include "kq/wire_list_transactions.h"
#include "kq/wire_txn_offset_commit.h"

#define TXN_STUB_ERROR KAFKA_COORDINATOR_NOT_AVAILABLE

/* Decodes the request of prefix P into body, or closes the connection. */
#define TXN_DECODE(P, NAME, body)                                                    \
    do {                                                                             \
        if (P##_request_decode(r, req->header.api_version, &h->arena, &(body)) != 0) { \
            h->svc.reply_close(h->svc.ctx, req->slot, "malformed " NAME " request");  \
            return;                                                                  \
        }                                                                            \
    } while (0)

/* Answers resp, or closes the connection when building it ran out of
 * memory (ok false). */
#define TXN_ANSWER(P, resp, ok)                                            \
    do {                                                                   \
        if (!(ok)) {                                                       \
            h->svc.reply_close(h->svc.ctx, req->slot, "out of memory");    \
            return;                                                        \
        }                                                                  \
        handler_begin_response(h, &req->header);                           \
        P##_response_encode(&h->out, req->header.api_version, &(resp));    \
        handler_finish_response(h, req->slot);                             \
    } while (0)

/* n zeroed elements of size bytes from the request's arena (one when n is
 * 0, so that NULL means out of memory); n comes from a decoded array. */
static void *txn_alloc(handler *h, size_t size, int32_t n)
{
    return kq_arena_alloc(&h->arena, size * (size_t)(n > 0 ? n : 1));
}

/* One result per partition of topics, each with the stub's error. */
static wire_add_partitions_to_txn_topic_result *
add_partitions_results(handler *h, const wire_add_partitions_to_txn_topic *topics, int32_t n)
{
    wire_add_partitions_to_txn_topic_result *out = txn_alloc(h, sizeof(*out), n);
    for (int32_t i = 0; out && i < n; i++) {
        int32_t np = topics[i].partition_count;
        wire_add_partitions_to_txn_partition_result *p = txn_alloc(h, sizeof(*p), np);
        if (!p)
            return NULL;
        for (int32_t j = 0; j < np; j++)
            p[j] = (wire_add_partitions_to_txn_partition_result){topics[i].partitions[j],
                                                                  TXN_STUB_ERROR};
        out[i] = (wire_add_partitions_to_txn_topic_result){topics[i].name, p, np};
    }
    return out;
}

void handle_add_partitions_to_txn(handler *h, handler_request *req, kq_reader *r)
{
    wire_add_partitions_to_txn_request body;
    TXN_DECODE(wire_add_partitions_to_txn, "AddPartitionsToTxn", body);
    wire_add_partitions_to_txn_response resp = {.error_code = TXN_STUB_ERROR};
    resp.results_by_topic_v3_and_below =
        add_partitions_results(h, body.v3_and_below_topics, body.v3_and_below_topic_count);
    resp.v3_and_below_topic_count = body.v3_and_below_topic_count;
    int32_t n = body.transaction_count;
    resp.results_by_transaction = txn_alloc(h, sizeof(*resp.results_by_transaction), n);
    resp.result_count = n;
    bool ok = resp.results_by_topic_v3_and_below && resp.results_by_transaction;
    for (int32_t i = 0; ok && i < n; i++) {
        const wire_add_partitions_to_txn_transaction *t = &body.transactions[i];
        wire_add_partitions_to_txn_result *res = &resp.results_by_transaction[i];
        res->transactional_id = t->transactional_id;
        res->topic_results = add_partitions_results(h, t->topics, t->topic_count);
        res->topic_count = t->topic_count;
        ok = res->topic_results != NULL;
    }
    TXN_ANSWER(wire_add_partitions_to_txn, resp, ok);
}

void handle_add_offsets_to_txn(handler *h, handler_request *req, kq_reader *r)
{
    wire_add_offsets_to_txn_request body;
    TXN_DECODE(wire_add_offsets_to_txn, "AddOffsetsToTxn", body);
    wire_add_offsets_to_txn_response resp = {.error_code = TXN_STUB_ERROR};
    TXN_ANSWER(wire_add_offsets_to_txn, resp, true);
}

void handle_end_txn(handler *h, handler_request *req, kq_reader *r)
{
    wire_end_txn_request body;
    TXN_DECODE(wire_end_txn, "EndTxn", body);
    wire_end_txn_response resp = {.error_code = TXN_STUB_ERROR, .producer_id = -1,
                                  .producer_epoch = -1};
    TXN_ANSWER(wire_end_txn, resp, true);
}

void handle_txn_offset_commit(handler *h, handler_request *req, kq_reader *r)
{
    wire_txn_offset_commit_request body;
    TXN_DECODE(wire_txn_offset_commit, "TxnOffsetCommit", body);
    int32_t n = body.topic_count;
    wire_txn_offset_commit_response resp = {
        .topics = txn_alloc(h, sizeof(*resp.topics), n),
        .topic_count = n};
    bool ok = resp.topics != NULL;
    for (int32_t i = 0; ok && i < n; i++) {
        const wire_txn_offset_commit_topic *t = &body.topics[i];
        int32_t np = t->partition_count;
        wire_txn_offset_commit_partition_response *p = txn_alloc(h, sizeof(*p), np);
        ok = p != NULL;
        for (int32_t j = 0; ok && j < np; j++)
            p[j] = (wire_txn_offset_commit_partition_response){t->partitions[j].partition_index,
                                                               TXN_STUB_ERROR};
        resp.topics[i] = (wire_txn_offset_commit_topic_response){t->name, t->topic_id, p, np};
    }
    TXN_ANSWER(wire_txn_offset_commit, resp, ok);
}

void handle_describe_transactions(handler *h, handler_request *req, kq_reader *r)
{
    wire_describe_transactions_request body;
    TXN_DECODE(wire_describe_transactions, "DescribeTransactions", body);
    int32_t n = body.transactional_id_count;
    wire_describe_transactions_response resp = {
        .transaction_states = txn_alloc(h, sizeof(*resp.transaction_states), n),
        .state_count = n};
    for (int32_t i = 0; resp.transaction_states && i < n; i++)
        resp.transaction_states[i] = (wire_describe_transactions_state){
            .error_code = TXN_STUB_ERROR, .transactional_id = body.transactional_ids[i]};
    TXN_ANSWER(wire_describe_transactions, resp, resp.transaction_states != NULL);
}

void handle_list_transactions(handler *h, handler_request *req, kq_reader *r)
{
    wire_list_transactions_request body;
    TXN_DECODE(wire_list_transactions, "ListTransactions", body);
    wire_list_transactions_response resp = {.error_code = TXN_STUB_ERROR};
    TXN_ANSWER(wire_list_transactions, resp, true);
}
