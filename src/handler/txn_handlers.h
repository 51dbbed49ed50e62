/* The transaction coordinator in the handlers (issue 23, KIP-98), private
 * to src/handler/txn_*.c. The Raft leader coordinates every transactional
 * id, as it coordinates every group; the coordinator's state is the
 * transaction table the executor keeps from the log (kq/txn.h, read only
 * here). A request that changes it decides records (a KQ_CONTROL_TXN state
 * record, Kafka's COMMIT/ABORT marker, a transactional offset commit) that
 * the executor appends (HANDLER_APPEND); its answer waits until the high
 * watermark passes them, so that no answer is ever undone by a failover.
 * Losing the lead answers what waits NOT_COORDINATOR.
 *
 * A request that needs a new producer id (InitProducerId for a new
 * transactional id, or one whose epoch is exhausted) takes two steps: the
 * executor reserves the id (HANDLER_PRODUCER_ID), then the state record is
 * appended as the handlers' own request (handler_take_request).
 *
 * The answer of a waiting request is encoded from a copy of its frame and
 * the errors decided per item (txn_answer), so that every API answers in
 * one place whether at once or later. */
#ifndef KQ_TXN_HANDLERS_H
#define KQ_TXN_HANDLERS_H

#include "handler_internal.h"
#include "kq/txn.h"

typedef struct txn_request txn_request;
struct txn_request {
    kq_request req;     /* origin KQ_REQUEST_FROM_TXN */
    uint8_t *frame;     /* malloc'd copy of the request (NULL: the server's own) */
    size_t len;
    int16_t *errors;    /* malloc'd, per item of the request; KAFKA_NONE: appended */
    int error_count;
    size_t cost;        /* counted in *budget while it exists */
    size_t *budget;     /* handler_txns.waiting_bytes; NULL: not counted */
    /* InitProducerId's answer */
    int64_t producer_id;
    int16_t producer_epoch;
    /* the second step of a new producer id: the entry to write */
    bool needs_pid;
    char transactional_id[KQ_TXN_ID_BYTES_MAX];
    int32_t timeout_ms;
    int64_t abort_producer_id; /* an ongoing transaction to abort first, -1 */
    int16_t abort_epoch;
    /* waiting for the high watermark */
    int32_t epoch;
    int64_t last_offset;
    int64_t deadline_ms;
    txn_request *next;
};

typedef struct handler_txns {
    kq_writer batch;          /* the records of the request at the executor */
    txn_request *head, *tail; /* appended, waiting for the high watermark */
    int waiting;
    size_t waiting_bytes;     /* of every txn_request made from a client's frame */
    txn_request *ready;       /* second steps for handler_take_request */
    /* Timed-out transactions and expired ids (txn_timeouts.c). */
    int64_t check_due_ms;
    bool own_open;            /* the server's own request at the executor */
    txn_request own;
    kq_writer own_batch;
    bool own_inflight;        /* appended, waiting for the high watermark */
    int32_t own_epoch;
    int64_t own_last_offset;
} handler_txns;

/* txn_coordinator.c */
bool txns_create(handler *h);
void txns_destroy(handler *h);
/* KAFKA_NONE when this node may coordinate now (leader, its epoch's
 * records applied), else NOT_COORDINATOR or COORDINATOR_LOAD_IN_PROGRESS. */
int16_t txns_gate(handler *h);
int32_t txns_max_timeout_ms(const handler *h);
/* Hands the request being handled to the executor to append h->txns->batch
 * (offset_count offsets), answering later with errors (copied). false: it
 * was answered (out of memory or too many waiting). */
bool txns_submit(handler *h, handler_request *req, const int16_t *errors, int count,
                 int32_t offset_count, int64_t producer_id, int16_t producer_epoch);
/* InitProducerId's first step: a new producer id for transactional_id. */
void txns_submit_new_pid(handler *h, handler_request *req, const char *transactional_id,
                         int32_t timeout_ms, int64_t abort_pid, int16_t abort_epoch);
/* Answers error once the high watermark passes the log end as it is now
 * (a decision the table shows may not be committed yet: a retried EndTxn
 * whose marker is appended), or NOT_COORDINATOR if the lead is lost. */
void txns_wait_log_end(handler *h, handler_request *req, const int16_t *errors, int count,
                       int64_t producer_id, int16_t producer_epoch);
/* Whether an InitProducerId for this id is between its two steps. */
bool txns_between(const handler *h, const char *transactional_id);
void txns_executed(handler *h, kq_request *req);
void txns_on_progress(handler *h, const raft_status *st);
void txns_on_tick(handler *h, int64_t now_ms);
int64_t txns_next_deadline(const handler *h);
kq_request *txns_take(handler *h);
/* A transactional id's C string in the arena, or NULL with *error set. */
const char *txns_id(handler *h, kq_slice s, int16_t *error);
/* The coordinator's checks of a request naming pid/epoch for an id:
 * KAFKA_NONE and *e filled, or Kafka's error. */
int16_t txns_check_producer(handler *h, const char *tid, int64_t pid, int16_t epoch,
                            txn_entry *e);
/* The producer's transactional batch (Produce): KAFKA_NONE or Kafka's
 * error (KIP-890: the partition must be in its ongoing transaction). */
int16_t txns_check_produce(handler *h, int64_t pid, int16_t epoch);

/* txn_apis.c, txn_offset_commit.c: the APIs (InitProducerId's
 * transactional form comes from handle_init_producer_id). */
struct wire_init_producer_id_request;
void txns_init_producer_id(handler *h, handler_request *req,
                           const struct wire_init_producer_id_request *body);
/* Room for one more Ongoing transaction (KQ_TXN_OPEN_MAX, KQ_TXN_ABORTED_MAX). */
bool txns_room(const handler *h);

/* txn_answer.c: encodes and sends the answer of each API from its frame. */
void txn_answer(handler *h, void *slot, const uint8_t *frame, size_t len, const int16_t *errors,
                int count, int16_t appended_error, int64_t producer_id, int16_t producer_epoch);

/* txn_timeouts.c */
void txns_timeouts_tick(handler *h, int64_t now_ms);
kq_request *txns_timeouts_take(handler *h);
void txns_timeouts_executed(handler *h, kq_request *req);

#endif
