/* Repair of a log-start-offset-checkpoint that contradicts the log (issue
 * 19; FORMAT.md, "Log start offset"). Only in a quorum (the repair option):
 * a single voter refuses. The damaged value is never believed and deletes
 * nothing; the log start is recomputed from what the directory proves:
 * SnapshotAtLogStart makes the true start the end of a snapshot that lies
 * within the log at a batch boundary, and retention deletes the snapshots
 * below the start, so the oldest such snapshot is the true start unless an
 * older one survived (its records are still in the log, committed). A first
 * segment at 0 needs no snapshot. When nothing vouches for any start, the
 * log is emptied at the newest snapshot (or 0) and refetched from the
 * leader as corruption is: it votes as if it still had its former end. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kq/limits.h"
#include "recover.h"

/* The oldest snapshot end within the log at a batch boundary (any at or
 * above the first base when the log holds no batch), else 0 when the first
 * segment starts at 0, else -1. */
static int64_t vouched_start(kq_log *log, const raft_snapshot_id *ids, int n)
{
    int64_t first = storage_first_base(log), end = kq_log_end_offset(log);
    for (int i = 0; i < n; i++) {
        int64_t s = ids[i].end_offset;
        if (s < first || (s > end && end != first))
            continue;
        if (s < end && storage_boundary_position(log->fs, storage_segment_find(log, s), s) < 0)
            continue;
        return s;
    }
    return first == 0 ? 0 : -1;
}

/* What the checkpoint said and why it is not believed, for the note. */
static void said(const storage_recovery *rc, char *buf, size_t len)
{
    if (rc->damaged_parsed)
        snprintf(buf, len, "says %" PRId64 ", which %s", rc->damaged_value,
                 rc->start_bad ? rc->start_bad : "contradicts the log");
    else
        snprintf(buf, len, "does not parse");
}

/* Appends to the recovery note (it may already name a cut). */
static void note(storage_recovery *rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(storage_recovery *rc, const char *fmt, ...)
{
    size_t len = strlen(rc->note);
    if (len + 2 >= rc->notelen)
        return;
    if (len) {
        memcpy(rc->note + len, "; ", 3);
        len += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rc->note + len, rc->notelen - len, fmt, ap);
    va_end(ap);
}

/* Nothing vouches for a start: the corruption repair. The log is emptied
 * at the newest snapshot (or 0), keeping the evidence of its former end
 * and last epoch (kq_log_repair) so the node refetches it and votes as if
 * it still had it. */
static int repair_as_corruption(storage_recovery *rc, const raft_snapshot_id *ids, int n,
                                const char *what)
{
    kq_log *log = rc->log;
    int64_t first = storage_first_base(log), end = kq_log_end_offset(log);
    rc->start = n > 0 ? ids[n - 1].end_offset : 0;
    if (end > rc->start) {
        log->repair_end = end;
        log->repair_epoch = log->epoch_count ? log->epochs[log->epoch_count - 1].epoch : -1;
    }
    size_t segments = log->seg_count;
    int r = storage_recover_empty_at_start(rc, false);
    if (r < 0)
        return r;
    log->start_offset = rc->start;
    note(rc,
             "%s/" STORAGE_START_CHECKPOINT " %s (the log holds %" PRId64 "..%" PRId64
             "): not believed; no snapshot lies within the log, so nothing on disk vouches "
             "for a log start: emptied the log at %" PRId64 " (%s; %zu segment(s) deleted); the "
             "damaged file kept as " STORAGE_START_DAMAGED,
             log->dir, what, first, end, rc->start,
             n > 0 ? "the newest snapshot" : "no snapshot", segments);
    if (log->repair_end > rc->start)
        note(rc, "repairing: refetching offsets %" PRId64 "..%" PRId64 " from the leader",
             rc->start, log->repair_end - 1);
    return 0;
}

int storage_recover_start_repair(storage_recovery *rc)
{
    kq_log *log = rc->log;
    raft_snapshot_id ids[STORAGE_START_SNAPSHOTS_LISTED_MAX];
    int n = storage_start_snapshots(log, ids, STORAGE_START_SNAPSHOTS_LISTED_MAX);
    if (n < 0) {
        storage_errf(rc->err, rc->errlen, "cannot list the snapshots in %s: %s", log->dir,
                     strerror(-n));
        return n;
    }
    char what[160];
    said(rc, what, sizeof what);
    log->start_repaired = true;
    int64_t first = storage_first_base(log), end = kq_log_end_offset(log);
    int64_t s = vouched_start(log, ids, n);
    if (s < 0)
        return repair_as_corruption(rc, ids, n, what);
    if (end == first && s != first) {
        rc->start = s; /* a log holding no batch moves to the snapshot */
        int r = storage_recover_empty_at_start(rc, false);
        if (r < 0)
            return r;
    }
    log->start_offset = s;
    note(rc,
             "%s/" STORAGE_START_CHECKPOINT " %s (the log holds %" PRId64 "..%" PRId64
             "): not believed, nothing deleted; the log start is %" PRId64
             " (%s); the damaged file kept as " STORAGE_START_DAMAGED,
             log->dir, what, first, end, s,
             s == 0 && first == 0 && (n == 0 || ids[0].end_offset != 0)
                 ? "the first segment's base"
                 : "the end of the oldest snapshot within the log");
    return 0;
}
