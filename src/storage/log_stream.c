/* Planned reads (kq/log.h, "Reads planned now and served later"): the plan
 * walks batch headers as kq_log_read keeps batches; the cursor reads and
 * verifies them later. A segment is named by its id, not its base offset: a
 * reset can create a new segment at the same base, and a cursor must never
 * read it as if it were the one planned. */
#include <errno.h>
#include <string.h>

#include "kq/record.h"
#include "storage_internal.h"

#define PLAN_CHUNK_BYTES 8192

/* The segment with this id, or NULL (ids ascend along log->segs). */
static storage_segment *segment_by_id(kq_log *log, uint64_t id)
{
    size_t lo = 0, hi = log->seg_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (log->segs[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < log->seg_count && log->segs[lo].id == id ? &log->segs[lo] : NULL;
}

/* Bytes of whole batches from pos (the first one, of first_size bytes,
 * always) below end_offset within max_bytes, by their headers. */
static int plan_walk(const kq_log *log, const storage_segment *seg, uint64_t pos,
                     uint64_t first_size, int64_t end_offset, size_t max_bytes, uint64_t *len)
{
    uint8_t buf[PLAN_CHUNK_BYTES];
    uint64_t buf_off = 0, used = first_size, p = pos + first_size;
    size_t buf_len = 0;
    while (p + RECORD_BATCH_LOG_OVERHEAD <= seg->size) {
        if (!(p >= buf_off && p + RECORD_BATCH_LOG_OVERHEAD <= buf_off + buf_len)) {
            uint64_t left = seg->size - p;
            buf_len = left < sizeof buf ? (size_t)left : sizeof buf;
            buf_off = p;
            int rc = storage_pread_all(log->fs, seg->fd, buf, buf_len, p);
            if (rc < 0)
                return rc;
        }
        const uint8_t *h = buf + (p - buf_off);
        int64_t base = (int64_t)storage_be64(h);
        int32_t length = (int32_t)storage_be32(h + 8);
        if (length < RECORD_BATCH_HEADER_BYTES - RECORD_BATCH_LOG_OVERHEAD)
            break; /* the cursor's read stops before it, as kq_log_read does */
        uint64_t size = (uint64_t)length + RECORD_BATCH_LOG_OVERHEAD;
        if (base >= end_offset || used + size > max_bytes || size > seg->size - p)
            break;
        used += size;
        p += size;
    }
    *len = used;
    return 0;
}

int kq_log_plan_read(kq_log *log, int64_t offset, int64_t end_offset, size_t max_bytes,
                     kq_log_range *range)
{
    memset(range, 0, sizeof(*range));
    range->first_offset = offset;
    storage_segment *seg = NULL;
    uint64_t pos = 0, first = 0;
    int rc = storage_read_first(log, offset, end_offset, &seg, &pos, &first);
    if (rc <= 0)
        return rc;
    uint64_t len = 0;
    rc = plan_walk(log, seg, pos, first, end_offset, max_bytes, &len);
    if (rc < 0)
        return rc;
    range->segment_id = seg->id;
    range->pos = pos;
    range->len = len;
    return 0;
}

void kq_log_cursor_init(kq_log_cursor *cur, const kq_log_range *range)
{
    *cur = (kq_log_cursor){.range = *range, .next_offset = range->first_offset};
}

/* Keeps the whole verified batches at the front of buf[0..n). */
static ssize_t keep_verified(kq_log *log, const storage_segment *seg, kq_log_cursor *cur,
                             const uint8_t *buf, size_t n, size_t *need_bytes)
{
    size_t used = 0;
    int64_t next = cur->next_offset;
    while (n - used >= RECORD_BATCH_LOG_OVERHEAD) {
        int32_t length = (int32_t)storage_be32(buf + used + 8);
        if (length < RECORD_BATCH_HEADER_BYTES - RECORD_BATCH_LOG_OVERHEAD)
            return -EBADMSG; /* the plan counted these bytes as batches */
        size_t size = (size_t)length + RECORD_BATCH_LOG_OVERHEAD;
        if (size > n - used) {
            if (used > 0)
                break;
            *need_bytes = size;
            return size > cur->range.len - cur->done ? -EBADMSG : -ENOBUFS;
        }
        bool first = cur->done == 0 && used == 0;
        if (!storage_batch_ok(log, seg, buf + used, size, cur->range.first_offset, next, first))
            return -EBADMSG;
        next = (int64_t)storage_be64(buf + used) + (int32_t)storage_be32(buf + used + 23) + 1;
        used += size;
    }
    if (used == 0) {
        *need_bytes = RECORD_BATCH_HEADER_BYTES;
        return -ENOBUFS;
    }
    cur->next_offset = next;
    cur->done += used;
    return (ssize_t)used;
}

/* Verifies the batch of size bytes at pos (larger than cap) as
 * storage_batch_ok does, reading it through buf in pieces: its header
 * fields, then its CRC-32C across the pieces. 0, -EBADMSG or a read error. */
static int verify_in_pieces(kq_log *log, const storage_segment *seg, const kq_log_cursor *cur,
                            uint64_t pos, size_t size, uint8_t *buf, size_t cap)
{
    uint8_t head[RECORD_BATCH_HEADER_BYTES];
    int rc = storage_pread_all(log->fs, seg->fd, head, sizeof head, pos);
    if (rc < 0)
        return rc;
    record_batch_header h;
    /* The parser reads the header's 61 bytes only; len is the batch's size
     * so that it does not call the batch truncated. */
    if (record_batch_parse_header(head, size, &h) != RECORD_OK || record_batch_size(&h) != size ||
        h.last_offset_delta < 0 || h.base_offset < seg->base_offset ||
        h.base_offset >= seg->end_offset || h.last_offset_delta >= seg->end_offset - h.base_offset)
        return -EBADMSG;
    int64_t last = record_batch_last_offset(&h);
    bool first = cur->done == 0;
    if (first ? (h.base_offset > cur->range.first_offset || last < cur->range.first_offset)
              : h.base_offset != cur->next_offset)
        return -EBADMSG;
    if (!storage_epoch_agrees(log->epochs, log->epoch_count, h.base_offset, last,
                              h.partition_leader_epoch))
        return -EBADMSG;
    uint32_t crc = 0;
    for (size_t at = RECORD_BATCH_CRC_END; at < size;) {
        size_t n = size - at < cap ? size - at : cap;
        if ((rc = storage_pread_all(log->fs, seg->fd, buf, n, pos + at)) < 0)
            return rc;
        crc = kq_crc32c(crc, buf, n);
        at += n;
    }
    return crc == h.crc ? 0 : -EBADMSG;
}

/* The next piece of a batch larger than cap (verified on its first piece). */
static ssize_t read_piece(kq_log *log, const storage_segment *seg, kq_log_cursor *cur,
                          uint8_t *buf, size_t cap)
{
    uint64_t pos = cur->range.pos + cur->done;
    if (cur->batch_left == 0) {
        uint8_t h[RECORD_BATCH_LOG_OVERHEAD];
        int rc = storage_pread_all(log->fs, seg->fd, h, sizeof h, pos);
        if (rc < 0)
            return rc;
        int32_t length = (int32_t)storage_be32(h + 8);
        if (length < RECORD_BATCH_HEADER_BYTES - RECORD_BATCH_LOG_OVERHEAD)
            return -EBADMSG;
        size_t size = (size_t)length + RECORD_BATCH_LOG_OVERHEAD;
        if (size > cur->range.len - cur->done)
            return -EBADMSG;
        if ((rc = verify_in_pieces(log, seg, cur, pos, size, buf, cap)) < 0)
            return rc;
        cur->batch_left = size;
        cur->batch_next = (int64_t)storage_be64(h) + 1; /* fixed below from the header */
        uint8_t d[4];
        if ((rc = storage_pread_all(log->fs, seg->fd, d, sizeof d, pos + 23)) < 0)
            return rc;
        cur->batch_next += (int32_t)storage_be32(d);
    }
    size_t n = cur->batch_left < cap ? (size_t)cur->batch_left : cap;
    int rc = storage_pread_all(log->fs, seg->fd, buf, n, pos);
    if (rc < 0)
        return rc;
    cur->done += n;
    cur->batch_left -= n;
    if (cur->batch_left == 0)
        cur->next_offset = cur->batch_next;
    return (ssize_t)n;
}

ssize_t kq_log_cursor_read(kq_log *log, kq_log_cursor *cur, uint8_t *buf, size_t cap,
                           size_t *need_bytes)
{
    if (cur->done >= cur->range.len)
        return 0;
    storage_segment *seg = segment_by_id(log, cur->range.segment_id);
    if (!seg || cur->range.pos + cur->range.len > seg->size)
        return -ESTALE;
    if (cur->batch_left > 0 && cap > 0)
        return read_piece(log, seg, cur, buf, cap); /* any size will do */
    if (cap < RECORD_BATCH_HEADER_BYTES) {
        *need_bytes = RECORD_BATCH_HEADER_BYTES;
        return -ENOBUFS;
    }
    uint64_t left = cur->range.len - cur->done;
    size_t n = left < cap ? (size_t)left : cap;
    int rc = storage_pread_all(log->fs, seg->fd, buf, n, cur->range.pos + cur->done);
    if (rc < 0)
        return rc;
    ssize_t got = keep_verified(log, seg, cur, buf, n, need_bytes);
    if (got == -ENOBUFS && *need_bytes > cap)
        return read_piece(log, seg, cur, buf, cap); /* a batch larger than cap */
    return got;
}
