/* Crash orders of kq_log_advance_start and kq_log_reset on the simulator's
 * file system (tests/sim/sim_fs.h): the operation is cut off after its
 * n-th mutating file call (every later call fails, as after a crash), for
 * every n until it completes, then power is lost (the durable image plus a
 * random prefix of what was not synced) and the log reopened. Open must
 * succeed and give: for advance_start, the same batches from the old or
 * the new start; for reset, a prefix of the old log from its start, or the
 * empty log at the reset offset (never an old batch at or above it). The
 * reopened log must then take appends and survive another reopen.
 * Snapshot files likewise: after a crash at any step of a whole-file write
 * or a transfer's commit, the listing (removing leftovers) shows no
 * snapshot or the complete one, and no .part remains. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/buf.h"
#include "kq/log.h"
#include "kq/snapshot_file.h"
#include "kq/record.h"
#include "prng.h"
#include "sim_fs.h"

#define LOSS_SEEDS 3
#define STEPS_MAX 400

/* ---- a kq_fs that dies after a budget of mutating calls */

typedef struct crash_fs {
    kq_fs table;
    const kq_fs *in;
    long budget; /* mutating calls left; < 0: unlimited */
    bool dead;
} crash_fs;

static bool spend(crash_fs *c)
{
    if (c->dead)
        return false;
    if (c->budget == 0) {
        c->dead = true;
        return false;
    }
    if (c->budget > 0)
        c->budget--;
    return true;
}

#define IN(c) ((crash_fs *)(c))->in
static int c_open(void *c, const char *p, unsigned fl)
{
    if (((crash_fs *)c)->dead || ((fl & (KQ_FS_CREATE | KQ_FS_TRUNC)) && !spend(c)))
        return -EIO;
    return IN(c)->open(IN(c)->ctx, p, fl);
}
static int c_dup(void *c, int fd) { return IN(c)->dup(IN(c)->ctx, fd); }
static int c_close(void *c, int fd) { return IN(c)->close(IN(c)->ctx, fd); }
static ssize_t c_pread(void *c, int fd, void *b, size_t l, uint64_t pos)
{
    return ((crash_fs *)c)->dead ? -EIO : IN(c)->pread(IN(c)->ctx, fd, b, l, pos);
}
static ssize_t c_pwrite(void *c, int fd, const void *b, size_t l, uint64_t pos)
{
    return spend(c) ? IN(c)->pwrite(IN(c)->ctx, fd, b, l, pos) : -EIO;
}
static int c_fdatasync(void *c, int fd)
{
    return spend(c) ? IN(c)->fdatasync(IN(c)->ctx, fd) : -EIO;
}
static int c_ftruncate(void *c, int fd, uint64_t s)
{
    return spend(c) ? IN(c)->ftruncate(IN(c)->ctx, fd, s) : -EIO;
}
static int c_size(void *c, int fd, uint64_t *s)
{
    return ((crash_fs *)c)->dead ? -EIO : IN(c)->size(IN(c)->ctx, fd, s);
}
static int c_rename(void *c, const char *a, const char *b)
{
    return spend(c) ? IN(c)->rename(IN(c)->ctx, a, b) : -EIO;
}
static int c_unlink(void *c, const char *p) { return spend(c) ? IN(c)->unlink(IN(c)->ctx, p) : -EIO; }
static int c_mkdir(void *c, const char *p) { return spend(c) ? IN(c)->mkdir(IN(c)->ctx, p) : -EIO; }
static int c_list_dir(void *c, const char *p, kq_fs_dir_fn fn, void *arg)
{
    return ((crash_fs *)c)->dead ? -EIO : IN(c)->list_dir(IN(c)->ctx, p, fn, arg);
}
static int c_fsync_dir(void *c, const char *p)
{
    return spend(c) ? IN(c)->fsync_dir(IN(c)->ctx, p) : -EIO;
}

static void crash_fs_init(crash_fs *c, const kq_fs *in)
{
    *c = (crash_fs){.in = in, .budget = -1};
    c->table = (kq_fs){c, c_open, c_dup, c_close, c_pread, c_pwrite, c_fdatasync, c_ftruncate,
                       c_size, c_rename, c_unlink, c_mkdir, c_list_dir, c_fsync_dir};
}

/* ---- log helpers */

static kq_log *open_on(const kq_fs *fs, char *err, size_t errlen)
{
    kq_log_options o = {.fs = fs, .log_dir = "/node/data", .segment_bytes = 1024};
    return kq_log_open_with(&o, err, errlen);
}

static void append_some(kq_log *log, sim_prng *p, int count, int32_t epoch)
{
    char err[512];
    for (int i = 0; i < count; i++) {
        record recs[3];
        static uint8_t vals[3][300];
        int n = 1 + (int)sim_prng_below(p, 3);
        size_t vs = 20 + (size_t)sim_prng_below(p, 280);
        for (int r = 0; r < n; r++) {
            memset(vals[r], (int)sim_prng_below(p, 256), vs);
            memset(&recs[r], 0, sizeof recs[r]);
            recs[r].key.len = -1;
            recs[r].value.ptr = vals[r];
            recs[r].value.len = (int32_t)vs;
        }
        record_batch_builder_args a = {.partition_leader_epoch = -1,
                                       .base_timestamp = 1600000000000,
                                       .producer_id = -1,
                                       .producer_epoch = -1,
                                       .base_sequence = -1,
                                       .records = recs,
                                       .record_count = n};
        kq_writer w;
        kq_writer_init(&w, 0);
        assert_true(record_batch_build(&w, &a));
        assert_int_equal(kq_log_append(log, w.data, w.len, kq_log_end_offset(log), epoch, err,
                                       sizeof err), 0);
        kq_writer_free(&w);
    }
}

static void flush_log(kq_log *log)
{
    kq_log_flush_job *job = NULL;
    assert_int_equal(kq_log_flush_begin(log, &job), 0);
    if (!job)
        return;
    assert_int_equal(kq_log_flush_run(job), 0);
    kq_log_flush_end(log, job);
}

static int collect_cb(void *ctx, const uint8_t *batch, size_t len)
{
    kq_write_raw(ctx, batch, len);
    return 0;
}

/* Every batch of the log from its start. */
static void log_bytes(kq_log *log, kq_writer *out)
{
    kq_writer_init(out, 0);
    assert_int_equal(kq_log_scan(log, 0, collect_cb, out), 0);
}

static int64_t be64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return (int64_t)v;
}

/* Position in a log_bytes image of the batch based at offset (or its end). */
static size_t pos_of(const kq_writer *img, int64_t offset)
{
    size_t pos = 0;
    while (pos + 12 <= img->len && be64(img->data + pos) < offset)
        pos += 12 + (size_t)(uint32_t)be64(img->data + pos + 4);
    return pos;
}

/* The i-th batch base of an image (or -1). */
static int64_t base_at(const kq_writer *img, int i)
{
    size_t pos = 0;
    for (; i > 0 && pos + 12 <= img->len; i--)
        pos += 12 + (size_t)(uint32_t)be64(img->data + pos + 4);
    return pos + 12 <= img->len ? be64(img->data + pos) : -1;
}

/* ---- one crash */

enum op_kind { OP_ADVANCE, OP_RESET };

typedef struct scenario {
    uint64_t seed;
    bool pre_advance;  /* the log start already above the first segment */
    enum op_kind op;
    int target_kind;   /* which offset the operation gets */
    bool tail;         /* an unflushed tail when the operation starts */
} scenario;

typedef struct before {
    int64_t start, end, flushed;
    kq_writer img;
} before;

/* Builds the log on fs through c; returns it and what it held. */
static kq_log *build(sim_fs *fs, crash_fs *c, const scenario *s, sim_prng *p, before *b)
{
    char err[1024];
    crash_fs_init(c, sim_fs_table(fs));
    kq_log *log = open_on(&c->table, err, sizeof err);
    assert_non_null(log);
    for (int round = 0; round < 4; round++) {
        append_some(log, p, 3 + (int)sim_prng_below(p, 5), 1 + round);
        flush_log(log);
    }
    if (s->pre_advance) {
        kq_writer img;
        log_bytes(log, &img);
        assert_int_equal(kq_log_advance_start(log, base_at(&img, 4), err, sizeof err), 0);
        kq_writer_free(&img);
    }
    b->flushed = kq_log_flushed_offset(log);
    if (s->tail)
        append_some(log, p, 1 + (int)sim_prng_below(p, 4), 9);
    b->start = kq_log_start_offset(log);
    b->end = kq_log_end_offset(log);
    log_bytes(log, &b->img);
    return log;
}

static int64_t target_of(const scenario *s, const before *b)
{
    int64_t mid = base_at(&b->img, 6);
    switch (s->target_kind) {
    case 0: return mid;                        /* a boundary inside the log */
    case 1: return s->op == OP_RESET ? b->end : b->flushed; /* the (flushed) end */
    case 2: return s->op == OP_RESET ? b->end + 37 : base_at(&b->img, 2);
    case 3: return s->op == OP_RESET ? mid + 1 : base_at(&b->img, 9);
    default: return s->op == OP_RESET ? (b->start > 3 ? 3 : 0) : mid;
    }
}

static void check_after(kq_log *log, const scenario *s, const before *b, int64_t target)
{
    int64_t start = kq_log_start_offset(log), end = kq_log_end_offset(log);
    kq_writer img;
    log_bytes(log, &img);
    if (s->op == OP_ADVANCE) {
        assert_true(start == b->start || start == target);
        assert_true(end >= b->flushed && end <= b->end);
    } else if (start == target && !(target == b->start && end > start)) {
        assert_int_equal(end, target); /* the new, empty log */
    } else {
        assert_int_equal(start, b->start); /* the old log, a prefix of it */
        assert_true(end <= b->end);
    }
    size_t from = pos_of(&b->img, start);
    assert_true(from + img.len <= b->img.len);
    assert_memory_equal(img.data, b->img.data + from, img.len);
    kq_writer_free(&img);
}

/* Cuts the operation off after n mutating calls; true if it completed. */
static bool crash_at(const scenario *s, long n, uint64_t loss_seed)
{
    char err[1024];
    sim_prng p;
    sim_prng_seed(&p, s->seed);
    sim_fs *fs = sim_fs_create();
    crash_fs c;
    before b;
    kq_log *log = build(fs, &c, s, &p, &b);
    int64_t target = target_of(s, &b);
    c.budget = n;
    int rc = s->op == OP_ADVANCE ? kq_log_advance_start(log, target, err, sizeof err)
                                 : kq_log_reset(log, target, err, sizeof err);
    bool completed = !c.dead;
    if (completed)
        assert_int_equal(rc, 0);
    sim_prng_seed(&p, loss_seed);
    sim_fs_power_loss(fs, &p);
    kq_log_abandon(log);
    log = open_on(sim_fs_table(fs), err, sizeof err);
    if (!log)
        fail_msg("seed %llu op %d kind %d pre %d step %ld: open refused: %s",
                 (unsigned long long)s->seed, s->op, s->target_kind, s->pre_advance, n, err);
    check_after(log, s, &b, target);
    if (completed && s->op == OP_RESET) {
        assert_int_equal(kq_log_start_offset(log), target);
        assert_int_equal(kq_log_end_offset(log), target);
    }
    append_some(log, &p, 2, 9);
    flush_log(log);
    int64_t end = kq_log_end_offset(log);
    kq_log_close(log);
    log = open_on(sim_fs_table(fs), err, sizeof err);
    assert_non_null(log);
    assert_int_equal(kq_log_end_offset(log), end);
    kq_log_close(log);
    kq_writer_free(&b.img);
    assert_int_equal(sim_fs_open_fds(fs), 0);
    sim_fs_destroy(fs);
    return completed;
}

static void every_step(const scenario *s)
{
    for (long n = 0; n < STEPS_MAX; n++) {
        bool done = false;
        for (uint64_t k = 0; k < LOSS_SEEDS; k++)
            done = crash_at(s, n, s->seed * 1000 + (uint64_t)n * 10 + k);
        if (done)
            return;
    }
    fail_msg("the operation did not complete within %d mutating calls", STEPS_MAX);
}

static void run_all(enum op_kind op)
{
    for (uint64_t seed = 1; seed <= 4; seed++)
        for (int kind = 0; kind < 5; kind++)
            for (int pre = 0; pre < 4; pre++) {
                scenario s = {.seed = seed,
                              .pre_advance = pre & 1,
                              .op = op,
                              .target_kind = kind,
                              .tail = pre & 2};
                every_step(&s);
            }
}

static void test_advance_start_crashes(void **state)
{
    (void)state;
    run_all(OP_ADVANCE);
}

static void test_reset_crashes(void **state)
{
    (void)state;
    run_all(OP_RESET);
}

/* ---- snapshot files */

#define SNAP_BYTES 5000

static void make_dirs(const kq_fs *t)
{
    const char *dirs[] = {"/node", "/node/data", ("/node/data/" KQ_LOG_PARTITION_DIR)};
    const char *parents[] = {"/", "/node", "/node/data"};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(t->mkdir(t->ctx, dirs[i]), 0);
        assert_int_equal(t->fsync_dir(t->ctx, parents[i]), 0);
    }
}

static int part_cb(void *arg, const sim_fs_file_info *info)
{
    (void)arg;
    return strstr(info->path, ".part") != NULL;
}

/* One crash after n mutating calls of a write (transfer: of the commit). */
static bool snapshot_crash_at(long n, bool transfer, uint64_t loss_seed)
{
    char err[512];
    static uint8_t data[SNAP_BYTES];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i * 7 + 3);
    raft_snapshot_id id = {.end_offset = 120, .epoch = 4};
    sim_fs *fs = sim_fs_create();
    crash_fs c;
    crash_fs_init(&c, sim_fs_table(fs));
    make_dirs(&c.table);
    if (transfer)
        for (size_t pos = 0; pos < SNAP_BYTES; pos += 1000)
            assert_int_equal(kq_snapshot_part_write(&c.table, "/node/data", id, (int64_t)pos,
                                                    data + pos, 1000, err, sizeof err), 0);
    c.budget = n;
    int rc = transfer ? kq_snapshot_part_commit(&c.table, "/node/data", id, err, sizeof err)
                      : kq_snapshot_write_file(&c.table, "/node/data", id, data, SNAP_BYTES, err,
                                               sizeof err);
    bool completed = !c.dead;
    if (completed)
        assert_int_equal(rc, 0);
    sim_prng p;
    sim_prng_seed(&p, loss_seed);
    sim_fs_power_loss(fs, &p);
    raft_snapshot_id ids[4];
    int found = kq_snapshot_list(sim_fs_table(fs), "/node/data", ids, 4, true);
    assert_true(found == 0 || found == 1);
    if (completed)
        assert_int_equal(found, 1); /* durable once it returned */
    if (found == 1) {
        uint8_t *got;
        size_t len;
        assert_int_equal(ids[0].end_offset, 120);
        assert_int_equal(kq_snapshot_read_all(sim_fs_table(fs), "/node/data", ids[0], &got, &len,
                                              SNAP_BYTES),
                         0);
        assert_int_equal(len, SNAP_BYTES);
        assert_memory_equal(got, data, SNAP_BYTES);
        free(got);
    }
    assert_int_equal(sim_fs_list(fs, part_cb, NULL), 0);
    assert_int_equal(sim_fs_open_fds(fs), 0);
    sim_fs_destroy(fs);
    return completed;
}

static void test_snapshot_file_crashes(void **state)
{
    (void)state;
    for (int transfer = 0; transfer < 2; transfer++)
        for (long n = 0;; n++) {
            bool done = false;
            for (uint64_t k = 0; k < 8; k++)
                done = snapshot_crash_at(n, transfer, (uint64_t)n * 100 + k);
            if (done)
                break;
            assert_true(n < STEPS_MAX);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_advance_start_crashes),
        cmocka_unit_test(test_reset_crashes),
        cmocka_unit_test(test_snapshot_file_crashes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
