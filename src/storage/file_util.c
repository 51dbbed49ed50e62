/* Small file helpers over the kq_fs seam: full reads/writes, mkdir -p,
 * atomic replace. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "storage_internal.h"

void storage_errf(char *errbuf, size_t errlen, const char *fmt, ...)
{
    if (!errbuf || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(errbuf, errlen, fmt, ap);
    va_end(ap);
}

int storage_pwrite_all(const kq_fs *fs, int fd, const void *buf, size_t len, uint64_t pos)
{
    const uint8_t *p = buf;
    while (len > 0) {
        ssize_t n = fs->pwrite(fs->ctx, fd, p, len, pos);
        if (n < 0)
            return (int)n;
        if (n == 0)
            return -EIO; /* no progress: looping would spin forever */
        p += n;
        len -= (size_t)n;
        pos += (uint64_t)n;
    }
    return 0;
}

int storage_pread_all(const kq_fs *fs, int fd, void *buf, size_t len, uint64_t pos)
{
    uint8_t *p = buf;
    while (len > 0) {
        ssize_t n = fs->pread(fs->ctx, fd, p, len, pos);
        if (n < 0)
            return (int)n;
        if (n == 0)
            return -EIO; /* end of file before len bytes */
        p += n;
        len -= (size_t)n;
        pos += (uint64_t)n;
    }
    return 0;
}

/* Stops a listing at its first entry: only whether it can be listed counts. */
static int stop_at_first(void *arg, const char *name)
{
    (void)arg;
    (void)name;
    return 1;
}

int storage_mkdirs(const kq_fs *fs, const char *path)
{
    char buf[STORAGE_PATH_MAX];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf)
        return -ENAMETOOLONG;
    memcpy(buf, path, n + 1);
    int rc = 0;
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        char saved = buf[i];
        buf[i] = '\0';
        rc = fs->mkdir(fs->ctx, buf);
        if (rc < 0 && rc != -EEXIST)
            return rc;
        buf[i] = saved;
    }
    if (rc != -EEXIST)
        return 0;
    /* The last component existed: it must be a directory (the fs has no stat;
     * listing a file fails with -ENOTDIR). */
    rc = fs->list_dir(fs->ctx, path, stop_at_first, NULL);
    return rc < 0 ? rc : 0;
}

/* Writes and syncs tmp; 0 or -errno. */
static int write_tmp(const kq_fs *fs, const char *tmp, const void *data, size_t len,
                     char *errbuf, size_t errlen)
{
    int fd = fs->open(fs->ctx, tmp, KQ_FS_WRITE | KQ_FS_CREATE | KQ_FS_TRUNC);
    if (fd < 0) {
        storage_errf(errbuf, errlen, "cannot create %s: %s", tmp, strerror(-fd));
        return fd;
    }
    int rc = storage_pwrite_all(fs, fd, data, len, 0);
    if (rc == 0)
        rc = fs->fdatasync(fs->ctx, fd);
    int crc = fs->close(fs->ctx, fd);
    if (rc == 0)
        rc = crc;
    if (rc < 0) {
        storage_errf(errbuf, errlen, "cannot write %s: %s", tmp, strerror(-rc));
        fs->unlink(fs->ctx, tmp);
    }
    return rc;
}

int storage_atomic_write(const kq_fs *fs, const char *dir, const char *name, const void *data,
                         size_t len, char *errbuf, size_t errlen)
{
    char path[STORAGE_PATH_MAX], tmp[STORAGE_PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path ||
        snprintf(tmp, sizeof tmp, "%s/%s.tmp", dir, name) >= (int)sizeof tmp) {
        storage_errf(errbuf, errlen, "path too long: %s/%s", dir, name);
        return -ENAMETOOLONG;
    }
    int rc = write_tmp(fs, tmp, data, len, errbuf, errlen);
    if (rc < 0)
        return rc;
    if ((rc = fs->rename(fs->ctx, tmp, path)) < 0) {
        storage_errf(errbuf, errlen, "cannot rename %s to %s: %s", tmp, path, strerror(-rc));
        fs->unlink(fs->ctx, tmp);
        return rc;
    }
    rc = fs->fsync_dir(fs->ctx, dir);
    if (rc < 0)
        storage_errf(errbuf, errlen, "cannot fsync directory %s: %s", dir, strerror(-rc));
    return rc;
}
