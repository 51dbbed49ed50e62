/* Snapshot files with runs of control batches (issue 24, src/storage/FORMAT.md
 * "kq.offset-run", "kq.group-offset-end"): a table whose offsets lie in the
 * trailing run, were fixed at a run's end, lie above the log, or wait as
 * pending commits and data batches comes back answering alike, and goes on
 * alike; crafted records refused (out of order, twice, out of range, an
 * answer not above its offset or beyond the end, truncated); a file
 * without kq.offset-run starts the run at its end. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/group_offset_codec.h"
#include "kq/group_offsets.h"
#include "kq/record.h"
#include "kq/snapshot_state.h"
#include "snapshot_internal.h"

#define ERR_BYTES 256
#define TS_MS 1764600000000

static group_offset entry(const char *group, int64_t offset)
{
    return (group_offset){ .group_id = group, .topic = "t", .partition = 0, .offset = offset,
                           .leader_epoch = 2, .metadata = NULL,
                           .commit_timestamp_ms = TS_MS + offset, .log_offset = -1 };
}

/* Notes one batch at base: data or control records (count), or a commit. */
static int64_t note_plain(group_offsets *o, int64_t base, int count, bool control)
{
    uint8_t key[4] = { 0, 0, 0, 2 };
    record recs[4];
    for (int i = 0; i < count; i++)
        recs[i] = (record){ .timestamp = TS_MS, .key = control ? (kq_slice){ key, 4 }
                                                              : (kq_slice){ NULL, -1 },
                            .value = { key, 4 } };
    record_batch_builder_args a = { .base_offset = base,
                                    .attributes = control ? RECORD_ATTR_CONTROL : 0,
                                    .base_timestamp = TS_MS, .producer_id = -1,
                                    .producer_epoch = -1, .base_sequence = -1,
                                    .records = recs, .record_count = count };
    kq_writer w;
    kq_writer_init(&w, 0);
    assert_true(record_batch_build(&w, &a));
    assert_int_equal(group_offsets_note_batches(o, w.data, w.len), 0);
    kq_writer_free(&w);
    return base + count;
}

static int64_t note_commit(group_offsets *o, int64_t base, const char *group, int64_t offset)
{
    group_offset e = entry(group, offset);
    kq_writer w;
    kq_writer_init(&w, 0);
    assert_true(group_offsets_build_batch(&w, &e, 1, TS_MS));
    record_batch_set_base_offset(w.data, base);
    assert_int_equal(group_offsets_note_batches(o, w.data, w.len), 1);
    kq_writer_free(&w);
    return base + 1;
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

static const char *const groups[] = { "member", "fixed", "itself", "above", "pending",
                                      "pending-fixed" };
#define GROUPS 6

static void sample_meta(kq_snapshot_meta *m, int64_t end_offset)
{
    memset(m, 0, sizeof(*m));
    m->id = (raft_snapshot_id){ end_offset, 3 };
    m->last_contained_timestamp_ms = TS_MS;
    m->voter_count = 1;
    m->voter_ids[0] = 1;
}

static void assert_alike(const group_offsets *a, const group_offsets *b)
{
    for (int i = 0; i < GROUPS; i++) {
        assert_int_equal(answer_of(a, groups[i]), answer_of(b, groups[i]));
        assert_int_equal(raw_of(a, groups[i]), raw_of(b, groups[i]));
    }
}

static void test_round_trip(void **state)
{
    (void)state;
    group_offsets *a = group_offsets_create();
    int64_t at = note_plain(a, 0, 3, false);  /* data 0..2 */
    at = note_commit(a, at, "fixed", 3);      /* 3 */
    at = note_commit(a, at, "itself", 1);     /* 4: inside the data */
    at = note_plain(a, at, 2, true);          /* 5, 6 */
    at = note_plain(a, at, 1, false);         /* 7: fixes "fixed" at 7 */
    at = note_commit(a, at, "member", 8);     /* 8 */
    at = note_commit(a, at, "above", 40);     /* 9 */
    group_offsets_commit(a, at);
    at = note_commit(a, at, "pending", 9);    /* 10: pending, in the run */
    at = note_commit(a, at, "pending-fixed", 11); /* 11 */
    at = note_plain(a, at, 1, true);          /* 12 */
    at = note_plain(a, at, 2, false);         /* 13, 14: pending data, fixes them at 13 */
    at = note_plain(a, at, 1, true);          /* 15 */
    int64_t end = at;                         /* 16 */
    kq_snapshot_meta m;
    sample_meta(&m, end);
    kq_writer w;
    kq_writer_init(&w, 0);
    assert_int_equal(kq_snapshot_encode(NULL, a, &m, &w), 0);
    group_offsets *b = group_offsets_create();
    char err[ERR_BYTES];
    assert_int_equal(kq_snapshot_decode(w.data, w.len, m.id, NULL, b, NULL, err, sizeof err), 0);
    assert_int_equal(kq_snapshot_decode(w.data, w.len, m.id, NULL, NULL, NULL, err, sizeof err),
                     0);
    group_offsets_commit(a, end);
    assert_int_equal(group_offsets_run_start(b), 15);
    assert_int_equal(group_offsets_run_start(a), 15);
    assert_alike(a, b);
    assert_int_equal(answer_of(b, "fixed"), 7);
    assert_int_equal(answer_of(b, "itself"), 1);
    assert_int_equal(answer_of(b, "member"), 13);
    assert_int_equal(answer_of(b, "pending"), 13);
    assert_int_equal(answer_of(b, "pending-fixed"), 13);
    assert_int_equal(answer_of(b, "above"), 40);
    /* Both go on alike: control batches 17..40, then data at 41. */
    for (group_offsets *o = a; o; o = o == a ? b : NULL) {
        int64_t x = note_commit(o, end, "member", 15); /* 16: in the run */
        x = note_plain(o, x, 4, true);
        while (x < 40)
            x = note_plain(o, x, 4, true);
        x = note_plain(o, x, 1, false);
        group_offsets_commit(o, x);
    }
    assert_alike(a, b);
    assert_int_equal(answer_of(b, "member"), 41); /* the data at 41 */
    assert_int_equal(answer_of(b, "above"), 41);  /* reached through control batches */
    kq_writer_free(&w);
    group_offsets_destroy(a);
    group_offsets_destroy(b);
}

/* ---- crafted files */

static void craft(kq_writer *w, const kq_slice *values, const char *const *keys, int n)
{
    kq_writer_init(w, 0);
    assert_true(snap_build_header(w, 5, 0));
    for (int i = 0; i < n; i++) {
        record rec = { .key = kq_slice_cstr(keys[i]), .value = values[i] };
        record_batch_builder_args a = { .base_offset = 1 + i, .partition_leader_epoch = 5,
                                        .producer_id = -1, .producer_epoch = -1,
                                        .base_sequence = -1, .records = &rec,
                                        .record_count = 1 };
        assert_true(record_batch_build(w, &a));
    }
    assert_true(snap_build_footer(w, 1 + n, 5, 0));
}

static const uint8_t voters_v[] = { 0, 0, 0, 0, 0, 1, 0, 0, 0, 9 };

/* Decodes voters then the records given (end offset 100), into o and into
 * no table (the same verdict). */
static int decode(const kq_slice *v, const char *const *k, int n, group_offsets *o, char *err)
{
    kq_slice values[8] = { { voters_v, sizeof voters_v } };
    const char *keys[8] = { SNAP_KEY_VOTERS };
    for (int i = 0; i < n; i++) {
        values[1 + i] = v[i];
        keys[1 + i] = k[i];
    }
    kq_writer w;
    craft(&w, values, keys, 1 + n);
    raft_snapshot_id id = { 100, 5 };
    int rc = kq_snapshot_decode(w.data, w.len, id, NULL, o, NULL, err, ERR_BYTES);
    char err2[ERR_BYTES];
    assert_int_equal(kq_snapshot_decode(w.data, w.len, id, NULL, NULL, NULL, err2, sizeof err2),
                     rc);
    kq_writer_free(&w);
    return rc;
}

static kq_slice run_value(kq_writer *w, int64_t start)
{
    kq_writer_reset(w);
    kq_write_i16(w, 0);
    kq_write_i64(w, start);
    return (kq_slice){ w->data, (int32_t)w->len };
}

static kq_slice end_value(kq_writer *w, const group_offset *e, int64_t answer)
{
    kq_writer_reset(w);
    group_offset_write_value(w, e);
    if (answer != -100)
        kq_write_i64(w, answer);
    return (kq_slice){ w->data, (int32_t)w->len };
}

static void test_crafted(void **state)
{
    (void)state;
    group_offsets *o = group_offsets_create();
    char err[ERR_BYTES];
    kq_writer r, g, e;
    kq_writer_init(&r, 0);
    kq_writer_init(&g, 0);
    kq_writer_init(&e, 0);
    group_offset in_run = entry("a", 60), below = entry("b", 20), fixed = entry("c", 30);
    const char *k3[3] = { SNAP_KEY_OFFSET_RUN, SNAP_KEY_GROUP_OFFSET, SNAP_KEY_GROUP_OFFSET_END };
    kq_slice v3[3] = { run_value(&r, 50), end_value(&g, &in_run, -100),
                       end_value(&e, &fixed, 45) };
    assert_int_equal(decode(v3, k3, 3, o, err), 0);
    assert_int_equal(group_offsets_run_start(o), 50);
    assert_int_equal(answer_of(o, "a"), 100); /* in the run: its end, the file's end */
    assert_int_equal(answer_of(o, "c"), 45);
    /* Without kq.offset-run (an older file): the run starts at the end. */
    kq_slice v2[2] = { end_value(&g, &below, -100), end_value(&e, &in_run, -100) };
    const char *k2[2] = { SNAP_KEY_GROUP_OFFSET, SNAP_KEY_GROUP_OFFSET };
    assert_int_equal(decode(v2, k2, 2, o, err), 0);
    assert_int_equal(group_offsets_run_start(o), 100);
    assert_int_equal(answer_of(o, "a"), 60);
    assert_int_equal(answer_of(o, "b"), 20);
    /* After a group offset, twice, out of range, not 10 bytes. */
    const char *after[2] = { SNAP_KEY_GROUP_OFFSET, SNAP_KEY_OFFSET_RUN };
    kq_slice va[2] = { end_value(&g, &below, -100), run_value(&r, 50) };
    assert_int_equal(decode(va, after, 2, o, err), -EBADMSG);
    assert_non_null(strstr(err, "after the group offsets"));
    const char *twice[2] = { SNAP_KEY_OFFSET_RUN, SNAP_KEY_OFFSET_RUN };
    kq_slice vt[2] = { run_value(&r, 50), run_value(&r, 50) };
    assert_int_equal(decode(vt, twice, 2, o, err), -EBADMSG);
    assert_non_null(strstr(err, "a second one"));
    kq_slice beyond = run_value(&r, 101);
    assert_int_equal(decode(&beyond, k3, 1, o, err), -EBADMSG);
    assert_non_null(strstr(err, "outside 0..the end offset"));
    kq_slice negative = run_value(&r, -1);
    assert_int_equal(decode(&negative, k3, 1, o, err), -EBADMSG);
    kq_slice cut = { r.data, (int32_t)r.len - 1 };
    assert_int_equal(decode(&cut, k3, 1, o, err), -EBADMSG);
    assert_non_null(strstr(err, "not version 0 and 10 bytes"));
    r.data[1] = 1;
    kq_slice v1 = { r.data, (int32_t)r.len };
    assert_int_equal(decode(&v1, k3, 1, o, err), -EBADMSG);
    /* kq.group-offset-end: the answer not above the offset, beyond the end,
     * missing; the same key as a kq.group-offset. */
    const char *ke[1] = { SNAP_KEY_GROUP_OFFSET_END };
    kq_slice same = end_value(&e, &fixed, 30);
    assert_int_equal(decode(&same, ke, 1, o, err), -EBADMSG);
    assert_non_null(strstr(err, "not above the offset"));
    kq_slice past = end_value(&e, &fixed, 101);
    assert_int_equal(decode(&past, ke, 1, o, err), -EBADMSG);
    kq_slice none = end_value(&e, &fixed, -100);
    assert_int_equal(decode(&none, ke, 1, o, err), -EBADMSG);
    kq_slice tiny = { e.data, 7 };
    assert_int_equal(decode(&tiny, ke, 1, o, err), -EBADMSG);
    assert_non_null(strstr(err, "value truncated"));
    group_offset fixed_again = entry("c", 31);
    const char *kd[2] = { SNAP_KEY_GROUP_OFFSET, SNAP_KEY_GROUP_OFFSET_END };
    kq_slice vd[2] = { end_value(&g, &fixed, -100), end_value(&e, &fixed_again, 45) };
    assert_int_equal(decode(vd, kd, 2, o, err), -EBADMSG);
    assert_non_null(strstr(err, "listed twice"));
    assert_int_equal(group_offsets_count(o), 0);
    kq_writer_free(&r);
    kq_writer_free(&g);
    kq_writer_free(&e);
    group_offsets_destroy(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_crafted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
