/* The log start offset (kq/log.h): kq_log_advance_start deletes whole
 * segments only and survives reopen, reads below the start are refused,
 * kq_log_reset empties the log at any offset (above, at, below the end,
 * below the start), open honours, repairs or refuses what
 * log-start-offset-checkpoint says. On the real file system; the crash
 * orders are tested on the simulator's (tests/sim/test/test_log_crash.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>

#include "storage_test_util.h"

/* 2 batches of 10 records per segment: bases 0, 20, 40, ... */
#define SEG_BYTES 2500

static void open_log(tu_fixture *f)
{
    kq_log_close(f->log);
    f->log = kq_log_open(f->dir, SEG_BYTES, f->err, sizeof f->err);
    if (!f->log)
        print_error("open: %s\n", f->err);
    assert_non_null(f->log);
}

static void append_batches(tu_fixture *f, int count, int32_t epoch)
{
    for (int i = 0; i < count; i++) {
        kq_writer w;
        kq_writer_init(&w, 0);
        tu_batch(&w, 0, -1, 10, 100, i);
        int64_t end = kq_log_end_offset(f->log);
        assert_int_equal(kq_log_append(f->log, w.data, w.len, end, epoch, f->err, sizeof f->err),
                         0);
        kq_writer_free(&w);
    }
}

static bool exists(tu_fixture *f, int64_t base)
{
    return tu_file_size(tu_seg_path(f->dir, base, ".log")) >= 0;
}

static int count_cb(void *ctx, const uint8_t *batch, size_t len)
{
    (void)batch;
    (void)len;
    ++*(int *)ctx;
    return 0;
}

static void write_checkpoint(tu_fixture *f, const char *text)
{
    int fd = open(tu_path(f->dir, "log-start-offset-checkpoint"), O_WRONLY | O_CREAT | O_TRUNC,
                  0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

/* 100 offsets in 5 segments, flushed. */
static void fill(tu_fixture *f)
{
    open_log(f);
    append_batches(f, 10, 2);
    tu_flush_all(f->log);
    assert_int_equal(kq_log_segment_count(f->log), 5);
    for (int64_t b = 0; b < 100; b += 20)
        assert_true(exists(f, b));
}

static void test_advance_rules(void **state)
{
    tu_fixture *f = *state;
    fill(f);
    append_batches(f, 1, 2); /* 100..109 unflushed */
    assert_int_equal(kq_log_advance_start(f->log, 0, f->err, sizeof f->err), -EINVAL);
    assert_int_equal(kq_log_advance_start(f->log, 45, f->err, sizeof f->err), -EINVAL);
    assert_int_equal(kq_log_advance_start(f->log, 110, f->err, sizeof f->err), -EINVAL);
    assert_int_equal(kq_log_start_offset(f->log), 0);
    assert_int_equal(tu_file_size(tu_path(f->dir, "log-start-offset-checkpoint")), -1);
    uint64_t size = kq_log_size_bytes(f->log);
    assert_true(size > 10 * 1000);

    assert_int_equal(kq_log_advance_start(f->log, 50, f->err, sizeof f->err), 0);
    assert_int_equal(kq_log_start_offset(f->log), 50);
    assert_false(exists(f, 0) || exists(f, 20));
    assert_true(exists(f, 40) && exists(f, 60) && exists(f, 80) && exists(f, 100));
    assert_int_equal(tu_file_size(tu_seg_path(f->dir, 0, ".index")), -1);
    assert_true(kq_log_size_bytes(f->log) < size);
    char text[128];
    tu_read_file(tu_path(f->dir, "log-start-offset-checkpoint"), text, sizeof text);
    assert_string_equal(text, "0\n1\n__cluster_metadata 0 50\n");

    kq_writer out;
    kq_writer_init(&out, 0);
    assert_int_equal(kq_log_read(f->log, 49, INT64_MAX, 1 << 20, &out), -ERANGE);
    assert_int_equal(kq_log_read(f->log, 10, INT64_MAX, 1 << 20, &out), -ERANGE);
    assert_true(kq_log_read(f->log, 50, INT64_MAX, 1 << 20, &out) > 0);
    kq_writer_free(&out);
    assert_int_equal(kq_log_batch_start(f->log, 45), -1);
    assert_int_equal(kq_log_batch_start(f->log, 55), 50);
    int n = 0;
    assert_int_equal(kq_log_scan(f->log, 0, count_cb, &n), 0);
    assert_int_equal(n, 6); /* 50..109 */
    assert_true(kq_log_tail_start(f->log, UINT64_MAX) == 50);
    assert_int_equal(kq_log_truncate(f->log, 40, f->err, sizeof f->err), -EINVAL);
}

static void test_advance_reopen(void **state)
{
    tu_fixture *f = *state;
    fill(f);
    assert_int_equal(kq_log_advance_start(f->log, 60, f->err, sizeof f->err), 0);
    assert_false(exists(f, 40));
    open_log(f);
    assert_int_equal(kq_log_start_offset(f->log), 60);
    assert_int_equal(kq_log_end_offset(f->log), 100);
    assert_int_equal(kq_log_segment_count(f->log), 2);
    kq_writer out;
    kq_writer_init(&out, 0);
    assert_int_equal(kq_log_read(f->log, 59, INT64_MAX, 1 << 20, &out), -ERANGE);
    assert_true(kq_log_read(f->log, 60, INT64_MAX, 1 << 20, &out) > 0);
    kq_writer_free(&out);
    /* up to the end: every segment but the active one goes */
    assert_int_equal(kq_log_advance_start(f->log, 100, f->err, sizeof f->err), 0);
    assert_int_equal(kq_log_segment_count(f->log), 1);
    assert_true(exists(f, 80) && !exists(f, 60));
    open_log(f);
    assert_int_equal(kq_log_start_offset(f->log), 100);
    assert_int_equal(kq_log_end_offset(f->log), 100);
    append_batches(f, 3, 3);
    tu_flush_all(f->log);
    open_log(f);
    assert_int_equal(kq_log_start_offset(f->log), 100);
    assert_int_equal(kq_log_end_offset(f->log), 130);
}

/* The log is empty at offset, durable, and takes appends there. */
static void check_reset(tu_fixture *f, int64_t offset)
{
    assert_int_equal(kq_log_reset(f->log, offset, f->err, sizeof f->err), 0);
    for (int k = 0; k < 2; k++) {
        assert_int_equal(kq_log_start_offset(f->log), offset);
        assert_int_equal(kq_log_end_offset(f->log), offset);
        assert_int_equal(kq_log_flushed_offset(f->log), offset);
        assert_int_equal(kq_log_recovery_point(f->log), offset);
        assert_int_equal(kq_log_epoch_count(f->log), 0);
        assert_int_equal(kq_log_segment_count(f->log), 1);
        assert_true(exists(f, offset));
        open_log(f);
    }
    char text[256];
    tu_read_file(tu_path(f->dir, "leader-epoch-checkpoint"), text, sizeof text);
    assert_string_equal(text, "0\n0\n");
    append_batches(f, 3, 7);
    tu_flush_all(f->log);
    open_log(f);
    assert_int_equal(kq_log_start_offset(f->log), offset);
    assert_int_equal(kq_log_end_offset(f->log), offset + 30);
    assert_int_equal(kq_log_epoch_count(f->log), 1);
    int n = 0;
    assert_int_equal(kq_log_scan(f->log, 0, count_cb, &n), 0);
    assert_int_equal(n, 3);
}

static void test_reset_above(void **state)
{
    tu_fixture *f = *state;
    fill(f);
    check_reset(f, 1000);
    for (int64_t b = 0; b < 100; b += 20)
        assert_false(exists(f, b));
}

static void test_reset_equal(void **state)
{
    tu_fixture *f = *state;
    fill(f);
    check_reset(f, 100);
}

static void test_reset_below(void **state)
{
    tu_fixture *f = *state;
    fill(f);
    append_batches(f, 1, 2); /* unflushed too */
    check_reset(f, 55);      /* not even a batch boundary of the old log */
}

static void test_reset_below_start(void **state)
{
    tu_fixture *f = *state;
    fill(f);
    assert_int_equal(kq_log_advance_start(f->log, 60, f->err, sizeof f->err), 0);
    check_reset(f, 10);
    assert_false(exists(f, 40) || exists(f, 60));
}

static void test_reset_empty_log(void **state)
{
    tu_fixture *f = *state;
    open_log(f);
    check_reset(f, 0);
    check_reset(f, 5);
}

static void test_open_deletes_below_start(void **state)
{
    tu_fixture *f = *state;
    fill(f);
    kq_log_close(f->log);
    f->log = NULL;
    /* a crash after the checkpoint, before any segment went */
    write_checkpoint(f, "0\n1\n__cluster_metadata 0 60\n");
    open_log(f);
    assert_non_null(strstr(f->err, "below the log start 60"));
    assert_int_equal(kq_log_start_offset(f->log), 60);
    assert_int_equal(kq_log_end_offset(f->log), 100);
    assert_false(exists(f, 0) || exists(f, 20) || exists(f, 40));
    open_log(f);
    assert_string_equal(f->err, "");
    assert_int_equal(kq_log_start_offset(f->log), 60);
}

/* A snapshot file ending at end_offset (storage reads only its name). */
static void write_snapshot(tu_fixture *f, int64_t end_offset)
{
    char name[64];
    snprintf(name, sizeof name, "%020lld-%010d.checkpoint", (long long)end_offset, 2);
    int fd = open(tu_path(f->dir, name), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    close(fd);
}

static kq_log *open_strict(tu_fixture *f)
{
    kq_log_options o = {.log_dir = f->dir, .segment_bytes = SEG_BYTES, .snapshot_at_start = true};
    return kq_log_open_with(&o, f->err, sizeof f->err);
}

/* Issue 19: a checkpoint above a log holding batches deletes nothing and
 * refuses, unless the snapshot ending there vouches for it (an install
 * the last run did not finish). */
static void test_open_start_above_end(void **state)
{
    tu_fixture *f = *state;
    fill(f);
    kq_log_close(f->log);
    f->log = NULL;
    int64_t sizes[5];
    for (int i = 0; i < 5; i++)
        sizes[i] = tu_file_size(tu_seg_path(f->dir, 20 * i, ".log"));
    write_checkpoint(f, "0\n1\n__cluster_metadata 0 500\n");
    assert_null(kq_log_open(f->dir, SEG_BYTES, f->err, sizeof f->err));
    assert_non_null(strstr(f->err, "log-start-offset-checkpoint"));
    assert_non_null(strstr(f->err, "above the log end"));
    assert_non_null(strstr(f->err, "nothing deleted"));
    for (int i = 0; i < 5; i++)
        assert_int_equal(tu_file_size(tu_seg_path(f->dir, 20 * i, ".log")), sizes[i]);
    assert_int_equal(tu_file_size(tu_path(f->dir, "log-start-offset-checkpoint")),
                     (int64_t)strlen("0\n1\n__cluster_metadata 0 500\n"));
    write_snapshot(f, 500);
    open_log(f);
    assert_int_equal(kq_log_start_offset(f->log), 500);
    assert_int_equal(kq_log_end_offset(f->log), 500);
    assert_int_equal(kq_log_epoch_count(f->log), 0);
    assert_true(exists(f, 500) && !exists(f, 80));
    open_log(f);
    assert_int_equal(kq_log_end_offset(f->log), 500);
}

/* With snapshot_at_start (the executor's): a checkpoint L > 0 needs the
 * snapshot ending at L, else open refuses before anything is deleted. */
static void test_open_start_needs_snapshot(void **state)
{
    tu_fixture *f = *state;
    fill(f);
    kq_log_close(f->log);
    f->log = NULL;
    int64_t sizes[5];
    for (int i = 0; i < 5; i++)
        sizes[i] = tu_file_size(tu_seg_path(f->dir, 20 * i, ".log"));
    write_snapshot(f, 40); /* an older snapshot does not vouch for 60 */
    const char *bad[] = {"0\n1\n__cluster_metadata 0 60\n", "0\n1\n__cluster_metadata 0 960\n"};
    for (int k = 0; k < 2; k++) {
        write_checkpoint(f, bad[k]);
        assert_null(open_strict(f));
        assert_non_null(strstr(f->err, "log-start-offset-checkpoint"));
        assert_non_null(strstr(f->err, "no snapshot ends there"));
        for (int i = 0; i < 5; i++)
            assert_int_equal(tu_file_size(tu_seg_path(f->dir, 20 * i, ".log")), sizes[i]);
    }
    write_checkpoint(f, "0\n1\n__cluster_metadata 0 40\n");
    f->log = open_strict(f);
    assert_non_null(f->log);
    assert_int_equal(kq_log_start_offset(f->log), 40);
    assert_int_equal(kq_log_end_offset(f->log), 100);
    int n = 0;
    assert_int_equal(kq_log_scan(f->log, 0, count_cb, &n), 0);
    assert_int_equal(n, 6);
}

static void refuses(tu_fixture *f, const char *text, const char *why)
{
    write_checkpoint(f, text);
    kq_log *log = kq_log_open(f->dir, SEG_BYTES, f->err, sizeof f->err);
    assert_null(log);
    assert_non_null(strstr(f->err, "log-start-offset-checkpoint"));
    assert_non_null(strstr(f->err, why));
}

static void test_open_refuses_bad_checkpoint(void **state)
{
    tu_fixture *f = *state;
    fill(f);
    kq_log_close(f->log);
    f->log = NULL;
    refuses(f, "garbage", "corrupt");
    refuses(f, "0\n1\n__cluster_metadata 0 050\n", "corrupt");
    refuses(f, "0\n1\n__cluster_metadata 0 50", "corrupt");
    refuses(f, "0\n1\n__cluster_metadata 0 99999999999999999999\n", "corrupt");
    refuses(f, "0\n1\n__cluster_metadata 0 45\n", "not a batch boundary");
    for (int64_t b = 0; b < 100; b += 20)
        assert_true(exists(f, b)); /* a refusal deletes nothing */
    write_checkpoint(f, "0\n1\n__cluster_metadata 0 40\n");
    open_log(f);
    assert_int_equal(kq_log_start_offset(f->log), 40);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_advance_rules, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_advance_reopen, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_reset_above, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_reset_equal, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_reset_below, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_reset_below_start, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_reset_empty_log, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_open_deletes_below_start, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_open_start_above_end, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_open_start_needs_snapshot, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_open_refuses_bad_checkpoint, tu_setup, tu_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
