/* The storage module does all its file operations through the kq_fs table.
 * The wrapper below proves it: the log is opened under a path that does not
 * exist, and the wrapper alone maps it to the real temp dir and hands out
 * shifted descriptor numbers, so any direct POSIX call that bypassed the
 * table would fail (ENOENT / EBADF). It also counts calls and injects
 * errors. Also: the storage mutant bits of kq/mutants.h. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>

#include "kq/mutants.h"
#include "kq/quorum_state_file.h"
#include "storage_test_util.h"

/* Far above any descriptor the test process really has open. */
#define FD_SHIFT 100000
#define VIRT_ROOT "/kq-fs-seam-nonexistent"

enum op {
    OP_OPEN, OP_DUP, OP_CLOSE, OP_PREAD, OP_PWRITE, OP_FDATASYNC, OP_FTRUNCATE, OP_SIZE,
    OP_RENAME, OP_UNLINK, OP_MKDIR, OP_LIST_DIR, OP_FSYNC_DIR, OP_COUNT
};

typedef struct wrap_fs {
    kq_fs table;
    const kq_fs *inner;
    char virt[128]; /* the prefix storage sees */
    char real[128]; /* what it stands for */
    int calls[OP_COUNT];
    int open_fds;      /* opens + dups - closes */
    int foreign_paths; /* paths outside virt: storage built a path of its own */
    int fail_fdatasync; /* returned by fdatasync when != 0 */
    int fail_fsync_dir;
} wrap_fs;

static int map_path(wrap_fs *w, const char *path, char *out, size_t outlen)
{
    size_t n = strlen(w->virt);
    if (strncmp(path, w->virt, n) != 0 || (path[n] != '\0' && path[n] != '/')) {
        w->foreign_paths++;
        return -EACCES;
    }
    snprintf(out, outlen, "%s%s", w->real, path + n);
    return 0;
}

static int map_fd(int fd)
{
    return fd >= FD_SHIFT ? fd - FD_SHIFT : -1; /* -1: inner call fails EBADF */
}

static int w_open(void *ctx, const char *path, unsigned flags)
{
    wrap_fs *w = ctx;
    char p[512];
    w->calls[OP_OPEN]++;
    int rc = map_path(w, path, p, sizeof p);
    if (rc < 0)
        return rc;
    int fd = w->inner->open(w->inner->ctx, p, flags);
    if (fd < 0)
        return fd;
    w->open_fds++;
    return fd + FD_SHIFT;
}

static int w_dup(void *ctx, int fd)
{
    wrap_fs *w = ctx;
    w->calls[OP_DUP]++;
    int nfd = w->inner->dup(w->inner->ctx, map_fd(fd));
    if (nfd < 0)
        return nfd;
    w->open_fds++;
    return nfd + FD_SHIFT;
}

static int w_close(void *ctx, int fd)
{
    wrap_fs *w = ctx;
    w->calls[OP_CLOSE]++;
    int rc = w->inner->close(w->inner->ctx, map_fd(fd));
    if (rc == 0)
        w->open_fds--;
    return rc;
}

static ssize_t w_pread(void *ctx, int fd, void *buf, size_t len, uint64_t pos)
{
    wrap_fs *w = ctx;
    w->calls[OP_PREAD]++;
    return w->inner->pread(w->inner->ctx, map_fd(fd), buf, len, pos);
}

static ssize_t w_pwrite(void *ctx, int fd, const void *buf, size_t len, uint64_t pos)
{
    wrap_fs *w = ctx;
    w->calls[OP_PWRITE]++;
    return w->inner->pwrite(w->inner->ctx, map_fd(fd), buf, len, pos);
}

static int w_fdatasync(void *ctx, int fd)
{
    wrap_fs *w = ctx;
    w->calls[OP_FDATASYNC]++;
    if (w->fail_fdatasync)
        return w->fail_fdatasync;
    return w->inner->fdatasync(w->inner->ctx, map_fd(fd));
}

static int w_ftruncate(void *ctx, int fd, uint64_t size)
{
    wrap_fs *w = ctx;
    w->calls[OP_FTRUNCATE]++;
    return w->inner->ftruncate(w->inner->ctx, map_fd(fd), size);
}

static int w_size(void *ctx, int fd, uint64_t *size_out)
{
    wrap_fs *w = ctx;
    w->calls[OP_SIZE]++;
    return w->inner->size(w->inner->ctx, map_fd(fd), size_out);
}

static int w_rename(void *ctx, const char *from, const char *to)
{
    wrap_fs *w = ctx;
    char a[512], b[512];
    w->calls[OP_RENAME]++;
    if (map_path(w, from, a, sizeof a) < 0 || map_path(w, to, b, sizeof b) < 0)
        return -EACCES;
    return w->inner->rename(w->inner->ctx, a, b);
}

static int w_unlink(void *ctx, const char *path)
{
    wrap_fs *w = ctx;
    char p[512];
    w->calls[OP_UNLINK]++;
    int rc = map_path(w, path, p, sizeof p);
    return rc < 0 ? rc : w->inner->unlink(w->inner->ctx, p);
}

static int w_mkdir(void *ctx, const char *path)
{
    wrap_fs *w = ctx;
    char p[512];
    w->calls[OP_MKDIR]++;
    /* mkdir -p walks the virtual root's own components first */
    if (strncmp(w->virt, path, strlen(path)) == 0)
        return -EEXIST;
    int rc = map_path(w, path, p, sizeof p);
    return rc < 0 ? rc : w->inner->mkdir(w->inner->ctx, p);
}

static int w_list_dir(void *ctx, const char *path, kq_fs_dir_fn fn, void *arg)
{
    wrap_fs *w = ctx;
    char p[512];
    w->calls[OP_LIST_DIR]++;
    int rc = map_path(w, path, p, sizeof p);
    return rc < 0 ? rc : w->inner->list_dir(w->inner->ctx, p, fn, arg);
}

static int w_fsync_dir(void *ctx, const char *path)
{
    wrap_fs *w = ctx;
    char p[512];
    w->calls[OP_FSYNC_DIR]++;
    if (w->fail_fsync_dir)
        return w->fail_fsync_dir;
    int rc = map_path(w, path, p, sizeof p);
    return rc < 0 ? rc : w->inner->fsync_dir(w->inner->ctx, p);
}

static void wrap_init(wrap_fs *w, const char *real_dir)
{
    memset(w, 0, sizeof *w);
    w->inner = kq_fs_posix();
    snprintf(w->real, sizeof w->real, "%s", real_dir);
    snprintf(w->virt, sizeof w->virt, VIRT_ROOT "%s", real_dir);
    w->table = (kq_fs){
        .ctx = w,
        .open = w_open,
        .dup = w_dup,
        .close = w_close,
        .pread = w_pread,
        .pwrite = w_pwrite,
        .fdatasync = w_fdatasync,
        .ftruncate = w_ftruncate,
        .size = w_size,
        .rename = w_rename,
        .unlink = w_unlink,
        .mkdir = w_mkdir,
        .list_dir = w_list_dir,
        .fsync_dir = w_fsync_dir,
    };
}

/* File scope: tu_teardown closes a test's log after the test returns, and
 * the wrapper must still be alive then. */
static wrap_fs g_wrap;

static void wrap_reset_counts(wrap_fs *w)
{
    memset(w->calls, 0, sizeof w->calls);
}

static kq_log *open_wrapped(tu_fixture *f, wrap_fs *w, uint64_t segment_bytes, unsigned mutants)
{
    kq_log_options o = {
        .fs = &w->table, .log_dir = w->virt, .segment_bytes = segment_bytes, .mutants = mutants};
    return kq_log_open_with(&o, f->err, sizeof f->err);
}

/* Leader-appends count one-record batches of value_size bytes in epoch 1. */
static void append_n(tu_fixture *f, int count, size_t value_size)
{
    for (int i = 0; i < count; i++) {
        kq_writer w;
        kq_writer_init(&w, 0);
        tu_batch(&w, 0, -1, 1, value_size, i);
        assert_int_equal(kq_log_append(f->log, w.data, w.len, kq_log_end_offset(f->log), 1,
                                       f->err, sizeof f->err),
                         0);
        kq_writer_free(&w);
    }
}

static void test_everything_through_the_table(void **state)
{
    tu_fixture *f = *state;
    wrap_fs *w = &g_wrap;
    wrap_init(w, f->dir);
    f->log = open_wrapped(f, w, 1000, 0);
    assert_non_null(f->log);
    assert_true(w->calls[OP_MKDIR] > 0 && w->calls[OP_LIST_DIR] > 0 && w->calls[OP_OPEN] > 0);
    wrap_reset_counts(w);
    append_n(f, 20, 200); /* ~270 bytes a batch: several rolls */
    assert_true(kq_log_segment_count(f->log) > 1);
    assert_true(w->calls[OP_PWRITE] >= 20);
    assert_true(w->calls[OP_RENAME] > 0); /* the checkpoint, for epoch 1 */
    tu_flush_all(f->log);
    assert_int_equal(kq_log_flushed_offset(f->log), 20);
    assert_true(w->calls[OP_DUP] > 0);
    assert_true(w->calls[OP_FDATASYNC] > 0);
    assert_true(w->calls[OP_FSYNC_DIR] > 0); /* the rolls' new names */
    kq_writer out;
    kq_writer_init(&out, 0);
    assert_true(kq_log_read(f->log, 3, INT64_MAX, 1, &out) > 0);
    kq_writer_free(&out);
    assert_true(w->calls[OP_PREAD] > 0);

    wrap_reset_counts(w);
    assert_int_equal(kq_log_truncate(f->log, 5, f->err, sizeof f->err), 0);
    assert_true(w->calls[OP_UNLINK] > 0 && w->calls[OP_FTRUNCATE] > 0);
    assert_true(w->calls[OP_FDATASYNC] > 0 && w->calls[OP_FSYNC_DIR] > 0);
    kq_log_close(f->log);
    f->log = NULL;
    assert_int_equal(w->open_fds, 0);

    wrap_reset_counts(w);
    f->log = open_wrapped(f, w, 1000, 0);
    assert_non_null(f->log);
    assert_string_equal(f->err, "");
    assert_int_equal(kq_log_end_offset(f->log), 5);
    assert_true(w->calls[OP_SIZE] > 0 && w->calls[OP_PREAD] > 0);
    kq_log_close(f->log);
    f->log = NULL;
    assert_int_equal(w->open_fds, 0);
    assert_int_equal(w->foreign_paths, 0);
    /* and the files really are where the wrapper put them */
    f->log = kq_log_open(f->dir, 1000, f->err, sizeof f->err);
    assert_non_null(f->log);
    assert_int_equal(kq_log_end_offset(f->log), 5);
}

/* A flush with no roll since the last one syncs the segment, not the
 * directory. */
static void test_flush_without_roll_skips_dir(void **state)
{
    tu_fixture *f = *state;
    wrap_fs *w = &g_wrap;
    wrap_init(w, f->dir);
    f->log = open_wrapped(f, w, 1 << 20, 0);
    assert_non_null(f->log);
    append_n(f, 3, 10);
    wrap_reset_counts(w);
    tu_flush_all(f->log);
    assert_int_equal(w->calls[OP_FDATASYNC], 1);
    assert_int_equal(w->calls[OP_FSYNC_DIR], 0);
}

static void test_fdatasync_error_fails_the_log(void **state)
{
    tu_fixture *f = *state;
    wrap_fs *w = &g_wrap;
    wrap_init(w, f->dir);
    f->log = open_wrapped(f, w, 1 << 20, 0);
    assert_non_null(f->log);
    append_n(f, 2, 10);
    w->fail_fdatasync = -EIO;
    kq_log_flush_job *job = NULL;
    assert_int_equal(kq_log_flush_begin(f->log, &job), 0);
    assert_non_null(job);
    assert_int_equal(kq_log_flush_run(job), -EIO);
    assert_int_equal(kq_log_flush_end(f->log, job), 0); /* nothing published */
    w->fail_fdatasync = 0;
    kq_writer b;
    kq_writer_init(&b, 0);
    tu_batch(&b, 0, -1, 1, 10, 9);
    assert_int_equal(kq_log_append(f->log, b.data, b.len, 2, 1, f->err, sizeof f->err), -EIO);
    kq_writer_free(&b);
    assert_non_null(strstr(f->err, "refusing appends"));
    assert_int_equal(kq_log_flush_begin(f->log, &job), -EIO);
    assert_int_equal(kq_log_flushed_offset(f->log), 0);
}

static void test_fsync_dir_error_after_roll(void **state)
{
    tu_fixture *f = *state;
    wrap_fs *w = &g_wrap;
    wrap_init(w, f->dir);
    f->log = open_wrapped(f, w, 300, 0);
    assert_non_null(f->log);
    append_n(f, 2, 200); /* the second batch rolls */
    assert_int_equal(kq_log_segment_count(f->log), 2);
    w->fail_fsync_dir = -ENOSPC;
    kq_log_flush_job *job = NULL;
    assert_int_equal(kq_log_flush_begin(f->log, &job), 0);
    assert_int_equal(kq_log_flush_run(job), -ENOSPC);
    assert_int_equal(kq_log_flush_end(f->log, job), 0);
    assert_int_equal(kq_log_flush_begin(f->log, &job), -EIO);
}

static void test_quorum_state_through_the_table(void **state)
{
    tu_fixture *f = *state;
    wrap_fs *w = &g_wrap;
    wrap_init(w, f->dir);
    raft_quorum_state qs = {.epoch = 7, .voted_id = 2, .leader_id = 3};
    int32_t voters[3] = {1, 2, 3};
    assert_int_equal(
        kq_quorum_state_store_fs(&w->table, w->virt, &qs, voters, 3, f->err, sizeof f->err), 0);
    assert_true(w->calls[OP_MKDIR] > 0 && w->calls[OP_PWRITE] > 0);
    assert_true(w->calls[OP_FDATASYNC] > 0 && w->calls[OP_RENAME] > 0 &&
                w->calls[OP_FSYNC_DIR] > 0);
    raft_quorum_state got;
    int32_t vs[8];
    int n = 8;
    assert_int_equal(
        kq_quorum_state_load_fs(&w->table, w->virt, &got, vs, &n, f->err, sizeof f->err), 0);
    assert_int_equal(got.epoch, 7);
    assert_int_equal(got.voted_id, 2);
    assert_int_equal(got.leader_id, 3);
    assert_int_equal(n, 3);
    assert_int_equal(w->open_fds, 0);
    assert_int_equal(w->foreign_paths, 0);
    /* the plain wrapper reads the same file */
    n = 8;
    assert_int_equal(kq_quorum_state_load(f->dir, &got, vs, &n, f->err, sizeof f->err), 0);
    assert_int_equal(got.epoch, 7);
}

static void test_partition_dir_is_a_file(void **state)
{
    tu_fixture *f = *state;
    char p[512];
    snprintf(p, sizeof p, "%s/" KQ_LOG_PARTITION_DIR, f->dir);
    int fd = open(p, O_CREAT | O_WRONLY, 0644);
    assert_true(fd >= 0);
    close(fd);
    assert_null(kq_log_open(f->dir, 1 << 20, f->err, sizeof f->err));
    assert_non_null(strstr(f->err, "cannot create"));
    assert_non_null(strstr(f->err, strerror(ENOTDIR)));
}

/* Flush job taken at offset 10, truncation to 5 while it runs: what does
 * its end publish? */
static int64_t flushed_after_raced_truncate(tu_fixture *f, unsigned mutants)
{
    wrap_fs *w = &g_wrap;
    wrap_init(w, f->dir);
    f->log = open_wrapped(f, w, 1 << 20, mutants);
    assert_non_null(f->log);
    append_n(f, 10, 10);
    kq_log_flush_job *job = NULL;
    assert_int_equal(kq_log_flush_begin(f->log, &job), 0);
    assert_int_equal(kq_log_flush_job_offset(job), 10);
    assert_int_equal(kq_log_truncate(f->log, 5, f->err, sizeof f->err), 0);
    assert_int_equal(kq_log_flush_run(job), 0);
    int64_t flushed = kq_log_flush_end(f->log, job);
    assert_int_equal(kq_log_end_offset(f->log), 5);
    kq_log_close(f->log);
    f->log = NULL;
    tu_rm_rf(f->dir);
    assert_int_equal(mkdir(f->dir, 0700), 0);
    return flushed;
}

static void test_mutant_ignore_trunc_floor(void **state)
{
    tu_fixture *f = *state;
    assert_int_equal(flushed_after_raced_truncate(f, 0), 5);
    /* the bug: a flushed offset above the end of the log */
    assert_int_equal(flushed_after_raced_truncate(f, KQ_MUTANT_STORAGE_IGNORE_TRUNC_FLOOR), 10);
}

/* Opens a log with a torn tail through the wrapper; returns the number of
 * fdatasync + fsync_dir calls recovery made. */
static int syncs_recovering_torn_tail(tu_fixture *f, unsigned mutants)
{
    f->log = kq_log_open(f->dir, 1 << 20, f->err, sizeof f->err);
    assert_non_null(f->log);
    append_n(f, 3, 20);
    tu_flush_all(f->log);
    kq_log_close(f->log);
    f->log = NULL;
    const char *seg = tu_seg_path(f->dir, 0, ".log");
    long whole = tu_file_size(seg);
    kq_writer b;
    kq_writer_init(&b, 0);
    tu_batch(&b, 3, 1, 1, 20, 7);
    int fd = open(seg, O_WRONLY | O_APPEND);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, b.data, b.len / 2), (ssize_t)(b.len / 2));
    close(fd);
    kq_writer_free(&b);

    wrap_fs *w = &g_wrap;
    wrap_init(w, f->dir);
    f->log = open_wrapped(f, w, 1 << 20, mutants);
    assert_non_null(f->log);
    assert_non_null(strstr(f->err, "truncated unacknowledged tail"));
    assert_int_equal(kq_log_end_offset(f->log), 3);
    assert_int_equal(tu_file_size(seg), whole); /* cut either way */
    int syncs = w->calls[OP_FDATASYNC] + w->calls[OP_FSYNC_DIR];

    kq_log_close(f->log);
    f->log = NULL;
    tu_rm_rf(f->dir);
    assert_int_equal(mkdir(f->dir, 0700), 0);
    return syncs;
}

static void test_mutant_skip_open_fsync(void **state)
{
    tu_fixture *f = *state;
    /* the cut, the segment, the directory and the recovery point (the
     * checkpoint is unchanged) */
    assert_int_equal(syncs_recovering_torn_tail(f, 0), 4);
    assert_int_equal(syncs_recovering_torn_tail(f, KQ_MUTANT_SKIP_OPEN_FSYNC), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_everything_through_the_table, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_flush_without_roll_skips_dir, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_fdatasync_error_fails_the_log, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_fsync_dir_error_after_roll, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_quorum_state_through_the_table, tu_setup,
                                        tu_teardown),
        cmocka_unit_test_setup_teardown(test_partition_dir_is_a_file, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_mutant_ignore_trunc_floor, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_mutant_skip_open_fsync, tu_setup, tu_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
