/* kq_log_reset: a follower installing a snapshot that ends at offset drops
 * its whole log and starts an empty one there. The crash order (FORMAT.md,
 * "Reset") keeps every intermediate state openable: the old log (or a
 * prefix of it), an empty log at the old start, or the empty log at
 * offset; never one holding an old batch at or above offset under a start
 * of offset. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "kq/assert.h"
#include "storage_internal.h"

/* 1. Everything cut, durably (the recovery point lowered first, later
 * segments deleted, the first emptied), and the epoch cache emptied. */
static int empty_old_log(kq_log *log, char *errbuf, size_t errlen)
{
    int rc = 0;
    if (kq_log_end_offset(log) > storage_first_base(log))
        rc = storage_truncate_to(log, storage_first_base(log), errbuf, errlen);
    if (rc == 0 && log->epoch_count > 0) {
        log->epoch_count = 0;
        rc = storage_epoch_checkpoint_write(log, errbuf, errlen);
    }
    return rc;
}

/* 3. The (empty) segment moves to offset: old files deleted, the new one
 * created, both durable in the directory. */
static int move_segment(kq_log *log, int64_t offset, char *errbuf, size_t errlen)
{
    KQ_ASSERT(log->seg_count == 1);
    if (storage_first_base(log) == offset)
        return 0;
    int rc = storage_segment_delete_files(log, &log->segs[0]);
    log->seg_count = 0;
    if (rc == 0)
        rc = log->fs->fsync_dir(log->fs->ctx, log->dir);
    if (rc < 0) {
        storage_errf(errbuf, errlen, "cannot delete the old segment in %s: %s", log->dir,
                     strerror(-rc));
        return rc;
    }
    if ((rc = storage_segment_create(log, offset, errbuf, errlen)) < 0)
        return rc;
    if ((rc = log->fs->fsync_dir(log->fs->ctx, log->dir)) < 0)
        storage_errf(errbuf, errlen, "cannot fsync %s: %s", log->dir, strerror(-rc));
    return rc;
}

/* 4. The recovery point and the in-memory state: empty at offset. */
static int settle_at(kq_log *log, int64_t offset, char *errbuf, size_t errlen)
{
    storage_loc loc = {offset, 0};
    int rc = storage_rp_write(log, offset, loc);
    if (rc == 0)
        rc = storage_rp_sync(log);
    if (rc < 0) {
        storage_errf(errbuf, errlen, "cannot write %s/%s: %s", log->dir,
                     KQ_LOG_RECOVERY_POINT_FILE, strerror(-rc));
        return rc;
    }
    log->flushed_offset = offset;
    log->flushed_loc = loc;
    log->trunc_floor = INT64_MAX;
    log->dir_dirty = false;
    log->segs[0].dirty = false;
    return 0;
}

int kq_log_reset(kq_log *log, int64_t offset, char *errbuf, size_t errlen)
{
    if (log->failed) {
        storage_errf(errbuf, errlen, "log %s failed earlier; refusing to reset", log->dir);
        return -EIO;
    }
    if (offset < 0 || log->job_outstanding) {
        storage_errf(errbuf, errlen, "reset to %" PRId64 "%s", offset,
                     offset < 0 ? ": negative offset" : " while a flush job is outstanding");
        return offset < 0 ? -EINVAL : -EBUSY;
    }
    int rc = empty_old_log(log, errbuf, errlen);
    /* 2. L = offset durable: a crash from here on opens empty at offset. */
    if (rc == 0) {
        log->start_offset = storage_first_base(log); /* empty there for now */
        rc = storage_start_write(log, offset, errbuf, errlen);
    }
    if (rc == 0)
        rc = move_segment(log, offset, errbuf, errlen);
    if (rc == 0) {
        log->start_offset = offset;
        rc = settle_at(log, offset, errbuf, errlen);
    }
    if (rc < 0)
        log->failed = true;
    return rc;
}
