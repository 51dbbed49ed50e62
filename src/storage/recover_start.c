/* Recovery of the log start offset L (FORMAT.md, "Log start offset",
 * "Recovery"): before the segments are recovered, the files wholly below L
 * are deleted and the recovery point is reconciled with the first file
 * left; afterwards L is checked against the recovered log, and a log
 * holding nothing at or above L becomes the empty log at L. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/assert.h"
#include "kq/limits.h"
#include "kq/snapshot_file.h"
#include "recover.h"

static void add_note(storage_recovery *rc, const char *fmt, int64_t a, int64_t b)
{
    size_t len = strlen(rc->note);
    if (len < rc->notelen)
        snprintf(rc->note + len, rc->notelen - len, fmt, len ? "; " : "", a, b);
}

/* Moves the segment files [0, k) of rc->bases to rc->below. */
static int set_aside(storage_recovery *rc, size_t k)
{
    rc->below = malloc(k * sizeof *rc->below);
    if (!rc->below) {
        storage_errf(rc->err, rc->errlen, "out of memory");
        return -ENOMEM;
    }
    memcpy(rc->below, rc->bases, k * sizeof *rc->below);
    rc->below_n = k;
    memmove(rc->bases, rc->bases + k, (rc->n - k) * sizeof *rc->bases);
    rc->n -= k;
    return 0;
}

/* Deletes the files set aside (the directory is fsync'd by open). */
static int delete_below(storage_recovery *rc)
{
    kq_log *log = rc->log;
    char path[STORAGE_PATH_MAX];
    for (size_t i = 0; i < rc->below_n; i++) {
        if (storage_segment_path(log, rc->below[i], ".log", path, sizeof path) < 0)
            return -ENAMETOOLONG;
        int r = log->fs->unlink(log->fs->ctx, path);
        if (r < 0 && r != -ENOENT) {
            storage_errf(rc->err, rc->errlen, "cannot delete %s: %s", path, strerror(-r));
            return r;
        }
        if (storage_segment_path(log, rc->below[i], ".index", path, sizeof path) == 0)
            log->fs->unlink(log->fs->ctx, path);
    }
    if (rc->below_n)
        add_note(rc, "%sdeleted %" PRId64 " segment(s) below the log start %" PRId64,
                 (int64_t)rc->below_n, rc->start);
    return 0;
}

/* The recovery point describes the files left: a record written before
 * kq_log_advance_start or kq_log_reset deleted segments names a first
 * segment (and maybe a location) that is gone. */
static void reconcile_rp(storage_recovery *rc)
{
    kq_log *log = rc->log;
    storage_rp *rp = &log->rp;
    int64_t first = rc->n ? rc->bases[0] : rc->start;
    if (rp->start == first)
        return;
    bool fresh = rp->offset == rp->start; /* claims nothing durable */
    if (!fresh && !(rp->start < first && first <= rc->start))
        return; /* the layout check refuses */
    if (!fresh && rc->n && rp->loc.segment >= first) {
        rp->start = first; /* its location is still there */
    } else if (fresh || rp->offset <= rc->start) {
        rp->offset = rp->start = first; /* what it named lies below L */
        rp->loc = (storage_loc){first, 0};
    } else {
        return;
    }
    log->rp_stale = true;
}

int storage_start_snapshots(const kq_log *log, raft_snapshot_id *ids, int max)
{
    char parent[STORAGE_PATH_MAX];
    size_t len = strlen(log->dir), tail = strlen("/" KQ_LOG_PARTITION_DIR);
    KQ_ASSERT(len > tail && len - tail < sizeof parent);
    memcpy(parent, log->dir, len - tail);
    parent[len - tail] = '\0';
    return kq_snapshot_list(log->fs, parent, ids, max, false);
}

/* Whether a snapshot file in the log's directory ends at offset. */
static int snapshot_ends_at(const kq_log *log, int64_t offset, bool *found)
{
    raft_snapshot_id ids[STORAGE_START_SNAPSHOTS_LISTED_MAX];
    int n = storage_start_snapshots(log, ids, STORAGE_START_SNAPSHOTS_LISTED_MAX);
    if (n < 0)
        return n;
    *found = false;
    for (int i = 0; i < n; i++)
        *found |= ids[i].end_offset == offset;
    return 0;
}

/* SnapshotAtLogStart: a checkpoint L > 0 is the end of a durable snapshot
 * (retention and reset write it only then). Decided before anything is
 * touched, so a damaged checkpoint deletes nothing. */
static int vouch_start(storage_recovery *rc)
{
    kq_log *log = rc->log;
    int r = snapshot_ends_at(log, rc->start, &rc->start_vouched);
    if (r < 0) {
        storage_errf(rc->err, rc->errlen, "cannot list the snapshots in %s: %s", log->dir,
                     strerror(-r));
        return r;
    }
    if (rc->start_vouched || !log->snapshot_at_start || rc->start == 0)
        return 0;
    rc->start_bad = "is the end of no snapshot as SnapshotAtLogStart requires";
    storage_errf(rc->err, rc->errlen,
                 "corrupt %s/" STORAGE_START_CHECKPOINT ": it says the log starts at %" PRId64
                 ", but no snapshot ends there (SnapshotAtLogStart); refusing to open, nothing "
                 "deleted",
                 log->dir, rc->start);
    return -EUCLEAN;
}

/* The repair pass: what the checkpoint said is kept for the note, and
 * nothing is set aside on its word. */
static void distrust(storage_recovery *rc, bool parsed)
{
    rc->start_damaged = true;
    rc->damaged_parsed = parsed;
    rc->damaged_value = parsed ? rc->start : -1;
    rc->has_start = false;
    rc->err[0] = '\0';
}

int storage_recover_start_prepare(storage_recovery *rc, bool found)
{
    int r = storage_start_load(rc->log, &rc->start, rc->err, rc->errlen);
    if (r == -EUCLEAN) {
        rc->start_bad = "does not parse";
        if (rc->distrust_start)
            distrust(rc, false);
        return rc->distrust_start ? 0 : r;
    }
    if (r < 0)
        return r;
    rc->has_start = r == 1;
    if (!rc->has_start)
        return 0;
    if (rc->distrust_start) {
        distrust(rc, true);
        return 0;
    }
    if ((r = vouch_start(rc)) < 0)
        return r;
    size_t k = 0; /* files wholly below L; never the last one */
    while (k + 1 < rc->n && rc->bases[k + 1] <= rc->start)
        k++;
    if (k > 0 && (r = set_aside(rc, k)) < 0)
        return r;
    if (found)
        reconcile_rp(rc);
    return 0;
}

/* Nothing at or above L survived: every segment goes, the empty log at L. */
int storage_recover_empty_at_start(storage_recovery *rc, bool note)
{
    kq_log *log = rc->log;
    int64_t end = kq_log_end_offset(log);
    while (log->seg_count > 0) {
        int r = storage_segment_delete_files(log, &log->segs[--log->seg_count]);
        if (r < 0) {
            storage_errf(rc->err, rc->errlen, "cannot delete a segment in %s: %s", log->dir,
                         strerror(-r));
            return r;
        }
    }
    log->epoch_count = 0;
    if (note && end != rc->start)
        add_note(rc, "%sthe log ended at %" PRId64 ", below its start %" PRId64
                 ": empty from there", end, rc->start);
    return storage_segment_create(log, rc->start, rc->err, rc->errlen);
}

/* Whether the log recovered so far (its cut decided, nothing written yet)
 * holds no batch, or ends below L: then it becomes the empty log at L. */
static bool empties(const storage_recovery *rc)
{
    const kq_log *log = rc->log;
    int64_t first = storage_first_base(log), end = kq_log_end_offset(log);
    return end < rc->start || (end == first && first != rc->start);
}

int storage_recover_start_check(storage_recovery *rc)
{
    kq_log *log = rc->log;
    if (!rc->has_start || log->seg_count == 0)
        return 0;
    int64_t first = storage_first_base(log), end = kq_log_end_offset(log), l = rc->start;
    const char *why = NULL;
    if (empties(rc)) {
        /* A crash in a reset leaves no batch; a log holding batches that
         * all lie below L is believed only with the snapshot ending at L. */
        if (end != first && !rc->start_vouched)
            why = "lies above the log end, and no snapshot ends there";
    } else if (l < first) {
        why = "lies below the first segment";
    } else if (l < end &&
               storage_boundary_position(log->fs, storage_segment_find(log, l), l) < 0) {
        why = "is not a batch boundary";
    }
    if (!why)
        return 0;
    rc->start_bad = why;
    storage_errf(rc->err, rc->errlen,
                 "corrupt log %s: the log start %" PRId64 " of " STORAGE_START_CHECKPOINT
                 " %s (the log holds %" PRId64 "..%" PRId64 "); refusing to open, nothing "
                 "deleted",
                 log->dir, l, why, first, end);
    return -EUCLEAN;
}

int storage_recover_start_settle(storage_recovery *rc)
{
    kq_log *log = rc->log;
    log->start_offset = storage_first_base(log);
    if (rc->start_damaged)
        return storage_recover_start_repair(rc);
    if (!rc->has_start)
        return 0; /* a log from before the file: L is the first base */
    int r = 0;
    if (empties(rc)) {
        r = delete_below(rc);
        if (r == 0)
            r = storage_recover_empty_at_start(rc, true);
    } else {
        r = delete_below(rc);
    }
    if (r == 0)
        log->start_offset = rc->start;
    return r;
}
