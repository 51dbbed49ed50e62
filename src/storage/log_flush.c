/* Group commit: capture on the loop thread, fdatasync on a worker.
 * The job is self-contained (fs pointer, dup'd descriptors, a copy of the
 * directory path) because kq_log_flush_run may run on another thread while
 * the loop thread keeps appending, rolling and truncating: it must never
 * read struct kq_log.
 *
 * The recovery point rides along (FORMAT.md): begin writes the offset the
 * previous job published into the recovery-point file (a page-cache write,
 * no fsync), and every KQ_LOG_RECOVERY_POINT_SYNC_JOBS jobs, or after a
 * roll, the job also fdatasyncs that file. After a roll the job fdatasyncs
 * the sealed segment's .index too: a later recovery trusts it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "storage_internal.h"

struct kq_log_flush_job {
    const kq_fs *fs;
    int64_t end_offset;
    storage_loc end_loc; /* where the batches below end_offset end */
    int result;
    bool ran;  /* run was called: an abandoned job publishes nothing */
    char *dir; /* the directory to fsync after a roll, or NULL (same allocation) */
    int fd_count;
    int fds[]; /* dup'd descriptors: segments, sealed indexes, the recovery point */
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
    job->end_loc = storage_loc_end(log);
    job->result = 0;
    job->ran = false;
    job->fd_count = 0;
    job->dir = NULL;
    if (dir_bytes > 0) {
        job->dir = (char *)(job->fds + fd_cap);
        memcpy(job->dir, log->dir, dir_bytes);
    }
    return job;
}

/* Adds a dup of fd to the job (a dup, so that a truncate closing the
 * original meanwhile does not pull it from under the worker). */
static bool job_add_fd(kq_log_flush_job *job, int fd)
{
    int d = job->fs->dup(job->fs->ctx, fd);
    if (d < 0) {
        job->result = d;
        return false;
    }
    job->fds[job->fd_count++] = d;
    return true;
}

/* Whether this job also fdatasyncs the recovery-point file. */
static bool rp_sync_due(const kq_log *log)
{
    return log->rp_unsynced &&
           (log->rp_roll || log->rp_jobs + 1 >= KQ_LOG_RECOVERY_POINT_SYNC_JOBS);
}

/* Captures the descriptors: dirty segments, sealed indexes, the recovery point. */
static void job_capture(kq_log *log, kq_log_flush_job *job, bool rp_sync)
{
    for (size_t i = 0; i < log->seg_count && job->result == 0; i++) {
        storage_segment *seg = &log->segs[i];
        /* The index is rebuilt by recovery, so it is written but not synced,
         * except once a roll sealed it. */
        if ((seg->dirty || seg->index_sync_due) && storage_index_sync(log, seg, NULL, 0) < 0)
            job->result = -EIO;
        /* the open's own error: EMFILE is not reported as an I/O error */
        if (seg->index_sync_due && seg->index_fd < 0 && job->result == 0) {
            int rc = storage_index_open(log, seg);
            if (rc < 0)
                job->result = rc;
        }
        if (seg->dirty && job_add_fd(job, seg->fd))
            seg->dirty = false;
        if (seg->index_sync_due && seg->index_fd >= 0 && job_add_fd(job, seg->index_fd))
            seg->index_sync_due = false;
        if (!seg->index_sync_due && i + 1 < log->seg_count && seg->index_fd >= 0) {
            log->fs->close(log->fs->ctx, seg->index_fd); /* sealed: no more writes */
            seg->index_fd = -1;
        }
    }
    if (rp_sync && job->result == 0 && job_add_fd(job, log->rp_fd)) {
        log->rp_unsynced = false;
        log->rp_roll = false;
        log->rp_jobs = 0;
    } else {
        log->rp_jobs++;
    }
}

int kq_log_flush_begin(kq_log *log, kq_log_flush_job **job_out)
{
    *job_out = NULL;
    if (log->job_outstanding)
        return -EBUSY;
    if (log->failed)
        return -EIO;
    /* The previous job's offset is durable: record it (no fsync here). */
    if (log->rp.offset != log->flushed_offset) {
        int rc = storage_rp_write(log, log->flushed_offset, log->flushed_loc);
        if (rc < 0) {
            log->failed = true;
            return rc;
        }
    }
    int64_t end = kq_log_end_offset(log);
    size_t fds = 0;
    for (size_t i = 0; i < log->seg_count; i++)
        fds += (size_t)log->segs[i].dirty + (size_t)log->segs[i].index_sync_due;
    if (end == log->flushed_offset && fds == 0 && !log->dir_dirty)
        return 0;
    bool rp_sync = rp_sync_due(log);
    kq_log_flush_job *job = job_alloc(log, fds + rp_sync, end);
    if (!job)
        return -ENOMEM;
    job_capture(log, job, rp_sync);
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
    job->ran = true;
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
    } else if (job->ran) {
        int64_t off = job->end_offset;
        storage_loc loc = job->end_loc;
        if (log->trunc_floor < off && !(log->mutants & KQ_MUTANT_STORAGE_IGNORE_TRUNC_FLOOR)) {
            off = log->trunc_floor; /* the mutant forgets a raced truncation */
            loc = log->trunc_floor_loc;
        }
        if (off > log->flushed_offset) {
            log->flushed_offset = off;
            log->flushed_loc = loc;
        }
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
