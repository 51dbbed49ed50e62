/* Heartbeat v0-4 codec: round trips at every version, golden bytes,
 * truncation, version bounds and garbage. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "codec_harness.h"
#include "kq/wire_heartbeat.h"

HARNESS_CODEC(wire_heartbeat_request, wire_heartbeat_request);
HARNESS_CODEC(wire_heartbeat_response, wire_heartbeat_response);
static const harness_api api = {&wire_heartbeat_request_codec, &wire_heartbeat_response_codec,
                                WIRE_HEARTBEAT_MIN_VERSION, WIRE_HEARTBEAT_MAX_VERSION};

static wire_heartbeat_request sample_req(void)
{
    return (wire_heartbeat_request){harness_str("g1"), 7, harness_str("m-1"), harness_str("i1")};
}

static const wire_heartbeat_response sample_resp = {25, 27 /* REBALANCE_IN_PROGRESS */};

static void check_request(const wire_heartbeat_request *a, const wire_heartbeat_request *d,
                          int16_t v)
{
    harness_assert_slice_eq(a->group_id, d->group_id);
    assert_int_equal(d->generation_id, a->generation_id);
    harness_assert_slice_eq(a->member_id, d->member_id);
    if (v >= 3)
        harness_assert_slice_eq(a->group_instance_id, d->group_instance_id);
    else
        harness_assert_null(d->group_instance_id);
}
HARNESS_CHECK(check_request, wire_heartbeat_request)

static void check_response(const wire_heartbeat_response *a, const wire_heartbeat_response *d,
                           int16_t v)
{
    assert_int_equal(d->throttle_time_ms, v >= 1 ? a->throttle_time_ms : 0);
    assert_int_equal(d->error_code, a->error_code);
}
HARNESS_CHECK(check_response, wire_heartbeat_response)

static void test_round_trip_all_versions(void **state)
{
    (void)state;
    for (int16_t v = api.min_version; v <= api.max_version; v++) {
        wire_heartbeat_request q = sample_req();
        harness_check_round_trip(api.request, v, &q, check_request_any, true);
        q.group_instance_id = HARNESS_NULL;
        harness_check_round_trip(api.request, v, &q, check_request_any, true);
        q.member_id = harness_str("");
        harness_check_round_trip(api.request, v, &q, check_request_any, true);
        harness_check_round_trip(api.response, v, &sample_resp, check_response_any, true);
    }
}

static void test_golden(void **state)
{
    (void)state;
    wire_heartbeat_request q = sample_req();
    static const uint8_t req_v0[] = {
        0x00, 0x02, 'g', '1',         /* group_id */
        0x00, 0x00, 0x00, 0x07,       /* generation_id 7 */
        0x00, 0x03, 'm', '-', '1',    /* member_id */
    };
    static const uint8_t req_v3[] = {
        0x00, 0x02, 'g', '1', 0x00, 0x00, 0x00, 0x07, 0x00, 0x03, 'm', '-', '1',
        0x00, 0x02, 'i', '1',         /* group_instance_id */
    };
    static const uint8_t req_v4[] = {
        0x03, 'g', '1', 0x00, 0x00, 0x00, 0x07, 0x04, 'm', '-', '1',
        0x03, 'i', '1', 0x00,         /* compact strings, tags */
    };
    harness_check_golden(api.request, 0, &q, req_v0, sizeof req_v0, check_request_any);
    harness_check_golden(api.request, 3, &q, req_v3, sizeof req_v3, check_request_any);
    harness_check_golden(api.request, 4, &q, req_v4, sizeof req_v4, check_request_any);
    q.group_instance_id = HARNESS_NULL;
    static const uint8_t req_v4_null[] = {
        0x03, 'g', '1', 0x00, 0x00, 0x00, 0x07, 0x04, 'm', '-', '1', 0x00, 0x00,
    };
    harness_check_golden(api.request, 4, &q, req_v4_null, sizeof req_v4_null,
                         check_request_any);
    static const uint8_t resp_v0[] = {0x00, 0x1b};
    static const uint8_t resp_v1[] = {0x00, 0x00, 0x00, 0x19, 0x00, 0x1b};
    static const uint8_t resp_v4[] = {0x00, 0x00, 0x00, 0x19, 0x00, 0x1b, 0x00};
    harness_check_golden(api.response, 0, &sample_resp, resp_v0, sizeof resp_v0,
                         check_response_any);
    harness_check_golden(api.response, 1, &sample_resp, resp_v1, sizeof resp_v1,
                         check_response_any);
    harness_check_golden(api.response, 4, &sample_resp, resp_v4, sizeof resp_v4,
                         check_response_any);
}

/* Null non-nullable strings are refused; unknown tags are skipped. */
static void test_nulls_and_tags(void **state)
{
    (void)state;
    kq_arena arena;
    kq_arena_init(&arena, 1 << 20);
    wire_heartbeat_request q;
    kq_reader r;
    static const uint8_t null_member[] = {0x00, 0x02, 'g', '1', 0, 0, 0, 7, 0xff, 0xff};
    kq_reader_init(&r, null_member, sizeof null_member);
    assert_int_equal(wire_heartbeat_request_decode(&r, 0, &arena, &q), -1);
    static const uint8_t null_group_v4[] = {0x00, 0, 0, 0, 7, 0x01, 0x00, 0x00};
    kq_reader_init(&r, null_group_v4, sizeof null_group_v4);
    assert_int_equal(wire_heartbeat_request_decode(&r, 4, &arena, &q), -1);
    static const uint8_t tagged[] = {0x03, 'g', '1', 0, 0, 0, 7, 0x01, 0x00,
                                     0x01, 0x09, 0x02, 0xaa, 0xbb};
    harness_decode_ok(api.request, 4, tagged, sizeof tagged, &arena, &q);
    assert_int_equal(q.member_id.len, 0);
    harness_assert_null(q.group_instance_id);
    kq_arena_free(&arena);
}

static void test_bad_versions(void **state)
{
    (void)state;
    wire_heartbeat_request q = sample_req();
    harness_api_bad_versions(&api, &q, &sample_resp);
}

static void test_garbage(void **state)
{
    (void)state;
    wire_heartbeat_request q = sample_req();
    harness_api_garbage(&api, &q, &sample_resp, 5000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_all_versions),
        cmocka_unit_test(test_golden),
        cmocka_unit_test(test_nulls_and_tags),
        cmocka_unit_test(test_bad_versions),
        cmocka_unit_test(test_garbage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
