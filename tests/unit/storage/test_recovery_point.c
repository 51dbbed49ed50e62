/* The recovery point (FORMAT.md): its file, when it moves, and recovery
 * from it on real files. Below it anything wrong is corruption (refused,
 * nothing touched); above it an unacknowledged tail (cut, later segments
 * deleted); restart reads only from it. Also reads that verify batches
 * (-EBADMSG) and the recovery-truncates-corruption mutant. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>

#include "kq/mutants.h"
#include "storage_test_util.h"

/* Byte offsets inside a record batch v2. */
#define AT_LENGTH 10 /* a middle byte of Length: the claimed size changes by ~23 KB */
#define AT_EPOCH 15  /* the low byte of PartitionLeaderEpoch (outside the CRC) */
#define AT_PAYLOAD 70 /* inside the first record */

#define SLOT_BYTES 512

/* ---- a pass-through fs that counts */

typedef struct count_fs {
    kq_fs table;
    const kq_fs *inner;
    uint64_t pread_bytes;
    int fdatasyncs;
} count_fs;

#define INNER(c) (((count_fs *)(c))->inner)

static int c_open(void *c, const char *p, unsigned f)
{
    return INNER(c)->open(NULL, p, f);
}
static int c_dup(void *c, int fd)
{
    return INNER(c)->dup(NULL, fd);
}
static int c_close(void *c, int fd)
{
    return INNER(c)->close(NULL, fd);
}
static ssize_t c_pwrite(void *c, int fd, const void *b, size_t n, uint64_t pos)
{
    return INNER(c)->pwrite(NULL, fd, b, n, pos);
}
static int c_ftruncate(void *c, int fd, uint64_t n)
{
    return INNER(c)->ftruncate(NULL, fd, n);
}
static int c_size(void *c, int fd, uint64_t *n)
{
    return INNER(c)->size(NULL, fd, n);
}
static int c_rename(void *c, const char *a, const char *b)
{
    return INNER(c)->rename(NULL, a, b);
}
static int c_unlink(void *c, const char *p)
{
    return INNER(c)->unlink(NULL, p);
}
static int c_mkdir(void *c, const char *p)
{
    return INNER(c)->mkdir(NULL, p);
}
static int c_list_dir(void *c, const char *p, kq_fs_dir_fn fn, void *arg)
{
    return INNER(c)->list_dir(NULL, p, fn, arg);
}
static int c_fsync_dir(void *c, const char *p)
{
    return INNER(c)->fsync_dir(NULL, p);
}

static ssize_t c_pread(void *c, int fd, void *b, size_t n, uint64_t pos)
{
    count_fs *w = c;
    ssize_t r = w->inner->pread(NULL, fd, b, n, pos);
    if (r > 0)
        w->pread_bytes += (uint64_t)r;
    return r;
}

static int c_fdatasync(void *c, int fd)
{
    count_fs *w = c;
    w->fdatasyncs++;
    return w->inner->fdatasync(NULL, fd);
}

/* File scope: the fixture's teardown closes the log after the test. */
static count_fs g_count;

static const kq_fs *count_fs_init(void)
{
    count_fs *w = &g_count;
    memset(w, 0, sizeof *w);
    w->inner = kq_fs_posix();
    w->table = (kq_fs){.ctx = w, .open = c_open, .dup = c_dup, .close = c_close,
                       .pread = c_pread, .pwrite = c_pwrite, .fdatasync = c_fdatasync,
                       .ftruncate = c_ftruncate, .size = c_size, .rename = c_rename,
                       .unlink = c_unlink, .mkdir = c_mkdir, .list_dir = c_list_dir,
                       .fsync_dir = c_fsync_dir};
    return &w->table;
}

/* ---- helpers */

static kq_log *open_log(tu_fixture *f, uint64_t segment_bytes, unsigned mutants,
                        const kq_fs *fs)
{
    kq_log_options o = {
        .fs = fs, .log_dir = f->dir, .segment_bytes = segment_bytes, .mutants = mutants};
    return kq_log_open_with(&o, f->err, sizeof f->err);
}

static void append_one(tu_fixture *f, int recs, size_t value_size, int seed, int32_t epoch)
{
    kq_writer w;
    kq_writer_init(&w, 0);
    tu_batch(&w, 0, -1, recs, value_size, seed);
    assert_int_equal(kq_log_append(f->log, w.data, w.len, kq_log_end_offset(f->log), epoch, f->err,
                                   sizeof f->err),
                     0);
    kq_writer_free(&w);
}

/* `flushed` one-record batches flushed, then `unflushed` more, then a
 * close (which records the flushed offset as the recovery point). */
static void make_log(tu_fixture *f, uint64_t segment_bytes, int flushed, int unflushed,
                     size_t value_size)
{
    f->log = open_log(f, segment_bytes, 0, NULL);
    assert_non_null(f->log);
    for (int i = 0; i < flushed + unflushed; i++) {
        if (i == flushed)
            tu_flush_all(f->log);
        append_one(f, 1, value_size, i, 1 + i / 4); /* a new epoch every 4 batches */
    }
    if (unflushed == 0)
        tu_flush_all(f->log);
    kq_log_close(f->log);
    f->log = NULL;
}

/* A whole (small) file, malloc'd. */
static uint8_t *slurp(const char *path, long *len)
{
    *len = tu_file_size(path);
    assert_true(*len >= 0);
    uint8_t *buf = malloc((size_t)*len + 1);
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(pread(fd, buf, (size_t)*len, 0), (ssize_t)*len);
    close(fd);
    buf[*len] = '\0';
    return buf;
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

/* Position of the batch at offset in a segment file of one-record batches. */
static long batch_pos(const char *path, int64_t seg_base, int64_t offset)
{
    long len;
    uint8_t *d = slurp(path, &len);
    long pos = 0;
    for (int64_t o = seg_base; o < offset; o++) {
        assert_true(pos + 12 <= len);
        pos += 12 + (long)(((uint32_t)d[pos + 8] << 24) | ((uint32_t)d[pos + 9] << 16) |
                           ((uint32_t)d[pos + 10] << 8) | d[pos + 11]);
    }
    free(d);
    return pos;
}

static void fresh_dir(tu_fixture *f)
{
    kq_log_close(f->log);
    f->log = NULL;
    tu_rm_rf(f->dir);
    assert_int_equal(mkdir(f->dir, 0700), 0);
}

static const char *rp_path(tu_fixture *f)
{
    return tu_path(f->dir, KQ_LOG_RECOVERY_POINT_FILE);
}

/* ---- the file */

static void test_file_format_and_when_written(void **state)
{
    tu_fixture *f = *state;
    f->log = open_log(f, 1 << 20, 0, NULL);
    assert_non_null(f->log);
    assert_int_equal(kq_log_recovery_point(f->log), 0);
    long len;
    uint8_t *d = slurp(rp_path(f), &len);
    assert_int_equal(len, 2 * SLOT_BYTES);
    const char *want = "kq-recovery-point 1 seq 1 offset 0 start 0 segment 0 position 0 crc32c ";
    assert_memory_equal(d, want, strlen(want));
    assert_int_equal(d[SLOT_BYTES - 1], '\n');
    assert_int_equal(d[SLOT_BYTES - 2], ' ');
    free(d);
    for (int i = 0; i < 3; i++)
        append_one(f, 1, 20, i, 1);
    tu_flush_all(f->log);
    /* the job published 3; the file learns it when the next job begins */
    assert_int_equal(kq_log_flushed_offset(f->log), 3);
    assert_int_equal(kq_log_recovery_point(f->log), 0);
    append_one(f, 1, 20, 3, 1);
    kq_log_flush_job *job;
    assert_int_equal(kq_log_flush_begin(f->log, &job), 0);
    assert_non_null(job);
    assert_int_equal(kq_log_recovery_point(f->log), 3);
    d = slurp(rp_path(f), &len);
    assert_non_null(strstr((char *)d, "seq 3 offset 3 start 0 segment 0 position "));
    free(d);
    assert_int_equal(kq_log_flush_run(job), 0);
    kq_log_flush_end(f->log, job);
    assert_int_equal(kq_log_recovery_point(f->log), 3); /* never ahead of what was published */
    kq_log_close(f->log);
    f->log = NULL;
    d = slurp(rp_path(f), &len);
    print_message("%s", (char *)d);
    assert_non_null(strstr((char *)d, "seq 4 offset 4 start 0 segment 0 position "));
    free(d);
    f->log = open_log(f, 1 << 20, 0, NULL);
    assert_non_null(f->log);
    assert_string_equal(f->err, "");
    assert_int_equal(kq_log_recovery_point(f->log), 4);
}

static void test_torn_slot_and_corrupt_file(void **state)
{
    tu_fixture *f = *state;
    make_log(f, 1 << 20, 6, 0, 20);
    /* the close wrote the newest record into slot 0 (seq 3: 1 and 2 at
     * creation, 3 on close): tear it */
    long len;
    uint8_t *d = slurp(rp_path(f), &len);
    assert_non_null(strstr((char *)d, "seq 3 offset 6"));
    free(d);
    flip_byte(rp_path(f), 40);
    f->log = open_log(f, 1 << 20, 0, NULL);
    assert_non_null(f->log); /* slot 1 (offset 0): everything is scanned */
    assert_string_equal(f->err, "");
    assert_int_equal(kq_log_end_offset(f->log), 6);
    kq_log_close(f->log);
    f->log = NULL;
    /* both slots damaged: not what a crash leaves */
    flip_byte(rp_path(f), 40);
    flip_byte(rp_path(f), SLOT_BYTES + 40);
    f->log = open_log(f, 1 << 20, 0, NULL);
    assert_null(f->log);
    print_message("refusal: %s\n", f->err);
    assert_non_null(strstr(f->err, KQ_LOG_RECOVERY_POINT_FILE));
    assert_non_null(strstr(f->err, "no slot holds a valid record"));
}

/* ---- below the recovery point: refused, nothing touched */

static const struct flip_place {
    const char *name;
    long at;
    const char *why;
} places[] = {
    {"record payload", AT_PAYLOAD, "bad crc batch"},
    {"batch length", AT_LENGTH, "truncated batch"},
    {"PartitionLeaderEpoch", AT_EPOCH, "disagrees with leader-epoch-checkpoint"},
};

static void expect_refusal(tu_fixture *f, const char *seg, long pos, int64_t offset,
                           int64_t rp, const char *why)
{
    long before_len, after_len;
    uint8_t *before = slurp(seg, &before_len);
    f->log = open_log(f, 1000, 0, NULL);
    assert_null(f->log);
    print_message("refusal: %s\n", f->err);
    char want[160];
    const char *name = strrchr(seg, '/') + 1;
    assert_non_null(strstr(f->err, name));
    assert_non_null(strstr(f->err, why));
    snprintf(want, sizeof want,
             "at position %ld (offset %" PRId64 "), below the recovery point %" PRId64, pos,
             offset, rp);
    assert_non_null(strstr(f->err, want));
    uint8_t *after = slurp(seg, &after_len);
    assert_int_equal(after_len, before_len);
    assert_memory_equal(after, before, (size_t)before_len);
    free(before);
    free(after);
}

/* In the segment holding the recovery point (9 batches of 93 bytes: no
 * index entry, so recovery checks every batch up to the point), and in the
 * last batch of an earlier segment (checked from its last index entry). */
static void test_flips_below_recovery_point_refuse(void **state)
{
    tu_fixture *f = *state;
    for (size_t i = 0; i < sizeof places / sizeof places[0]; i++) {
        print_message("flip: %s\n", places[i].name);
        fresh_dir(f);
        make_log(f, 1000, 9, 0, 20);
        const char *seg = tu_seg_path(f->dir, 0, ".log");
        long pos = batch_pos(seg, 0, 4);
        flip_byte(seg, pos + places[i].at);
        expect_refusal(f, seg, pos, 4, 9, places[i].why);

        fresh_dir(f);
        make_log(f, 40000, 60, 0, 1000); /* ~1070-byte batches, 37 a segment */
        char seg0[512];
        snprintf(seg0, sizeof seg0, "%s", tu_seg_path(f->dir, 0, ".log"));
        assert_true(tu_file_size(tu_seg_path(f->dir, 37, ".log")) > 0);
        assert_true(tu_file_size(tu_seg_path(f->dir, 0, ".index")) >= 8 * 7);
        pos = batch_pos(seg0, 0, 36);
        flip_byte(seg0, pos + places[i].at);
        expect_refusal(f, seg0, pos, 36, 60, places[i].why);
    }
}

/* The batch right below the recovery point, read back from a fresh .index
 * after a crash lost it (recovery walks the whole segment then). */
static void test_flip_below_recovery_point_without_index(void **state)
{
    tu_fixture *f = *state;
    make_log(f, 1 << 20, 40, 0, 1000);
    assert_int_equal(unlink(tu_seg_path(f->dir, 0, ".index")), 0);
    const char *seg = tu_seg_path(f->dir, 0, ".log");
    long pos = batch_pos(seg, 0, 5);
    flip_byte(seg, pos + AT_PAYLOAD);
    expect_refusal(f, seg, pos, 5, 40, "bad crc batch");
}

/* ---- above it: an unacknowledged tail */

static void test_flips_above_recovery_point_truncate(void **state)
{
    tu_fixture *f = *state;
    for (size_t i = 0; i < sizeof places / sizeof places[0]; i++) {
        print_message("flip: %s\n", places[i].name);
        fresh_dir(f);
        make_log(f, 1 << 20, 5, 4, 20);
        const char *seg = tu_seg_path(f->dir, 0, ".log");
        long pos = batch_pos(seg, 0, 6);
        long len;
        uint8_t *flushed = slurp(seg, &len);
        flip_byte(seg, pos + places[i].at);
        f->log = open_log(f, 1 << 20, 0, NULL);
        assert_non_null(f->log);
        print_message("note: %s\n", f->err);
        char want[160];
        snprintf(want, sizeof want,
                 "truncated unacknowledged tail of %s at position %ld, above the recovery point 5",
                 seg, pos);
        assert_non_null(strstr(f->err, want));
        assert_non_null(strstr(f->err, places[i].why));
        assert_int_equal(kq_log_end_offset(f->log), 6);
        assert_int_equal(kq_log_recovery_point(f->log), 6);
        assert_int_equal(tu_file_size(seg), pos);
        uint8_t *now = slurp(seg, &len);
        assert_memory_equal(now, flushed, (size_t)pos); /* the flushed batches are intact */
        free(now);
        free(flushed);
    }
}

/* A power cut after a roll: the new segment's first batch reached the
 * disk, the previous segment's unflushed tail did not. */
static void test_torn_tail_after_roll(void **state)
{
    tu_fixture *f = *state;
    for (int whole_tail_lost = 0; whole_tail_lost < 2; whole_tail_lost++) {
        fresh_dir(f);
        /* 93-byte batches, 10 a segment: 0, 10, 20 */
        make_log(f, 1000, 15, 14, 20);
        char prev[512], next[512];
        snprintf(prev, sizeof prev, "%s", tu_seg_path(f->dir, 10, ".log"));
        snprintf(next, sizeof next, "%s", tu_seg_path(f->dir, 20, ".log"));
        assert_true(tu_file_size(next) > 0);
        long rp_pos = batch_pos(prev, 10, 15);
        long cut = whole_tail_lost ? rp_pos : batch_pos(prev, 10, 18) + 30;
        assert_int_equal(truncate(prev, cut), 0);
        f->log = open_log(f, 1000, 0, NULL);
        assert_non_null(f->log);
        print_message("note: %s\n", f->err);
        assert_non_null(strstr(f->err, "above the recovery point 15"));
        assert_non_null(strstr(f->err, "deleted 1 later segment"));
        assert_int_equal(kq_log_end_offset(f->log), whole_tail_lost ? 15 : 18);
        assert_int_equal(kq_log_segment_count(f->log), 2);
        assert_int_equal(tu_file_size(next), -1);
        assert_int_equal(tu_file_size(tu_seg_path(f->dir, 20, ".index")), -1);
        /* every flushed batch reads back */
        kq_writer w;
        kq_writer_init(&w, 0);
        for (int64_t o = 0; o < 15; o++) {
            kq_writer_reset(&w);
            assert_true(kq_log_read(f->log, o, o + 1, 1, &w) > 0);
        }
        kq_writer_free(&w);
    }
}

/* ---- the mutant: the silent loss this prevents */

static void test_mutant_truncates_corruption(void **state)
{
    tu_fixture *f = *state;
    make_log(f, 1000, 9, 0, 20);
    const char *seg = tu_seg_path(f->dir, 0, ".log");
    long pos = batch_pos(seg, 0, 4);
    flip_byte(seg, pos + AT_PAYLOAD);
    f->log = open_log(f, 1000, KQ_MUTANT_RECOVERY_TRUNCATES_CORRUPTION, NULL);
    assert_non_null(f->log);
    print_message("mutant note: %s\n", f->err);
    assert_non_null(strstr(f->err, "below the recovery point 9"));
    assert_int_equal(kq_log_end_offset(f->log), 4); /* five flushed batches gone */
    assert_int_equal(tu_file_size(seg), pos);
}

/* A multi-node quorum's open cuts at the last good batch and declares the
 * repair (the executor tells the core); the mutant's cut declares nothing. */
static void test_repair_cuts_and_declares(void **state)
{
    tu_fixture *f = *state;
    make_log(f, 1000, 9, 0, 20);
    const char *seg = tu_seg_path(f->dir, 0, ".log");
    long pos = batch_pos(seg, 0, 4);
    flip_byte(seg, pos + AT_PAYLOAD);
    kq_log_options o = {.log_dir = f->dir, .segment_bytes = 1000, .repair = true};
    f->log = kq_log_open_with(&o, f->err, sizeof f->err);
    assert_non_null(f->log);
    print_message("repair note: %s\n", f->err);
    assert_non_null(strstr(f->err, "repairing: refetching offsets 4..8"));
    assert_int_equal(kq_log_end_offset(f->log), 4);
    int64_t end = -1;
    int32_t epoch = -2;
    assert_true(kq_log_repair(f->log, &end, &epoch));
    assert_int_equal(end, 9);
    assert_int_equal(epoch, 3); /* offset 8 was written in epoch 1 + 8 / 4 */
    kq_log_close(f->log);
    /* Without repair (one node) the same flip refuses. */
    f->log = open_log(f, 1000, 0, NULL);
    assert_non_null(f->log); /* the repaired log itself opens cleanly now */
    assert_false(kq_log_repair(f->log, &end, &epoch));
}

/* ---- reads verify what they hand out */

static void test_read_and_scan_return_ebadmsg(void **state)
{
    tu_fixture *f = *state;
    for (size_t i = 0; i < sizeof places / sizeof places[0]; i++) {
        fresh_dir(f);
        f->log = open_log(f, 1 << 20, 0, NULL);
        assert_non_null(f->log);
        for (int b = 0; b < 6; b++)
            append_one(f, 1, 20, b, 2);
        tu_flush_all(f->log);
        const char *seg = tu_seg_path(f->dir, 0, ".log");
        long pos = batch_pos(seg, 0, 3);
        flip_byte(seg, pos + places[i].at); /* under the open log */
        kq_writer w;
        kq_writer_init(&w, 0);
        tu_batch(&w, 0, -1, 1, 1, 0); /* something already in the buffer */
        size_t had = w.len;
        assert_int_equal(kq_log_read(f->log, 3, INT64_MAX, 1 << 20, &w), -EBADMSG);
        assert_int_equal(w.len, had);
        /* from before it: the good batches, then the bad one stops the next read */
        ssize_t n = kq_log_read(f->log, 1, INT64_MAX, 1 << 20, &w);
        assert_int_equal(n, pos - batch_pos(seg, 0, 1));
        kq_writer_free(&w);
    }
}

static int count_cb(void *ctx, const uint8_t *batch, size_t len)
{
    (void)batch;
    (void)len;
    (*(int *)ctx)++;
    return 0;
}

static void test_scan_returns_ebadmsg(void **state)
{
    tu_fixture *f = *state;
    f->log = open_log(f, 1 << 20, 0, NULL);
    assert_non_null(f->log);
    for (int b = 0; b < 6; b++)
        append_one(f, 1, 20, b, 2);
    const char *seg = tu_seg_path(f->dir, 0, ".log");
    int n = 0;
    assert_int_equal(kq_log_scan(f->log, 0, count_cb, &n), 0);
    assert_int_equal(n, 6);
    flip_byte(seg, batch_pos(seg, 0, 4) + AT_EPOCH);
    n = 0;
    assert_int_equal(kq_log_scan(f->log, 0, count_cb, &n), -EBADMSG);
    assert_int_equal(n, 4); /* the batches before it were handed out */
}

/* A flip deep inside a segment below the recovery point, before its last
 * index entry, is not read at restart (that is the point of it); the first
 * read of that batch finds it. */
static void test_unscanned_corruption_found_by_read(void **state)
{
    tu_fixture *f = *state;
    make_log(f, 1 << 20, 40, 0, 1000);
    const char *seg = tu_seg_path(f->dir, 0, ".log");
    flip_byte(seg, batch_pos(seg, 0, 10) + AT_PAYLOAD);
    f->log = open_log(f, 1 << 20, 0, NULL);
    assert_non_null(f->log);
    kq_writer w;
    kq_writer_init(&w, 0);
    assert_int_equal(kq_log_read(f->log, 10, 11, 1, &w), -EBADMSG);
    assert_true(kq_log_read(f->log, 11, 12, 1, &w) > 0);
    kq_writer_free(&w);
}

/* ---- logs from before the file */

static void test_log_without_file(void **state)
{
    tu_fixture *f = *state;
    make_log(f, 1 << 20, 5, 0, 20);
    assert_int_equal(unlink(rp_path(f)), 0);
    const char *seg = tu_seg_path(f->dir, 0, ".log");
    long whole = tu_file_size(seg);
    flip_byte(seg, batch_pos(seg, 0, 4) + AT_PAYLOAD);
    /* as before: the last batch of the last segment may be a torn write */
    f->log = open_log(f, 1 << 20, 0, NULL);
    assert_non_null(f->log);
    assert_non_null(strstr(f->err, "truncated torn tail of"));
    assert_int_equal(kq_log_end_offset(f->log), 4);
    assert_true(tu_file_size(seg) < whole);
    assert_int_equal(kq_log_recovery_point(f->log), 4);
    assert_int_equal(tu_file_size(rp_path(f)), 2 * SLOT_BYTES);
    kq_log_close(f->log);
    f->log = NULL;
    /* and a batch before the tail still refuses */
    assert_int_equal(unlink(rp_path(f)), 0);
    flip_byte(seg, batch_pos(seg, 0, 1) + AT_PAYLOAD);
    f->log = open_log(f, 1 << 20, 0, NULL);
    assert_null(f->log);
    assert_non_null(strstr(f->err, "before the tail of the log; refusing"));
    assert_int_equal(tu_file_size(rp_path(f)), -1);
}

/* ---- restart reads from the recovery point only */

static void test_restart_reads_from_recovery_point(void **state)
{
    tu_fixture *f = *state;
    make_log(f, 256 << 10, 2000, 5, 1000); /* ~2 MB in 9 segments, 5 batches unflushed */
    uint64_t log_bytes = 0;
    for (int64_t b = 0; b < 2005; b++)
        if (tu_file_size(tu_seg_path(f->dir, b, ".log")) > 0)
            log_bytes += (uint64_t)tu_file_size(tu_seg_path(f->dir, b, ".log"));
    const kq_fs *fs = count_fs_init();
    f->log = open_log(f, 256 << 10, 0, fs);
    assert_non_null(f->log);
    assert_int_equal(kq_log_end_offset(f->log), 2005);
    uint64_t with_rp = g_count.pread_bytes;
    kq_log_close(f->log);
    f->log = NULL;
    assert_int_equal(unlink(rp_path(f)), 0);
    fs = count_fs_init();
    f->log = open_log(f, 256 << 10, 0, fs);
    assert_non_null(f->log);
    uint64_t without = g_count.pread_bytes;
    print_message("log %llu bytes; recovery read %llu bytes from the recovery point, %llu "
                  "without it\n",
                  (unsigned long long)log_bytes, (unsigned long long)with_rp,
                  (unsigned long long)without);
    assert_true(without >= log_bytes);
    /* the index files (8 bytes per 4 KiB), a tail walk per segment, the
     * unflushed batches */
    assert_true(with_rp < log_bytes / 20);
}

/* ---- when the file moves */

static void test_truncate_lowers_recovery_point_first(void **state)
{
    tu_fixture *f = *state;
    f->log = open_log(f, 1000, 0, NULL);
    assert_non_null(f->log);
    for (int i = 0; i < 30; i++)
        append_one(f, 1, 20, i, 1);
    tu_flush_all(f->log);
    kq_log_flush_job *job;
    assert_int_equal(kq_log_flush_begin(f->log, &job), 0);
    assert_null(job);
    assert_int_equal(kq_log_recovery_point(f->log), 30);
    assert_int_equal(kq_log_truncate(f->log, 7, f->err, sizeof f->err), 0);
    assert_int_equal(kq_log_recovery_point(f->log), 7);
    long len;
    uint8_t *d = slurp(rp_path(f), &len);
    assert_non_null(strstr((char *)d, "offset 7 start 0"));
    free(d);
    kq_log_close(f->log); /* records nothing new: 7 is the flushed offset */
    f->log = open_log(f, 1000, 0, NULL);
    assert_non_null(f->log);
    assert_string_equal(f->err, "");
    assert_int_equal(kq_log_end_offset(f->log), 7);
}

static void test_abandoned_job_publishes_nothing(void **state)
{
    tu_fixture *f = *state;
    f->log = open_log(f, 1 << 20, 0, NULL);
    assert_non_null(f->log);
    append_one(f, 1, 20, 0, 1);
    kq_log_flush_job *job;
    assert_int_equal(kq_log_flush_begin(f->log, &job), 0);
    assert_int_equal(kq_log_flush_end(f->log, job), 0); /* never ran */
    kq_log_close(f->log);
    f->log = NULL;
    f->log = open_log(f, 1 << 20, 0, NULL);
    assert_non_null(f->log);
    /* the close recorded 0, not 1: the batch was scanned, not trusted */
    assert_int_equal(kq_log_end_offset(f->log), 1);
}

/* The job fdatasyncs the recovery-point file every
 * KQ_LOG_RECOVERY_POINT_SYNC_JOBS jobs, and after a roll (with the sealed
 * .index); otherwise one fdatasync for the one dirty segment. */
static void test_recovery_point_sync_cadence(void **state)
{
    tu_fixture *f = *state;
    f->log = open_log(f, 1 << 20, 0, count_fs_init());
    assert_non_null(f->log);
    int extra = 0;
    for (int i = 0; i < 2 * KQ_LOG_RECOVERY_POINT_SYNC_JOBS; i++) {
        append_one(f, 1, 20, i, 1);
        g_count.fdatasyncs = 0;
        tu_flush_all(f->log);
        extra += g_count.fdatasyncs - 1;
    }
    assert_int_equal(extra, 2);
    kq_log_close(f->log);
    f->log = open_log(f, 300, 0, count_fs_init());
    assert_non_null(f->log);
    append_one(f, 1, 20, 0, 1);
    tu_flush_all(f->log);
    append_one(f, 1, 200, 1, 1); /* rolls */
    g_count.fdatasyncs = 0;
    tu_flush_all(f->log);
    /* the new segment, the sealed .index, the recovery point */
    assert_int_equal(g_count.fdatasyncs, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_file_format_and_when_written, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_torn_slot_and_corrupt_file, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_flips_below_recovery_point_refuse, tu_setup,
                                        tu_teardown),
        cmocka_unit_test_setup_teardown(test_flip_below_recovery_point_without_index, tu_setup,
                                        tu_teardown),
        cmocka_unit_test_setup_teardown(test_flips_above_recovery_point_truncate, tu_setup,
                                        tu_teardown),
        cmocka_unit_test_setup_teardown(test_torn_tail_after_roll, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_repair_cuts_and_declares, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_mutant_truncates_corruption, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_read_and_scan_return_ebadmsg, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_scan_returns_ebadmsg, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_unscanned_corruption_found_by_read, tu_setup,
                                        tu_teardown),
        cmocka_unit_test_setup_teardown(test_log_without_file, tu_setup, tu_teardown),
        cmocka_unit_test_setup_teardown(test_restart_reads_from_recovery_point, tu_setup,
                                        tu_teardown),
        cmocka_unit_test_setup_teardown(test_truncate_lowers_recovery_point_first, tu_setup,
                                        tu_teardown),
        cmocka_unit_test_setup_teardown(test_abandoned_job_publishes_nothing, tu_setup,
                                        tu_teardown),
        cmocka_unit_test_setup_teardown(test_recovery_point_sync_cadence, tu_setup, tu_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
