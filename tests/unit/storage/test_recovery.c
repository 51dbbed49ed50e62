#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>

#include "storage_test_util.h"

/* Writes `count` batches of `recs` records (leader appends) and closes. */
static void make_log(tu_fixture *f, uint64_t segment_bytes, int count, int recs, size_t value_size)
{
    f->log = kq_log_open(f->dir, segment_bytes, f->err, sizeof f->err);
    assert_non_null(f->log);
    for (int i = 0; i < count; i++) {
        kq_writer w;
        kq_writer_init(&w, 0);
        tu_batch(&w, 0, -1, recs, value_size, i);
        assert_int_equal(kq_log_append(f->log, w.data, w.len, kq_log_end_offset(f->log), 1, f->err,
                                       sizeof f->err),
                         0);
        kq_writer_free(&w);
    }
    tu_flush_all(f->log);
    kq_log_close(f->log);
    f->log = NULL;
}

/* Writes `flushed` batches and flushes them, then `unflushed` more, and
 * closes: the recovery point is the end of the flushed ones, the rest is
 * in the file as a killed process leaves it. */
static void make_log_tail(tu_fixture *f, uint64_t segment_bytes, int flushed, int unflushed,
                          int recs, size_t value_size)
{
    f->log = kq_log_open(f->dir, segment_bytes, f->err, sizeof f->err);
    assert_non_null(f->log);
    for (int i = 0; i < flushed + unflushed; i++) {
        if (i == flushed)
            tu_flush_all(f->log);
        kq_writer w;
        kq_writer_init(&w, 0);
        tu_batch(&w, 0, -1, recs, value_size, i);
        assert_int_equal(kq_log_append(f->log, w.data, w.len, kq_log_end_offset(f->log), 1, f->err,
                                       sizeof f->err),
                         0);
        kq_writer_free(&w);
    }
    if (unflushed == 0)
        tu_flush_all(f->log);
    assert_int_equal(kq_log_flushed_offset(f->log), (int64_t)flushed * recs);
    /* it lags until the next flush begins, or the close */
    assert_true(kq_log_recovery_point(f->log) <= (int64_t)flushed * recs);
    kq_log_close(f->log);
    f->log = NULL;
}

static void append_raw(const char *path, const void *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_APPEND);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, len), (ssize_t)len);
    close(fd);
}

static void flip_byte(const char *path, long pos)
{
    int fd = open(path, O_RDWR);
    assert_true(fd >= 0);
    uint8_t b;
    assert_int_equal(pread(fd, &b, 1, pos), 1);
    b ^= 0x5a;
    assert_int_equal(pwrite(fd, &b, 1, pos), 1);
    close(fd);
}

static int64_t last_segment_base(tu_fixture *f)
{
    int64_t base = 0;
    for (int64_t b = 0; b < 10000; b++)
        if (tu_file_size(tu_seg_path(f->dir, b, ".log")) >= 0)
            base = b;
    return base;
}

static void test_torn_partial_batch(void **state)
{
    tu_fixture *f = *state;
    make_log(f, 1 << 20, 5, 2, 50);
    const char *seg = tu_seg_path(f->dir, 0, ".log");
    long whole = tu_file_size(seg);
    kq_writer w;
    kq_writer_init(&w, 0);
    tu_batch(&w, 10, 1, 2, 50, 99);
    append_raw(seg, w.data, w.len / 2); /* half a batch */
    kq_writer_free(&w);
    f->log = kq_log_open(f->dir, 1 << 20, f->err, sizeof f->err);
    assert_non_null(f->log);
    assert_non_null(strstr(f->err, "truncated unacknowledged tail of"));
    assert_non_null(strstr(f->err, "00000000000000000000.log"));
    assert_int_equal(kq_log_end_offset(f->log), 10);
    assert_int_equal(kq_log_flushed_offset(f->log), 10);
    assert_int_equal(tu_file_size(seg), whole);
    /* appends continue right after the last whole batch */
    kq_writer_init(&w, 0);
    tu_batch(&w, 0, -1, 1, 5, 1);
    assert_int_equal(kq_log_append(f->log, w.data, w.len, 10, 1, f->err, sizeof f->err), 0);
    assert_int_equal(tu_file_size(seg), whole + (long)w.len);
    kq_writer_free(&w);
    kq_log_close(f->log);
    f->log = kq_log_open(f->dir, 1 << 20, f->err, sizeof f->err);
    assert_non_null(f->log);
    assert_string_equal(f->err, "");
    assert_int_equal(kq_log_end_offset(f->log), 11);
}

static void test_torn_tiny_tail(void **state)
{
    tu_fixture *f = *state;
    make_log(f, 1 << 20, 3, 1, 20);
    const char *seg = tu_seg_path(f->dir, 0, ".log");
    long whole = tu_file_size(seg);
    append_raw(seg, "\0\0\0", 3); /* less than a batch header */
    f->log = kq_log_open(f->dir, 1 << 20, f->err, sizeof f->err);
    assert_non_null(f->log);
    assert_non_null(strstr(f->err, "truncated unacknowledged tail of"));
    assert_int_equal(tu_file_size(seg), whole);
    assert_int_equal(kq_log_end_offset(f->log), 3);
}

static void test_torn_zero_filled_tail(void **state)
{
    tu_fixture *f = *state;
    make_log(f, 1 << 20, 3, 1, 20);
    const char *seg = tu_seg_path(f->dir, 0, ".log");
    long whole = tu_file_size(seg);
    static const uint8_t zeros[5000];
    append_raw(seg, zeros, sizeof zeros);
    f->log = kq_log_open(f->dir, 1 << 20, f->err, sizeof f->err);
    assert_non_null(f->log);
    assert_non_null(strstr(f->err, "truncated unacknowledged tail of"));
    assert_int_equal(tu_file_size(seg), whole);
    assert_int_equal(kq_log_end_offset(f->log), 3);
}

/* The last batch was never flushed: a bad CRC there is a torn write. */
static void test_bad_crc_in_final_batch(void **state)
{
    tu_fixture *f = *state;
    make_log_tail(f, 1 << 20, 3, 1, 2, 50);
    const char *seg = tu_seg_path(f->dir, 0, ".log");
    long whole = tu_file_size(seg);
    long bsz = whole / 4;
    flip_byte(seg, whole - 3); /* inside the last batch's records */
    f->log = kq_log_open(f->dir, 1 << 20, f->err, sizeof f->err);
    assert_non_null(f->log);
    assert_non_null(strstr(f->err, "truncated unacknowledged tail of"));
    assert_int_equal(kq_log_end_offset(f->log), 6);
    assert_int_equal(tu_file_size(seg), whole - bsz);
    kq_writer out;
    kq_writer_init(&out, 0);
    assert_int_equal(kq_log_read(f->log, 0, INT64_MAX, 1 << 20, &out), whole - bsz);
    kq_writer_free(&out);
}

static void test_corruption_before_tail_refuses(void **state)
{
    tu_fixture *f = *state;
    make_log(f, 1 << 20, 4, 2, 50);
    const char *seg = tu_seg_path(f->dir, 0, ".log");
    long whole = tu_file_size(seg);
    long bsz = whole / 4;
    flip_byte(seg, bsz + 70); /* the second batch's records */
    f->log = kq_log_open(f->dir, 1 << 20, f->err, sizeof f->err);
    assert_null(f->log);
    assert_non_null(strstr(f->err, "00000000000000000000.log"));
    char want[64];
    snprintf(want, sizeof want, "position %ld", bsz);
    assert_non_null(strstr(f->err, want));
    assert_non_null(strstr(f->err, "refusing"));
    print_message("refusal: %s\n", f->err);
    /* nothing was truncated */
    assert_int_equal(tu_file_size(seg), whole);
}

static void test_corrupt_header_length_before_tail(void **state)
{
    tu_fixture *f = *state;
    make_log(f, 1 << 20, 4, 2, 50);
    const char *seg = tu_seg_path(f->dir, 0, ".log");
    long bsz = tu_file_size(seg) / 4;
    flip_byte(seg, 2 * bsz + 20); /* CRC field of the third batch */
    f->log = kq_log_open(f->dir, 1 << 20, f->err, sizeof f->err);
    assert_null(f->log);
    char want[64];
    snprintf(want, sizeof want, "position %ld", 2 * bsz);
    assert_non_null(strstr(f->err, want));
}

static void test_corruption_in_earlier_segment_refuses(void **state)
{
    tu_fixture *f = *state;
    make_log(f, 1000, 20, 1, 200); /* several segments */
    int64_t last = last_segment_base(f);
    assert_true(last > 0);
    const char *seg0 = tu_seg_path(f->dir, 0, ".log");
    /* even the last batch of a non-final segment is not a torn tail */
    flip_byte(seg0, tu_file_size(seg0) - 2);
    f->log = kq_log_open(f->dir, 1000, f->err, sizeof f->err);
    assert_null(f->log);
    assert_non_null(strstr(f->err, "00000000000000000000.log"));
}

static void test_torn_tail_in_last_segment(void **state)
{
    tu_fixture *f = *state;
    make_log(f, 1000, 20, 1, 200);
    int64_t last = last_segment_base(f);
    const char *seg = tu_seg_path(f->dir, last, ".log");
    append_raw(seg, "\0\0\0\0\0\0\0\0\0\0\0\x30\0", 13);
    f->log = kq_log_open(f->dir, 1000, f->err, sizeof f->err);
    assert_non_null(f->log);
    assert_non_null(strstr(f->err, "truncated unacknowledged tail of"));
    assert_int_equal(kq_log_end_offset(f->log), 20);
}

static int64_t prev_segment_base(tu_fixture *f, int64_t before)
{
    int64_t base = -1;
    for (int64_t b = 0; b < before; b++)
        if (tu_file_size(tu_seg_path(f->dir, b, ".log")) >= 0)
            base = b;
    return base;
}

/* A crash right after a roll: the new segment never got its data and the
 * previous segment's unflushed tail is torn. That is a tail to cut; and so
 * it is when the new segment's first batch did reach the disk (files are
 * written back independently), which recovery used to refuse. */
static void test_torn_tail_before_unwritten_segment(void **state)
{
    tu_fixture *f = *state;
    /* one ~270-byte batch per offset, three per segment: 0, 3, ..., 18 */
    make_log_tail(f, 1000, 16, 4, 1, 200);
    int64_t last = last_segment_base(f);
    int64_t prev = prev_segment_base(f, last);
    assert_int_equal(last, 18);
    assert_int_equal(prev, 15);
    char lastp[512], prevp[512];
    snprintf(lastp, sizeof lastp, "%s", tu_seg_path(f->dir, last, ".log"));
    snprintf(prevp, sizeof prevp, "%s", tu_seg_path(f->dir, prev, ".log"));
    long prev_size = tu_file_size(prevp);
    long bsz = prev_size / (last - prev);
    /* zeros: the file grew but its data never reached the disk */
    assert_int_equal(truncate(lastp, 0), 0);
    assert_int_equal(truncate(lastp, 600), 0);
    flip_byte(prevp, prev_size - 4); /* offset 17, above the recovery point 16 */
    f->log = kq_log_open(f->dir, 1000, f->err, sizeof f->err);
    assert_non_null(f->log);
    assert_non_null(strstr(f->err, "truncated unacknowledged tail of"));
    assert_non_null(strstr(f->err, "deleted 1 later segment"));
    print_message("note: %s\n", f->err);
    assert_int_equal(kq_log_end_offset(f->log), last - 1);
    assert_int_equal(tu_file_size(prevp), prev_size - bsz);
    assert_int_equal(tu_file_size(lastp), -1);
    /* valid data in the later segment: the same */
    kq_log_close(f->log);
    f->log = NULL;
    tu_rm_rf(f->dir);
    assert_int_equal(mkdir(f->dir, 0700), 0);
    make_log_tail(f, 1000, 16, 4, 1, 200);
    flip_byte(prevp, prev_size - 4);
    f->log = kq_log_open(f->dir, 1000, f->err, sizeof f->err);
    assert_non_null(f->log);
    assert_non_null(strstr(f->err, "deleted 1 later segment"));
    assert_int_equal(kq_log_end_offset(f->log), 17);
    assert_int_equal(tu_file_size(lastp), -1);
}

static void test_segment_gap_refuses(void **state)
{
    tu_fixture *f = *state;
    make_log(f, 1000, 20, 1, 200);
    int64_t last = last_segment_base(f);
    char from[512], to[512];
    snprintf(from, sizeof from, "%s", tu_seg_path(f->dir, last, ".log"));
    snprintf(to, sizeof to, "%s", tu_seg_path(f->dir, last + 1, ".log"));
    assert_int_equal(rename(from, to), 0);
    f->log = kq_log_open(f->dir, 1000, f->err, sizeof f->err);
    assert_null(f->log);
    assert_non_null(strstr(f->err, "refusing"));
}

static void test_index_rebuilt(void **state)
{
    tu_fixture *f = *state;
    make_log(f, 1 << 20, 30, 1, 1000);
    const char *idx = tu_seg_path(f->dir, 0, ".index");
    char orig[4096];
    long n = tu_read_file(idx, orig, sizeof orig);
    assert_true(n >= 40 && n % 8 == 0);
    /* deleted */
    assert_int_equal(unlink(idx), 0);
    f->log = kq_log_open(f->dir, 1 << 20, f->err, sizeof f->err);
    assert_non_null(f->log);
    char now[4096];
    assert_int_equal(tu_read_file(idx, now, sizeof now), n);
    assert_memory_equal(now, orig, (size_t)n);
    kq_log_close(f->log);
    f->log = NULL;
    /* short */
    assert_int_equal(truncate(idx, 8), 0);
    f->log = kq_log_open(f->dir, 1 << 20, f->err, sizeof f->err);
    assert_non_null(f->log);
    assert_int_equal(tu_read_file(idx, now, sizeof now), n);
    assert_memory_equal(now, orig, (size_t)n);
    kq_log_close(f->log);
    f->log = NULL;
    /* preallocated with zeros, as Kafka leaves it after a crash */
    assert_int_equal(truncate(idx, 1 << 12), 0);
    f->log = kq_log_open(f->dir, 1 << 20, f->err, sizeof f->err);
    assert_non_null(f->log);
    assert_int_equal(tu_read_file(idx, now, sizeof now), n);
    /* reads work through the rebuilt index */
    for (int64_t off = 0; off < 30; off++) {
        kq_writer out;
        kq_writer_init(&out, 0);
        assert_true(kq_log_read(f->log, off, INT64_MAX, 1, &out) > 0);
        record_batch_header h;
        assert_int_equal(record_batch_check(out.data, out.len, &h), RECORD_OK);
        assert_int_equal(h.base_offset, off);
        kq_writer_free(&out);
    }
}

static void test_torn_tail_drops_index_entries(void **state)
{
    tu_fixture *f = *state;
    make_log_tail(f, 1 << 20, 9, 1, 1, 1000);
    const char *seg = tu_seg_path(f->dir, 0, ".log");
    const char *idx = tu_seg_path(f->dir, 0, ".index");
    long whole = tu_file_size(seg);
    long bsz = whole / 10;
    long isz = tu_file_size(idx);
    assert_true(isz >= 8);
    /* corrupt the last batch: the index entry pointing at it must go */
    flip_byte(seg, whole - 5);
    f->log = kq_log_open(f->dir, 1 << 20, f->err, sizeof f->err);
    assert_non_null(f->log);
    assert_int_equal(tu_file_size(seg), whole - bsz);
    assert_int_equal(kq_log_end_offset(f->log), 9);
    long nsz = tu_file_size(idx);
    assert_true(nsz <= isz && nsz % 8 == 0);
    char buf[4096];
    long n = tu_read_file(idx, buf, sizeof buf);
    for (long i = 0; i < n; i += 8) {
        const uint8_t *e = (const uint8_t *)buf + i;
        long pos = (e[4] << 24) | (e[5] << 16) | (e[6] << 8) | e[7];
        assert_true(pos < whole - bsz);
    }
}

static void test_empty_dir_and_leftovers(void **state)
{
    tu_fixture *f = *state;
    make_log(f, 1 << 20, 2, 1, 10);
    /* an orphan index and an interrupted checkpoint write are cleaned up */
    char orphan[512];
    snprintf(orphan, sizeof orphan, "%s", tu_seg_path(f->dir, 77, ".index"));
    int fd = open(orphan, O_CREAT | O_WRONLY, 0644);
    close(fd);
    fd = open(tu_path(f->dir, "leader-epoch-checkpoint.tmp"), O_CREAT | O_WRONLY, 0644);
    close(fd);
    f->log = kq_log_open(f->dir, 1 << 20, f->err, sizeof f->err);
    assert_non_null(f->log);
    assert_int_equal(tu_file_size(orphan), -1);
    assert_int_equal(tu_file_size(tu_path(f->dir, "leader-epoch-checkpoint.tmp")), -1);
    assert_int_equal(kq_log_end_offset(f->log), 2);
}

/* A CRC-valid batch whose BaseOffset (outside the CRC) was corrupted to near
 * INT64_MAX: the refusal names it without overflowing base + lastOffsetDelta
 * (UBSan aborts the test if it does). */
static void test_corrupt_base_offset_near_int64_max(void **state)
{
    tu_fixture *f = *state;
    make_log(f, 1 << 20, 1, 5, 10); /* lastOffsetDelta 4 */
    const char *seg = tu_seg_path(f->dir, 0, ".log");
    long whole = tu_file_size(seg);
    static const uint8_t base[8] = {0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe};
    int fd = open(seg, O_RDWR);
    assert_true(fd >= 0);
    assert_int_equal(pwrite(fd, base, sizeof base, 0), (ssize_t)sizeof base);
    close(fd);
    f->log = kq_log_open(f->dir, 1 << 20, f->err, sizeof f->err);
    assert_null(f->log);
    assert_non_null(strstr(f->err, "position 0"));
    assert_non_null(strstr(f->err, "9223372036854775806..9223372036854775807"));
    assert_non_null(strstr(f->err, "refusing"));
    assert_int_equal(tu_file_size(seg), whole);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_torn_partial_batch, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_torn_tiny_tail, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_torn_zero_filled_tail, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_bad_crc_in_final_batch, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_corruption_before_tail_refuses, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_corrupt_header_length_before_tail,
                                        tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_corruption_in_earlier_segment_refuses,
                                        tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_torn_tail_in_last_segment, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_torn_tail_before_unwritten_segment,
                                        tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_segment_gap_refuses, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_index_rebuilt, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_torn_tail_drops_index_entries, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_empty_dir_and_leftovers, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_corrupt_base_offset_near_int64_max, tu_setup,
                                        tu_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
