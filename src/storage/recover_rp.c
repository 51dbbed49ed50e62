/* Recovery from the recovery point (FORMAT.md, "Recovery"). Segments whose
 * batches all lie below it are trusted after a cheap check; the segment
 * holding it is checked up to it and scanned after it, and so is every
 * later segment. Anything wrong below the recovery point is corruption:
 * recovery refuses. Anything wrong above it is an unacknowledged tail: it
 * is cut there and later segments are deleted. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recover.h"

/* Decides to cut at w->pos (the files after w->seg are deleted). */
static int cut_here(storage_recovery *rc, rwalk *w, const char *what, const char *side)
{
    rc->cut = true;
    rc->cut_pos = w->pos;
    snprintf(rc->note, rc->notelen,
             "truncated %s of %s at position %" PRIu64 ", %s the recovery point %" PRId64
             " (%" PRIu64 " bytes dropped: %s at offset %" PRId64 ")",
             what, w->path, w->pos, side, rc->log->rp.offset, w->b.file_size - w->pos, w->why,
             w->next);
    return 0;
}

/* The end of the whole CRC-valid batches that a later segment file holds
 * from its start, following on from base (within RECOVER_RESYNC_BYTES_MAX);
 * base when there are none or it cannot be read. */
static int64_t later_segment_end(const kq_log *log, int64_t base)
{
    const kq_fs *fs = log->fs;
    char path[STORAGE_PATH_MAX];
    if (storage_segment_path(log, base, ".log", path, sizeof path) < 0)
        return base;
    int fd = fs->open(fs->ctx, path, KQ_FS_READ);
    if (fd < 0)
        return base;
    scan_buf b = {.fs = fs, .fd = fd};
    int64_t end = base;
    if (fs->size(fs->ctx, fd, &b.file_size) == 0) {
        uint64_t stop = b.file_size < RECOVER_RESYNC_BYTES_MAX ? b.file_size
                                                                : RECOVER_RESYNC_BYTES_MAX;
        for (uint64_t p = 0; p + RECORD_BATCH_HEADER_BYTES <= stop;) {
            record_batch_header h;
            int io_err = 0;
            if (recover_check_at(&b, p, b.file_size, &h, &io_err) != RECORD_OK ||
                h.base_offset != end || record_batch_last_offset(&h) == INT64_MAX)
                break;
            end = record_batch_last_offset(&h) + 1;
            p += record_batch_size(&h);
        }
        free(b.data);
    }
    fs->close(fs->ctx, fd);
    return end;
}

/* The end of the last whole batch found after the damage in this segment
 * (resynchronising byte by byte, within RECOVER_RESYNC_BYTES_MAX), of the
 * whole batches at the start of the later segment files, or the recovery
 * point, whichever is furthest: flushed batches above the recovery point
 * may lie in a later segment, and the repair must not claim less. */
static int64_t former_end(storage_recovery *rc, rwalk *w)
{
    int64_t end = rc->log->rp.offset;
    for (size_t i = 0; i < rc->n; i++) {
        if (rc->bases[i] <= w->seg->base_offset)
            continue;
        int64_t e = later_segment_end(rc->log, rc->bases[i]);
        if (e > end)
            end = e;
    }
    uint64_t stop = w->b.file_size;
    if (stop - w->pos > RECOVER_RESYNC_BYTES_MAX)
        stop = w->pos + RECOVER_RESYNC_BYTES_MAX;
    for (uint64_t p = w->pos + 1; p + RECORD_BATCH_HEADER_BYTES <= stop;) {
        record_batch_header h;
        int io_err = 0;
        if (recover_check_at(&w->b, p, w->b.file_size, &h, &io_err) != RECORD_OK ||
            h.base_offset < w->next) {
            if (io_err)
                break;
            p++;
            continue;
        }
        int64_t last = record_batch_last_offset(&h);
        if (last < INT64_MAX && last + 1 > end)
            end = last + 1;
        p += record_batch_size(&h);
    }
    return end;
}

/* Something wrong below the recovery point: refuse (or, as the mutant,
 * drop it like a torn tail: the silent loss of flushed data). */
static int below_rp(storage_recovery *rc, rwalk *w)
{
    kq_log *log = rc->log;
    if (log->mutants & KQ_MUTANT_RECOVERY_TRUNCATES_CORRUPTION)
        return cut_here(rc, w, "corrupt batches", "below");
    if (log->repair_allowed) {
        /* A multi-node quorum refills it from the leader: cut at the last good
         * batch and say how far the log went (the executor tells the core,
         * which votes as if it still had that end until refetched). The
         * recovery point lags what was flushed, so the end is the furthest
         * evidence of the log: whole batches after the damage, later
         * segment files. Too far only delays this replica's candidacy. */
        log->repair_end = former_end(rc, w);
        log->repair_epoch = -1;
        for (int i = 0; i < log->epoch_count; i++)
            if (log->epochs[i].start_offset < log->repair_end)
                log->repair_epoch = log->epochs[i].epoch;
        cut_here(rc, w, "corrupt batches", "below");
        if (log->repair_end <= w->next) {
            log->repair_end = 0; /* nothing the log does not still hold was lost */
            return 0;
        }
        size_t used = strlen(rc->note);
        snprintf(rc->note + used, rc->notelen - used,
                 "; repairing: refetching offsets %" PRId64 "..%" PRId64 " from the leader",
                 w->next, log->repair_end - 1);
        return 0;
    }
    storage_errf(rc->err, rc->errlen,
                 "corrupt log %s: %s at position %" PRIu64 " (offset %" PRId64
                 "), below the recovery point %" PRId64 "; refusing to open",
                 w->path, w->why, w->pos, w->next, rc->log->rp.offset);
    return -EUCLEAN;
}

static int read_error(storage_recovery *rc, const rwalk *w, int err)
{
    storage_errf(rc->err, rc->errlen, "cannot read %s at position %" PRIu64 ": %s", w->path,
                 w->pos, strerror(-err));
    return err;
}

/* Segment i lies wholly below the recovery point. */
static int trusted_segment(storage_recovery *rc, size_t i, rwalk *w)
{
    int r = rwalk_trusted(w, w->b.file_size, rc->bases[i + 1]);
    if (r < 0)
        return read_error(rc, w, r);
    return r == RWALK_BAD ? below_rp(rc, w) : 0;
}

/* Segment i holds the recovery point: trusted below, scanned above. */
static int rp_segment(storage_recovery *rc, rwalk *w)
{
    const storage_rp *rp = &rc->log->rp;
    int r = rwalk_trusted(w, rp->loc.position, rp->offset);
    if (r < 0)
        return read_error(rc, w, r);
    if (r == RWALK_BAD)
        return below_rp(rc, w);
    w->seg->index_verified = false; /* compared again when recovery ends */
    r = rwalk_run(w, w->b.file_size);
    if (r < 0)
        return read_error(rc, w, r);
    return r == RWALK_BAD ? cut_here(rc, w, "unacknowledged tail", "above") : 0;
}

/* Segment i lies wholly above the recovery point. */
static int later_segment(storage_recovery *rc, rwalk *w)
{
    int r = rwalk_run(w, w->b.file_size);
    if (r < 0)
        return read_error(rc, w, r);
    return r == RWALK_BAD ? cut_here(rc, w, "unacknowledged tail", "above") : 0;
}

/* A later segment not starting where the log so far ends: it and the ones
 * after it are deleted (the previous segment is cut at its own end). */
static void gap_before(storage_recovery *rc, size_t i)
{
    const storage_segment *prev = &rc->log->segs[rc->log->seg_count - 1];
    rc->cut = true;
    rc->cut_pos = prev->size;
    snprintf(rc->note, rc->notelen,
             "unacknowledged tail above the recovery point %" PRId64 ": segment %020" PRId64
             ".log starts at offset %" PRId64 " but the log before it ends at %" PRId64,
             rc->log->rp.offset, rc->bases[i], rc->bases[i], prev->end_offset);
}

/* Recovers segment i of rc->bases (index ib holds the recovery point). */
static int recover_segment(storage_recovery *rc, size_t i, size_t ib)
{
    kq_log *log = rc->log;
    if (i > ib && rc->bases[i] != log->segs[log->seg_count - 1].end_offset) {
        gap_before(rc, i);
        return 0;
    }
    storage_segment seg;
    int r = storage_recover_open_segment(rc, i, &seg);
    if (r < 0)
        return r;
    rwalk w;
    r = rwalk_init(&w, log, &seg, true);
    if (r < 0)
        storage_errf(rc->err, rc->errlen, "cannot stat %s: %s", w.path, strerror(-r));
    else
        r = i < ib    ? trusted_segment(rc, i, &w)
            : i == ib ? rp_segment(rc, &w)
                      : later_segment(rc, &w);
    rwalk_free(&w);
    if (r == 0 && (r = storage_segment_push(log, &seg)) < 0)
        storage_errf(rc->err, rc->errlen, "out of memory");
    if (r < 0)
        storage_segment_release(log->fs, &seg);
    return r;
}

/* The segment files must be the ones the recovery point describes: the
 * first where the log started, the one holding the point present. Sets
 * *ib to the latter's index. */
static int check_layout(storage_recovery *rc, size_t *ib)
{
    const storage_rp *rp = &rc->log->rp;
    const int64_t *hit = NULL;
    if (rc->n > 0 && rc->bases[0] == rp->start)
        hit = bsearch(&rp->loc.segment, rc->bases, rc->n, sizeof *rc->bases, storage_cmp_i64);
    if (hit) {
        *ib = (size_t)(hit - rc->bases);
        return 0;
    }
    if (rc->n == 0 && rp->offset == rp->start) {
        *ib = 0;
        return 0; /* nothing was durable: a fresh log */
    }
    storage_errf(rc->err, rc->errlen,
                 "corrupt log %s: the recovery point %" PRId64 " lies in segment %020" PRId64
                 ".log and the log starts at %" PRId64 ", but %s; refusing to open",
                 rc->log->dir, rp->offset, rp->loc.segment, rp->start,
                 rc->n == 0                   ? "there is no segment file"
                 : rc->bases[0] != rp->start  ? "the first segment file starts elsewhere"
                                              : "that segment file is missing");
    return -EUCLEAN;
}

int storage_recover_rp(storage_recovery *rc)
{
    kq_log *log = rc->log;
    size_t ib;
    int r = check_layout(rc, &ib);
    if (r < 0)
        return r;
    if ((r = storage_epoch_checkpoint_load(log, rc->err, rc->errlen)) < 0) {
        size_t len = strlen(rc->err);
        if (r != -ENOMEM && len < rc->errlen)
            snprintf(rc->err + len, rc->errlen - len,
                     " (the epochs of batches below the recovery point are checked against it); "
                     "refusing to open");
        return r == -ENOMEM ? r : -EUCLEAN;
    }
    rc->first_scanned = ib;
    for (size_t i = 0; i < rc->n && !rc->cut && r == 0; i++)
        r = recover_segment(rc, i, ib);
    if (r == 0)
        storage_epoch_truncate(log, log->seg_count ? kq_log_end_offset(log) : log->rp.start);
    return r;
}
