/* The group store (include/kq/group_store.h, issue 24): KQ_CONTROL_GROUP
 * records built into a control batch and applied at the log end (upserts,
 * member and group tombstones, key order), the batch applied whole or not
 * at all, offsets that must ascend, the walk, restore, clear and swap, the
 * costs, and hostile values: every truncation and byte flip of a record
 * value and of the classic bodies is refused or parses, without UB. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kq/group_store.h"
#include "kq/record.h"

#define TS 1764600000000

/* A classic group body in w. */
static void group_body(kq_writer *w, int8_t state, int32_t gen, const char *leader)
{
    kq_writer_reset(w);
    group_store_classic_group g = {.state = state, .generation = gen, .protocol_type = "consumer",
                                   .protocol_name = "range", .leader_id = leader,
                                   .state_timestamp_ms = TS};
    assert_true(group_store_classic_group_write(w, &g));
}

static void member_body(kq_writer *w, const char *meta, const char *assignment)
{
    kq_writer_reset(w);
    group_store_classic_member m = {
        .instance_id = NULL, .client_id = "client", .client_host = "/10.0.0.1:5",
        .session_timeout_ms = 10000, .rebalance_timeout_ms = 30000,
        .metadata = (const uint8_t *)meta, .metadata_len = strlen(meta),
        .assignment = (const uint8_t *)assignment, .assignment_len = strlen(assignment)};
    assert_true(group_store_classic_member_write(w, &m));
}

static group_store_record grec(const char *group, const kq_writer *body)
{
    return (group_store_record){.kind = GROUP_STORE_GROUP, .group_id = group,
                                .type = GROUP_STORE_TYPE_CLASSIC, .body = body->data,
                                .body_len = body->len};
}

static group_store_record mrec(const char *group, const char *member, const kq_writer *body)
{
    return (group_store_record){.kind = GROUP_STORE_MEMBER, .group_id = group,
                                .member_id = member, .type = GROUP_STORE_TYPE_CLASSIC,
                                .body = body->data, .body_len = body->len};
}

static group_store_record tomb(const char *group, const char *member)
{
    return (group_store_record){.kind = member ? GROUP_STORE_MEMBER : GROUP_STORE_GROUP,
                                .group_id = group, .member_id = member,
                                .type = GROUP_STORE_TYPE_CLASSIC, .tombstone = true};
}

/* Appends the batch of recs at base_offset to out. */
static void append_batch(kq_writer *out, int64_t base_offset, const group_store_record *recs,
                         int n)
{
    group_store_batch b;
    group_store_batch_init(&b);
    for (int i = 0; i < n; i++)
        assert_true(group_store_batch_add(&b, &recs[i]));
    size_t start = out->len;
    assert_true(group_store_batch_build(&b, out, TS));
    record_batch_set_base_offset(out->data + start, base_offset);
    group_store_batch_free(&b);
}

static int note(group_store *s, int64_t base_offset, const group_store_record *recs, int n)
{
    kq_writer w;
    kq_writer_init(&w, 0);
    append_batch(&w, base_offset, recs, n);
    int rc = group_store_note_batches(s, w.data, w.len, NULL);
    kq_writer_free(&w);
    return rc;
}

static void assert_member(const group_store *s, int gi, int mi, const char *id)
{
    group_store_record r;
    assert_true(group_store_member_at(s, gi, mi, &r));
    assert_string_equal(r.member_id, id);
}

static void test_apply_and_tombstones(void **state)
{
    (void)state;
    group_store *s = group_store_create();
    kq_writer gb, m1, m2;
    kq_writer_init(&gb, 0);
    kq_writer_init(&m1, 0);
    kq_writer_init(&m2, 0);
    group_body(&gb, 3, 4, "b-1");
    member_body(&m1, "sub", "assign-b");
    member_body(&m2, "sub", "assign-a");
    group_store_record recs[] = {grec("g2", &gb), mrec("g2", "b-1", &m1), mrec("g2", "a-1", &m2),
                                 grec("g1", &gb)};
    assert_int_equal(note(s, 10, recs, 4), 4);
    assert_int_equal(group_store_last_offset(s), 13);
    assert_int_equal(group_store_noted_to(s), 14);
    assert_int_equal(group_store_group_count(s), 2);
    assert_int_equal(group_store_record_count(s), 4);
    group_store_record r;
    assert_true(group_store_group_at(s, 0, &r)); /* key order */
    assert_string_equal(r.group_id, "g1");
    assert_int_equal(group_store_find(s, "g2"), 1);
    assert_int_equal(group_store_member_count(s, 1), 2);
    assert_member(s, 1, 0, "a-1");
    assert_member(s, 1, 1, "b-1");
    assert_true(group_store_member_at(s, 1, 1, &r));
    group_store_classic_member m;
    group_store_classic_strings str;
    assert_null(group_store_classic_member_read((kq_slice){r.body, (int32_t)r.body_len}, &m, &str));
    assert_int_equal(m.assignment_len, 8);
    assert_memory_equal(m.assignment, "assign-b", 8);
    uint64_t bytes = 0;
    for (int i = 0; i < 4; i++)
        bytes += group_store_record_cost(&recs[i]);
    assert_int_equal(group_store_bytes(s), bytes);
    /* An upsert replaces; a member's tombstone removes it. */
    member_body(&m1, "sub", "assign-b2");
    group_store_record next[] = {mrec("g2", "b-1", &m1), tomb("g2", "a-1"), tomb("g9", "x")};
    assert_int_equal(note(s, 14, next, 3), 3);
    assert_int_equal(group_store_member_count(s, 1), 1);
    assert_true(group_store_member_at(s, 1, 0, &r));
    assert_int_equal(r.body_len, m1.len);
    assert_int_equal(group_store_record_count(s), 3);
    /* A group's tombstone takes its members. */
    group_store_record gone[] = {tomb("g2", NULL)};
    assert_int_equal(note(s, 17, gone, 1), 1);
    assert_int_equal(group_store_group_count(s), 1);
    assert_int_equal(group_store_record_count(s), 1);
    assert_int_equal(group_store_bytes(s), group_store_record_cost(&recs[3]));
    /* Offsets must ascend. */
    assert_int_equal(note(s, 5, gone, 1), -1);
    group_store_destroy(s);
    kq_writer_free(&gb);
    kq_writer_free(&m1);
    kq_writer_free(&m2);
}

/* A member record without its group's: the group is known by its members
 * only (no record of its own), and goes with its last member. */
static void test_member_without_group(void **state)
{
    (void)state;
    group_store *s = group_store_create();
    kq_writer mb;
    kq_writer_init(&mb, 0);
    member_body(&mb, "m", "a");
    group_store_record r1[] = {mrec("lone", "m-1", &mb)};
    assert_int_equal(note(s, 0, r1, 1), 1);
    group_store_record r;
    assert_true(group_store_group_at(s, 0, &r));
    assert_true(r.tombstone);
    assert_int_equal(r.type, -1);
    group_store_record r2[] = {tomb("lone", "m-1")};
    assert_int_equal(note(s, 1, r2, 1), 1);
    assert_int_equal(group_store_group_count(s), 0);
    assert_int_equal(group_store_bytes(s), 0);
    group_store_destroy(s);
    kq_writer_free(&mb);
}

/* Other batches are skipped; one record of ours that does not parse skips
 * its whole batch (reported), never fatal. */
static void test_skips(void **state)
{
    (void)state;
    group_store *s = group_store_create();
    kq_writer gb;
    kq_writer_init(&gb, 0);
    group_body(&gb, 0, 1, "");
    kq_writer w;
    kq_writer_init(&w, 0);
    group_store_record ok[] = {grec("a", &gb), grec("b", &gb)};
    append_batch(&w, 0, ok, 2);
    /* A control batch of ours whose second value is cut short. */
    uint8_t key[4] = {0, 0, (uint8_t)(KQ_CONTROL_GROUP >> 8), (uint8_t)(KQ_CONTROL_GROUP & 0xff)};
    kq_writer v;
    kq_writer_init(&v, 0);
    group_store_record c = grec("c", &gb);
    group_store_write_value(&v, &c);
    record recs[2] = {{.key = {key, 4}, .value = {v.data, (int32_t)v.len}},
                      {.key = {key, 4}, .value = {v.data, (int32_t)v.len - 1}}};
    record_batch_builder_args args = {.base_offset = 2, .attributes = RECORD_ATTR_CONTROL,
                                      .producer_id = -1, .producer_epoch = -1,
                                      .base_sequence = -1, .records = recs, .record_count = 2};
    assert_true(record_batch_build(&w, &args));
    /* A data batch with the same bytes: not ours. */
    args.base_offset = 4;
    args.attributes = 0;
    assert_true(record_batch_build(&w, &args));
    group_store_skipped sk;
    assert_int_equal(group_store_note_batches(s, w.data, w.len, &sk), 2);
    assert_int_equal(sk.count, 1);
    assert_int_equal(sk.first_offset, 3);
    assert_non_null(sk.reason);
    assert_int_equal(group_store_group_count(s), 2);
    assert_int_equal(group_store_find(s, "c"), -1);
    assert_int_equal(group_store_noted_to(s), 6);
    /* A batch that is not whole: -1. */
    assert_int_equal(group_store_note_batches(s, w.data, 20, NULL), -1);
    group_store_destroy(s);
    kq_writer_free(&w);
    kq_writer_free(&v);
    kq_writer_free(&gb);
}

static void test_restore_clear_swap(void **state)
{
    (void)state;
    group_store *s = group_store_create();
    kq_writer gb, mb;
    kq_writer_init(&gb, 0);
    kq_writer_init(&mb, 0);
    group_body(&gb, 3, 2, "m");
    member_body(&mb, "x", "y");
    group_store_record g = grec("g", &gb), m = mrec("g", "m", &mb), t = tomb("g", NULL);
    assert_true(group_store_restore(s, &m));
    assert_true(group_store_restore(s, &g));
    assert_true(group_store_has(s, &g));
    assert_true(group_store_has(s, &m));
    assert_false(group_store_restore(s, &g)); /* a key once */
    assert_false(group_store_restore(s, &m));
    assert_false(group_store_restore(s, &t)); /* no tombstones */
    group_store_restored(s, 100);
    assert_int_equal(group_store_noted_to(s), 100);
    assert_int_equal(group_store_last_offset(s), -1);
    group_store *other = group_store_create();
    group_store_swap(s, other);
    assert_int_equal(group_store_group_count(s), 0);
    assert_int_equal(group_store_record_count(other), 2);
    group_store_clear(other);
    assert_int_equal(group_store_record_count(other), 0);
    assert_int_equal(group_store_noted_to(other), -1);
    group_store_destroy(s);
    group_store_destroy(other);
    kq_writer_free(&gb);
    kq_writer_free(&mb);
}

/* The rules on both sides: what write refuses and what a record may hold. */
static void test_rules(void **state)
{
    (void)state;
    kq_writer w;
    kq_writer_init(&w, 0);
    group_store_classic_group g = {.state = 4, .protocol_type = "", .protocol_name = "",
                                   .leader_id = ""};
    assert_false(group_store_classic_group_write(&w, &g)); /* Dead is not written */
    g.state = 0;
    g.generation = -1;
    assert_false(group_store_classic_group_write(&w, &g));
    assert_int_equal(w.len, 0);
    uint8_t big[KQ_GROUP_STORE_METADATA_BYTES_MAX + 1] = {0};
    group_store_classic_member m = {.client_id = "", .client_host = "", .session_timeout_ms = 1,
                                    .metadata = big, .metadata_len = sizeof(big)};
    assert_false(group_store_classic_member_write(&w, &m));
    m.metadata_len = 0;
    m.session_timeout_ms = -1;
    assert_false(group_store_classic_member_write(&w, &m));
    char long_id[KQ_GROUP_NAME_BYTES_MAX + 1];
    memset(long_id, 'x', sizeof(long_id) - 1);
    long_id[sizeof(long_id) - 1] = 0;
    group_store_record r = {.kind = GROUP_STORE_GROUP, .group_id = long_id,
                            .type = GROUP_STORE_TYPE_CONSUMER, .tombstone = true};
    assert_non_null(group_store_record_invalid(&r));
    r.group_id = "g";
    assert_null(group_store_record_invalid(&r));
    r.member_id = "m"; /* a group record names no member */
    assert_non_null(group_store_record_invalid(&r));
    r.member_id = NULL;
    r.type = 7;
    assert_non_null(group_store_record_invalid(&r));
    /* A consumer group's body is opaque, bounded. */
    uint8_t opaque[KQ_GROUP_STORE_BODY_BYTES_MAX + 1] = {1, 2, 3};
    r = (group_store_record){.kind = GROUP_STORE_MEMBER, .group_id = "g", .member_id = "m",
                             .type = GROUP_STORE_TYPE_CONSUMER, .body = opaque, .body_len = 3};
    assert_null(group_store_record_invalid(&r));
    r.body_len = sizeof(opaque);
    assert_non_null(group_store_record_invalid(&r));
    /* A classic body that does not parse is refused. */
    r.type = GROUP_STORE_TYPE_CLASSIC;
    r.body_len = 3;
    assert_non_null(group_store_record_invalid(&r));
    group_store_batch b;
    group_store_batch_init(&b);
    assert_false(group_store_batch_add(&b, &r));
    assert_true(b.failed);
    assert_false(group_store_batch_build(&b, &w, TS));
    group_store_batch_free(&b);
    kq_writer_free(&w);
}

/* Every truncation and every single-byte change of a value: refused, or
 * parsed into a record that meets the rules; never UB (ASan/UBSan). */
static void mutate_value(const kq_writer *v)
{
    uint8_t *copy = malloc(v->len);
    assert_non_null(copy);
    group_store_record r;
    group_store_scratch scratch;
    for (size_t n = 0; n < v->len; n++) {
        memcpy(copy, v->data, n);
        assert_non_null(group_store_read_value((kq_slice){copy, (int32_t)n}, &r, &scratch));
    }
    static const uint8_t flips[] = {0x00, 0x01, 0x7f, 0x80, 0xff};
    for (size_t i = 0; i < v->len; i++) {
        for (size_t f = 0; f < sizeof(flips); f++) {
            memcpy(copy, v->data, v->len);
            copy[i] = flips[f];
            if (group_store_read_value((kq_slice){copy, (int32_t)v->len}, &r, &scratch) == NULL)
                assert_null(group_store_record_invalid(&r));
        }
    }
    assert_null(group_store_read_value((kq_slice){v->data, (int32_t)v->len}, &r, &scratch));
    free(copy);
}

static void test_hostile_values(void **state)
{
    (void)state;
    kq_writer gb, mb, v;
    kq_writer_init(&gb, 0);
    kq_writer_init(&mb, 0);
    kq_writer_init(&v, 0);
    group_body(&gb, 2, 7, "leader");
    member_body(&mb, "metadata", "assignment");
    group_store_record recs[] = {grec("group", &gb), mrec("group", "member", &mb),
                                 tomb("group", NULL), tomb("group", "member")};
    for (size_t i = 0; i < sizeof(recs) / sizeof(recs[0]); i++) {
        kq_writer_reset(&v);
        group_store_write_value(&v, &recs[i]);
        mutate_value(&v);
    }
    /* The classic bodies alone. */
    group_store_classic_group g;
    group_store_classic_member m;
    group_store_classic_strings s;
    for (size_t n = 0; n < gb.len; n++)
        assert_non_null(group_store_classic_group_read((kq_slice){gb.data, (int32_t)n}, &g, &s));
    for (size_t n = 0; n < mb.len; n++)
        assert_non_null(group_store_classic_member_read((kq_slice){mb.data, (int32_t)n}, &m, &s));
    assert_non_null(group_store_classic_member_read((kq_slice){NULL, -1}, &m, &s));
    uint8_t *copy = malloc(mb.len + 1);
    for (size_t i = 0; i < mb.len; i++) {
        for (int f = 0; f < 256; f += 51) {
            memcpy(copy, mb.data, mb.len);
            copy[i] = (uint8_t)f;
            (void)group_store_classic_member_read((kq_slice){copy, (int32_t)mb.len}, &m, &s);
        }
    }
    memcpy(copy, mb.data, mb.len);
    copy[mb.len] = 0; /* a byte after the body */
    assert_non_null(group_store_classic_member_read((kq_slice){copy, (int32_t)mb.len + 1}, &m, &s));
    free(copy);
    kq_writer_free(&gb);
    kq_writer_free(&mb);
    kq_writer_free(&v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_apply_and_tombstones),
        cmocka_unit_test(test_member_without_group),
        cmocka_unit_test(test_skips),
        cmocka_unit_test(test_restore_clear_swap),
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_hostile_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
