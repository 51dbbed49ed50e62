/* Runs of control batches in the committed-offsets table (issue 24,
 * include/kq/group_offsets.h "lag 0"): an offset in the trailing run of
 * control batches is answered the run's end, which grows with the control
 * batches committed and is fixed by the first data batch; offsets above the
 * log join when it reaches them through control batches; a commit below
 * the run inherits its key's fixed answer when it lies within it; the
 * commits answered without an append and their rules; the state survives
 * the view at the log end (what a snapshot holds) and a truncation; and a
 * random log applied in one step, in random steps, through snapshots and
 * through truncations gives the same answers, each the offset committed or
 * the end of a run of control batches after it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kq/group_offsets.h"
#include "kq/record.h"

#define TS_MS 1764600000000
#define TLOG_MAX 512
#define KEYS 4

static const char *const key_group[KEYS] = { "g0", "g1", "g2", "g3" };

static group_offset entry(const char *group, int64_t offset, const char *metadata)
{
    return (group_offset){ .group_id = group, .topic = "t", .partition = 0, .offset = offset,
                           .leader_epoch = 3, .metadata = metadata,
                           .commit_timestamp_ms = TS_MS + offset, .log_offset = -1 };
}

/* ---- a log of batches, replayed into tables */

typedef struct tbatch {
    uint8_t *data;
    size_t len;
    int64_t base, end;
    bool control;
    int tomb_key; /* the key an expiry tombstone names, -1: none */
} tbatch;

typedef struct tlog {
    tbatch b[TLOG_MAX];
    int n;
    int64_t end;
} tlog;

static void tlog_take(tlog *l, kq_writer *w, bool control)
{
    assert_true(l->n < TLOG_MAX);
    record_batch_header h;
    assert_int_equal(record_batch_parse_header(w->data, w->len, &h), RECORD_OK);
    record_batch_set_base_offset(w->data, l->end);
    int64_t n = record_batch_last_offset(&h) - h.base_offset + 1;
    l->b[l->n++] = (tbatch){ w->data, w->len, l->end, l->end + n, control, -1 };
    l->end += n;
}

static void tlog_free(tlog *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->b[i].data);
    memset(l, 0, sizeof(*l));
}

/* A batch of count records, data or a control batch of a type not ours. */
static void t_plain(tlog *l, int count, bool control)
{
    uint8_t key[4] = { 0, 0, 0, 2 };
    record recs[8];
    assert_true(count >= 1 && count <= 8);
    for (int i = 0; i < count; i++)
        recs[i] = (record){ .timestamp = TS_MS, .key = control ? (kq_slice){ key, 4 }
                                                              : (kq_slice){ NULL, -1 },
                            .value = { key, 4 } };
    record_batch_builder_args a = { .attributes = control ? RECORD_ATTR_CONTROL : 0,
                                    .base_timestamp = TS_MS, .producer_id = -1,
                                    .producer_epoch = -1, .base_sequence = -1,
                                    .records = recs, .record_count = count };
    kq_writer w;
    kq_writer_init(&w, 0);
    assert_true(record_batch_build(&w, &a));
    tlog_take(l, &w, control);
}

static void t_data(tlog *l, int count)
{
    t_plain(l, count, false);
}

static void t_ctl(tlog *l, int count)
{
    t_plain(l, count, true);
}

static void t_commit(tlog *l, const group_offset *e)
{
    kq_writer w;
    kq_writer_init(&w, 0);
    assert_true(group_offsets_build_batch(&w, e, 1, TS_MS));
    tlog_take(l, &w, true);
}

static void t_tomb(tlog *l, const group_offset *e)
{
    kq_writer w;
    kq_writer_init(&w, 0);
    assert_true(group_offsets_build_expire_batch(&w, e, 1, TS_MS));
    tlog_take(l, &w, true);
}

static void t_txn(tlog *l, int64_t pid, const group_offset *e)
{
    kq_writer w;
    kq_writer_init(&w, 0);
    assert_true(group_offsets_build_txn_batch(&w, e, 1, TS_MS, pid, 2));
    tlog_take(l, &w, true);
}

static void t_marker(tlog *l, int64_t pid, bool commit)
{
    uint8_t key[4] = { 0, 0, 0, commit ? 1 : 0 };
    uint8_t value[6] = { 0 };
    record rec = { .timestamp = TS_MS, .key = { key, 4 }, .value = { value, 6 } };
    record_batch_builder_args a = { .attributes = RECORD_ATTR_CONTROL | RECORD_ATTR_TRANSACTIONAL,
                                    .base_timestamp = TS_MS, .producer_id = pid,
                                    .producer_epoch = 2, .base_sequence = -1,
                                    .records = &rec, .record_count = 1 };
    kq_writer w;
    kq_writer_init(&w, 0);
    assert_true(record_batch_build(&w, &a));
    tlog_take(l, &w, true);
}

/* Notes batches [from, to) of l into o. */
static void replay(group_offsets *o, const tlog *l, int from, int to)
{
    for (int i = from; i < to; i++)
        assert_true(group_offsets_note_batches(o, l->b[i].data, l->b[i].len) >= 0);
}

static int64_t answer_of(const group_offsets *o, const char *g)
{
    group_offset out;
    return group_offsets_fetch(o, g, "t", 0, &out) ? out.offset : -100;
}

static int64_t raw_of(const group_offsets *o, const char *g)
{
    group_offset out;
    return group_offsets_get(o, g, "t", 0, &out) ? out.offset : -100;
}

static bool noop(const group_offsets *o, const char *g, int64_t offset, const char *metadata)
{
    group_offset e = entry(g, offset, metadata);
    return group_offsets_commit_is_noop(o, &e, INT64_MIN);
}

/* ---- the view at the log end, restored as a snapshot restores it */

typedef struct restore_ctx {
    group_offsets *to;
} restore_ctx;

static int restore_one(void *ctx, const group_offset *e, int64_t answer)
{
    restore_ctx *r = ctx;
    assert_true(group_offsets_restore_answer(r->to, e, answer));
    return 0;
}

static int restore_txn(void *ctx, int64_t producer_id, const group_offset *e)
{
    restore_ctx *r = ctx;
    assert_true(group_offsets_restore_txn(r->to, producer_id, e));
    return 0;
}

/* A table holding what a snapshot of o at the log end (end) holds. */
static group_offsets *snapshot_of(const group_offsets *o, int64_t end)
{
    group_offsets *t = group_offsets_create();
    assert_non_null(t);
    group_offsets_clear(t, end);
    assert_true(group_offsets_restore_run_start(t, group_offsets_run_start_at_end(o)));
    restore_ctx r = { t };
    assert_int_equal(group_offsets_foreach_at_end_runs(o, restore_one, &r), 0);
    assert_int_equal(group_offsets_foreach_txn(o, restore_txn, &r), 0);
    return t;
}

/* ---- behaviour */

/* A caught-up consumer: its commit lies in the run at the end; the run
 * grows with control batches and a data batch fixes its end. */
static void test_run_end(void **state)
{
    (void)state;
    tlog l = { 0 };
    t_ctl(&l, 1);  /* 0 */
    t_data(&l, 4); /* 1..4 */
    group_offset c = entry("g", 5, NULL);
    t_commit(&l, &c); /* 5: the consumer at the log end commits it */
    t_ctl(&l, 1);     /* 6 */
    group_offsets *o = group_offsets_create();
    replay(o, &l, 0, l.n);
    assert_int_equal(answer_of(o, "g"), -100);
    group_offsets_commit(o, 7);
    assert_int_equal(group_offsets_run_start(o), 5);
    assert_int_equal(answer_of(o, "g"), 7);
    assert_int_equal(raw_of(o, "g"), 5);
    group_offset out;
    assert_true(group_offsets_fetch(o, "g", "t", 0, &out));
    assert_int_equal(out.leader_epoch, -1); /* not the committed offset's */
    t_ctl(&l, 2); /* 7, 8 */
    replay(o, &l, l.n - 1, l.n);
    assert_int_equal(answer_of(o, "g"), 7); /* not committed yet */
    group_offsets_commit(o, 9);
    assert_int_equal(answer_of(o, "g"), 9);
    t_data(&l, 2); /* 9, 10 */
    t_ctl(&l, 1);  /* 11 */
    replay(o, &l, l.n - 2, l.n);
    group_offsets_commit(o, 10); /* inside the data batch: the run ended at 9 */
    assert_int_equal(answer_of(o, "g"), 9);
    assert_int_equal(group_offsets_run_start(o), 11);
    group_offsets_commit(o, 12);
    assert_int_equal(answer_of(o, "g"), 9); /* for good */
    /* The same offset committed again below the run: itself. */
    group_offset d = entry("h", 5, NULL);
    t_commit(&l, &d);
    replay(o, &l, l.n - 1, l.n);
    group_offsets_commit(o, 13);
    assert_int_equal(answer_of(o, "h"), 5);
    assert_true(group_offsets_fetch(o, "h", "t", 0, &out));
    assert_int_equal(out.leader_epoch, 3);
    group_offsets_destroy(o);
    tlog_free(&l);
}

/* An offset above the log is itself until the log reaches it: through
 * control batches it joins the run, inside a data batch it stays. */
static void test_offsets_above_the_log(void **state)
{
    (void)state;
    tlog l = { 0 };
    group_offset a = entry("a", 20, NULL), b = entry("b", 30, NULL), c = entry("c", 40, NULL);
    t_commit(&l, &a); /* 0 */
    t_commit(&l, &b); /* 1 */
    t_commit(&l, &c); /* 2 */
    group_offsets *o = group_offsets_create();
    replay(o, &l, 0, l.n);
    group_offsets_commit(o, 3);
    assert_int_equal(answer_of(o, "a"), 20);
    assert_int_equal(answer_of(o, "b"), 30);
    for (int i = 0; i < 6; i++)
        t_ctl(&l, 4); /* 3..26 */
    t_data(&l, 4);    /* 27..30 */
    t_data(&l, 4);    /* 31..34 */
    t_ctl(&l, 4);     /* 35..38 */
    t_data(&l, 2);    /* 39, 40 */
    t_ctl(&l, 1);     /* 41 */
    replay(o, &l, 3, l.n);
    group_offsets_commit(o, 21);
    assert_int_equal(answer_of(o, "a"), 21); /* reached through control batches */
    group_offsets_commit(o, 27);
    assert_int_equal(answer_of(o, "a"), 27);
    group_offsets_commit(o, l.end);
    assert_int_equal(answer_of(o, "a"), 27); /* fixed by the data at 27 */
    assert_int_equal(answer_of(o, "b"), 30); /* inside data */
    assert_int_equal(answer_of(o, "c"), 40); /* inside data */
    group_offsets_destroy(o);
    tlog_free(&l);
}

/* A commit below the run inherits its key's fixed answer when it lies
 * within [the previous offset, that answer]; else it is itself. */
static void test_inherited_answer(void **state)
{
    (void)state;
    tlog l = { 0 };
    t_data(&l, 2); /* 0, 1 */
    group_offset c = entry("g", 2, "m");
    t_commit(&l, &c); /* 2 */
    t_ctl(&l, 3);     /* 3..5 */
    t_data(&l, 2);    /* 6, 7 */
    group_offset d = entry("g", 4, "m"), e = entry("g", 7, "m"), f = entry("g", 1, "m");
    t_commit(&l, &d); /* 8: 4 within [2, 6] */
    group_offsets *o = group_offsets_create();
    replay(o, &l, 0, l.n);
    group_offsets_commit(o, 8);
    assert_int_equal(answer_of(o, "g"), 6);
    group_offsets_commit(o, 9);
    assert_int_equal(raw_of(o, "g"), 4);
    assert_int_equal(answer_of(o, "g"), 6);
    t_commit(&l, &e); /* 9: inside the data */
    t_commit(&l, &f); /* 10: a rewind */
    replay(o, &l, l.n - 2, l.n - 1);
    group_offsets_commit(o, 10);
    assert_int_equal(answer_of(o, "g"), 7);
    replay(o, &l, l.n - 1, l.n);
    group_offsets_commit(o, 11);
    assert_int_equal(answer_of(o, "g"), 1);
    group_offsets_destroy(o);
    tlog_free(&l);
}

/* The commits answered without an append: within the run (or the offset
 * already committed), the same metadata, fresh, nothing of the key
 * waiting. */
static void test_noop_rules(void **state)
{
    (void)state;
    tlog l = { 0 };
    t_data(&l, 5); /* 0..4 */
    group_offset c = entry("g", 5, NULL);
    t_commit(&l, &c); /* 5 */
    t_ctl(&l, 1);     /* 6 */
    group_offsets *o = group_offsets_create();
    replay(o, &l, 0, l.n);
    assert_false(noop(o, "g", 5, NULL)); /* not committed yet */
    group_offsets_commit(o, 7);
    assert_true(noop(o, "g", 5, NULL));
    assert_true(noop(o, "g", 6, NULL));
    assert_true(noop(o, "g", 7, ""));    /* null and "" alike */
    assert_false(noop(o, "g", 4, NULL)); /* inside the data */
    assert_false(noop(o, "g", 8, NULL)); /* beyond the committed log */
    assert_false(noop(o, "g", 6, "m"));  /* other metadata */
    assert_false(noop(o, "x", 6, NULL)); /* no offset */
    group_offset fresh = entry("g", 6, NULL);
    assert_false(group_offsets_commit_is_noop(o, &fresh, TS_MS + 6)); /* committed before */
    assert_true(group_offsets_commit_is_noop(o, &fresh, TS_MS + 5));
    /* Another key pending: no matter; this key pending: append. */
    group_offset other = entry("h", 1, NULL), again = entry("g", 6, NULL);
    t_commit(&l, &other); /* 7 */
    replay(o, &l, l.n - 1, l.n);
    assert_true(noop(o, "g", 6, NULL));
    t_commit(&l, &again); /* 8 */
    replay(o, &l, l.n - 1, l.n);
    assert_false(noop(o, "g", 6, NULL));
    group_offsets_commit(o, 9);
    assert_true(noop(o, "g", 9, NULL)); /* [run start 5, 9] */
    /* A transaction's commit of the key stashed: append. */
    group_offset txn = entry("g", 7, NULL);
    t_txn(&l, 77, &txn); /* 9 */
    replay(o, &l, l.n - 1, l.n);
    group_offsets_commit(o, 10);
    assert_false(noop(o, "g", 9, NULL));
    t_marker(&l, 77, false); /* 10: aborted */
    replay(o, &l, l.n - 1, l.n);
    group_offsets_commit(o, 11);
    assert_true(noop(o, "g", 11, NULL));
    /* A data batch: the offset's answer fixed at 11; the same offset, or one
     * within [6, 11], still stands for it. */
    t_data(&l, 1); /* 11 */
    replay(o, &l, l.n - 1, l.n);
    group_offsets_commit(o, 12);
    assert_int_equal(answer_of(o, "g"), 11);
    assert_true(noop(o, "g", 6, NULL));
    assert_true(noop(o, "g", 11, NULL));
    assert_false(noop(o, "g", 5, NULL));
    assert_false(noop(o, "g", 12, NULL));
    group_offsets_destroy(o);
    tlog_free(&l);
}

/* The view at the log end (what a snapshot holds) answers as the table
 * once everything noted is committed: pending data and commits included. */
static void test_view_at_end(void **state)
{
    (void)state;
    tlog l = { 0 };
    t_data(&l, 3); /* 0..2 */
    group_offset a = entry("a", 3, NULL), b = entry("b", 1, NULL), c = entry("c", 9, NULL);
    t_commit(&l, &a); /* 3 */
    t_commit(&l, &b); /* 4 */
    t_ctl(&l, 2);     /* 5, 6 */
    group_offsets *o = group_offsets_create();
    replay(o, &l, 0, l.n);
    group_offsets_commit(o, l.end);
    t_commit(&l, &c); /* 7 */
    t_ctl(&l, 1);     /* 8 */
    t_data(&l, 1);    /* 9 */
    t_ctl(&l, 2);     /* 10, 11 */
    replay(o, &l, 4, l.n);
    group_offsets *s = snapshot_of(o, l.end);
    assert_int_equal(group_offsets_run_start(s), 10);
    group_offsets_commit(o, l.end);
    for (int k = 0; k < 3; k++) {
        const char *g = (const char *[]){ "a", "b", "c" }[k];
        assert_int_equal(answer_of(s, g), answer_of(o, g));
        assert_int_equal(raw_of(s, g), raw_of(o, g));
    }
    assert_int_equal(answer_of(o, "a"), 9);
    assert_int_equal(answer_of(o, "b"), 1);
    assert_int_equal(answer_of(o, "c"), 9); /* inside the data */
    /* Both go on alike. */
    group_offset d = entry("d", 11, NULL);
    t_commit(&l, &d); /* 12 */
    t_ctl(&l, 1);     /* 13 */
    replay(o, &l, l.n - 2, l.n);
    replay(s, &l, l.n - 2, l.n);
    group_offsets_commit(o, l.end);
    group_offsets_commit(s, l.end);
    assert_int_equal(answer_of(o, "d"), 14);
    assert_int_equal(answer_of(s, "d"), 14);
    group_offsets_destroy(s);
    group_offsets_destroy(o);
    tlog_free(&l);
}

/* A truncation drops the data batches noted above the cut: the run goes
 * on through what the log holds instead. */
static void test_truncation(void **state)
{
    (void)state;
    tlog l = { 0 }, other = { 0 };
    t_data(&l, 2); /* 0, 1 */
    group_offset a = entry("a", 2, NULL);
    t_commit(&l, &a); /* 2 */
    group_offsets *o = group_offsets_create();
    replay(o, &l, 0, l.n);
    group_offsets_commit(o, 3);
    assert_int_equal(answer_of(o, "a"), 3);
    /* Another leader's data at 3 and 4, cut. */
    other.end = 3;
    t_data(&other, 2);
    replay(o, &other, 0, other.n);
    group_offsets_truncate(o, 3);
    t_ctl(&l, 2); /* 3, 4 */
    replay(o, &l, l.n - 1, l.n);
    group_offsets_commit(o, 5);
    assert_int_equal(answer_of(o, "a"), 5);
    /* Data noted, then cut inside a run of data batches. */
    t_data(&other, 1); /* at 5 */
    replay(o, &other, other.n - 1, other.n);
    group_offsets_truncate(o, 5);
    group_offsets_commit(o, 5);
    assert_int_equal(group_offsets_run_start(o), 2);
    assert_int_equal(answer_of(o, "a"), 5);
    group_offsets_destroy(o);
    tlog_free(&l);
    tlog_free(&other);
}

/* ---- a random log, applied many ways */

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t next(rng *r)
{
    r->s = r->s * 6364136223846793005ull + 1442695040888963407ull;
    return r->s >> 33;
}

static uint64_t below(rng *r, uint64_t n)
{
    return next(r) % n;
}

typedef struct gen {
    rng r;
    tlog l;
    group_offset last[KEYS]; /* each key's newest commit in the log (offset -100: none) */
    bool stashed[KEYS];
    int64_t ts;
} gen;

static int64_t pick_offset(gen *g, int k)
{
    int64_t end = g->l.end;
    switch (below(&g->r, 6)) {
    case 0:
        return end; /* a caught-up consumer */
    case 1:
        return end > 3 ? end - (int64_t)below(&g->r, 4) : end;
    case 2:
        return end + (int64_t)below(&g->r, 8); /* above the log */
    case 3:
        return g->last[k].offset >= 0 ? g->last[k].offset + (int64_t)below(&g->r, 3) : end;
    case 4:
        return (int64_t)below(&g->r, (uint64_t)end + 1);
    default:
        return g->last[k].offset >= 0 ? g->last[k].offset : end;
    }
}

static void gen_step(gen *g)
{
    int k = (int)below(&g->r, KEYS);
    uint64_t what = below(&g->r, 20);
    if (what < 5) {
        t_data(&g->l, 1 + (int)below(&g->r, 3));
    } else if (what < 8) {
        t_ctl(&g->l, 1 + (int)below(&g->r, 2));
    } else if (what < 16) {
        group_offset e = entry(key_group[k], pick_offset(g, k), below(&g->r, 4) ? NULL : "m");
        e.commit_timestamp_ms = ++g->ts;
        t_commit(&g->l, &e);
        g->last[k] = e;
        if (getenv("RUN_DEBUG"))
            fprintf(stderr, "commit %s %lld ts %lld at %lld\n", e.group_id, (long long)e.offset,
                    (long long)(e.commit_timestamp_ms - TS_MS), (long long)g->l.end - 1);
    } else if (what < 18 && g->last[k].offset >= 0) {
        t_tomb(&g->l, &g->last[k]); /* applies unless a newer one came */
        g->l.b[g->l.n - 1].tomb_key = k;
        if (getenv("RUN_DEBUG"))
            fprintf(stderr, "tomb %s %lld at %lld\n", key_group[k],
                    (long long)g->last[k].offset, (long long)g->l.end - 1);
    } else if (what == 18 && !g->stashed[k]) {
        group_offset e = entry(key_group[k], pick_offset(g, k), NULL);
        e.commit_timestamp_ms = ++g->ts;
        t_txn(&g->l, 100 + k, &e);
        g->stashed[k] = true;
        if (getenv("RUN_DEBUG"))
            fprintf(stderr, "txn %s %lld at %lld\n", key_group[k], (long long)e.offset,
                    (long long)g->l.end - 1);
    } else if (g->stashed[k]) {
        bool commit = below(&g->r, 3) != 0;
        t_marker(&g->l, 100 + k, commit);
        g->stashed[k] = false;
        if (getenv("RUN_DEBUG"))
            fprintf(stderr, "marker %s %s at %lld\n", key_group[k], commit ? "commit" : "abort",
                    (long long)g->l.end - 1);
    } else {
        t_ctl(&g->l, 1);
    }
}

/* Whether answer is the committed offset c or the end of a run of control
 * batches of l starting at or before c (a batch boundary, at most end). */
static bool answer_valid(const tlog *l, int64_t c, int64_t answer, int64_t end)
{
    if (answer == c)
        return true;
    if (answer < c || answer > end)
        return false;
    for (int i = 0; i < l->n && l->b[i].base < answer; i++) {
        if (l->b[i].end <= c)
            continue;
        if (!l->b[i].control || l->b[i].end > answer)
            return false;
    }
    return true;
}

static void compare(const group_offsets *a, const group_offsets *b)
{
    for (int k = 0; k < KEYS; k++) {
        assert_int_equal(answer_of(a, key_group[k]), answer_of(b, key_group[k]));
        assert_int_equal(raw_of(a, key_group[k]), raw_of(b, key_group[k]));
    }
}

/* One log: in one step (a), in random steps (b), through a snapshot at a
 * random log end (c), through a truncation of a foreign suffix (d). */
static void run_one(uint64_t seed)
{
    gen g = { .r = { seed }, .ts = TS_MS };
    for (int k = 0; k < KEYS; k++)
        g.last[k].offset = -100;
    int steps = 40 + (int)below(&g.r, 200);
    for (int i = 0; i < steps; i++)
        gen_step(&g);
    const tlog *l = &g.l;
    if (getenv("RUN_DEBUG"))
        for (int i = 0; i < l->n; i++)
            fprintf(stderr, "batch %d: [%lld, %lld) %s\n", i, (long long)l->b[i].base,
                    (long long)l->b[i].end, l->b[i].control ? "control" : "data");
    group_offsets *a = group_offsets_create(), *b = group_offsets_create();
    group_offsets *c = group_offsets_create(), *d = group_offsets_create();
    replay(a, l, 0, l->n);
    group_offsets_commit(a, l->end);
    int cut = (int)below(&g.r, (uint64_t)l->n + 1), trunc = (int)below(&g.r, (uint64_t)l->n + 1);
    int64_t prev_raw[KEYS], prev_answer[KEYS];
    for (int k = 0; k < KEYS; k++)
        prev_raw[k] = prev_answer[k] = -100;
    for (int i = 0; i < l->n; i++) {
        replay(b, l, i, i + 1);
        if (below(&g.r, 3) == 0) { /* never beyond what it holds */
            int64_t hw = l->b[i].base + (int64_t)below(&g.r, 3);
            group_offsets_commit(b, hw < l->b[i].end ? hw : l->b[i].end);
        }
        if (i == cut) { /* c: a snapshot of b's log end */
            group_offsets *s = snapshot_of(b, l->b[i].end);
            group_offsets_destroy(c);
            c = s;
        } else if (i > cut) {
            replay(c, l, i, i + 1);
            if (below(&g.r, 2))
                group_offsets_commit(c, l->b[i].end);
        }
        if (i == trunc) { /* d: a foreign suffix noted, then cut */
            tlog f = { .end = l->b[i].base };
            t_data(&f, 2);
            group_offset x = entry(key_group[0], 1, "x");
            t_commit(&f, &x);
            replay(d, &f, 0, f.n);
            group_offsets_truncate(d, l->b[i].base);
            tlog_free(&f);
        }
        replay(d, l, i, i + 1);
        group_offsets_commit(d, l->b[i].base); /* only what precedes it: batch i - 1 */
        /* One batch at a time: a key's offset not lower than before, its
         * answer not lower either (unless expired meanwhile). */
        for (int k = 0; k < KEYS; k++) {
            int64_t raw = raw_of(d, key_group[k]), answer = answer_of(d, key_group[k]);
            if (i > 0 && l->b[i - 1].tomb_key == k)
                prev_raw[k] = -100;
            if (raw != -100 && prev_raw[k] != -100 && raw >= prev_raw[k] &&
                answer < prev_answer[k]) {
                fprintf(stderr, "seed %llu key %d batch %d: %lld answered %lld, then %lld "
                        "answered %lld\n", (unsigned long long)seed, k, i,
                        (long long)prev_raw[k], (long long)prev_answer[k], (long long)raw,
                        (long long)answer);
                fail();
            }
            prev_raw[k] = raw;
            prev_answer[k] = answer;
        }
    }
    if (cut == l->n) {
        group_offsets_destroy(c);
        c = snapshot_of(b, l->end);
    }
    group_offsets_commit(b, l->end);
    group_offsets_commit(c, l->end);
    group_offsets_commit(d, l->end);
    compare(a, b);
    compare(a, c);
    compare(a, d);
    for (int k = 0; k < KEYS; k++) {
        int64_t raw = raw_of(a, key_group[k]), answer = answer_of(a, key_group[k]);
        if (raw != -100 && !answer_valid(l, raw, answer, l->end)) {
            fprintf(stderr, "seed %llu key %d: committed %lld answered %lld\n",
                    (unsigned long long)seed, k, (long long)raw, (long long)answer);
            fail();
        }
    }
    group_offsets_destroy(a);
    group_offsets_destroy(b);
    group_offsets_destroy(c);
    group_offsets_destroy(d);
    tlog_free(&g.l);
}

static void test_random_logs_agree(void **state)
{
    (void)state;
    const char *only = getenv("RUN_SEED"); /* one seed, with RUN_DEBUG its log */
    for (uint64_t seed = 1; seed <= 400; seed++)
        if (!only || strtoull(only, NULL, 10) == seed)
            run_one(seed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_end),
        cmocka_unit_test(test_offsets_above_the_log),
        cmocka_unit_test(test_inherited_answer),
        cmocka_unit_test(test_noop_rules),
        cmocka_unit_test(test_view_at_end),
        cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_random_logs_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
