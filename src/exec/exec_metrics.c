/* The executor's measuring hooks (exec_metrics.h): cheap, fixed-size,
 * called from a few places of the step path and the handlers' replies. */
#include <stdlib.h>
#include <string.h>

#include "exec_metrics.h"

/* A slot's stamp: API key + 1 in the top 16 bits, the arrival time in
 * microseconds below (2^48 us is 8.9 years of the clock). */
#define STAMP_TIME_MASK ((UINT64_C(1) << 48) - 1)

void exec_metrics_init(kq_exec *x)
{
    exec_metrics *m = x->metrics;
    int64_t now = exec_now(x);
    kq_histogram_init(&m->fsync_s, kq_metrics_latency_bounds_s, kq_metrics_latency_bound_count);
    kq_histogram_init(&m->flush_batch_bytes, kq_metrics_size_bounds_bytes,
                      kq_metrics_size_bound_count);
    for (int i = 0; i < KQ_METRICS_API_KEYS_MAX; i++)
        kq_histogram_init(&m->request_s[i], kq_metrics_latency_bounds_s,
                          kq_metrics_latency_bound_count);
    kq_window_init(&m->commit_latency_ms, KQ_METRICS_WINDOW_MS, now);
    kq_window_init(&m->election_latency_ms, KQ_METRICS_WINDOW_MS, now);
    kq_window_init(&m->append_records, KQ_METRICS_WINDOW_MS, now);
    kq_window_init(&m->fetch_records, KQ_METRICS_WINDOW_MS, now);
    m->election_start_ms = -1;
}

void exec_metrics_request(kq_exec *x, void *slot, const uint8_t *frame, size_t len)
{
    if (!x->env.slot_stamp || len < 2)
        return;
    unsigned api = (unsigned)frame[0] << 8 | frame[1]; /* a negative int16 key: >= 0x8000 */
    if (api >= KQ_METRICS_API_KEYS_MAX)
        return;
    uint64_t *stamp = x->env.slot_stamp(x->env.ctx, slot);
    if (!stamp)
        return;
    *stamp = (uint64_t)(api + 1) << 48 | ((uint64_t)exec_now_us(x) & STAMP_TIME_MASK);
}

void exec_metrics_answered(kq_exec *x, void *slot)
{
    if (!x->env.slot_stamp)
        return;
    uint64_t *stamp = x->env.slot_stamp(x->env.ctx, slot);
    if (!stamp || *stamp == 0)
        return;
    int api = (int)(*stamp >> 48) - 1;
    uint64_t now = (uint64_t)exec_now_us(x) & STAMP_TIME_MASK;
    uint64_t elapsed_us = (now - (*stamp & STAMP_TIME_MASK)) & STAMP_TIME_MASK;
    *stamp = 0;
    if (api >= 0 && api < KQ_METRICS_API_KEYS_MAX)
        kq_histogram_observe(&x->metrics->request_s[api], (double)elapsed_us / 1e6);
}

void exec_metrics_flush_started(kq_exec *x)
{
    exec_metrics *m = x->metrics;
    m->flush_bytes = m->appended_bytes;
    m->appended_bytes = 0;
    m->flush_start_us = exec_now_us(x);
}

void exec_metrics_flush_done(kq_exec *x)
{
    exec_metrics *m = x->metrics;
    int64_t elapsed_us = exec_now_us(x) - m->flush_start_us;
    kq_histogram_observe(&m->fsync_s, (double)(elapsed_us > 0 ? elapsed_us : 0) / 1e6);
    kq_histogram_observe(&m->flush_batch_bytes, (double)m->flush_bytes);
}

void exec_metrics_log_appended(kq_exec *x, size_t len, int64_t fetched_records)
{
    x->metrics->appended_bytes += len;
    if (fetched_records > 0)
        kq_window_record(&x->metrics->fetch_records, (double)fetched_records, exec_now(x));
}

void exec_metrics_leader_appended(kq_exec *x, int64_t last_offset, int32_t n)
{
    exec_metrics *m = x->metrics;
    int64_t now = exec_now(x);
    kq_window_record(&m->append_records, (double)n, now);
    if (m->pending_count == KQ_METRICS_COMMIT_PENDING_MAX)
        return; /* not sampled: the oldest still wait */
    uint32_t i = (m->pending_head + m->pending_count) % KQ_METRICS_COMMIT_PENDING_MAX;
    m->pending[i] = (exec_commit_pending){.last_offset = last_offset, .appended_ms = now};
    m->pending_count++;
}

/* Kafka's commit-latency: per append as leader, from the append to the
 * high watermark covering it. */
void exec_metrics_committed(kq_exec *x, int64_t high_watermark)
{
    exec_metrics *m = x->metrics;
    int64_t now = exec_now(x);
    while (m->pending_count > 0 && m->pending[m->pending_head].last_offset < high_watermark) {
        int64_t elapsed_ms = now - m->pending[m->pending_head].appended_ms;
        kq_window_record(&m->commit_latency_ms, (double)(elapsed_ms > 0 ? elapsed_ms : 0), now);
        m->pending_head = (m->pending_head + 1) % KQ_METRICS_COMMIT_PENDING_MAX;
        m->pending_count--;
    }
}

/* Kafka's election-latency: from becoming candidate (here also
 * prospective, KIP-996) to knowing a leader (leader or follower). */
void exec_metrics_role(kq_exec *x, enum raft_role role)
{
    exec_metrics *m = x->metrics;
    int64_t now = exec_now(x);
    if (role != RAFT_ROLE_LEADER)
        m->pending_count = 0; /* those appends are no longer ours to see committed */
    if (role == RAFT_ROLE_CANDIDATE || role == RAFT_ROLE_PROSPECTIVE) {
        if (m->election_start_ms < 0)
            m->election_start_ms = now;
    } else if ((role == RAFT_ROLE_LEADER || role == RAFT_ROLE_FOLLOWER) &&
               m->election_start_ms >= 0) {
        kq_window_record(&m->election_latency_ms, (double)(now - m->election_start_ms), now);
        m->election_start_ms = -1;
    }
}

void exec_metrics_unparsable_skipped(kq_exec *x, uint64_t count)
{
    x->metrics->records_unparsable_skipped += count;
}

void exec_metrics_fetch_streamed(kq_exec *x)
{
    x->metrics->fetch_streamed++;
}

void exec_metrics_fetch_stream_stale(kq_exec *x)
{
    x->metrics->fetch_stream_stale++;
}

const exec_metrics *exec_metrics_view(const kq_exec *x)
{
    return x->metrics;
}

exec_metrics *exec_metrics_create(void)
{
    return calloc(1, sizeof(exec_metrics));
}

void exec_metrics_destroy(exec_metrics *m)
{
    free(m);
}
