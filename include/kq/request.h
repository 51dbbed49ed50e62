/* A client request that needs the executor, as one object (issue 21 item 5).
 *
 * The handlers decode a request and decide; whatever changes state (an
 * append, a new producer id) is the executor's to carry out. The request
 * travels between them as one kq_request: its slot and header, its phase,
 * the handler's decision (the action the executor must carry out) and the
 * result the executor fills. The contract:
 *
 *   1. The handler creates it (KQ_REQUEST_DECODED), fills the decision and
 *      hands it over in a handler_decision (kq/handler.h):
 *      kq_request_hand_over, phase KQ_REQUEST_AT_EXECUTOR.
 *   2. The executor carries out the decision and completes the request
 *      exactly once, with kq_request_complete (phase KQ_REQUEST_EXECUTED),
 *      before it takes the next frame or tick: a second completion, or a
 *      request handed back without one, stops the process (KQ_ASSERT).
 *      When the node stopped on the way (fail-stop), the executor still
 *      completes it, with an error; no answer leaves a stopped node.
 *   3. The executor hands it back (handler_request_done); the handler
 *      answers from the result, at once (KQ_REQUEST_ANSWERED) or once acks
 *      or the commit rule allow (KQ_REQUEST_WAITING, then answered).
 *
 * The request object is owned by the handler throughout: the executor
 * reads its decision and writes its result, nothing else. */
#ifndef KQ_REQUEST_H
#define KQ_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kq/assert.h"

enum kq_request_phase {
    KQ_REQUEST_DECODED = 0, /* the handler is deciding */
    KQ_REQUEST_AT_EXECUTOR, /* handed over: the executor owes its result */
    KQ_REQUEST_EXECUTED,    /* the result is in: the handler answers from it */
    KQ_REQUEST_WAITING,     /* waiting for acks or the commit rule */
    KQ_REQUEST_ANSWERED,    /* answered (or, with acks=0, settled) */
};

/* The action the executor carries out. */
enum kq_request_action {
    KQ_REQUEST_APPEND = 1,   /* check producer state, CLIENT_APPEND the batches */
    KQ_REQUEST_PRODUCER_ID,  /* reserve and hand out a new producer id */
};

/* Who created the request, so the handler answers it from the right table. */
enum kq_request_origin {
    KQ_REQUEST_FROM_PRODUCE = 1,
    KQ_REQUEST_FROM_OFFSET_COMMIT,
    KQ_REQUEST_FROM_OFFSET_EXPIRY, /* the server's own tombstones: no client */
    KQ_REQUEST_FROM_INIT_PRODUCER_ID,
    KQ_REQUEST_FROM_TXN, /* the transaction coordinator's (src/handler/txn_*.c) */
    KQ_REQUEST_FROM_GROUP_MEMBERSHIP, /* group membership's records (issue 24): no client */
    KQ_REQUEST_FROM_GROUP_ADMIN, /* DeleteGroups, OffsetDelete (issue 24) */
};

/* Client batches to append (one partition: __cluster_metadata-0), already
 * validated: a Produce's, or the handlers' own control batch (valid until
 * the request is handed back). producer_id < 0: not idempotent. */
typedef struct kq_request_append {
    uint8_t *records; /* in the request frame or the handlers' buffer */
    size_t len;
    int32_t offset_count;
    int64_t producer_id;
    int16_t producer_epoch;
    int32_t base_sequence;
    int32_t last_sequence;
} kq_request_append;

/* What the executor found: an error, or for an append the offsets the
 * batches hold (a duplicate's: the original's) and the leader epoch they
 * were appended in, for a producer id the new id (epoch 0). */
typedef struct kq_request_result {
    int16_t error;
    int64_t base_offset;
    int64_t last_offset;
    int32_t epoch;
    int64_t producer_id;
} kq_request_result;

typedef struct kq_request {
    void *slot; /* NULL: the server's own request, nothing to answer */
    /* The header the answer needs (the frame itself goes away). */
    int16_t api_key;
    int16_t api_version;
    int32_t correlation_id;
    enum kq_request_origin origin;
    enum kq_request_phase phase;
    /* The decision. */
    enum kq_request_action action;
    kq_request_append append; /* action KQ_REQUEST_APPEND */
    /* The executor's result (phase KQ_REQUEST_EXECUTED and after). */
    kq_request_result result;
} kq_request;

/* The handler hands the request to the executor. */
static inline void kq_request_hand_over(kq_request *r)
{
    KQ_ASSERT(r->phase == KQ_REQUEST_DECODED);
    KQ_ASSERT(r->action == KQ_REQUEST_APPEND || r->action == KQ_REQUEST_PRODUCER_ID);
    r->phase = KQ_REQUEST_AT_EXECUTOR;
}

/* The executor's one completion. */
static inline void kq_request_complete(kq_request *r, const kq_request_result *res)
{
    KQ_ASSERT(r->phase == KQ_REQUEST_AT_EXECUTOR); /* completed twice, or never handed over */
    r->result = *res;
    r->phase = KQ_REQUEST_EXECUTED;
}

/* An error result (no offsets, no id). */
static inline void kq_request_fail(kq_request *r, int16_t error)
{
    kq_request_result res = {.error = error, .base_offset = -1, .last_offset = -1,
                             .epoch = -1, .producer_id = -1};
    kq_request_complete(r, &res);
}

#endif
