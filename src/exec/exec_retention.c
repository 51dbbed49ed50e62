/* Retention of the log prefix (metadata.max.retention.bytes / .ms, Kafka's
 * KRaft rules): the log start only ever moves to the end of a durable
 * snapshot at or below the high watermark and the flushed offset, so there
 * is always a snapshot at the log start (SnapshotAtLogStart); storage then
 * deletes the whole segments below it. By size, the start moves to the
 * first snapshot that brings the log under the limit (or, if none does, the
 * furthest that frees a segment); by time, past the snapshot at the log
 * start once it is older than the limit. Snapshots below the log start are
 * deleted unless a follower read one within EXEC_SNAPSHOT_SERVED_KEEP_MS. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "exec_snapshot.h"
#include "kq/log_line.h"
#include "kq/snapshot_file.h"

static int64_t limit_bytes(const kq_exec *x)
{
    return x->cfg.retention_bytes ? x->cfg.retention_bytes : EXEC_RETENTION_BYTES_DEFAULT;
}

static int64_t limit_ms(const kq_exec *x)
{
    return x->cfg.retention_ms ? x->cfg.retention_ms : EXEC_RETENTION_MS_DEFAULT;
}

void exec_snapshot_forget(kq_exec *x, int i)
{
    raft_snapshot_id id = x->snap->files[i].id;
    int rc = kq_snapshot_delete(x->env.fs, x->log_dir, id);
    if (rc < 0 && rc != -ENOENT) {
        exec_fatal(x, "cannot delete a snapshot", strerror(-rc));
        return;
    }
    memmove(&x->snap->files[i], &x->snap->files[i + 1],
            sizeof(x->snap->files[0]) * (size_t)(x->snap->count - i - 1));
    x->snap->count--;
}

/* The snapshot end the log start should move to, or -1. */
static int64_t target(kq_exec *x, int64_t usable)
{
    int64_t start = kq_log_start_offset(x->log);
    int64_t lb = limit_bytes(x), lm = limit_ms(x);
    uint64_t size = kq_log_size_bytes(x->log);
    int64_t best = -1;
    for (int i = 0; i < x->snap->count; i++) {
        int64_t s = x->snap->files[i].id.end_offset;
        if (s <= start || s > usable)
            continue;
        uint64_t freed = kq_log_bytes_below(x->log, s);
        if (lb >= 0 && size > (uint64_t)lb && freed > 0) {
            best = s;
            if (size - freed <= (uint64_t)lb)
                return s;
        }
    }
    if (best >= 0)
        return best;
    for (int i = 0; i + 1 < x->snap->count && lm >= 0; i++) {
        const exec_snapshot_file *f = &x->snap->files[i];
        int64_t next = x->snap->files[i + 1].id.end_offset;
        if (f->id.end_offset == start && next <= usable &&
            exec_now(x) - f->timestamp_ms > lm)
            return next;
    }
    return -1;
}

void exec_retention_forget(kq_exec *x)
{
    if (x->failed || !x->raft)
        return;
    int64_t start = kq_log_start_offset(x->log);
    int64_t now = exec_now(x);
    for (int i = 0; i < x->snap->count && !x->failed;) {
        const exec_snapshot_file *f = &x->snap->files[i];
        bool served = f->served_ms >= 0 && now - f->served_ms < EXEC_SNAPSHOT_SERVED_KEEP_MS;
        if (f->id.end_offset < start && !served && i + 1 < x->snap->count)
            exec_snapshot_forget(x, i);
        else
            i++;
    }
}

bool exec_retention_advance(kq_exec *x)
{
    if (x->failed || !x->raft)
        return false;
    raft_status st;
    raft_get_status(x->raft, &st);
    int64_t usable = st.high_watermark;
    if (kq_log_flushed_offset(x->log) < usable)
        usable = kq_log_flushed_offset(x->log);
    int64_t before = kq_log_start_offset(x->log);
    uint64_t size_before = kq_log_size_bytes(x->log);
    int64_t to = target(x, usable);
    if (to > before) {
        char err[512];
        if (kq_log_advance_start(x->log, to, err, sizeof(err)) != 0) {
            exec_fatal(x, "cannot advance the log start", err);
            return false;
        }
        log_line("node %d: retention: log start %" PRId64 " -> %" PRId64 ", %" PRIu64
                 " -> %" PRIu64 " bytes in %d segments", x->cfg.node_id, before, to, size_before,
                 kq_log_size_bytes(x->log), kq_log_segment_count(x->log));
        return true;
    }
    return false;
}
