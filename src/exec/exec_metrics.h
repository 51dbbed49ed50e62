/* What the executor measures for the metrics endpoint (docs/metrics.md):
 * fsync latency and bytes per flush, per-API request latency, Kafka's
 * raft-metrics sensors (commit and election latency, append and fetch
 * record rates). All state is fixed-size inside kq_exec; every hook is O(1)
 * amortised and allocates nothing. Times come from the exec clock seam
 * (env->now_ms; env->now_us when given), so the simulator's clock drives
 * them there. */
#ifndef KQ_EXEC_METRICS_H
#define KQ_EXEC_METRICS_H

#include <stdint.h>

#include "exec_state.h"

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
