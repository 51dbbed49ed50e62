/* An LD_PRELOAD fault shim for the end-to-end tests: once armed, fails
 * fdatasync/fsync or pread on chosen files with EIO, as a dying disk does.
 *
 *   KQ_FAULT_TRIGGER  path of a file; faults are injected only while it
 *                     exists (checked on every call), so a test arms the
 *                     shim of one running process with `touch`. Unset: the
 *                     shim does nothing.
 *   KQ_FAULT_PATH     substring of the descriptor's path (readlink of
 *                     /proc/self/fd/N) that selects the files; default ".log"
 *                     (the segments).
 *   KQ_FAULT_OP       "fsync" (fdatasync, fsync: the default) or "read"
 *                     (pread, pread64 and their _FORTIFY_SOURCE variants);
 *                     "fsync,read" for both.
 *   KQ_FAULT_ERRNO    the errno injected into fdatasync/fsync (a number;
 *                     default EIO), e.g. 28 (ENOSPC) on snapshot files.
 *
 * The first injection of each kind is reported on stderr with the wall-clock
 * time: "kq_fault_shim: <time ms> injected EIO into <call>(<fd> -> <path>)".
 * Built as libkq_fault_shim.so by the CMake snippet at the end of
 * CMakeLists.txt; used by tests/e2e/test_fault_eio_leader.sh. */
#undef _FORTIFY_SOURCE /* this file defines pread itself */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

typedef int (*sync_fn)(int);
typedef ssize_t (*pread_fn)(int, void *, size_t, off_t);
typedef ssize_t (*pread_chk_fn)(int, void *, size_t, off_t, size_t);
typedef ssize_t (*pread64_fn)(int, void *, size_t, off64_t);
typedef ssize_t (*pread64_chk_fn)(int, void *, size_t, off64_t, size_t);

static sync_fn real_fdatasync, real_fsync;
static pread_fn real_pread;
static pread64_fn real_pread64;
static pread_chk_fn real_pread_chk;
static pread64_chk_fn real_pread64_chk;
static const char *trigger, *match = ".log";
static int faults_sync, faults_read, sync_errno = EIO;
static atomic_int reported_sync, reported_read;

/* dlsym's object pointer into a function pointer (ISO C has no cast). */
static void lookup(void *fnptr, size_t size, const char *name)
{
    void *sym = dlsym(RTLD_NEXT, name);
    if (size == sizeof sym)
        memcpy(fnptr, &sym, size);
}

__attribute__((constructor)) static void shim_init(void)
{
    lookup(&real_fdatasync, sizeof real_fdatasync, "fdatasync");
    lookup(&real_fsync, sizeof real_fsync, "fsync");
    lookup(&real_pread, sizeof real_pread, "pread");
    lookup(&real_pread64, sizeof real_pread64, "pread64");
    lookup(&real_pread_chk, sizeof real_pread_chk, "__pread_chk");
    lookup(&real_pread64_chk, sizeof real_pread64_chk, "__pread64_chk");
    trigger = getenv("KQ_FAULT_TRIGGER");
    if (trigger && !*trigger)
        trigger = NULL;
    const char *m = getenv("KQ_FAULT_PATH");
    if (m && *m)
        match = m;
    const char *op = getenv("KQ_FAULT_OP");
    if (!op || !*op)
        op = "fsync";
    faults_sync = strstr(op, "sync") != NULL;
    faults_read = strstr(op, "read") != NULL;
    const char *e = getenv("KQ_FAULT_ERRNO");
    if (e && atoi(e) > 0)
        sync_errno = atoi(e);
}

/* Whether a call on fd must fail now; fills path for the report. */
static int armed(int fd, int kind_enabled, char *path, size_t pathlen)
{
    if (!trigger || !kind_enabled)
        return 0;
    struct stat st;
    if (stat(trigger, &st) != 0)
        return 0;
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, pathlen - 1);
    if (n <= 0)
        return 0;
    path[n] = '\0';
    return strstr(path, match) != NULL;
}

static void report(atomic_int *once, const char *call, int fd, const char *path, int err)
{
    if (atomic_exchange(once, 1))
        return;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    char line[4352];
    int n = snprintf(line, sizeof line, "kq_fault_shim: %lld injected %s into %s(%d -> %s)\n",
                     (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000,
                     err == EIO ? "EIO" : strerror(err), call, fd, path);
    if (n > 0) {
        ssize_t w = write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
        (void)w;
    }
}

static int sync_common(sync_fn real, const char *call, int fd)
{
    char path[4096];
    int saved = errno;
    if (armed(fd, faults_sync, path, sizeof path)) {
        report(&reported_sync, call, fd, path, sync_errno);
        errno = sync_errno;
        return -1;
    }
    errno = saved;
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    return real(fd);
}

static int fail_read(int fd, const char *call)
{
    char path[4096];
    int saved = errno;
    if (armed(fd, faults_read, path, sizeof path)) {
        report(&reported_read, call, fd, path, EIO);
        errno = EIO;
        return 1;
    }
    errno = saved;
    return 0;
}

int fdatasync(int fd)
{
    return sync_common(real_fdatasync, "fdatasync", fd);
}

int fsync(int fd)
{
    return sync_common(real_fsync, "fsync", fd);
}

ssize_t pread(int fd, void *buf, size_t count, off_t offset)
{
    if (fail_read(fd, "pread"))
        return -1;
    if (!real_pread) {
        errno = ENOSYS;
        return -1;
    }
    return real_pread(fd, buf, count, offset);
}

ssize_t pread64(int fd, void *buf, size_t count, off64_t offset)
{
    if (fail_read(fd, "pread64"))
        return -1;
    if (!real_pread64) {
        errno = ENOSYS;
        return -1;
    }
    return real_pread64(fd, buf, count, offset);
}

ssize_t __pread_chk(int fd, void *buf, size_t count, off_t offset, size_t buflen);
ssize_t __pread64_chk(int fd, void *buf, size_t count, off64_t offset, size_t buflen);

ssize_t __pread_chk(int fd, void *buf, size_t count, off_t offset, size_t buflen)
{
    if (fail_read(fd, "__pread_chk"))
        return -1;
    if (!real_pread_chk) {
        errno = ENOSYS;
        return -1;
    }
    return real_pread_chk(fd, buf, count, offset, buflen);
}

ssize_t __pread64_chk(int fd, void *buf, size_t count, off64_t offset, size_t buflen)
{
    if (fail_read(fd, "__pread64_chk"))
        return -1;
    if (!real_pread64_chk) {
        errno = ENOSYS;
        return -1;
    }
    return real_pread64_chk(fd, buf, count, offset, buflen);
}
