/* The transaction table (include/kq/txn.h): Kafka's state names; an id's
 * state records, data batches and markers moving it; the last stable
 * offset across settle(hw); the aborted index (ranges, order, max) and
 * prune; refused calls noting nothing; our unparsable records skipped;
 * foreach -> restore round trips; the builders' batches; hostile values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kq/record.h"
#include "kq/txn.h"

#define TS 1764600000000

static txn_entry entry(const char *id, int64_t pid, int8_t state)
{
    txn_entry e;
    memset(&e, 0, sizeof(e));
    e.transactional_id = id;
    e.producer_id = pid;
    e.producer_epoch = 2;
    e.timeout_ms = 60000;
    e.state = state;
    e.start_timestamp_ms = state == TXN_ONGOING ? TS : -1;
    e.update_timestamp_ms = TS + 1;
    return e;
}

static void set_base(kq_writer *w, size_t start, int64_t base)
{
    record_batch_set_base_offset(w->data + start, base);
}

static void add_state(kq_writer *w, int64_t base, const txn_entry *e)
{
    size_t start = w->len;
    assert_true(txn_build_state_batch(w, e));
    set_base(w, start, base);
}

static void add_marker(kq_writer *w, int64_t base, int64_t pid, int16_t epoch, bool commit)
{
    size_t start = w->len;
    assert_true(txn_build_marker(w, pid, epoch, commit, TS + base));
    set_base(w, start, base);
}

/* A data batch of n records at base (transactional or not). */
static void add_data(kq_writer *w, int64_t base, int64_t pid, int16_t epoch, bool txn, int n)
{
    record recs[4];
    memset(recs, 0, sizeof(recs));
    for (int i = 0; i < n; i++) {
        recs[i].timestamp = TS;
        recs[i].key = (kq_slice){ NULL, -1 };
        recs[i].value = (kq_slice){ (const uint8_t *)"v", 1 };
    }
    record_batch_builder_args a = {
        .attributes = txn ? RECORD_ATTR_TRANSACTIONAL : 0,
        .base_timestamp = TS,
        .producer_id = pid,
        .producer_epoch = epoch,
        .base_sequence = pid >= 0 ? 0 : -1,
        .records = recs,
        .record_count = n,
    };
    size_t start = w->len;
    assert_true(record_batch_build(w, &a));
    set_base(w, start, base);
}

static int note(txn_table *t, kq_writer *w)
{
    int n = txn_table_note_batches(t, w->data, w->len, NULL);
    kq_writer_reset(w);
    return n;
}

static void test_state_names(void **state)
{
    (void)state;
    const char *names[] = { "Empty", "Ongoing", "PrepareCommit", "PrepareAbort",
                            "CompleteCommit", "CompleteAbort", "Dead", "PrepareEpochFence" };
    for (int s = 0; s < 8; s++) {
        assert_string_equal(txn_state_name(s), names[s]);
        assert_int_equal(txn_state_parse(names[s], strlen(names[s])), s);
    }
    assert_string_equal(txn_state_name(8), "Unknown");
    assert_string_equal(txn_state_name(-1), "Unknown");
    assert_int_equal(txn_state_parse("Ongoin", 6), -1);
    assert_int_equal(txn_state_parse("Ongoing", 6), -1);
    assert_int_equal(txn_state_parse("ongoing", 7), -1);
    assert_int_equal(txn_state_parse(NULL, 0), -1);
}

static void test_transitions(void **state)
{
    (void)state;
    txn_table *t = txn_table_create();
    kq_writer w;
    kq_writer_init(&w, 0);
    txn_entry e = entry("app-1", 7, TXN_EMPTY);
    add_state(&w, 0, &e);
    assert_int_equal(note(t, &w), 1);
    assert_int_equal(txn_table_noted_to(t), 1);
    txn_entry got;
    assert_true(txn_table_get(t, "app-1", &got));
    assert_int_equal(got.state, TXN_EMPTY);
    assert_string_equal(txn_table_id_of(t, 7), "app-1");
    assert_null(txn_table_id_of(t, 8));
    /* AddPartitionsToTxn + AddOffsetsToTxn: Ongoing with a group. */
    e.state = TXN_ONGOING;
    e.partition_added = true;
    e.start_timestamp_ms = TS + 5;
    e.group_count = 2;
    e.groups[0] = "g1";
    e.groups[1] = "g2";
    add_state(&w, 1, &e);
    assert_int_equal(note(t, &w), 1);
    assert_int_equal(txn_table_ongoing_count(t), 1);
    add_data(&w, 2, 7, 2, true, 3);  /* opens at 2 */
    add_data(&w, 5, 7, 2, true, 1);  /* already open */
    add_data(&w, 6, 9, 0, false, 1); /* not transactional */
    assert_int_equal(note(t, &w), 1);
    int64_t first;
    int16_t epoch;
    assert_true(txn_table_open_of(t, 7, &first, &epoch));
    assert_int_equal(first, 2);
    assert_int_equal(epoch, 2);
    assert_false(txn_table_open_of(t, 9, NULL, NULL));
    assert_int_equal(txn_table_open_count(t), 1);
    /* A timed-out abort with the epoch bumped: the entry is completed. */
    add_marker(&w, 7, 7, 3, false);
    assert_int_equal(note(t, &w), 1);
    assert_true(txn_table_get(t, "app-1", &got));
    assert_int_equal(got.state, TXN_COMPLETE_ABORT);
    assert_int_equal(got.producer_epoch, 3);
    assert_false(got.partition_added);
    assert_int_equal(got.group_count, 0);
    assert_int_equal(got.start_timestamp_ms, -1);
    assert_int_equal(got.update_timestamp_ms, TS + 7);
    assert_int_equal(txn_table_ongoing_count(t), 0);
    assert_int_equal(txn_table_open_count(t), 0);
    assert_int_equal(txn_table_aborted_count(t), 1);
    /* A commit with a lower epoch keeps the entry's. */
    add_marker(&w, 8, 7, 1, true);
    assert_int_equal(note(t, &w), 1);
    assert_true(txn_table_get(t, "app-1", &got));
    assert_int_equal(got.state, TXN_COMPLETE_COMMIT);
    assert_int_equal(got.producer_epoch, 3);
    assert_int_equal(txn_table_aborted_count(t), 1);
    /* A marker of an unknown producer with nothing open moves nothing. */
    add_marker(&w, 9, 99, 0, true);
    assert_int_equal(note(t, &w), 0);
    /* A data batch without an entry still opens (the log is authoritative). */
    add_data(&w, 10, 99, 0, true, 1);
    assert_int_equal(note(t, &w), 1);
    assert_true(txn_table_open_of(t, 99, &first, NULL));
    assert_int_equal(first, 10);
    /* Dead forgets the id. */
    e.state = TXN_DEAD;
    e.group_count = 0;
    add_state(&w, 11, &e);
    assert_int_equal(note(t, &w), 1);
    assert_false(txn_table_get(t, "app-1", NULL));
    assert_null(txn_table_id_of(t, 7));
    assert_int_equal(txn_table_count(t), 0);
    add_state(&w, 12, &e); /* unknown: nothing */
    assert_int_equal(note(t, &w), 0);
    assert_int_equal(txn_table_noted_to(t), 13);
    kq_writer_free(&w);
    txn_table_destroy(t);
}

static void test_many_ids_and_pid_change(void **state)
{
    (void)state;
    txn_table *t = txn_table_create();
    char ids[200][16];
    for (int i = 0; i < 200; i++) {
        snprintf(ids[i], sizeof(ids[i]), "id-%03d", (i * 37) % 200);
        txn_entry e = entry(ids[i], 1000 - (i * 37) % 200, i % 2 ? TXN_ONGOING : TXN_EMPTY);
        assert_true(txn_table_restore_entry(t, &e));
    }
    assert_int_equal(txn_table_count(t), 200);
    assert_int_equal(txn_table_ongoing_count(t), 100);
    for (int i = 0; i < 200; i++) {
        char id[16];
        snprintf(id, sizeof(id), "id-%03d", i);
        assert_string_equal(txn_table_id_of(t, 1000 - i), id);
    }
    /* A new producer id for an id (InitProducerId): the reverse map follows. */
    kq_writer w;
    kq_writer_init(&w, 0);
    txn_entry e = entry("id-005", 5000, TXN_EMPTY);
    add_state(&w, 0, &e);
    assert_int_equal(note(t, &w), 1);
    assert_null(txn_table_id_of(t, 995));
    assert_string_equal(txn_table_id_of(t, 5000), "id-005");
    kq_writer_free(&w);
    txn_table_destroy(t);
}

static void test_lso(void **state)
{
    (void)state;
    txn_table *t = txn_table_create();
    kq_writer w;
    kq_writer_init(&w, 0);
    add_data(&w, 0, -1, -1, false, 2);
    assert_int_equal(note(t, &w), 0);
    assert_int_equal(txn_table_lso(t, 2), 2);
    add_data(&w, 2, 1, 0, true, 2);  /* pid 1 opens at 2 */
    add_data(&w, 4, 2, 0, true, 1);  /* pid 2 opens at 4 */
    assert_int_equal(note(t, &w), 2);
    assert_int_equal(txn_table_lso(t, 3), 2);
    assert_int_equal(txn_table_lso(t, 1), 1); /* never above hw */
    add_marker(&w, 5, 1, 0, true);   /* pid 1 commits at 5 */
    assert_int_equal(note(t, &w), 1);
    txn_table_settle(t, 5);
    assert_int_equal(txn_table_lso(t, 5), 2); /* its marker is not below hw */
    txn_table_settle(t, 6);
    assert_int_equal(txn_table_lso(t, 6), 4); /* pid 2 still open */
    add_marker(&w, 6, 2, 0, false);
    assert_int_equal(note(t, &w), 1);
    assert_int_equal(txn_table_lso(t, 6), 4);
    assert_int_equal(txn_table_lso(t, 7), 7); /* a later hw: the marker is below it */
    txn_table_settle(t, 6);
    assert_int_equal(txn_table_lso(t, 6), 4);
    txn_table_settle(t, 3); /* never back */
    assert_int_equal(txn_table_lso(t, 6), 4);
    txn_table_settle(t, 7);
    assert_int_equal(txn_table_lso(t, 7), 7);
    /* A marker noted below the settled hw (a follower's hw ahead) is stable. */
    add_data(&w, 7, 3, 0, true, 1);
    assert_int_equal(note(t, &w), 1);
    txn_table_settle(t, 20);
    assert_int_equal(txn_table_lso(t, 20), 7);
    add_marker(&w, 8, 3, 0, true);
    assert_int_equal(note(t, &w), 1);
    assert_int_equal(txn_table_lso(t, 20), 20);
    kq_writer_free(&w);
    txn_table_destroy(t);
}

/* Opens and aborts (or commits) pid's transaction at first..marker. */
static void txn_at(txn_table *t, int64_t pid, int64_t first, int64_t marker, bool commit)
{
    kq_writer w;
    kq_writer_init(&w, 0);
    add_data(&w, first, pid, 0, true, 1);
    assert_int_equal(note(t, &w), 1);
    add_marker(&w, marker, pid, 0, commit);
    assert_int_equal(note(t, &w), 1);
    kq_writer_free(&w);
}

static void test_aborted_lookup_and_prune(void **state)
{
    (void)state;
    txn_table *t = txn_table_create();
    kq_writer w;
    kq_writer_init(&w, 0);
    /* Interleaved: pid 1 [0..10], pid 2 [2..5], pid 3 [6..8] committed,
     * pid 4 [11..30], pid 5 [12..13]. */
    add_data(&w, 0, 1, 0, true, 1);
    add_data(&w, 2, 2, 0, true, 1);
    add_marker(&w, 5, 2, 0, false);
    add_data(&w, 6, 3, 0, true, 1);
    add_marker(&w, 8, 3, 0, true);
    add_marker(&w, 10, 1, 0, false);
    add_data(&w, 11, 4, 0, true, 1);
    add_data(&w, 12, 5, 0, true, 1);
    add_marker(&w, 13, 5, 0, false);
    add_marker(&w, 30, 4, 0, false);
    assert_int_equal(note(t, &w), 10);
    assert_int_equal(txn_table_aborted_count(t), 4);
    txn_aborted out[8];
    assert_int_equal(txn_table_aborted(t, 0, 100, out, 8), 4);
    int64_t firsts[] = { 0, 2, 11, 12 }; /* first_offset order */
    int64_t lasts[] = { 10, 5, 30, 13 };
    for (int i = 0; i < 4; i++) {
        assert_int_equal(out[i].first_offset, firsts[i]);
        assert_int_equal(out[i].last_offset, lasts[i]);
    }
    assert_int_equal(out[0].producer_id, 1);
    /* [6, 11): pid 1 only (pid 2's marker is below 6, pid 4 starts at 11). */
    assert_int_equal(txn_table_aborted(t, 6, 11, out, 8), 1);
    assert_int_equal(out[0].producer_id, 1);
    /* [5, 12): pids 2 (marker at 5), 1, 4. */
    assert_int_equal(txn_table_aborted(t, 5, 12, out, 8), 3);
    assert_int_equal(out[0].producer_id, 1);
    assert_int_equal(out[1].producer_id, 2);
    assert_int_equal(out[2].producer_id, 4);
    /* [14, 100): pid 4 only. */
    assert_int_equal(txn_table_aborted(t, 14, 100, out, 8), 1);
    assert_int_equal(out[0].producer_id, 4);
    assert_int_equal(txn_table_aborted(t, 31, 100, out, 8), 0);
    /* max: the first ones in first_offset order, the total returned. */
    assert_int_equal(txn_table_aborted(t, 0, 100, out, 2), 4);
    assert_int_equal(out[0].first_offset, 0);
    assert_int_equal(out[1].first_offset, 2);
    assert_int_equal(txn_table_aborted(t, 0, 100, NULL, 0), 4);
    /* Prune: markers below the log start go. */
    txn_table_prune(t, 10);
    assert_int_equal(txn_table_aborted_count(t), 3);
    assert_int_equal(txn_table_aborted(t, 0, 100, out, 8), 3);
    assert_int_equal(out[0].producer_id, 1);
    txn_table_prune(t, 14);
    assert_int_equal(txn_table_aborted_count(t), 1);
    txn_table_prune(t, 31);
    assert_int_equal(txn_table_aborted_count(t), 0);
    kq_writer_free(&w);
    txn_table_destroy(t);
}

static void test_aborted_many(void **state)
{
    (void)state;
    txn_table *t = txn_table_create();
    /* 2000 aborted transactions of 3 offsets each, one long one across. */
    kq_writer w;
    kq_writer_init(&w, 0);
    add_data(&w, 0, 100000, 0, true, 1);
    assert_int_equal(note(t, &w), 1);
    for (int i = 0; i < 2000; i++)
        txn_at(t, i, 1 + 3 * i, 3 + 3 * i, false);
    add_marker(&w, 7000, 100000, 0, false);
    assert_int_equal(note(t, &w), 1);
    txn_aborted out[16];
    assert_int_equal(txn_table_aborted(t, 3000, 3010, out, 16), 5);
    assert_int_equal(out[0].producer_id, 100000); /* first offset 0 */
    assert_int_equal(out[1].first_offset, 2998);
    assert_int_equal(txn_table_aborted(t, 7000, 7001, out, 16), 1);
    int total = txn_table_aborted(t, 0, 8000, out, 16);
    assert_int_equal(total, 2001);
    for (int i = 1; i < 16; i++)
        assert_true(out[i - 1].first_offset < out[i].first_offset);
    kq_writer_free(&w);
    txn_table_destroy(t);
}

static void test_refused_calls_note_nothing(void **state)
{
    (void)state;
    txn_table *t = txn_table_create();
    kq_writer w;
    kq_writer_init(&w, 0);
    txn_entry e = entry("a", 1, TXN_EMPTY);
    add_state(&w, 10, &e);
    assert_int_equal(note(t, &w), 1);
    /* Not ascending past what was noted. */
    add_data(&w, 11, 5, 0, true, 1);
    add_state(&w, 10, &e);
    assert_int_equal(note(t, &w), -1);
    assert_false(txn_table_open_of(t, 5, NULL, NULL));
    assert_int_equal(txn_table_noted_to(t), 11);
    /* A batch that is not whole. */
    add_data(&w, 11, 5, 0, true, 1);
    add_data(&w, 12, 6, 0, true, 1);
    assert_int_equal(txn_table_note_batches(t, w.data, w.len - 1, NULL), -1);
    kq_writer_reset(&w);
    assert_int_equal(txn_table_open_count(t), 0);
    assert_int_equal(txn_table_noted_to(t), 11);
    assert_int_equal(txn_table_note_batches(t, NULL, 0, NULL), 0);
    assert_int_equal(txn_table_noted_to(t), 11);
    kq_writer_free(&w);
    txn_table_destroy(t);
}

/* A control batch holding one KQ_CONTROL_TXN record whose value is v. */
static void add_raw_state(kq_writer *w, int64_t base, const uint8_t *v, int32_t len)
{
    uint8_t key[4] = { 0, 0, KQ_CONTROL_TXN >> 8, KQ_CONTROL_TXN & 0xff };
    record rec;
    memset(&rec, 0, sizeof(rec));
    rec.timestamp = TS;
    rec.key = (kq_slice){ key, 4 };
    rec.value = (kq_slice){ v, len };
    record_batch_builder_args a = { .attributes = RECORD_ATTR_CONTROL, .base_timestamp = TS,
                                    .producer_id = -1, .producer_epoch = -1,
                                    .base_sequence = -1, .records = &rec, .record_count = 1 };
    size_t start = w->len;
    assert_true(record_batch_build(w, &a));
    set_base(w, start, base);
}

static void test_unparsable_skipped(void **state)
{
    (void)state;
    txn_table *t = txn_table_create();
    kq_writer w;
    kq_writer_init(&w, 0);
    const uint8_t junk[5] = { 0, 0, 0, 1, 'x' };
    add_raw_state(&w, 0, junk, sizeof(junk));
    txn_entry e = entry("ok", 1, TXN_EMPTY);
    add_state(&w, 1, &e);
    add_raw_state(&w, 2, junk, -1);
    /* A control batch whose records do not parse (record count too high). */
    size_t start = w.len;
    add_raw_state(&w, 3, junk, sizeof(junk));
    w.data[start + 57 + 3] = 2; /* RecordsCount 1 -> 2 (no CRC check here) */
    txn_skipped sk;
    assert_int_equal(txn_table_note_batches(t, w.data, w.len, &sk), 1);
    assert_int_equal(sk.count, 3);
    assert_int_equal(sk.first_offset, 0);
    assert_non_null(sk.reason);
    assert_true(txn_table_get(t, "ok", NULL));
    assert_int_equal(txn_table_count(t), 1);
    assert_int_equal(txn_table_noted_to(t), 4);
    kq_writer_free(&w);
    txn_table_destroy(t);
}

static void test_builders(void **state)
{
    (void)state;
    kq_writer w;
    kq_writer_init(&w, 0);
    assert_true(txn_build_marker(&w, 42, 3, true, TS));
    record_batch_header h;
    assert_int_equal(record_batch_check(w.data, w.len, &h), RECORD_OK);
    assert_int_equal(h.attributes, 0x30);
    assert_int_equal(h.producer_id, 42);
    assert_int_equal(h.producer_epoch, 3);
    assert_int_equal(h.base_sequence, -1);
    assert_int_equal(h.record_count, 1);
    record_iter it;
    record rec;
    assert_int_equal(record_iter_open(&it, w.data, w.len), RECORD_OK);
    assert_true(record_iter_next(&it, &rec));
    const uint8_t key[4] = { 0, 0, 0, 1 }, value[6] = { 0, 0, 0, 0, 0, 0 };
    assert_int_equal(rec.key.len, 4);
    assert_memory_equal(rec.key.ptr, key, 4);
    assert_int_equal(rec.value.len, 6);
    assert_memory_equal(rec.value.ptr, value, 6);
    record_iter_close(&it);
    int64_t pid;
    int16_t epoch;
    bool commit = false;
    assert_true(txn_parse_marker(w.data, w.len, &pid, &epoch, &commit));
    assert_int_equal(pid, 42);
    assert_int_equal(epoch, 3);
    assert_true(commit);
    assert_false(txn_parse_marker(w.data, w.len - 1, NULL, NULL, NULL));
    kq_writer_reset(&w);
    assert_true(txn_build_marker(&w, 42, 3, false, TS));
    assert_true(txn_parse_marker(w.data, w.len, NULL, NULL, &commit));
    assert_false(commit);
    assert_false(txn_build_marker(&w, -1, 0, true, TS));
    kq_writer_reset(&w);
    txn_entry e = entry("app", 5, TXN_ONGOING);
    e.group_count = 1;
    e.groups[0] = "grp";
    assert_true(txn_build_state_batch(&w, &e));
    assert_int_equal(record_batch_check(w.data, w.len, &h), RECORD_OK);
    assert_int_equal(h.attributes, RECORD_ATTR_CONTROL);
    assert_int_equal(h.producer_id, -1);
    assert_int_equal(h.max_timestamp, TS + 1);
    assert_false(txn_parse_marker(w.data, w.len, NULL, NULL, NULL));
    txn_table *t = txn_table_create();
    assert_int_equal(txn_table_note_batches(t, w.data, w.len, NULL), 1);
    txn_entry got;
    assert_true(txn_table_get(t, "app", &got));
    assert_int_equal(got.producer_id, 5);
    assert_int_equal(got.group_count, 1);
    assert_string_equal(got.groups[0], "grp");
    assert_int_equal(got.start_timestamp_ms, TS);
    e.timeout_ms = 0;
    assert_false(txn_build_state_batch(&w, &e));
    txn_table_destroy(t);
    kq_writer_free(&w);
}

/* Every entry, open and aborted transaction written into w. */
static int dump_entry(void *ctx, const txn_entry *e)
{
    txn_write_entry_value(ctx, e);
    return 0;
}
static int dump_open(void *ctx, const txn_open *o)
{
    txn_write_open_value(ctx, o);
    return 0;
}
static int dump_aborted(void *ctx, const txn_aborted *a)
{
    txn_write_aborted_value(ctx, a, 1);
    return 0;
}
static void dump(const txn_table *t, kq_writer *w)
{
    txn_table_foreach(t, dump_entry, w);
    txn_table_foreach_open(t, dump_open, w);
    txn_table_foreach_aborted(t, dump_aborted, w);
    kq_write_i64(w, txn_table_lso(t, 1000));
    kq_write_i64(w, (int64_t)txn_table_bytes(t));
}

static int restore_entry(void *ctx, const txn_entry *e)
{
    return !txn_table_restore_entry(ctx, e);
}
static int restore_open(void *ctx, const txn_open *o)
{
    return !txn_table_restore_open(ctx, o, 1000);
}
static int restore_aborted(void *ctx, const txn_aborted *a)
{
    return !txn_table_restore_aborted(ctx, a, 1000);
}

static void test_restore_round_trip(void **state)
{
    (void)state;
    txn_table *t = txn_table_create();
    kq_writer w;
    kq_writer_init(&w, 0);
    for (int i = 0; i < 20; i++) {
        char id[16];
        snprintf(id, sizeof(id), "t%d", 19 - i);
        txn_entry e = entry(id, 100 + i, i % 3 ? TXN_ONGOING : TXN_COMPLETE_COMMIT);
        if (i % 3) {
            e.group_count = 2;
            e.groups[0] = "ga";
            e.groups[1] = "gb";
            e.partition_added = true;
        }
        add_state(&w, i, &e);
    }
    assert_int_equal(note(t, &w), 20);
    for (int i = 0; i < 10; i++)
        txn_at(t, 200 + i, 20 + 2 * i, 21 + 2 * i, i % 2 == 0);
    add_data(&w, 40, 300, 1, true, 1);
    add_data(&w, 41, 250, 2, true, 1);
    assert_int_equal(note(t, &w), 2);
    txn_table_settle(t, 42);
    txn_table *r = txn_table_create();
    assert_int_equal(txn_table_foreach(t, restore_entry, r), 0);
    assert_int_equal(txn_table_foreach_open(t, restore_open, r), 0);
    assert_int_equal(txn_table_foreach_aborted(t, restore_aborted, r), 0);
    txn_table_restored(r, 42);
    assert_int_equal(txn_table_noted_to(r), 42);
    kq_writer a, b;
    kq_writer_init(&a, 0);
    kq_writer_init(&b, 0);
    dump(t, &a);
    dump(r, &b);
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.data, b.data, a.len);
    assert_int_equal(txn_table_ongoing_count(r), txn_table_ongoing_count(t));
    assert_string_equal(txn_table_id_of(r, 105), "t14");
    /* Swap and clear. */
    txn_table *empty = txn_table_create();
    txn_table_swap(r, empty);
    assert_int_equal(txn_table_count(r), 0);
    assert_int_equal(txn_table_count(empty), 20);
    txn_table_clear(empty);
    assert_int_equal(txn_table_count(empty), 0);
    assert_int_equal(txn_table_noted_to(empty), -1);
    assert_int_equal(txn_table_bytes(empty), 0);
    /* The rules of restore. */
    txn_entry e = entry("t3", 1, TXN_EMPTY);
    assert_true(txn_table_restore_entry(empty, &e));
    assert_false(txn_table_restore_entry(empty, &e)); /* twice */
    e = entry("dead", 1, TXN_DEAD);
    assert_false(txn_table_restore_entry(empty, &e));
    txn_open o = { .producer_id = 1, .producer_epoch = 0, .first_offset = 5 };
    assert_false(txn_table_restore_open(empty, &o, 5)); /* at the end offset */
    assert_true(txn_table_restore_open(empty, &o, 6));
    assert_false(txn_table_restore_open(empty, &o, 6)); /* twice */
    txn_aborted ab = { .producer_id = 1, .first_offset = 2, .last_offset = 4 };
    assert_true(txn_table_restore_aborted(empty, &ab, 6));
    assert_false(txn_table_restore_aborted(empty, &ab, 6)); /* not after the last */
    ab.first_offset = 5;
    ab.last_offset = 5;
    assert_false(txn_table_restore_aborted(empty, &ab, 6));
    ab.first_offset = 4;
    ab.last_offset = 6;
    assert_false(txn_table_restore_aborted(empty, &ab, 6));
    kq_writer_free(&a);
    kq_writer_free(&b);
    kq_writer_free(&w);
    txn_table_destroy(empty);
    txn_table_destroy(r);
    txn_table_destroy(t);
}

static void write_value(kq_writer *w, const txn_entry *e)
{
    kq_writer_reset(w);
    txn_write_entry_value(w, e);
    assert_false(w->error);
}

static const char *read_copy(const kq_writer *w, size_t len)
{
    txn_entry_value v;
    txn_entry plain;
    kq_slice s = { w->data, (int32_t)len };
    const char *a = txn_read_entry_value_copy(s, &v);
    const char *b = txn_read_entry_value(s, &plain);
    assert_true((a == NULL) == (b == NULL));
    return a;
}

static void test_hostile_values(void **state)
{
    (void)state;
    kq_writer w;
    kq_writer_init(&w, 0);
    txn_entry e = entry("abc", 9, TXN_ONGOING);
    e.group_count = 2;
    e.groups[0] = "g1";
    e.groups[1] = "g2";
    write_value(&w, &e);
    assert_null(read_copy(&w, w.len));
    for (size_t n = 0; n < w.len; n++) /* every truncation */
        assert_non_null(read_copy(&w, n));
    txn_entry_value v;
    assert_null(txn_read_entry_value_copy((kq_slice){ w.data, (int32_t)w.len }, &v));
    assert_string_equal(v.entry.transactional_id, "abc");
    assert_string_equal(v.entry.groups[1], "g2");
    assert_non_null(txn_read_entry_value((kq_slice){ NULL, -1 }, &v.entry));
    kq_write_i8(&w, 0); /* a byte after */
    assert_non_null(read_copy(&w, w.len));
    /* Every one-byte change is refused or parses into a valid entry. */
    write_value(&w, &e);
    for (size_t i = 0; i < w.len; i++) {
        for (int d = 1; d < 256; d += 37) {
            w.data[i] = (uint8_t)(w.data[i] + d);
            txn_entry_value m;
            if (!txn_read_entry_value_copy((kq_slice){ w.data, (int32_t)w.len }, &m))
                assert_null(txn_entry_invalid(&m.entry));
            w.data[i] = (uint8_t)(w.data[i] - d);
        }
    }
    /* Named ones: version, lengths past the value, state, groups, NULs. */
    size_t state_at = 2 + 2 + 3 + 8 + 2 + 4, count_at = state_at + 2 + 16;
    w.data[1] = 1;
    assert_string_equal(read_copy(&w, w.len), "unknown value version");
    w.data[1] = 0;
    w.data[3] = 200; /* id length past the value */
    assert_non_null(read_copy(&w, w.len));
    w.data[3] = 3;
    w.data[state_at] = 8;
    assert_string_equal(read_copy(&w, w.len), "state out of range");
    w.data[state_at] = (uint8_t)-1;
    assert_string_equal(read_copy(&w, w.len), "state out of range");
    w.data[state_at] = TXN_ONGOING;
    w.data[state_at + 1] = 2;
    assert_non_null(read_copy(&w, w.len));
    w.data[state_at + 1] = 1;
    w.data[count_at + 1] = KQ_TXN_GROUPS_MAX + 1;
    assert_string_equal(read_copy(&w, w.len), "group count out of range");
    w.data[count_at + 1] = 2;
    assert_null(read_copy(&w, w.len));
    w.data[5] = '\0'; /* "a\0c" */
    assert_non_null(read_copy(&w, w.len));
    w.data[5] = 'b';
    w.data[count_at + 2 + 2 + 1] = '\0'; /* "g\0" */
    assert_non_null(read_copy(&w, w.len));
    w.data[count_at + 2 + 2 + 1] = '2'; /* "g2", "g2": twice */
    assert_string_equal(read_copy(&w, w.len), "group listed twice");
    /* Too many groups, too long an id: refused by the writer's side too. */
    txn_entry big = e;
    big.group_count = KQ_TXN_GROUPS_MAX + 1;
    assert_non_null(txn_entry_invalid(&big));
    char longid[KQ_TXN_ID_BYTES_MAX + 1];
    memset(longid, 'x', KQ_TXN_ID_BYTES_MAX);
    longid[KQ_TXN_ID_BYTES_MAX] = '\0';
    big = e;
    big.transactional_id = longid;
    assert_non_null(txn_entry_invalid(&big));
    longid[KQ_TXN_ID_BYTES_MAX - 1] = '\0';
    assert_null(txn_entry_invalid(&big));
    big.transactional_id = "";
    assert_non_null(txn_entry_invalid(&big));
    /* Open and aborted values. */
    txn_open o = { .producer_id = 3, .producer_epoch = 1, .first_offset = 7 }, oo;
    kq_writer_reset(&w);
    txn_write_open_value(&w, &o);
    assert_null(txn_read_open_value((kq_slice){ w.data, (int32_t)w.len }, &oo));
    assert_int_equal(oo.producer_id, 3);
    assert_int_equal(oo.producer_epoch, 1);
    assert_int_equal(oo.first_offset, 7);
    for (size_t n = 0; n < w.len; n++)
        assert_non_null(txn_read_open_value((kq_slice){ w.data, (int32_t)n }, &oo));
    w.data[w.len - 1] = 0xff;
    w.data[w.len - 8] = 0xff; /* first offset negative */
    assert_non_null(txn_read_open_value((kq_slice){ w.data, (int32_t)w.len }, &oo));
    txn_aborted ab[2] = { { 1, 2, 3 }, { 4, 5, 9 } };
    kq_writer_reset(&w);
    txn_write_aborted_value(&w, ab, 2);
    assert_null(txn_read_aborted_value((kq_slice){ w.data, (int32_t)w.len }, NULL, NULL));
    for (size_t n = 0; n < w.len; n++)
        assert_non_null(txn_read_aborted_value((kq_slice){ w.data, (int32_t)n }, NULL, NULL));
    w.data[3] = 3; /* count past the value */
    assert_non_null(txn_read_aborted_value((kq_slice){ w.data, (int32_t)w.len }, NULL, NULL));
    w.data[3] = 0;
    assert_non_null(txn_read_aborted_value((kq_slice){ w.data, (int32_t)w.len }, NULL, NULL));
    w.data[3] = 2;
    w.data[4 + 24 + 8 + 7] = 9; /* first offset 9 = its marker */
    assert_non_null(txn_read_aborted_value((kq_slice){ w.data, (int32_t)w.len }, NULL, NULL));
    kq_writer_free(&w);
}

static int count_cb(void *ctx, const txn_aborted *a)
{
    (void)a;
    return ++*(int *)ctx == 2;
}

static void test_aborted_value_cb_and_bytes(void **state)
{
    (void)state;
    txn_aborted ab[3] = { { 1, 2, 3 }, { 4, 5, 9 }, { 6, 7, 10 } };
    kq_writer w;
    kq_writer_init(&w, 0);
    txn_write_aborted_value(&w, ab, 3);
    int n = 0;
    assert_string_equal(txn_read_aborted_value((kq_slice){ w.data, (int32_t)w.len }, count_cb, &n),
                        "refused by the loader");
    assert_int_equal(n, 2);
    /* A full table's cost is within KQ_TXN_SNAPSHOT_BYTES_MAX, and each value
     * within what it is counted for. */
    txn_table *t = txn_table_create();
    char groups[KQ_TXN_GROUPS_MAX][KQ_GROUP_NAME_BYTES_MAX];
    for (int g = 0; g < KQ_TXN_GROUPS_MAX; g++) {
        memset(groups[g], 'a' + g, KQ_GROUP_NAME_BYTES_MAX - 1);
        groups[g][KQ_GROUP_NAME_BYTES_MAX - 1] = '\0';
    }
    char id[KQ_TXN_ID_BYTES_MAX];
    memset(id, 'i', sizeof(id) - 1);
    id[sizeof(id) - 1] = '\0';
    for (int i = 0; i < KQ_TXN_IDS_MAX; i++) {
        snprintf(id, 8, "%07d", i);
        id[7] = 'i';
        txn_entry e = entry(id, i, TXN_ONGOING);
        e.group_count = KQ_TXN_GROUPS_MAX;
        for (int g = 0; g < KQ_TXN_GROUPS_MAX; g++)
            e.groups[g] = groups[g];
        assert_true(txn_table_restore_entry(t, &e));
        if (i == 0) {
            kq_writer_reset(&w);
            txn_write_entry_value(&w, &e);
            assert_true(16 + 6 + w.len <= txn_table_bytes(t));
        }
    }
    for (int i = 0; i < KQ_TXN_OPEN_MAX; i++) {
        txn_open o = { .producer_id = i, .producer_epoch = 0, .first_offset = 10000000 + i };
        assert_true(txn_table_restore_open(t, &o, 20000000));
    }
    for (int i = 0; i < KQ_TXN_ABORTED_MAX; i++) {
        txn_aborted a = { .producer_id = i, .first_offset = 2 * i, .last_offset = 2 * i + 1 };
        assert_true(txn_table_restore_aborted(t, &a, 20000000));
    }
    assert_true(txn_table_bytes(t) <= KQ_TXN_SNAPSHOT_BYTES_MAX);
    assert_true(txn_table_bytes(t) > KQ_TXN_SNAPSHOT_BYTES_MAX - KQ_TXN_IDS_MAX * 16);
    assert_int_equal(txn_table_ongoing_count(t), KQ_TXN_IDS_MAX);
    txn_table_destroy(t);
    kq_writer_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_state_names),
        cmocka_unit_test(test_transitions),
        cmocka_unit_test(test_many_ids_and_pid_change),
        cmocka_unit_test(test_lso),
        cmocka_unit_test(test_aborted_lookup_and_prune),
        cmocka_unit_test(test_aborted_many),
        cmocka_unit_test(test_refused_calls_note_nothing),
        cmocka_unit_test(test_unparsable_skipped),
        cmocka_unit_test(test_builders),
        cmocka_unit_test(test_restore_round_trip),
        cmocka_unit_test(test_hostile_values),
        cmocka_unit_test(test_aborted_value_cb_and_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
