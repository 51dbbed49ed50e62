/* Small file helpers: full reads/writes, directory fsync, atomic replace. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

int storage_pwrite_all(int fd, const void *buf, size_t len, uint64_t pos)
{
    const uint8_t *p = buf;
    while (len > 0) {
        ssize_t n = pwrite(fd, p, len, (off_t)pos);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (n == 0)
            return -EIO;
        p += n;
        len -= (size_t)n;
        pos += (uint64_t)n;
    }
    return 0;
}

int storage_pread_all(int fd, void *buf, size_t len, uint64_t pos)
{
    uint8_t *p = buf;
    while (len > 0) {
        ssize_t n = pread(fd, p, len, (off_t)pos);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (n == 0)
            return -EIO;
        p += n;
        len -= (size_t)n;
        pos += (uint64_t)n;
    }
    return 0;
}

int storage_fsync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = fsync(fd) < 0 ? -errno : 0;
    close(fd);
    return rc;
}

int storage_mkdirs(const char *path)
{
    char buf[STORAGE_PATH_MAX];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf)
        return -ENAMETOOLONG;
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        char saved = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0755) < 0 && errno != EEXIST)
            return -errno;
        buf[i] = saved;
    }
    struct stat st;
    if (stat(path, &st) < 0)
        return -errno;
    return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

int storage_atomic_write(const char *dir, const char *name, const void *data, size_t len,
                         char *errbuf, size_t errlen)
{
    char path[STORAGE_PATH_MAX], tmp[STORAGE_PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path ||
        snprintf(tmp, sizeof tmp, "%s/%s.tmp", dir, name) >= (int)sizeof tmp) {
        storage_errf(errbuf, errlen, "path too long: %s/%s", dir, name);
        return -ENAMETOOLONG;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        int e = errno;
        storage_errf(errbuf, errlen, "cannot create %s: %s", tmp, strerror(e));
        return -e;
    }
    int rc = storage_pwrite_all(fd, data, len, 0);
    if (rc == 0 && fsync(fd) < 0)
        rc = -errno;
    if (close(fd) < 0 && rc == 0)
        rc = -errno;
    if (rc < 0) {
        storage_errf(errbuf, errlen, "cannot write %s: %s", tmp, strerror(-rc));
        unlink(tmp);
        return rc;
    }
    if (rename(tmp, path) < 0) {
        int e = errno;
        storage_errf(errbuf, errlen, "cannot rename %s to %s: %s", tmp, path, strerror(e));
        unlink(tmp);
        return -e;
    }
    rc = storage_fsync_dir(dir);
    if (rc < 0)
        storage_errf(errbuf, errlen, "cannot fsync directory %s: %s", dir, strerror(-rc));
    return rc;
}
