/* Transactional offset commits in the committed-offsets table (issue 23,
 * include/kq/group_offsets.h): stashed per producer until its marker, a
 * COMMIT makes them pending at the marker's offset (visible once the high
 * watermark passes it), an ABORT drops them, producers interleaved, a
 * truncation cuts the stash and stashes a cut marker's commits again, a
 * call that fails undoes its markers, the batch's bytes, the skip rules and
 * the bytes accounting. */
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
#define LINE_BYTES 96
#define LINES_MAX 16

static group_offset entry(const char *group, const char *topic, int32_t partition,
                          int64_t offset)
{
    return (group_offset){ .group_id = group, .topic = topic, .partition = partition,
                           .offset = offset, .leader_epoch = 3, .metadata = "m",
                           .commit_timestamp_ms = TS_MS + offset, .log_offset = -1 };
}

/* Appends a TxnOffsetCommit batch of producer pid at base_offset. */
static void append_txn(kq_writer *w, int64_t base_offset, int64_t pid, const group_offset *e,
                       int n)
{
    size_t start = w->len;
    assert_true(group_offsets_build_txn_batch(w, e, n, TS_MS, pid, 2));
    record_batch_set_base_offset(w->data + start, base_offset);
}

/* Appends pid's marker (Kafka's bytes: FORMAT.md "Transactions"). */
static void append_marker(kq_writer *w, int64_t offset, int64_t pid, bool commit)
{
    uint8_t key[4] = { 0, 0, 0, commit ? 1 : 0 };
    uint8_t value[6] = { 0 };
    record rec = { .timestamp = TS_MS, .key = { key, 4 }, .value = { value, 6 } };
    record_batch_builder_args a = { .base_offset = offset,
                                    .attributes = RECORD_ATTR_CONTROL | RECORD_ATTR_TRANSACTIONAL,
                                    .base_timestamp = TS_MS, .producer_id = pid,
                                    .producer_epoch = 2, .base_sequence = -1,
                                    .records = &rec, .record_count = 1 };
    assert_true(record_batch_build(w, &a));
}

static void note_txn(group_offsets *o, int64_t base_offset, int64_t pid, const group_offset *e,
                     int n)
{
    kq_writer w;
    kq_writer_init(&w, 0);
    append_txn(&w, base_offset, pid, e, n);
    assert_int_equal(group_offsets_note_batches(o, w.data, w.len), n);
    kq_writer_free(&w);
}

static void note_marker(group_offsets *o, int64_t offset, int64_t pid, bool commit)
{
    kq_writer w;
    kq_writer_init(&w, 0);
    append_marker(&w, offset, pid, commit);
    assert_int_equal(group_offsets_note_batches(o, w.data, w.len), 0);
    kq_writer_free(&w);
}

static int64_t offset_of(const group_offsets *o, const char *g, const char *t, int32_t p)
{
    group_offset out;
    return group_offsets_get(o, g, t, p, &out) ? out.offset : -100;
}

typedef struct lines {
    char line[LINES_MAX][LINE_BYTES];
    int n;
} lines;

static int take_txn(void *ctx, int64_t pid, const group_offset *e)
{
    lines *l = ctx;
    assert_true(l->n < LINES_MAX);
    snprintf(l->line[l->n++], LINE_BYTES, "%lld:%s/%s/%d=%lld@%lld", (long long)pid,
             e->group_id, e->topic, (int)e->partition, (long long)e->offset,
             (long long)e->log_offset);
    return 0;
}

static int take_end(void *ctx, const group_offset *e)
{
    return take_txn(ctx, -1, e);
}

static lines stash_of(const group_offsets *o)
{
    lines l = { .n = 0 };
    assert_int_equal(group_offsets_foreach_txn(o, take_txn, &l), 0);
    assert_int_equal(l.n, group_offsets_txn_count(o));
    return l;
}

static lines end_of(const group_offsets *o)
{
    lines l = { .n = 0 };
    assert_int_equal(group_offsets_foreach_at_end(o, take_end, &l), 0);
    return l;
}

/* Stashed commits are neither pending nor visible; the COMMIT marker at
 * offset 5 makes them pending there: visible once the high watermark
 * passes 5, not before, in stash order (the later commit of a key wins). */
static void test_commit_marker(void **state)
{
    (void)state;
    group_offsets *o = group_offsets_create();
    group_offset a[2] = { entry("g", "t", 0, 10), entry("g", "t", 1, 11) };
    note_txn(o, 1, 7, a, 2);
    group_offset again = entry("g", "t", 0, 12);
    note_txn(o, 3, 7, &again, 1);
    assert_int_equal(group_offsets_txn_count(o), 3);
    assert_true(group_offsets_txn_pending(o, "g", "t", 0));
    assert_true(group_offsets_txn_pending(o, "g", "t", 1));
    assert_false(group_offsets_txn_pending(o, "g", "t", 2));
    assert_int_equal(end_of(o).n, 0); /* not at the log end either: stashed */
    group_offsets_commit(o, 5);
    assert_int_equal(group_offsets_count(o), 0);
    assert_int_equal(offset_of(o, "g", "t", 0), -100);

    note_marker(o, 5, 7, true);
    assert_int_equal(group_offsets_txn_count(o), 0);
    assert_false(group_offsets_txn_pending(o, "g", "t", 0));
    group_offset at_end;
    assert_true(group_offsets_get_at_end(o, "g", "t", 0, &at_end));
    assert_int_equal(at_end.offset, 12);
    assert_int_equal(at_end.log_offset, 5);
    group_offsets_commit(o, 5); /* the marker itself is not below the watermark */
    assert_int_equal(group_offsets_count(o), 0);
    group_offsets_commit(o, 6);
    assert_int_equal(group_offsets_count(o), 2);
    assert_int_equal(offset_of(o, "g", "t", 0), 12);
    assert_int_equal(offset_of(o, "g", "t", 1), 11);
    group_offsets_destroy(o);
}

/* An ABORT drops the producer's commits: never visible, the committed value
 * stays; a marker for a producer with nothing stashed does nothing. */
static void test_abort_marker(void **state)
{
    (void)state;
    group_offsets *o = group_offsets_create();
    group_offset before = entry("g", "t", 0, 1);
    group_offsets_restore(o, &before);
    group_offset a = entry("g", "t", 0, 10);
    note_txn(o, 1, 7, &a, 1);
    note_marker(o, 2, 8, true); /* another producer: nothing stashed */
    assert_int_equal(group_offsets_txn_count(o), 1);
    note_marker(o, 3, 7, false);
    assert_int_equal(group_offsets_txn_count(o), 0);
    assert_false(group_offsets_txn_pending(o, "g", "t", 0));
    lines end = end_of(o);
    assert_int_equal(end.n, 1);
    assert_string_equal(end.line[0], "-1:g/t/0=1@-1");
    group_offset at_end;
    assert_true(group_offsets_get_at_end(o, "g", "t", 0, &at_end));
    assert_int_equal(at_end.offset, 1);
    group_offsets_commit(o, 100);
    assert_int_equal(offset_of(o, "g", "t", 0), 1);
    assert_int_equal(group_offsets_count(o), 1);
    assert_int_equal(group_offsets_bytes(o), group_offsets_entry_bytes(&before));
    note_marker(o, 101, 7, true); /* nothing stashed any more */
    group_offsets_commit(o, 200);
    assert_int_equal(offset_of(o, "g", "t", 0), 1);
    group_offsets_destroy(o);
}

/* Two producers interleaved with an ordinary commit: each marker moves only
 * its producer's commits; the walk is in producer id order, then stash
 * order. */
static void test_two_producers(void **state)
{
    (void)state;
    group_offsets *o = group_offsets_create();
    group_offset p9a = entry("g", "t", 0, 90), p4a = entry("g", "t", 0, 40);
    group_offset p9b = entry("h", "t", 1, 91), plain = entry("g", "t", 2, 7);
    note_txn(o, 0, 9, &p9a, 1);
    note_txn(o, 1, 4, &p4a, 1);
    kq_writer w;
    kq_writer_init(&w, 0);
    assert_true(group_offsets_build_batch(&w, &plain, 1, TS_MS));
    record_batch_set_base_offset(w.data, 2);
    assert_int_equal(group_offsets_note_batches(o, w.data, w.len), 1);
    kq_writer_free(&w);
    note_txn(o, 3, 9, &p9b, 1);
    lines s = stash_of(o);
    assert_int_equal(s.n, 3);
    assert_string_equal(s.line[0], "4:g/t/0=40@1");
    assert_string_equal(s.line[1], "9:g/t/0=90@0");
    assert_string_equal(s.line[2], "9:h/t/1=91@3");

    note_marker(o, 4, 9, true);
    s = stash_of(o);
    assert_int_equal(s.n, 1);
    assert_string_equal(s.line[0], "4:g/t/0=40@1");
    assert_true(group_offsets_txn_pending(o, "g", "t", 0));
    group_offsets_commit(o, 5);
    assert_int_equal(offset_of(o, "g", "t", 0), 90);
    assert_int_equal(offset_of(o, "h", "t", 1), 91);
    assert_int_equal(offset_of(o, "g", "t", 2), 7);
    note_marker(o, 5, 4, true); /* p4's commit lands after p9's */
    group_offsets_commit(o, 6);
    assert_int_equal(offset_of(o, "g", "t", 0), 40);
    assert_int_equal(group_offsets_txn_count(o), 0);
    group_offsets_destroy(o);
}

/* A truncation at X drops stashed commits at or above X, and a marker at or
 * above X gives its commits whose records lie below X back to the stash
 * (COMMIT or ABORT alike). */
static void test_truncate(void **state)
{
    (void)state;
    group_offsets *o = group_offsets_create();
    group_offset a = entry("g", "t", 0, 1), b = entry("g", "t", 1, 2);
    note_txn(o, 10, 7, &a, 1);
    note_txn(o, 12, 7, &b, 1);
    group_offsets_truncate(o, 12);
    lines s = stash_of(o);
    assert_int_equal(s.n, 1);
    assert_string_equal(s.line[0], "7:g/t/0=1@10");
    assert_false(group_offsets_txn_pending(o, "g", "t", 1));
    assert_int_equal(group_offsets_bytes(o),
                     group_offsets_entry_bytes(&a) + KQ_TXN_OFFSET_EXTRA_BYTES);

    note_txn(o, 12, 7, &b, 1); /* the log goes on from the cut */
    note_marker(o, 13, 7, true);
    group_offset late = entry("g", "t", 2, 3);
    note_txn(o, 14, 7, &late, 1); /* the producer's next transaction */
    group_offsets_truncate(o, 13);
    s = stash_of(o);
    assert_int_equal(s.n, 2);
    assert_string_equal(s.line[0], "7:g/t/0=1@10");
    assert_string_equal(s.line[1], "7:g/t/1=2@12");
    assert_int_equal(end_of(o).n, 0);
    group_offsets_commit(o, 13);
    assert_int_equal(group_offsets_count(o), 0);

    note_marker(o, 13, 7, false);
    group_offsets_truncate(o, 13);
    assert_int_equal(stash_of(o).n, 2);
    note_marker(o, 13, 7, true);
    group_offsets_commit(o, 14);
    assert_int_equal(offset_of(o, "g", "t", 0), 1);
    assert_int_equal(offset_of(o, "g", "t", 1), 2);
    group_offsets_truncate(o, 14); /* below the watermark nothing comes back */
    assert_int_equal(group_offsets_txn_count(o), 0);
    assert_int_equal(group_offsets_count(o), 2);
    group_offsets_destroy(o);
}

/* A call whose offsets stop ascending notes nothing: its stashes and its
 * markers' moves are undone. */
static void test_failed_call_undone(void **state)
{
    (void)state;
    group_offsets *o = group_offsets_create();
    group_offset a = entry("g", "t", 0, 1), b = entry("g", "t", 1, 2);
    note_txn(o, 10, 7, &a, 1);
    kq_writer w;
    kq_writer_init(&w, 0);
    append_txn(&w, 11, 8, &b, 1);
    append_marker(&w, 12, 7, true);
    append_txn(&w, 12, 8, &b, 1); /* offset 12 again */
    assert_int_equal(group_offsets_note_batches(o, w.data, w.len), -1);
    lines s = stash_of(o);
    assert_int_equal(s.n, 1);
    assert_string_equal(s.line[0], "7:g/t/0=1@10");
    assert_int_equal(end_of(o).n, 0);
    assert_int_equal(group_offsets_bytes(o),
                     group_offsets_entry_bytes(&a) + KQ_TXN_OFFSET_EXTRA_BYTES);
    /* Nor may a marker that moves commits lie at or below what was noted
     * (one of a producer with nothing stashed changes nothing). */
    kq_writer_reset(&w);
    append_marker(&w, 10, 7, true);
    assert_int_equal(group_offsets_note_batches(o, w.data, w.len), -1);
    kq_writer_reset(&w);
    append_marker(&w, 3, 99, true);
    assert_int_equal(group_offsets_note_batches(o, w.data, w.len), 0);
    assert_int_equal(group_offsets_txn_count(o), 1);
    kq_writer_reset(&w);
    append_marker(&w, 11, 7, true);
    assert_int_equal(group_offsets_note_batches(o, w.data, w.len), 0);
    kq_writer_free(&w);
    group_offsets_commit(o, 12);
    assert_int_equal(offset_of(o, "g", "t", 0), 1);
    group_offsets_destroy(o);
}

/* Appends a batch holding the first record of the batch in src, with
 * these header fields. */
static void rebuild(kq_writer *out, const kq_writer *src, int64_t base_offset,
                    int16_t attributes, int64_t pid)
{
    record_iter it;
    record rec;
    assert_int_equal(record_iter_open(&it, src->data, src->len), RECORD_OK);
    assert_true(record_iter_next(&it, &rec));
    record_batch_builder_args a = { .base_offset = base_offset, .attributes = attributes,
                                    .producer_id = pid, .producer_epoch = pid < 0 ? -1 : 3,
                                    .base_sequence = -1, .records = &rec, .record_count = 1 };
    assert_true(record_batch_build(out, &a));
    record_iter_close(&it);
}

/* The batch: attributes 0x30, the producer's id and epoch, base sequence
 * -1; refused without a producer. A non-transactional commit batch with a
 * producer id stays an ordinary commit; a transactional one without a
 * producer id, or a transactional expiry, is skipped as unparsable; a COMMIT
 * record in a non-transactional control batch is no marker. */
static void test_batch_and_skip_rules(void **state)
{
    (void)state;
    group_offset a = entry("g", "t", 0, 1);
    kq_writer w;
    kq_writer_init(&w, 0);
    assert_false(group_offsets_build_txn_batch(&w, &a, 1, TS_MS, -1, 0));
    assert_false(group_offsets_build_txn_batch(&w, &a, 1, TS_MS, 5, -1));
    assert_int_equal(w.len, 0);
    assert_true(group_offsets_build_txn_batch(&w, &a, 1, TS_MS, 5, 3));
    record_batch_header h;
    assert_int_equal(record_batch_check(w.data, w.len, &h), RECORD_OK);
    assert_int_equal(h.attributes, RECORD_ATTR_CONTROL | RECORD_ATTR_TRANSACTIONAL);
    assert_int_equal(h.producer_id, 5);
    assert_int_equal(h.producer_epoch, 3);
    assert_int_equal(h.base_sequence, -1);

    const int16_t txn = RECORD_ATTR_CONTROL | RECORD_ATTR_TRANSACTIONAL;
    kq_writer b;
    kq_writer_init(&b, 0);
    rebuild(&b, &w, 0, RECORD_ATTR_CONTROL, 5); /* ordinary, with a producer id */
    rebuild(&b, &w, 1, txn, -1);
    kq_writer expire;
    kq_writer_init(&expire, 0);
    assert_true(group_offsets_build_expire_batch(&expire, &a, 1, TS_MS));
    rebuild(&b, &expire, 2, txn, 5);
    group_offsets *o = group_offsets_create();
    group_offsets_skipped sk;
    assert_int_equal(group_offsets_note_batches_skipping(o, b.data, b.len, &sk), 1);
    assert_int_equal(sk.count, 2);
    assert_int_equal(sk.first_offset, 1);
    assert_int_equal(sk.last_offset, 2);
    assert_string_equal(sk.reason, "a transactional offset commit without a producer id");
    assert_int_equal(group_offsets_txn_count(o), 0);
    kq_writer_reset(&b);
    rebuild(&b, &expire, 3, txn, 5);
    assert_int_equal(group_offsets_note_batches_skipping(o, b.data, b.len, &sk), 0);
    assert_string_equal(sk.reason, "an offset expiry in a transactional batch");

    kq_writer_reset(&b);
    append_txn(&b, 4, 5, &a, 1);
    kq_writer marker;
    kq_writer_init(&marker, 0);
    append_marker(&marker, 0, 5, true);
    rebuild(&b, &marker, 5, RECORD_ATTR_CONTROL, 5); /* not transactional: no marker */
    rebuild(&b, &marker, 6, txn, -1);                /* no producer: no marker */
    assert_int_equal(group_offsets_note_batches_skipping(o, b.data, b.len, &sk), 1);
    assert_int_equal(sk.count, 0);
    assert_int_equal(group_offsets_txn_count(o), 1);
    group_offsets_commit(o, 10);
    assert_int_equal(offset_of(o, "g", "t", 0), 1); /* the ordinary one, at offset 0 */
    group_offset got;
    assert_true(group_offsets_get(o, "g", "t", 0, &got));
    assert_int_equal(got.log_offset, 0);
    assert_true(group_offsets_txn_pending(o, "g", "t", 0));
    group_offsets_destroy(o);
    kq_writer_free(&marker);
    kq_writer_free(&expire);
    kq_writer_free(&b);
    kq_writer_free(&w);
}

/* Bytes: a stashed commit costs its entry bytes plus
 * KQ_TXN_OFFSET_EXTRA_BYTES, and so does it once its marker made it pending
 * (a truncation may stash it again), until applied (it replaces the
 * committed entry's) or, aborted, dropped; admits_txn frees nothing. */
static void test_bytes(void **state)
{
    (void)state;
    group_offsets *o = group_offsets_create();
    group_offset old = entry("g", "t", 0, 1);
    assert_true(group_offsets_restore(o, &old));
    uint64_t c_old = group_offsets_entry_bytes(&old);
    group_offset a = entry("g", "t", 0, 2);
    a.metadata = "longer metadata";
    uint64_t c_a = group_offsets_entry_bytes(&a);
    note_txn(o, 1, 7, &a, 1);
    assert_int_equal(group_offsets_bytes(o), c_old + c_a + KQ_TXN_OFFSET_EXTRA_BYTES);
    note_marker(o, 2, 7, true); /* the extra stays until applied (a cut may stash it again) */
    assert_int_equal(group_offsets_bytes(o), c_old + c_a + KQ_TXN_OFFSET_EXTRA_BYTES);
    group_offsets_commit(o, 3);
    assert_int_equal(group_offsets_bytes(o), c_a);

    note_txn(o, 3, 7, &a, 1);
    note_marker(o, 4, 7, false);
    /* held until its marker commits */
    assert_int_equal(group_offsets_bytes(o), c_a + c_a + KQ_TXN_OFFSET_EXTRA_BYTES);
    group_offsets_commit(o, 5);
    assert_int_equal(group_offsets_bytes(o), c_a);

    uint64_t cost = c_a + KQ_TXN_OFFSET_EXTRA_BYTES;
    uint64_t room = KQ_GROUP_OFFSETS_BYTES_MAX - c_a;
    assert_true(group_offsets_admits_txn(o, &a, room - cost));
    assert_false(group_offsets_admits_txn(o, &a, room - cost + 1));
    /* The ordinary check frees the committed entry it replaces. */
    assert_true(group_offsets_admits(o, &a, room - c_a + c_a));
    note_txn(o, 5, 7, &a, 1);
    assert_false(group_offsets_admits(o, &a, room - c_a + c_a));
    assert_true(group_offsets_admits(o, &a, room - cost));
    group_offsets_clear(o, 0);
    assert_int_equal(group_offsets_bytes(o), 0);
    assert_int_equal(group_offsets_txn_count(o), 0);
    group_offsets_destroy(o);
}

/* Restore: a producer's stash from a snapshot, before any noted commit; a
 * marker then moves it; refusals. */
static void test_restore_txn(void **state)
{
    (void)state;
    group_offsets *o = group_offsets_create();
    group_offsets_clear(o, 20);
    group_offset a = entry("g", "t", 0, 5), b = entry("g", "t", 1, 6);
    a.log_offset = 17; /* ignored */
    assert_true(group_offsets_restore_txn(o, 3, &a));
    assert_true(group_offsets_restore_txn(o, 3, &b));
    assert_false(group_offsets_restore_txn(o, -1, &a));
    group_offset bad = entry("", "t", 0, 5);
    assert_false(group_offsets_restore_txn(o, 3, &bad));
    lines s = stash_of(o);
    assert_int_equal(s.n, 2);
    assert_string_equal(s.line[0], "3:g/t/0=5@-1");
    note_txn(o, 20, 3, &a, 1);
    assert_false(group_offsets_restore_txn(o, 3, &b)); /* after a noted one */
    assert_true(group_offsets_restore_txn(o, 4, &b));
    note_marker(o, 21, 3, true);
    group_offsets_truncate(o, 21);
    assert_int_equal(stash_of(o).n, 4); /* the restored ones come back too */
    note_marker(o, 21, 3, true);
    group_offsets_commit(o, 22);
    assert_int_equal(offset_of(o, "g", "t", 0), 5);
    assert_int_equal(offset_of(o, "g", "t", 1), 6);
    assert_int_equal(group_offsets_txn_count(o), 1);
    group_offsets_destroy(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_commit_marker),
        cmocka_unit_test(test_abort_marker),
        cmocka_unit_test(test_two_producers),
        cmocka_unit_test(test_truncate),
        cmocka_unit_test(test_failed_call_undone),
        cmocka_unit_test(test_batch_and_skip_rules),
        cmocka_unit_test(test_bytes),
        cmocka_unit_test(test_restore_txn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
