/* LeaveGroup v0-5 codec: round trips at every version (one member id up to
 * v2, the members array from v3), golden bytes, truncation, version bounds
 * and garbage. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "codec_harness.h"
#include "kq/wire_leave_group.h"

HARNESS_CODEC(wire_leave_group_request, wire_leave_group_request);
HARNESS_CODEC(wire_leave_group_response, wire_leave_group_response);
static const harness_api api = {&wire_leave_group_request_codec,
                                &wire_leave_group_response_codec, WIRE_LEAVE_GROUP_MIN_VERSION,
                                WIRE_LEAVE_GROUP_MAX_VERSION};

static wire_leave_group_member sample_members[2];
static wire_leave_group_request sample_req;
static wire_leave_group_member_response sample_results[2];
static wire_leave_group_response sample_resp;

static void build_samples(void)
{
    sample_members[0] = (wire_leave_group_member){harness_str("m-1"), harness_str("i1"),
                                                  harness_str("bye")};
    sample_members[1] = (wire_leave_group_member){harness_str("m-2"), HARNESS_NULL,
                                                  HARNESS_NULL};
    sample_req = (wire_leave_group_request){harness_str("g1"), harness_str("m-0"),
                                            sample_members, 2};
    sample_results[0] = (wire_leave_group_member_response){harness_str("m-1"),
                                                           harness_str("i1"), 0};
    sample_results[1] = (wire_leave_group_member_response){harness_str("m-2"), HARNESS_NULL,
                                                           25 /* UNKNOWN_MEMBER_ID */};
    sample_resp = (wire_leave_group_response){6, 0, sample_results, 2};
}

static void check_request(const wire_leave_group_request *a, const wire_leave_group_request *d,
                          int16_t v)
{
    harness_assert_slice_eq(a->group_id, d->group_id);
    harness_assert_slice_eq(v <= 2 ? a->member_id : harness_str(""), d->member_id);
    assert_int_equal(d->member_count, v >= 3 ? a->member_count : 0);
    for (int32_t i = 0; i < d->member_count; i++) {
        const wire_leave_group_member *am = &a->members[i], *dm = &d->members[i];
        harness_assert_slice_eq(am->member_id, dm->member_id);
        harness_assert_slice_eq(am->group_instance_id, dm->group_instance_id);
        if (v >= 5)
            harness_assert_slice_eq(am->reason, dm->reason);
        else
            harness_assert_null(dm->reason);
    }
}
HARNESS_CHECK(check_request, wire_leave_group_request)

static void check_response(const wire_leave_group_response *a,
                           const wire_leave_group_response *d, int16_t v)
{
    assert_int_equal(d->throttle_time_ms, v >= 1 ? a->throttle_time_ms : 0);
    assert_int_equal(d->error_code, a->error_code);
    assert_int_equal(d->member_count, v >= 3 ? a->member_count : 0);
    for (int32_t i = 0; i < d->member_count; i++) {
        harness_assert_slice_eq(a->members[i].member_id, d->members[i].member_id);
        harness_assert_slice_eq(a->members[i].group_instance_id,
                                d->members[i].group_instance_id);
        assert_int_equal(d->members[i].error_code, a->members[i].error_code);
    }
}
HARNESS_CHECK(check_response, wire_leave_group_response)

static void test_round_trip_all_versions(void **state)
{
    (void)state;
    build_samples();
    for (int16_t v = api.min_version; v <= api.max_version; v++) {
        harness_check_round_trip(api.request, v, &sample_req, check_request_any, true);
        harness_check_round_trip(api.response, v, &sample_resp, check_response_any, true);
        wire_leave_group_request q = {harness_str("g1"), harness_str(""), NULL, 0};
        harness_check_round_trip(api.request, v, &q, check_request_any, true);
        wire_leave_group_response p = {0, 16, NULL, 0};
        harness_check_round_trip(api.response, v, &p, check_response_any, true);
    }
}

static void test_golden(void **state)
{
    (void)state;
    wire_leave_group_member m = {harness_str("m"), harness_str("i"), harness_str("r")};
    wire_leave_group_request q = {harness_str("g"), harness_str("x"), &m, 1};
    static const uint8_t req_v2[] = {0x00, 0x01, 'g', 0x00, 0x01, 'x'};
    static const uint8_t req_v3[] = {
        0x00, 0x01, 'g', 0x00, 0x00, 0x00, 0x01, /* members: 1 */
        0x00, 0x01, 'm', 0x00, 0x01, 'i',
    };
    static const uint8_t req_v5[] = {
        0x02, 'g', 0x02,                         /* members: compact 1 */
        0x02, 'm', 0x02, 'i', 0x02, 'r', 0x00,   /* member, instance, reason, tags */
        0x00,
    };
    harness_check_golden(api.request, 2, &q, req_v2, sizeof req_v2, check_request_any);
    harness_check_golden(api.request, 3, &q, req_v3, sizeof req_v3, check_request_any);
    harness_check_golden(api.request, 5, &q, req_v5, sizeof req_v5, check_request_any);
    wire_leave_group_member_response mr = {harness_str("m"), HARNESS_NULL, 25};
    wire_leave_group_response p = {1, 0, &mr, 1};
    static const uint8_t resp_v0[] = {0x00, 0x00};
    static const uint8_t resp_v3[] = {
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
        0x00, 0x01, 'm', 0xff, 0xff, 0x00, 0x19,
    };
    static const uint8_t resp_v4[] = {
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x02, 0x02, 'm', 0x00, 0x00, 0x19, 0x00, 0x00,
    };
    harness_check_golden(api.response, 0, &p, resp_v0, sizeof resp_v0, check_response_any);
    harness_check_golden(api.response, 3, &p, resp_v3, sizeof resp_v3, check_response_any);
    harness_check_golden(api.response, 4, &p, resp_v4, sizeof resp_v4, check_response_any);
}

/* Counts larger than the bytes left are refused before allocating; a null
 * member id is refused. */
static void test_hostile_counts(void **state)
{
    (void)state;
    kq_arena arena;
    kq_arena_init(&arena, 1 << 20);
    kq_reader r;
    wire_leave_group_request q;
    static const uint8_t huge_v4[] = {0x02, 'g', 0xff, 0xff, 0xff, 0xff, 0x07, 0x00};
    kq_reader_init(&r, huge_v4, sizeof huge_v4);
    assert_int_equal(wire_leave_group_request_decode(&r, 4, &arena, &q), -1);
    static const uint8_t null_member[] = {0x02, 'g', 0x02, 0x00, 0x00, 0x00, 0x00};
    kq_reader_init(&r, null_member, sizeof null_member);
    assert_int_equal(wire_leave_group_request_decode(&r, 4, &arena, &q), -1);
    wire_leave_group_response p;
    static const uint8_t huge_resp[] = {0, 0, 0, 0, 0, 0, 0x00, 0x10, 0x00, 0x00, 0, 0};
    kq_reader_init(&r, huge_resp, sizeof huge_resp);
    assert_int_equal(wire_leave_group_response_decode(&r, 3, &arena, &p), -1);
    kq_arena_free(&arena);
}

static void test_bad_versions(void **state)
{
    (void)state;
    build_samples();
    harness_api_bad_versions(&api, &sample_req, &sample_resp);
}

static void test_garbage(void **state)
{
    (void)state;
    build_samples();
    harness_api_garbage(&api, &sample_req, &sample_resp, 5000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_all_versions),
        cmocka_unit_test(test_golden),
        cmocka_unit_test(test_hostile_counts),
        cmocka_unit_test(test_bad_versions),
        cmocka_unit_test(test_garbage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
