/* The transaction coordinator's decisions (KIP-98; Kafka's
 * TransactionCoordinator, transaction version 1): InitProducerId with a
 * transactional id, AddPartitionsToTxn (the client's v0-3 and the
 * batched v4+ with KIP-890's verify-only form), AddOffsetsToTxn and
 * EndTxn. Each reads the table at the log end (the leader writes it
 * alone), decides the records that move it, and answers once they commit
 * (txn_coordinator.c) or at once when nothing changes. */
#include <string.h>

#include "group_handlers.h"
#include "txn_handlers.h"
#include "kq/log_line.h"
#include "kq/mutants.h"
#include "kq/wire_add_offsets_to_txn.h"
#include "kq/wire_add_partitions_to_txn.h"
#include "kq/wire_end_txn.h"
#include "kq/wire_init_producer_id.h"

bool txns_room(const handler *h)
{
    int ongoing = txn_table_ongoing_count(h->svc.txns);
    return ongoing < KQ_TXN_OPEN_MAX && txn_table_open_count(h->svc.txns) < KQ_TXN_OPEN_MAX &&
           txn_table_aborted_count(h->svc.txns) + ongoing < KQ_TXN_ABORTED_MAX;
}

static void answer_now(handler *h, handler_request *req, const int16_t *errors, int count,
                       int64_t pid, int16_t epoch)
{
    txn_answer(h, req->slot, req->frame, req->len, errors, count, KAFKA_NONE, pid, epoch);
}

/* ---- InitProducerId */

static int16_t init_check(handler *h, handler_request *req,
                          const wire_init_producer_id_request *body, const char **tid)
{
    int16_t error = KAFKA_NONE;
    if (!handler_authorized(h, req->slot, HANDLER_OP_PRODUCE, "InitProducerId"))
        return KAFKA_TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
    if ((error = txns_gate(h)) != KAFKA_NONE)
        return error;
    if (!(*tid = txns_id(h, body->transactional_id, &error)))
        return error;
    if (body->transaction_timeout_ms <= 0 ||
        body->transaction_timeout_ms > txns_max_timeout_ms(h))
        return KAFKA_INVALID_TRANSACTION_TIMEOUT;
    if (txns_between(h, *tid))
        return KAFKA_CONCURRENT_TRANSACTIONS;
    return KAFKA_NONE;
}

/* KIP-360: a producer that names its id and epoch may bump them only while
 * they are the current ones (or the one before a timeout's abort bumped
 * it); anything else is a zombie. */
static bool init_may_bump(const wire_init_producer_id_request *body, const txn_entry *e)
{
    if (body->producer_id < 0 && body->producer_epoch < 0)
        return true;
    if (body->producer_id != e->producer_id)
        return false;
    return body->producer_epoch == e->producer_epoch ||
           (e->state == TXN_COMPLETE_ABORT && body->producer_epoch == e->producer_epoch - 1);
}

void txns_init_producer_id(handler *h, handler_request *req,
                           const wire_init_producer_id_request *body)
{
    const char *tid = NULL;
    int16_t error = init_check(h, req, body, &tid);
    txn_entry e;
    bool known = error == KAFKA_NONE && txn_table_get(h->svc.txns, tid, &e);
    if (error == KAFKA_NONE && !known && txn_table_count(h->svc.txns) >= KQ_TXN_IDS_MAX)
        error = KAFKA_COORDINATOR_NOT_AVAILABLE; /* retriable: ids expire */
    if (error == KAFKA_NONE && known && !init_may_bump(body, &e))
        error = KAFKA_PRODUCER_FENCED;
    if (error == KAFKA_NONE && known &&
        (e.state == TXN_PREPARE_COMMIT || e.state == TXN_PREPARE_ABORT ||
         e.state == TXN_PREPARE_EPOCH_FENCE))
        error = KAFKA_CONCURRENT_TRANSACTIONS;
    if (error != KAFKA_NONE) {
        answer_now(h, req, &error, 1, -1, -1);
        return;
    }
    int32_t timeout = body->transaction_timeout_ms;
    bool ongoing = known && e.state == TXN_ONGOING;
    if (!known || e.producer_epoch >= INT16_MAX - 1) {
        /* A new id, or an exhausted epoch: a new producer id first. */
        txns_submit_new_pid(h, req, tid, timeout, ongoing ? e.producer_id : -1,
                            known ? e.producer_epoch : 0);
        return;
    }
    /* Every InitProducerId fences the id's previous producer by bumping the
     * epoch; an ongoing transaction is aborted under the new epoch. */
    int16_t epoch = (int16_t)(e.producer_epoch + 1);
    if (h->svc.mutants & KQ_MUTANT_NO_FENCING_ON_INIT)
        epoch = e.producer_epoch; /* the bug: the zombie keeps writing */
    int64_t now = h->svc.now_ms(h->svc.ctx);
    kq_writer *b = &h->txns->batch;
    kq_writer_reset(b);
    int count = 1;
    bool ok = true;
    if (ongoing) {
        ok = txn_build_marker(b, e.producer_id, epoch, false, now);
        count++;
        LOG_LINE_LIMITED("transactional id %s: a new producer fences producer %lld epoch %d; "
                         "its ongoing transaction is aborted",
                         tid, (long long)e.producer_id, e.producer_epoch);
    }
    txn_entry next = {.transactional_id = tid, .producer_id = e.producer_id,
                      .producer_epoch = epoch, .timeout_ms = timeout, .state = TXN_EMPTY,
                      .start_timestamp_ms = -1, .update_timestamp_ms = now};
    if (!ok || !txn_build_state_batch(b, &next)) {
        error = KAFKA_COORDINATOR_NOT_AVAILABLE;
        answer_now(h, req, &error, 1, -1, -1);
        return;
    }
    error = KAFKA_NONE;
    txns_submit(h, req, &error, 1, count, e.producer_id, epoch);
}

/* ---- AddPartitionsToTxn */

typedef struct add_txn {
    const char *tid_text; /* NULL: the request's id did not parse */
    kq_slice tid;
    int64_t pid;
    int16_t epoch;
    bool verify_only;
    const wire_add_partitions_to_txn_topic *topics;
    int32_t topic_count;
} add_txn;

/* The errors of one transaction's partitions (errors[0..n)), and whether
 * its state record must be appended (then *next is it). */
static bool add_decide(handler *h, const add_txn *t, int16_t top, int16_t *errors, int n,
                       txn_entry *next)
{
    txn_entry e;
    int16_t error = top;
    if (error == KAFKA_NONE && !t->tid_text)
        error = KAFKA_INVALID_REQUEST;
    if (error == KAFKA_NONE)
        error = txns_check_producer(h, t->tid_text, t->pid, t->epoch, &e);
    int i = 0;
    bool bad = false;
    for (int32_t k = 0; k < t->topic_count; k++) {
        bool ours = handler_is_metadata_topic(h, t->topics[k].name);
        for (int32_t p = 0; p < t->topics[k].partition_count && i < n; p++, i++) {
            errors[i] = error;
            if (error == KAFKA_NONE && (!ours || t->topics[k].partitions[p] != 0)) {
                errors[i] = KAFKA_UNKNOWN_TOPIC_OR_PARTITION;
                bad = true;
            }
        }
    }
    bool added = error == KAFKA_NONE && e.state == TXN_ONGOING && e.partition_added;
    if (error == KAFKA_NONE && t->verify_only && !added)
        error = KAFKA_INVALID_TXN_STATE; /* KIP-890: the partition is not in it */
    else if (error == KAFKA_NONE && !bad && !added && e.state != TXN_ONGOING && !txns_room(h))
        error = KAFKA_CONCURRENT_TRANSACTIONS; /* retriable: open transactions end */
    for (int k = 0; k < n; k++) {
        if (bad && errors[k] == KAFKA_NONE)
            errors[k] = KAFKA_OPERATION_NOT_ATTEMPTED; /* Kafka's answer to the rest */
        else if (!bad && error != KAFKA_NONE)
            errors[k] = error;
    }
    if (error != KAFKA_NONE || bad || added || t->verify_only || n == 0)
        return false;
    *next = e;
    if (e.state != TXN_ONGOING) {
        next->group_count = 0;
        next->start_timestamp_ms = h->svc.now_ms(h->svc.ctx);
    }
    next->state = TXN_ONGOING;
    next->partition_added = true;
    next->update_timestamp_ms = h->svc.now_ms(h->svc.ctx);
    return true;
}

static int add_count(const add_txn *t)
{
    int n = 0;
    for (int32_t k = 0; k < t->topic_count; k++)
        n += t->topics[k].partition_count > 0 ? t->topics[k].partition_count : 0;
    return n;
}

/* The request's transactions (one below v4). */
static add_txn *add_read(handler *h, handler_request *req, const wire_add_partitions_to_txn_request *b,
                         int *count)
{
    int16_t v = req->header.api_version;
    int n = v >= 4 ? (b->transaction_count > 0 ? b->transaction_count : 0) : 1;
    add_txn *t = kq_arena_alloc(&h->arena, sizeof(*t) * (size_t)(n ? n : 1));
    if (!t)
        return NULL;
    int16_t ignored;
    for (int i = 0; i < n; i++) {
        if (v >= 4) {
            const wire_add_partitions_to_txn_transaction *x = &b->transactions[i];
            t[i] = (add_txn){.tid = x->transactional_id, .pid = x->producer_id,
                             .epoch = x->producer_epoch, .verify_only = x->verify_only,
                             .topics = x->topics, .topic_count = x->topic_count};
        } else {
            t[i] = (add_txn){.tid = b->v3_and_below_transactional_id,
                             .pid = b->v3_and_below_producer_id,
                             .epoch = b->v3_and_below_producer_epoch,
                             .topics = b->v3_and_below_topics,
                             .topic_count = b->v3_and_below_topic_count};
        }
        t[i].tid_text = txns_id(h, t[i].tid, &ignored);
    }
    *count = n;
    return t;
}

void handle_add_partitions_to_txn(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_add_partitions_to_txn_request body;
    if (wire_add_partitions_to_txn_request_decode(r, v, &h->arena, &body) != 0) {
        groups_malformed(h, req, "AddPartitionsToTxn");
        return;
    }
    int n = 0, items = 0;
    add_txn *t = add_read(h, req, &body, &n);
    for (int i = 0; t && i < n; i++)
        items += add_count(&t[i]);
    int16_t *errors = kq_arena_alloc(&h->arena, sizeof(*errors) * (size_t)(items ? items : 1));
    if (!t || !errors) {
        h->svc.reply_close(h->svc.ctx, req->slot, "AddPartitionsToTxn request too large");
        return;
    }
    /* v4+ is the brokers' form (KIP-890): Kafka asks CLUSTER_ACTION. */
    enum handler_op op = v >= 4 ? HANDLER_OP_CLUSTER_ACTION : HANDLER_OP_PRODUCE;
    int16_t top = handler_authorized(h, req->slot, op, "AddPartitionsToTxn")
                      ? txns_gate(h)
                      : KAFKA_TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
    if (top == KAFKA_NONE && items > KQ_TXN_ADD_PARTITIONS_MAX)
        top = KAFKA_INVALID_REQUEST;
    kq_writer *b = &h->txns->batch;
    kq_writer_reset(b);
    int records = 0, at = 0;
    for (int i = 0; i < n; i++) {
        int k = add_count(&t[i]);
        txn_entry next;
        if (add_decide(h, &t[i], top, errors + at, k, &next)) {
            if (txn_build_state_batch(b, &next))
                records++;
            else
                for (int j = 0; j < k; j++)
                    errors[at + j] = KAFKA_COORDINATOR_NOT_AVAILABLE;
        }
        at += k;
    }
    bool added = false; /* a partition found in its transaction already */
    for (int i = 0; i < items; i++)
        added |= errors[i] == KAFKA_NONE;
    for (int i = 0; i < n; i++)
        added &= !t[i].verify_only;
    if (records > 0)
        txns_submit(h, req, errors, items, records, -1, -1);
    else if (added)
        txns_wait_log_end(h, req, errors, items, -1, -1); /* a retry: once it is committed */
    else
        answer_now(h, req, errors, items, -1, -1);
}

/* ---- AddOffsetsToTxn */

static bool has_group(const txn_entry *e, const char *group)
{
    for (int i = 0; i < e->group_count; i++)
        if (strcmp(e->groups[i], group) == 0)
            return true;
    return false;
}

static int16_t add_offsets_check(handler *h, handler_request *req,
                                 const wire_add_offsets_to_txn_request *body, const char **group,
                                 txn_entry *e)
{
    int16_t error = KAFKA_NONE;
    if (!handler_authorized(h, req->slot, HANDLER_OP_PRODUCE, "AddOffsetsToTxn"))
        return KAFKA_TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
    if (!handler_authorized(h, req->slot, HANDLER_OP_CONSUME, "AddOffsetsToTxn"))
        return KAFKA_GROUP_AUTHORIZATION_FAILED;
    if ((error = txns_gate(h)) != KAFKA_NONE)
        return error;
    const char *tid = txns_id(h, body->transactional_id, &error);
    if (!tid)
        return error;
    if (!groups_cstr(h, body->group_id, group) || !*group || !groups_id_storable(*group))
        return KAFKA_INVALID_GROUP_ID;
    return txns_check_producer(h, tid, body->producer_id, body->producer_epoch, e);
}

void handle_add_offsets_to_txn(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_add_offsets_to_txn_request body;
    if (wire_add_offsets_to_txn_request_decode(r, v, &h->arena, &body) != 0) {
        groups_malformed(h, req, "AddOffsetsToTxn");
        return;
    }
    const char *group = NULL;
    txn_entry e;
    int16_t error = add_offsets_check(h, req, &body, &group, &e);
    bool ongoing = error == KAFKA_NONE && e.state == TXN_ONGOING;
    if (error == KAFKA_NONE && ongoing && has_group(&e, group)) {
        txns_wait_log_end(h, req, &error, 1, -1, -1); /* a retry: once it is committed */
        return;
    }
    if (error != KAFKA_NONE) {
        answer_now(h, req, &error, 1, -1, -1);
        return;
    }
    if (!ongoing && !txns_room(h))
        error = KAFKA_CONCURRENT_TRANSACTIONS;
    else if (ongoing && e.group_count >= KQ_TXN_GROUPS_MAX)
        error = KAFKA_INVALID_REQUEST; /* include/kq/limits.h KQ_TXN_GROUPS_MAX */
    if (error != KAFKA_NONE) {
        answer_now(h, req, &error, 1, -1, -1);
        return;
    }
    int64_t now = h->svc.now_ms(h->svc.ctx);
    if (!ongoing) {
        e.partition_added = false;
        e.group_count = 0;
        e.start_timestamp_ms = now;
    }
    e.state = TXN_ONGOING;
    e.groups[e.group_count++] = group;
    e.update_timestamp_ms = now;
    kq_writer_reset(&h->txns->batch);
    if (!txn_build_state_batch(&h->txns->batch, &e)) {
        error = KAFKA_COORDINATOR_NOT_AVAILABLE;
        answer_now(h, req, &error, 1, -1, -1);
        return;
    }
    txns_submit(h, req, &error, 1, 1, -1, -1);
}

/* ---- EndTxn */

void handle_end_txn(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_end_txn_request body;
    if (wire_end_txn_request_decode(r, v, &h->arena, &body) != 0) {
        groups_malformed(h, req, "EndTxn");
        return;
    }
    int16_t error = KAFKA_NONE;
    txn_entry e;
    const char *tid = NULL;
    if (!handler_authorized(h, req->slot, HANDLER_OP_PRODUCE, "EndTxn"))
        error = KAFKA_TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
    else if ((error = txns_gate(h)) == KAFKA_NONE &&
             (tid = txns_id(h, body.transactional_id, &error)) != NULL)
        error = txns_check_producer(h, tid, body.producer_id, body.producer_epoch, &e);
    if (error == KAFKA_NONE && e.state != TXN_ONGOING) {
        /* A retry of the decision made is answered as it was, once its
         * marker (at the log end or below) is committed: the table is the
         * log end's, and an answer must never be undone by a failover. */
        bool same = (e.state == TXN_COMPLETE_COMMIT && body.committed) ||
                    (e.state == TXN_COMPLETE_ABORT && !body.committed);
        error = same ? KAFKA_NONE : KAFKA_INVALID_TXN_STATE;
        if (same)
            txns_wait_log_end(h, req, &error, 1, e.producer_id, e.producer_epoch);
        else
            answer_now(h, req, &error, 1, e.producer_id, e.producer_epoch);
        return;
    }
    if (error != KAFKA_NONE) {
        answer_now(h, req, &error, 1, -1, -1);
        return;
    }
    /* The coordinator and the partition are one: the marker is the decision. */
    kq_writer_reset(&h->txns->batch);
    if (!txn_build_marker(&h->txns->batch, e.producer_id, e.producer_epoch, body.committed,
                          h->svc.now_ms(h->svc.ctx))) {
        error = KAFKA_COORDINATOR_NOT_AVAILABLE;
        answer_now(h, req, &error, 1, -1, -1);
        return;
    }
    txns_submit(h, req, &error, 1, 1, e.producer_id, e.producer_epoch);
}
