/* Snapshot files with the KIP-853 KRaftVersion and Voters records in the
 * header's batch (include/kq/snapshot_state.h): round trips with and
 * without voters, the batch's layout as Kafka's RecordsSnapshotWriter
 * writes it, kq_snapshot_read_voters on a prefix, every truncation, the
 * refusals, and (with KQ_SNAPSHOT_SAMPLE_DIR set) a sample file for
 * Kafka's DumpLogSegments. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/record.h"
#include "kq/snapshot_state.h"
#include "snapshot_internal.h"

#define ERR_BYTES 256

static void sample_meta(kq_snapshot_meta *m, int64_t end_offset, int32_t epoch)
{
    memset(m, 0, sizeof(*m));
    m->id = (raft_snapshot_id){ end_offset, epoch };
    m->last_contained_timestamp_ms = 1764600000000;
    m->voter_count = 1;
    m->voter_ids[0] = 1;
}

/* Heap: an entry is ~8.5 KB. */
static raft_voter_entry *sample_entry(int16_t level, int count)
{
    raft_voter_entry *e = calloc(1, sizeof(*e));
    assert_non_null(e);
    e->offset = 99;
    e->kraft_version = level;
    e->has_voters = count > 0;
    for (int i = 0; i < count; i++) {
        kq_voter *v = &e->voters.voters[e->voters.count++];
        v->id = 1 + i;
        for (int k = 0; k < 16; k++)
            v->directory_id.bytes[k] = (uint8_t)(0x10 * (i + 1) + k);
        snprintf(v->listener, sizeof v->listener, "CONTROLLER");
        snprintf(v->host, sizeof v->host, "node-%d.example", 1 + i);
        v->port = (uint16_t)(9093 + i);
        v->kraft_version_min = 0;
        v->kraft_version_max = 1;
    }
    return e;
}

static void assert_same_voters(const kq_voter_set *a, const kq_voter_set *b)
{
    assert_int_equal(a->count, b->count);
    for (int i = 0; i < a->count; i++) {
        const kq_voter *x = &a->voters[i], *y = &b->voters[i];
        assert_int_equal(x->id, y->id);
        assert_memory_equal(x->directory_id.bytes, y->directory_id.bytes, 16);
        assert_string_equal(x->listener, y->listener);
        assert_string_equal(x->host, y->host);
        assert_int_equal(x->port, y->port);
        assert_int_equal(x->kraft_version_min, y->kraft_version_min);
        assert_int_equal(x->kraft_version_max, y->kraft_version_max);
    }
}

static void encode(const kq_snapshot_meta *m, const raft_voter_entry *e, kq_writer *w)
{
    kq_writer_init(w, 0);
    assert_int_equal(kq_snapshot_encode_voters(NULL, NULL, m, e, w), 0);
    assert_false(w->error);
}

/* The control types of the first batch's records, in order. */
static int first_batch_types(const kq_writer *w, int *types, int max)
{
    record_iter it;
    record rec;
    assert_int_equal(record_iter_open(&it, w->data, w->len), RECORD_OK);
    assert_true(record_batch_is_control(&it.header));
    assert_int_equal(it.header.base_offset, 0);
    int n = 0;
    while (n < max && record_iter_next(&it, &rec)) {
        assert_int_equal(rec.offset, n);
        types[n++] = record_control_type(rec.key);
    }
    record_iter_close(&it);
    return n;
}

static void round_trip(int16_t level, int count)
{
    kq_snapshot_meta m, back;
    sample_meta(&m, 100, 7);
    raft_voter_entry *e = sample_entry(level, count), *got = calloc(1, sizeof(*got));
    assert_non_null(got);
    kq_writer w;
    encode(&m, e, &w);
    int types[4];
    int n = first_batch_types(&w, types, 4);
    assert_int_equal(n, count > 0 ? 3 : 2);
    assert_int_equal(types[0], KQ_SNAPSHOT_CONTROL_HEADER);
    assert_int_equal(types[1], RECORD_CONTROL_KRAFT_VERSION);
    if (count > 0)
        assert_int_equal(types[2], RECORD_CONTROL_VOTERS);
    char err[ERR_BYTES];
    int rc = kq_snapshot_decode_voters(w.data, w.len, m.id, NULL, NULL, &back, got, err,
                                       sizeof err);
    if (rc)
        fail_msg("%s", err);
    assert_true(back.has_kraft_version);
    assert_int_equal(got->offset, 99); /* end_offset - 1 */
    assert_int_equal(got->kraft_version, level);
    assert_int_equal(got->has_voters, count > 0);
    if (count > 0)
        assert_same_voters(&e->voters, &got->voters);
    /* The plain decoder takes it too; only the first batch is needed. */
    assert_int_equal(kq_snapshot_decode(w.data, w.len, m.id, NULL, NULL, NULL, err, sizeof err), 0);
    bool has = false;
    memset(got, 0, sizeof(*got));
    size_t first = RECORD_BATCH_HEADER_BYTES;
    record_batch_header h;
    assert_int_equal(record_batch_parse_header(w.data, w.len, &h), RECORD_OK);
    first = record_batch_size(&h);
    assert_int_equal(kq_snapshot_read_voters(w.data, first, m.id, got, &has, err, sizeof err), 0);
    assert_true(has);
    assert_int_equal(got->kraft_version, level);
    assert_int_equal(got->has_voters, count > 0);
    /* A prefix cut inside the first batch is refused. */
    assert_int_equal(kq_snapshot_read_voters(w.data, first - 1, m.id, got, &has, err, sizeof err),
                     -EBADMSG);
    assert_false(has);
    kq_writer_free(&w);
    free(e);
    free(got);
}

static void test_round_trip_voters(void **state)
{
    (void)state;
    round_trip(1, 3);
    round_trip(1, 1);
    round_trip(1, KQ_VOTER_SET_MAX);
}

static void test_round_trip_level_only(void **state)
{
    (void)state;
    round_trip(1, 0);
    round_trip(0, 0);
}

static void test_without_voters(void **state)
{
    (void)state;
    kq_snapshot_meta m, back;
    sample_meta(&m, 50, 2);
    kq_writer w;
    encode(&m, NULL, &w);
    int types[4];
    assert_int_equal(first_batch_types(&w, types, 4), 1);
    raft_voter_entry *got = calloc(1, sizeof(*got));
    assert_non_null(got);
    char err[ERR_BYTES];
    assert_int_equal(kq_snapshot_decode_voters(w.data, w.len, m.id, NULL, NULL, &back, got, err,
                                               sizeof err), 0);
    assert_false(back.has_kraft_version);
    bool has = true;
    assert_int_equal(kq_snapshot_read_voters(w.data, w.len, m.id, got, &has, err, sizeof err), 0);
    assert_false(has);
    /* kq_snapshot_encode is kq_snapshot_encode_voters without voters. */
    kq_writer w2;
    kq_writer_init(&w2, 0);
    assert_int_equal(kq_snapshot_encode(NULL, NULL, &m, &w2), 0);
    assert_int_equal(w.len, w2.len);
    assert_memory_equal(w.data, w2.data, w.len);
    kq_writer_free(&w);
    kq_writer_free(&w2);
    free(got);
}

static void test_every_truncation(void **state)
{
    (void)state;
    kq_snapshot_meta m;
    sample_meta(&m, 100, 7);
    raft_voter_entry *e = sample_entry(1, 3);
    kq_writer w;
    encode(&m, e, &w);
    char err[ERR_BYTES];
    for (size_t len = 0; len < w.len; len++) {
        uint8_t *copy = len ? malloc(len) : NULL;
        if (len)
            memcpy(copy, w.data, len);
        assert_int_equal(kq_snapshot_decode_voters(copy, len, m.id, NULL, NULL, NULL, e, err,
                                                   sizeof err), -EBADMSG);
        free(copy);
    }
    kq_writer_free(&w);
    free(e);
}

static void test_encode_refusals(void **state)
{
    (void)state;
    kq_snapshot_meta m;
    sample_meta(&m, 100, 7);
    kq_writer w;
    kq_writer_init(&w, 0);
    raft_voter_entry *e = sample_entry(2, 0); /* no such level */
    assert_int_equal(kq_snapshot_encode_voters(NULL, NULL, &m, e, &w), -EINVAL);
    free(e);
    e = sample_entry(0, 3); /* voters at kraft.version 0 */
    assert_int_equal(kq_snapshot_encode_voters(NULL, NULL, &m, e, &w), -EINVAL);
    e->kraft_version = 1;
    e->voters.count = 0; /* an empty set */
    assert_int_equal(kq_snapshot_encode_voters(NULL, NULL, &m, e, &w), -EINVAL);
    e->voters.count = KQ_VOTER_SET_MAX + 1;
    assert_int_equal(kq_snapshot_encode_voters(NULL, NULL, &m, e, &w), -EINVAL);
    assert_int_equal(w.len, 0);
    kq_writer_free(&w);
    free(e);
}

/* A file whose first batch holds the given control records (types,
 * values), then one data batch of "kq.voters" and the footer. */
static void craft(kq_writer *w, const int *types, kq_writer *values, int n)
{
    kq_snapshot_meta m;
    sample_meta(&m, 100, 7);
    uint8_t keys[4][4];
    record recs[4];
    memset(recs, 0, sizeof recs);
    for (int i = 0; i < n; i++) {
        memcpy(keys[i], (uint8_t[4]){ 0, 0, 0, (uint8_t)types[i] }, 4);
        recs[i].key = (kq_slice){ keys[i], 4 };
        recs[i].value = (kq_slice){ values[i].data, (int32_t)values[i].len };
    }
    record_batch_builder_args a = {
        .base_offset = 0, .partition_leader_epoch = 7, .attributes = RECORD_ATTR_CONTROL,
        .producer_id = -1, .producer_epoch = -1, .base_sequence = -1,
        .records = recs, .record_count = n,
    };
    kq_writer_init(w, 0);
    assert_true(record_batch_build(w, &a));
    kq_writer v;
    kq_writer_init(&v, 0);
    snap_write_voters(&v, &m);
    record r = { .key = { (const uint8_t *)SNAP_KEY_VOTERS, (int32_t)strlen(SNAP_KEY_VOTERS) },
                 .value = { v.data, (int32_t)v.len } };
    record_batch_builder_args d = {
        .base_offset = n, .partition_leader_epoch = 7, .producer_id = -1,
        .producer_epoch = -1, .base_sequence = -1, .records = &r, .record_count = 1,
    };
    assert_true(record_batch_build(w, &d));
    assert_true(snap_build_footer(w, n + 1, 7, 0));
    kq_writer_free(&v);
}

static int decode_crafted(const int *types, int16_t level, bool voters_first, int n)
{
    kq_writer vals[4];
    raft_voter_entry *e = sample_entry(1, 2);
    for (int i = 0; i < 4; i++)
        kq_writer_init(&vals[i], 0);
    kq_write_i16(&vals[0], SNAP_CONTROL_VERSION);
    kq_write_i64(&vals[0], 0);
    kq_write_empty_tagged_fields(&vals[0]);
    for (int i = 1; i < n; i++) {
        bool voters = (types[i] == RECORD_CONTROL_VOTERS) || (voters_first && i == 1);
        if (voters)
            record_write_voters_value(&vals[i], &e->voters);
        else
            record_write_kraft_version_value(&vals[i], level);
    }
    kq_writer w;
    craft(&w, types, vals, n);
    char err[ERR_BYTES];
    int rc = kq_snapshot_decode_voters(w.data, w.len, (raft_snapshot_id){ 100, 7 }, NULL, NULL,
                                       NULL, e, err, sizeof err);
    for (int i = 0; i < 4; i++)
        kq_writer_free(&vals[i]);
    kq_writer_free(&w);
    free(e);
    return rc;
}

static void test_decode_refusals(void **state)
{
    (void)state;
    const int H = KQ_SNAPSHOT_CONTROL_HEADER, K = RECORD_CONTROL_KRAFT_VERSION,
              V = RECORD_CONTROL_VOTERS;
    /* The crafting itself is right: header, KRaftVersion 1, Voters. */
    assert_int_equal(decode_crafted((int[]){ H, K, V }, 1, false, 3), 0);
    assert_int_equal(decode_crafted((int[]){ H, K }, 1, false, 2), 0);
    /* Voters without KRaftVersion before it, or at level 0. */
    assert_int_equal(decode_crafted((int[]){ H, V }, 1, true, 2), -EBADMSG);
    assert_int_equal(decode_crafted((int[]){ H, K, V }, 0, false, 3), -EBADMSG);
    /* Reversed, repeated, a fourth record, another control type. */
    assert_int_equal(decode_crafted((int[]){ H, V, K }, 1, true, 3), -EBADMSG);
    assert_int_equal(decode_crafted((int[]){ H, K, K }, 1, false, 3), -EBADMSG);
    assert_int_equal(decode_crafted((int[]){ H, K, V, V }, 1, false, 4), -EBADMSG);
    assert_int_equal(decode_crafted((int[]){ H, RECORD_CONTROL_LEADER_CHANGE }, 1, false, 2),
                     -EBADMSG);
    /* An unknown kraft.version. */
    assert_int_equal(decode_crafted((int[]){ H, K }, 2, false, 2), -EBADMSG);
}

static void test_write_sample(void **state)
{
    (void)state;
    const char *dir = getenv("KQ_SNAPSHOT_SAMPLE_DIR");
    if (!dir)
        skip();
    kq_snapshot_meta m;
    sample_meta(&m, 2345, 7);
    raft_voter_entry *e = sample_entry(1, 3);
    kq_writer w;
    encode(&m, e, &w);
    char path[4096];
    snprintf(path, sizeof path, "%s/%020lld-%010d.checkpoint", dir, (long long)m.id.end_offset,
             (int)m.id.epoch);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(w.data, 1, w.len, f), w.len);
    assert_int_equal(fclose(f), 0);
    kq_writer_free(&w);
    free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_voters),
        cmocka_unit_test(test_round_trip_level_only),
        cmocka_unit_test(test_without_voters),
        cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_encode_refusals),
        cmocka_unit_test(test_decode_refusals),
        cmocka_unit_test(test_write_sample),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
