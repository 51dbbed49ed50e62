/* The executor's inbound events: a client or peer frame (the handlers
 * decide, the executor carries the decision out), a peer's answer, the
 * timer, a finished flush or search job and a shutdown request (a finished
 * snapshot job: exec_publish.c). */
#include <errno.h>
#include <string.h>

#include "exec_internal.h"
#include "kq/assert.h"
#include "kq/mutants.h"

void exec_on_frame(kq_exec *x, void *slot, uint8_t *frame, size_t len)
{
    if (x->failed)
        return;
    exec_metrics_request(x, slot, frame, len);
    handler_decision d;
    handler_on_frame(x->handler, slot, frame, len, &d);
    switch (d.kind) {
    case HANDLER_DONE:
        break;
    case HANDLER_APPEND:
    case HANDLER_PRODUCER_ID:
        exec_carry_out_request(x, d.request);
        break;
    case HANDLER_RAFT_RECEIVE: {
        raft_event ev = {.type = RAFT_EVENT_RECEIVE, .msg = d.msg};
        exec_step(x, &ev);
        break;
    }
    case HANDLER_FORWARD:
        exec_forward(x, slot, &d.forward);
        break;
    case HANDLER_TIME_SEARCH:
        exec_time_search(x, &d.search);
        break;
    }
    exec_settle(x);
}

void exec_on_timer(kq_exec *x)
{
    if (x->failed)
        return;
    handler_on_tick(x->handler, exec_now(x));
    kq_request *own = handler_take_request(x->handler); /* e.g. expired offsets' tombstones */
    if (own)
        exec_carry_out_request(x, own);
    exec_ask_endpoints(x);
    exec_run_workload(x);
    exec_workload_report(x);
    raft_event ev = {.type = RAFT_EVENT_TICK};
    exec_step(x, &ev);
    exec_settle(x);
}

void exec_flush_done(kq_exec *x, kq_log_flush_job *job, int rc)
{
    KQ_ASSERT(job == x->flush_job);
    if (x->failed)
        return; /* exec_destroy frees the job */
    if (rc != 0 && (x->cfg.mutants & KQ_MUTANT_FSYNC_ERROR_CONTINUE))
        rc = kq_log_flush_retry(job); /* the bug: retried, and counted if it "works" */
    x->flush_job = NULL;
    int64_t flushed = kq_log_flush_end(x->log, job);
    if (rc != 0) {
        /* a file of the log could not be opened for the flush: say so, not
         * "fsync failed" (KQ_FD_RESERVE should make this impossible) */
        exec_fatal(x, rc == -EMFILE || rc == -ENFILE ? "opening a file of the log to flush failed"
                                                     : "fsync of the log failed",
                   strerror(-rc));
        return;
    }
    exec_metrics_flush_done(x);
    raft_event ev = {.type = RAFT_EVENT_FLUSHED, .flushed_offset = flushed};
    exec_step(x, &ev);
    exec_settle(x);
}

void exec_search_done(kq_exec *x, struct exec_search_job *job, int rc)
{
    if (exec_search_finished(x, job, rc))
        exec_settle(x);
}

void exec_request_shutdown(kq_exec *x)
{
    if (x->failed || x->shutdown_requested)
        return;
    x->shutdown_requested = true;
    raft_event ev = {.type = RAFT_EVENT_SHUTDOWN};
    exec_step(x, &ev);
    exec_settle(x);
}

void exec_conn_closed(kq_exec *x, void *session)
{
    handler_conn_closed(x->handler, session); /* also after fatal: frees memory only */
}

void exec_on_peer_response(kq_exec *x, int32_t node_id, uint64_t tag, const uint8_t *frame,
                           size_t len)
{
    if (x->failed)
        return;
    if (exec_tag_is_endpoint(tag))
        exec_endpoint_response(x, node_id, tag, frame, len);
    else if (exec_tag_is_forward(tag))
        exec_forward_response(x, tag, frame, len);
    else {
        raft_event ev;
        bool peers_changed = false;
        exec_raft_response(x, node_id, tag, frame, len, &ev, &peers_changed);
        if (peers_changed)
            exec_sync_nodes(x);
        exec_step(x, &ev);
    }
    exec_settle(x);
}
