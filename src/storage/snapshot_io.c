/* Reading and writing KIP-630 snapshot files as opaque bytes: the whole
 * file at once, a follower's chunk-by-chunk transfer into <name>.part and
 * its atomic commit, and ranged reads for FetchSnapshot. Touches only the
 * fs table and its arguments (callable from a worker thread). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/log.h"
#include "kq/snapshot_file.h"
#include "storage_internal.h"

static void partition_dir(char *dir, size_t len, const char *log_dir)
{
    snprintf(dir, len, "%s/%s", log_dir, KQ_LOG_PARTITION_DIR);
}

/* Opens path for reading with its size (bounded by the limit). */
static int open_sized(const kq_fs *fs, const char *path, uint64_t *size)
{
    int fd = fs->open(fs->ctx, path, KQ_FS_READ);
    if (fd < 0)
        return fd;
    int r = fs->size(fs->ctx, fd, size);
    if (r == 0 && *size > KQ_SNAPSHOT_BYTES_MAX)
        r = -EFBIG;
    if (r < 0) {
        fs->close(fs->ctx, fd);
        return r;
    }
    return fd;
}

static int read_all_path(const kq_fs *fs, const char *path, uint8_t **data, size_t *len,
                         size_t max_len)
{
    uint64_t size;
    *data = NULL;
    *len = 0;
    int fd = open_sized(fs, path, &size);
    if (fd < 0)
        return fd;
    int r = size > max_len ? -EFBIG : 0;
    uint8_t *buf = NULL;
    if (r == 0 && size > 0 && !(buf = malloc((size_t)size)))
        r = -ENOMEM;
    if (r == 0 && size > 0)
        r = storage_pread_all(fs, fd, buf, (size_t)size, 0);
    fs->close(fs->ctx, fd);
    if (r < 0) {
        free(buf);
        return r;
    }
    *data = buf;
    *len = (size_t)size;
    return 0;
}

/* fdatasync's path, renames it to final, fsyncs the directory. */
static int commit_path(const kq_fs *fs, const char *log_dir, const char *part,
                       const char *final, char *err, size_t errlen)
{
    char dir[STORAGE_PATH_MAX];
    int fd = fs->open(fs->ctx, part, KQ_FS_WRITE);
    if (fd < 0) {
        storage_errf(err, errlen, "cannot open %s: %s", part, strerror(-fd));
        return fd;
    }
    int r = fs->fdatasync(fs->ctx, fd);
    int cr = fs->close(fs->ctx, fd);
    if (r == 0)
        r = cr;
    if (r < 0) {
        storage_errf(err, errlen, "cannot fsync %s: %s", part, strerror(-r));
        return r;
    }
    if ((r = fs->rename(fs->ctx, part, final)) < 0) {
        storage_errf(err, errlen, "cannot rename %s to %s: %s", part, final, strerror(-r));
        return r;
    }
    partition_dir(dir, sizeof dir, log_dir);
    if ((r = fs->fsync_dir(fs->ctx, dir)) < 0)
        storage_errf(err, errlen, "cannot fsync directory %s: %s", dir, strerror(-r));
    return r;
}

int kq_snapshot_write_file(const kq_fs *fs, const char *log_dir, raft_snapshot_id id,
                           const uint8_t *data, size_t len, char *err, size_t errlen)
{
    char part[STORAGE_PATH_MAX], final[STORAGE_PATH_MAX];
    int r = kq_snapshot_path(part, sizeof part, log_dir, id, true);
    if (r == 0)
        r = kq_snapshot_path(final, sizeof final, log_dir, id, false);
    if (r < 0) {
        storage_errf(err, errlen, "bad snapshot id or path in %s", log_dir);
        return r;
    }
    if ((r = kq_snapshot_part_write(fs, log_dir, id, 0, data, len, err, errlen)) < 0)
        return r;
    return commit_path(fs, log_dir, part, final, err, errlen);
}

int kq_snapshot_part_write(const kq_fs *fs, const char *log_dir, raft_snapshot_id id,
                           int64_t position, const uint8_t *data, size_t len, char *err,
                           size_t errlen)
{
    char part[STORAGE_PATH_MAX];
    int r = kq_snapshot_path(part, sizeof part, log_dir, id, true);
    if (r < 0 || position < 0) {
        storage_errf(err, errlen, "bad snapshot id, position or path in %s", log_dir);
        return r < 0 ? r : -EINVAL;
    }
    if ((uint64_t)position > KQ_SNAPSHOT_BYTES_MAX || len > KQ_SNAPSHOT_BYTES_MAX - (uint64_t)position) {
        storage_errf(err, errlen, "%s would pass %u bytes", part, KQ_SNAPSHOT_BYTES_MAX);
        return -EFBIG;
    }
    unsigned flags = position == 0 ? KQ_FS_WRITE | KQ_FS_CREATE | KQ_FS_TRUNC : KQ_FS_WRITE;
    int fd = fs->open(fs->ctx, part, flags);
    if (fd < 0) {
        storage_errf(err, errlen, "cannot open %s: %s", part, strerror(-fd));
        return fd;
    }
    uint64_t size = 0;
    r = fs->size(fs->ctx, fd, &size);
    if (r == 0 && size != (uint64_t)position) {
        storage_errf(err, errlen, "%s holds %llu bytes, not position %lld", part,
                     (unsigned long long)size, (long long)position);
        r = -EINVAL;
    } else if (r == 0 && len > 0 &&
               (r = storage_pwrite_all(fs, fd, data, len, (uint64_t)position)) < 0) {
        storage_errf(err, errlen, "cannot write %s: %s", part, strerror(-r));
    }
    int cr = fs->close(fs->ctx, fd);
    return r < 0 ? r : cr;
}

int kq_snapshot_part_read_all(const kq_fs *fs, const char *log_dir, raft_snapshot_id id,
                              uint8_t **data, size_t *len, size_t max_len)
{
    char part[STORAGE_PATH_MAX];
    int r = kq_snapshot_path(part, sizeof part, log_dir, id, true);
    return r < 0 ? r : read_all_path(fs, part, data, len, max_len);
}

int kq_snapshot_part_commit(const kq_fs *fs, const char *log_dir, raft_snapshot_id id,
                            char *err, size_t errlen)
{
    char part[STORAGE_PATH_MAX], final[STORAGE_PATH_MAX];
    int r = kq_snapshot_path(part, sizeof part, log_dir, id, true);
    if (r == 0)
        r = kq_snapshot_path(final, sizeof final, log_dir, id, false);
    if (r < 0) {
        storage_errf(err, errlen, "bad snapshot id or path in %s", log_dir);
        return r;
    }
    return commit_path(fs, log_dir, part, final, err, errlen);
}

int kq_snapshot_part_abort(const kq_fs *fs, const char *log_dir, raft_snapshot_id id)
{
    char part[STORAGE_PATH_MAX];
    int r = kq_snapshot_path(part, sizeof part, log_dir, id, true);
    if (r == 0)
        r = fs->unlink(fs->ctx, part);
    return r == -ENOENT ? 0 : r;
}

int64_t kq_snapshot_size(const kq_fs *fs, const char *log_dir, raft_snapshot_id id)
{
    char path[STORAGE_PATH_MAX];
    uint64_t size;
    int r = kq_snapshot_path(path, sizeof path, log_dir, id, false);
    if (r < 0)
        return r;
    int fd = open_sized(fs, path, &size);
    if (fd < 0)
        return fd;
    fs->close(fs->ctx, fd);
    return (int64_t)size;
}

ssize_t kq_snapshot_read(const kq_fs *fs, const char *log_dir, raft_snapshot_id id,
                         int64_t position, size_t max_bytes, kq_writer *out)
{
    char path[STORAGE_PATH_MAX];
    uint64_t size;
    int r = kq_snapshot_path(path, sizeof path, log_dir, id, false);
    if (r < 0)
        return r;
    int fd = open_sized(fs, path, &size);
    if (fd < 0)
        return fd;
    ssize_t got = 0;
    if (position < 0 || (uint64_t)position > size) {
        got = -ERANGE;
    } else {
        uint64_t n = size - (uint64_t)position;
        if (n > max_bytes)
            n = max_bytes;
        size_t old_len = out->len;
        uint8_t *dst = n ? kq_writer_reserve(out, (size_t)n) : NULL;
        if (n && !dst)
            got = -ENOBUFS;
        else if (n && (r = storage_pread_all(fs, fd, dst, (size_t)n, (uint64_t)position)) < 0)
            got = r;
        else
            got = (ssize_t)n;
        if (got < 0 && dst)
            out->len = old_len;
    }
    fs->close(fs->ctx, fd);
    return got;
}

int kq_snapshot_read_all(const kq_fs *fs, const char *log_dir, raft_snapshot_id id,
                         uint8_t **data, size_t *len, size_t max_len)
{
    char path[STORAGE_PATH_MAX];
    int r = kq_snapshot_path(path, sizeof path, log_dir, id, false);
    return r < 0 ? r : read_all_path(fs, path, data, len, max_len);
}
