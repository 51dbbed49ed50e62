/* The executor's state (src/exec), the bottom layer of the executor: the
 * one struct kq_exec, made of what every part reads (configuration, seams,
 * the log, the core, the handlers, the failed flag), the coordinator's own
 * fields and one state per part (and metrics), touched only by that
 * part's files (a pointer to a struct the part's header declares), and the
 * base functions every part may call (exec_base.c). scripts/check-exec-layering.py names the owners. Nothing
 * here calls up. */
#ifndef KQ_EXEC_STATE_H
#define KQ_EXEC_STATE_H

#include "kq/exec.h"
#include "kq/handler.h"
#include "kq/producer_state.h"
#include "kq/raft.h"

/* The replicated tables, as the coordinator passes them to the snapshot
 * part (exec_tables_of): it encodes them into a snapshot, loads them from
 * one and replaces them by an installed one. Each lives in its part's
 * state and reaches the coordinator through the part's functions
 * (exec_produce_table, exec_offsets_table, exec_txn_table, exec_groups_store,
 * exec_producer_ids_log_max). */
typedef struct exec_tables {
    producer_state **producers; /* replaced by an install */
    group_offsets *offsets;     /* swapped in place: the handlers hold it */
    txn_table *txns;            /* swapped in place: the handlers hold it */
    group_store *groups;        /* swapped in place: the handlers hold it (issue 24) */
    int64_t *pid_log_max;       /* largest id of ours in the log, -1 */
} exec_tables;

struct kq_exec {
    exec_config cfg;
    char cluster_id[EXEC_CLUSTER_ID_BYTES_MAX];
    char log_dir[EXEC_PATH_BYTES_MAX];
    exec_env env;
    kq_log *log;
    raft *raft;
    handler *handler;
    /* Each part's own state, declared in its header, created and freed by
     * the part, touched only by its files (the coordinator passes it to
     * the part's functions). */
    struct exec_produce *produce;       /* exec_produce.h: producer state */
    struct exec_offsets *offsets;       /* exec_offsets.h: group offsets */
    struct exec_txn *txn;               /* exec_txn.h: transactions */
    struct exec_groups *groups;         /* exec_groups.h: group membership */
    struct exec_producer_ids *pids;     /* exec_producer_ids.h */
    struct exec_peers *peers;           /* exec_peer.h */
    struct exec_searches *search;       /* exec_search.h */
    /* The start-up rebuild: where the scan got to and how it ended. */
    bool rebuilding_at_start;
    int64_t rebuild_next;
    int rebuild_rc;
    /* Repair found at start (a batch failing its checks below what storage
     * recovery reads): see raft_log_state.repair_end_offset. */
    int64_t repair_end;
    int32_t repair_epoch;
    bool repair_allowed;  /* peers can refill what corruption takes */
    raft_output out;
    bool stepping;       /* a step's output is being carried out */
    bool failed;         /* fail-stop: fatal or a simulated crash happened */
    kq_log_flush_job *flush_job; /* handed to env->flush_start, not done */
    raft_quorum_state stored_qstate;
    kq_uuid directory_id; /* this node's log directory id (issue 20 item 6) */
    bool flush_idle;     /* a FLUSH found nothing to do: report FLUSHED */
    int64_t truncated_lower; /* a TRUNCATE cut lower (batch start): report it; -1 */
    int64_t raft_wake_ms;
    int64_t rejected_logged; /* last rejected fetched batch offset logged */
    bool shutdown_requested;
    bool shutdown_reported;
    enum raft_role last_role;
    int32_t last_epoch;
    int32_t last_leader;
    struct exec_workload *workload; /* exec_workload.c; NULL: off */
    struct exec_metrics *metrics; /* exec_metrics.h */
    struct exec_snapshots *snap;  /* exec_snapshot.h */
};

/* exec_base.c: the clock, fail-stop, and whose producer ids are whose. */
int64_t exec_now(kq_exec *x);
int64_t exec_now_us(kq_exec *x);
/* Stops the node: fatal once, then quiet. */
void exec_fatal(kq_exec *x, const char *what, const char *detail);
/* An id is the node id (mod 2^22) above these bits. */
#define EXEC_PRODUCER_ID_NODE_BITS 40
int64_t exec_producer_id_node_prefix(const kq_exec *x);
bool exec_producer_id_is_ours(const kq_exec *x, int64_t producer_id);

#endif
