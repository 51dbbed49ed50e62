/* Log searches on a worker thread (kq/log.h, "Searches off the loop"): a
 * job holds dup'd descriptors of the segments a range of offsets lies in,
 * and walks their batches, each verified as kq_log_read verifies it, in
 * chunks of KQ_LOG_SEARCH_CHUNK_BYTES. See FORMAT.md, "Searches". */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/record.h"
#include "storage_internal.h"

typedef struct search_segment {
    int fd;              /* a dup: stays readable if the file is deleted */
    int64_t base_offset; /* the first batch's base (segment's own for later ones) */
    int64_t end_offset;  /* the segment's end when the job was made */
    uint64_t pos;        /* where the walk starts */
    uint64_t size;       /* the file's size when the job was made */
} search_segment;

struct kq_log_search_job {
    const kq_fs *fs;
    int64_t limit;
    raft_epoch_entry *epochs;
    int epoch_count;
    size_t count;
    search_segment segs[];
};

void kq_log_search_free(kq_log_search_job *job)
{
    if (!job)
        return;
    for (size_t i = 0; i < job->count; i++)
        job->fs->close(job->fs->ctx, job->segs[i].fd);
    free(job->epochs);
    free(job);
}

/* Segments [first, last] of log hold [from, limit). */
static kq_log_search_job *job_new(kq_log *log, size_t first, size_t last, int64_t limit)
{
    size_t n = last - first + 1;
    kq_log_search_job *job = calloc(1, sizeof *job + n * sizeof job->segs[0]);
    if (!job)
        return NULL;
    job->fs = log->fs;
    job->limit = limit;
    job->epoch_count = log->epoch_count;
    job->epochs = malloc(((size_t)log->epoch_count + 1) * sizeof *job->epochs);
    if (!job->epochs) {
        free(job);
        return NULL;
    }
    if (log->epoch_count > 0)
        memcpy(job->epochs, log->epochs, (size_t)log->epoch_count * sizeof *job->epochs);
    for (size_t i = 0; i < n; i++) {
        const storage_segment *seg = &log->segs[first + i];
        int fd = log->fs->dup(log->fs->ctx, seg->fd);
        if (fd < 0) {
            kq_log_search_free(job);
            return NULL;
        }
        job->segs[job->count++] = (search_segment){.fd = fd, .base_offset = seg->base_offset,
                                                   .end_offset = seg->end_offset,
                                                   .size = seg->size};
    }
    return job;
}

kq_log_search_job *kq_log_search_begin(kq_log *log, int64_t from, int64_t limit, char *errbuf,
                                       size_t errlen)
{
    if (from < log->start_offset)
        from = log->start_offset;
    if (limit > kq_log_end_offset(log))
        limit = kq_log_end_offset(log);
    size_t first = 0, last = 0;
    while (first + 1 < log->seg_count && log->segs[first + 1].base_offset <= from)
        first++;
    last = first;
    while (last + 1 < log->seg_count && log->segs[last + 1].base_offset < limit)
        last++;
    uint64_t pos = 0, size = 0;
    int rc = -ERANGE; /* an empty range: nothing to walk */
    if (from < limit)
        rc = storage_batch_locate(log->fs, &log->segs[first], from, &pos, &size);
    if (rc == -ERANGE)
        rc = 0, pos = log->segs[first].size;
    if (rc < 0) {
        storage_errf(errbuf, errlen, "cannot find offset %lld in %s: %s", (long long)from,
                     log->dir, strerror(-rc));
        return NULL;
    }
    kq_log_search_job *job = job_new(log, first, last, limit);
    if (!job) {
        storage_errf(errbuf, errlen, "cannot make a search job: out of memory or descriptors");
        return NULL;
    }
    job->segs[0].pos = pos;
    job->segs[0].base_offset = from; /* the first batch holds it */
    return job;
}

/* The batch at p (size bytes) verified: whole, CRC, inside its segment,
 * chaining on (the first one holds want), its epoch the cache's. */
static bool batch_ok(const kq_log_search_job *job, const search_segment *s, const uint8_t *p,
                     size_t size, int64_t want, bool first)
{
    record_batch_header h;
    if (record_batch_check(p, size, &h) != RECORD_OK || record_batch_size(&h) != size ||
        h.last_offset_delta < 0 || h.base_offset >= s->end_offset ||
        h.last_offset_delta >= s->end_offset - h.base_offset)
        return false;
    int64_t last = record_batch_last_offset(&h);
    if (first ? (h.base_offset > want || last < want) : h.base_offset != want)
        return false;
    return storage_epoch_agrees(job->epochs, job->epoch_count, h.base_offset, last,
                                h.partition_leader_epoch);
}

/* Walks segment s from its start position. 0 at its end or the limit
 * (*done set at the limit), fn's value, -EBADMSG or -EIO. */
static int walk(kq_log_search_job *job, const search_segment *s, bool first_seg,
                uint8_t *buf, size_t cap, int (*fn)(void *, const uint8_t *, size_t), void *ctx,
                bool *done)
{
    int64_t want = s->base_offset;
    bool first = first_seg;
    uint64_t pos = s->pos;
    while (pos < s->size) {
        uint64_t left = s->size - pos;
        size_t len = left < cap ? (size_t)left : cap;
        if (storage_pread_all(job->fs, s->fd, buf, len, pos) < 0)
            return -EIO;
        size_t used = 0;
        while (len - used >= RECORD_BATCH_HEADER_BYTES) {
            const uint8_t *p = buf + used;
            int64_t base = (int64_t)storage_be64(p);
            int32_t length = (int32_t)storage_be32(p + 8);
            if (base >= job->limit) {
                *done = true;
                return 0;
            }
            if (length < RECORD_BATCH_HEADER_BYTES - RECORD_BATCH_LOG_OVERHEAD ||
                (uint64_t)length + RECORD_BATCH_LOG_OVERHEAD > cap)
                return -EBADMSG;
            size_t size = (size_t)length + RECORD_BATCH_LOG_OVERHEAD;
            if (size > len - used)
                break; /* read again from this batch */
            if (!batch_ok(job, s, p, size, want, first))
                return -EBADMSG;
            int rc = fn(ctx, p, size);
            if (rc != 0)
                return rc;
            want = base + (int32_t)storage_be32(p + 23) + 1;
            first = false;
            used += size;
        }
        if (used == 0)
            return -EBADMSG; /* a batch past the file's end */
        pos += used;
    }
    return 0;
}

int kq_log_search_run(kq_log_search_job *job,
                      int (*fn)(void *ctx, const uint8_t *batch, size_t len), void *ctx)
{
    size_t cap = (size_t)RECORD_BATCH_BYTES_MAX + RECORD_BATCH_LOG_OVERHEAD;
    if (cap < KQ_LOG_SEARCH_CHUNK_BYTES)
        cap = KQ_LOG_SEARCH_CHUNK_BYTES;
    /* No batch is larger than what is left of its segment: a short log
     * needs no buffer of the largest batch's size (under ASan each such
     * allocation is mapped and poisoned afresh: most of the sanitizer
     * simulator's page faults). */
    uint64_t need = RECORD_BATCH_HEADER_BYTES;
    for (size_t i = 0; i < job->count; i++)
        if (job->segs[i].size > job->segs[i].pos && job->segs[i].size - job->segs[i].pos > need)
            need = job->segs[i].size - job->segs[i].pos;
    if (need < cap)
        cap = (size_t)need;
    uint8_t *buf = malloc(cap);
    if (!buf)
        return -ENOMEM;
    int rc = 0;
    bool done = false;
    for (size_t i = 0; i < job->count && rc == 0 && !done; i++)
        rc = walk(job, &job->segs[i], i == 0, buf, cap, fn, ctx, &done);
    free(buf);
    return rc;
}
