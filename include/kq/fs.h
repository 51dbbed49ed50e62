/* The storage module's only door to files: every open, read, write, sync,
 * truncate, rename, unlink and directory listing src/storage does goes
 * through one of these tables. The daemon passes kq_fs_posix(); the
 * deterministic simulator passes an in-memory file system that keeps each
 * file's durable bytes apart from its written-but-unflushed bytes and can
 * fail any call (tests/sim/sim_fs.h).
 *
 * Conventions: paths are absolute or relative to the process, as for POSIX.
 * Every function returns 0 (or a count) on success and a negative errno on
 * failure; none sets errno. Descriptors are small non-negative ints owned by
 * the implementation. pwrite and pread may be short; callers loop.
 * fdatasync may run on a worker thread while the loop thread keeps using
 * other descriptors (the POSIX table is thread-safe; the simulated one runs
 * everything on one thread). */
#ifndef KQ_FS_H
#define KQ_FS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum kq_fs_open_flags {
    KQ_FS_READ = 0,         /* read only */
    KQ_FS_WRITE = 1u << 0,  /* read and write */
    KQ_FS_CREATE = 1u << 1, /* create if missing (with KQ_FS_WRITE) */
    KQ_FS_EXCL = 1u << 2,   /* with KQ_FS_CREATE: fail with -EEXIST if present */
    KQ_FS_TRUNC = 1u << 3,  /* with KQ_FS_WRITE: truncate to 0 on open */
};

/* One entry of a directory listing. */
typedef int (*kq_fs_dir_fn)(void *arg, const char *name);

typedef struct kq_fs {
    void *ctx;
    /* Returns a descriptor >= 0, or -errno (-ENOENT, -EEXIST, ...). */
    int (*open)(void *ctx, const char *path, unsigned flags);
    /* A second descriptor for the same open file (the flush job keeps one so
     * that a concurrent close or unlink does not pull the file away). */
    int (*dup)(void *ctx, int fd);
    int (*close)(void *ctx, int fd);
    ssize_t (*pread)(void *ctx, int fd, void *buf, size_t len, uint64_t pos);
    ssize_t (*pwrite)(void *ctx, int fd, const void *buf, size_t len, uint64_t pos);
    /* Makes the file's data durable (POSIX fdatasync). */
    int (*fdatasync)(void *ctx, int fd);
    int (*ftruncate)(void *ctx, int fd, uint64_t size);
    int (*size)(void *ctx, int fd, uint64_t *size_out);
    int (*rename)(void *ctx, const char *from, const char *to);
    int (*unlink)(void *ctx, const char *path);
    /* Creates one directory; -EEXIST if it exists. */
    int (*mkdir)(void *ctx, const char *path);
    /* Calls fn for every entry but "." and ".."; stops and returns fn's value
     * if it is not 0. -ENOENT if the directory is missing. */
    int (*list_dir)(void *ctx, const char *path, kq_fs_dir_fn fn, void *arg);
    /* Makes the directory's entries (creations, renames, unlinks) durable. */
    int (*fsync_dir)(void *ctx, const char *path);
} kq_fs;

/* The real file system (thread-safe; ctx unused). */
const kq_fs *kq_fs_posix(void);

#endif
