/* Log searches off the loop (kq/log.h, kq_log_search_*): a job visits the
 * batches holding [from, limit) in order, verified, across segments; it
 * keeps reading segments retention deletes after it was made; a flipped
 * byte is -EBADMSG; the visitor stops it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>

#include "kq/record.h"
#include "storage_test_util.h"

#define SEG_BYTES 2500 /* 2 batches of 10 records per segment */

typedef struct visit {
    int batches;
    int64_t bases[64];
    int stop_after; /* 0: never */
} visit;

static int visit_cb(void *ctx, const uint8_t *batch, size_t len)
{
    visit *v = ctx;
    record_batch_header h;
    assert_int_equal(record_batch_check(batch, len, &h), RECORD_OK);
    v->bases[v->batches++] = h.base_offset;
    return v->stop_after && v->batches == v->stop_after ? 7 : 0;
}

static void fill(tu_fixture *f, int batches)
{
    f->log = kq_log_open(f->dir, SEG_BYTES, f->err, sizeof f->err);
    assert_non_null(f->log);
    for (int i = 0; i < batches; i++) {
        kq_writer w;
        kq_writer_init(&w, 0);
        tu_batch(&w, 0, -1, 10, 100, i);
        int64_t end = kq_log_end_offset(f->log);
        assert_int_equal(kq_log_append(f->log, w.data, w.len, end, 2, f->err, sizeof f->err), 0);
        kq_writer_free(&w);
    }
    tu_flush_all(f->log);
}

static void test_range_across_segments(void **state)
{
    tu_fixture *f = *state;
    fill(f, 10); /* offsets 0..99 in 5 segments */
    kq_log_search_job *job = kq_log_search_begin(f->log, 25, 75, f->err, sizeof f->err);
    assert_non_null(job);
    visit v = {0};
    assert_int_equal(kq_log_search_run(job, visit_cb, &v), 0);
    assert_int_equal(v.batches, 6); /* 20 (holds 25), 30, 40, 50, 60, 70 */
    for (int i = 0; i < 6; i++)
        assert_int_equal(v.bases[i], 20 + 10 * i);
    kq_log_search_free(job);
    /* the visitor's value stops it */
    job = kq_log_search_begin(f->log, 0, 100, f->err, sizeof f->err);
    visit s = {.stop_after = 3};
    assert_int_equal(kq_log_search_run(job, visit_cb, &s), 7);
    assert_int_equal(s.batches, 3);
    kq_log_search_free(job);
    /* an empty range */
    job = kq_log_search_begin(f->log, 100, 100, f->err, sizeof f->err);
    assert_non_null(job);
    visit e = {0};
    assert_int_equal(kq_log_search_run(job, visit_cb, &e), 0);
    assert_int_equal(e.batches, 0);
    kq_log_search_free(job);
}

static void test_survives_retention(void **state)
{
    tu_fixture *f = *state;
    fill(f, 10);
    kq_log_search_job *job = kq_log_search_begin(f->log, 0, 100, f->err, sizeof f->err);
    assert_non_null(job);
    assert_int_equal(kq_log_advance_start(f->log, 60, f->err, sizeof f->err), 0);
    assert_true(tu_file_size(tu_seg_path(f->dir, 0, ".log")) < 0); /* deleted */
    visit v = {0};
    assert_int_equal(kq_log_search_run(job, visit_cb, &v), 0);
    assert_int_equal(v.batches, 10);
    kq_log_search_free(job);
}

static void test_flipped_byte(void **state)
{
    tu_fixture *f = *state;
    fill(f, 4);
    int fd = open(tu_seg_path(f->dir, 20, ".log"), O_RDWR);
    assert_true(fd >= 0);
    uint8_t b;
    assert_int_equal(pread(fd, &b, 1, 300), 1);
    b ^= 0x10;
    assert_int_equal(pwrite(fd, &b, 1, 300), 1);
    close(fd);
    kq_log_search_job *job = kq_log_search_begin(f->log, 0, 40, f->err, sizeof f->err);
    assert_non_null(job);
    visit v = {0};
    assert_int_equal(kq_log_search_run(job, visit_cb, &v), -EBADMSG);
    assert_int_equal(v.batches, 2); /* the first segment's */
    kq_log_search_free(job);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_range_across_segments, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_survives_retention, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_flipped_byte, tu_setup, tu_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
