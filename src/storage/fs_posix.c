/* kq_fs over the real file system: the only file in src/storage that calls
 * POSIX file functions (everything else goes through the kq_fs table, so the
 * simulator can substitute its own). Thread-safe: no state besides the
 * kernel's, ctx unused. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kq/fs.h"

static int posix_open(void *ctx, const char *path, unsigned flags)
{
    (void)ctx;
    int oflags = O_CLOEXEC | ((flags & KQ_FS_WRITE) ? O_RDWR : O_RDONLY);
    if (flags & KQ_FS_CREATE)
        oflags |= O_CREAT;
    if (flags & KQ_FS_EXCL)
        oflags |= O_EXCL;
    if (flags & KQ_FS_TRUNC)
        oflags |= O_TRUNC;
    int fd = open(path, oflags, 0644);
    return fd < 0 ? -errno : fd;
}

static int posix_dup(void *ctx, int fd)
{
    (void)ctx;
    int nfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    return nfd < 0 ? -errno : nfd;
}

static int posix_close(void *ctx, int fd)
{
    (void)ctx;
    /* No retry on EINTR: on Linux the descriptor is gone either way. */
    return close(fd) < 0 ? -errno : 0;
}

static ssize_t posix_pread(void *ctx, int fd, void *buf, size_t len, uint64_t pos)
{
    (void)ctx;
    if (pos > INT64_MAX)
        return -EINVAL;
    for (;;) {
        ssize_t n = pread(fd, buf, len, (off_t)pos);
        if (n >= 0)
            return n; /* short counts are the caller's to loop over */
        if (errno != EINTR)
            return -errno;
    }
}

static ssize_t posix_pwrite(void *ctx, int fd, const void *buf, size_t len, uint64_t pos)
{
    (void)ctx;
    if (pos > INT64_MAX)
        return -EINVAL;
    for (;;) {
        ssize_t n = pwrite(fd, buf, len, (off_t)pos);
        if (n >= 0)
            return n;
        if (errno != EINTR)
            return -errno;
    }
}

static int posix_fdatasync(void *ctx, int fd)
{
    (void)ctx;
    return fdatasync(fd) < 0 ? -errno : 0;
}

static int posix_ftruncate(void *ctx, int fd, uint64_t size)
{
    (void)ctx;
    if (size > INT64_MAX)
        return -EFBIG;
    return ftruncate(fd, (off_t)size) < 0 ? -errno : 0;
}

static int posix_size(void *ctx, int fd, uint64_t *size_out)
{
    (void)ctx;
    struct stat st;
    if (fstat(fd, &st) < 0)
        return -errno;
    *size_out = (uint64_t)st.st_size;
    return 0;
}

static int posix_rename(void *ctx, const char *from, const char *to)
{
    (void)ctx;
    return rename(from, to) < 0 ? -errno : 0;
}

static int posix_unlink(void *ctx, const char *path)
{
    (void)ctx;
    return unlink(path) < 0 ? -errno : 0;
}

static int posix_mkdir(void *ctx, const char *path)
{
    (void)ctx;
    return mkdir(path, 0755) < 0 ? -errno : 0;
}

static int posix_list_dir(void *ctx, const char *path, kq_fs_dir_fn fn, void *arg)
{
    (void)ctx;
    DIR *d = opendir(path);
    if (!d)
        return -errno;
    int rc = 0;
    for (;;) {
        errno = 0; /* readdir reports errors only through errno */
        struct dirent *de = readdir(d);
        if (!de) {
            rc = errno ? -errno : 0;
            break;
        }
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if ((rc = fn(arg, de->d_name)) != 0)
            break;
    }
    closedir(d);
    return rc;
}

static int posix_fsync_dir(void *ctx, const char *path)
{
    (void)ctx;
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = fsync(fd) < 0 ? -errno : 0;
    close(fd);
    return rc;
}

const kq_fs *kq_fs_posix(void)
{
    static const kq_fs table = {
        .ctx = NULL,
        .open = posix_open,
        .dup = posix_dup,
        .close = posix_close,
        .pread = posix_pread,
        .pwrite = posix_pwrite,
        .fdatasync = posix_fdatasync,
        .ftruncate = posix_ftruncate,
        .size = posix_size,
        .rename = posix_rename,
        .unlink = posix_unlink,
        .mkdir = posix_mkdir,
        .list_dir = posix_list_dir,
        .fsync_dir = posix_fsync_dir,
    };
    return &table;
}
