/* Transactions that time out and ids that expire (Kafka's
 * transaction.abort.timed.out.transaction.cleanup.interval.ms and
 * transactional.id.expiration.ms): the leader, once its epoch's records
 * are applied, looks at every transactional id on its tick. An Ongoing
 * transaction older than its timeout is aborted with the epoch bumped
 * (the ABORT marker carries epoch + 1), fencing the producer, as Kafka's
 * TransactionCoordinator.abortTimedOutTransactions does; an id idle (Empty
 * or complete) for the expiration time gets a TXN_DEAD state record and is
 * forgotten. One batch of at most TXN_OWN_RECORDS_MAX records is in flight
 * at a time; a check that found more runs again once it is applied. */
#include <stdlib.h>
#include <string.h>

#include "txn_handlers.h"
#include "kq/assert.h"
#include "kq/log_line.h"

#define TXN_OWN_RECORDS_MAX 64
/* Not leading, or loading: tried again this much later. */
#define TXN_CHECK_NOT_READY_RETRY_MS 1000

typedef struct timeout_walk {
    handler *h;
    int64_t now_ms;
    int64_t expiration_ms;
    int count;
    int aborted;
    bool more;
    bool failed;
} timeout_walk;

static int pick(void *ctx, const txn_entry *e)
{
    timeout_walk *w = ctx;
    kq_writer *b = &w->h->txns->own_batch;
    bool timed_out = e->state == TXN_ONGOING && e->start_timestamp_ms >= 0 &&
                     e->start_timestamp_ms + e->timeout_ms <= w->now_ms;
    bool idle = (e->state == TXN_EMPTY || e->state == TXN_COMPLETE_COMMIT ||
                 e->state == TXN_COMPLETE_ABORT) &&
                e->update_timestamp_ms + w->expiration_ms <= w->now_ms;
    if (!timed_out && !idle)
        return 0;
    if (w->count == TXN_OWN_RECORDS_MAX) {
        w->more = true;
        return 1;
    }
    bool ok;
    if (timed_out) {
        int16_t epoch = e->producer_epoch < INT16_MAX - 1 ? (int16_t)(e->producer_epoch + 1)
                                                          : e->producer_epoch;
        ok = txn_build_marker(b, e->producer_id, epoch, false, w->now_ms);
        w->aborted++;
    } else {
        txn_entry dead = *e;
        dead.state = TXN_DEAD;
        dead.partition_added = false;
        dead.group_count = 0;
        dead.start_timestamp_ms = -1;
        dead.update_timestamp_ms = w->now_ms;
        ok = txn_build_state_batch(b, &dead);
    }
    if (!ok) {
        w->failed = true;
        return 1;
    }
    w->count++;
    return 0;
}

static bool inflight_done(handler *h)
{
    handler_txns *x = h->txns;
    raft_status st;
    raft_get_status(h->svc.raft, &st);
    return st.role != RAFT_ROLE_LEADER || st.epoch != x->own_epoch ||
           st.high_watermark > x->own_last_offset;
}

void txns_timeouts_tick(handler *h, int64_t now_ms)
{
    handler_txns *x = h->txns;
    if (!h->svc.txns || x->own_open)
        return;
    if (x->own_inflight && !inflight_done(h))
        return;
    x->own_inflight = false;
    if (now_ms < x->check_due_ms)
        return;
    if (txns_gate(h) != KAFKA_NONE) {
        x->check_due_ms = now_ms + TXN_CHECK_NOT_READY_RETRY_MS;
        return;
    }
    int64_t interval = h->svc.txn_abort_interval_ms > 0 ? h->svc.txn_abort_interval_ms
                                                        : KQ_TXN_ABORT_CLEANUP_INTERVAL_MS_DEFAULT;
    timeout_walk w = {.h = h, .now_ms = now_ms,
                      .expiration_ms = h->svc.txn_id_expiration_ms > 0
                                           ? h->svc.txn_id_expiration_ms
                                           : KQ_TXN_ID_EXPIRATION_MS_DEFAULT};
    kq_writer_reset(&x->own_batch);
    txn_table_foreach(h->svc.txns, pick, &w);
    x->check_due_ms = w.more ? now_ms : now_ms + interval;
    if (w.failed || w.count == 0) {
        kq_writer_reset(&x->own_batch);
        return; /* failed: out of memory, tried again at the next check */
    }
    x->own_open = true;
    x->own = (txn_request){.req = {.origin = KQ_REQUEST_FROM_TXN, .action = KQ_REQUEST_APPEND,
                                   .append = {.records = x->own_batch.data,
                                              .len = x->own_batch.len,
                                              .offset_count = w.count, .producer_id = -1}}};
    if (w.aborted > 0)
        log_line("transactions: %d transaction(s) timed out (transaction.timeout.ms), aborting "
                 "them with their producers' epochs bumped", w.aborted);
}

kq_request *txns_timeouts_take(handler *h)
{
    handler_txns *x = h->txns;
    if (!x->own_open || x->own.req.phase != KQ_REQUEST_DECODED)
        return NULL;
    return &x->own.req;
}

void txns_timeouts_executed(handler *h, kq_request *req)
{
    handler_txns *x = h->txns;
    KQ_ASSERT(req == &x->own.req && x->own_open);
    x->own_open = false;
    kq_writer_reset(&x->own_batch);
    req->phase = KQ_REQUEST_ANSWERED; /* no client to answer */
    if (req->result.error != KAFKA_NONE)
        return; /* tried again at the next check */
    x->own_inflight = true;
    x->own_epoch = req->result.epoch;
    x->own_last_offset = req->result.last_offset;
}
