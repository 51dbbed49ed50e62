#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>

#include "storage_test_util.h"

static void open_log(tu_fixture *f, uint64_t segment_bytes)
{
    kq_log_close(f->log);
    f->log = kq_log_open(f->dir, segment_bytes, f->err, sizeof f->err);
    assert_non_null(f->log);
    assert_string_equal(f->err, "");
}

/* Leader-appends `count` batches of `recs` records each, one call per batch. */
static void append_batches(tu_fixture *f, int count, int recs, size_t value_size, int32_t epoch)
{
    for (int i = 0; i < count; i++) {
        kq_writer w;
        kq_writer_init(&w, 0);
        tu_batch(&w, 0, -1, recs, value_size, i);
        int64_t end = kq_log_end_offset(f->log);
        assert_int_equal(kq_log_append(f->log, w.data, w.len, end, epoch, f->err, sizeof f->err), 0);
        assert_int_equal(kq_log_end_offset(f->log), end + recs);
        kq_writer_free(&w);
    }
}

static void test_open_empty(void **state)
{
    tu_fixture *f = *state;
    open_log(f, 1 << 20);
    assert_int_equal(kq_log_start_offset(f->log), 0);
    assert_int_equal(kq_log_end_offset(f->log), 0);
    assert_int_equal(kq_log_flushed_offset(f->log), 0);
    assert_int_equal(kq_log_segment_count(f->log), 1);
    assert_int_equal(tu_file_size(tu_seg_path(f->dir, 0, ".log")), 0);
    assert_true(tu_file_size(tu_seg_path(f->dir, 0, ".index")) >= 0);
    kq_log_flush_job *job = (kq_log_flush_job *)1;
    assert_int_equal(kq_log_flush_begin(f->log, &job), 0);
    assert_null(job);
}

static void test_append_rewrites_and_reads(void **state)
{
    tu_fixture *f = *state;
    open_log(f, 1 << 20);
    kq_writer w;
    kq_writer_init(&w, 0);
    tu_batch(&w, 0, -1, 3, 10, 1);
    size_t b1 = w.len;
    tu_batch(&w, 0, -1, 2, 10, 2);
    size_t total = w.len;
    /* one call, two batches */
    assert_int_equal(kq_log_append(f->log, w.data, w.len, 0, 4, f->err, sizeof f->err), 0);
    assert_int_equal(kq_log_end_offset(f->log), 5);
    assert_int_equal(kq_log_flushed_offset(f->log), 0);
    record_batch_header h;
    assert_int_equal(record_batch_check(w.data + b1, total - b1, &h), RECORD_OK);
    assert_int_equal(h.base_offset, 3);
    assert_int_equal(h.partition_leader_epoch, 4);
    assert_int_equal(tu_file_size(tu_seg_path(f->dir, 0, ".log")), (long)total);

    kq_writer out;
    kq_writer_init(&out, 0);
    /* from the middle of the first batch: the whole first batch and more */
    assert_int_equal(kq_log_read(f->log, 1, INT64_MAX, 1 << 20, &out), (ssize_t)total);
    assert_memory_equal(out.data, w.data, total);
    /* from inside the second batch */
    kq_writer_reset(&out);
    assert_int_equal(kq_log_read(f->log, 4, INT64_MAX, 1 << 20, &out), (ssize_t)(total - b1));
    assert_memory_equal(out.data, w.data + b1, total - b1);
    /* reads append to what the writer already holds */
    assert_int_equal(kq_log_read(f->log, 0, 3, 1 << 20, &out), (ssize_t)b1);
    assert_int_equal(out.len, total);
    assert_memory_equal(out.data + (total - b1), w.data, b1);
    /* at or past the end */
    kq_writer_reset(&out);
    assert_int_equal(kq_log_read(f->log, 5, INT64_MAX, 1 << 20, &out), 0);
    assert_int_equal(kq_log_read(f->log, 50, INT64_MAX, 1 << 20, &out), 0);
    assert_int_equal(out.len, 0);
    kq_writer_free(&out);
    kq_writer_free(&w);
}

static void test_read_limits(void **state)
{
    tu_fixture *f = *state;
    open_log(f, 1 << 20);
    append_batches(f, 5, 2, 100, 1); /* offsets 0..9, batches at 0,2,4,6,8 */
    kq_writer all;
    kq_writer_init(&all, 0);
    ssize_t n = kq_log_read(f->log, 0, INT64_MAX, 1 << 20, &all);
    assert_true(n > 0);
    size_t bsz = (size_t)n / 5;
    assert_int_equal((size_t)n, 5 * bsz); /* same-size batches */

    kq_writer out;
    kq_writer_init(&out, 0);
    /* end_offset: stop before the batch at 6 */
    assert_int_equal(kq_log_read(f->log, 0, 6, 1 << 20, &out), (ssize_t)(3 * bsz));
    /* end_offset inside a batch's range still returns the batch starting below it */
    kq_writer_reset(&out);
    assert_int_equal(kq_log_read(f->log, 2, 5, 1 << 20, &out), (ssize_t)(2 * bsz));
    /* offset >= end_offset: nothing */
    kq_writer_reset(&out);
    assert_int_equal(kq_log_read(f->log, 6, 6, 1 << 20, &out), 0);
    /* max_bytes: exactly two batches fit, not three */
    kq_writer_reset(&out);
    assert_int_equal(kq_log_read(f->log, 0, INT64_MAX, 3 * bsz - 1, &out), (ssize_t)(2 * bsz));
    assert_memory_equal(out.data, all.data, 2 * bsz);
    /* the first batch is returned whole even when larger than max_bytes */
    kq_writer_reset(&out);
    assert_int_equal(kq_log_read(f->log, 7, INT64_MAX, 10, &out), (ssize_t)bsz);
    assert_memory_equal(out.data, all.data + 3 * bsz, bsz);
    /* a writer that cannot hold the first batch */
    kq_writer small;
    kq_writer_init(&small, bsz - 1);
    assert_int_equal(kq_log_read(f->log, 0, INT64_MAX, 1 << 20, &small), -ENOBUFS);
    kq_writer_free(&small);
    kq_writer_free(&out);
    kq_writer_free(&all);
}

static int count_cb(void *ctx, const uint8_t *batch, size_t len)
{
    int64_t *next = ctx;
    record_batch_header h;
    assert_int_equal(record_batch_check(batch, len, &h), RECORD_OK);
    assert_int_equal(h.base_offset, *next);
    *next = record_batch_last_offset(&h) + 1;
    return 0;
}

static void test_roll_and_index(void **state)
{
    tu_fixture *f = *state;
    open_log(f, 4000);
    append_batches(f, 60, 3, 100, 1); /* ~400-byte batches, offsets 0..179 */
    int segs = kq_log_segment_count(f->log);
    assert_true(segs >= 6);
    tu_flush_all(f->log);
    assert_int_equal(kq_log_flushed_offset(f->log), 180);
    /* every segment file is named by its base and within segment_bytes */
    int64_t next = 0;
    assert_int_equal(kq_log_scan(f->log, 0, count_cb, &next), 0);
    assert_int_equal(next, 180);
    /* each offset reads back the batch that contains it */
    for (int64_t off = 0; off < 180; off++) {
        kq_writer out;
        kq_writer_init(&out, 0);
        ssize_t n = kq_log_read(f->log, off, INT64_MAX, 1, &out);
        assert_true(n > 0);
        record_batch_header h;
        assert_int_equal(record_batch_check(out.data, (size_t)n, &h), RECORD_OK);
        assert_true(h.base_offset <= off && off <= record_batch_last_offset(&h));
        kq_writer_free(&out);
    }
    long size0 = tu_file_size(tu_seg_path(f->dir, 0, ".log"));
    assert_true(size0 > 0 && size0 <= 4000);
    /* a 4000-byte segment of ~400-byte batches gets entries after 4096 bytes:
     * none; a bigger segment gets some */
    assert_int_equal(tu_file_size(tu_seg_path(f->dir, 0, ".index")), 0);
}

/* kq_log_tail_start: the latest segment base from which the tail holds at
 * least the bytes asked (whole segments), the log start if it is smaller. */
static void test_tail_start(void **state)
{
    tu_fixture *f = *state;
    open_log(f, 4000);
    append_batches(f, 60, 3, 100, 1);
    int segs = kq_log_segment_count(f->log);
    assert_true(segs >= 6);
    assert_int_equal(kq_log_tail_start(f->log, UINT64_MAX), 0);
    int64_t one = kq_log_tail_start(f->log, 1); /* the active segment alone */
    assert_true(one > 0 && one < 180);
    int64_t two = kq_log_tail_start(f->log, 4001); /* more than one segment holds */
    assert_true(two > 0 && two < one);
    int64_t next = two;
    assert_int_equal(kq_log_scan(f->log, two, count_cb, &next), 0);
    assert_int_equal(next, 180);
}

/* kq_log_batch_start: the base of the batch holding an offset. */
static void test_batch_start(void **state)
{
    tu_fixture *f = *state;
    open_log(f, 4000);
    append_batches(f, 10, 3, 100, 1); /* batches of 3: bases 0, 3, 6, ... */
    assert_int_equal(kq_log_batch_start(f->log, 0), 0);
    assert_int_equal(kq_log_batch_start(f->log, 4), 3);
    assert_int_equal(kq_log_batch_start(f->log, 29), 27);
    assert_int_equal(kq_log_batch_start(f->log, 30), -1);
    assert_int_equal(kq_log_batch_start(f->log, -1), -1);
}

static void test_index_entries(void **state)
{
    tu_fixture *f = *state;
    open_log(f, 1 << 20);
    append_batches(f, 40, 1, 1000, 1); /* ~1070-byte batches */
    kq_writer out;
    kq_writer_init(&out, 0);
    ssize_t bsz = kq_log_read(f->log, 0, 1, 1, &out);
    assert_true(bsz > 1000);
    /* index entries are buffered until a flush */
    assert_int_equal(tu_file_size(tu_seg_path(f->dir, 0, ".index")), 0);
    tu_flush_all(f->log);
    long isz = tu_file_size(tu_seg_path(f->dir, 0, ".index"));
    assert_true(isz > 0 && isz % 8 == 0);
    /* Kafka's rule: an entry when more than 4096 bytes went in since the last:
     * batches 0-3 make 4*bsz > 4096, so batch 4 (offset 4) gets the first entry. */
    uint8_t e[8];
    int fd = open(tu_seg_path(f->dir, 0, ".index"), O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(pread(fd, e, 8, 0), 8);
    close(fd);
    int64_t first_key = 4 * bsz > 4096 ? 4 : 5;
    assert_int_equal((e[0] << 24) | (e[1] << 16) | (e[2] << 8) | e[3], first_key);
    assert_int_equal((e[4] << 24) | (e[5] << 16) | (e[6] << 8) | e[7], first_key * bsz);
    for (int64_t off = 0; off < 40; off++) {
        kq_writer_reset(&out);
        assert_int_equal(kq_log_read(f->log, off, INT64_MAX, 1, &out), bsz);
        assert_int_equal((int64_t)(((uint64_t)out.data[0] << 56) | ((uint64_t)out.data[1] << 48) |
                                   ((uint64_t)out.data[2] << 40) | ((uint64_t)out.data[3] << 32) |
                                   ((uint64_t)out.data[4] << 24) | ((uint64_t)out.data[5] << 16) |
                                   ((uint64_t)out.data[6] << 8) | out.data[7]),
                         off);
    }
    kq_writer_free(&out);
}

static void test_flush_job(void **state)
{
    tu_fixture *f = *state;
    open_log(f, 1 << 20);
    append_batches(f, 2, 1, 10, 1);
    kq_log_flush_job *job;
    assert_int_equal(kq_log_flush_begin(f->log, &job), 0);
    assert_non_null(job);
    assert_int_equal(kq_log_flush_job_offset(job), 2);
    kq_log_flush_job *job2;
    assert_int_equal(kq_log_flush_begin(f->log, &job2), -EBUSY);
    /* appends continue while the job runs */
    append_batches(f, 1, 1, 10, 1);
    assert_int_equal(kq_log_flush_run(job), 0);
    assert_int_equal(kq_log_flush_end(f->log, job), 2);
    assert_int_equal(kq_log_flushed_offset(f->log), 2);
    tu_flush_all(f->log);
    assert_int_equal(kq_log_flushed_offset(f->log), 3);
    assert_int_equal(kq_log_flush_begin(f->log, &job), 0);
    assert_null(job);

    /* a truncation while a job is out caps what it publishes */
    append_batches(f, 3, 1, 10, 1); /* 3..5 */
    assert_int_equal(kq_log_flush_begin(f->log, &job), 0);
    assert_non_null(job);
    assert_int_equal(kq_log_truncate(f->log, 4, f->err, sizeof f->err), 0);
    assert_int_equal(kq_log_flushed_offset(f->log), 3);
    append_batches(f, 3, 1, 10, 1); /* new 4..6 */
    assert_int_equal(kq_log_flush_run(job), 0);
    assert_int_equal(kq_log_flush_end(f->log, job), 4);
    tu_flush_all(f->log);
    assert_int_equal(kq_log_flushed_offset(f->log), 7);
}

static void *flush_thread(void *arg)
{
    return (void *)(intptr_t)kq_log_flush_run(arg);
}

/* The flush body on a real worker thread while the loop thread appends. */
static void test_flush_on_worker_thread(void **state)
{
    tu_fixture *f = *state;
    open_log(f, 8000);
    for (int round = 0; round < 20; round++) {
        append_batches(f, 5, 1, 300, 1);
        kq_log_flush_job *job;
        assert_int_equal(kq_log_flush_begin(f->log, &job), 0);
        assert_non_null(job);
        int64_t target = kq_log_flush_job_offset(job);
        pthread_t th;
        assert_int_equal(pthread_create(&th, NULL, flush_thread, job), 0);
        append_batches(f, 5, 1, 300, 1); /* meanwhile, may roll */
        void *ret;
        assert_int_equal(pthread_join(th, &ret), 0);
        assert_int_equal((intptr_t)ret, 0);
        assert_int_equal(kq_log_flush_end(f->log, job), target);
    }
    tu_flush_all(f->log);
    assert_int_equal(kq_log_flushed_offset(f->log), 200);
    assert_true(kq_log_segment_count(f->log) > 5);
}

static void test_truncate_across_segments(void **state)
{
    tu_fixture *f = *state;
    open_log(f, 3000);
    append_batches(f, 30, 2, 200, 1); /* ~300-byte batches, offsets 0..59 */
    tu_flush_all(f->log);
    int segs = kq_log_segment_count(f->log);
    assert_true(segs >= 3);
    kq_writer out;
    kq_writer_init(&out, 0);
    /* not a batch boundary */
    assert_int_equal(kq_log_truncate(f->log, 5, f->err, sizeof f->err), -EINVAL);
    assert_int_equal(kq_log_truncate(f->log, 61, f->err, sizeof f->err), -EINVAL);
    assert_int_equal(kq_log_end_offset(f->log), 60);
    /* truncate to offset 6, inside the first segment */
    assert_int_equal(kq_log_truncate(f->log, 6, f->err, sizeof f->err), 0);
    assert_int_equal(kq_log_end_offset(f->log), 6);
    assert_int_equal(kq_log_flushed_offset(f->log), 6);
    assert_int_equal(kq_log_segment_count(f->log), 1);
    for (int64_t base = 1; base < 60; base++)
        assert_int_equal(tu_file_size(tu_seg_path(f->dir, base, ".log")), -1);
    kq_writer_reset(&out);
    assert_int_equal(kq_log_read(f->log, 6, INT64_MAX, 1 << 20, &out), 0);
    /* appends continue at 6 and survive a reopen */
    append_batches(f, 20, 2, 200, 1);
    assert_int_equal(kq_log_end_offset(f->log), 46);
    tu_flush_all(f->log);
    open_log(f, 3000);
    assert_int_equal(kq_log_end_offset(f->log), 46);
    int64_t next = 0;
    assert_int_equal(kq_log_scan(f->log, 0, count_cb, &next), 0);
    assert_int_equal(next, 46);
    /* truncating at a segment base keeps that (now empty) segment */
    assert_true(kq_log_segment_count(f->log) >= 2);
    int64_t base2 = -1;
    for (int64_t b = 1; b < 46; b++)
        if (tu_file_size(tu_seg_path(f->dir, b, ".log")) >= 0) {
            base2 = b;
            break;
        }
    assert_true(base2 > 0);
    assert_int_equal(kq_log_truncate(f->log, base2, f->err, sizeof f->err), 0);
    assert_int_equal(kq_log_end_offset(f->log), base2);
    assert_int_equal(tu_file_size(tu_seg_path(f->dir, base2, ".log")), 0);
    append_batches(f, 1, 2, 200, 1);
    assert_int_equal(kq_log_end_offset(f->log), base2 + 2);
    kq_writer_free(&out);
}

static void test_follower_append(void **state)
{
    tu_fixture *f = *state;
    open_log(f, 1 << 20);
    kq_writer w;
    kq_writer_init(&w, 0);
    tu_batch(&w, 0, 2, 2, 10, 1);
    tu_batch(&w, 2, 3, 1, 10, 2);
    /* must start at the end offset */
    kq_writer bad;
    kq_writer_init(&bad, 0);
    tu_batch(&bad, 1, 2, 2, 10, 1);
    assert_int_equal(kq_log_append(f->log, bad.data, bad.len, -1, 0, f->err, sizeof f->err), -EINVAL);
    assert_non_null(strstr(f->err, "base offset"));
    /* a corrupt CRC is refused */
    kq_writer_reset(&bad);
    tu_batch(&bad, 0, 2, 2, 10, 1);
    bad.data[bad.len - 1] ^= 0x40;
    assert_int_equal(kq_log_append(f->log, bad.data, bad.len, -1, 0, f->err, sizeof f->err), -EINVAL);
    /* a partial batch is refused */
    assert_int_equal(kq_log_append(f->log, w.data, w.len - 1, -1, 0, f->err, sizeof f->err), -EINVAL);
    assert_int_equal(kq_log_end_offset(f->log), 0);
    assert_int_equal(tu_file_size(tu_seg_path(f->dir, 0, ".log")), 0);
    assert_int_equal(kq_log_append(f->log, w.data, w.len, -1, 0, f->err, sizeof f->err), 0);
    assert_int_equal(kq_log_end_offset(f->log), 3);
    kq_writer out;
    kq_writer_init(&out, 0);
    assert_int_equal(kq_log_read(f->log, 0, INT64_MAX, 1 << 20, &out), (ssize_t)w.len);
    assert_memory_equal(out.data, w.data, w.len);
    /* a leader append must be at the end offset */
    kq_writer_reset(&bad);
    tu_batch(&bad, 0, -1, 1, 10, 1);
    assert_int_equal(kq_log_append(f->log, bad.data, bad.len, 2, 3, f->err, sizeof f->err), -EINVAL);
    kq_writer_free(&out);
    kq_writer_free(&bad);
    kq_writer_free(&w);
}

/* Appends every batch below `end` to out, one kq_log_read at a time. */
static void read_all(kq_log *log, int64_t end, kq_writer *out)
{
    for (int64_t off = 0; off < end;) {
        ssize_t n = kq_log_read(log, off, INT64_MAX, 1 << 20, out);
        assert_true(n > 0);
        /* advance to the offset after the last batch read */
        size_t pos = out->len - (size_t)n;
        while (pos < out->len) {
            record_batch_header h;
            assert_int_equal(record_batch_parse_header(out->data + pos, out->len - pos, &h),
                             RECORD_OK);
            pos += record_batch_size(&h);
            off = record_batch_last_offset(&h) + 1;
        }
    }
}

static void test_reopen_keeps_batches(void **state)
{
    tu_fixture *f = *state;
    open_log(f, 5000);
    append_batches(f, 50, 3, 150, 7);
    kq_writer before;
    kq_writer_init(&before, 0);
    read_all(f->log, kq_log_end_offset(f->log), &before);
    int segs = kq_log_segment_count(f->log);
    tu_flush_all(f->log);
    open_log(f, 5000);
    assert_int_equal(kq_log_end_offset(f->log), 150);
    assert_int_equal(kq_log_flushed_offset(f->log), 150);
    assert_int_equal(kq_log_segment_count(f->log), segs);
    kq_writer after;
    kq_writer_init(&after, 0);
    read_all(f->log, 150, &after);
    assert_int_equal(after.len, before.len);
    assert_memory_equal(after.data, before.data, before.len);
    /* appends continue after a reopen without flush in between */
    append_batches(f, 1, 1, 10, 7);
    kq_log_close(f->log);
    f->log = NULL;
    open_log(f, 5000);
    assert_int_equal(kq_log_end_offset(f->log), 151);
    kq_writer_free(&after);
    kq_writer_free(&before);
}

static int stop_cb(void *ctx, const uint8_t *batch, size_t len)
{
    (void)batch;
    (void)len;
    int *n = ctx;
    return ++*n == 3 ? 42 : 0;
}

static void test_scan_stops(void **state)
{
    tu_fixture *f = *state;
    open_log(f, 1 << 20);
    append_batches(f, 10, 2, 10, 1);
    int n = 0;
    assert_int_equal(kq_log_scan(f->log, 5, stop_cb, &n), 42);
    assert_int_equal(n, 3);
    int64_t next = 4; /* from the middle of batch 4..5 */
    assert_int_equal(kq_log_scan(f->log, 5, count_cb, &next), 0);
    assert_int_equal(next, 20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_open_empty, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_append_rewrites_and_reads, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_read_limits, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_roll_and_index, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_tail_start, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_batch_start, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_index_entries, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_flush_job, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_flush_on_worker_thread, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_truncate_across_segments, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_follower_append, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_reopen_keeps_batches, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_scan_stops, tu_setup, tu_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
