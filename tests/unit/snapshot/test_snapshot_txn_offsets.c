/* Snapshot files with "kq.txn-offset" records (issue 23, src/storage/
 * FORMAT.md "Snapshot content"): the stashed transactional offset commits
 * of a table (two producers, beside committed and pending commits) survive
 * kq_snapshot_encode/decode in producer id then stash order, the bytes are
 * as specified, re-encoding gives the same file, a marker after loading
 * makes them visible, bad values are refused, a table held up to its byte
 * budget fits one snapshot. */
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

static group_offset entry(const char *group, const char *topic, int32_t partition,
                          int64_t offset, const char *metadata)
{
    return (group_offset){ .group_id = group, .topic = topic, .partition = partition,
                           .offset = offset, .leader_epoch = 2, .metadata = metadata,
                           .commit_timestamp_ms = TS_MS + offset, .log_offset = -1 };
}

static void sample_meta(kq_snapshot_meta *m, int64_t end_offset)
{
    memset(m, 0, sizeof(*m));
    m->id = (raft_snapshot_id){ end_offset, 3 };
    m->last_contained_timestamp_ms = TS_MS;
    m->voter_count = 1;
    m->voter_ids[0] = 1;
}

static void note(group_offsets *o, kq_writer *w, int64_t base_offset)
{
    record_batch_set_base_offset(w->data, base_offset);
    assert_true(group_offsets_note_batches(o, w->data, w->len) >= 0);
    kq_writer_reset(w);
}

static void note_txn(group_offsets *o, int64_t base_offset, int64_t pid, const group_offset *e)
{
    kq_writer w;
    kq_writer_init(&w, 0);
    assert_true(group_offsets_build_txn_batch(&w, e, 1, TS_MS, pid, 0));
    note(o, &w, base_offset);
    kq_writer_free(&w);
}

static void note_marker(group_offsets *o, int64_t offset, int64_t pid, bool commit)
{
    uint8_t key[4] = { 0, 0, 0, commit ? 1 : 0 };
    uint8_t value[6] = { 0 };
    record rec = { .timestamp = TS_MS, .key = { key, 4 }, .value = { value, 6 } };
    record_batch_builder_args a = { .attributes = RECORD_ATTR_CONTROL | RECORD_ATTR_TRANSACTIONAL,
                                    .base_timestamp = TS_MS, .producer_id = pid,
                                    .producer_epoch = 0, .base_sequence = -1, .records = &rec,
                                    .record_count = 1 };
    kq_writer w;
    kq_writer_init(&w, 0);
    assert_true(record_batch_build(&w, &a));
    note(o, &w, offset);
    kq_writer_free(&w);
}

/* Committed "g/t/0", an ordinary pending commit, producer 9 stashing two
 * commits and producer 4 one, producer 5's commit aborted (not written). */
static group_offsets *sample_table(void)
{
    group_offsets *o = group_offsets_create();
    group_offset c = entry("g", "t", 0, 1, NULL);
    assert_true(group_offsets_restore(o, &c));
    group_offset p9a = entry("g", "t", 0, 90, "x"), p9b = entry("g", "u", 3, 91, NULL);
    group_offset p4 = entry("h", "t", 0, 40, ""), p5 = entry("g", "t", 1, 50, NULL);
    note_txn(o, 0, 9, &p9a);
    note_txn(o, 1, 5, &p5);
    note_txn(o, 2, 4, &p4);
    kq_writer w;
    kq_writer_init(&w, 0);
    group_offset plain = entry("g", "t", 2, 7, NULL);
    assert_true(group_offsets_build_batch(&w, &plain, 1, TS_MS));
    note(o, &w, 3);
    kq_writer_free(&w);
    note_txn(o, 4, 9, &p9b);
    note_marker(o, 5, 5, false);
    assert_int_equal(group_offsets_txn_count(o), 3);
    return o;
}

typedef struct dump {
    char text[1024];
    size_t len;
} dump;

static int dump_txn(void *ctx, int64_t pid, const group_offset *e)
{
    dump *d = ctx;
    int n = snprintf(d->text + d->len, sizeof d->text - d->len, "%lld:%s/%s/%d=%lld,%d,%s,%lld;",
                     (long long)pid, e->group_id, e->topic, (int)e->partition,
                     (long long)e->offset, (int)e->leader_epoch,
                     e->metadata ? e->metadata : "(null)", (long long)e->commit_timestamp_ms);
    assert_true(n > 0 && (size_t)n < sizeof d->text - d->len);
    d->len += (size_t)n;
    return 0;
}

static int dump_end(void *ctx, const group_offset *e)
{
    return dump_txn(ctx, -1, e);
}

static void assert_same(const group_offsets *a, const group_offsets *b)
{
    dump da = { .len = 0 }, db = { .len = 0 };
    assert_int_equal(group_offsets_foreach_txn(a, dump_txn, &da), 0);
    assert_int_equal(group_offsets_foreach_at_end(a, dump_end, &da), 0);
    assert_int_equal(group_offsets_foreach_txn(b, dump_txn, &db), 0);
    assert_int_equal(group_offsets_foreach_at_end(b, dump_end, &db), 0);
    assert_string_equal(da.text, db.text);
}

/* The file's "kq.txn-offset" records, in file order, as their values. */
static int txn_records(const kq_writer *w, kq_slice *values, int max)
{
    int n = 0;
    for (size_t pos = 0; pos < w->len;) {
        record_batch_header h;
        assert_int_equal(record_batch_check(w->data + pos, w->len - pos, &h), RECORD_OK);
        record_iter it;
        record rec;
        assert_int_equal(record_iter_open(&it, w->data + pos, w->len - pos), RECORD_OK);
        while (record_iter_next(&it, &rec))
            if (!record_batch_is_control(&h) && kq_slice_eq_cstr(rec.key, "kq.txn-offset")) {
                assert_true(n < max);
                values[n++] = rec.value;
            }
        record_iter_close(&it);
        pos += record_batch_size(&h);
    }
    return n;
}

static void test_round_trip(void **state)
{
    (void)state;
    group_offsets *a = sample_table();
    kq_snapshot_meta m;
    sample_meta(&m, 6);
    kq_writer w;
    kq_writer_init(&w, 0);
    assert_int_equal(kq_snapshot_encode(NULL, a, &m, &w), 0);
    group_offsets *b = group_offsets_create();
    group_offset stale = entry("stale", "t", 0, 1, NULL);
    note_txn(b, 0, 77, &stale); /* cleared by decode */
    char err[ERR_BYTES];
    int rc = kq_snapshot_decode(w.data, w.len, m.id, NULL, b, NULL, err, sizeof err);
    if (rc)
        fail_msg("%s", err);
    assert_same(a, b);
    assert_int_equal(group_offsets_txn_count(b), 3);
    assert_false(group_offsets_txn_pending(b, "stale", "t", 0));
    assert_true(group_offsets_txn_pending(b, "g", "u", 3));
    assert_false(group_offsets_txn_pending(b, "g", "t", 1)); /* aborted */

    /* The records: producer id order, then stash order; the bytes of
     * FORMAT.md (version 0, producer id, the kq.group-offset fields). */
    kq_slice v[4];
    assert_int_equal(txn_records(&w, v, 4), 3);
    group_offset p4 = entry("h", "t", 0, 40, "");
    kq_writer want;
    kq_writer_init(&want, 0);
    kq_write_i16(&want, 0);
    kq_write_i64(&want, 4);
    group_offset_write_value(&want, &p4);
    /* The group-offset value without its own version follows the producer id. */
    memmove(want.data + 10, want.data + 12, want.len - 12);
    want.len -= 2;
    assert_int_equal(v[0].len, (int32_t)want.len);
    assert_memory_equal(v[0].ptr, want.data, want.len);
    int64_t pid;
    group_offset_value gv;
    assert_null(group_offset_read_txn_value(v[1], &pid, &gv));
    assert_int_equal(pid, 9);
    assert_int_equal(gv.entry.offset, 90);
    assert_null(group_offset_read_txn_value(v[2], &pid, &gv));
    assert_int_equal(pid, 9);
    assert_int_equal(gv.entry.offset, 91);
    kq_writer_free(&want);

    /* Re-encoding the loaded table gives the same bytes. */
    kq_writer w2;
    kq_writer_init(&w2, 0);
    assert_int_equal(kq_snapshot_encode(NULL, b, &m, &w2), 0);
    assert_int_equal(w.len, w2.len);
    assert_memory_equal(w.data, w2.data, w.len);

    /* The loaded stash waits for its markers, as the original's. */
    note_marker(b, 6, 9, true);
    note_marker(b, 7, 4, false);
    group_offsets_commit(b, 8);
    group_offset got;
    assert_true(group_offsets_get(b, "g", "t", 0, &got));
    assert_int_equal(got.offset, 90);
    assert_true(group_offsets_get(b, "g", "u", 3, &got));
    assert_false(group_offsets_get(b, "h", "t", 0, &got));
    assert_true(group_offsets_get(b, "g", "t", 2, &got));
    assert_int_equal(group_offsets_txn_count(b), 0);
    kq_writer_free(&w);
    kq_writer_free(&w2);
    group_offsets_destroy(a);
    group_offsets_destroy(b);
}

/* A value that does not parse exactly, or with a negative producer id, is
 * refused; validation alone (no table) reads the records too. */
static void test_bad_values_refused(void **state)
{
    (void)state;
    group_offsets *a = group_offsets_create();
    group_offset e = entry("g", "t", 0, 5, NULL);
    note_txn(a, 0, 3, &e);
    kq_snapshot_meta m;
    sample_meta(&m, 1);
    kq_writer w;
    kq_writer_init(&w, 0);
    assert_int_equal(kq_snapshot_encode(NULL, a, &m, &w), 0);
    char err[ERR_BYTES];
    assert_int_equal(kq_snapshot_decode(w.data, w.len, m.id, NULL, NULL, NULL, err, sizeof err),
                     0);
    kq_slice v[2];
    assert_int_equal(txn_records(&w, v, 2), 1);
    size_t at = (size_t)(v[0].ptr - w.data);
    const size_t mutate[] = { at + 1, at + 2, at + 10 }; /* version, producer id sign, group length */
    for (size_t i = 0; i < sizeof mutate / sizeof mutate[0]; i++) {
        kq_writer c;
        kq_writer_init(&c, 0);
        kq_write_raw(&c, w.data, w.len);
        c.data[mutate[i]] ^= 0x80;
        /* Re-sign the batch so that only the value is wrong. */
        size_t pos = 0;
        record_batch_header h;
        while (true) {
            assert_int_equal(record_batch_parse_header(c.data + pos, c.len - pos, &h), RECORD_OK);
            if (mutate[i] < pos + record_batch_size(&h))
                break;
            pos += record_batch_size(&h);
        }
        uint32_t crc = kq_crc32c(0, c.data + pos + 21, record_batch_size(&h) - 21);
        for (int b = 0; b < 4; b++) /* the CRC at bytes 17..20, big endian */
            c.data[pos + 17 + b] = (uint8_t)(crc >> (24 - 8 * b));
        group_offsets *b = group_offsets_create();
        assert_int_equal(kq_snapshot_decode(c.data, c.len, m.id, NULL, b, NULL, err, sizeof err),
                         -EBADMSG);
        assert_non_null(strstr(err, "kq.txn-offset record"));
        assert_int_equal(group_offsets_txn_count(b), 0);
        group_offsets_destroy(b);
        kq_writer_free(&c);
    }
    kq_writer_free(&w);
    group_offsets_destroy(a);
}

/* A table at its byte budget, all of it stashed commits with the longest
 * names and metadata, fits one snapshot (KQ_SNAPSHOT_BYTES_MAX). */
static void test_budget_fits_snapshot(void **state)
{
    (void)state;
    static char big[KQ_GROUP_OFFSET_METADATA_BYTES_MAX + 1], group[KQ_GROUP_NAME_BYTES_MAX];
    static char topic[KQ_TOPIC_NAME_BYTES_MAX];
    memset(big, 'm', sizeof big - 1);
    memset(group, 'g', sizeof group - 1);
    memset(topic, 't', sizeof topic - 1);
    group_offsets *a = group_offsets_create();
    int n = 0;
    for (;; n++) {
        group_offset e = entry(group, topic, n, n, big);
        if (!group_offsets_admits_txn(a, &e, 0))
            break;
        assert_true(group_offsets_restore_txn(a, n % 7, &e));
    }
    assert_true(n > 100);
    assert_true(group_offsets_bytes(a) <= KQ_GROUP_OFFSETS_BYTES_MAX);
    kq_snapshot_meta m;
    sample_meta(&m, 1);
    kq_writer w;
    kq_writer_init(&w, 0);
    assert_int_equal(kq_snapshot_encode(NULL, a, &m, &w), 0);
    assert_true(w.len <= group_offsets_bytes(a) + KQ_SNAPSHOT_FIXED_BYTES_MAX +
                             61ull * KQ_SNAPSHOT_BATCHES_MAX);
    assert_true(w.len <= KQ_SNAPSHOT_BYTES_MAX);
    group_offsets *b = group_offsets_create();
    assert_int_equal(kq_snapshot_decode(w.data, w.len, m.id, NULL, b, NULL, NULL, 0), 0);
    assert_int_equal(group_offsets_txn_count(b), n);
    kq_writer_free(&w);
    group_offsets_destroy(a);
    group_offsets_destroy(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_bad_values_refused),
        cmocka_unit_test(test_budget_fits_snapshot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
