/* The transaction coordinator's requests in flight (txn_handlers.h): the
 * hand-over of decided records to the executor, the wait for the high
 * watermark, and the checks every transactional API shares. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "group_handlers.h"
#include "txn_handlers.h"
#include "kq/assert.h"
#include "kq/log.h"
#include "kq/mutants.h"
#include "kq/record.h"

bool txns_create(handler *h)
{
    h->txns = calloc(1, sizeof(*h->txns));
    if (!h->txns)
        return false;
    kq_writer_init(&h->txns->batch, RECORD_BATCH_BYTES_MAX);
    kq_writer_init(&h->txns->own_batch, RECORD_BATCH_BYTES_MAX);
    return true;
}

static void request_free(txn_request *t)
{
    if (t->budget)
        *t->budget -= t->cost;
    free(t->frame);
    free(t->errors);
    free(t);
}

static void list_free(txn_request *t)
{
    while (t) {
        txn_request *next = t->next;
        request_free(t);
        t = next;
    }
}

void txns_destroy(handler *h)
{
    if (!h->txns)
        return;
    /* Requests still waiting are dropped unanswered (the node is going). */
    list_free(h->txns->head);
    list_free(h->txns->ready);
    kq_writer_free(&h->txns->batch);
    kq_writer_free(&h->txns->own_batch);
    free(h->txns);
    h->txns = NULL;
}

int16_t txns_gate(handler *h)
{
    if (!h->svc.txns)
        return KAFKA_COORDINATOR_NOT_AVAILABLE;
    return groups_ready(h); /* leading, this epoch's records applied */
}

int32_t txns_max_timeout_ms(const handler *h)
{
    return h->svc.txn_max_timeout_ms > 0 ? h->svc.txn_max_timeout_ms
                                         : KQ_TXN_MAX_TIMEOUT_MS_DEFAULT;
}

const char *txns_id(handler *h, kq_slice s, int16_t *error)
{
    const char *id = NULL;
    *error = KAFKA_NONE;
    if (s.len <= 0 || s.len >= KQ_TXN_ID_BYTES_MAX || !groups_cstr(h, s, &id) || !id) {
        *error = KAFKA_INVALID_REQUEST;
        return NULL;
    }
    return id;
}

int16_t txns_check_producer(handler *h, const char *tid, int64_t pid, int16_t epoch,
                            txn_entry *e)
{
    if (!txn_table_get(h->svc.txns, tid, e) || e->producer_id != pid)
        return KAFKA_INVALID_PRODUCER_ID_MAPPING;
    if (e->producer_epoch != epoch)
        return KAFKA_PRODUCER_FENCED; /* Kafka's TransactionCoordinator */
    if (e->state == TXN_PREPARE_COMMIT || e->state == TXN_PREPARE_ABORT ||
        e->state == TXN_PREPARE_EPOCH_FENCE)
        return KAFKA_CONCURRENT_TRANSACTIONS;
    return KAFKA_NONE;
}

int16_t txns_check_produce(handler *h, int64_t pid, int16_t epoch)
{
    if (!h->svc.txns)
        return KAFKA_INVALID_TXN_STATE;
    const char *tid = txn_table_id_of(h->svc.txns, pid);
    txn_entry e;
    if (!tid || !txn_table_get(h->svc.txns, tid, &e))
        return KAFKA_INVALID_TXN_STATE; /* no transaction holds the partition */
    if (epoch != e.producer_epoch)
        return KAFKA_INVALID_PRODUCER_EPOCH; /* a fenced producer (Kafka's Produce error) */
    if (e.state != TXN_ONGOING || !e.partition_added)
        return KAFKA_INVALID_TXN_STATE; /* KIP-890: not added to the transaction */
    return KAFKA_NONE;
}

/* A waiting request keeps a copy of its frame: HANDLER_TXN_PENDING_MAX
 * of them and HANDLER_TXN_PENDING_BYTES_MAX in all, so that many
 * connections sending large transactional requests cannot pin unbounded
 * memory (past either: COORDINATOR_NOT_AVAILABLE, retriable). */
static txn_request *request_new(handler *h, handler_request *req, const int16_t *errors, int count)
{
    size_t cost = sizeof(txn_request) + req->len + sizeof(*errors) * (size_t)(count > 0 ? count : 1);
    if (h->txns->waiting >= HANDLER_TXN_PENDING_MAX ||
        h->txns->waiting_bytes + cost > HANDLER_TXN_PENDING_BYTES_MAX)
        return NULL;
    txn_request *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->cost = cost;
    t->budget = &h->txns->waiting_bytes;
    h->txns->waiting_bytes += cost;
    t->frame = malloc(req->len ? req->len : 1);
    t->errors = malloc(sizeof(*t->errors) * (size_t)(count > 0 ? count : 1));
    if (!t->frame || !t->errors) {
        request_free(t);
        return NULL;
    }
    memcpy(t->frame, req->frame, req->len);
    t->len = req->len;
    if (count > 0)
        memcpy(t->errors, errors, sizeof(*errors) * (size_t)count);
    t->error_count = count;
    t->producer_id = -1;
    t->producer_epoch = -1;
    t->abort_producer_id = -1;
    t->req = (kq_request){.slot = req->slot, .api_key = req->header.api_key,
                          .api_version = req->header.api_version,
                          .correlation_id = req->header.correlation_id,
                          .origin = KQ_REQUEST_FROM_TXN};
    return t;
}

static void answer(handler *h, txn_request *t, int16_t appended_error)
{
    txn_answer(h, t->req.slot, t->frame, t->len, t->errors, t->error_count, appended_error,
               t->producer_id, t->producer_epoch);
    t->req.phase = KQ_REQUEST_ANSWERED;
    request_free(t);
}

bool txns_submit(handler *h, handler_request *req, const int16_t *errors, int count,
                 int32_t offset_count, int64_t producer_id, int16_t producer_epoch)
{
    txn_request *t = request_new(h, req, errors, count);
    if (!t) {
        txn_answer(h, req->slot, req->frame, req->len, errors, count,
                   KAFKA_COORDINATOR_NOT_AVAILABLE, producer_id, producer_epoch);
        return false;
    }
    t->producer_id = producer_id;
    t->producer_epoch = producer_epoch;
    t->req.action = KQ_REQUEST_APPEND;
    t->req.append = (kq_request_append){.records = h->txns->batch.data,
                                        .len = h->txns->batch.len,
                                        .offset_count = offset_count, .producer_id = -1};
    handler_hand_over(h, &t->req, HANDLER_APPEND);
    return true;
}

void txns_submit_new_pid(handler *h, handler_request *req, const char *transactional_id,
                         int32_t timeout_ms, int64_t abort_pid, int16_t abort_epoch)
{
    int16_t none = KAFKA_NONE;
    txn_request *t = request_new(h, req, &none, 1);
    if (!t) {
        txn_answer(h, req->slot, req->frame, req->len, &none, 1,
                   KAFKA_COORDINATOR_NOT_AVAILABLE, -1, -1);
        return;
    }
    t->needs_pid = true;
    snprintf(t->transactional_id, sizeof(t->transactional_id), "%s", transactional_id);
    t->timeout_ms = timeout_ms;
    t->abort_producer_id = abort_pid;
    t->abort_epoch = abort_epoch;
    t->req.action = KQ_REQUEST_PRODUCER_ID;
    handler_hand_over(h, &t->req, HANDLER_PRODUCER_ID);
}

static void enqueue_waiting(handler *h, txn_request *t);

void txns_wait_log_end(handler *h, handler_request *req, const int16_t *errors, int count,
                       int64_t producer_id, int16_t producer_epoch)
{
    raft_status st;
    raft_get_status(h->svc.raft, &st);
    int64_t end = kq_log_end_offset(h->svc.log);
    txn_request *t = request_new(h, req, errors, count);
    if (!t || st.role != RAFT_ROLE_LEADER) {
        int16_t appended = !t ? KAFKA_COORDINATOR_NOT_AVAILABLE : KAFKA_NOT_COORDINATOR;
        if (t)
            request_free(t);
        txn_answer(h, req->slot, req->frame, req->len, errors, count, appended, producer_id,
                   producer_epoch);
        return;
    }
    t->producer_id = producer_id;
    t->producer_epoch = producer_epoch;
    t->req.result.epoch = st.epoch;
    t->req.result.last_offset = end - 1;
    enqueue_waiting(h, t);
}

bool txns_between(const handler *h, const char *transactional_id)
{
    for (const txn_request *t = h->txns->ready; t; t = t->next)
        if (strcmp(t->transactional_id, transactional_id) == 0)
            return true;
    return false;
}

/* The first step is done: the state record (after the abort marker of an
 * ongoing transaction) waits for handler_take_request. */
static void new_pid_done(handler *h, txn_request *t)
{
    if (t->req.result.error != KAFKA_NONE) {
        answer(h, t, t->req.result.error);
        return;
    }
    t->producer_id = t->req.result.producer_id;
    t->producer_epoch = 0;
    t->req.phase = KQ_REQUEST_DECODED;
    t->req.action = KQ_REQUEST_APPEND;
    t->next = NULL;
    txn_request **p = &h->txns->ready;
    while (*p)
        p = &(*p)->next;
    *p = t;
}

static void enqueue_waiting(handler *h, txn_request *t)
{
    t->epoch = t->req.result.epoch;
    t->last_offset = t->req.result.last_offset;
    t->deadline_ms = h->svc.now_ms(h->svc.ctx) + HANDLER_GROUP_COMMIT_TIMEOUT_MS;
    t->next = NULL;
    if (h->txns->tail)
        h->txns->tail->next = t;
    else
        h->txns->head = t;
    h->txns->tail = t;
    h->txns->waiting++;
    raft_status st;
    raft_get_status(h->svc.raft, &st);
    txns_on_progress(h, &st);
}

void txns_executed(handler *h, kq_request *req)
{
    if (req == &h->txns->own.req) {
        txns_timeouts_executed(h, req);
        return;
    }
    txn_request *t = (txn_request *)((char *)req - offsetof(txn_request, req));
    if (t->req.action == KQ_REQUEST_PRODUCER_ID) {
        new_pid_done(h, t);
        return;
    }
    int16_t error = req->result.error;
    if (error != KAFKA_NONE) {
        answer(h, t, error == KAFKA_NOT_LEADER_OR_FOLLOWER ? KAFKA_NOT_COORDINATOR
                                                           : KAFKA_COORDINATOR_NOT_AVAILABLE);
        return;
    }
    if ((h->svc.mutants & KQ_MUTANT_MARKER_BEFORE_COMMIT) && req->api_key == WIRE_API_END_TXN) {
        answer(h, t, KAFKA_NONE); /* the bug: answered before the marker commits */
        return;
    }
    enqueue_waiting(h, t);
}

void txns_on_progress(handler *h, const raft_status *st)
{
    handler_txns *x = h->txns;
    txn_request *t;
    while ((t = x->head) != NULL) {
        int16_t error;
        if (st->role != RAFT_ROLE_LEADER || st->epoch != t->epoch)
            error = KAFKA_NOT_COORDINATOR;
        else if (st->high_watermark > t->last_offset)
            error = KAFKA_NONE;
        else
            break;
        x->head = t->next;
        if (!x->head)
            x->tail = NULL;
        x->waiting--;
        answer(h, t, error);
    }
}

void txns_on_tick(handler *h, int64_t now_ms)
{
    handler_txns *x = h->txns;
    txn_request *t;
    /* Deadlines follow the append order: the front expires first. */
    while ((t = x->head) != NULL && t->deadline_ms <= now_ms) {
        x->head = t->next;
        if (!x->head)
            x->tail = NULL;
        x->waiting--;
        answer(h, t, KAFKA_COORDINATOR_NOT_AVAILABLE); /* retriable: the retry finds the state */
    }
    txns_timeouts_tick(h, now_ms);
}

int64_t txns_next_deadline(const handler *h)
{
    const handler_txns *x = h->txns;
    if (x->ready || x->own_open)
        return 0; /* a request waits for handler_take_request */
    /* The timeout check runs while there are ids to look at. */
    bool ids = h->svc.txns && txn_table_count(h->svc.txns) > 0;
    int64_t due = ids ? x->check_due_ms : INT64_MAX; /* 0: never checked, due now */
    if (x->head && x->head->deadline_ms < due)
        due = x->head->deadline_ms;
    return due;
}

/* Builds the records of a second step into the batch: the abort of the
 * id's ongoing transaction (the old producer), then the new entry. */
static bool build_new_pid(handler *h, txn_request *t)
{
    kq_writer *b = &h->txns->batch;
    kq_writer_reset(b);
    int64_t now = h->svc.now_ms(h->svc.ctx);
    int count = 1;
    if (t->abort_producer_id >= 0) {
        if (!txn_build_marker(b, t->abort_producer_id, t->abort_epoch, false, now))
            return false;
        count++;
    }
    txn_entry e = {.transactional_id = t->transactional_id, .producer_id = t->producer_id,
                   .producer_epoch = 0, .timeout_ms = t->timeout_ms, .state = TXN_EMPTY,
                   .start_timestamp_ms = -1, .update_timestamp_ms = now};
    if (!txn_build_state_batch(b, &e))
        return false;
    t->req.append = (kq_request_append){.records = b->data, .len = b->len,
                                        .offset_count = count, .producer_id = -1};
    return true;
}

kq_request *txns_take(handler *h)
{
    handler_txns *x = h->txns;
    while (x->ready) {
        txn_request *t = x->ready;
        x->ready = t->next;
        t->next = NULL;
        raft_status st;
        raft_get_status(h->svc.raft, &st);
        if (st.role != RAFT_ROLE_LEADER) {
            answer(h, t, KAFKA_NOT_COORDINATOR);
            continue;
        }
        if (!build_new_pid(h, t)) {
            answer(h, t, KAFKA_COORDINATOR_NOT_AVAILABLE);
            continue;
        }
        return &t->req;
    }
    return txns_timeouts_take(h);
}
