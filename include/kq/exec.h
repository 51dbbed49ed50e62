/* The executor: the one module that carries out the Raft core's actions and
 * the request handlers' decisions. The daemon (src/daemon, on libuv), the
 * deterministic simulator (tests/sim) and the handler tests all run this
 * same code; they differ only in the seams they pass in exec_env: the file
 * system (kq/fs.h), the clock, the transport to peers and clients, the timer
 * and where a flush job runs.
 *
 * Contract with the core (kq/raft.h), enforced here:
 *  - actions of one output are carried out in order; everything after a
 *    STORE_QSTATE waits until it is durable (the store is synchronous);
 *  - RAFT_EVENT_FLUSHED reports only what a finished flush job covered;
 *  - events that carrying out an output raises (a send that fails at once,
 *    a flush with nothing to do) are stepped after that output, from a
 *    bounded set, never from inside it.
 * Fail-stop: an I/O failure on the log or the quorum state (a failed fsync
 * is never retried) calls env->fatal once; from then on every entry point
 * returns at once and nothing more is answered or sent.
 *
 * Threading: every function runs on the loop thread (the simulator's only
 * thread); env->flush_start may hand the job to a worker. */
#ifndef KQ_EXEC_H
#define KQ_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kq/fs.h"
#include "kq/group.h"
#include "kq/log.h"
#include "kq/raft.h"


typedef struct exec_endpoint {
    int32_t node_id;
    char host[256];
    uint16_t port;
} exec_endpoint;

typedef struct exec_config {
    int32_t node_id;
    exec_endpoint voters[EXEC_VOTERS_MAX]; /* with their listeners */
    int voter_count;
    /* KIP-853: the voters live in the log (a directory formatted at
     * kraft.version 1): voters[] are only the first peers, the core gets
     * no static voters. */
    bool voters_from_log;
    /* controller.quorum.bootstrap.servers given alone: ids -2, -3, ... */
    exec_endpoint bootstrap_servers[RAFT_BOOTSTRAP_SERVERS_MAX];
    int bootstrap_server_count;
    /* controller.quorum.auto.join.enable, and this node's controller
     * endpoint as AddRaftVoter names it (listener name, host, port). */
    bool auto_join;
    char controller_listener[KQ_VOTER_NAME_BYTES_MAX + 1];
    exec_endpoint controller_endpoint;
    /* This node's advertised client listener (port 0: its voter endpoint),
     * and whether to ask the peers for theirs (they differ from the voter
     * endpoints when a controller listener is named). */
    exec_endpoint client_endpoint;
    bool discover_client_endpoints;
    /* This node's client listeners by name with its endpoint on each (issue
     * 19 item 13): Metadata asked on one names every node by its endpoint
     * on the listener of that name, learned from the peers as above. */
    struct {
        char name[KQ_CONFIG_LISTENER_NAME_BYTES_MAX];
        exec_endpoint endpoint;
    } client_listeners[KQ_CONFIG_LISTENERS_MAX];
    int client_listener_count;
    const char *cluster_id;
    /* The replicated partition and the Produce record check (issue 22;
     * handler_services): NULL: __cluster_metadata. */
    const char *topic_name;
    kq_uuid topic_id;
    bool raft_record_check;
    const char *log_dir;
    uint64_t segment_bytes;
    int32_t frame_bytes_max;             /* socket.request.max.bytes */
    uint32_t election_timeout_ms;
    uint32_t fetch_timeout_ms;
    uint32_t election_backoff_max_ms;
    uint32_t request_timeout_ms;
    uint32_t retry_backoff_ms;
    uint64_t random_seed;                /* the core's jitter */
    /* Issue 20 item 6: meta.properties' directory.id (zero: unformatted),
     * and a fresh random id the driver drew, taken by a directory that has
     * neither that nor one kept in its quorum state (zero: none, no
     * directory checks). */
    kq_uuid directory_id;
    kq_uuid new_directory_id;
    uint32_t fetch_max_bytes;            /* a follower's fetch size; 0: 1 MiB */
    uint32_t append_linger_ms;           /* quorum.append.linger.ms (raft_config) */
    /* Snapshots and retention (KIP-630, docs/snapshots.md).
     * 0 in a field means Kafka's default (limits.h EXEC_SNAPSHOT_*). */
    uint64_t snapshot_bytes_between;     /* metadata.log.max.record.bytes.between.snapshots */
    uint64_t snapshot_interval_ms;       /* metadata.log.max.snapshot.interval.ms; UINT64_MAX: never */
    int64_t retention_bytes;             /* metadata.max.retention.bytes; -1: unlimited */
    int64_t retention_ms;                /* metadata.max.retention.ms; -1: unlimited */
    uint32_t fetch_snapshot_max_bytes;   /* controller.quorum.fetch.snapshot.max.bytes */
    /* First producer id this incarnation may hand out (see "Producer ids" in
     * docs/deviations.md); the daemon derives it from the wall clock. */
    int64_t producer_id_base;
    const struct handler_acl *acl;       /* the authorizer (kq/handler.h); NULL: allow all */
    /* The built-in workload (Kafka's TestRaftServer --throughput and
     * --record-size): while leader, append this many records per second
     * of this size; 0: off. */
    uint32_t workload_records_per_s;
    uint32_t workload_record_bytes;
    const struct kq_cred_store *sasl_credentials; /* kq/auth.h; NULL: no SASL */
    int32_t failed_auth_delay_ms; /* connection.failed.authentication.delay.ms; 0: none */
    /* group.max.size, group.{min,max}.session.timeout.ms,
     * group.initial.rebalance.delay.ms (max_size 0: Kafka's defaults). */
    group_config group;
    /* transaction.max.timeout.ms, transactional.id.expiration.ms,
     * transaction.abort.timed.out.transaction.cleanup.interval.ms (issue
     * 23; 0: the defaults). */
    int32_t txn_max_timeout_ms;
    int64_t txn_id_expiration_ms;
    int64_t txn_abort_interval_ms;
    /* Consumer Fetch answers are read and sent whole, never streamed
     * (tests comparing both; false in the daemon). */
    bool fetch_inline;
    /* Answers with fewer bytes of log data than this are read and sent
     * whole (0: KQ_FETCH_STREAM_INLINE_BYTES_MAX; the simulator streams
     * small ones too, its segments being small). */
    uint32_t fetch_stream_min_bytes;
    uint32_t raft_mutants;               /* enum raft_mutant; 0 in the daemon */
    uint32_t mutants;                    /* enum kq_mutant; 0 in the daemon */
} exec_config;

struct handler_conn; /* kq/handler.h */
struct handler_acl;
struct kq_cred_store;
struct exec_snapshot_job; /* below */
struct exec_search_job;   /* below */

/* One range of the log a streamed answer holds at frame position at (the
 * cursor tracks what was read of it). */
typedef struct exec_stream_piece {
    size_t at;
    kq_log_cursor cur;
} exec_stream_piece;

/* Seams. Every callback gets ctx first. Slots are opaque client request
 * handles of the transport: each is completed exactly once by reply,
 * reply_none or reply_close. */
typedef struct exec_env {
    void *ctx;
    const kq_fs *fs;
    int64_t (*now_ms)(void *ctx);
    /* Optional (NULL: now_ms * 1000): a finer monotonic clock for the
     * latency histograms of the metrics (only differences are used). */
    int64_t (*now_us)(void *ctx);
    /* Queues an encoded request frame (header + body) to peer node_id. tag
     * comes back with exactly one exec_on_peer_response (frame NULL when
     * the request failed). Returns false when it cannot be queued now. */
    bool (*peer_send)(void *ctx, int32_t node_id, int32_t correlation_id, const uint8_t *frame,
                      size_t len, uint64_t tag);
    /* Optional (NULL: the transport routes by node id, as the simulator):
     * node_id's endpoint became known or changed (the voter set in force,
     * KIP-853): the transport opens or replaces its channel to it, with the
     * settings of the configured peers' channels. host NULL: node_id is no
     * longer a peer; its channel may go. A replaced or dropped channel need
     * not answer its requests in flight (the executor gives them up). Never
     * called for this node, nor for a configured voter's endpoint as
     * configured. peer_send to a node without a channel returns false. */
    void (*peer_endpoint)(void *ctx, int32_t node_id, const char *host, uint16_t port);
    void (*reply)(void *ctx, void *slot, const uint8_t *data, size_t len);
    /* Optional (NULL: large answers go through reply too): completes slot
     * with a whole frame (4-byte size first) the callee owns and frees. */
    void (*reply_take)(void *ctx, void *slot, uint8_t *frame, size_t len);
    /* Optional (NULL: the executor reads the pieces and uses reply_take, or
     * reply): completes slot with a streamed Fetch answer (issue 19). frame
     * (len bytes, 4-byte size first counting the pieces too) and pieces (a
     * malloc'd array of count, at ascending) are the callee's to free; it
     * sends frame's bytes with each piece's range in place, reading them
     * with exec_stream_read as the socket drains. */
    void (*reply_stream)(void *ctx, void *slot, uint8_t *frame, size_t len,
                         exec_stream_piece *pieces, uint32_t count);
    void (*reply_none)(void *ctx, void *slot);
    void (*reply_close)(void *ctx, void *slot, const char *why);
    const char *(*slot_peer)(void *ctx, void *slot);
    /* Optional (NULL: request latency is not measured): a 64-bit cell of
     * the slot, zero when the slot is handed out, for the executor only. */
    uint64_t *(*slot_stamp)(void *ctx, void *slot);
    /* What the transport knows of slot's connection (kq/handler.h); NULL
     * when every connection may speak for the quorum. */
    void (*slot_conn)(void *ctx, void *slot, struct handler_conn *out);
    /* Optional (NULL: want): how many bytes of log data the answer to slot
     * may hold under the transport's response budget (kq/budget.h). */
    uint64_t (*slot_grant)(void *ctx, void *slot, uint64_t want);
    /* Optional: slot's connection completed SASL authentication (the
     * transport lifts sasl.server.max.receive.size for it). */
    void (*slot_authenticated)(void *ctx, void *slot);
    /* Optional: the handlers accepted a quorum request from replica_id on
     * slot's connection (kq/handler.h): the transport may move that
     * connection to the quorum's reserved resources (issue 19). */
    void (*slot_quorum_accepted)(void *ctx, void *slot, int32_t replica_id);
    /* Optional: closes the connection whose handler_conn.session cell is
     * session once what was answered on it left, dispatching none of its
     * frames (kq/handler.h: a SASL handshake evicted or expired); then
     * exec_conn_closed as for any close, never from within the call. */
    void (*session_close)(void *ctx, void **session, const char *why);
    /* Runs kq_log_flush_run(job) somewhere; then, on the loop thread, the
     * env calls exec_flush_done(x, job, rc) exactly once. */
    void (*flush_start)(void *ctx, kq_log_flush_job *job);
    /* Runs exec_snapshot_job_run(job) somewhere (it writes and fsyncs one
     * snapshot file, touching only the job); then, on the loop thread, the
     * env calls exec_snapshot_done(x, job, rc) exactly once. NULL: run at
     * once on the loop. */
    void (*snapshot_start)(void *ctx, struct exec_snapshot_job *job);
    /* Runs exec_search_job_run(job) somewhere (a ListOffsets search of the
     * log: it reads dup'd descriptors, touching only the job); then, on the
     * loop thread, the env calls exec_search_done(x, job, rc) exactly once,
     * or, for a job still out when the executor is destroyed, nothing (it
     * waits for the worker first; exec_destroy frees it). Up to
     * EXEC_TIME_SEARCHES_RUNNING_MAX are out at once. NULL: run at once on
     * the loop. */
    void (*search_start)(void *ctx, struct exec_search_job *job);
    /* Calls exec_on_timer no later than due_ms (re-arming replaces). */
    void (*arm_timer)(void *ctx, int64_t due_ms);
    /* The node must stop (never retried). The daemon exits; the simulator
     * marks the node dead. May return: the executor goes quiet. */
    void (*fatal)(void *ctx, const char *what, const char *detail);
    /* Simulator only (NULL in the daemon): asked before each action of an
     * output; true means the process dies right there (the env then
     * crashes the node; the executor goes quiet as after fatal). */
    bool (*crash_before_action)(void *ctx, const raft_action *action);
    /* Optional observers (NULL to skip). */
    void (*on_committed)(void *ctx, int64_t high_watermark);
    void (*on_truncated)(void *ctx, int64_t end_offset);
    void (*on_shutdown_complete)(void *ctx);
    /* A snapshot's file is about to be written (its state is fixed). */
    void (*on_snapshot)(void *ctx, raft_snapshot_id id);
    /* Writing that snapshot's file failed with rc (negative errno); the
     * executor then decides whether that is fatal (exec_snapshot_fail.c). */
    void (*on_snapshot_failed)(void *ctx, raft_snapshot_id id, int rc);
} exec_env;

typedef struct kq_exec kq_exec;

/* Opens the log and the quorum state through env->fs, rebuilds producer
 * state and creates the core and the handlers. NULL with err filled on a
 * refusal (corrupt log, bad quorum state). Call exec_start next. */
kq_exec *exec_create(const exec_config *config, const exec_env *env, char *err, size_t errlen);
/* The first step (a single voter elects itself here). */
void exec_start(kq_exec *x);
/* Frees everything. A flush job handed to env->flush_start must have been
 * completed with exec_flush_done, unless abandon_flush (a crash): then the
 * job is freed without publishing and nothing more is written to the disk
 * (kq_log_abandon rather than kq_log_close). */
void exec_destroy(kq_exec *x, bool abandon_flush);

/* One inbound client or peer request frame (header + body), modifiable. */
void exec_on_frame(kq_exec *x, void *slot, uint8_t *frame, size_t len);
/* A connection whose handler_conn.session cell was set has closed. */
void exec_conn_closed(kq_exec *x, void *session);
/* The answer to a request sent with env->peer_send (frame NULL: failed). */
void exec_on_peer_response(kq_exec *x, int32_t node_id, uint64_t tag, const uint8_t *frame,
                           size_t len);
void exec_on_timer(kq_exec *x);
/* Stops the built-in workload appending (the simulator, before its
 * end-of-run convergence check); what it appended is still followed until
 * committed. A no-op without a workload. */
void exec_workload_stop(kq_exec *x);
void exec_flush_done(kq_exec *x, kq_log_flush_job *job, int rc);
/* A snapshot job (env->snapshot_start): run on any thread, done on the loop. */
struct exec_snapshot_job;
int exec_snapshot_job_run(struct exec_snapshot_job *job);
void exec_snapshot_done(kq_exec *x, struct exec_snapshot_job *job, int rc);
/* A ListOffsets search (env->search_start). */
int exec_search_job_run(struct exec_search_job *job);
void exec_search_done(kq_exec *x, struct exec_search_job *job, int rc);
/* Graceful shutdown: a leader resigns with EndQuorumEpoch; then
 * env->on_shutdown_complete. */
void exec_request_shutdown(kq_exec *x);

/* Appends the executor's metrics in the Prometheus text format
 * (docs/metrics.md): the raft-metrics gauges, Kafka's sampled sensors and the
 * fsync, flush-size and per-API request latency histograms. */
struct kq_mtext;
void exec_metrics_write(kq_exec *x, struct kq_mtext *t);

/* The transport's read of a streamed answer's piece (env->reply_stream):
 * the next whole verified batches into buf (cap bytes) as
 * kq_log_cursor_read. Returns the bytes (> 0), 0 once the piece is done,
 * -ENOBUFS with *need set (a batch larger than cap), -ESTALE when the
 * segment went away since the plan (retention, a reset: the transport
 * closes that connection; counted and logged, not fatal), or another
 * negative value after which the transport closes the connection: a
 * corrupt or unreadable batch stops the node (exec_fatal), and after a
 * fatal every read fails. */
ssize_t exec_stream_read(kq_exec *x, kq_log_cursor *cur, uint8_t *buf, size_t cap, size_t *need);

/* Read-only views for the simulator's checkers and for log lines. */
bool exec_failed(const kq_exec *x);
const raft *exec_raft(const kq_exec *x);
/* The voter history exec_create handed to raft_create (KIP-853). */
const raft_voter_entry *exec_voter_history(const kq_exec *x, int *count);
kq_log *exec_log(kq_exec *x);
/* The handlers (tests call handler_next_deadline / handler_on_progress). */
struct handler *exec_handler(kq_exec *x);
/* The quorum state last made durable (what a restart would load). */
raft_quorum_state exec_stored_qstate(const kq_exec *x);

#endif
