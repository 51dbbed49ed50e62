/* Planned reads (kq/log.h, issue 19's streamed Fetch answers): a plan and a
 * cursor read exactly the bytes kq_log_read returns for the same arguments,
 * whatever the chunk size; a segment deleted (retention) or replaced (reset)
 * after the plan is -ESTALE, never read as another segment; a damaged batch
 * is -EBADMSG, whole or in pieces; a chunk smaller than a batch hands it out
 * in pieces, one below a batch header is -ENOBUFS. On the real file system. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>

#include "storage_test_util.h"

/* 2 batches of 10 records per segment: bases 0, 20, 40, ... */
#define SEG_BYTES 2500

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

/* Everything the cursor yields for one plan, in chunks of cap bytes
 * (grown to what -ENOBUFS asks). */
static void read_all(tu_fixture *f, const kq_log_range *r, size_t cap, kq_writer *out)
{
    kq_log_cursor cur;
    kq_log_cursor_init(&cur, r);
    uint8_t *buf = malloc(cap);
    for (;;) {
        size_t need = 0;
        ssize_t n = kq_log_cursor_read(f->log, &cur, buf, cap, &need);
        if (n == -ENOBUFS) {
            assert_true(need > cap);
            cap = need;
            buf = realloc(buf, cap);
            continue;
        }
        assert_true(n >= 0);
        if (n == 0)
            break;
        memcpy(kq_writer_reserve(out, (size_t)n), buf, (size_t)n);
    }
    free(buf);
}

static void test_same_bytes_as_read(void **state)
{
    tu_fixture *f = *state;
    fill(f, 10);
    const int64_t offsets[] = {0, 5, 19, 20, 33, 99};
    const size_t maxes[] = {1, 1000, 1300, 2500, 1 << 20};
    const int64_t ends[] = {INT64_MAX, 30, 21};
    const size_t caps[] = {64, 1200, 4096, 1 << 20};
    for (size_t i = 0; i < sizeof offsets / sizeof *offsets; i++)
        for (size_t m = 0; m < sizeof maxes / sizeof *maxes; m++)
            for (size_t e = 0; e < sizeof ends / sizeof *ends; e++) {
                kq_writer want;
                kq_writer_init(&want, 0);
                ssize_t n = kq_log_read(f->log, offsets[i], ends[e], maxes[m], &want);
                kq_log_range r;
                assert_int_equal(kq_log_plan_read(f->log, offsets[i], ends[e], maxes[m], &r), 0);
                assert_int_equal((ssize_t)r.len, n > 0 ? n : 0);
                for (size_t c = 0; c < sizeof caps / sizeof *caps; c++) {
                    kq_writer got;
                    kq_writer_init(&got, 0);
                    read_all(f, &r, caps[c], &got);
                    assert_int_equal(got.len, want.len);
                    assert_memory_equal(got.data, want.data, want.len);
                    kq_writer_free(&got);
                }
                kq_writer_free(&want);
            }
}

static void test_below_start_and_past_end(void **state)
{
    tu_fixture *f = *state;
    fill(f, 4);
    kq_log_range r;
    assert_int_equal(kq_log_plan_read(f->log, 40, INT64_MAX, 1 << 20, &r), 0);
    assert_int_equal(r.len, 0);
    assert_int_equal(kq_log_advance_start(f->log, 20, f->err, sizeof f->err), 0);
    assert_int_equal(kq_log_plan_read(f->log, 5, INT64_MAX, 1 << 20, &r), -ERANGE);
}

static void test_deleted_segment_is_stale(void **state)
{
    tu_fixture *f = *state;
    fill(f, 6);
    kq_log_range r;
    assert_int_equal(kq_log_plan_read(f->log, 0, INT64_MAX, 1 << 20, &r), 0);
    assert_true(r.len > 0);
    assert_int_equal(kq_log_advance_start(f->log, 20, f->err, sizeof f->err), 0);
    kq_log_cursor cur;
    kq_log_cursor_init(&cur, &r);
    uint8_t buf[4096];
    size_t need = 0;
    assert_int_equal(kq_log_cursor_read(f->log, &cur, buf, sizeof buf, &need), -ESTALE);
}

static void test_reset_segment_is_stale(void **state)
{
    tu_fixture *f = *state;
    fill(f, 2);
    kq_log_range r;
    assert_int_equal(kq_log_plan_read(f->log, 0, INT64_MAX, 1 << 20, &r), 0);
    /* A reset at 0 creates a new segment with the same base offset. */
    assert_int_equal(kq_log_reset(f->log, 0, f->err, sizeof f->err), 0);
    kq_writer w;
    kq_writer_init(&w, 0);
    tu_batch(&w, 0, -1, 10, 100, 77);
    tu_batch(&w, 10, -1, 10, 100, 78);
    assert_int_equal(kq_log_append(f->log, w.data, w.len, 0, 3, f->err, sizeof f->err), 0);
    kq_writer_free(&w);
    kq_log_cursor cur;
    kq_log_cursor_init(&cur, &r);
    uint8_t buf[4096];
    size_t need = 0;
    assert_int_equal(kq_log_cursor_read(f->log, &cur, buf, sizeof buf, &need), -ESTALE);
}

static void test_damaged_batch_and_small_chunk(void **state)
{
    tu_fixture *f = *state;
    fill(f, 2);
    kq_log_range r;
    assert_int_equal(kq_log_plan_read(f->log, 0, INT64_MAX, 1 << 20, &r), 0);
    kq_log_cursor cur;
    kq_log_cursor_init(&cur, &r);
    uint8_t buf[4096];
    size_t need = 0;
    /* Below a batch header: -ENOBUFS. A chunk smaller than the batch: the
     * batch in pieces of at most that size. */
    assert_int_equal(kq_log_cursor_read(f->log, &cur, buf, 40, &need), -ENOBUFS);
    assert_int_equal(need, RECORD_BATCH_HEADER_BYTES);
    size_t first = 0;
    ssize_t n;
    while (cur.done == 0 || cur.batch_left > 0) {
        n = kq_log_cursor_read(f->log, &cur, buf, 100, &need);
        assert_true(n > 0 && n <= 100);
        first += (size_t)n;
    }
    assert_true(first > 100 && first < 2000);
    /* A record byte of the second batch flipped: its CRC fails, in pieces
     * and whole. */
    int fd = open(tu_seg_path(f->dir, 0, ".log"), O_RDWR);
    assert_true(fd >= 0);
    uint8_t b;
    off_t at = (off_t)(first + 100);
    assert_int_equal(pread(fd, &b, 1, at), 1);
    b ^= 0x40;
    assert_int_equal(pwrite(fd, &b, 1, at), 1);
    close(fd);
    kq_log_cursor again = cur;
    assert_int_equal(kq_log_cursor_read(f->log, &cur, buf, 100, &need), -EBADMSG);
    assert_int_equal(kq_log_cursor_read(f->log, &again, buf, sizeof buf, &need), -EBADMSG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_same_bytes_as_read, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_below_start_and_past_end, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_deleted_segment_is_stale, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_reset_segment_is_stale, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_damaged_batch_and_small_chunk, tu_setup, tu_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
