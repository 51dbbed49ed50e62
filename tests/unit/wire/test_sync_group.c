/* SyncGroup v0-5 codec: round trips at every version, golden bytes, null
 * bytes refused, truncation, version bounds and garbage. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "codec_harness.h"
#include "kq/wire_sync_group.h"

HARNESS_CODEC(wire_sync_group_request, wire_sync_group_request);
HARNESS_CODEC(wire_sync_group_response, wire_sync_group_response);
static const harness_api api = {&wire_sync_group_request_codec, &wire_sync_group_response_codec,
                                WIRE_SYNC_GROUP_MIN_VERSION, WIRE_SYNC_GROUP_MAX_VERSION};

static const uint8_t blob[] = {0x00, 0x01, 0x00, 0x00, 0xff};
static wire_sync_group_assignment sample_assignments[2];
static wire_sync_group_request sample_req;
static wire_sync_group_response sample_resp;

static void build_samples(void)
{
    sample_assignments[0] = (wire_sync_group_assignment){harness_str("m-1"),
                                                         {blob, (int32_t)sizeof blob}};
    sample_assignments[1] = (wire_sync_group_assignment){harness_str("m-2"), harness_str("")};
    sample_req = (wire_sync_group_request){harness_str("g1"), 3, harness_str("m-1"),
                                           harness_str("i1"), harness_str("consumer"),
                                           harness_str("range"), sample_assignments, 2};
    sample_resp = (wire_sync_group_response){5, 0, harness_str("consumer"), harness_str("range"),
                                             {blob, (int32_t)sizeof blob}};
}

static void check_opt(kq_slice want, kq_slice got, bool present)
{
    if (present)
        harness_assert_slice_eq(want, got);
    else
        harness_assert_null(got);
}

static void check_request(const wire_sync_group_request *a, const wire_sync_group_request *d,
                          int16_t v)
{
    harness_assert_slice_eq(a->group_id, d->group_id);
    assert_int_equal(d->generation_id, a->generation_id);
    harness_assert_slice_eq(a->member_id, d->member_id);
    check_opt(a->group_instance_id, d->group_instance_id, v >= 3);
    check_opt(a->protocol_type, d->protocol_type, v >= 5);
    check_opt(a->protocol_name, d->protocol_name, v >= 5);
    assert_int_equal(d->assignment_count, a->assignment_count);
    for (int32_t i = 0; i < a->assignment_count; i++) {
        harness_assert_slice_eq(a->assignments[i].member_id, d->assignments[i].member_id);
        harness_assert_slice_eq(a->assignments[i].assignment, d->assignments[i].assignment);
    }
}
HARNESS_CHECK(check_request, wire_sync_group_request)

static void check_response(const wire_sync_group_response *a,
                           const wire_sync_group_response *d, int16_t v)
{
    assert_int_equal(d->throttle_time_ms, v >= 1 ? a->throttle_time_ms : 0);
    assert_int_equal(d->error_code, a->error_code);
    check_opt(a->protocol_type, d->protocol_type, v >= 5);
    check_opt(a->protocol_name, d->protocol_name, v >= 5);
    harness_assert_slice_eq(a->assignment, d->assignment);
}
HARNESS_CHECK(check_response, wire_sync_group_response)

static void test_round_trip_all_versions(void **state)
{
    (void)state;
    build_samples();
    for (int16_t v = api.min_version; v <= api.max_version; v++) {
        harness_check_round_trip(api.request, v, &sample_req, check_request_any, true);
        harness_check_round_trip(api.response, v, &sample_resp, check_response_any, true);
        wire_sync_group_request q = sample_req;
        q.group_instance_id = q.protocol_type = q.protocol_name = HARNESS_NULL;
        q.assignments = NULL;
        q.assignment_count = 0;
        harness_check_round_trip(api.request, v, &q, check_request_any, true);
        wire_sync_group_response p = sample_resp;
        p.protocol_type = p.protocol_name = HARNESS_NULL;
        p.assignment = harness_str("");
        harness_check_round_trip(api.response, v, &p, check_response_any, true);
    }
}

static void test_golden(void **state)
{
    (void)state;
    wire_sync_group_assignment a = {harness_str("m"), {blob, 2}};
    wire_sync_group_request q = {harness_str("g"), 3, harness_str("m"), harness_str("i"),
                                 harness_str("c"), harness_str("r"), &a, 1};
    static const uint8_t req_v3[] = {
        0x00, 0x01, 'g', 0x00, 0x00, 0x00, 0x03, 0x00, 0x01, 'm',
        0x00, 0x01, 'i',                        /* group_instance_id */
        0x00, 0x00, 0x00, 0x01,                 /* assignments: 1 */
        0x00, 0x01, 'm', 0x00, 0x00, 0x00, 0x02, 0x00, 0x01,
    };
    static const uint8_t req_v5[] = {
        0x02, 'g', 0x00, 0x00, 0x00, 0x03, 0x02, 'm', 0x02, 'i',
        0x02, 'c', 0x02, 'r',                   /* protocol type and name */
        0x02,                                   /* assignments: compact 1 */
        0x02, 'm', 0x03, 0x00, 0x01, 0x00,      /* member, bytes, tags */
        0x00,                                   /* tags */
    };
    harness_check_golden(api.request, 3, &q, req_v3, sizeof req_v3, check_request_any);
    harness_check_golden(api.request, 5, &q, req_v5, sizeof req_v5, check_request_any);
    wire_sync_group_response p = {9, 0, HARNESS_NULL, harness_str("r"), {blob, 2}};
    static const uint8_t resp_v0[] = {0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01};
    static const uint8_t resp_v5[] = {
        0x00, 0x00, 0x00, 0x09, 0x00, 0x00,
        0x00, 0x02, 'r',                        /* protocol type null, name "r" */
        0x03, 0x00, 0x01, 0x00,
    };
    harness_check_golden(api.response, 0, &p, resp_v0, sizeof resp_v0, check_response_any);
    harness_check_golden(api.response, 5, &p, resp_v5, sizeof resp_v5, check_response_any);
}

/* A null Assignment is refused in both directions' decoders; encoding a
 * null writes an empty one. */
static void test_null_assignment(void **state)
{
    (void)state;
    kq_arena arena;
    kq_arena_init(&arena, 1 << 20);
    kq_reader r;
    wire_sync_group_response p;
    static const uint8_t resp_null[] = {0x00, 0x00, 0xff, 0xff, 0xff, 0xff};
    kq_reader_init(&r, resp_null, sizeof resp_null);
    assert_int_equal(wire_sync_group_response_decode(&r, 0, &arena, &p), -1);
    wire_sync_group_request q;
    static const uint8_t req_null[] = {0x02, 'g', 0, 0, 0, 1, 0x02, 'm', 0x00,
                                       0x02, 0x02, 'm', 0x00, 0x00, 0x00};
    kq_reader_init(&r, req_null, sizeof req_null);
    assert_int_equal(wire_sync_group_request_decode(&r, 4, &arena, &q), -1);
    /* a huge count with few bytes left is refused before allocating */
    static const uint8_t req_huge[] = {0x00, 0x01, 'g', 0, 0, 0, 1, 0x00, 0x01, 'm',
                                       0x7f, 0xff, 0xff, 0xff, 0x00, 0x00};
    kq_reader_init(&r, req_huge, sizeof req_huge);
    assert_int_equal(wire_sync_group_request_decode(&r, 0, &arena, &q), -1);
    kq_writer w;
    wire_sync_group_response in = {0, 0, HARNESS_NULL, HARNESS_NULL, HARNESS_NULL};
    kq_writer_init(&w, 1 << 10);
    wire_sync_group_response_encode(&w, 0, &in);
    static const uint8_t want[] = {0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    assert_int_equal(w.len, sizeof want);
    assert_memory_equal(w.data, want, sizeof want);
    kq_writer_free(&w);
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
        cmocka_unit_test(test_null_assignment),
        cmocka_unit_test(test_bad_versions),
        cmocka_unit_test(test_garbage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
