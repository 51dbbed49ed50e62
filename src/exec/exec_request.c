/* Carrying out a handler's decision (kq/request.h): the executor takes the
 * request object, does what it asks (an append through the core, after the
 * idempotence check on a leader; a new producer id), completes it exactly
 * once and hands it back to the handlers, which answer from it. */
#include "exec_internal.h"
#include "kq/assert.h"
#include "kq/kafka_errors.h"

static void exec_append(kq_exec *x, kq_request *req)
{
    const kq_request_append *a = &req->append;
    raft_status st;
    raft_get_status(x->raft, &st);
    /* Only a leader's producer state is authoritative: elsewhere the core
     * answers NOT_LEADER_OR_FOLLOWER (a lagging follower would otherwise
     * answer OUT_OF_ORDER_SEQUENCE_NUMBER, fatal to an idempotent client). */
    if (st.role == RAFT_ROLE_LEADER) {
        int64_t dup_first;
        enum producer_verdict v = exec_check_producer(x, a, &dup_first);
        if (v == PRODUCER_DUPLICATE) {
            kq_request_result res = {.error = KAFKA_NONE, .base_offset = dup_first,
                                     .last_offset = dup_first + a->offset_count - 1,
                                     .epoch = st.epoch, .producer_id = -1};
            kq_request_complete(req, &res);
            return;
        }
        if (v != PRODUCER_APPEND) {
            kq_request_fail(req, (int16_t)producer_verdict_error(v));
            return;
        }
    }
    raft_event ev = {.type = RAFT_EVENT_CLIENT_APPEND};
    ev.append.records = a->records;
    ev.append.len = a->len;
    ev.append.offset_count = a->offset_count;
    kq_request_result res;
    exec_step_append(x, &ev, &res);
    if (x->failed)
        res = (kq_request_result){.error = KAFKA_NOT_LEADER_OR_FOLLOWER, .base_offset = -1,
                                  .last_offset = -1, .epoch = -1, .producer_id = -1};
    kq_request_complete(req, &res); /* after a fatal error no answer leaves */
}

static void exec_producer_id(kq_exec *x, kq_request *req)
{
    int64_t id;
    if (!exec_next_producer_id(x, &id)) {
        kq_request_fail(req, KAFKA_UNKNOWN_SERVER_ERROR); /* the node stopped: never sent */
        return;
    }
    kq_request_result res = {.error = KAFKA_NONE, .base_offset = -1, .last_offset = -1,
                             .epoch = -1, .producer_id = id};
    kq_request_complete(req, &res);
}

void exec_run_workload(kq_exec *x)
{
    if (!exec_workload_tick(x))
        return;
    raft_event ev;
    while (exec_workload_next(x, &ev)) {
        kq_request_result res;
        exec_step_append(x, &ev, &res);
        if (!exec_workload_appended(x, &res))
            break;
    }
}

void exec_carry_out_request(kq_exec *x, kq_request *req)
{
    KQ_ASSERT(req && req->phase == KQ_REQUEST_AT_EXECUTOR);
    switch (req->action) {
    case KQ_REQUEST_APPEND:
        exec_append(x, req);
        break;
    case KQ_REQUEST_PRODUCER_ID:
        exec_producer_id(x, req);
        break;
    }
    KQ_ASSERT(req->phase == KQ_REQUEST_EXECUTED); /* a lost request stops the process */
    handler_request_done(x->handler, req);
}
