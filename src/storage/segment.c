/* Segment files and their in-memory offset index. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage_internal.h"

int storage_segment_path(const kq_log *log, int64_t base, const char *ext, char *out,
                         size_t outlen)
{
    int n = snprintf(out, outlen, "%s/%020" PRId64 "%s", log->dir, base, ext);
    return (n < 0 || (size_t)n >= outlen) ? -ENAMETOOLONG : 0;
}

int storage_segment_push(kq_log *log, const storage_segment *seg)
{
    if (log->seg_count == log->seg_cap) {
        size_t cap = log->seg_cap ? log->seg_cap * 2 : 8;
        storage_segment *s = realloc(log->segs, cap * sizeof *s);
        if (!s)
            return -ENOMEM;
        log->segs = s;
        log->seg_cap = cap;
    }
    log->segs[log->seg_count] = *seg;
    log->segs[log->seg_count++].id = ++log->segment_ids;
    return 0;
}

int storage_segment_create(kq_log *log, int64_t base, char *errbuf, size_t errlen)
{
    char path[STORAGE_PATH_MAX];
    if (storage_segment_path(log, base, ".log", path, sizeof path) < 0) {
        storage_errf(errbuf, errlen, "path too long in %s", log->dir);
        return -ENAMETOOLONG;
    }
    const kq_fs *fs = log->fs;
    const unsigned create = KQ_FS_WRITE | KQ_FS_CREATE | KQ_FS_TRUNC;
    storage_segment seg = {.base_offset = base, .end_offset = base, .index_fd = -1};
    /* KQ_FS_TRUNC: a leftover file of that name holds nothing we still count. */
    seg.fd = fs->open(fs->ctx, path, create);
    if (seg.fd < 0) {
        int e = seg.fd;
        storage_errf(errbuf, errlen, "cannot create %s: %s", path, strerror(-e));
        return e;
    }
    char ipath[STORAGE_PATH_MAX];
    if (storage_segment_path(log, base, ".index", ipath, sizeof ipath) == 0) {
        seg.index_fd = fs->open(fs->ctx, ipath, create);
        if (seg.index_fd < 0) {
            int e = seg.index_fd;
            storage_errf(errbuf, errlen, "cannot create %s: %s", ipath, strerror(-e));
            fs->close(fs->ctx, seg.fd);
            fs->unlink(fs->ctx, path);
            return e;
        }
    }
    int rc = storage_segment_push(log, &seg);
    if (rc < 0) {
        storage_errf(errbuf, errlen, "out of memory");
        storage_segment_release(fs, &seg);
        return rc;
    }
    log->dir_dirty = true;
    return 0;
}

int storage_index_push(storage_segment *seg, int32_t rel_offset, int32_t position)
{
    if (seg->index_count == seg->index_cap) {
        size_t cap = seg->index_cap ? seg->index_cap * 2 : 64;
        storage_index_entry *e = realloc(seg->index, cap * sizeof *e);
        if (!e)
            return -ENOMEM;
        seg->index = e;
        seg->index_cap = cap;
    }
    seg->index[seg->index_count++] = (storage_index_entry){rel_offset, position};
    return 0;
}

int storage_segment_note_batch(storage_segment *seg, uint64_t pos, uint64_t size,
                               int64_t last_offset)
{
    /* As Kafka's LogSegment: an entry (keyed by the batch's last offset) when
     * more than index.interval.bytes were appended since the last one. */
    if (seg->bytes_since_index > KQ_LOG_INDEX_INTERVAL_BYTES) {
        int rc = storage_index_push(seg, (int32_t)(last_offset - seg->base_offset),
                                    (int32_t)pos);
        if (rc < 0)
            return rc;
        seg->bytes_since_index = 0;
    }
    seg->bytes_since_index += size;
    return 0;
}

int storage_index_open(const kq_log *log, storage_segment *seg)
{
    char path[STORAGE_PATH_MAX];
    if (storage_segment_path(log, seg->base_offset, ".index", path, sizeof path) < 0)
        return -ENAMETOOLONG;
    int fd = log->fs->open(log->fs->ctx, path, KQ_FS_WRITE | KQ_FS_CREATE);
    if (fd < 0)
        return fd;
    seg->index_fd = fd;
    return 0;
}

int storage_index_sync(const kq_log *log, storage_segment *seg, char *errbuf, size_t errlen)
{
    if (seg->index_written >= seg->index_count)
        return 0;
    if (seg->index_fd < 0) {
        int rc = storage_index_open(log, seg);
        if (rc < 0) {
            storage_errf(errbuf, errlen,
                         "cannot open the index of segment %020" PRId64 " in %s: %s",
                         seg->base_offset, log->dir, strerror(-rc));
            return rc;
        }
    }
    uint8_t buf[8 * 256];
    while (seg->index_written < seg->index_count) {
        size_t n = seg->index_count - seg->index_written;
        if (n > 256)
            n = 256;
        for (size_t i = 0; i < n; i++) {
            const storage_index_entry *e = &seg->index[seg->index_written + i];
            storage_put_be32(buf + 8 * i, (uint32_t)e->rel_offset);
            storage_put_be32(buf + 8 * i + 4, (uint32_t)e->position);
        }
        int rc = storage_pwrite_all(log->fs, seg->index_fd, buf, 8 * n,
                                    8 * (uint64_t)seg->index_written);
        if (rc < 0) {
            storage_errf(errbuf, errlen, "cannot write index of segment %020" PRId64 ": %s",
                         seg->base_offset, strerror(-rc));
            return rc;
        }
        seg->index_written += n;
    }
    return 0;
}

void storage_segment_release(const kq_fs *fs, storage_segment *seg)
{
    if (seg->fd >= 0)
        fs->close(fs->ctx, seg->fd);
    if (seg->index_fd >= 0)
        fs->close(fs->ctx, seg->index_fd);
    free(seg->index);
    seg->fd = seg->index_fd = -1;
    seg->index = NULL;
    seg->index_count = seg->index_cap = seg->index_written = 0;
}

storage_segment *storage_segment_find(kq_log *log, int64_t offset)
{
    size_t lo = 0, hi = log->seg_count;
    while (lo < hi) { /* first segment with base > offset */
        size_t mid = lo + (hi - lo) / 2;
        if (log->segs[mid].base_offset <= offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo == 0 ? NULL : &log->segs[lo - 1];
}

uint64_t storage_index_lookup(const storage_segment *seg, int64_t offset)
{
    int64_t rel = offset - seg->base_offset;
    size_t lo = 0, hi = seg->index_count;
    while (lo < hi) { /* first entry with key > rel */
        size_t mid = lo + (hi - lo) / 2;
        if (seg->index[mid].rel_offset <= rel)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo == 0 ? 0 : (uint64_t)seg->index[lo - 1].position;
}
