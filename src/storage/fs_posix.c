/* kq_fs over the real file system: the only file in src/storage that calls
 * POSIX file functions (everything else goes through the kq_fs table, so the
 * simulator can substitute its own). Thread-safe: no state besides the
 * kernel's and the directory descriptors kept for fsync_dir (under a
 * mutex), ctx unused. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
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

/* A directory's descriptor is opened at its first fsync (at start, before
 * any client) and kept, so that a later fsync of it never needs a free
 * descriptor: descriptors exhausted by clients can then not turn into an
 * "fsync failed" (issue 19 item 2). Checked against the path's inode each
 * time (a directory replaced under the same name gets a fresh descriptor). */
#define DIR_FDS_KEPT 8
static struct dir_fd {
    char path[4096];
    int fd;
    dev_t dev;
    ino_t ino;
} dir_fds[DIR_FDS_KEPT];
static int dir_fd_count;
static pthread_mutex_t dir_fd_mutex = PTHREAD_MUTEX_INITIALIZER;

/* The kept descriptor of path (dup'ed: the caller closes it), or -1. */
static int dir_fd_get(const char *path, const struct stat *st)
{
    int fd = -1;
    pthread_mutex_lock(&dir_fd_mutex);
    for (int i = 0; i < dir_fd_count; i++) {
        struct dir_fd *d = &dir_fds[i];
        if (strcmp(d->path, path) != 0)
            continue;
        if (d->dev == st->st_dev && d->ino == st->st_ino)
            fd = d->fd;
        break;
    }
    pthread_mutex_unlock(&dir_fd_mutex);
    return fd;
}

static void dir_fd_keep(const char *path, int fd, const struct stat *st)
{
    pthread_mutex_lock(&dir_fd_mutex);
    int slot = -1;
    for (int i = 0; i < dir_fd_count; i++)
        if (strcmp(dir_fds[i].path, path) == 0)
            slot = i; /* replaced directory: the old descriptor stays open (rare) */
    if (slot < 0 && dir_fd_count < DIR_FDS_KEPT && strlen(path) < sizeof dir_fds[0].path)
        slot = dir_fd_count++;
    if (slot >= 0) {
        int keep = fcntl(fd, F_DUPFD_CLOEXEC, 0);
        if (keep >= 0) {
            snprintf(dir_fds[slot].path, sizeof dir_fds[slot].path, "%s", path);
            dir_fds[slot].fd = keep;
            dir_fds[slot].dev = st->st_dev;
            dir_fds[slot].ino = st->st_ino;
        }
    }
    pthread_mutex_unlock(&dir_fd_mutex);
}

static int posix_fsync_dir(void *ctx, const char *path)
{
    (void)ctx;
    struct stat st;
    if (stat(path, &st) < 0)
        return -errno;
    int kept = dir_fd_get(path, &st);
    if (kept >= 0)
        return fsync(kept) < 0 ? -errno : 0; /* kept descriptors are never closed */
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = fsync(fd) < 0 ? -errno : 0;
    struct stat fst;
    if (rc == 0 && fstat(fd, &fst) == 0)
        dir_fd_keep(path, fd, &fst);
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
