/* Appends, rolls and truncation. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/assert.h"
#include "kq/record.h"
#include "storage_internal.h"

int64_t kq_log_start_offset(const kq_log *log)
{
    return log->start_offset;
}

int64_t kq_log_end_offset(const kq_log *log)
{
    return log->segs[log->seg_count - 1].end_offset;
}

int64_t kq_log_flushed_offset(const kq_log *log)
{
    return log->flushed_offset;
}

int kq_log_segment_count(const kq_log *log)
{
    return (int)log->seg_count;
}

int64_t kq_log_recovery_point(const kq_log *log)
{
    return log->rp.offset;
}

void kq_log_close(kq_log *log)
{
    if (!log)
        return;
    /* A clean close leaves nothing for the next open to scan. Best effort:
     * a lagging recovery point is safe. */
    if (!log->failed && log->rp_fd >= 0 && !log->job_outstanding &&
        (log->rp.offset == log->flushed_offset ||
         storage_rp_write(log, log->flushed_offset, log->flushed_loc) == 0))
        storage_rp_sync(log);
    if (log->rp_fd >= 0)
        log->fs->close(log->fs->ctx, log->rp_fd);
    for (size_t i = 0; i < log->seg_count; i++) {
        if (!log->failed)
            storage_index_sync(log, &log->segs[i], NULL, 0);
        storage_segment_release(log->fs, &log->segs[i]);
    }
    free(log->segs);
    free(log->epochs);
    free(log);
}

void kq_log_abandon(kq_log *log)
{
    if (!log)
        return;
    /* A crash: nothing is written or synced, descriptors just go away. */
    if (log->rp_fd >= 0)
        log->fs->close(log->fs->ctx, log->rp_fd);
    for (size_t i = 0; i < log->seg_count; i++)
        storage_segment_release(log->fs, &log->segs[i]);
    free(log->segs);
    free(log->epochs);
    free(log);
}

/* Validates (and for leader appends rewrites) every batch; returns the next
 * offset after them through *next_out. */
static int check_batches(kq_log *log, uint8_t *data, size_t len, int64_t base_offset,
                         int32_t epoch, int64_t *next_out, char *errbuf, size_t errlen)
{
    int64_t next = kq_log_end_offset(log);
    int32_t latest = log->epoch_count ? log->epochs[log->epoch_count - 1].epoch : -1;
    bool leader = base_offset >= 0;
    if (leader && base_offset != next) {
        storage_errf(errbuf, errlen, "append at offset %" PRId64 " but the log ends at %" PRId64,
                     base_offset, next);
        return -EINVAL;
    }
    if (leader && epoch < latest) {
        storage_errf(errbuf, errlen,
                     "append with epoch %" PRId32 " below the log's latest %" PRId32, epoch,
                     latest);
        return -EINVAL;
    }
    size_t pos = 0;
    while (pos < len) {
        record_batch_header h;
        enum record_status s = leader ? record_batch_parse_header(data + pos, len - pos, &h)
                                      : record_batch_check(data + pos, len - pos, &h);
        if (s != RECORD_OK) {
            storage_errf(errbuf, errlen, "append: %s batch at byte %zu", record_status_name(s),
                         pos);
            return -EINVAL;
        }
        if (h.last_offset_delta < 0 || next > INT64_MAX - h.last_offset_delta - 1) {
            storage_errf(errbuf, errlen, "append: bad lastOffsetDelta %" PRId32 " at byte %zu",
                         h.last_offset_delta, pos);
            return -EINVAL;
        }
        if (leader) {
            record_batch_set_base_offset(data + pos, next);
            record_batch_set_leader_epoch(data + pos, epoch);
        } else {
            if (h.base_offset != next) {
                storage_errf(errbuf, errlen,
                             "append: batch at byte %zu has base offset %" PRId64
                             ", expected %" PRId64,
                             pos, h.base_offset, next);
                return -EINVAL;
            }
            /* (a negative epoch after one >= 0 is lower too: recovery and
             * reads check epochs against the cache, which has no room for it) */
            if (latest >= 0 && h.partition_leader_epoch < latest) {
                storage_errf(errbuf, errlen,
                             "append: batch at offset %" PRId64 " has epoch %" PRId32
                             " below the latest %" PRId32,
                             next, h.partition_leader_epoch, latest);
                return -EINVAL;
            }
            if (h.partition_leader_epoch > latest)
                latest = h.partition_leader_epoch;
        }
        next += (int64_t)h.last_offset_delta + 1;
        pos += record_batch_size(&h);
    }
    *next_out = next;
    return 0;
}

/* Seals the active segment and starts a new one. The sealed .index is
 * complete now; the next flush job makes it durable (a later recovery
 * trusts it) and the recovery-point file with it. */
static int roll(kq_log *log, char *errbuf, size_t errlen)
{
    storage_segment *old = storage_active(log);
    int rc = storage_index_sync(log, old, errbuf, errlen);
    if (rc < 0)
        return rc;
    old->index_sync_due = true;
    log->rp_roll = true;
    return storage_segment_create(log, old->end_offset, errbuf, errlen);
}

int kq_log_append(kq_log *log, uint8_t *data, size_t len, int64_t base_offset, int32_t epoch,
                  char *errbuf, size_t errlen)
{
    if (log->failed) {
        storage_errf(errbuf, errlen, "log %s failed earlier; refusing appends", log->dir);
        return -EIO;
    }
    if (len == 0)
        return 0;
    if (len > INT32_MAX) {
        storage_errf(errbuf, errlen, "append of %zu bytes is too large", len);
        return -EINVAL;
    }
    int64_t next;
    int rc = check_batches(log, data, len, base_offset, epoch, &next, errbuf, errlen);
    if (rc < 0)
        return rc;

    storage_segment *seg = storage_active(log);
    if (seg->size > 0 &&
        (seg->size + len > log->segment_bytes || next - 1 - seg->base_offset > INT32_MAX)) {
        if ((rc = roll(log, errbuf, errlen)) < 0) {
            log->failed = true;
            return rc;
        }
        seg = storage_active(log);
    }
    uint64_t start = seg->size;
    rc = storage_pwrite_all(log->fs, seg->fd, data, len, start);
    if (rc < 0) {
        storage_errf(errbuf, errlen, "cannot write segment %020" PRId64 ".log in %s: %s",
                     seg->base_offset, log->dir, strerror(-rc));
        /* A partial write must not stay in front of the next append. */
        if (log->fs->ftruncate(log->fs->ctx, seg->fd, start) < 0)
            log->failed = true;
        return rc;
    }
    seg->size += len;
    seg->end_offset = next;
    seg->dirty = true;

    /* Bookkeeping: headers were validated above. */
    bool new_epoch = false;
    for (size_t pos = 0; pos < len;) {
        const uint8_t *b = data + pos;
        int64_t bo = (int64_t)storage_be64(b);
        int32_t ep = (int32_t)storage_be32(b + 12);
        int64_t last = bo + (int32_t)storage_be32(b + 23);
        uint64_t size = (uint64_t)storage_be32(b + 8) + RECORD_BATCH_LOG_OVERHEAD;
        int e = storage_epoch_assign(log, ep, bo);
        if (e > 0)
            new_epoch = true;
        if (e < 0 || storage_segment_note_batch(seg, start + pos, size, last) < 0) {
            /* Out of memory: the in-memory state no longer matches the disk. */
            storage_errf(errbuf, errlen, "out of memory after appending");
            log->failed = true;
            return -ENOMEM;
        }
        pos += size;
    }
    if (new_epoch && (rc = storage_epoch_checkpoint_write(log, errbuf, errlen)) < 0) {
        log->failed = true;
        return rc;
    }
    return 0;
}

/* File position of the batch starting at offset in seg, walking headers
 * from pos, or -EINVAL if offset is not a batch boundary after pos. */
static int64_t boundary_from(const kq_fs *fs, storage_segment *seg, int64_t offset, uint64_t pos)
{
    while (pos < seg->size) {
        uint8_t h[27];
        if (seg->size - pos < sizeof h || storage_pread_all(fs, seg->fd, h, sizeof h, pos) < 0)
            return -EIO;
        int64_t bo = (int64_t)storage_be64(h);
        int32_t length = (int32_t)storage_be32(h + 8);
        if (bo == offset)
            return (int64_t)pos;
        if (bo > offset || length < RECORD_BATCH_HEADER_BYTES - RECORD_BATCH_LOG_OVERHEAD)
            return -EINVAL;
        pos += (uint64_t)length + RECORD_BATCH_LOG_OVERHEAD;
    }
    return -EINVAL;
}

/* File position of the batch starting at offset in seg, or -EINVAL if
 * offset is not a batch boundary. */
int64_t storage_boundary_position(const kq_fs *fs, storage_segment *seg, int64_t offset)
{
    if (offset == seg->end_offset)
        return (int64_t)seg->size;
    uint64_t hint = storage_index_lookup(seg, offset);
    int64_t pos = boundary_from(fs, seg, offset, hint);
    if (pos == -EINVAL && hint > 0) /* the index entry may be wrong: from the start */
        pos = boundary_from(fs, seg, offset, 0);
    return pos;
}

int storage_segment_delete_files(kq_log *log, storage_segment *seg)
{
    char path[STORAGE_PATH_MAX];
    int64_t base = seg->base_offset;
    int rc = 0;
    storage_segment_release(log->fs, seg);
    if (storage_segment_path(log, base, ".log", path, sizeof path) == 0)
        rc = log->fs->unlink(log->fs->ctx, path);
    if (storage_segment_path(log, base, ".index", path, sizeof path) == 0)
        log->fs->unlink(log->fs->ctx, path);
    return rc == -ENOENT ? 0 : rc;
}

/* Forgets the in-memory index entries of batches at or past pos. */
static void cut_segment_state(storage_segment *seg, uint64_t pos, int64_t offset)
{
    while (seg->index_count > 0 && (uint64_t)seg->index[seg->index_count - 1].position >= pos)
        seg->index_count--;
    if (seg->index_written > seg->index_count)
        seg->index_written = seg->index_count;
    seg->size = pos;
    seg->end_offset = offset;
    seg->bytes_since_index =
        seg->size - (seg->index_count ? (uint64_t)seg->index[seg->index_count - 1].position : 0);
}

/* Cuts seg's .log at pos and makes that durable, cuts its .index to the
 * entries kept, and fsyncs the directory (later segments were deleted).
 * 0 or -errno. */
static int cut_segment_files(kq_log *log, storage_segment *seg, uint64_t pos)
{
    const kq_fs *fs = log->fs;
    int rc = fs->ftruncate(fs->ctx, seg->fd, pos);
    if (rc == 0)
        rc = fs->fdatasync(fs->ctx, seg->fd);
    if (rc == 0 && seg->index_fd < 0) {
        char path[STORAGE_PATH_MAX];
        rc = storage_segment_path(log, seg->base_offset, ".index", path, sizeof path);
        int fd = rc == 0 ? fs->open(fs->ctx, path, KQ_FS_WRITE | KQ_FS_CREATE) : rc;
        if (fd < 0)
            rc = fd;
        else
            seg->index_fd = fd;
    }
    if (rc == 0)
        rc = fs->ftruncate(fs->ctx, seg->index_fd, 8 * (uint64_t)seg->index_written);
    if (rc == 0)
        rc = fs->fsync_dir(fs->ctx, log->dir);
    return rc;
}

/* Lowers the recovery-point file to offset, durably, before anything at or
 * above it is cut: it must never claim batches that are gone. */
static int lower_recovery_point(kq_log *log, int64_t offset, storage_loc loc, char *errbuf,
                                size_t errlen)
{
    if (log->rp.offset <= offset)
        return 0;
    int rc = storage_rp_write(log, offset, loc);
    if (rc == 0)
        rc = storage_rp_sync(log);
    if (rc < 0) {
        storage_errf(errbuf, errlen, "cannot lower %s/%s: %s", log->dir,
                     KQ_LOG_RECOVERY_POINT_FILE, strerror(-rc));
        log->failed = true;
    }
    return rc;
}

/* After the cut: nothing at or above offset is flushed or in the cache. */
static int forget_above(kq_log *log, int64_t offset, storage_loc loc, char *errbuf,
                        size_t errlen)
{
    if (log->flushed_offset > offset) {
        log->flushed_offset = offset;
        log->flushed_loc = loc;
    }
    if (log->trunc_floor > offset) {
        log->trunc_floor = offset;
        log->trunc_floor_loc = loc;
    }
    int rc = 0;
    if (storage_epoch_truncate(log, offset) > 0 &&
        (rc = storage_epoch_checkpoint_write(log, errbuf, errlen)) < 0)
        log->failed = true;
    return rc;
}

int kq_log_truncate(kq_log *log, int64_t offset, char *errbuf, size_t errlen)
{
    if (log->failed) {
        storage_errf(errbuf, errlen, "log %s failed earlier; refusing to truncate", log->dir);
        return -EIO;
    }
    int64_t end = kq_log_end_offset(log);
    if (offset == end)
        return 0;
    if (offset > end || offset < kq_log_start_offset(log)) {
        storage_errf(errbuf, errlen,
                     "truncate to %" PRId64 " outside the log [%" PRId64 ", %" PRId64 "]", offset,
                     kq_log_start_offset(log), end);
        return -EINVAL;
    }
    return storage_truncate_to(log, offset, errbuf, errlen);
}

int storage_truncate_to(kq_log *log, int64_t offset, char *errbuf, size_t errlen)
{
    storage_segment *seg = storage_segment_find(log, offset);
    KQ_ASSERT(seg != NULL);
    int64_t pos = storage_boundary_position(log->fs, seg, offset);
    if (pos < 0) {
        storage_errf(errbuf, errlen, "truncate to %" PRId64 ": %s", offset,
                     pos == -EINVAL ? "not a batch boundary" : "read error");
        return (int)pos;
    }
    storage_loc loc = storage_loc_at(log, seg, (uint64_t)pos);
    int rc = lower_recovery_point(log, offset, loc, errbuf, errlen);
    if (rc < 0)
        return rc;
    size_t keep = (size_t)(seg - log->segs) + 1;
    while (log->seg_count > keep)
        storage_segment_delete_files(log, &log->segs[--log->seg_count]);
    cut_segment_state(seg, (uint64_t)pos, offset);
    /* Bytes it held may be written anew: a planned read of the old ones must
     * not read them (kq_log_cursor_read, -ESTALE). Still the highest id. */
    seg->id = ++log->segment_ids;
    rc = cut_segment_files(log, seg, (uint64_t)pos);
    if (rc < 0) {
        storage_errf(errbuf, errlen, "cannot truncate segment %020" PRId64 ".log in %s: %s",
                     seg->base_offset, log->dir, strerror(-rc));
        log->failed = true;
        return rc;
    }
    return forget_above(log, offset, loc, errbuf, errlen);
}
