/* Snapshot files with the transaction table (issue 23, "kq.txn",
 * "kq.txn-open", "kq.txn-aborted"; include/kq/snapshot_state.h): a full
 * table round trips (more aborted transactions than one record holds), the
 * file fits the table's counted bytes; files without the records give an
 * empty table; bad values, repeats and offsets at or above the end are
 * refused, and every truncation of a small file. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/snapshot_state.h"
#include "kq/txn.h"
#include "snapshot_internal.h"

#define END 100000
#define ERR_BYTES 256

static void sample_meta(kq_snapshot_meta *m)
{
    memset(m, 0, sizeof(*m));
    m->id = (raft_snapshot_id){ END, 4 };
    m->last_contained_timestamp_ms = 1764600000000;
    m->voter_count = 1;
    m->voter_ids[0] = 1;
}

/* ids entries (a third Ongoing with groups), open transactions and
 * aborted ones. */
static txn_table *sample(int ids, int open, int aborted)
{
    txn_table *t = txn_table_create();
    for (int i = 0; i < ids; i++) {
        char id[32];
        snprintf(id, sizeof(id), "txn-%05d", i);
        txn_entry e = { .transactional_id = id, .producer_id = 1000 + i, .producer_epoch = 1,
                        .timeout_ms = 60000, .state = i % 3 ? TXN_COMPLETE_COMMIT : TXN_ONGOING,
                        .partition_added = i % 3 == 0, .start_timestamp_ms = -1,
                        .update_timestamp_ms = 1764600000000 + i };
        if (i % 3 == 0) {
            e.group_count = 2;
            e.groups[0] = "orders";
            e.groups[1] = "billing";
        }
        assert_true(txn_table_restore_entry(t, &e));
    }
    for (int i = 0; i < open; i++) {
        txn_open o = { .producer_id = 1000 + i, .producer_epoch = 1, .first_offset = 90000 + i };
        assert_true(txn_table_restore_open(t, &o, END));
    }
    for (int i = 0; i < aborted; i++) {
        txn_aborted a = { .producer_id = i, .first_offset = 10 * i, .last_offset = 10 * i + 5 };
        assert_true(txn_table_restore_aborted(t, &a, END));
    }
    txn_table_restored(t, END);
    return t;
}

static int put_entry(void *ctx, const txn_entry *e)
{
    txn_write_entry_value(ctx, e);
    return 0;
}
static int put_open(void *ctx, const txn_open *o)
{
    txn_write_open_value(ctx, o);
    return 0;
}
static int put_aborted(void *ctx, const txn_aborted *a)
{
    txn_write_aborted_value(ctx, a, 1);
    return 0;
}

static void assert_same(const txn_table *a, const txn_table *b)
{
    kq_writer wa, wb;
    kq_writer_init(&wa, 0);
    kq_writer_init(&wb, 0);
    const txn_table *t[2] = { a, b };
    kq_writer *w[2] = { &wa, &wb };
    for (int i = 0; i < 2; i++) {
        txn_table_foreach(t[i], put_entry, w[i]);
        txn_table_foreach_open(t[i], put_open, w[i]);
        txn_table_foreach_aborted(t[i], put_aborted, w[i]);
        kq_write_i64(w[i], txn_table_noted_to(t[i]));
        kq_write_i64(w[i], txn_table_lso(t[i], END));
        kq_write_i64(w[i], (int64_t)txn_table_bytes(t[i]));
    }
    assert_int_equal(wa.len, wb.len);
    assert_memory_equal(wa.data, wb.data, wa.len);
    kq_writer_free(&wa);
    kq_writer_free(&wb);
}

static void test_round_trip(void **state)
{
    (void)state;
    txn_table *t = sample(300, 100, 3 * KQ_TXN_SNAPSHOT_ABORTED_PER_RECORD + 7);
    kq_snapshot_meta m;
    sample_meta(&m);
    kq_writer w, plain;
    kq_writer_init(&w, 0);
    kq_writer_init(&plain, 0);
    assert_int_equal(kq_snapshot_encode_all(NULL, NULL, t, &m, NULL, &w), 0);
    assert_int_equal(kq_snapshot_encode(NULL, NULL, &m, &plain), 0);
    /* The records cost at most what the table counts. */
    assert_true(w.len - plain.len <= txn_table_bytes(t) + 61 * (w.len / (1u << 19) + 2));
    txn_table *r = txn_table_create();
    char err[ERR_BYTES];
    assert_int_equal(kq_snapshot_decode_all(w.data, w.len, m.id, NULL, NULL, r, NULL, NULL, err,
                                            sizeof(err)),
                     0);
    assert_same(t, r);
    assert_int_equal(txn_table_count(r), 300);
    assert_int_equal(txn_table_ongoing_count(r), 100);
    /* Validate only, and the old entry points read the file too. */
    assert_int_equal(kq_snapshot_decode(w.data, w.len, m.id, NULL, NULL, NULL, err, sizeof(err)),
                     0);
    /* Encoding the restored table gives the same file. */
    kq_writer again;
    kq_writer_init(&again, 0);
    assert_int_equal(kq_snapshot_encode_all(NULL, NULL, r, &m, NULL, &again), 0);
    assert_int_equal(again.len, w.len);
    assert_memory_equal(again.data, w.data, w.len);
    /* A file without transactions: an empty table noted to its end. */
    assert_int_equal(kq_snapshot_decode_all(plain.data, plain.len, m.id, NULL, NULL, r, NULL,
                                            NULL, err, sizeof(err)),
                     0);
    assert_int_equal(txn_table_count(r), 0);
    assert_int_equal(txn_table_aborted_count(r), 0);
    assert_int_equal(txn_table_noted_to(r), END);
    kq_writer_free(&again);
    kq_writer_free(&w);
    kq_writer_free(&plain);
    txn_table_destroy(r);
    txn_table_destroy(t);
}

/* A file whose data batch holds the records (key, value) after the voters. */
static void build_file(kq_writer *w, const char *const *keys, kq_writer *values, int n)
{
    kq_snapshot_meta m;
    sample_meta(&m);
    kq_writer_reset(w);
    assert_true(snap_build_header(w, 4, m.last_contained_timestamp_ms));
    kq_writer v;
    kq_writer_init(&v, 0);
    snap_write_voters(&v, &m);
    record recs[4];
    memset(recs, 0, sizeof(recs));
    recs[0].key = kq_slice_cstr(SNAP_KEY_VOTERS);
    recs[0].value = (kq_slice){ v.data, (int32_t)v.len };
    for (int i = 0; i < n; i++) {
        recs[i + 1].key = kq_slice_cstr(keys[i]);
        recs[i + 1].value = (kq_slice){ values[i].data, (int32_t)values[i].len };
    }
    record_batch_builder_args a = { .base_offset = 1, .partition_leader_epoch = 4,
                                    .producer_id = -1, .producer_epoch = -1,
                                    .base_sequence = -1, .records = recs,
                                    .record_count = n + 1 };
    assert_true(record_batch_build(w, &a));
    assert_true(snap_build_footer(w, 2 + n, 4, m.last_contained_timestamp_ms));
    kq_writer_free(&v);
}

static int decode(const kq_writer *w, txn_table *t)
{
    char err[ERR_BYTES];
    return kq_snapshot_decode_all(w->data, w->len, (raft_snapshot_id){ END, 4 }, NULL, NULL, t,
                                  NULL, NULL, err, sizeof(err));
}

static void test_refused(void **state)
{
    (void)state;
    txn_table *t = txn_table_create();
    kq_writer w, v[3];
    kq_writer_init(&w, 0);
    for (int i = 0; i < 3; i++)
        kq_writer_init(&v[i], 0);
    txn_entry e = { .transactional_id = "a", .producer_id = 1, .producer_epoch = 0,
                    .timeout_ms = 1000, .state = TXN_EMPTY, .start_timestamp_ms = -1 };
    txn_write_entry_value(&v[0], &e);
    const char *two[2] = { SNAP_KEY_TXN, SNAP_KEY_TXN };
    build_file(&w, two, v, 1);
    assert_int_equal(decode(&w, t), 0);
    assert_int_equal(txn_table_count(t), 1);
    /* Every truncation of the file is refused, and leaves the table empty. */
    for (size_t n = 0; n < w.len; n += 7) {
        char err[ERR_BYTES];
        assert_int_not_equal(kq_snapshot_decode_all(w.data, n, (raft_snapshot_id){ END, 4 }, NULL,
                                                    NULL, t, NULL, NULL, err, sizeof(err)),
                             0);
        assert_int_equal(txn_table_count(t), 0);
    }
    v[1] = v[0];
    build_file(&w, two, v, 2); /* an id twice */
    assert_int_equal(decode(&w, t), -EBADMSG);
    kq_writer_init(&v[1], 0);
    e.state = TXN_DEAD;
    txn_write_entry_value(&v[1], &e);
    build_file(&w, two + 1, v + 1, 1); /* Dead */
    assert_int_equal(decode(&w, t), -EBADMSG);
    /* Open: at the end offset, twice. */
    const char *opens[2] = { SNAP_KEY_TXN_OPEN, SNAP_KEY_TXN_OPEN };
    txn_open o = { .producer_id = 3, .producer_epoch = 0, .first_offset = END };
    kq_writer_reset(&v[2]);
    txn_write_open_value(&v[2], &o);
    build_file(&w, opens, v + 2, 1);
    assert_int_equal(decode(&w, t), -EBADMSG);
    o.first_offset = END - 1;
    kq_writer_reset(&v[2]);
    txn_write_open_value(&v[2], &o);
    build_file(&w, opens, v + 2, 1);
    assert_int_equal(decode(&w, t), 0);
    assert_int_equal(txn_table_open_count(t), 1);
    kq_writer pair[2] = { v[2], v[2] };
    build_file(&w, opens, pair, 2);
    assert_int_equal(decode(&w, t), -EBADMSG);
    /* Aborted: out of order across records, a marker at the end. */
    const char *ab[2] = { SNAP_KEY_TXN_ABORTED, SNAP_KEY_TXN_ABORTED };
    txn_aborted x[2] = { { 1, 10, 20 }, { 2, 5, 30 } };
    kq_writer_reset(&v[0]);
    kq_writer_reset(&v[1]);
    txn_write_aborted_value(&v[0], &x[1], 1);
    txn_write_aborted_value(&v[1], &x[0], 1);
    build_file(&w, ab, v, 2);
    assert_int_equal(decode(&w, t), -EBADMSG);
    build_file(&w, ab, v + 1, 1);
    assert_int_equal(decode(&w, t), 0);
    assert_int_equal(txn_table_aborted_count(t), 1);
    x[0].last_offset = END;
    kq_writer_reset(&v[1]);
    txn_write_aborted_value(&v[1], &x[0], 1);
    build_file(&w, ab, v + 1, 1);
    assert_int_equal(decode(&w, t), -EBADMSG);
    assert_int_equal(txn_table_aborted_count(t), 0);
    /* The encoder refuses what the decoder would. */
    txn_table *bad = txn_table_create();
    txn_open late = { .producer_id = 1, .producer_epoch = 0, .first_offset = END + 5 };
    assert_true(txn_table_restore_open(bad, &late, END + 10));
    kq_snapshot_meta m;
    sample_meta(&m);
    assert_int_equal(kq_snapshot_encode_all(NULL, NULL, bad, &m, NULL, &w), -EINVAL);
    txn_table_destroy(bad);
    for (int i = 0; i < 3; i++)
        kq_writer_free(&v[i]);
    kq_writer_free(&w);
    txn_table_destroy(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
