/* DescribeGroups v0-6 codec: round trips at every version, goldens,
 * nullable fields, truncation, version bounds and garbage. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "codec_harness.h"
#include "kq/wire_describe_groups.h"

HARNESS_CODEC(wire_describe_groups_request, wire_describe_groups_request);
HARNESS_CODEC(wire_describe_groups_response, wire_describe_groups_response);
static const harness_api api = {
    &wire_describe_groups_request_codec, &wire_describe_groups_response_codec,
    WIRE_DESCRIBE_GROUPS_MIN_VERSION, WIRE_DESCRIBE_GROUPS_MAX_VERSION};

static const uint8_t meta_bytes[] = {0x00, 0x01, 0xff, 0x7f};
static kq_slice sample_ids[2];
static wire_describe_groups_member sample_members[2];
static wire_describe_groups_group sample_groups[2];
static wire_describe_groups_request sample_req;
static wire_describe_groups_response sample_resp;

static void build_samples(void)
{
    sample_ids[0] = harness_str("g1");
    sample_ids[1] = harness_str("");
    sample_req = (wire_describe_groups_request){sample_ids, 2, true};
    kq_slice meta = {meta_bytes, (int32_t)sizeof meta_bytes};
    sample_members[0] = (wire_describe_groups_member){
        harness_str("m-1"), harness_str("inst-1"), harness_str("client"),
        harness_str("/10.0.0.1"), meta, harness_str("")};
    sample_members[1] = (wire_describe_groups_member){
        harness_str(""), HARNESS_NULL, harness_str(""), harness_str(""), harness_str(""), meta};
    sample_groups[0] = (wire_describe_groups_group){
        0, HARNESS_NULL, harness_str("g1"), harness_str("Stable"), harness_str("consumer"),
        harness_str("range"), sample_members, 2, 0x0f};
    sample_groups[1] = (wire_describe_groups_group){
        69, harness_str("no such group"), harness_str(""), harness_str("Dead"),
        harness_str(""), harness_str(""), NULL, 0, INT32_MIN};
    sample_resp = (wire_describe_groups_response){12, sample_groups, 2};
}

static void check_request(const wire_describe_groups_request *a,
                          const wire_describe_groups_request *d, int16_t v)
{
    assert_int_equal(d->group_count, a->group_count);
    for (int32_t i = 0; i < a->group_count; i++)
        harness_assert_slice_eq(a->groups[i], d->groups[i]);
    assert_int_equal(d->include_authorized_operations,
                     v >= 3 ? a->include_authorized_operations : false);
}

static void check_member(const wire_describe_groups_member *a,
                         const wire_describe_groups_member *d, int16_t v)
{
    harness_assert_slice_eq(a->member_id, d->member_id);
    harness_assert_slice_eq(v >= 4 ? a->group_instance_id : HARNESS_NULL, d->group_instance_id);
    harness_assert_slice_eq(a->client_id, d->client_id);
    harness_assert_slice_eq(a->client_host, d->client_host);
    harness_assert_slice_eq(a->member_metadata, d->member_metadata);
    harness_assert_slice_eq(a->member_assignment, d->member_assignment);
}

static void check_response(const wire_describe_groups_response *a,
                           const wire_describe_groups_response *d, int16_t v)
{
    assert_int_equal(d->throttle_time_ms, v >= 1 ? a->throttle_time_ms : 0);
    assert_int_equal(d->group_count, a->group_count);
    for (int32_t i = 0; i < a->group_count; i++) {
        const wire_describe_groups_group *x = &a->groups[i], *y = &d->groups[i];
        assert_int_equal(y->error_code, x->error_code);
        harness_assert_slice_eq(v >= 6 ? x->error_message : HARNESS_NULL, y->error_message);
        harness_assert_slice_eq(x->group_id, y->group_id);
        harness_assert_slice_eq(x->group_state, y->group_state);
        harness_assert_slice_eq(x->protocol_type, y->protocol_type);
        harness_assert_slice_eq(x->protocol_data, y->protocol_data);
        assert_int_equal(y->member_count, x->member_count);
        for (int32_t k = 0; k < x->member_count; k++)
            check_member(&x->members[k], &y->members[k], v);
        assert_int_equal(y->authorized_operations, v >= 3 ? x->authorized_operations : INT32_MIN);
    }
}

HARNESS_CHECK(check_request, wire_describe_groups_request)
HARNESS_CHECK(check_response, wire_describe_groups_response)

static void test_round_trip_all_versions(void **state)
{
    (void)state;
    build_samples();
    for (int16_t v = api.min_version; v <= api.max_version; v++) {
        harness_check_round_trip(api.request, v, &sample_req, check_request_any, true);
        harness_check_round_trip(api.response, v, &sample_resp, check_response_any, true);
        wire_describe_groups_request empty = {NULL, 0, false};
        harness_check_round_trip(api.request, v, &empty, check_request_any, true);
        wire_describe_groups_response none = {0, NULL, 0};
        harness_check_round_trip(api.response, v, &none, check_response_any, true);
    }
}

static void test_golden(void **state)
{
    (void)state;
    kq_slice id = harness_str("g");
    wire_describe_groups_request req = {&id, 1, true};
    static const uint8_t req_v0[] = {0, 0, 0, 1, 0x00, 0x01, 'g'};
    harness_check_golden(api.request, 0, &req, req_v0, sizeof req_v0, check_request_any);
    static const uint8_t req_v5[] = {0x02, 0x02, 'g', 0x01, 0x00};
    harness_check_golden(api.request, 5, &req, req_v5, sizeof req_v5, check_request_any);

    wire_describe_groups_member m = {harness_str("m"), HARNESS_NULL, harness_str("c"),
                                     harness_str("h"), harness_str(""), harness_str("")};
    wire_describe_groups_group g = {0, HARNESS_NULL, id, harness_str("S"), harness_str(""),
                                    harness_str(""), &m, 1, -2147483647 - 1};
    wire_describe_groups_response resp = {0, &g, 1};
    static const uint8_t resp_v6[] = {
        0, 0, 0, 0, 0x02,                           /* throttle, one group */
        0x00, 0x00, 0x00, 0x02, 'g', 0x02, 'S',     /* error, null message, id, state */
        0x01, 0x01, 0x02,                           /* protocol type, data, one member */
        0x02, 'm', 0x00, 0x02, 'c', 0x02, 'h', 0x01, 0x01, 0x00, /* the member */
        0x80, 0x00, 0x00, 0x00, 0x00, 0x00};        /* operations, tags */
    harness_check_golden(api.response, 6, &resp, resp_v6, sizeof resp_v6, check_response_any);
}

static void test_null_bytes_refused(void **state)
{
    (void)state;
    /* v0: one group, one member whose metadata is null (-1). */
    static const uint8_t v0[] = {0, 0, 0, 1, 0, 0, 0, 1, 'g', 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
                                 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0};
    kq_arena arena;
    kq_arena_init(&arena, 1 << 16);
    kq_reader r;
    kq_reader_init(&r, v0, sizeof v0);
    wire_describe_groups_response out;
    assert_int_equal(wire_describe_groups_response_decode(&r, 0, &arena, &out), -1);
    /* the same with empty metadata decodes */
    uint8_t ok[sizeof v0];
    memcpy(ok, v0, sizeof v0);
    memset(ok + 25, 0, 4);
    kq_reader_init(&r, ok, sizeof ok);
    assert_int_equal(wire_describe_groups_response_decode(&r, 0, &arena, &out), 0);
    assert_int_equal(out.groups[0].members[0].member_metadata.len, 0);
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
        cmocka_unit_test(test_null_bytes_refused),
        cmocka_unit_test(test_bad_versions),
        cmocka_unit_test(test_garbage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
