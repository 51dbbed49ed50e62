/* The producer-id floor file (kq/producer_id_file.h), through the fs seam. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/producer_id_file.h"
#include "storage_internal.h"

#define PID_FILE_NAME "producer-id-block"
#define PID_FILE_BYTES_MAX 64

static int pid_dir(const char *log_dir, char *out, size_t outlen)
{
    int n = snprintf(out, outlen, "%s/%s", log_dir, KQ_LOG_PARTITION_DIR);
    return (n < 0 || (size_t)n >= outlen - 32) ? -ENAMETOOLONG : 0;
}

static int parse_floor(const char *buf, size_t len, int64_t *out)
{
    if (len == 0 || len >= PID_FILE_BYTES_MAX || buf[len - 1] != '\n')
        return -EINVAL;
    int64_t v = 0;
    for (size_t i = 0; i + 1 < len; i++) {
        if (buf[i] < '0' || buf[i] > '9' || v > (INT64_MAX - 9) / 10)
            return -EINVAL;
        v = v * 10 + (buf[i] - '0');
    }
    if (len < 2)
        return -EINVAL;
    *out = v;
    return 0;
}

int kq_producer_id_floor_load(const kq_fs *fs, const char *log_dir, int64_t *floor_out,
                              char *errbuf, size_t errlen)
{
    char dir[STORAGE_PATH_MAX], path[STORAGE_PATH_MAX + 32];
    *floor_out = -1;
    if (pid_dir(log_dir, dir, sizeof dir) < 0) {
        storage_errf(errbuf, errlen, "log directory path too long: %s", log_dir);
        return -ENAMETOOLONG;
    }
    snprintf(path, sizeof path, "%s/%s", dir, PID_FILE_NAME);
    int fd = fs->open(fs->ctx, path, KQ_FS_READ);
    if (fd == -ENOENT)
        return 0;
    if (fd < 0) {
        storage_errf(errbuf, errlen, "cannot open %s: %s", path, strerror(-fd));
        return fd;
    }
    char buf[PID_FILE_BYTES_MAX];
    ssize_t n = fs->pread(fs->ctx, fd, buf, sizeof buf, 0);
    fs->close(fs->ctx, fd);
    if (n < 0) {
        storage_errf(errbuf, errlen, "cannot read %s: %s", path, strerror((int)-n));
        return (int)n;
    }
    if (parse_floor(buf, (size_t)n, floor_out) != 0) {
        storage_errf(errbuf, errlen, "malformed %s (expected one decimal producer id)", path);
        return -EINVAL;
    }
    return 0;
}

int kq_producer_id_floor_store(const kq_fs *fs, const char *log_dir, int64_t floor, char *errbuf,
                               size_t errlen)
{
    char dir[STORAGE_PATH_MAX];
    if (floor < 0 || pid_dir(log_dir, dir, sizeof dir) < 0) {
        storage_errf(errbuf, errlen, "bad producer-id floor or log directory path");
        return -EINVAL;
    }
    int rc = storage_mkdirs(fs, dir);
    if (rc != 0) {
        storage_errf(errbuf, errlen, "cannot create %s: %s", dir, strerror(-rc));
        return rc;
    }
    char buf[PID_FILE_BYTES_MAX];
    int n = snprintf(buf, sizeof buf, "%" PRId64 "\n", floor);
    return storage_atomic_write(fs, dir, PID_FILE_NAME, buf, (size_t)n, errbuf, errlen);
}
