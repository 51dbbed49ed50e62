/* The snapshot part of the executor (exec_snapshot.c, exec_snapshot_open.c,
 * exec_snapshot_fail.c, exec_snapshot_transfer.c, exec_retention.c):
 * snapshots (KIP-630) and retention. Its state: kq_exec.snap. */
#ifndef KQ_EXEC_SNAPSHOT_H
#define KQ_EXEC_SNAPSHOT_H

#include "exec_state.h"
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
 * once it is durable it is published (the core told, retention run).
 * The part's state (kq_exec.snap), touched only by its files. */
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
    /* KIP-853: the installed snapshot's KRaftVersion and Voters records
     * (install_has_voters false: it holds none), for SNAPSHOT_INSTALLED. */
    bool install_has_voters;
    raft_voter_entry install_voters;
    raft_voter_entry cand_voters; /* scratch: the entry a candidate holds */
    /* The voter history at start (exec_voters.c), handed to raft_create. */
    raft_voter_entry history[RAFT_VOTER_HISTORY_MAX];
    int history_count;
    /* Failed attempts (exec_snapshot_fail.c): never fatal, retried. */
    uint64_t failures;        /* kq_snapshot_failures_total */
    uint64_t fail_unlogged;   /* failures since the last one logged */
    bool fail_logged;         /* one was logged, at fail_logged_ms */
    int64_t fail_logged_ms;
    int64_t retry_backoff_ms; /* 0: the last attempt did not fail */
    int64_t retry_due_ms;     /* no new attempt before */
} exec_snapshots;

/* NULL: out of memory. Destroy takes NULL (after exec_snapshots_close). */
exec_snapshots *exec_snapshots_create(void);
void exec_snapshots_destroy(exec_snapshots *s);

/* exec_snapshot.c */
bool exec_snapshots_open(kq_exec *x, char *err, size_t errlen);
void exec_snapshots_close(kq_exec *x, bool abandon);
void exec_snapshot_job_free(struct exec_snapshot_job *job);
struct kq_snapshot_meta;
/* The producer-id maxima of a loaded snapshot. */
void exec_snapshot_take_meta(kq_exec *x, const exec_tables *t, const struct kq_snapshot_meta *m);
/* exec_voters.c: the voter history at start (KIP-853): the entry of the
 * snapshot at the log start, or of Kafka's bootstrap checkpoint (offset
 * -1), then one per KRaftVersion and Voters record of the log, the last
 * RAFT_VOTER_HISTORY_MAX of them. False (err filled) when a snapshot or
 * the log cannot be read or holds such a record that does not parse. */
bool exec_voter_history_load(kq_exec *x, char *err, size_t errlen);
/* What the core needs to know at create. */
void exec_snapshots_log_state(const kq_exec *x, raft_log_state *ls);
/* The SNAPSHOTS event telling the core the above. */
void exec_snapshots_event(const kq_exec *x, raft_event *ev);
/* Loads the latest snapshot's tables into t and returns its end offset
 * (where the rebuild scan starts), or -1 when there is none to start from. */
int64_t exec_snapshot_load_producers(kq_exec *x, const exec_tables *t);
void exec_snapshot_appended(kq_exec *x, size_t bytes);
void exec_snapshot_truncated(kq_exec *x, int64_t offset);
/* After every entry point: takes a candidate when one is due; returns the
 * job writing it once covered (the coordinator starts it), else NULL. */
struct exec_snapshot_job *exec_snapshot_settle(kq_exec *x, const exec_tables *t);
/* Whether retention is due now (then the next check is scheduled). */
bool exec_retention_due(kq_exec *x);
int64_t exec_snapshot_due(const kq_exec *x);
/* A job's snapshot and its LastContainedLogTimestamp. */
raft_snapshot_id exec_snapshot_job_id(const struct exec_snapshot_job *job, int64_t *timestamp_ms);
/* A job finished (exec_snapshot_done, in the coordinator): -1 it failed
 * (counted, retried later; the job is freed), 1 the coordinator publishes
 * it, 0 not (stopped, or the mutant published it already); then, unless
 * -1, exec_snapshot_written logs it and frees the job. */
int exec_snapshot_finished(kq_exec *x, struct exec_snapshot_job *job, int rc);
void exec_snapshot_written(kq_exec *x, struct exec_snapshot_job *job);
/* Publishing, driven by the coordinator (exec_publish.c): the durable file
 * is added (false: nothing to publish), the core told, retention run. */
bool exec_snapshot_add(kq_exec *x, raft_snapshot_id id, int64_t timestamp_ms);
/* While the core's output is carried out: the SNAPSHOTS event is stepped
 * after it (exec_snapshot_followup). */
void exec_snapshot_tell_later(kq_exec *x);
/* exec_retention.c: moves the log start (true: it moved, the core is to be
 * told), then forgets the snapshots below it. */
bool exec_retention_advance(kq_exec *x);
void exec_retention_forget(kq_exec *x);
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
/* True when a SNAPSHOT_INSTALL installed a->snapshot.id: the coordinator
 * publishes it (*timestamp_ms its LastContainedLogTimestamp). */
bool exec_snapshot_action(kq_exec *x, const raft_action *a, const exec_tables *t,
                          int64_t *timestamp_ms);
bool exec_snapshot_followup(kq_exec *x, raft_event *ev);
/* Fills a FetchSnapshot answer's chunk; returns the Kafka error. */
/* Answers a FetchSnapshot the core emitted (token set), with its chunk. */
void exec_snapshot_answer(kq_exec *x, const raft_msg *msg);
int16_t exec_snapshot_read_chunk(kq_exec *x, const raft_fetch_snapshot_response *f,
                                 kq_writer *out, int64_t *size);

/* The snapshot files this node holds: how many, the newest (false: none),
 * and the failed attempts so far (the metrics text, the start checks). */
int exec_snapshot_count(const kq_exec *x);
bool exec_snapshot_latest(const kq_exec *x, raft_snapshot_id *id);
uint64_t exec_snapshot_failures(const kq_exec *x);

#endif
