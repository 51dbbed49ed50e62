/* Group commit: capture on the loop thread, fdatasync on a worker.
 * The job is self-contained (fs pointer, dup'd descriptors, a copy of the
 * directory path) because kq_log_flush_run may run on another thread while
 * the loop thread keeps appending, rolling and truncating: it must never
 * read struct kq_log. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "storage_internal.h"

struct kq_log_flush_job {
    const kq_fs *fs;
    int64_t end_offset;
    int result;
    char *dir; /* the directory to fsync after a roll, or NULL (same allocation) */
    int fd_count;
    int fds[]; /* dup'd segment fds */
};

/* One allocation for the job, room for fd_cap fds, and the dir copy if any. */
static kq_log_flush_job *job_alloc(const kq_log *log, size_t fd_cap, int64_t end)
{
    size_t dir_bytes = log->dir_dirty ? strlen(log->dir) + 1 : 0;
    kq_log_flush_job *job = malloc(sizeof *job + fd_cap * sizeof(int) + dir_bytes);
    if (!job)
        return NULL;
    job->fs = log->fs;
    job->end_offset = end;
    job->result = 0;
    job->fd_count = 0;
    job->dir = NULL;
    if (dir_bytes > 0) {
        job->dir = (char *)(job->fds + fd_cap);
        memcpy(job->dir, log->dir, dir_bytes);
    }
    return job;
}

int kq_log_flush_begin(kq_log *log, kq_log_flush_job **job_out)
{
    *job_out = NULL;
    if (log->job_outstanding)
        return -EBUSY;
    if (log->failed)
        return -EIO;
    int64_t end = kq_log_end_offset(log);
    size_t dirty = 0;
    for (size_t i = 0; i < log->seg_count; i++)
        dirty += log->segs[i].dirty;
    if (end == log->flushed_offset && dirty == 0 && !log->dir_dirty)
        return 0;
    kq_log_flush_job *job = job_alloc(log, dirty, end);
    if (!job)
        return -ENOMEM;
    const kq_fs *fs = log->fs;
    for (size_t i = 0; i < log->seg_count; i++) {
        storage_segment *seg = &log->segs[i];
        if (!seg->dirty)
            continue;
        /* The index is rebuilt by recovery, so it is written but not synced. */
        if (storage_index_sync(log, seg, NULL, 0) < 0)
            job->result = -EIO;
        /* A dup, so a truncate that closes the segment meanwhile does not
         * pull the descriptor from under the worker. */
        int fd = fs->dup(fs->ctx, seg->fd);
        if (fd < 0) {
            job->result = fd;
            break;
        }
        job->fds[job->fd_count++] = fd;
        seg->dirty = false;
    }
    if (job->result != 0)
        job->dir = NULL; /* the job fails anyway; keep dir_dirty as it was */
    else
        log->dir_dirty = false;
    log->trunc_floor = INT64_MAX;
    log->job_outstanding = true;
    *job_out = job;
    return 0;
}

int kq_log_flush_run(kq_log_flush_job *job)
{
    const kq_fs *fs = job->fs;
    for (int i = 0; i < job->fd_count && job->result == 0; i++)
        job->result = fs->fdatasync(fs->ctx, job->fds[i]);
    /* After a roll the new segment's directory entry must be durable too
     * before any offset in it is published. */
    if (job->result == 0 && job->dir)
        job->result = fs->fsync_dir(fs->ctx, job->dir);
    return job->result;
}

int64_t kq_log_flush_job_offset(const kq_log_flush_job *job)
{
    return job->end_offset;
}

int64_t kq_log_flush_end(kq_log *log, kq_log_flush_job *job)
{
    if (job->result != 0) {
        log->failed = true; /* never retry a failed fsync */
    } else {
        int64_t off = job->end_offset < log->trunc_floor ? job->end_offset : log->trunc_floor;
        if (log->mutants & KQ_MUTANT_STORAGE_IGNORE_TRUNC_FLOOR)
            off = job->end_offset; /* the bug: a raced truncation is forgotten */
        if (off > log->flushed_offset)
            log->flushed_offset = off;
    }
    for (int i = 0; i < job->fd_count; i++)
        job->fs->close(job->fs->ctx, job->fds[i]);
    free(job);
    log->job_outstanding = false;
    return log->flushed_offset;
}

int kq_log_flush_retry(kq_log_flush_job *job)
{
    job->result = 0; /* the fsync-error-continue mutant: exactly the bug */
    return kq_log_flush_run(job);
}
