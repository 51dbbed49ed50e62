/* Recovery's walk over a segment file: each batch whole, CRC-valid, its
 * offsets following on and its epoch consistent, recorded in the index. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recover.h"

/* Makes [pos, pos+need) available; need <= file_size - pos. */
static int scan_fill(scan_buf *b, uint64_t pos, size_t need, const uint8_t **out)
{
    if (!(pos >= b->off && pos + need <= b->off + b->len)) {
        size_t want = need > RECOVER_SCAN_CHUNK_BYTES ? need : RECOVER_SCAN_CHUNK_BYTES;
        if (want > b->cap) {
            uint8_t *d = realloc(b->data, want);
            if (!d)
                return -ENOMEM;
            b->data = d;
            b->cap = want;
        }
        uint64_t left = b->file_size - pos;
        size_t n = left < b->cap ? (size_t)left : b->cap;
        int rc = storage_pread_all(b->fs, b->fd, b->data, n, pos);
        if (rc < 0)
            return rc;
        b->off = pos;
        b->len = n;
    }
    *out = b->data + (pos - b->off);
    return 0;
}

enum record_status recover_check_at(scan_buf *b, uint64_t pos, uint64_t limit,
                                    record_batch_header *h, int *io_err)
{
    uint64_t avail = limit - pos;
    const uint8_t *p;
    *io_err = 0;
    if (avail < RECORD_BATCH_LOG_OVERHEAD)
        return RECORD_TRUNCATED;
    if ((*io_err = scan_fill(b, pos, RECORD_BATCH_LOG_OVERHEAD, &p)) < 0)
        return RECORD_TRUNCATED;
    int32_t length = (int32_t)storage_be32(p + 8);
    if (length < RECORD_BATCH_HEADER_BYTES - RECORD_BATCH_LOG_OVERHEAD ||
        (uint32_t)length > RECORD_BATCH_BYTES_MAX)
        return RECORD_BAD_LENGTH;
    size_t size = (size_t)length + RECORD_BATCH_LOG_OVERHEAD;
    if (size > avail)
        return RECORD_TRUNCATED;
    if ((*io_err = scan_fill(b, pos, size, &p)) < 0)
        return RECORD_TRUNCATED;
    return record_batch_check(p, size, h);
}

int rwalk_init(rwalk *w, kq_log *log, storage_segment *seg, bool verify)
{
    memset(w, 0, sizeof *w);
    w->log = log;
    w->seg = seg;
    w->verify = verify;
    w->next = seg->base_offset;
    w->hint_last = -1;
    w->b.fs = log->fs;
    w->b.fd = seg->fd;
    seg->size = 0;
    seg->end_offset = seg->base_offset;
    if (storage_segment_path(log, seg->base_offset, ".log", w->path, sizeof w->path) < 0)
        return -ENAMETOOLONG;
    return log->fs->size(log->fs->ctx, seg->fd, &w->b.file_size);
}

void rwalk_free(rwalk *w)
{
    free(w->b.data);
    w->b.data = NULL;
}

/* The last offset a header claims, for a message only: base + delta of
 * garbage bytes can overflow int64 (undefined behaviour), so it saturates. */
static int64_t claimed_last_offset(const record_batch_header *h)
{
    if (h->last_offset_delta > 0 && h->base_offset > INT64_MAX - h->last_offset_delta)
        return INT64_MAX;
    if (h->last_offset_delta < 0 && h->base_offset < INT64_MIN - h->last_offset_delta)
        return INT64_MIN;
    return h->base_offset + h->last_offset_delta;
}

/* Whether a CRC-valid batch's offsets follow on (or end at the hint). */
static bool offsets_ok(rwalk *w, const record_batch_header *h)
{
    const storage_segment *seg = w->seg;
    bool ok = h->last_offset_delta >= 0 && h->base_offset >= seg->base_offset &&
              h->base_offset <= INT64_MAX - h->last_offset_delta - 1;
    if (ok)
        ok = w->hint_last >= 0 ? record_batch_last_offset(h) == w->hint_last
                               : h->base_offset == w->next;
    ok = ok && record_batch_last_offset(h) - seg->base_offset <= INT32_MAX && w->pos <= INT32_MAX;
    if (!ok)
        snprintf(w->why, sizeof w->why,
                 "batch with offsets %" PRId64 "..%" PRId64 " (expected %s %" PRId64 ")",
                 h->base_offset, claimed_last_offset(h),
                 w->hint_last >= 0 ? "last offset" : "base offset",
                 w->hint_last >= 0 ? w->hint_last : w->next);
    return ok;
}

/* 1 if the batch's epoch is consistent, 0 if not (why filled), -ENOMEM. */
static int epoch_ok(rwalk *w, const record_batch_header *h)
{
    kq_log *log = w->log;
    int32_t ep = h->partition_leader_epoch;
    if (w->verify) {
        if (storage_epoch_agrees(log->epochs, log->epoch_count, h->base_offset,
                                 record_batch_last_offset(h), ep))
            return 1;
        snprintf(w->why, sizeof w->why,
                 "batch with leader epoch %" PRId32 ", which disagrees with "
                 STORAGE_EPOCH_CHECKPOINT, ep);
        return 0;
    }
    int e = storage_epoch_assign(log, ep, h->base_offset);
    if (e == -ENOMEM)
        return e;
    if (e == -EINVAL) {
        snprintf(w->why, sizeof w->why,
                 "batch with leader epoch %" PRId32 " below an earlier batch's", ep);
        return 0;
    }
    return 1;
}

int rwalk_step(rwalk *w, uint64_t limit)
{
    if (w->pos >= limit)
        return RWALK_END;
    record_batch_header h;
    int io_err;
    enum record_status s = recover_check_at(&w->b, w->pos, limit, &h, &io_err);
    if (io_err < 0)
        return io_err;
    w->bad_bytes = s != RECORD_OK;
    if (s != RECORD_OK) {
        snprintf(w->why, sizeof w->why, "%s batch", record_status_name(s));
        return RWALK_BAD;
    }
    if (!offsets_ok(w, &h))
        return RWALK_BAD;
    int e = epoch_ok(w, &h);
    if (e <= 0)
        return e < 0 ? e : RWALK_BAD;
    int64_t last = record_batch_last_offset(&h);
    if (storage_segment_note_batch(w->seg, w->pos, record_batch_size(&h), last) < 0)
        return -ENOMEM;
    w->pos += record_batch_size(&h);
    w->next = last + 1;
    w->hint_last = -1;
    w->seg->size = w->pos;
    w->seg->end_offset = w->next;
    return RWALK_BATCH;
}

int rwalk_run(rwalk *w, uint64_t limit)
{
    int rc;
    while ((rc = rwalk_step(w, limit)) == RWALK_BATCH)
        ;
    return rc;
}

bool rwalk_valid_after(rwalk *w)
{
    const uint8_t *p;
    scan_buf *b = &w->b;
    if (b->file_size - w->pos < RECORD_BATCH_LOG_OVERHEAD ||
        scan_fill(b, w->pos, RECORD_BATCH_LOG_OVERHEAD, &p) < 0)
        return false;
    int32_t length = (int32_t)storage_be32(p + 8);
    if (length < RECORD_BATCH_HEADER_BYTES - RECORD_BATCH_LOG_OVERHEAD ||
        (uint32_t)length > RECORD_BATCH_BYTES_MAX)
        return false;
    uint64_t after = w->pos + (uint64_t)length + RECORD_BATCH_LOG_OVERHEAD;
    record_batch_header h;
    int io_err;
    return after < b->file_size &&
           recover_check_at(b, after, b->file_size, &h, &io_err) == RECORD_OK;
}

/* Whether entry e (after prev, NULL for the first) is plausible for a
 * segment with base offset base whose batches below limit end before
 * end_offset: as segment.c writes them, keys and positions ascend and
 * entries lie more than the index interval apart. */
static bool entry_plausible(const storage_index_entry *e, const storage_index_entry *prev,
                            int64_t base, uint64_t limit, int64_t end_offset)
{
    uint64_t prev_pos = prev ? (uint64_t)prev->position : 0;
    return e->rel_offset >= 0 && e->position >= 0 && (!prev || e->rel_offset > prev->rel_offset) &&
           (uint64_t)e->position > prev_pos + KQ_LOG_INDEX_INTERVAL_BYTES &&
           (uint64_t)e->position < limit && e->rel_offset < end_offset - base;
}

/* Reads seg's .index into seg->index while its entries are plausible; sets
 * *whole when the file holds nothing else. 0 or -errno (no file: nothing). */
static int index_load(rwalk *w, uint64_t limit, int64_t end_offset, bool *whole)
{
    const kq_fs *fs = w->log->fs;
    storage_segment *seg = w->seg;
    char path[STORAGE_PATH_MAX];
    *whole = false;
    if (storage_segment_path(w->log, seg->base_offset, ".index", path, sizeof path) < 0)
        return -ENAMETOOLONG;
    int fd = fs->open(fs->ctx, path, KQ_FS_READ);
    if (fd < 0)
        return fd == -ENOENT ? 0 : fd;
    uint64_t size = 0;
    int rc = fs->size(fs->ctx, fd, &size);
    bool plausible = rc == 0 && size % 8 == 0;
    uint8_t buf[8 * 256];
    for (uint64_t at = 0; plausible && at < size; at += sizeof buf) {
        size_t n = size - at < sizeof buf ? (size_t)(size - at) : sizeof buf;
        if ((rc = storage_pread_all(fs, fd, buf, n, at)) < 0)
            break;
        for (size_t j = 0; plausible && j < n; j += 8) {
            storage_index_entry e = {(int32_t)storage_be32(buf + j),
                                     (int32_t)storage_be32(buf + j + 4)};
            const storage_index_entry *prev =
                seg->index_count ? &seg->index[seg->index_count - 1] : NULL;
            plausible = entry_plausible(&e, prev, seg->base_offset, limit, end_offset);
            if (plausible && (rc = storage_index_push(seg, e.rel_offset, e.position)) < 0)
                plausible = false;
        }
    }
    fs->close(fs->ctx, fd);
    *whole = plausible && rc == 0;
    return rc;
}

/* Walks to limit; the batches must end exactly there, before end_offset. */
static int walk_to(rwalk *w, uint64_t limit, int64_t end_offset)
{
    uint64_t stop = limit < w->b.file_size ? limit : w->b.file_size;
    int rc = rwalk_run(w, stop);
    if (rc != RWALK_END || (w->pos == limit && w->next == end_offset))
        return rc;
    w->bad_bytes = true;
    snprintf(w->why, sizeof w->why,
             "missing or extra batches (they should end at offset %" PRId64 ", position %" PRIu64
             ")",
             end_offset, limit);
    return RWALK_BAD;
}

int rwalk_trusted(rwalk *w, uint64_t limit, int64_t end_offset)
{
    storage_segment *seg = w->seg;
    bool whole = false;
    int rc = index_load(w, limit, end_offset, &whole);
    if (rc < 0)
        return rc;
    size_t loaded = seg->index_count;
    if (loaded > 0) {
        const storage_index_entry *e = &seg->index[loaded - 1];
        w->pos = (uint64_t)e->position;
        w->hint_last = seg->base_offset + e->rel_offset;
        seg->bytes_since_index = 0; /* the entry's batch gets no second entry */
        rc = walk_to(w, limit, end_offset);
        if (rc != RWALK_BAD) {
            seg->index_verified = whole && seg->index_count == loaded;
            return rc;
        }
        /* The entry may be wrong rather than the data: walk it all. */
        seg->index_count = 0;
        seg->size = 0;
        seg->end_offset = seg->base_offset;
        w->pos = 0;
        w->next = seg->base_offset;
        w->hint_last = -1;
    }
    seg->bytes_since_index = 0;
    rc = walk_to(w, limit, end_offset);
    seg->index_verified = loaded == 0 && whole && seg->index_count == 0;
    return rc;
}
