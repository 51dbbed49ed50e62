/* The log start offset (KIP-630 retention): its checkpoint file, in Kafka's
 * checkpoint text format ("0\n1\n__cluster_metadata 0 L\n"), replaced
 * atomically; kq_log_advance_start, which raises it and deletes the
 * segments wholly below it; and the log's size. See FORMAT.md, "Log start
 * offset". */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/assert.h"
#include "storage_internal.h"

#define START_PREFIX "0\n1\n__cluster_metadata 0 "

static int render(int64_t offset, char *buf, size_t len)
{
    return snprintf(buf, len, START_PREFIX "%" PRId64 "\n", offset);
}

/* Exactly the text render() gives for some offset >= 0. */
static bool parse(const char *text, size_t len, int64_t *offset)
{
    size_t pl = strlen(START_PREFIX);
    if (len <= pl + 1 || memcmp(text, START_PREFIX, pl) != 0 || text[len - 1] != '\n')
        return false;
    int64_t v = 0;
    for (size_t i = pl; i + 1 < len; i++) {
        if (text[i] < '0' || text[i] > '9' || v > (INT64_MAX - (text[i] - '0')) / 10)
            return false;
        v = v * 10 + (text[i] - '0');
    }
    char again[STORAGE_START_CHECKPOINT_BYTES_MAX];
    int n = render(v, again, sizeof again);
    if (n < 0 || (size_t)n != len || memcmp(again, text, len) != 0)
        return false; /* leading zeros */
    *offset = v;
    return true;
}

int storage_start_load(const kq_log *log, int64_t *offset, char *errbuf, size_t errlen)
{
    const kq_fs *fs = log->fs;
    char path[STORAGE_PATH_MAX], text[STORAGE_START_CHECKPOINT_BYTES_MAX];
    if (snprintf(path, sizeof path, "%s/%s", log->dir, STORAGE_START_CHECKPOINT) >=
        (int)sizeof path)
        return -ENAMETOOLONG;
    int fd = fs->open(fs->ctx, path, KQ_FS_READ);
    if (fd == -ENOENT)
        return 0;
    if (fd < 0) {
        storage_errf(errbuf, errlen, "cannot open %s: %s", path, strerror(-fd));
        return fd;
    }
    uint64_t size = 0;
    int rc = fs->size(fs->ctx, fd, &size);
    if (rc == 0 && size <= sizeof text)
        rc = storage_pread_all(fs, fd, text, (size_t)size, 0);
    fs->close(fs->ctx, fd);
    if (rc < 0) {
        storage_errf(errbuf, errlen, "cannot read %s: %s", path, strerror(-rc));
        return rc;
    }
    if (size > sizeof text || !parse(text, (size_t)size, offset)) {
        storage_errf(errbuf, errlen,
                     "corrupt %s: not \"0\\n1\\n__cluster_metadata 0 <offset>\\n\" (%" PRIu64
                     " bytes); refusing to open",
                     path, size);
        return -EUCLEAN;
    }
    return 1;
}

int storage_start_write(const kq_log *log, int64_t offset, char *errbuf, size_t errlen)
{
    char text[STORAGE_START_CHECKPOINT_BYTES_MAX];
    int n = render(offset, text, sizeof text);
    KQ_ASSERT(n > 0 && (size_t)n < sizeof text);
    return storage_atomic_write(log->fs, log->dir, STORAGE_START_CHECKPOINT, text, (size_t)n,
                                errbuf, errlen);
}

int storage_start_replace_damaged(const kq_log *log, char *errbuf, size_t errlen)
{
    const kq_fs *fs = log->fs;
    char path[STORAGE_PATH_MAX], text[STORAGE_START_CHECKPOINT_BYTES_MAX];
    if (snprintf(path, sizeof path, "%s/%s", log->dir, STORAGE_START_CHECKPOINT) >=
        (int)sizeof path)
        return -ENAMETOOLONG;
    /* A copy, not a rename: a crash before the new checkpoint is durable
     * finds the damaged one still there and repairs again. */
    uint64_t size = 0;
    int fd = fs->open(fs->ctx, path, KQ_FS_READ);
    int rc = fd < 0 ? fd : fs->size(fs->ctx, fd, &size);
    if (rc == 0 && size > sizeof text)
        size = sizeof text;
    if (rc == 0)
        rc = storage_pread_all(fs, fd, text, (size_t)size, 0);
    if (fd >= 0)
        fs->close(fs->ctx, fd);
    if (rc == 0)
        rc = storage_atomic_write(fs, log->dir, STORAGE_START_DAMAGED, text, (size_t)size,
                                  errbuf, errlen);
    else if (rc != -ENOENT)
        storage_errf(errbuf, errlen, "cannot read %s: %s", path, strerror(-rc));
    if (rc < 0 && rc != -ENOENT)
        return rc;
    return storage_start_write(log, log->start_offset, errbuf, errlen);
}

uint64_t kq_log_size_bytes(const kq_log *log)
{
    uint64_t total = 0;
    for (size_t i = 0; i < log->seg_count; i++)
        total += log->segs[i].size;
    return total;
}

uint64_t kq_log_bytes_below(const kq_log *log, int64_t offset)
{
    uint64_t total = 0;
    /* A segment lies wholly below offset when the next one starts at or
     * below it; the active (last) segment never does. */
    for (size_t i = 0; i + 1 < log->seg_count && log->segs[i + 1].base_offset <= offset; i++)
        total += log->segs[i].size;
    return total;
}

/* Whether offset may become the log start: above it, flushed, a boundary. */
static int check_advance(kq_log *log, int64_t offset, char *errbuf, size_t errlen)
{
    if (log->failed) {
        storage_errf(errbuf, errlen, "log %s failed earlier; refusing to advance", log->dir);
        return -EIO;
    }
    if (offset <= log->start_offset || offset > log->flushed_offset) {
        storage_errf(errbuf, errlen,
                     "log start %" PRId64 " outside (%" PRId64 ", %" PRId64 "] (start, flushed)",
                     offset, log->start_offset, log->flushed_offset);
        return -EINVAL;
    }
    storage_segment *seg = storage_segment_find(log, offset);
    int64_t pos = storage_boundary_position(log->fs, seg, offset);
    if (pos < 0) {
        storage_errf(errbuf, errlen, "log start %" PRId64 ": %s", offset,
                     pos == -EINVAL ? "not a batch boundary" : "read error");
        return (int)pos;
    }
    return 0;
}

/* A recovery-point record naming the first segment left (offset: the
 * flushed offset), durable before any segment file goes: a crash while
 * deleting then finds the layout it describes, less files wholly below L. */
static int rp_for_new_first(kq_log *log, char *errbuf, size_t errlen)
{
    int rc = storage_rp_write(log, log->flushed_offset, log->flushed_loc);
    if (rc == 0)
        rc = storage_rp_sync(log);
    if (rc < 0)
        storage_errf(errbuf, errlen, "cannot write %s/%s: %s", log->dir,
                     KQ_LOG_RECOVERY_POINT_FILE, strerror(-rc));
    return rc;
}

/* Unlinks the files of the segments [0, k) (already released) and fsyncs
 * the directory. */
static int unlink_below(kq_log *log, storage_segment *gone, size_t k, char *errbuf,
                        size_t errlen)
{
    int rc = 0;
    for (size_t i = 0; i < k; i++) { /* all released, the first error kept */
        int r = storage_segment_delete_files(log, &gone[i]);
        if (rc == 0)
            rc = r;
    }
    if (rc == 0)
        rc = log->fs->fsync_dir(log->fs->ctx, log->dir);
    if (rc < 0)
        storage_errf(errbuf, errlen, "cannot delete old segments in %s: %s", log->dir,
                     strerror(-rc));
    return rc;
}

int kq_log_advance_start(kq_log *log, int64_t offset, char *errbuf, size_t errlen)
{
    int rc = check_advance(log, offset, errbuf, errlen);
    if (rc < 0)
        return rc;
    size_t k = 0; /* segments wholly below offset; never the active one */
    while (k + 1 < log->seg_count && log->segs[k + 1].base_offset <= offset)
        k++;
    storage_segment *gone = k ? malloc(k * sizeof *gone) : NULL;
    if (k && !gone) {
        storage_errf(errbuf, errlen, "out of memory");
        return -ENOMEM;
    }
    /* 1. L durable first: from here on a crash deletes what lies below. */
    if ((rc = storage_start_write(log, offset, errbuf, errlen)) < 0) {
        free(gone);
        log->failed = true;
        return rc;
    }
    log->start_offset = offset;
    if (k == 0)
        return 0;
    memcpy(gone, log->segs, k * sizeof *gone);
    memmove(log->segs, log->segs + k, (log->seg_count - k) * sizeof *log->segs);
    log->seg_count -= k;
    /* 2. The recovery point names the new first segment; 3. files go. */
    rc = rp_for_new_first(log, errbuf, errlen);
    if (rc == 0)
        rc = unlink_below(log, gone, k, errbuf, errlen);
    else
        for (size_t i = 0; i < k; i++)
            storage_segment_release(log->fs, &gone[i]);
    free(gone);
    if (rc < 0)
        log->failed = true;
    return rc;
}
