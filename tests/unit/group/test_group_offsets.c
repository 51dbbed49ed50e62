/* Committed group offsets (include/kq/group_offsets.h): an OffsetCommit
 * batch is noted as pending and becomes visible at the high watermark;
 * truncation drops only pending commits; overriding; walk orders; the view
 * at the log end; restore and clear; other batches skipped; every
 * truncation and mutation of a commit value and of a whole batch; a full
 * table of KQ_GROUP_OFFSETS_MAX keys. */
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

static const uint8_t commit_key[4] = { 0, 0, (uint8_t)(KQ_CONTROL_OFFSET_COMMIT >> 8),
                                       (uint8_t)(KQ_CONTROL_OFFSET_COMMIT & 0xff) };

static group_offset entry(const char *group, const char *topic, int32_t partition,
                          int64_t offset, const char *metadata)
{
    return (group_offset){ .group_id = group, .topic = topic, .partition = partition,
                           .offset = offset, .leader_epoch = 3, .metadata = metadata,
                           .commit_timestamp_ms = 1764600000000 + offset, .log_offset = -1 };
}

/* Appends the OffsetCommit batch of entries at base_offset. */
static void append_commit(kq_writer *w, int64_t base_offset, const group_offset *e, int n)
{
    size_t start = w->len;
    assert_true(group_offsets_build_batch(w, e, n, 1764600000000));
    record_batch_set_base_offset(w->data + start, base_offset);
}

static void note_one(group_offsets *o, int64_t base_offset, const group_offset *e, int n)
{
    kq_writer w;
    kq_writer_init(&w, 0);
    append_commit(&w, base_offset, e, n);
    assert_int_equal(group_offsets_note_batches(o, w.data, w.len), n);
    kq_writer_free(&w);
}

static int64_t offset_of(const group_offsets *o, const char *g, const char *t, int32_t p)
{
    group_offset out;
    return group_offsets_get(o, g, t, p, &out) ? out.offset : -100;
}

static void test_visible_at_high_watermark(void **state)
{
    (void)state;
    group_offsets *o = group_offsets_create();
    group_offset e[2] = { entry("g", "t", 0, 42, "meta"), entry("g", "t", 1, 43, NULL) };
    note_one(o, 10, e, 2);
    assert_int_equal(offset_of(o, "g", "t", 0), -100);
    assert_false(group_offsets_has_group(o, "g"));
    assert_int_equal(group_offsets_count(o), 0);
    group_offsets_commit(o, 11);
    assert_int_equal(group_offsets_committed_to(o), 11);
    group_offset out;
    assert_true(group_offsets_get(o, "g", "t", 0, &out));
    assert_int_equal(out.offset, 42);
    assert_int_equal(out.leader_epoch, 3);
    assert_string_equal(out.metadata, "meta");
    assert_int_equal(out.commit_timestamp_ms, 1764600000042);
    assert_int_equal(out.log_offset, 10);
    assert_int_equal(offset_of(o, "g", "t", 1), -100);
    group_offsets_commit(o, 5); /* never back */
    assert_int_equal(group_offsets_committed_to(o), 11);
    group_offsets_commit(o, 12);
    assert_true(group_offsets_get(o, "g", "t", 1, &out));
    assert_null(out.metadata);
    assert_int_equal(out.log_offset, 11);
    assert_int_equal(group_offsets_count(o), 2);
    assert_true(group_offsets_has_group(o, "g"));
    group_offsets_destroy(o);
}

static void test_truncate_drops_pending_only(void **state)
{
    (void)state;
    group_offsets *o = group_offsets_create();
    group_offset a = entry("g", "t", 0, 1, NULL), b = entry("g", "t", 0, 2, NULL);
    group_offset c = entry("g", "u", 0, 3, NULL);
    note_one(o, 10, &a, 1);
    note_one(o, 20, &b, 1);
    note_one(o, 30, &c, 1);
    group_offsets_commit(o, 15);
    group_offsets_truncate(o, 15); /* at committed_to: allowed */
    group_offsets_commit(o, 100);
    assert_int_equal(offset_of(o, "g", "t", 0), 1);
    assert_int_equal(offset_of(o, "g", "u", 0), -100);
    /* The log grows again after the cut. */
    note_one(o, 100, &b, 1);
    group_offsets_truncate(o, 101);
    group_offsets_commit(o, 101);
    assert_int_equal(offset_of(o, "g", "t", 0), 2);
    group_offsets_destroy(o);
}

static void test_override(void **state)
{
    (void)state;
    group_offsets *o = group_offsets_create();
    group_offset a = entry("g", "t", 0, 1, NULL), b = entry("g", "t", 0, 2, "m");
    group_offset c = entry("g", "t", 0, 3, NULL);
    note_one(o, 0, &a, 1);
    note_one(o, 1, &b, 1);
    group_offsets_commit(o, 2);
    group_offset out;
    assert_true(group_offsets_get(o, "g", "t", 0, &out));
    assert_int_equal(out.offset, 2);
    assert_string_equal(out.metadata, "m");
    note_one(o, 2, &c, 1);
    group_offsets_commit(o, 3);
    assert_true(group_offsets_get(o, "g", "t", 0, &out));
    assert_int_equal(out.offset, 3);
    assert_null(out.metadata);
    assert_int_equal(group_offsets_count(o), 1);
    group_offsets_destroy(o);
}

typedef struct seen {
    char line[64][64];
    int n;
    int stop_at;
} seen;

static int see(void *ctx, const group_offset *e)
{
    seen *s = ctx;
    snprintf(s->line[s->n++], sizeof s->line[0], "%s/%s/%d=%lld", e->group_id, e->topic,
             (int)e->partition, (long long)e->offset);
    return s->n == s->stop_at ? 7 : 0;
}

static int see_group(void *ctx, const char *group_id)
{
    seen *s = ctx;
    snprintf(s->line[s->n++], sizeof s->line[0], "%s", group_id);
    return 0;
}

static void test_walk_orders(void **state)
{
    (void)state;
    group_offsets *o = group_offsets_create();
    group_offset e[] = { entry("g", "b", 1, 1, NULL), entry("g", "a", 2, 2, NULL),
                         entry("h", "a", 0, 3, NULL), entry("g", "a", 0, 4, NULL),
                         entry("g", "b", 0, 5, NULL), entry("g", "a", 10, 6, NULL) };
    note_one(o, 0, e, 6);
    group_offsets_commit(o, 6);
    seen s = { .n = 0 };
    assert_int_equal(group_offsets_foreach_group(o, "g", see, &s), 0);
    assert_int_equal(s.n, 5);
    const char *want[] = { "g/a/0=4", "g/a/2=2", "g/a/10=6", "g/b/0=5", "g/b/1=1" };
    for (int i = 0; i < 5; i++)
        assert_string_equal(s.line[i], want[i]);
    s = (seen){ .stop_at = 2 };
    assert_int_equal(group_offsets_foreach_group(o, "g", see, &s), 7);
    assert_int_equal(s.n, 2);
    s = (seen){ .n = 0 };
    assert_int_equal(group_offsets_foreach_group(o, "none", see, &s), 0);
    assert_int_equal(s.n, 0);
    s = (seen){ .n = 0 };
    assert_int_equal(group_offsets_foreach_group_id(o, see_group, &s), 0);
    assert_int_equal(s.n, 2);
    assert_true((strcmp(s.line[0], "g") == 0 && strcmp(s.line[1], "h") == 0) ||
                (strcmp(s.line[0], "h") == 0 && strcmp(s.line[1], "g") == 0));
    assert_false(group_offsets_has_group(o, "none"));
    group_offsets_destroy(o);
}

static void test_at_end_view(void **state)
{
    (void)state;
    group_offsets *o = group_offsets_create();
    group_offset k1a = entry("g", "t", 0, 5, NULL), k1b = entry("g", "t", 0, 7, NULL);
    group_offset k1c = entry("g", "t", 0, 9, "x"), k2 = entry("g", "t", 1, 3, NULL);
    group_offset k3 = entry("a", "t", 0, 1, NULL);
    note_one(o, 0, &k1a, 1);
    note_one(o, 1, &k3, 1);
    group_offsets_commit(o, 2);
    note_one(o, 2, &k1b, 1);
    note_one(o, 3, &k2, 1);
    note_one(o, 4, &k1c, 1);
    group_offset out;
    assert_true(group_offsets_get_at_end(o, "g", "t", 0, &out));
    assert_int_equal(out.offset, 9);
    assert_int_equal(offset_of(o, "g", "t", 0), 5);
    assert_true(group_offsets_get_at_end(o, "a", "t", 0, &out));
    assert_int_equal(out.offset, 1);
    assert_false(group_offsets_get_at_end(o, "a", "t", 1, &out));
    seen s = { .n = 0 };
    assert_int_equal(group_offsets_foreach_at_end(o, see, &s), 0);
    assert_int_equal(s.n, 3);
    assert_string_equal(s.line[0], "a/t/0=1");
    assert_string_equal(s.line[1], "g/t/0=9");
    assert_string_equal(s.line[2], "g/t/1=3");
    s = (seen){ .stop_at = 1 };
    assert_int_equal(group_offsets_foreach_at_end(o, see, &s), 7);
    group_offsets_destroy(o);
}

static void test_restore_and_clear(void **state)
{
    (void)state;
    group_offsets *o = group_offsets_create();
    group_offset e = entry("g", "t", 4, -1, "");
    e.log_offset = 99;
    assert_true(group_offsets_restore(o, &e));
    group_offset out;
    assert_true(group_offsets_get(o, "g", "t", 4, &out));
    assert_int_equal(out.offset, -1);
    assert_int_equal(out.log_offset, -1);
    assert_string_equal(out.metadata, "");
    char big[KQ_GROUP_OFFSET_METADATA_BYTES_MAX + 2];
    memset(big, 'm', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    char topic[KQ_TOPIC_NAME_BYTES_MAX + 1];
    memset(topic, 't', sizeof topic - 1);
    topic[sizeof topic - 1] = '\0';
    group_offset bad[] = { entry("", "t", 0, 0, NULL), entry("g", "", 0, 0, NULL),
                           entry("g", "t", -1, 0, NULL), entry("g", "t", 0, -2, NULL),
                           entry("g", "t", 0, 0, big), entry("g", topic, 0, 0, NULL),
                           entry(NULL, "t", 0, 0, NULL) };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_false(group_offsets_restore(o, &bad[i]));
        kq_writer w;
        kq_writer_init(&w, 0);
        assert_false(group_offsets_build_batch(&w, &bad[i], 1, 0));
        kq_writer_free(&w);
    }
    big[KQ_GROUP_OFFSET_METADATA_BYTES_MAX] = '\0'; /* exactly the limit */
    topic[KQ_TOPIC_NAME_BYTES_MAX - 1] = '\0';
    group_offset edge = entry("g", topic, 0, 0, big);
    assert_true(group_offsets_restore(o, &edge));
    note_one(o, 0, &edge, 1);
    assert_int_equal(group_offsets_count(o), 2);
    group_offsets_clear(o, 50);
    assert_int_equal(group_offsets_count(o), 0);
    assert_int_equal(group_offsets_committed_to(o), 50);
    assert_false(group_offsets_has_group(o, "g"));
    assert_false(group_offsets_get_at_end(o, "g", topic, 0, &out));
    note_one(o, 50, &e, 1);
    group_offsets_commit(o, 51);
    assert_int_equal(group_offsets_count(o), 1);
    group_offsets_destroy(o);
    group_offsets_destroy(NULL);
}

static void test_build_refusals(void **state)
{
    (void)state;
    kq_writer w;
    kq_writer_init(&w, 0);
    group_offset e = entry("g", "t", 0, 0, NULL);
    assert_false(group_offsets_build_batch(&w, &e, 0, 0));
    assert_false(group_offsets_build_batch(&w, NULL, 1, 0));
    group_offset *many = calloc(KQ_GROUP_COMMIT_PARTITIONS_MAX + 1, sizeof(*many));
    for (int i = 0; i <= KQ_GROUP_COMMIT_PARTITIONS_MAX; i++)
        many[i] = entry("g", "t", i, i, NULL);
    assert_false(group_offsets_build_batch(&w, many, KQ_GROUP_COMMIT_PARTITIONS_MAX + 1, 0));
    assert_true(group_offsets_build_batch(&w, many, KQ_GROUP_COMMIT_PARTITIONS_MAX, 0));
    /* The batch: control, no producer, uncompressed, key {0, our type}. */
    record_batch_header h;
    assert_int_equal(record_batch_check(w.data, w.len, &h), RECORD_OK);
    assert_true(record_batch_is_control(&h));
    assert_int_equal(h.attributes, RECORD_ATTR_CONTROL);
    assert_int_equal(h.producer_id, -1);
    assert_int_equal(h.producer_epoch, -1);
    assert_int_equal(h.base_sequence, -1);
    assert_int_equal(h.record_count, KQ_GROUP_COMMIT_PARTITIONS_MAX);
    record_iter it;
    record rec;
    assert_int_equal(record_iter_open(&it, w.data, w.len), RECORD_OK);
    assert_true(record_iter_next(&it, &rec));
    assert_int_equal(record_control_type(rec.key), KQ_CONTROL_OFFSET_COMMIT);
    record_iter_close(&it);
    free(many);
    kq_writer_free(&w);
}

/* A leader change, a data batch whose key looks like ours, another control
 * type, then ours: only ours is noted. */
static void test_other_batches_skipped(void **state)
{
    (void)state;
    kq_writer w;
    kq_writer_init(&w, 0);
    int32_t voters[] = { 1, 2, 3 };
    assert_true(record_build_leader_change(&w, 0, 1, 0, 1, voters, 3, voters, 2));
    kq_writer value;
    kq_writer_init(&value, 0);
    group_offset e = entry("g", "t", 0, 5, NULL);
    group_offset_write_value(&value, &e);
    record rec = { .key = { commit_key, 4 }, .value = { value.data, (int32_t)value.len } };
    record_batch_builder_args data = { .base_offset = 1, .producer_id = -1,
                                       .producer_epoch = -1, .base_sequence = -1,
                                       .records = &rec, .record_count = 1 };
    assert_true(record_batch_build(&w, &data));
    uint8_t other_key[4] = { 0, 0, 0, 3 };
    record other = { .key = { other_key, 4 }, .value = { value.data, 2 } };
    record_batch_builder_args ctl = { .base_offset = 2, .attributes = RECORD_ATTR_CONTROL,
                                      .producer_id = -1, .producer_epoch = -1,
                                      .base_sequence = -1, .records = &other,
                                      .record_count = 1 };
    assert_true(record_batch_build(&w, &ctl));
    group_offset mine = entry("g", "t", 1, 6, NULL);
    append_commit(&w, 3, &mine, 1);
    group_offsets *o = group_offsets_create();
    assert_int_equal(group_offsets_note_batches(o, w.data, w.len), 1);
    assert_int_equal(group_offsets_note_batches(o, NULL, 0), 0);
    group_offsets_commit(o, 10);
    assert_int_equal(group_offsets_count(o), 1);
    assert_int_equal(offset_of(o, "g", "t", 1), 6);
    group_offsets_destroy(o);
    kq_writer_free(&value);
    kq_writer_free(&w);
}

/* Log offsets must ascend: a repeat is refused and the call noted nothing. */
static void test_offsets_ascend(void **state)
{
    (void)state;
    group_offsets *o = group_offsets_create();
    group_offset a = entry("g", "t", 0, 1, NULL), b = entry("g", "t", 1, 2, NULL);
    note_one(o, 5, &a, 1);
    kq_writer w;
    kq_writer_init(&w, 0);
    append_commit(&w, 6, &b, 1);
    append_commit(&w, 5, &b, 1);
    assert_int_equal(group_offsets_note_batches(o, w.data, w.len), -1);
    group_offsets_commit(o, 100);
    assert_int_equal(group_offsets_count(o), 1);
    /* Below committed_to: refused as well. */
    kq_writer_reset(&w);
    append_commit(&w, 50, &b, 1);
    assert_int_equal(group_offsets_note_batches(o, w.data, w.len), -1);
    assert_int_equal(group_offsets_count(o), 1);
    kq_writer_free(&w);
    group_offsets_destroy(o);
}

/* A control batch of ours holding value bytes v (len n) at offset 0. */
static int note_value(const uint8_t *v, size_t n, group_offset_value *parsed, bool *ok)
{
    kq_writer w;
    kq_writer_init(&w, 0);
    record rec = { .key = { commit_key, 4 }, .value = { v, (int32_t)n } };
    record_batch_builder_args ctl = { .attributes = RECORD_ATTR_CONTROL, .producer_id = -1,
                                      .producer_epoch = -1, .base_sequence = -1,
                                      .records = &rec, .record_count = 1 };
    assert_true(record_batch_build(&w, &ctl));
    group_offsets *o = group_offsets_create();
    group_offsets_skipped sk;
    int rc = group_offsets_note_batches_skipping(o, w.data, w.len, &sk);
    *ok = group_offset_read_value((kq_slice){ v, (int32_t)n }, parsed) == NULL;
    /* Issue 19: a value that does not parse is skipped, never fatal. */
    assert_int_equal(sk.count, *ok ? 0 : 1);
    assert_int_equal(sk.first_offset, *ok ? -1 : 0);
    assert_true(*ok || sk.reason != NULL);
    if (rc == 1) {
        group_offsets_commit(o, 1);
        group_offset out;
        assert_true(group_offsets_get(o, parsed->entry.group_id, parsed->entry.topic,
                                      parsed->entry.partition, &out));
        assert_int_equal(out.offset, parsed->entry.offset);
    } else {
        assert_int_equal(group_offsets_count(o), 0);
    }
    group_offsets_destroy(o);
    kq_writer_free(&w);
    return rc;
}

static void test_every_value_truncation_and_mutation(void **state)
{
    (void)state;
    kq_writer v;
    kq_writer_init(&v, 0);
    group_offset e = entry("grp", "top", 2, 77, "md");
    group_offset_write_value(&v, &e);
    group_offset_value *parsed = malloc(sizeof(*parsed));
    bool ok;
    assert_int_equal(note_value(v.data, v.len, parsed, &ok), 1);
    assert_true(ok);
    for (size_t len = 0; len < v.len; len++) {
        uint8_t *copy = malloc(len + 1); /* exact length for ASan */
        memcpy(copy, v.data, len);
        assert_int_equal(note_value(copy, len, parsed, &ok), 0);
        assert_false(ok);
        free(copy);
    }
    uint8_t *buf = malloc(v.len);
    for (size_t pos = 0; pos < v.len; pos++) {
        for (int b = 0; b < 256; b++) {
            if (b == v.data[pos])
                continue;
            memcpy(buf, v.data, v.len);
            buf[pos] = (uint8_t)b;
            int rc = note_value(buf, v.len, parsed, &ok);
            assert_int_equal(rc, ok ? 1 : 0);
        }
    }
    free(buf);
    free(parsed);
    kq_writer_free(&v);
}

/* Whole batches, unchecked: any byte, any length, never out of bounds. */
static void test_every_batch_truncation_and_mutation(void **state)
{
    (void)state;
    kq_writer w;
    kq_writer_init(&w, 0);
    group_offset e[2] = { entry("g", "t", 0, 1, NULL), entry("g", "t", 1, 2, "x") };
    append_commit(&w, 0, e, 2);
    group_offsets *o = group_offsets_create();
    for (size_t len = 0; len < w.len; len++) {
        uint8_t *copy = malloc(len + 1);
        memcpy(copy, w.data, len);
        int rc = group_offsets_note_batches(o, len ? copy : NULL, len);
        assert_int_equal(rc, len == 0 ? 0 : -1);
        free(copy);
    }
    uint8_t *buf = malloc(w.len);
    for (size_t pos = 0; pos < w.len; pos++) {
        for (int b = 0; b < 256; b += 3) {
            memcpy(buf, w.data, w.len);
            buf[pos] = (uint8_t)(buf[pos] ^ (b | 1));
            int rc = group_offsets_note_batches(o, buf, w.len);
            assert_true(rc >= -1 && rc <= 2);
            group_offsets_clear(o, 0);
        }
    }
    free(buf);
    group_offsets_destroy(o);
    kq_writer_free(&w);
}

/* Issue 19: unparsable records of ours in a CRC-valid log are skipped,
 * reported with their offsets, and the good commits around them kept; a
 * batch whose records do not parse is skipped whole. */
static void test_unparsable_skipped(void **state)
{
    (void)state;
    kq_writer w, bad;
    kq_writer_init(&w, 0);
    kq_writer_init(&bad, 0);
    group_offset a = entry("g", "t", 0, 5, NULL), b = entry("g", "t", 1, 6, NULL);
    kq_writer va, vb;
    kq_writer_init(&va, 0);
    kq_writer_init(&vb, 0);
    group_offset_write_value(&va, &a);
    group_offset_write_value(&vb, &b);
    static const uint8_t junk[3] = { 0, 7, 1 };
    record recs[3] = {
        { .key = { commit_key, 4 }, .value = { va.data, (int32_t)va.len } },
        { .key = { commit_key, 4 }, .value = { junk, 3 } },
        { .key = { commit_key, 4 }, .value = { vb.data, (int32_t)vb.len } },
    };
    record_batch_builder_args ctl = { .base_offset = 10, .attributes = RECORD_ATTR_CONTROL,
                                      .producer_id = -1, .producer_epoch = -1,
                                      .base_sequence = -1, .records = recs, .record_count = 3 };
    assert_true(record_batch_build(&w, &ctl));
    group_offsets *o = group_offsets_create();
    group_offsets_skipped sk;
    assert_int_equal(group_offsets_note_batches_skipping(o, w.data, w.len, &sk), 2);
    assert_int_equal(sk.count, 1);
    assert_int_equal(sk.first_offset, 11);
    assert_int_equal(sk.last_offset, 11);
    assert_non_null(sk.reason);
    group_offsets_commit(o, 13);
    assert_int_equal(offset_of(o, "g", "t", 0), 5);
    assert_int_equal(offset_of(o, "g", "t", 1), 6);
    /* Records that do not parse (a count above what the batch holds): the
     * whole batch is skipped, its good commit not kept. */
    ctl.base_offset = 20;
    ctl.records = &recs[2];
    ctl.record_count = 1;
    assert_true(record_batch_build(&bad, &ctl));
    bad.data[57 + 3] = 2; /* RecordsCount 1 -> 2 (unchecked CRC here) */
    assert_int_equal(group_offsets_note_batches_skipping(o, bad.data, bad.len, &sk), 0);
    assert_int_equal(sk.count, 1);
    assert_int_equal(sk.first_offset, 20);
    group_offsets_commit(o, 30);
    assert_int_equal(group_offsets_count(o), 2);
    group_offsets_destroy(o);
    kq_writer_free(&va);
    kq_writer_free(&vb);
    kq_writer_free(&bad);
    kq_writer_free(&w);
}

static int ascending(void *ctx, const group_offset *e)
{
    int32_t *last = ctx;
    assert_int_equal(e->partition, *last + 1);
    *last = e->partition;
    return 0;
}

/* KQ_GROUP_OFFSETS_MAX distinct keys over 100 groups, committed through
 * batches of KQ_GROUP_COMMIT_PARTITIONS_MAX; everything freed (ASan). */
static void test_full_table(void **state)
{
    (void)state;
    group_offsets *o = group_offsets_create();
    group_offset *batch = calloc(KQ_GROUP_COMMIT_PARTITIONS_MAX, sizeof(*batch));
    char (*groups)[16] = calloc(100, sizeof(*groups));
    for (int g = 0; g < 100; g++)
        snprintf(groups[g], sizeof groups[g], "group-%d", g);
    kq_writer w;
    kq_writer_init(&w, 0);
    int64_t log = 0;
    for (int i = 0; i < KQ_GROUP_OFFSETS_MAX;) {
        int n = 0;
        for (; n < KQ_GROUP_COMMIT_PARTITIONS_MAX && i < KQ_GROUP_OFFSETS_MAX; n++, i++)
            batch[n] = entry(groups[i % 100], "topic", i / 100, i, (i & 1) ? "m" : NULL);
        kq_writer_reset(&w);
        append_commit(&w, log, batch, n);
        assert_int_equal(group_offsets_note_batches(o, w.data, w.len), n);
        log += n;
        group_offsets_commit(o, log - n / 2);
    }
    group_offsets_commit(o, log);
    assert_int_equal(group_offsets_count(o), KQ_GROUP_OFFSETS_MAX);
    assert_int_equal(offset_of(o, "group-7", "topic", 999), 99907);
    int32_t last = -1;
    assert_int_equal(group_offsets_foreach_group(o, "group-3", ascending, &last), 0);
    assert_int_equal(last, KQ_GROUP_OFFSETS_MAX / 100 - 1);
    free(groups);
    free(batch);
    kq_writer_free(&w);
    group_offsets_destroy(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_visible_at_high_watermark),
        cmocka_unit_test(test_truncate_drops_pending_only),
        cmocka_unit_test(test_override),
        cmocka_unit_test(test_walk_orders),
        cmocka_unit_test(test_at_end_view),
        cmocka_unit_test(test_restore_and_clear),
        cmocka_unit_test(test_build_refusals),
        cmocka_unit_test(test_other_batches_skipped),
        cmocka_unit_test(test_offsets_ascend),
        cmocka_unit_test(test_every_value_truncation_and_mutation),
        cmocka_unit_test(test_every_batch_truncation_and_mutation),
        cmocka_unit_test(test_full_table),
        cmocka_unit_test(test_unparsable_skipped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
