/* A log-start-offset-checkpoint that contradicts the log (issue 19): with
 * the repair option (a quorum) open never believes it and deletes nothing:
 * the log start becomes the end of the oldest snapshot within the log (or
 * 0 from a first segment at 0), the damaged file is kept as
 * log-start-offset-checkpoint.damaged and the checkpoint rewritten; when
 * nothing vouches for a start the log is emptied and kq_log_repair names
 * its former end (refetched from the leader). Without the option (a single
 * voter) open refuses and touches nothing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>

#include "storage_test_util.h"

/* 2 batches of 10 records per segment: bases 0, 20, 40, ... */
#define SEG_BYTES 2500
#define CKPT "log-start-offset-checkpoint"
#define FILE_BYTES_MAX 8192

static kq_log *open_opts(tu_fixture *f, bool repair, bool at_start)
{
    kq_log_options o = {.log_dir = f->dir, .segment_bytes = SEG_BYTES, .repair = repair,
                        .snapshot_at_start = at_start};
    return kq_log_open_with(&o, f->err, sizeof f->err);
}

static void write_file(tu_fixture *f, const char *name, const char *text)
{
    int fd = open(tu_path(f->dir, name), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

static void write_snapshot(tu_fixture *f, int64_t end_offset)
{
    char name[64];
    snprintf(name, sizeof name, "%020" PRId64 "-%010d.checkpoint", end_offset, 2);
    write_file(f, name, "");
}

static void set_start(tu_fixture *f, int64_t offset)
{
    char text[128];
    snprintf(text, sizeof text, "0\n1\n__cluster_metadata 0 %" PRId64 "\n", offset);
    write_file(f, CKPT, text);
}

/* Every segment file's bytes and the checkpoint's, to compare. */
typedef struct files {
    char seg[5][FILE_BYTES_MAX];
    long len[5];
    char ckpt[256];
} files;

static void take(tu_fixture *f, files *s)
{
    for (int i = 0; i < 5; i++)
        s->len[i] = tu_read_file(tu_seg_path(f->dir, 20 * i, ".log"), s->seg[i], FILE_BYTES_MAX);
    if (tu_read_file(tu_path(f->dir, CKPT), s->ckpt, sizeof s->ckpt) < 0)
        s->ckpt[0] = '\0';
}

static void same_segments(const files *a, const files *b)
{
    for (int i = 0; i < 5; i++) {
        assert_int_equal(a->len[i], b->len[i]);
        if (a->len[i] > 0)
            assert_memory_equal(a->seg[i], b->seg[i], (size_t)a->len[i]);
    }
}

/* 100 offsets in 5 segments at epoch 2, flushed; with start > 0 the log
 * start advanced there (the segments wholly below it deleted) and a
 * snapshot ends there. Closed. */
static void fill(tu_fixture *f, int64_t start)
{
    f->log = kq_log_open(f->dir, SEG_BYTES, f->err, sizeof f->err);
    assert_non_null(f->log);
    for (int i = 0; i < 10; i++) {
        kq_writer w;
        kq_writer_init(&w, 0);
        tu_batch(&w, 0, -1, 10, 100, i);
        assert_int_equal(kq_log_append(f->log, w.data, w.len, 10 * i, 2, f->err, sizeof f->err),
                         0);
        kq_writer_free(&w);
    }
    tu_flush_all(f->log);
    if (start > 0) {
        write_snapshot(f, start);
        assert_int_equal(kq_log_advance_start(f->log, start, f->err, sizeof f->err), 0);
    }
    kq_log_close(f->log);
    f->log = NULL;
}

static int count_cb(void *ctx, const uint8_t *batch, size_t len)
{
    (void)batch;
    (void)len;
    ++*(int *)ctx;
    return 0;
}

/* The single voter refuses naming the file and why, touching nothing. */
static void refused(tu_fixture *f, const char *why)
{
    files before, after;
    unlink(tu_path(f->dir, CKPT ".damaged"));
    take(f, &before);
    assert_null(open_opts(f, false, true));
    assert_non_null(strstr(f->err, CKPT));
    assert_non_null(strstr(f->err, why));
    take(f, &after);
    same_segments(&before, &after);
    assert_string_equal(before.ckpt, after.ckpt);
    assert_int_equal(tu_file_size(tu_path(f->dir, CKPT ".damaged")), -1);
}

/* The quorum member opens at start, every segment byte as it was, the
 * damaged file kept and the checkpoint rewritten; a reopen believes it. */
static void repaired(tu_fixture *f, int64_t start, bool at_start, const char *why)
{
    files before, after;
    take(f, &before);
    f->log = open_opts(f, true, at_start);
    if (!f->log)
        print_error("open: %s\n", f->err);
    assert_non_null(f->log);
    print_message("repair note: %s\n", f->err);
    assert_non_null(strstr(f->err, CKPT));
    assert_non_null(strstr(f->err, why));
    assert_non_null(strstr(f->err, "nothing deleted"));
    assert_non_null(strstr(f->err, CKPT ".damaged"));
    assert_int_equal(kq_log_start_offset(f->log), start);
    assert_int_equal(kq_log_end_offset(f->log), 100);
    int64_t end;
    int32_t epoch;
    assert_false(kq_log_repair(f->log, &end, &epoch));
    int n = 0;
    assert_int_equal(kq_log_scan(f->log, 0, count_cb, &n), 0);
    assert_int_equal(n, (int)(100 - start) / 10);
    take(f, &after);
    same_segments(&before, &after);
    char text[256];
    tu_read_file(tu_path(f->dir, CKPT ".damaged"), text, sizeof text);
    assert_string_equal(text, before.ckpt);
    char want[128];
    snprintf(want, sizeof want, "0\n1\n__cluster_metadata 0 %" PRId64 "\n", start);
    assert_string_equal(after.ckpt, want);
    kq_log_close(f->log);
    f->log = open_opts(f, true, at_start);
    assert_non_null(f->log);
    assert_null(strstr(f->err, CKPT));
    assert_int_equal(kq_log_start_offset(f->log), start);
    assert_int_equal(kq_log_end_offset(f->log), 100);
}

/* A digit changed: no snapshot ends there (above the log end, or within). */
static void test_no_snapshot_there(void **state)
{
    tu_fixture *f = *state;
    fill(f, 40);
    write_snapshot(f, 80); /* a newer one: the oldest within the log is the start */
    const int64_t bad[] = {940, 60};
    for (int k = 0; k < 2; k++) {
        set_start(f, bad[k]);
        refused(f, "no snapshot ends there");
        repaired(f, 40, true, "is the end of no snapshot");
        kq_log_close(f->log);
        f->log = NULL;
    }
}

/* Without SnapshotAtLogStart the same damage is "above the log end". */
static void test_above_end(void **state)
{
    tu_fixture *f = *state;
    fill(f, 40);
    set_start(f, 940);
    files before, after;
    take(f, &before);
    assert_null(open_opts(f, false, false));
    assert_non_null(strstr(f->err, "above the log end"));
    take(f, &after);
    same_segments(&before, &after);
    repaired(f, 40, false, "lies above the log end");
}

/* 0, or a snapshot's end, below the first segment. */
static void test_below_first_segment(void **state)
{
    tu_fixture *f = *state;
    fill(f, 40);
    set_start(f, 0);
    refused(f, "below the first segment");
    repaired(f, 40, true, "lies below the first segment");
    kq_log_close(f->log);
    f->log = NULL;
    write_snapshot(f, 20);
    set_start(f, 20);
    refused(f, "below the first segment");
    repaired(f, 40, true, "lies below the first segment");
}

/* A snapshot vouches for an offset inside a batch. */
static void test_not_a_boundary(void **state)
{
    tu_fixture *f = *state;
    fill(f, 40);
    write_snapshot(f, 45);
    set_start(f, 45);
    refused(f, "not a batch boundary");
    repaired(f, 40, true, "is not a batch boundary");
}

static void test_does_not_parse(void **state)
{
    tu_fixture *f = *state;
    fill(f, 40);
    write_file(f, CKPT, "0\n1\n__cluster_metadata 0 4x\n");
    refused(f, "corrupt");
    repaired(f, 40, true, "does not parse");
}

/* A first segment at 0 needs no snapshot: every segment kept, start 0. */
static void test_first_segment_at_zero(void **state)
{
    tu_fixture *f = *state;
    fill(f, 0);
    set_start(f, 50);
    refused(f, "no snapshot ends there");
    repaired(f, 0, true, "is the end of no snapshot");
    assert_int_equal(kq_log_segment_count(f->log), 5);
}

/* Nothing vouches for a start (the snapshot at 40 is gone too): the log is
 * emptied at the newest snapshot (or 0) and kq_log_repair names the former
 * end and epoch, which the node refetches and votes with. */
static void test_nothing_vouches(void **state)
{
    tu_fixture *f = *state;
    const int64_t snap[] = {-1, 20};
    for (int k = 0; k < 2; k++) {
        tu_rm_rf(f->dir);
        assert_int_equal(mkdir(f->dir, 0755), 0);
        fill(f, 40);
        char name[64];
        snprintf(name, sizeof name, "%020d-%010d.checkpoint", 40, 2);
        assert_int_equal(unlink(tu_path(f->dir, name)), 0);
        if (snap[k] >= 0)
            write_snapshot(f, snap[k]);
        set_start(f, 940);
        refused(f, "no snapshot ends there");
        int64_t at = snap[k] >= 0 ? snap[k] : 0;
        f->log = open_opts(f, true, true);
        assert_non_null(f->log);
        print_message("repair note: %s\n", f->err);
        assert_non_null(strstr(f->err, "nothing on disk vouches"));
        assert_non_null(strstr(f->err, "refetching"));
        assert_int_equal(kq_log_start_offset(f->log), at);
        assert_int_equal(kq_log_end_offset(f->log), at);
        int64_t end;
        int32_t epoch;
        assert_true(kq_log_repair(f->log, &end, &epoch));
        assert_int_equal(end, 100);
        assert_int_equal(epoch, 2);
        char text[256];
        tu_read_file(tu_path(f->dir, CKPT ".damaged"), text, sizeof text);
        assert_string_equal(text, "0\n1\n__cluster_metadata 0 940\n");
        kq_log_close(f->log);
        f->log = open_opts(f, true, true);
        assert_non_null(f->log);
        assert_int_equal(kq_log_start_offset(f->log), at);
        kq_log_close(f->log);
        f->log = NULL;
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_no_snapshot_there, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_above_end, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_below_first_segment, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_not_a_boundary, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_does_not_parse, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_first_segment_at_zero, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_nothing_vouches, tu_setup, tu_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
