/* The built-in workload (issue 10), as Kafka's TestRaftServer runs one:
 * while this node leads, it appends workload_records_per_s records of
 * workload_record_bytes each through the same CLIENT_APPEND path, log
 * append, flush and commit as client writes, and measures each record's
 * latency from its append to the high watermark covering it. Every
 * EXEC_WORKLOAD_REPORT_MS it logs Kafka's line:
 *   Throughput (bytes/second): X, Latency (ms): P75 a P99 b P999 c
 * A follower that becomes leader takes the workload over from its own
 * clock; what an old leader appended and never saw committed is dropped
 * from its figures. Each value starts with 8 unique bytes (big-endian:
 * 0xE0 | node id in the top byte, the leader epoch, then a sequence), so
 * that a record stored twice can be told apart; the rest is 'x'. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "exec_workload.h"
#include "kq/assert.h"
#include "kq/kafka_errors.h"
#include "kq/log_line.h"
#include "kq/record.h"

typedef struct wl_pending {
    int64_t last_offset;
    int64_t appended_ms;
    int32_t count;
} wl_pending;

struct exec_workload {
    uint32_t rate;          /* records per second */
    bool stopped;           /* exec_workload_stop: appends nothing more */
    uint32_t record_bytes;
    int32_t epoch;          /* the leadership it runs in; -1 none */
    int64_t started_ms;
    int64_t tick_ms;        /* the tick whose appends are being made */
    int32_t batch_count;    /* records in the batch handed out */
    uint64_t sent;          /* records appended since started_ms */
    wl_pending pending[EXEC_WORKLOAD_PENDING_MAX];
    int head, count;
    int64_t window_ms;      /* start of the report window */
    uint64_t window_bytes;  /* committed in it */
    uint64_t hist[EXEC_WORKLOAD_LATENCY_MS_MAX + 1];
    uint64_t hist_n;
    uint8_t *values;        /* one batch's values, record_bytes each */
    record *records;
    kq_writer batch;
};

static int64_t batch_records_max(const exec_workload *w);

bool exec_workload_create(kq_exec *x)
{
    if (x->cfg.workload_records_per_s == 0)
        return true;
    exec_workload *w = calloc(1, sizeof(*w));
    if (!w)
        return false;
    w->rate = x->cfg.workload_records_per_s;
    w->record_bytes = x->cfg.workload_record_bytes;
    KQ_ASSERT(w->record_bytes <= EXEC_WORKLOAD_RECORD_BYTES_MAX);
    w->epoch = -1;
    w->values = calloc((size_t)batch_records_max(w), w->record_bytes ? w->record_bytes : 1);
    w->records = calloc(EXEC_WORKLOAD_BATCH_RECORDS_MAX, sizeof(record));
    if (!w->values || !w->records) {
        free(w->values);
        free(w->records);
        free(w);
        return false;
    }
    memset(w->values, 'x', (size_t)batch_records_max(w) * w->record_bytes);
    kq_writer_init(&w->batch, EXEC_WORKLOAD_BATCH_BYTES_MAX);
    x->workload = w;
    return true;
}

void exec_workload_destroy(kq_exec *x)
{
    exec_workload *w = x->workload;
    if (!w)
        return;
    kq_writer_free(&w->batch);
    free(w->records);
    free(w->values);
    free(w);
    x->workload = NULL;
}

/* How many records of one batch fit: by count and by bytes. */
static int64_t batch_records_max(const exec_workload *w)
{
    int64_t by_bytes = (int64_t)(EXEC_WORKLOAD_BATCH_BYTES_MAX / 2) / (w->record_bytes + 16);
    if (by_bytes < 1)
        by_bytes = 1;
    return by_bytes < EXEC_WORKLOAD_BATCH_RECORDS_MAX ? by_bytes : EXEC_WORKLOAD_BATCH_RECORDS_MAX;
}

/* Builds one batch of n records in w->batch. */
static bool build_batch(kq_exec *x, exec_workload *w, int n, int64_t now)
{
    for (int i = 0; i < n; i++) {
        uint8_t *v = w->values + (size_t)i * w->record_bytes;
        uint64_t id = (uint64_t)(0xE0u | ((uint32_t)x->cfg.node_id & 0x0Fu)) << 56 |
                      ((uint64_t)(uint32_t)w->epoch & 0xFFFFFFu) << 32 |
                      ((w->sent + (uint64_t)i) & 0xFFFFFFFFu);
        for (uint32_t k = 0; k < 8 && k < w->record_bytes; k++)
            v[k] = (uint8_t)(id >> (8 * (7 - k)));
        w->records[i] = (record){.timestamp = now, .key = {NULL, -1},
                                 .value = {v, (int32_t)w->record_bytes}};
    }
    kq_writer_reset(&w->batch);
    record_batch_builder_args args = {.base_offset = 0, .base_timestamp = now,
                                      .producer_id = -1, .producer_epoch = -1,
                                      .base_sequence = -1, .records = w->records,
                                      .record_count = n};
    return record_batch_build(&w->batch, &args);
}

bool exec_workload_tick(kq_exec *x)
{
    exec_workload *w = x->workload;
    if (!w || x->failed)
        return false;
    raft_status st;
    raft_get_status(x->raft, &st);
    int64_t now = exec_now(x);
    if (st.role != RAFT_ROLE_LEADER) {
        w->epoch = -1;
        w->count = 0; /* not ours to see committed any more */
        return false;
    }
    if (w->epoch != st.epoch) { /* a new leadership: a new run */
        w->epoch = st.epoch;
        w->started_ms = w->window_ms = now;
        w->sent = w->window_bytes = w->hist_n = 0;
        w->head = w->count = 0;
        memset(w->hist, 0, sizeof(w->hist));
        log_line("node %d: workload of %" PRIu32 " records/s of %" PRIu32 " bytes started",
                 x->cfg.node_id, w->rate, w->record_bytes);
    }
    w->tick_ms = now;
    return !w->stopped;
}

bool exec_workload_next(kq_exec *x, raft_event *ev)
{
    exec_workload *w = x->workload;
    uint64_t due = (uint64_t)(w->tick_ms - w->started_ms) * w->rate / 1000;
    if (due <= w->sent || w->count >= EXEC_WORKLOAD_PENDING_MAX)
        return false;
    int64_t n = (int64_t)(due - w->sent);
    if (n > batch_records_max(w))
        n = batch_records_max(w);
    if (!build_batch(x, w, (int)n, w->tick_ms))
        return false;
    w->batch_count = (int32_t)n;
    *ev = (raft_event){.type = RAFT_EVENT_CLIENT_APPEND};
    ev->append.records = w->batch.data;
    ev->append.len = w->batch.len;
    ev->append.offset_count = (int32_t)n;
    return true;
}

bool exec_workload_appended(kq_exec *x, const kq_request_result *res)
{
    exec_workload *w = x->workload;
    if (x->failed || res->error != KAFKA_NONE)
        return false; /* not leader any more, or a full log: tried again next tick */
    wl_pending *p = &w->pending[(w->head + w->count) % EXEC_WORKLOAD_PENDING_MAX];
    *p = (wl_pending){.last_offset = res->last_offset, .appended_ms = w->tick_ms,
                      .count = w->batch_count};
    w->count++;
    w->sent += (uint64_t)w->batch_count;
    return true;
}

/* Records below hw are committed: their latencies go into the window. */
void exec_workload_committed(kq_exec *x, int64_t hw)
{
    exec_workload *w = x->workload;
    if (!w)
        return;
    int64_t now = exec_now(x);
    while (w->count > 0 && w->pending[w->head].last_offset < hw) {
        const wl_pending *p = &w->pending[w->head];
        int64_t ms = now - p->appended_ms;
        if (ms > EXEC_WORKLOAD_LATENCY_MS_MAX)
            ms = EXEC_WORKLOAD_LATENCY_MS_MAX;
        w->hist[ms] += (uint64_t)p->count;
        w->hist_n += (uint64_t)p->count;
        w->window_bytes += (uint64_t)p->count * w->record_bytes;
        w->head = (w->head + 1) % EXEC_WORKLOAD_PENDING_MAX;
        w->count--;
    }
}

static int64_t percentile_ms(const exec_workload *w, uint64_t per_mille)
{
    uint64_t want = (w->hist_n * per_mille + 999) / 1000, seen = 0;
    for (int64_t ms = 0; ms <= EXEC_WORKLOAD_LATENCY_MS_MAX; ms++) {
        seen += w->hist[ms];
        if (seen >= want && want > 0)
            return ms;
    }
    return 0;
}

/* Kafka's TestRaftServer line, every EXEC_WORKLOAD_REPORT_MS while leader. */
void exec_workload_report(kq_exec *x)
{
    exec_workload *w = x->workload;
    int64_t now = exec_now(x);
    if (!w || w->epoch < 0 || now - w->window_ms < EXEC_WORKLOAD_REPORT_MS)
        return;
    int64_t elapsed_ms = now - w->window_ms;
    log_line("Throughput (bytes/second): %" PRIu64 ", Latency (ms): P75 %" PRId64 " P99 %" PRId64
             " P999 %" PRId64, w->window_bytes * 1000 / (uint64_t)elapsed_ms,
             percentile_ms(w, 750), percentile_ms(w, 990), percentile_ms(w, 999));
    memset(w->hist, 0, sizeof(w->hist));
    w->hist_n = 0;
    w->window_bytes = 0;
    w->window_ms = now;
}

void exec_workload_stop(kq_exec *x)
{
    if (x->workload)
        x->workload->stopped = true;
}

/* When the timer must come back: the next record due, or the report. */
int64_t exec_workload_due(const kq_exec *x)
{
    const exec_workload *w = x->workload;
    if (w && w->stopped)
        return INT64_MAX;
    if (!w || w->epoch < 0)
        return w ? exec_now((kq_exec *)x) + 100 : INT64_MAX; /* notice leadership soon */
    /* The millisecond the next record falls due (rounded up), and never
     * now or earlier: a timer due at once would run again in the same loop
     * turn, at the same time, forever. */
    int64_t next = w->started_ms + (int64_t)(((w->sent + 1) * 1000 + w->rate - 1) / w->rate);
    int64_t now = exec_now((kq_exec *)x);
    if (next <= now)
        next = now + 1;
    int64_t report = w->window_ms + EXEC_WORKLOAD_REPORT_MS;
    return next < report ? next : report;
}
