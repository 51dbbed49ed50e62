#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "kq/wire_api_versions.h"
#include "client_api_test_util.h"

static const wire_api_range sample_keys[] = {
    {0, 0, 12},
    {18, 0, 4},
};

static wire_api_versions_request full_request(void)
{
    wire_api_versions_request q = {test_slice("kq"), test_slice("1.0")};
    return q;
}

static wire_api_versions_request request_for_version(int16_t v)
{
    wire_api_versions_request q = full_request();
    if (v < 3) {
        q.client_software_name = (kq_slice){NULL, -1};
        q.client_software_version = (kq_slice){NULL, -1};
    }
    return q;
}

static wire_api_versions_response full_response(void)
{
    wire_api_versions_response p = {
        .error_code = 35, .api_keys = sample_keys, .api_key_count = 2, .throttle_time_ms = 5};
    return p;
}

static wire_api_versions_response response_for_version(int16_t v)
{
    wire_api_versions_response p = full_response();
    if (v < 1)
        p.throttle_time_ms = 0;
    return p;
}

static void compare_request(const wire_api_versions_request *a, const wire_api_versions_request *b)
{
    assert_slice_equal(a->client_software_name, b->client_software_name);
    assert_slice_equal(a->client_software_version, b->client_software_version);
}

static void compare_response(const wire_api_versions_response *a,
                             const wire_api_versions_response *b)
{
    assert_int_equal(a->error_code, b->error_code);
    assert_int_equal(a->api_key_count, b->api_key_count);
    for (int32_t i = 0; i < a->api_key_count; i++) {
        assert_int_equal(a->api_keys[i].api_key, b->api_keys[i].api_key);
        assert_int_equal(a->api_keys[i].min_version, b->api_keys[i].min_version);
        assert_int_equal(a->api_keys[i].max_version, b->api_keys[i].max_version);
    }
    assert_int_equal(a->throttle_time_ms, b->throttle_time_ms);
}

static void test_roundtrip_all_versions(void **state)
{
    (void)state;
    for (int16_t v = 0; v <= 4; v++) {
        kq_arena arena;
        kq_arena_init(&arena, TEST_ARENA_MAX);
        kq_writer w;

        wire_api_versions_request q = full_request(), qd;
        ENCODE_DECODE(wire_api_versions_request_encode, wire_api_versions_request_decode, v, &q,
                      &qd, &arena, w);
        wire_api_versions_request qe = request_for_version(v);
        compare_request(&qd, &qe);
        CHECK_TRUNCATIONS(wire_api_versions_request_decode, wire_api_versions_request, v, w.data,
                          w.len);
        CHECK_GARBAGE(wire_api_versions_request_decode, wire_api_versions_request_encode,
                      wire_api_versions_request, v, w.data, w.len, 100u + (uint32_t)v);
        kq_writer_free(&w);

        wire_api_versions_response p = full_response(), pd;
        ENCODE_DECODE(wire_api_versions_response_encode, wire_api_versions_response_decode, v, &p,
                      &pd, &arena, w);
        wire_api_versions_response pe = response_for_version(v);
        compare_response(&pd, &pe);
        CHECK_TRUNCATIONS(wire_api_versions_response_decode, wire_api_versions_response, v,
                          w.data, w.len);
        CHECK_GARBAGE(wire_api_versions_response_decode, wire_api_versions_response_encode,
                      wire_api_versions_response, v, w.data, w.len, 200u + (uint32_t)v);
        kq_writer_free(&w);
        kq_arena_free(&arena);
    }
}

static void check_golden_request(int16_t v, const uint8_t *golden, size_t len)
{
    wire_api_versions_request q = full_request();
    kq_writer w;
    kq_writer_init(&w, TEST_WRITER_MAX);
    wire_api_versions_request_encode(&w, v, &q);
    assert_int_equal(w.len, len);
    if (len)
        assert_memory_equal(w.data, golden, len);
    kq_writer_free(&w);
}

static void check_golden_response(int16_t v, const uint8_t *golden, size_t len)
{
    wire_api_versions_response p = full_response();
    kq_writer w;
    kq_writer_init(&w, TEST_WRITER_MAX);
    wire_api_versions_response_encode(&w, v, &p);
    assert_int_equal(w.len, len);
    assert_memory_equal(w.data, golden, len);
    kq_writer_free(&w);
    /* and the golden bytes decode to the expected struct */
    kq_arena arena;
    kq_arena_init(&arena, TEST_ARENA_MAX);
    kq_reader r;
    kq_reader_init(&r, golden, len);
    wire_api_versions_response d, e = response_for_version(v);
    assert_int_equal(wire_api_versions_response_decode(&r, v, &arena, &d), 0);
    compare_response(&d, &e);
    kq_arena_free(&arena);
}

static void test_golden_v0(void **state)
{
    (void)state;
    check_golden_request(0, NULL, 0); /* v0 request has no body */
    static const uint8_t resp[] = {
        0x00, 0x23,             /* error_code 35 */
        0x00, 0x00, 0x00, 0x02, /* api_keys: int32 count 2 */
        0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, /* Produce 0..12 */
        0x00, 0x12, 0x00, 0x00, 0x00, 0x04, /* ApiVersions 0..4 */
        /* no throttle_time_ms before v1 */
    };
    check_golden_response(0, resp, sizeof resp);
}

static void test_golden_v4(void **state)
{
    (void)state;
    static const uint8_t req[] = {
        0x03, 'k', 'q',         /* client_software_name: compact string "kq" */
        0x04, '1', '.', '0',    /* client_software_version: "1.0" */
        0x00,                   /* tagged fields */
    };
    check_golden_request(4, req, sizeof req);
    static const uint8_t resp[] = {
        0x00, 0x23,             /* error_code 35 */
        0x03,                   /* api_keys: compact count 2+1 */
        0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x00, /* Produce 0..12, tags */
        0x00, 0x12, 0x00, 0x00, 0x00, 0x04, 0x00, /* ApiVersions 0..4, tags */
        0x00, 0x00, 0x00, 0x05, /* throttle_time_ms 5 */
        0x00,                   /* tagged fields (features omitted) */
    };
    check_golden_response(4, resp, sizeof resp);
}

static void test_skips_feature_tags(void **state)
{
    (void)state;
    static const uint8_t resp[] = {
        0x00, 0x00, 0x01,       /* no error, empty api_keys */
        0x00, 0x00, 0x00, 0x00, /* throttle */
        0x02,                   /* two tagged fields */
        0x01, 0x08, 0, 0, 0, 0, 0, 0, 0, 0x09, /* tag 1 FinalizedFeaturesEpoch = 9 */
        0x03, 0x01, 0x01,       /* tag 3 ZkMigrationReady = true */
    };
    kq_arena arena;
    kq_arena_init(&arena, TEST_ARENA_MAX);
    kq_reader r;
    kq_reader_init(&r, resp, sizeof resp);
    wire_api_versions_response d;
    assert_int_equal(wire_api_versions_response_decode(&r, 3, &arena, &d), 0);
    assert_int_equal(d.api_key_count, 0);
    assert_int_equal(kq_reader_remaining(&r), 0);
    kq_arena_free(&arena);
}

static void test_bad_versions_and_nulls(void **state)
{
    (void)state;
    kq_arena arena;
    kq_arena_init(&arena, TEST_ARENA_MAX);
    kq_reader r;
    wire_api_versions_request q;
    kq_reader_init(&r, NULL, 0);
    assert_int_equal(wire_api_versions_request_decode(&r, 5, &arena, &q), -1);
    kq_reader_init(&r, NULL, 0);
    assert_int_equal(wire_api_versions_request_decode(&r, 0, &arena, &q), 0);
    /* null ClientSoftwareName is not allowed */
    static const uint8_t null_name[] = {0x00, 0x01, 0x00};
    kq_reader_init(&r, null_name, sizeof null_name);
    assert_int_equal(wire_api_versions_request_decode(&r, 3, &arena, &q), -1);
    /* null api_keys array is not allowed */
    static const uint8_t null_keys[] = {0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF};
    wire_api_versions_response p;
    kq_reader_init(&r, null_keys, sizeof null_keys);
    assert_int_equal(wire_api_versions_response_decode(&r, 0, &arena, &p), -1);
    kq_arena_free(&arena);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_all_versions),
        cmocka_unit_test(test_golden_v0),
        cmocka_unit_test(test_golden_v4),
        cmocka_unit_test(test_skips_feature_tags),
        cmocka_unit_test(test_bad_versions_and_nulls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
