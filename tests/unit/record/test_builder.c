/* Builder: golden bytes, round trips, rejections, leader change batches. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "record_test_util.h"

static kq_slice S(const char *s)
{
    return s ? kq_slice_cstr(s) : (kq_slice){ NULL, -1 };
}

static void test_build_matches_golden(void **state)
{
    (void)state;
    record_header_kv hdr = { S("h"), S("x") };
    record recs[2];
    memset(recs, 0, sizeof(recs));
    recs[0].timestamp = 1000;
    recs[0].key = S("k");
    recs[0].value = S("v0");
    recs[1].timestamp = 1002;
    recs[1].key = S(NULL);
    recs[1].value = S("v1");
    recs[1].header_count = 1;
    recs[1].headers = &hdr;
    record_batch_builder_args a = {
        .base_offset = 5, .partition_leader_epoch = 3, .attributes = 0,
        .base_timestamp = 1000, .producer_id = 42, .producer_epoch = 1,
        .base_sequence = 7, .records = recs, .record_count = 2,
    };
    kq_writer w;
    kq_writer_init(&w, 1 << 20);
    assert_true(record_batch_build(&w, &a));
    assert_int_equal(w.len, sizeof(golden_batch));
    assert_memory_equal(w.data, golden_batch, sizeof(golden_batch));
    kq_writer_free(&w);
}

static void test_round_trip(void **state)
{
    (void)state;
    enum { N = 50 };
    record recs[N];
    record_header_kv hdrs[3] = { { S("a"), S("1") }, { S("b"), S(NULL) }, { S(""), S("") } };
    char keys[N][16], vals[N][64];
    memset(recs, 0, sizeof(recs));
    for (int i = 0; i < N; i++) {
        snprintf(keys[i], sizeof(keys[i]), "key-%d", i);
        snprintf(vals[i], sizeof(vals[i]), "value number %d", i * 7);
        recs[i].timestamp = 1600000000000LL + (i % 7) * 1000 - 3000; /* some before base */
        recs[i].key = (i % 5 == 0) ? S(NULL) : S(keys[i]);
        recs[i].value = (i % 11 == 0) ? S(NULL) : (i % 13 == 0 ? S("") : S(vals[i]));
        recs[i].header_count = i % 4;
        recs[i].headers = recs[i].header_count ? hdrs : NULL;
    }
    record_batch_builder_args a = {
        .base_offset = 1000000, .partition_leader_epoch = 9,
        .attributes = RECORD_ATTR_TRANSACTIONAL, .base_timestamp = 1600000000000LL,
        .producer_id = 123456789012LL, .producer_epoch = 17, .base_sequence = 2147483600,
        .records = recs, .record_count = N,
    };
    kq_writer w;
    kq_writer_init(&w, 1 << 20);
    assert_true(record_batch_build(&w, &a));

    record_batch_header h;
    assert_int_equal(record_batch_check(w.data, w.len, &h), RECORD_OK);
    assert_int_equal(record_batch_size(&h), w.len);
    assert_int_equal(h.base_offset, 1000000);
    assert_int_equal(h.partition_leader_epoch, 9);
    assert_int_equal(h.attributes, RECORD_ATTR_TRANSACTIONAL);
    assert_int_equal(h.last_offset_delta, N - 1);
    assert_int_equal(h.base_timestamp, 1600000000000LL);
    assert_int_equal(h.max_timestamp, 1600000000000LL + 6 * 1000 - 3000);
    assert_int_equal(h.producer_id, 123456789012LL);
    assert_int_equal(h.producer_epoch, 17);
    assert_int_equal(h.base_sequence, 2147483600);
    assert_int_equal(h.record_count, N);
    record_set_summary s;
    assert_int_equal(record_set_validate(w.data, w.len, true, &s), RECORD_OK);
    assert_int_equal(s.batch_count, 1);
    assert_int_equal(s.offset_count, N);
    assert_int_equal(s.max_timestamp, h.max_timestamp);
    assert_int_equal(s.attributes_any, RECORD_ATTR_TRANSACTIONAL);
    assert_int_equal(s.producer_id_batches, 1);

    record_iter it;
    record rec;
    assert_int_equal(record_iter_open(&it, w.data, w.len), RECORD_OK);
    for (int i = 0; i < N; i++) {
        assert_true(record_iter_next(&it, &rec));
        assert_int_equal(rec.offset, 1000000 + i);
        assert_int_equal(rec.timestamp, recs[i].timestamp);
        assert_int_equal(rec.key.len, recs[i].key.len);
        if (rec.key.len > 0)
            assert_memory_equal(rec.key.ptr, recs[i].key.ptr, (size_t)rec.key.len);
        assert_int_equal(rec.value.len, recs[i].value.len);
        if (rec.value.len > 0)
            assert_memory_equal(rec.value.ptr, recs[i].value.ptr, (size_t)rec.value.len);
        assert_int_equal(rec.header_count, recs[i].header_count);
        kq_reader hr;
        kq_reader_init(&hr, rec.headers_raw.ptr, (size_t)rec.headers_raw.len);
        for (int j = 0; j < rec.header_count; j++) {
            record_header_kv kv;
            assert_true(record_header_next(&hr, &kv));
            assert_int_equal(kv.key.len, hdrs[j].key.len);
            assert_memory_equal(kv.key.ptr, hdrs[j].key.ptr, (size_t)kv.key.len);
            assert_int_equal(kv.value.len, hdrs[j].value.len);
            if (kv.value.len > 0)
                assert_memory_equal(kv.value.ptr, hdrs[j].value.ptr, (size_t)kv.value.len);
        }
        assert_int_equal(kq_reader_remaining(&hr), 0);
    }
    assert_false(record_iter_next(&it, &rec));
    assert_int_equal(it.status, RECORD_OK);
    record_iter_close(&it);
    kq_writer_free(&w);
}

static void test_appends_batches(void **state)
{
    (void)state;
    record r;
    memset(&r, 0, sizeof(r));
    r.key = S(NULL);
    r.value = S("payload");
    kq_writer w;
    kq_writer_init(&w, 1 << 20);
    for (int i = 0; i < 3; i++) {
        r.timestamp = 100 + i;
        /* The last batch a control batch: the summary ORs every batch's
         * attributes (issue 19: a Produce checks them all). */
        record_batch_builder_args a = {
            .base_offset = i, .base_timestamp = 100 + i, .producer_id = -1,
            .producer_epoch = -1, .base_sequence = -1, .records = &r, .record_count = 1,
            .attributes = i == 2 ? RECORD_ATTR_CONTROL : 0,
        };
        assert_true(record_batch_build(&w, &a));
    }
    record_set_summary s;
    assert_int_equal(record_set_validate(w.data, w.len, true, &s), RECORD_OK);
    assert_int_equal(s.batch_count, 3);
    assert_int_equal(s.offset_count, 3);
    assert_int_equal(s.max_timestamp, 102);
    assert_int_equal(s.attributes_any, RECORD_ATTR_CONTROL);
    assert_int_equal(s.producer_id_batches, 0);
    kq_writer_free(&w);
}

static void test_build_rejects(void **state)
{
    (void)state;
    record r;
    memset(&r, 0, sizeof(r));
    r.key = S("k");
    r.value = S("v");
    record_batch_builder_args a = {
        .producer_id = -1, .producer_epoch = -1, .base_sequence = -1,
        .records = &r, .record_count = 1,
    };
    kq_writer w;
    kq_writer_init(&w, 1 << 20);
    kq_write_i32(&w, 0x11223344); /* existing content must survive failures */

    a.record_count = 0;
    assert_false(record_batch_build(&w, &a));
    a.record_count = 1;
    a.attributes = RECORD_COMPRESSION_GZIP;
    assert_false(record_batch_build(&w, &a));
    a.attributes = 0;
    r.key.len = -2;
    assert_false(record_batch_build(&w, &a));
    r.key = S("k");
    record_header_kv bad = { S(NULL), S("v") }; /* header keys cannot be null */
    r.header_count = 1;
    r.headers = &bad;
    assert_false(record_batch_build(&w, &a));
    r.headers = NULL; /* count without headers */
    assert_false(record_batch_build(&w, &a));
    assert_int_equal(w.len, 4);
    assert_false(w.error);
    r.header_count = 0;
    assert_true(record_batch_build(&w, &a));
    assert_int_equal(record_set_validate(w.data + 4, w.len - 4, true, NULL), RECORD_OK);
    kq_writer_free(&w);

    /* A writer bound too small for the batch. */
    kq_writer small;
    kq_writer_init(&small, 40);
    assert_false(record_batch_build(&small, &a));
    kq_writer_free(&small);
}

static const uint8_t golden_leader_change_value[] = {
    0x00, 0x00,             /* Version 0 */
    0x00, 0x00, 0x00, 0x02, /* LeaderId 2 */
    0x04,                   /* Voters: 3 (compact) */
    0x00, 0x00, 0x00, 0x01, 0x00,
    0x00, 0x00, 0x00, 0x02, 0x00,
    0x00, 0x00, 0x00, 0x03, 0x00,
    0x03,                   /* GrantingVoters: 2 */
    0x00, 0x00, 0x00, 0x02, 0x00,
    0x00, 0x00, 0x00, 0x03, 0x00,
    0x00,                   /* tags */
};

static void test_leader_change(void **state)
{
    (void)state;
    const int32_t voters[] = { 1, 2, 3 };
    const int32_t granting[] = { 2, 3 };
    kq_writer w;
    kq_writer_init(&w, 1 << 20);
    assert_true(record_build_leader_change(&w, 42, 7, 1234567, 2, voters, 3, granting, 2));
    record_batch_header h;
    assert_int_equal(record_batch_check(w.data, w.len, &h), RECORD_OK);
    assert_int_equal(record_set_validate(w.data, w.len, true, NULL), RECORD_OK);
    assert_int_equal(h.base_offset, 42);
    assert_int_equal(h.partition_leader_epoch, 7);
    assert_int_equal(h.attributes, RECORD_ATTR_CONTROL);
    assert_true(record_batch_is_control(&h));
    assert_int_equal(h.producer_id, -1);
    assert_int_equal(h.producer_epoch, -1);
    assert_int_equal(h.base_sequence, -1);
    assert_int_equal(h.record_count, 1);
    assert_int_equal(h.last_offset_delta, 0);
    assert_int_equal(h.base_timestamp, 1234567);
    assert_int_equal(h.max_timestamp, 1234567);

    record_iter it;
    record rec;
    assert_int_equal(record_iter_open(&it, w.data, w.len), RECORD_OK);
    assert_true(record_iter_next(&it, &rec));
    static const uint8_t key[] = { 0, 0, 0, 2 };
    assert_int_equal(rec.key.len, 4);
    assert_memory_equal(rec.key.ptr, key, 4);
    assert_int_equal(record_control_type(rec.key), RECORD_CONTROL_LEADER_CHANGE);
    assert_int_equal(rec.value.len, sizeof(golden_leader_change_value));
    assert_memory_equal(rec.value.ptr, golden_leader_change_value,
                        sizeof(golden_leader_change_value));
    int32_t leader = -1, got[8];
    int n = -1;
    assert_true(record_parse_leader_change(rec.value, &leader, got, &n, 8));
    assert_int_equal(leader, 2);
    assert_int_equal(n, 3);
    assert_int_equal(got[0], 1);
    assert_int_equal(got[1], 2);
    assert_int_equal(got[2], 3);
    /* Too small an output array. */
    assert_false(record_parse_leader_change(rec.value, &leader, got, &n, 2));
    /* Count only. */
    n = -1;
    assert_true(record_parse_leader_change(rec.value, NULL, NULL, &n, 0));
    assert_int_equal(n, 3);
    assert_false(record_iter_next(&it, &rec));
    assert_int_equal(it.status, RECORD_OK);
    record_iter_close(&it);
    kq_writer_free(&w);

    /* No voters at all is still a well-formed message. */
    kq_writer_init(&w, 1 << 20);
    assert_true(record_build_leader_change(&w, 0, 1, 0, 1, NULL, 0, NULL, 0));
    assert_int_equal(record_set_validate(w.data, w.len, true, NULL), RECORD_OK);
    kq_writer_free(&w);
}

static void test_parse_leader_change_rejects(void **state)
{
    (void)state;
    int32_t leader, got[8];
    int n;
    kq_slice v = { golden_leader_change_value, sizeof(golden_leader_change_value) };
    for (int32_t len = 0; len < v.len; len++) {
        kq_slice t = { v.ptr, len };
        assert_false(record_parse_leader_change(t, &leader, got, &n, 8));
    }
    uint8_t extra[sizeof(golden_leader_change_value) + 1];
    memcpy(extra, golden_leader_change_value, sizeof(golden_leader_change_value));
    extra[sizeof(extra) - 1] = 0;
    assert_false(record_parse_leader_change((kq_slice){ extra, sizeof(extra) }, &leader, got, &n, 8));
    memcpy(extra, golden_leader_change_value, sizeof(golden_leader_change_value));
    extra[1] = 5; /* unknown version */
    assert_false(record_parse_leader_change((kq_slice){ extra, sizeof(extra) - 1 }, &leader, got,
                                            &n, 8));
    assert_false(record_parse_leader_change((kq_slice){ NULL, -1 }, &leader, got, &n, 8));

    /* Version 1 carries a directory id per voter. */
    uint8_t v1[64];
    size_t p = 0;
    v1[p++] = 0; v1[p++] = 1;
    v1[p++] = 0; v1[p++] = 0; v1[p++] = 0; v1[p++] = 9;
    v1[p++] = 2; /* one voter */
    v1[p++] = 0; v1[p++] = 0; v1[p++] = 0; v1[p++] = 9;
    memset(v1 + p, 0xab, 16);
    p += 16;
    v1[p++] = 0;
    v1[p++] = 1; /* no granting voters */
    v1[p++] = 0;
    assert_true(record_parse_leader_change((kq_slice){ v1, (int32_t)p }, &leader, got, &n, 8));
    assert_int_equal(leader, 9);
    assert_int_equal(n, 1);
    assert_int_equal(got[0], 9);
}

static void test_control_type(void **state)
{
    (void)state;
    static const uint8_t commit[] = { 0, 0, 0, 1 };
    static const uint8_t bad_version[] = { 0, 1, 0, 2 };
    assert_int_equal(record_control_type((kq_slice){ commit, 4 }), RECORD_CONTROL_COMMIT);
    assert_int_equal(record_control_type((kq_slice){ bad_version, 4 }), -1);
    assert_int_equal(record_control_type((kq_slice){ commit, 3 }), -1);
    assert_int_equal(record_control_type((kq_slice){ NULL, -1 }), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_matches_golden),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_appends_batches),
        cmocka_unit_test(test_build_rejects),
        cmocka_unit_test(test_leader_change),
        cmocka_unit_test(test_parse_leader_change_rejects),
        cmocka_unit_test(test_control_type),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
