/* What the executor measures for the metrics endpoint (docs/metrics.md):
 * fsync latency and bytes per flush, per-API request latency, Kafka's
 * raft-metrics sensors (commit and election latency, append and fetch
 * record rates). All state is fixed-size, allocated once at create
 * (kq_exec.metrics); every hook is O(1) amortised and allocates nothing. Times come from the exec clock seam
 * (env->now_ms; env->now_us when given), so the simulator's clock drives
 * them there. */
#ifndef KQ_EXEC_METRICS_H
#define KQ_EXEC_METRICS_H

#include <stdint.h>

#include "exec_state.h"
#include "kq/metrics.h"

/* What the executor measures: its state (kq_exec.metrics), touched only
 * by exec_metrics.c. */
typedef struct exec_commit_pending {
    int64_t last_offset;
    int64_t appended_ms;
} exec_commit_pending;

typedef struct exec_metrics {
    kq_histogram fsync_s;
    kq_histogram flush_batch_bytes;
    kq_histogram request_s[KQ_METRICS_API_KEYS_MAX];
    kq_window commit_latency_ms;
    kq_window election_latency_ms;
    kq_window append_records;
    kq_window fetch_records;
    uint64_t appended_bytes;       /* since the last flush began */
    uint64_t flush_bytes;          /* what the flush in flight covers */
    int64_t flush_start_us;
    int64_t election_start_ms;     /* -1: no election running */
    exec_commit_pending pending[KQ_METRICS_COMMIT_PENDING_MAX];
    uint32_t pending_head;
    uint32_t pending_count;
    /* Issue 19: offset-commit records of ours skipped as unparsable. */
    uint64_t records_unparsable_skipped;
    /* Issue 19: streamed Fetch answers (exec_stream.c): sent, and cut
     * because their segment went away between plan and read. */
    uint64_t fetch_streamed;
    uint64_t fetch_stream_stale;
} exec_metrics;

/* NULL: out of memory. Destroy takes NULL. exec_metrics_init starts the
 * windows at the executor's clock. */
exec_metrics *exec_metrics_create(void);
void exec_metrics_destroy(exec_metrics *m);

void exec_metrics_init(struct kq_exec *x);
/* A request frame arrived for slot (stamped through env->slot_stamp). */
void exec_metrics_request(struct kq_exec *x, void *slot, const uint8_t *frame, size_t len);
/* slot was answered (a response queued, none, or a close). */
void exec_metrics_answered(struct kq_exec *x, void *slot);
void exec_metrics_flush_started(struct kq_exec *x);
void exec_metrics_flush_done(struct kq_exec *x);
/* The log took len bytes (leader or follower append); records: offsets
 * a follower appended from a fetch (0 for a leader append). */
void exec_metrics_log_appended(struct kq_exec *x, size_t len, int64_t fetched_records);
/* A client append was accepted as leader: records [last_offset - n + 1,
 * last_offset]. */
void exec_metrics_leader_appended(struct kq_exec *x, int64_t last_offset, int32_t n);
void exec_metrics_committed(struct kq_exec *x, int64_t high_watermark);
void exec_metrics_role(struct kq_exec *x, enum raft_role role);
/* Counters the parts bump (issue 19): offset-commit records of ours skipped
 * as unparsable (exec_offsets.c); a streamed Fetch answer sent, or cut as
 * stale (exec_stream.c). */
void exec_metrics_unparsable_skipped(struct kq_exec *x, uint64_t count);
void exec_metrics_fetch_streamed(struct kq_exec *x);
void exec_metrics_fetch_stream_stale(struct kq_exec *x);
/* What is measured, read-only (the metrics text, exec_metrics_text.c). */
const exec_metrics *exec_metrics_view(const struct kq_exec *x);

#endif
