/* The executor's coordinator (exec.c, exec_entry.c, exec_step.c,
 * exec_request.c, exec_rebuild.c, exec_metrics_text.c): the life cycle, the
 * entry points, stepping the core and carrying out its actions and the
 * handlers' requests. It calls down into the parts (one header each, all
 * on exec_state.h); no part calls up into it or across into another: a
 * part that needs the core stepped, an append made or the executor settled
 * returns that need, and the coordinator does it (exec_publish.c,
 * exec_run_workload, exec_search_done). scripts/check-exec-layering.py
 * keeps the direction. */
#ifndef KQ_EXEC_INTERNAL_H
#define KQ_EXEC_INTERNAL_H

#include "exec_metrics.h"
#include "exec_groups.h"
#include "exec_offsets.h"
#include "exec_peer.h"
#include "exec_produce.h"
#include "exec_producer_ids.h"
#include "exec_search.h"
#include "exec_snapshot.h"
#include "exec_state.h"
#include "exec_stream.h"
#include "exec_txn.h"
#include "exec_workload.h"

/* The tables the snapshot part reads and restores (exec_state.h). */
static inline exec_tables exec_tables_of(kq_exec *x)
{
    return (exec_tables){.producers = exec_produce_table(x->produce),
                         .offsets = exec_offsets_table(x->offsets),
                         .txns = exec_txn_table(x->txn),
                         .groups = exec_groups_store(x->groups),
                         .pid_log_max = exec_producer_ids_log_max(x->pids)};
}

/* Steps one event, carries out its output, then the follow-ups it raised. */
void exec_step(kq_exec *x, raft_event *event);
/* exec_step for a CLIENT_APPEND: *res gets the core's answer (error, or
 * the offsets and the epoch they were appended in), taken before the
 * follow-ups reuse the output. */
void exec_step_append(kq_exec *x, raft_event *event, kq_request_result *res);
/* After every entry point: answer what progress allows, re-arm the timer. */
void exec_settle(kq_exec *x);
/* exec_request.c: carries out a request's decision, completes it once and
 * hands it back to the handlers (kq/request.h). */
void exec_carry_out_request(kq_exec *x, kq_request *req);
/* exec_publish.c: a durable snapshot published (the core told, retention
 * run), retention alone, and exec_settle's snapshot step. */
void exec_publish(kq_exec *x, raft_snapshot_id id, int64_t timestamp_ms);
void exec_retention(kq_exec *x);
void exec_settle_snapshots(kq_exec *x);
/* exec_request.c: the built-in workload's appends, stepped like a
 * client's (on the timer). */
void exec_run_workload(kq_exec *x);
/* exec_rebuild.c: producer state, group offsets and our largest producer
 * id from the latest snapshot and the log after it. */
void exec_rebuild_producers(kq_exec *x);
/* exec.c: the peer table follows the voter set in force and the leader
 * (KIP-853), and the handlers' node list follows the table. */
void exec_follow_voters(kq_exec *x);
/* The handlers' node list from the peer table, after it changed. */
void exec_sync_nodes(kq_exec *x);
/* The core's APPEND action: the log, then each part that follows it. */
void exec_log_append(kq_exec *x, const raft_action *a);

#endif
