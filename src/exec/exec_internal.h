/* Private state of the executor (src/exec). */
#ifndef KQ_EXEC_INTERNAL_H
#define KQ_EXEC_INTERNAL_H

#include "exec_metrics.h"
#include "kq/exec.h"
#include "kq/handler.h"
#include "kq/producer_state.h"
#include "kq/snapshot_state.h"


/* A snapshot file this node holds, durable (exec_snapshot.c). */
typedef struct exec_snapshot_file {
    raft_snapshot_id id;
    int64_t timestamp_ms; /* its header's LastContainedLogTimestamp */
    int64_t served_ms;    /* a follower last read from it (-1 never) */
} exec_snapshot_file;

/* Snapshots and retention (KIP-630). A snapshot is taken in two steps: when
 * one is due, the producer state at the log end is encoded at once (the
 * candidate: the state at exactly that offset); once the high watermark and
 * the flushed offset cover that offset, a job writes and fsyncs the file;
 * once it is durable it is published (the core told, retention run). */
typedef struct exec_snapshots {
    exec_snapshot_file files[EXEC_SNAPSHOTS_MAX]; /* ascending, durable */
    int count;
    uint64_t bytes_since;  /* appended since the last candidate */
    int64_t last_taken_ms; /* when the last candidate was taken */
    bool cand;
    raft_snapshot_id cand_id;
    int64_t cand_timestamp_ms;
    kq_writer cand_bytes;
    struct exec_snapshot_job *job; /* handed to env->snapshot_start, not done */
    int64_t retention_due_ms;
    /* Largest producer id per node prefix known below the latest snapshot. */
    kq_snapshot_pid_max pid_max[KQ_SNAPSHOT_PID_NODES_MAX];
    int pid_max_count;
    bool tell_pending;     /* a SNAPSHOTS event to step after the output */
    bool installed;        /* a SNAPSHOT_INSTALL ran: report it */
    bool install_ok;
    raft_snapshot_id install_id;
    /* Failed attempts (exec_snapshot_fail.c): never fatal, retried. */
    uint64_t failures;        /* kq_snapshot_failures_total */
    uint64_t fail_unlogged;   /* failures since the last one logged */
    bool fail_logged;         /* one was logged, at fail_logged_ms */
    int64_t fail_logged_ms;
    int64_t retry_backoff_ms; /* 0: the last attempt did not fail */
    int64_t retry_due_ms;     /* no new attempt before */
} exec_snapshots;

/* A client request relayed to the leader (DescribeQuorum), waiting. */
typedef struct exec_relay {
    bool in_use;
    uint32_t generation;
    void *slot;
    handler_forward f; /* frame freed once sent */
} exec_relay;

struct kq_exec {
    exec_config cfg;
    char cluster_id[EXEC_CLUSTER_ID_BYTES_MAX];
    char log_dir[EXEC_PATH_BYTES_MAX];
    exec_env env;
    kq_log *log;
    raft *raft;
    producer_state *producers;
    group_offsets *offsets; /* committed group offsets (kq/group_offsets.h) */
    int64_t unparsable_reported_next; /* exec_offsets.c: skips logged below this */
    handler *handler;
    /* Producer ids: next to hand out; [next, reserved_end) is reserved
     * durably (producer-id-block). */
    int64_t pid_next;
    int64_t pid_reserved_end;
    int64_t pid_log_max;  /* largest id of ours found in the log, -1 */
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
    int32_t next_correlation_id;
    /* Events carrying out one output raised, stepped right after it: a set
     * (bit per message type, per voter index), so it is bounded. */
    uint32_t send_failed[EXEC_VOTERS_MAX];
    bool flush_idle;     /* a FLUSH found nothing to do: report FLUSHED */
    int64_t truncated_lower; /* a TRUNCATE cut lower (batch start): report it; -1 */
    exec_relay forwards[EXEC_FORWARDS_MAX];
    uint32_t forward_generation;
    int64_t raft_wake_ms;
    int64_t rejected_logged; /* last rejected fetched batch offset logged */
    int64_t peer_error_logged_ms[EXEC_VOTERS_MAX];
    bool shutdown_requested;
    bool shutdown_reported;
    enum raft_role last_role;
    int32_t last_epoch;
    int32_t last_leader;
    struct exec_workload *workload; /* exec_workload.c; NULL: off */
    /* Asking the peers for their client listeners (exec_endpoints.c). */
    /* [voter][0]: its client endpoint; [voter][1 + k]: its endpoint on
     * listener cfg.client_listeners[k] (issue 19). */
    bool endpoint_inflight[EXEC_VOTERS_MAX][1 + KQ_CONFIG_LISTENERS_MAX];
    int64_t endpoint_due_ms[EXEC_VOTERS_MAX][1 + KQ_CONFIG_LISTENERS_MAX];
    exec_metrics metrics; /* exec_metrics.c */
    exec_snapshots snap;  /* exec_snapshot.c */
    /* ListOffsets searches (exec_search.c): waiting in order, and out. */
    struct exec_search_job *search_head, *search_tail;
    struct exec_search_job *search_out; /* a list of the jobs handed out */
    int searches_out;
    bool search_pumping; /* pump() is starting jobs */
};

int64_t exec_now(kq_exec *x);
/* Stops the node: fatal once, then quiet. */
void exec_fatal(kq_exec *x, const char *what, const char *detail);
/* handler_services.reply_stream (exec_stream.c). */
void exec_reply_stream(kq_exec *x, void *slot, uint8_t *frame, size_t len,
                       const handler_stream_piece *pieces, uint32_t count);
/* Steps one event, carries out its output, then the follow-ups it raised. */
void exec_step(kq_exec *x, raft_event *event);
/* exec_step for a CLIENT_APPEND: *res gets the core's answer (error, or
 * the offsets and the epoch they were appended in), taken before the
 * follow-ups reuse the output. */
void exec_step_append(kq_exec *x, raft_event *event, kq_request_result *res);
/* exec_request.c: carries out a request's decision, completes it once and
 * hands it back to the handlers (kq/request.h). */
void exec_carry_out_request(kq_exec *x, kq_request *req);
/* After every entry point: answer what progress allows, re-arm the timer. */
void exec_settle(kq_exec *x);

/* exec_peer.c */
void exec_send(kq_exec *x, const raft_msg *msg);
int exec_voter_index(const kq_exec *x, int32_t node_id);
void exec_forward(kq_exec *x, void *slot, handler_forward *f);
void exec_forward_response(kq_exec *x, uint64_t tag, const uint8_t *frame, size_t len);
bool exec_tag_is_forward(uint64_t tag);
void exec_raft_response(kq_exec *x, int32_t node_id, uint64_t tag, const uint8_t *frame,
                        size_t len);

/* exec_search.c: searches of the log off the loop (issue 19) */
void exec_time_search(kq_exec *x, const handler_time_search *s);
void exec_searches_destroy(kq_exec *x);

/* exec_workload.c: the built-in workload (--throughput, --record-size) */
typedef struct exec_workload exec_workload;
bool exec_workload_create(kq_exec *x);
void exec_workload_destroy(kq_exec *x);
void exec_workload_tick(kq_exec *x);
void exec_workload_committed(kq_exec *x, int64_t hw);
void exec_workload_report(kq_exec *x);
int64_t exec_workload_due(const kq_exec *x);

/* exec_endpoints.c */
void exec_ask_endpoints(kq_exec *x);
bool exec_tag_is_endpoint(uint64_t tag);
void exec_endpoint_response(kq_exec *x, int32_t node_id, uint64_t tag, const uint8_t *frame,
                            size_t len);
int64_t exec_endpoint_due(const kq_exec *x);

/* exec_producer_ids.c: an id is the node id (mod 2^22) above these bits. */
#define EXEC_PRODUCER_ID_NODE_BITS 40
bool exec_producer_ids_open(kq_exec *x, char *err, size_t errlen);
/* The next producer id, reserved durably; false: the node stopped. */
bool exec_next_producer_id(kq_exec *x, int64_t *producer_id);
bool exec_producer_id_is_ours(const kq_exec *x, int64_t producer_id);

/* exec_produce.c: the one place producer state is checked and recorded. */
enum producer_verdict exec_check_producer(kq_exec *x, const kq_request_append *a,
                                          int64_t *dup_first);
/* The core's APPEND action: the log, then producer state. */
void exec_log_append(kq_exec *x, const raft_action *a);
void exec_rebuild_producers(kq_exec *x);

/* exec_offsets.c: committed group offsets follow the log */
void exec_offsets_note(kq_exec *x, const uint8_t *batches, size_t len);
/* Notes batches, skipping (logged, counted) unparsable records of ours;
 * < 0 only when a batch is not whole or commits do not ascend. */
int exec_offsets_note_batches(kq_exec *x, const uint8_t *batches, size_t len);
void exec_offsets_settle(kq_exec *x);

/* exec_snapshot.c */
bool exec_snapshots_open(kq_exec *x, char *err, size_t errlen);
void exec_snapshots_close(kq_exec *x, bool abandon);
void exec_snapshot_job_free(struct exec_snapshot_job *job);
struct kq_snapshot_meta;
/* The producer-id maxima of a loaded snapshot. */
void exec_snapshot_take_meta(kq_exec *x, const struct kq_snapshot_meta *m);
/* What the core needs to know at create. */
void exec_snapshots_log_state(const kq_exec *x, raft_log_state *ls);
/* The SNAPSHOTS event telling the core the above. */
void exec_snapshots_event(const kq_exec *x, raft_event *ev);
/* Loads the latest snapshot's producer state into x->producers and
 * returns its end offset (where the rebuild scan starts), or -1 when there
 * is none to start from. */
int64_t exec_snapshot_load_producers(kq_exec *x);
void exec_snapshot_appended(kq_exec *x, size_t bytes);
void exec_snapshot_truncated(kq_exec *x, int64_t offset);
/* After every entry point: take a candidate when one is due, start its job
 * once covered, run retention when due. */
void exec_snapshot_settle(kq_exec *x);
int64_t exec_snapshot_due(const kq_exec *x);
void exec_snapshot_publish(kq_exec *x, raft_snapshot_id id, int64_t timestamp_ms);
void exec_snapshot_tell_core(kq_exec *x);
/* exec_retention.c */
void exec_retention_run(kq_exec *x);
void exec_snapshot_forget(kq_exec *x, int i);
/* exec_snapshot_fail.c: a snapshot attempt failed (encode or write of a new
 * file): logged (rate-limited), counted, retried after a backoff; the node
 * keeps serving and retention waits (it only uses published snapshots).
 * rc is the write's negative errno (0 for an encode failure): a real I/O
 * error (EIO and anything not a resource shortage) still stops the node. */
void exec_snapshot_failed(kq_exec *x, const char *what, const char *detail, int rc);
/* An attempt succeeded: the backoff starts over. */
void exec_snapshot_succeeded(kq_exec *x);
/* Whether a new attempt may start now (no backoff pending). */
bool exec_snapshot_retry_allowed(kq_exec *x);
/* exec_snapshot_transfer.c: the follower's actions and the leader's reads */
void exec_snapshot_action(kq_exec *x, const raft_action *a);
bool exec_snapshot_followup(kq_exec *x, raft_event *ev);
/* Fills a FetchSnapshot answer's chunk; returns the Kafka error. */
/* Answers a FetchSnapshot the core emitted (token set), with its chunk. */
void exec_snapshot_answer(kq_exec *x, const raft_msg *msg);
int16_t exec_snapshot_read_chunk(kq_exec *x, const raft_fetch_snapshot_response *f,
                                 kq_writer *out, int64_t *size);

#endif
