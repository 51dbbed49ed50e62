/* Group commit: capture on the loop thread, fdatasync on a worker. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "storage_internal.h"

struct kq_log_flush_job {
    int64_t end_offset;
    int result;
    int fd_count;
    int fds[]; /* dup'd segment fds, then the directory fd if needed */
};

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
    kq_log_flush_job *job = malloc(sizeof *job + (dirty + 1) * sizeof(int));
    if (!job)
        return -ENOMEM;
    job->end_offset = end;
    job->result = 0;
    job->fd_count = 0;
    for (size_t i = 0; i < log->seg_count; i++) {
        storage_segment *seg = &log->segs[i];
        if (!seg->dirty)
            continue;
        /* The index is rebuilt by recovery, so it is written but not synced. */
        if (storage_index_sync(log, seg, NULL, 0) < 0)
            job->result = -EIO;
        int fd = dup(seg->fd);
        if (fd < 0) {
            job->result = -errno;
            break;
        }
        job->fds[job->fd_count++] = fd;
        seg->dirty = false;
    }
    if (log->dir_dirty && job->result == 0) {
        int fd = dup(log->dir_fd);
        if (fd < 0)
            job->result = -errno;
        else
            job->fds[job->fd_count++] = fd;
        log->dir_dirty = false;
    }
    log->trunc_floor = INT64_MAX;
    log->job_outstanding = true;
    *job_out = job;
    return 0;
}

int kq_log_flush_run(kq_log_flush_job *job)
{
    for (int i = 0; i < job->fd_count && job->result == 0; i++)
        if (fdatasync(job->fds[i]) < 0)
            job->result = -errno;
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
        if (off > log->flushed_offset)
            log->flushed_offset = off;
    }
    for (int i = 0; i < job->fd_count; i++)
        close(job->fds[i]);
    free(job);
    log->job_outstanding = false;
    return log->flushed_offset;
}
