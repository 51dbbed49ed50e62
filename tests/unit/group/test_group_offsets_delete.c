/* Deletions in the committed-offsets table (issue 24, DeleteGroups and
 * OffsetDelete; include/kq/group_offsets.h KQ_GROUP_OFFSET_DELETED): the
 * deletion tombstone removes its key whatever it holds at its place in the
 * log (a commit before it goes, a commit after it stays), its value's
 * codec, the view at the log end, the keys a deletion must cover (pending
 * and stashed ones), the stashed transactional commits it kills (never
 * applied, whatever the marker; given back by a truncation that cuts the
 * deletion; left out of the snapshot's walk), and the rebuild mutant's
 * switch. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kq/group_offset_codec.h"
#include "kq/group_offsets.h"
#include "kq/record.h"

#define TS_MS 1764600000000

static group_offset entry(const char *group, int32_t partition, int64_t offset)
{
    return (group_offset){ .group_id = group, .topic = "t", .partition = partition,
                           .offset = offset, .leader_epoch = 3, .metadata = "m",
                           .commit_timestamp_ms = TS_MS + offset, .log_offset = -1 };
}

enum kind { COMMIT, EXPIRE, DELETE };

static void note(group_offsets *o, int64_t base, const group_offset *e, int n, enum kind k)
{
    kq_writer w;
    kq_writer_init(&w, 0);
    assert_true(k == COMMIT   ? group_offsets_build_batch(&w, e, n, TS_MS)
                : k == EXPIRE ? group_offsets_build_expire_batch(&w, e, n, TS_MS)
                              : group_offsets_build_delete_batch(&w, e, n, TS_MS));
    record_batch_set_base_offset(w.data, base);
    assert_int_equal(group_offsets_note_batches(o, w.data, w.len), n);
    kq_writer_free(&w);
}

static void note_txn(group_offsets *o, int64_t base, int64_t pid, const group_offset *e)
{
    kq_writer w;
    kq_writer_init(&w, 0);
    assert_true(group_offsets_build_txn_batch(&w, e, 1, TS_MS, pid, 2));
    record_batch_set_base_offset(w.data, base);
    assert_int_equal(group_offsets_note_batches(o, w.data, w.len), 1);
    kq_writer_free(&w);
}

static void note_marker(group_offsets *o, int64_t offset, int64_t pid, bool commit)
{
    uint8_t key[4] = { 0, 0, 0, commit ? 1 : 0 };
    uint8_t value[6] = { 0 };
    record rec = { .timestamp = TS_MS, .key = { key, 4 }, .value = { value, 6 } };
    record_batch_builder_args a = { .base_offset = offset,
                                    .attributes = RECORD_ATTR_CONTROL | RECORD_ATTR_TRANSACTIONAL,
                                    .base_timestamp = TS_MS, .producer_id = pid,
                                    .producer_epoch = 2, .base_sequence = -1,
                                    .records = &rec, .record_count = 1 };
    kq_writer w;
    kq_writer_init(&w, 0);
    assert_true(record_batch_build(&w, &a));
    assert_int_equal(group_offsets_note_batches(o, w.data, w.len), 0);
    kq_writer_free(&w);
}

static int64_t offset_of(const group_offsets *o, const char *g, int32_t p)
{
    group_offset out;
    return group_offsets_get(o, g, "t", p, &out) ? out.offset : -100;
}

static int count_cb(void *ctx, const group_offset *e)
{
    (void)e;
    (*(int *)ctx)++;
    return 0;
}

static int keys_of(const group_offsets *o, const char *g)
{
    int n = 0;
    group_offsets_foreach_key_at_end(o, g, count_cb, &n);
    return n;
}

/* The deletion removes the key whatever it holds: a commit appended before
 * it (pending when it was decided, committed by the time it applies) goes,
 * one after it stays. The expiry tombstone would have spared it. */
static void test_delete_whatever_the_value(void **state)
{
    (void)state;
    group_offsets *o = group_offsets_create();
    group_offset a = entry("g", 0, 7), b = entry("g", 0, 9), c = entry("h", 0, 5);
    note(o, 0, &a, 1, COMMIT);
    note(o, 1, &c, 1, COMMIT);
    group_offsets_commit(o, 2);
    note(o, 2, &b, 1, COMMIT); /* pending: the deletion goes after it */
    assert_int_equal(keys_of(o, "g"), 1);
    note(o, 3, &a, 1, DELETE);
    assert_false(group_offsets_get_at_end(o, "g", "t", 0, NULL)); /* gone at the end */
    int at_end = 0; /* what a snapshot taken now holds: h only */
    group_offsets_foreach_at_end(o, count_cb, &at_end);
    assert_int_equal(at_end, 1);
    assert_int_equal(keys_of(o, "g"), 0);
    assert_int_equal(offset_of(o, "g", 0), 7); /* until the high watermark */
    group_offsets_commit(o, 4);
    assert_int_equal(offset_of(o, "g", 0), -100);
    assert_false(group_offsets_has_group(o, "g"));
    assert_int_equal(offset_of(o, "h", 0), 5);
    note(o, 4, &b, 1, COMMIT); /* committed after the deletion: it counts */
    group_offsets_commit(o, 5);
    assert_int_equal(offset_of(o, "g", 0), 9);
    /* The same order with an expiry of a: b survives it. */
    group_offset d = entry("h", 0, 6);
    note(o, 5, &d, 1, COMMIT);
    note(o, 6, &c, 1, EXPIRE);
    group_offsets_commit(o, 7);
    assert_int_equal(offset_of(o, "h", 0), 6);
    /* A deletion of a key that holds nothing does nothing. */
    group_offset none = entry("none", 3, 0);
    note(o, 7, &none, 1, DELETE);
    group_offsets_commit(o, 8);
    assert_int_equal(group_offsets_count(o), 2);
    group_offsets_destroy(o);
}

/* The value's codec: offset -2 only in a tombstone; the other rules hold. */
static void test_codec(void **state)
{
    (void)state;
    kq_writer w;
    kq_writer_init(&w, 0);
    group_offset key = entry("g", 0, 7);
    assert_true(group_offsets_build_delete_batch(&w, &key, 1, TS_MS));
    record_iter it;
    record rec;
    assert_int_equal(record_iter_open(&it, w.data, w.len), RECORD_OK);
    assert_true(record_iter_next(&it, &rec));
    assert_int_equal(record_control_type(rec.key), KQ_CONTROL_OFFSET_EXPIRE);
    group_offset_value v;
    assert_null(group_offset_read_tombstone_value(rec.value, &v));
    assert_int_equal(v.entry.offset, KQ_GROUP_OFFSET_DELETED);
    assert_int_equal(v.entry.leader_epoch, -1);
    assert_null(v.entry.metadata);
    assert_int_equal(v.entry.commit_timestamp_ms, TS_MS);
    assert_string_equal(v.entry.group_id, "g");
    /* The same value as a commit's breaks its rule. */
    assert_non_null(group_offset_read_value(rec.value, &v));
    record_iter_close(&it);
    kq_writer_free(&w);
    /* A key that breaks a rule is not written. */
    group_offset bad = entry("", 0, 1);
    kq_writer_init(&w, 0);
    assert_false(group_offsets_build_delete_batch(&w, &bad, 1, TS_MS));
    bad = entry("g", -1, 1);
    assert_false(group_offsets_build_delete_batch(&w, &bad, 1, TS_MS));
    kq_writer_free(&w);
    /* Below -2 is no deletion: skipped as unparsable. */
    kq_writer_init(&w, 0);
    group_offset_write_value(&w, &(group_offset){ .group_id = "g", .topic = "t",
                                                  .offset = -3, .leader_epoch = -1 });
    assert_non_null(group_offset_read_tombstone_value((kq_slice){ w.data, (int32_t)w.len }, &v));
    kq_writer_free(&w);
}

/* Pending and stashed keys are covered; aborted and killed ones are not. */
static void test_keys_at_end(void **state)
{
    (void)state;
    group_offsets *o = group_offsets_create();
    group_offset a = entry("g", 0, 1), b = entry("g", 1, 2), c = entry("g", 2, 3);
    note(o, 0, &a, 1, COMMIT);
    group_offsets_commit(o, 1);
    note(o, 1, &b, 1, COMMIT);    /* pending */
    note_txn(o, 2, 40, &c);       /* stashed */
    note_txn(o, 3, 41, &a);       /* stashed, its key also committed */
    assert_int_equal(keys_of(o, "g"), 3);
    assert_int_equal(keys_of(o, "other"), 0);
    note_marker(o, 4, 40, false); /* aborted: its key is no longer held */
    assert_int_equal(keys_of(o, "g"), 2);
    group_offsets_destroy(o);
}

static int take_txn(void *ctx, int64_t pid, const group_offset *e)
{
    (void)pid;
    (void)e;
    (*(int *)ctx)++;
    return 0;
}

static int txn_walk(const group_offsets *o)
{
    int n = 0;
    group_offsets_foreach_txn(o, take_txn, &n);
    return n;
}

/* A deletion kills the key's stashed commits whose records lie before it:
 * the COMMIT marker applies nothing of them; a commit stashed after the
 * deletion is applied. Kafka's OffsetMetadataManager.replay of a
 * tombstone. */
static void test_delete_kills_stashed(void **state)
{
    (void)state;
    group_offsets *o = group_offsets_create();
    group_offset a = entry("g", 0, 10), b = entry("g", 1, 11);
    note_txn(o, 1, 7, &a);
    note_txn(o, 2, 7, &b);
    assert_true(group_offsets_txn_pending(o, "g", "t", 0));
    note(o, 3, &a, 1, DELETE);
    assert_false(group_offsets_txn_pending(o, "g", "t", 0)); /* no longer unstable */
    assert_true(group_offsets_txn_pending(o, "g", "t", 1));
    assert_int_equal(txn_walk(o), 1); /* the snapshot keeps b only */
    group_offset later = entry("g", 0, 12);
    note_txn(o, 4, 7, &later);
    note_marker(o, 5, 7, true);
    group_offsets_commit(o, 6);
    assert_int_equal(offset_of(o, "g", 0), 12);
    assert_int_equal(offset_of(o, "g", 1), 11);
    assert_int_equal(group_offsets_txn_count(o), 0);
    group_offsets_destroy(o);

    /* Without the later commit: nothing of a is ever applied. */
    o = group_offsets_create();
    note_txn(o, 1, 7, &a);
    note(o, 2, &a, 1, DELETE);
    note_marker(o, 3, 7, true);
    group_offsets_commit(o, 4);
    assert_int_equal(offset_of(o, "g", 0), -100);
    group_offsets_destroy(o);
}

/* A truncation at or below the deletion gives the stashed commit back
 * (the deletion is gone from the log); above it, the commit stays killed,
 * also through a cut marker. */
static void test_truncate_revives(void **state)
{
    (void)state;
    group_offsets *o = group_offsets_create();
    group_offset a = entry("g", 0, 10);
    note_txn(o, 1, 7, &a);
    note(o, 3, &a, 1, DELETE);
    group_offsets_truncate(o, 3);
    assert_true(group_offsets_txn_pending(o, "g", "t", 0));
    assert_int_equal(txn_walk(o), 1);
    note(o, 3, &a, 1, DELETE);      /* the log goes on: deleted again */
    note_marker(o, 4, 7, true);     /* applies nothing */
    group_offsets_truncate(o, 4);   /* the marker cut: stashed again, still killed */
    assert_false(group_offsets_txn_pending(o, "g", "t", 0));
    assert_int_equal(txn_walk(o), 0);
    note_marker(o, 4, 7, true);
    group_offsets_commit(o, 5);
    assert_int_equal(offset_of(o, "g", 0), -100);
    assert_int_equal(group_offsets_txn_count(o), 0);
    group_offsets_destroy(o);

    /* A marker before the deletion: the commit was pending, applied, then
     * deleted; a cut between them brings the commit back alone. */
    o = group_offsets_create();
    note_txn(o, 1, 7, &a);
    note_marker(o, 2, 7, true);
    note(o, 3, &a, 1, DELETE);
    group_offsets_truncate(o, 3);
    group_offsets_commit(o, 3);
    assert_int_equal(offset_of(o, "g", 0), 10);
    group_offsets_destroy(o);
}

/* KQ_MUTANT_EXPIRY_RESURRECTS' switch: tombstones are not noted while on. */
static void test_skip_tombstones_switch(void **state)
{
    (void)state;
    group_offsets *o = group_offsets_create();
    group_offset a = entry("g", 0, 7);
    note(o, 0, &a, 1, COMMIT);
    group_offsets_test_skip_tombstones(o, true);
    kq_writer w;
    kq_writer_init(&w, 0);
    assert_true(group_offsets_build_delete_batch(&w, &a, 1, TS_MS));
    record_batch_set_base_offset(w.data, 1);
    assert_int_equal(group_offsets_note_batches(o, w.data, w.len), 0);
    kq_writer_free(&w);
    group_offsets_commit(o, 2);
    assert_int_equal(offset_of(o, "g", 0), 7); /* the bug */
    group_offsets_test_skip_tombstones(o, false);
    note(o, 2, &a, 1, DELETE);
    group_offsets_commit(o, 3);
    assert_int_equal(offset_of(o, "g", 0), -100);
    group_offsets_destroy(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_delete_whatever_the_value),
        cmocka_unit_test(test_codec),
        cmocka_unit_test(test_keys_at_end),
        cmocka_unit_test(test_delete_kills_stashed),
        cmocka_unit_test(test_truncate_revives),
        cmocka_unit_test(test_skip_tombstones_switch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
