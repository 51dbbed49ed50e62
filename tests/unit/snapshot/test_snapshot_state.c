/* Snapshot files (include/kq/snapshot_state.h): round trips of 0, 1 and a
 * full table of producers with their LRU order, every single-byte mutation
 * and every truncation of a small file, the refusals, and (with
 * KQ_SNAPSHOT_SAMPLE_DIR set) a sample file for Kafka's DumpLogSegments. */
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

typedef struct dump {
    snap_producer *e;
    size_t n;
} dump;

static int collect(void *ctx, int64_t pid, int16_t epoch, const producer_batch_view *b, int count)
{
    dump *d = ctx;
    snap_producer *p = &d->e[d->n++];
    memset(p, 0, sizeof(*p));
    p->pid = pid;
    p->epoch = epoch;
    p->count = count;
    memcpy(p->batches, b, sizeof(*b) * (size_t)count);
    return 0;
}

static dump take_dump(const producer_state *ps)
{
    dump d = { calloc(producer_state_capacity(ps) + 1, sizeof(snap_producer)), 0 };
    assert_non_null(d.e);
    assert_int_equal(producer_state_foreach(ps, collect, &d), 0);
    return d;
}

static void assert_same_table(const producer_state *a, const producer_state *b)
{
    dump da = take_dump(a), db = take_dump(b);
    assert_int_equal(da.n, db.n);
    if (da.n)
        assert_memory_equal(da.e, db.e, sizeof(*da.e) * da.n);
    free(da.e);
    free(db.e);
}

static void sample_meta(kq_snapshot_meta *m, int64_t end_offset, int32_t epoch)
{
    memset(m, 0, sizeof(*m));
    m->id = (raft_snapshot_id){ end_offset, epoch };
    m->last_contained_timestamp_ms = 1764600000000;
    m->voter_count = 3;
    m->voter_ids[0] = 1;
    m->voter_ids[1] = 2;
    m->voter_ids[2] = 3;
    m->pid_max_count = 2;
    m->pid_max[0] = (kq_snapshot_pid_max){ 1, 1001 };
    m->pid_max[1] = (kq_snapshot_pid_max){ 3, 3000000000017 };
}

/* n producers, 1..7 batches recorded each (at most 5 kept), then every
 * third touched again, so that the LRU order differs from insertion. */
static void fill(producer_state *ps, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < 1 + i % 7; k++)
            producer_state_record(ps, 1000 + i, (int16_t)(i % 5), (int32_t)k * 4,
                                  (int32_t)k * 4 + 3, (int64_t)i * 100 + k * 4,
                                  (int64_t)i * 100 + k * 4 + 3);
    for (uint32_t i = 0; i < n; i += 3)
        producer_state_record(ps, 1000 + i, (int16_t)(i % 5), 7 * 4, 7 * 4 + 3,
                              (int64_t)i * 100 + 90, (int64_t)i * 100 + 93);
}

static void encode(const producer_state *ps, const kq_snapshot_meta *m, kq_writer *w)
{
    kq_writer_init(w, 0);
    assert_int_equal(kq_snapshot_encode(ps, NULL, m, w), 0);
    assert_false(w->error);
}

static void round_trip(uint32_t producers, uint32_t capacity)
{
    producer_state *a = producer_state_create(capacity);
    producer_state *b = producer_state_create(capacity);
    fill(a, producers);
    kq_snapshot_meta m, back;
    sample_meta(&m, (int64_t)producers * 100 + 100, 7);
    kq_writer w;
    encode(a, &m, &w);
    char err[ERR_BYTES];
    producer_state_record(b, 5, 0, 0, 0, 0, 0); /* cleared by decode */
    int rc = kq_snapshot_decode(w.data, w.len, m.id, b, NULL, &back, err, sizeof err);
    if (rc)
        fail_msg("%s", err);
    assert_memory_equal(&m, &back, sizeof(m));
    assert_int_equal(producer_state_count(b), producers < capacity ? producers : capacity);
    assert_same_table(a, b);
    assert_int_equal(kq_snapshot_decode(w.data, w.len, m.id, NULL, NULL, NULL, err, sizeof err), 0);
    /* Every batch fits the bound; offsets are contiguous (decode checked). */
    size_t batches = 0;
    for (size_t pos = 0; pos < w.len; batches++) {
        record_batch_header h;
        assert_int_equal(record_batch_check(w.data + pos, w.len - pos, &h), RECORD_OK);
        assert_true(record_batch_size(&h) <= KQ_SNAPSHOT_BATCH_BYTES_MAX);
        assert_int_equal(h.partition_leader_epoch, 7);
        pos += record_batch_size(&h);
    }
    assert_true(batches >= 3);
    /* Eviction after the restore: the same producers leave in the same order. */
    for (uint32_t i = 0; i < capacity / 2 + 1; i++) {
        producer_state_record(a, 900000000 + i, 0, 0, 0, i, i);
        producer_state_record(b, 900000000 + i, 0, 0, 0, i, i);
    }
    assert_same_table(a, b);
    kq_writer_free(&w);
    producer_state_destroy(a);
    producer_state_destroy(b);
}

static void test_round_trip_empty(void **state)
{
    (void)state;
    round_trip(0, 16);
    /* No table at all encodes as an empty one. */
    kq_snapshot_meta m, back;
    sample_meta(&m, 0, 0);
    kq_writer w;
    encode(NULL, &m, &w);
    assert_int_equal(kq_snapshot_decode(w.data, w.len, m.id, NULL, NULL, &back, NULL, 0), 0);
    assert_memory_equal(&m, &back, sizeof(m));
    kq_writer_free(&w);
}

static void test_round_trip_one(void **state)
{
    (void)state;
    round_trip(1, 16);
}

static void test_round_trip_full_table(void **state)
{
    (void)state;
    round_trip(EXEC_PRODUCERS_MAX, EXEC_PRODUCERS_MAX);
    /* More recorded than the table holds: the survivors round-trip. */
    round_trip(EXEC_PRODUCERS_MAX + 4464, EXEC_PRODUCERS_MAX);
}

static void test_small_table_refuses_large_file(void **state)
{
    (void)state;
    producer_state *a = producer_state_create(8);
    producer_state *b = producer_state_create(4);
    fill(a, 8);
    kq_snapshot_meta m;
    sample_meta(&m, 1000, 2);
    kq_writer w;
    encode(a, &m, &w);
    char err[ERR_BYTES];
    producer_state_record(b, 5, 0, 0, 0, 0, 0);
    assert_int_equal(kq_snapshot_decode(w.data, w.len, m.id, b, NULL, NULL,
                                        err, sizeof err), -EBADMSG);
    assert_non_null(strstr(err, "more producers"));
    assert_int_equal(producer_state_count(b), 0);
    kq_writer_free(&w);
    producer_state_destroy(a);
    producer_state_destroy(b);
}

static void small_file(kq_writer *w, producer_state **ps, kq_snapshot_meta *m)
{
    *ps = producer_state_create(4);
    fill(*ps, 3);
    sample_meta(m, 400, 5);
    encode(*ps, m, w);
}

static void test_every_byte_mutation(void **state)
{
    (void)state;
    kq_writer w;
    producer_state *orig;
    kq_snapshot_meta m, back;
    small_file(&w, &orig, &m);
    producer_state *b = producer_state_create(4);
    uint8_t *buf = malloc(w.len);
    size_t accepted = 0;
    for (size_t pos = 0; pos < w.len; pos++) {
        for (int v = 0; v < 256; v++) {
            if (v == w.data[pos])
                continue;
            memcpy(buf, w.data, w.len);
            buf[pos] = (uint8_t)v;
            char err[ERR_BYTES];
            int rc = kq_snapshot_decode(buf, w.len, m.id, b, NULL, &back, err, sizeof err);
            if (rc == 0) {
                accepted++;
                assert_memory_equal(&m, &back, sizeof(m));
                assert_same_table(orig, b);
            } else {
                assert_int_equal(rc, -EBADMSG);
                assert_non_null(strstr(err, "snapshot byte "));
                assert_int_equal(producer_state_count(b), 0);
            }
        }
    }
    /* Only the CRC-free header fields could ever be touched, and they are
     * all checked: nothing is accepted. */
    assert_int_equal(accepted, 0);
    free(buf);
    kq_writer_free(&w);
    producer_state_destroy(orig);
    producer_state_destroy(b);
}

static void test_every_truncation(void **state)
{
    (void)state;
    kq_writer w;
    producer_state *orig;
    kq_snapshot_meta m;
    small_file(&w, &orig, &m);
    char err[ERR_BYTES];
    for (size_t len = 0; len < w.len; len++) {
        uint8_t *copy = malloc(len + 1); /* exact length for ASan */
        memcpy(copy, w.data, len);
        assert_int_equal(kq_snapshot_decode(len ? copy : NULL, len, m.id, orig, NULL, NULL, err,
                                            sizeof err), -EBADMSG);
        free(copy);
    }
    assert_int_equal(producer_state_count(orig), 0);
    kq_writer_free(&w);
    producer_state_destroy(orig);
}

static void test_expected_id(void **state)
{
    (void)state;
    kq_writer w;
    producer_state *ps;
    kq_snapshot_meta m;
    small_file(&w, &ps, &m);
    char err[ERR_BYTES];
    raft_snapshot_id other_epoch = { m.id.end_offset, m.id.epoch + 1 };
    assert_int_equal(kq_snapshot_decode(w.data, w.len, other_epoch, ps, NULL, NULL,
                                        err, sizeof err),
                     -EBADMSG);
    assert_non_null(strstr(err, "leader epoch"));
    /* Cached batches must lie below the end offset. */
    raft_snapshot_id lower = { 200, m.id.epoch };
    assert_int_equal(kq_snapshot_decode(w.data, w.len, lower, ps, NULL, NULL, err, sizeof err),
                     -EBADMSG);
    assert_non_null(strstr(err, "end offset"));
    raft_snapshot_id negative = { -1, m.id.epoch };
    assert_int_equal(kq_snapshot_decode(w.data, w.len, negative, NULL, NULL, NULL, err, sizeof err),
                     -EINVAL);
    kq_writer_free(&w);
    producer_state_destroy(ps);
}

/* A file from parts: the header, data batches of one record each
 * (key, value), optionally an extra control batch, then the footer. */
typedef struct part {
    const char *key;
    const uint8_t *value;
    size_t value_len;
} part;

static void craft(kq_writer *w, const part *parts, int n, bool stray_control, bool after)
{
    kq_writer_init(w, 0);
    assert_true(snap_build_header(w, 5, 0));
    int64_t off = 1;
    for (int i = 0; i < n; i++, off++) {
        record rec = { .key = kq_slice_cstr(parts[i].key),
                       .value = { parts[i].value, (int32_t)parts[i].value_len } };
        record_batch_builder_args a = { .base_offset = off, .partition_leader_epoch = 5,
                                        .producer_id = -1, .producer_epoch = -1,
                                        .base_sequence = -1, .records = &rec,
                                        .record_count = 1 };
        assert_true(record_batch_build(w, &a));
    }
    if (stray_control)
        assert_true(snap_build_footer(w, off++, 5, 0));
    assert_true(snap_build_footer(w, off++, 5, 0));
    if (after)
        assert_true(snap_build_header(w, 5, 0));
}

static const uint8_t voters_v[] = { 0, 0, 0, 0, 0, 1, 0, 0, 0, 9 };
static const uint8_t voters_dup[] = { 0, 0, 0, 0, 0, 2, 0, 0, 0, 9, 0, 0, 0, 9 };
static const uint8_t voters_v1[] = { 0, 1, 0, 0, 0, 1, 0, 0, 0, 9 };
static const uint8_t pid_max_v[] = { 0, 0, 0, 0, 0, 0 };
static const uint8_t producer_v[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 42, 0, 1, 0, 0, 0, 1,
                                      0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 10,
                                      0, 0, 0, 0, 0, 0, 0, 14 };

static void expect_refused(const part *parts, int n, bool stray, bool after, const char *why)
{
    kq_writer w;
    craft(&w, parts, n, stray, after);
    char err[ERR_BYTES];
    raft_snapshot_id id = { 100, 5 };
    producer_state *ps = producer_state_create(4);
    int rc = kq_snapshot_decode(w.data, w.len, id, ps, NULL, NULL, err, sizeof err);
    if (rc != -EBADMSG || !strstr(err, why))
        fail_msg("rc %d, err \"%s\", expected \"%s\"", rc, err, why);
    assert_int_equal(kq_snapshot_decode(w.data, w.len, id, NULL, NULL, NULL,
                                        err, sizeof err), -EBADMSG);
    assert_non_null(strstr(err, why));
    kq_writer_free(&w);
    producer_state_destroy(ps);
}

static void test_crafted_files(void **state)
{
    (void)state;
    part v = { SNAP_KEY_VOTERS, voters_v, sizeof voters_v };
    part pm = { SNAP_KEY_PID_MAX, pid_max_v, sizeof pid_max_v };
    part pr = { SNAP_KEY_PRODUCER, producer_v, sizeof producer_v };
    part unk = { "kq.future", voters_v, sizeof voters_v };
    /* The minimal accepted file, then what each change breaks. */
    part ok[] = { v, pm, pr };
    kq_writer w;
    craft(&w, ok, 3, false, false);
    producer_state *ps = producer_state_create(4);
    kq_snapshot_meta m;
    assert_int_equal(kq_snapshot_decode(w.data, w.len, (raft_snapshot_id){ 100, 5 }, ps, NULL, &m,
                                        NULL, 0), 0);
    assert_int_equal(m.voter_count, 1);
    assert_int_equal(m.voter_ids[0], 9);
    int16_t epoch;
    int64_t last;
    assert_true(producer_state_get(ps, 42, &epoch, NULL, &last));
    assert_int_equal(epoch, 1);
    assert_int_equal(last, 14);
    kq_writer_free(&w);
    producer_state_destroy(ps);

    expect_refused((part[]){ pm }, 1, false, false, "no kq.voters");
    expect_refused((part[]){ v, v }, 2, false, false, "a second kq.voters");
    expect_refused((part[]){ v, pm, pm }, 3, false, false, "a second kq.producer-id-max");
    expect_refused((part[]){ v, unk }, 2, false, false, "unknown key");
    expect_refused((part[]){ v, pr, pr }, 3, false, false, "listed twice");
    expect_refused((part[]){ { SNAP_KEY_VOTERS, voters_dup, sizeof voters_dup } }, 1, false,
                   false, "voter listed twice");
    expect_refused((part[]){ { SNAP_KEY_VOTERS, voters_v1, sizeof voters_v1 } }, 1, false,
                   false, "unknown value version");
    expect_refused((part[]){ { SNAP_KEY_VOTERS, voters_v, sizeof voters_v - 1 } }, 1, false,
                   false, "truncated");
    expect_refused((part[]){ v }, 1, true, false, "bytes after the SnapshotFooterRecord");
    expect_refused((part[]){ v }, 1, false, true, "bytes after the SnapshotFooterRecord");
}

static void test_structure_refusals(void **state)
{
    (void)state;
    char err[ERR_BYTES];
    raft_snapshot_id id = { 100, 5 };
    kq_writer w;
    kq_writer_init(&w, 0);
    /* No header: a data batch first. */
    record rec = { .key = kq_slice_cstr(SNAP_KEY_VOTERS), .value = { voters_v, sizeof voters_v } };
    record_batch_builder_args a = { .partition_leader_epoch = 5, .producer_id = -1,
                                    .producer_epoch = -1, .base_sequence = -1,
                                    .records = &rec, .record_count = 1 };
    assert_true(record_batch_build(&w, &a));
    assert_true(snap_build_footer(&w, 1, 5, 0));
    assert_int_equal(kq_snapshot_decode(w.data, w.len, id, NULL, NULL, NULL,
                                        err, sizeof err), -EBADMSG);
    assert_non_null(strstr(err, "first batch is not a control batch"));
    /* A footer first. */
    kq_writer_reset(&w);
    assert_true(snap_build_footer(&w, 0, 5, 0));
    assert_int_equal(kq_snapshot_decode(w.data, w.len, id, NULL, NULL, NULL,
                                        err, sizeof err), -EBADMSG);
    assert_non_null(strstr(err, "SnapshotHeaderRecord"));
    /* A header alone: no footer. */
    kq_writer_reset(&w);
    assert_true(snap_build_header(&w, 5, 0));
    assert_int_equal(kq_snapshot_decode(w.data, w.len, id, NULL, NULL, NULL,
                                        err, sizeof err), -EBADMSG);
    assert_non_null(strstr(err, "no SnapshotFooterRecord"));
    /* A gap in the offsets. */
    assert_true(record_batch_build(&w, &(record_batch_builder_args){
        .base_offset = 2, .partition_leader_epoch = 5, .producer_id = -1, .producer_epoch = -1,
        .base_sequence = -1, .records = &rec, .record_count = 1 }));
    assert_int_equal(kq_snapshot_decode(w.data, w.len, id, NULL, NULL, NULL,
                                        err, sizeof err), -EBADMSG);
    assert_non_null(strstr(err, "snapshot byte 83: batch base offset 2, expected 1"));
    assert_int_equal(kq_snapshot_decode(NULL, 0, id, NULL, NULL, NULL, err, sizeof err), -EBADMSG);
    kq_writer_free(&w);
}

static void test_encode_refusals(void **state)
{
    (void)state;
    kq_snapshot_meta m;
    kq_writer w;
    kq_writer_init(&w, 0);
    kq_write_i32(&w, 77);
    sample_meta(&m, 100, 1);
    m.voter_count = 0;
    assert_int_equal(kq_snapshot_encode(NULL, NULL, &m, &w), -EINVAL);
    sample_meta(&m, 100, 1);
    m.voter_ids[1] = 1;
    assert_int_equal(kq_snapshot_encode(NULL, NULL, &m, &w), -EINVAL);
    sample_meta(&m, 100, 1);
    m.pid_max_count = KQ_SNAPSHOT_PID_NODES_MAX + 1;
    assert_int_equal(kq_snapshot_encode(NULL, NULL, &m, &w), -EINVAL);
    sample_meta(&m, 100, -1);
    assert_int_equal(kq_snapshot_encode(NULL, NULL, &m, &w), -EINVAL);
    /* A cached batch at the end offset is not below the snapshot. */
    producer_state *ps = producer_state_create(4);
    producer_state_record(ps, 1, 0, 0, 0, 100, 100);
    sample_meta(&m, 100, 1);
    assert_int_equal(kq_snapshot_encode(ps, NULL, &m, &w), -EINVAL);
    assert_int_equal(w.len, 4);
    /* A bounded writer too small: -ENOMEM. */
    kq_writer small;
    kq_writer_init(&small, 100);
    assert_int_equal(kq_snapshot_encode(NULL, NULL, &m, &small), -ENOMEM);
    kq_writer_free(&small);
    kq_writer_free(&w);
    producer_state_destroy(ps);
}

/* KQ_SNAPSHOT_SAMPLE_DIR=/tmp/x: writes 00000000000000001234-0000000007.checkpoint
 * there (three producers, three voters) for kafka-dump-log.sh; with
 * KQ_SNAPSHOT_SAMPLE_PRODUCERS=n, n producers (end offset raised to fit). */
static void test_write_sample(void **state)
{
    (void)state;
    const char *dir = getenv("KQ_SNAPSHOT_SAMPLE_DIR");
    if (!dir)
        skip();
    const char *count = getenv("KQ_SNAPSHOT_SAMPLE_PRODUCERS");
    uint32_t n = count ? (uint32_t)strtoul(count, NULL, 10) : 3;
    producer_state *ps = producer_state_create(n);
    fill(ps, n);
    kq_snapshot_meta m;
    sample_meta(&m, (int64_t)n * 100 + 100 > 1234 ? (int64_t)n * 100 + 100 : 1234, 7);
    kq_writer w;
    encode(ps, &m, &w);
    char path[4096];
    snprintf(path, sizeof path, "%s/%020lld-%010d.checkpoint", dir, (long long)m.id.end_offset,
             (int)m.id.epoch);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(w.data, 1, w.len, f), w.len);
    assert_int_equal(fclose(f), 0);
    kq_writer_free(&w);
    producer_state_destroy(ps);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_empty),
        cmocka_unit_test(test_round_trip_one),
        cmocka_unit_test(test_round_trip_full_table),
        cmocka_unit_test(test_small_table_refuses_large_file),
        cmocka_unit_test(test_every_byte_mutation),
        cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_expected_id),
        cmocka_unit_test(test_crafted_files),
        cmocka_unit_test(test_structure_refusals),
        cmocka_unit_test(test_encode_refusals),
        cmocka_unit_test(test_write_sample),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
