/* Snapshot files with "kq.group-offset" records (include/kq/snapshot_state.h):
 * round trips of 10,000 entries with and without metadata (pending commits
 * written as at the log end), every single-byte mutation and every
 * truncation of a small file refused, bad values and a key twice refused,
 * files without group offsets still valid. */
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
#define LINE_BYTES 96

typedef struct lines {
    char (*line)[LINE_BYTES];
    size_t n;
    size_t cap;
} lines;

static int take_line(void *ctx, const group_offset *e)
{
    lines *l = ctx;
    assert_true(l->n < l->cap);
    snprintf(l->line[l->n++], LINE_BYTES, "%s/%s/%d=%lld,%d,%s,%lld", e->group_id, e->topic,
             (int)e->partition, (long long)e->offset, (int)e->leader_epoch,
             e->metadata ? e->metadata : "(null)", (long long)e->commit_timestamp_ms);
    return 0;
}

/* The state at the log end, one line per entry, in key order. */
static lines dump(const group_offsets *o, size_t cap)
{
    lines l = { calloc(cap, LINE_BYTES), 0, cap };
    assert_non_null(l.line);
    assert_int_equal(group_offsets_foreach_at_end(o, take_line, &l), 0);
    return l;
}

static void assert_same(const group_offsets *a, const group_offsets *b, size_t cap)
{
    lines la = dump(a, cap), lb = dump(b, cap);
    assert_int_equal(la.n, lb.n);
    if (la.n)
        assert_memory_equal(la.line, lb.line, la.n * LINE_BYTES);
    free(la.line);
    free(lb.line);
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
}

static group_offset entry(const char *group, const char *topic, int32_t partition,
                          int64_t offset, const char *metadata)
{
    return (group_offset){ .group_id = group, .topic = topic, .partition = partition,
                           .offset = offset, .leader_epoch = partition % 3 - 1,
                           .metadata = metadata, .commit_timestamp_ms = 1764600000000 + offset,
                           .log_offset = -1 };
}

/* n entries over 50 groups restored, then the first tenth committed again
 * as pending (at log offsets 0..): the log end overrides them. */
static group_offsets *filled(int n, bool with_metadata)
{
    group_offsets *o = group_offsets_create();
    char group[32];
    for (int i = 0; i < n; i++) {
        snprintf(group, sizeof group, "group-%d", i % 50);
        group_offset e = entry(group, i % 2 ? "orders" : "payments", i / 50, i,
                               with_metadata ? (i % 7 ? "consumer-metadata" : "") : NULL);
        assert_true(group_offsets_restore(o, &e));
    }
    kq_writer w;
    kq_writer_init(&w, 0);
    for (int i = 0; i < n / 10; i++) {
        snprintf(group, sizeof group, "group-%d", i % 50);
        group_offset e = entry(group, i % 2 ? "orders" : "payments", i / 50, 1000000 + i,
                               with_metadata ? "newer" : NULL);
        kq_writer_reset(&w);
        assert_true(group_offsets_build_batch(&w, &e, 1, 0));
        record_batch_set_base_offset(w.data, i);
        assert_int_equal(group_offsets_note_batches(o, w.data, w.len), 1);
    }
    kq_writer_free(&w);
    return o;
}

static void round_trip(int n, bool with_metadata)
{
    group_offsets *a = filled(n, with_metadata);
    kq_snapshot_meta m, back;
    sample_meta(&m, 5000, 4);
    kq_writer w;
    kq_writer_init(&w, 0);
    assert_int_equal(kq_snapshot_encode(NULL, a, &m, &w), 0);
    group_offsets *b = group_offsets_create();
    group_offset junk = entry("stale", "t", 0, 0, NULL);
    assert_true(group_offsets_restore(b, &junk)); /* cleared by decode */
    char err[ERR_BYTES];
    int rc = kq_snapshot_decode(w.data, w.len, m.id, NULL, b, &back, err, sizeof err);
    if (rc)
        fail_msg("%s", err);
    assert_memory_equal(&m, &back, sizeof(m));
    assert_int_equal(group_offsets_count(b), n);
    assert_int_equal(group_offsets_committed_to(b), m.id.end_offset);
    assert_false(group_offsets_has_group(b, "stale"));
    assert_same(a, b, (size_t)n);
    assert_int_equal(kq_snapshot_decode(w.data, w.len, m.id, NULL, NULL, NULL, err, sizeof err),
                     0);
    /* Re-encoding the loaded table gives the same bytes. */
    kq_writer w2;
    kq_writer_init(&w2, 0);
    assert_int_equal(kq_snapshot_encode(NULL, b, &m, &w2), 0);
    assert_int_equal(w.len, w2.len);
    assert_memory_equal(w.data, w2.data, w.len);
    for (size_t pos = 0; pos < w.len;) {
        record_batch_header h;
        assert_int_equal(record_batch_check(w.data + pos, w.len - pos, &h), RECORD_OK);
        assert_true(record_batch_size(&h) <= KQ_SNAPSHOT_BATCH_BYTES_MAX);
        pos += record_batch_size(&h);
    }
    kq_writer_free(&w);
    kq_writer_free(&w2);
    group_offsets_destroy(a);
    group_offsets_destroy(b);
}

static void test_round_trip_without_metadata(void **state)
{
    (void)state;
    round_trip(10000, false);
}

static void test_round_trip_with_metadata(void **state)
{
    (void)state;
    round_trip(10000, true);
    /* The longest names and metadata fit one record. */
    char big[KQ_GROUP_OFFSET_METADATA_BYTES_MAX + 1], group[KQ_GROUP_NAME_BYTES_MAX];
    char topic[KQ_TOPIC_NAME_BYTES_MAX];
    memset(big, 'm', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    memset(group, 'g', sizeof group - 1);
    group[sizeof group - 1] = '\0';
    memset(topic, 't', sizeof topic - 1);
    topic[sizeof topic - 1] = '\0';
    group_offsets *a = group_offsets_create(), *b = group_offsets_create();
    for (int i = 0; i < 600; i++) { /* several batches */
        group_offset e = entry(group, topic, i, i, big);
        assert_true(group_offsets_restore(a, &e));
    }
    kq_snapshot_meta m;
    sample_meta(&m, 10, 1);
    kq_writer w;
    kq_writer_init(&w, 0);
    assert_int_equal(kq_snapshot_encode(NULL, a, &m, &w), 0);
    assert_int_equal(kq_snapshot_decode(w.data, w.len, m.id, NULL, b, NULL, NULL, 0), 0);
    assert_same(a, b, 600);
    kq_writer_free(&w);
    group_offsets_destroy(a);
    group_offsets_destroy(b);
}

static void small_file(kq_writer *w, group_offsets **o, producer_state **ps, kq_snapshot_meta *m)
{
    *o = group_offsets_create();
    group_offset e[] = { entry("g", "t", 0, 5, NULL), entry("g", "t", 1, 6, "md"),
                         entry("h", "u", 0, -1, "") };
    for (int i = 0; i < 3; i++)
        assert_true(group_offsets_restore(*o, &e[i]));
    *ps = producer_state_create(4);
    producer_state_record(*ps, 42, 1, 0, 3, 10, 13);
    sample_meta(m, 400, 5);
    kq_writer_init(w, 0);
    assert_int_equal(kq_snapshot_encode(*ps, *o, m, w), 0);
}

static void test_every_byte_mutation(void **state)
{
    (void)state;
    kq_writer w;
    group_offsets *orig;
    producer_state *ps;
    kq_snapshot_meta m;
    small_file(&w, &orig, &ps, &m);
    group_offsets *b = group_offsets_create();
    producer_state *pb = producer_state_create(4);
    uint8_t *buf = malloc(w.len);
    size_t accepted = 0;
    for (size_t pos = 0; pos < w.len; pos++) {
        for (int v = 0; v < 256; v++) {
            if (v == w.data[pos])
                continue;
            memcpy(buf, w.data, w.len);
            buf[pos] = (uint8_t)v;
            char err[ERR_BYTES];
            int rc = kq_snapshot_decode(buf, w.len, m.id, pb, b, NULL, err, sizeof err);
            if (rc == 0) {
                accepted++;
                assert_same(orig, b, 8);
            } else {
                assert_int_equal(rc, -EBADMSG);
                assert_non_null(strstr(err, "snapshot byte "));
                assert_int_equal(group_offsets_count(b), 0);
            }
        }
    }
    assert_int_equal(accepted, 0);
    free(buf);
    kq_writer_free(&w);
    group_offsets_destroy(orig);
    group_offsets_destroy(b);
    producer_state_destroy(ps);
    producer_state_destroy(pb);
}

static void test_every_truncation(void **state)
{
    (void)state;
    kq_writer w;
    group_offsets *orig;
    producer_state *ps;
    kq_snapshot_meta m;
    small_file(&w, &orig, &ps, &m);
    char err[ERR_BYTES];
    for (size_t len = 0; len < w.len; len++) {
        uint8_t *copy = malloc(len + 1); /* exact length for ASan */
        memcpy(copy, w.data, len);
        assert_int_equal(kq_snapshot_decode(len ? copy : NULL, len, m.id, ps, orig, NULL, err,
                                            sizeof err), -EBADMSG);
        assert_int_equal(group_offsets_count(orig), 0);
        free(copy);
    }
    kq_writer_free(&w);
    group_offsets_destroy(orig);
    producer_state_destroy(ps);
}

/* A file of the header, one data batch per value (voters first), the footer. */
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

static int decode_crafted(const kq_slice *offset_values, int n, group_offsets *o, char *err)
{
    kq_slice values[8] = { { voters_v, sizeof voters_v } };
    const char *keys[8] = { SNAP_KEY_VOTERS };
    for (int i = 0; i < n; i++) {
        values[1 + i] = offset_values[i];
        keys[1 + i] = SNAP_KEY_GROUP_OFFSET;
    }
    kq_writer w;
    craft(&w, values, keys, 1 + n);
    raft_snapshot_id id = { 100, 5 };
    int rc = kq_snapshot_decode(w.data, w.len, id, NULL, o, NULL, err, ERR_BYTES);
    char err2[ERR_BYTES];
    int rc_validate = kq_snapshot_decode(w.data, w.len, id, NULL, NULL, NULL, err2, sizeof err2);
    assert_int_equal(rc, rc_validate);
    kq_writer_free(&w);
    return rc;
}

/* Appends the value of e to w; returns where it starts. */
static size_t value_of(kq_writer *w, const group_offset *e)
{
    size_t start = w->len;
    group_offset_write_value(w, e);
    assert_false(w->error);
    return start;
}

static void test_crafted_values(void **state)
{
    (void)state;
    group_offsets *o = group_offsets_create();
    char err[ERR_BYTES];
    kq_writer w;
    kq_writer_init(&w, 0);
    group_offset a = entry("g", "t", 0, 5, NULL), b = entry("g", "t", 1, 6, "x");
    group_offset a2 = entry("g", "t", 0, 7, NULL);
    size_t starts[4] = { value_of(&w, &a), value_of(&w, &b), value_of(&w, &a2), 0 };
    starts[3] = w.len;
    kq_slice v[3];
    for (int i = 0; i < 3; i++)
        v[i] = (kq_slice){ w.data + starts[i], (int32_t)(starts[i + 1] - starts[i]) };
    /* Without group offsets (an older file): valid, the table empty. */
    assert_int_equal(decode_crafted(v, 0, o, err), 0);
    assert_int_equal(group_offsets_count(o), 0);
    assert_int_equal(group_offsets_committed_to(o), 100);
    assert_int_equal(decode_crafted(v, 2, o, err), 0);
    assert_int_equal(group_offsets_count(o), 2);
    /* The same key twice. */
    assert_int_equal(decode_crafted(v, 3, o, err), -EBADMSG);
    assert_non_null(strstr(err, "listed twice"));
    assert_int_equal(group_offsets_count(o), 0);
    /* Bad values: truncated, longer, another version, a rule broken. */
    kq_slice cut = { v[0].ptr, v[0].len - 1 };
    assert_int_equal(decode_crafted(&cut, 1, o, err), -EBADMSG);
    assert_non_null(strstr(err, "kq.group-offset record: value truncated"));
    kq_writer x;
    kq_writer_init(&x, 0);
    kq_write_raw(&x, v[0].ptr, (size_t)v[0].len);
    kq_write_i8(&x, 0);
    kq_slice longer = { x.data, (int32_t)x.len };
    assert_int_equal(decode_crafted(&longer, 1, o, err), -EBADMSG);
    assert_non_null(strstr(err, "bytes after the value"));
    x.data[1] = 1; /* version 1 */
    longer.len--;
    assert_int_equal(decode_crafted(&longer, 1, o, err), -EBADMSG);
    assert_non_null(strstr(err, "unknown value version"));
    kq_writer_reset(&x);
    group_offset neg = entry("g", "t", 0, 5, NULL);
    neg.partition = -1;
    group_offset_write_value(&x, &neg);
    kq_slice bad = { x.data, (int32_t)x.len };
    assert_int_equal(decode_crafted(&bad, 1, o, err), -EBADMSG);
    assert_non_null(strstr(err, "negative partition"));
    kq_writer_free(&x);
    kq_writer_free(&w);
    group_offsets_destroy(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_without_metadata),
        cmocka_unit_test(test_round_trip_with_metadata),
        cmocka_unit_test(test_every_byte_mutation),
        cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_crafted_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
