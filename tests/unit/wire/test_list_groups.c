/* ListGroups v0-5 codec: round trips at every version, goldens, the state
 * and type filters, truncation, version bounds and garbage. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "codec_harness.h"
#include "kq/wire_list_groups.h"

HARNESS_CODEC(wire_list_groups_request, wire_list_groups_request);
HARNESS_CODEC(wire_list_groups_response, wire_list_groups_response);
static const harness_api api = {&wire_list_groups_request_codec,
                                &wire_list_groups_response_codec, WIRE_LIST_GROUPS_MIN_VERSION,
                                WIRE_LIST_GROUPS_MAX_VERSION};

static kq_slice sample_states[2];
static kq_slice sample_types[1];
static wire_list_groups_group sample_groups[2];
static wire_list_groups_request sample_req;
static wire_list_groups_response sample_resp;

static void build_samples(void)
{
    sample_states[0] = harness_str("Stable");
    sample_states[1] = harness_str("Empty");
    sample_types[0] = harness_str("consumer");
    sample_req = (wire_list_groups_request){sample_states, 2, sample_types, 1};
    sample_groups[0] = (wire_list_groups_group){harness_str("g1"), harness_str("consumer"),
                                                harness_str("Stable"), harness_str("classic")};
    sample_groups[1] = (wire_list_groups_group){harness_str(""), harness_str(""),
                                                harness_str(""), harness_str("")};
    sample_resp = (wire_list_groups_response){30, 0, sample_groups, 2};
}

static void check_strings(const kq_slice *a, int32_t an, const kq_slice *d, int32_t dn)
{
    assert_int_equal(dn, an);
    for (int32_t i = 0; i < an; i++)
        harness_assert_slice_eq(a[i], d[i]);
}

static void check_request(const wire_list_groups_request *a, const wire_list_groups_request *d,
                          int16_t v)
{
    check_strings(a->states_filter, v >= 4 ? a->states_filter_count : 0, d->states_filter,
                  d->states_filter_count);
    check_strings(a->types_filter, v >= 5 ? a->types_filter_count : 0, d->types_filter,
                  d->types_filter_count);
}

static void check_response(const wire_list_groups_response *a,
                           const wire_list_groups_response *d, int16_t v)
{
    assert_int_equal(d->throttle_time_ms, v >= 1 ? a->throttle_time_ms : 0);
    assert_int_equal(d->error_code, a->error_code);
    assert_int_equal(d->group_count, a->group_count);
    for (int32_t i = 0; i < a->group_count; i++) {
        const wire_list_groups_group *x = &a->groups[i], *y = &d->groups[i];
        harness_assert_slice_eq(x->group_id, y->group_id);
        harness_assert_slice_eq(x->protocol_type, y->protocol_type);
        harness_assert_slice_eq(v >= 4 ? x->group_state : harness_str(""), y->group_state);
        harness_assert_slice_eq(v >= 5 ? x->group_type : harness_str(""), y->group_type);
    }
}

HARNESS_CHECK(check_request, wire_list_groups_request)
HARNESS_CHECK(check_response, wire_list_groups_response)

static void test_round_trip_all_versions(void **state)
{
    (void)state;
    build_samples();
    for (int16_t v = api.min_version; v <= api.max_version; v++) {
        harness_check_round_trip(api.request, v, &sample_req, check_request_any, true);
        harness_check_round_trip(api.response, v, &sample_resp, check_response_any, true);
        wire_list_groups_request empty = {NULL, 0, NULL, 0};
        harness_check_round_trip(api.request, v, &empty, check_request_any, true);
        wire_list_groups_response none = {0, 16, NULL, 0};
        harness_check_round_trip(api.response, v, &none, check_response_any, true);
    }
}

static void test_golden(void **state)
{
    (void)state;
    kq_slice st = harness_str("Stable");
    wire_list_groups_request req = {&st, 1, NULL, 0};
    kq_writer w;
    harness_encode(api.request, 0, &req, &w); /* v0-2: an empty body */
    assert_int_equal(w.len, 0);
    kq_writer_free(&w);
    static const uint8_t req_v3[] = {0x00};
    harness_check_golden(api.request, 3, &req, req_v3, sizeof req_v3, check_request_any);
    static const uint8_t req_v5[] = {0x02, 0x07, 'S', 't', 'a', 'b', 'l', 'e', 0x01, 0x00};
    harness_check_golden(api.request, 5, &req, req_v5, sizeof req_v5, check_request_any);

    wire_list_groups_group g = {harness_str("g"), harness_str("consumer"), harness_str("x"),
                                harness_str("y")};
    wire_list_groups_response resp = {0, 0, &g, 1};
    static const uint8_t resp_v0[] = {0x00, 0x00, 0, 0, 0, 1, 0x00, 0x01, 'g', 0x00, 0x08,
                                      'c',  'o',  'n', 's', 'u', 'm', 'e', 'r'};
    harness_check_golden(api.response, 0, &resp, resp_v0, sizeof resp_v0, check_response_any);
    static const uint8_t resp_v5[] = {0, 0, 0, 0, 0x00, 0x00, 0x02, 0x02, 'g', 0x09, 'c', 'o',
                                      'n', 's', 'u', 'm', 'e', 'r', 0x02, 'x', 0x02, 'y', 0x00,
                                      0x00};
    harness_check_golden(api.response, 5, &resp, resp_v5, sizeof resp_v5, check_response_any);
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
        cmocka_unit_test(test_bad_versions),
        cmocka_unit_test(test_garbage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
