/* Reads of whole batches: the offset index, then a short scan. Every batch
 * handed out is verified first (whole, magic, CRC-32C, offsets following
 * on inside the segment, PartitionLeaderEpoch agreeing with the epoch
 * cache); a failure is -EBADMSG and the caller decides (the executor stops
 * the node). CRC-32C is hardware-accelerated where the CPU has it. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/record.h"
#include "storage_internal.h"

#define LOCATE_CHUNK 8192

/* Finds the batch containing offset in seg, walking headers from pos: its
 * position and size. 0, -EBADMSG on headers that do not chain, -EIO on a
 * read failure, or -ERANGE if no batch holds it. */
static int locate_from(const kq_fs *fs, const storage_segment *seg, int64_t offset,
                       uint64_t pos, uint64_t *pos_out, uint64_t *size_out)
{
    uint8_t buf[LOCATE_CHUNK];
    uint64_t buf_off = 0;
    size_t buf_len = 0;
    int64_t next = pos == 0 ? seg->base_offset : -1; /* -1: any base (from an index entry) */
    while (pos < seg->size) {
        if (seg->size - pos < RECORD_BATCH_HEADER_BYTES)
            return -EBADMSG;
        if (!(pos >= buf_off && pos + 27 <= buf_off + buf_len)) {
            uint64_t left = seg->size - pos;
            buf_len = left < sizeof buf ? (size_t)left : sizeof buf;
            buf_off = pos;
            int rc = storage_pread_all(fs, seg->fd, buf, buf_len, pos);
            if (rc < 0)
                return rc;
        }
        const uint8_t *h = buf + (pos - buf_off);
        int64_t base = (int64_t)storage_be64(h);
        int32_t length = (int32_t)storage_be32(h + 8);
        int32_t delta = (int32_t)storage_be32(h + 23);
        if (length < RECORD_BATCH_HEADER_BYTES - RECORD_BATCH_LOG_OVERHEAD ||
            (uint64_t)length + RECORD_BATCH_LOG_OVERHEAD > seg->size - pos || delta < 0 ||
            (next >= 0 && base != next) || base < seg->base_offset || base >= seg->end_offset ||
            delta >= seg->end_offset - base)
            return -EBADMSG;
        uint64_t size = (uint64_t)length + RECORD_BATCH_LOG_OVERHEAD;
        if (base + delta >= offset) {
            if (base > offset)
                return -EBADMSG; /* started past it: a wrong index entry or a bad base */
            *pos_out = pos;
            *size_out = size;
            return 0;
        }
        next = base + delta + 1;
        pos += size;
    }
    return -ERANGE;
}

/* The same from the offset index; if the index entry leads astray (it is
 * not synced for the active segment), from the start of the segment. */
int storage_batch_locate(const kq_fs *fs, const storage_segment *seg, int64_t offset,
                         uint64_t *pos_out, uint64_t *size_out)
{
    uint64_t hint = storage_index_lookup(seg, offset);
    int rc = locate_from(fs, seg, offset, hint, pos_out, size_out);
    if (rc == -EBADMSG && hint > 0)
        rc = locate_from(fs, seg, offset, 0, pos_out, size_out);
    return rc;
}

bool storage_batch_ok(const kq_log *log, const storage_segment *seg, const uint8_t *p,
                      size_t size, int64_t offset, int64_t next, bool first)
{
    record_batch_header h;
    if (record_batch_check(p, size, &h) != RECORD_OK || record_batch_size(&h) != size ||
        h.last_offset_delta < 0 || h.base_offset < seg->base_offset ||
        h.base_offset >= seg->end_offset || h.last_offset_delta >= seg->end_offset - h.base_offset)
        return false;
    int64_t last = record_batch_last_offset(&h);
    if (first ? (h.base_offset > offset || last < offset) : h.base_offset != next)
        return false;
    return storage_epoch_agrees(log->epochs, log->epoch_count, h.base_offset, last,
                                h.partition_leader_epoch);
}

/* Keeps whole verified batches of dst[0..want) below end_offset within
 * max_bytes (the first always). Bytes kept, or -EBADMSG if the first batch
 * fails; a later one that fails ends the read before it (the next read
 * starts there and fails). */
static ssize_t keep_batches(const kq_log *log, const storage_segment *seg, const uint8_t *dst,
                            size_t want, int64_t offset, int64_t end_offset, size_t max_bytes)
{
    size_t used = 0;
    int64_t next = offset;
    while (want - used >= RECORD_BATCH_LOG_OVERHEAD) {
        int64_t base = (int64_t)storage_be64(dst + used);
        int32_t length = (int32_t)storage_be32(dst + used + 8);
        if (length < RECORD_BATCH_HEADER_BYTES - RECORD_BATCH_LOG_OVERHEAD)
            break;
        size_t size = (size_t)length + RECORD_BATCH_LOG_OVERHEAD;
        if (used > 0 && (base >= end_offset || used + size > max_bytes))
            break;
        if (size > want - used ||
            !storage_batch_ok(log, seg, dst + used, size, offset, next, used == 0))
            break;
        next = base + (int32_t)storage_be32(dst + used + 23) + 1;
        used += size;
    }
    return used > 0 ? (ssize_t)used : -EBADMSG;
}

int storage_read_first(kq_log *log, int64_t offset, int64_t end_offset, storage_segment **seg,
                       uint64_t *pos, uint64_t *size)
{
    if (offset < kq_log_start_offset(log))
        return -ERANGE;
    if (offset >= end_offset || offset >= kq_log_end_offset(log))
        return 0;
    *seg = storage_segment_find(log, offset);
    if (offset >= (*seg)->end_offset)
        return 0;
    int rc = storage_batch_locate(log->fs, *seg, offset, pos, size);
    if (rc < 0)
        return rc == -ERANGE ? 0 : rc;
    return 1;
}

ssize_t kq_log_read(kq_log *log, int64_t offset, int64_t end_offset, size_t max_bytes,
                    kq_writer *out)
{
    storage_segment *seg = NULL;
    uint64_t pos = 0, first = 0;
    int rc = storage_read_first(log, offset, end_offset, &seg, &pos, &first);
    if (rc <= 0)
        return rc;
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
    ssize_t used =
        rc < 0 ? rc : keep_batches(log, seg, dst, (size_t)want, offset, end_offset, max_bytes);
    out->len = old_len + (used > 0 ? (size_t)used : 0);
    return used;
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
            off = (int64_t)storage_be64(w.data + pos) +
                  (int32_t)storage_be32(w.data + pos + 23) + 1;
            pos += size;
        }
    }
    kq_writer_free(&w);
    return rc;
}

int64_t kq_log_tail_start(const kq_log *log, uint64_t bytes)
{
    uint64_t total = 0;
    for (size_t i = log->seg_count; i-- > 0;) {
        total += log->segs[i].size;
        if (total >= bytes)
            return log->segs[i].base_offset > log->start_offset ? log->segs[i].base_offset
                                                                : log->start_offset;
    }
    return kq_log_start_offset(log);
}

int kq_log_describe(kq_log *log, int64_t offset, char *buf, size_t len)
{
    storage_segment *seg = storage_segment_find(log, offset);
    if (!seg)
        return snprintf(buf, len, "offset %" PRId64 " (below the log start)", offset);
    /* Walk the headers from the index entry to the batch that starts there. */
    uint64_t pos = storage_index_lookup(seg, offset);
    while (pos + 12 <= seg->size) {
        uint8_t h[12];
        if (storage_pread_all(log->fs, seg->fd, h, sizeof h, pos) != 0)
            break;
        int64_t base = (int64_t)storage_be64(h);
        int32_t length = (int32_t)storage_be32(h + 8);
        if (base == offset)
            return snprintf(buf, len, "%s/%020" PRId64 ".log at position %" PRIu64
                            " (offset %" PRId64 ")", log->dir, seg->base_offset, pos, offset);
        if (base > offset || length < RECORD_BATCH_HEADER_BYTES - RECORD_BATCH_LOG_OVERHEAD)
            break;
        pos += (uint64_t)length + RECORD_BATCH_LOG_OVERHEAD;
    }
    return snprintf(buf, len, "%s/%020" PRId64 ".log, the batch at offset %" PRId64
                    " (at or after position %" PRIu64 ")", log->dir, seg->base_offset, offset,
                    storage_index_lookup(seg, offset));
}

int64_t kq_log_batch_start(kq_log *log, int64_t offset)
{
    if (offset < kq_log_start_offset(log) || offset >= kq_log_end_offset(log))
        return -1;
    storage_segment *seg = storage_segment_find(log, offset);
    uint64_t pos, size;
    if (!seg || storage_batch_locate(log->fs, seg, offset, &pos, &size) != 0)
        return -1;
    uint8_t h[8];
    if (storage_pread_all(log->fs, seg->fd, h, sizeof h, pos) != 0)
        return -1;
    return (int64_t)storage_be64(h);
}
