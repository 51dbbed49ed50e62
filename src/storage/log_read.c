/* Reads of whole batches: the offset index, then a short scan. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kq/record.h"
#include "storage_internal.h"

#define LOCATE_CHUNK 8192

/* Finds the batch containing offset in seg, starting from the index entry:
 * its position and size. 0, or -EIO on bad data / read failure, or -ERANGE
 * if no batch holds it. */
static int locate(const kq_fs *fs, const storage_segment *seg, int64_t offset,
                  uint64_t *pos_out, uint64_t *size_out)
{
    uint8_t buf[LOCATE_CHUNK];
    uint64_t pos = storage_index_lookup(seg, offset);
    uint64_t buf_off = 0;
    size_t buf_len = 0;
    while (pos < seg->size) {
        if (seg->size - pos < RECORD_BATCH_HEADER_BYTES)
            return -EIO;
        if (!(pos >= buf_off && pos + 27 <= buf_off + buf_len)) {
            uint64_t left = seg->size - pos;
            buf_len = left < sizeof buf ? (size_t)left : sizeof buf;
            buf_off = pos;
            int rc = storage_pread_all(fs, seg->fd, buf, buf_len, pos);
            if (rc < 0)
                return rc;
        }
        const uint8_t *h = buf + (pos - buf_off);
        int32_t length = (int32_t)storage_be32(h + 8);
        if (length < RECORD_BATCH_HEADER_BYTES - RECORD_BATCH_LOG_OVERHEAD ||
            (uint64_t)length + RECORD_BATCH_LOG_OVERHEAD > seg->size - pos)
            return -EIO;
        int64_t last = (int64_t)storage_be64(h) + (int32_t)storage_be32(h + 23);
        uint64_t size = (uint64_t)length + RECORD_BATCH_LOG_OVERHEAD;
        if (last >= offset) {
            *pos_out = pos;
            *size_out = size;
            return 0;
        }
        pos += size;
    }
    return -ERANGE;
}

ssize_t kq_log_read(kq_log *log, int64_t offset, int64_t end_offset, size_t max_bytes,
                    kq_writer *out)
{
    if (offset < kq_log_start_offset(log))
        return -ERANGE;
    if (offset >= end_offset || offset >= kq_log_end_offset(log))
        return 0;
    storage_segment *seg = storage_segment_find(log, offset);
    if (offset >= seg->end_offset)
        return 0;
    uint64_t pos, first;
    int rc = locate(log->fs, seg, offset, &pos, &first);
    if (rc < 0)
        return rc == -ERANGE ? 0 : rc;
    uint64_t want = max_bytes > first ? max_bytes : first;
    if (want > seg->size - pos)
        want = seg->size - pos;
    if (out->error || out->len > out->cap_max)
        return -ENOBUFS;
    size_t room = out->cap_max - out->len;
    if (first > room)
        return -ENOBUFS;
    if (want > room)
        want = room;
    size_t old_len = out->len;
    uint8_t *dst = kq_writer_reserve(out, (size_t)want);
    if (!dst)
        return -ENOBUFS;
    rc = storage_pread_all(log->fs, seg->fd, dst, (size_t)want, pos);
    if (rc < 0) {
        out->len = old_len;
        return rc;
    }
    /* Keep whole batches below end_offset within max_bytes (first always). */
    size_t used = 0;
    while (used < want) {
        if (want - used < RECORD_BATCH_LOG_OVERHEAD)
            break;
        int64_t base = (int64_t)storage_be64(dst + used);
        int32_t length = (int32_t)storage_be32(dst + used + 8);
        if (length < RECORD_BATCH_HEADER_BYTES - RECORD_BATCH_LOG_OVERHEAD) {
            out->len = old_len;
            return -EIO;
        }
        size_t size = (size_t)length + RECORD_BATCH_LOG_OVERHEAD;
        if (used > 0 && (base >= end_offset || used + size > max_bytes))
            break;
        if (size > want - used)
            break;
        used += size;
    }
    out->len = old_len + used;
    return (ssize_t)used;
}

int kq_log_scan(kq_log *log, int64_t from,
                int (*fn)(void *ctx, const uint8_t *batch, size_t len), void *ctx)
{
    kq_writer w;
    kq_writer_init(&w, (size_t)RECORD_BATCH_BYTES_MAX + RECORD_BATCH_LOG_OVERHEAD);
    int64_t off = from < kq_log_start_offset(log) ? kq_log_start_offset(log) : from;
    int rc = 0;
    while (rc == 0 && off < kq_log_end_offset(log)) {
        kq_writer_reset(&w);
        ssize_t n = kq_log_read(log, off, INT64_MAX, 1u << 20, &w);
        if (n <= 0) {
            rc = n < 0 ? (int)n : -EIO;
            break;
        }
        for (size_t pos = 0; pos < (size_t)n && rc == 0;) {
            size_t size = (size_t)storage_be32(w.data + pos + 8) + RECORD_BATCH_LOG_OVERHEAD;
            rc = fn(ctx, w.data + pos, size);
            off = (int64_t)storage_be64(w.data + pos) + (int32_t)storage_be32(w.data + pos + 23) + 1;
            pos += size;
        }
    }
    kq_writer_free(&w);
    return rc;
}
