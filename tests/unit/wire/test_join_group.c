/* JoinGroup v0-9 codec: round trips at every version, golden bytes, the
 * nullable protocol type/name from v7, null metadata refused, truncation,
 * version bounds and garbage. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "codec_harness.h"
#include "kq/wire_join_group.h"

HARNESS_CODEC(wire_join_group_request, wire_join_group_request);
HARNESS_CODEC(wire_join_group_response, wire_join_group_response);
static const harness_api api = {&wire_join_group_request_codec, &wire_join_group_response_codec,
                                WIRE_JOIN_GROUP_MIN_VERSION, WIRE_JOIN_GROUP_MAX_VERSION};

static const uint8_t meta[] = {0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 't'};
static wire_join_group_protocol sample_protocols[2];
static wire_join_group_request sample_req;
static wire_join_group_member sample_members[2];
static wire_join_group_response sample_resp;

static void build_samples(void)
{
    sample_protocols[0] = (wire_join_group_protocol){harness_str("range"),
                                                     {meta, (int32_t)sizeof meta}};
    sample_protocols[1] = (wire_join_group_protocol){harness_str("roundrobin"), harness_str("")};
    sample_req = (wire_join_group_request){
        harness_str("g1"), 45000, 300000, harness_str("m-1"), harness_str("i1"),
        harness_str("consumer"), sample_protocols, 2, harness_str("rejoin")};
    sample_members[0] = (wire_join_group_member){harness_str("m-1"), harness_str("i1"),
                                                 {meta, (int32_t)sizeof meta}};
    sample_members[1] = (wire_join_group_member){harness_str("m-2"), HARNESS_NULL,
                                                 harness_str("")};
    sample_resp = (wire_join_group_response){
        7, 0, 3, harness_str("consumer"), harness_str("range"), harness_str("m-1"), true,
        harness_str("m-1"), sample_members, 2};
}

static void check_opt(kq_slice want, kq_slice got, bool present)
{
    if (present)
        harness_assert_slice_eq(want, got);
    else
        harness_assert_null(got);
}

static void check_request(const wire_join_group_request *a, const wire_join_group_request *d,
                          int16_t v)
{
    harness_assert_slice_eq(a->group_id, d->group_id);
    assert_int_equal(d->session_timeout_ms, a->session_timeout_ms);
    assert_int_equal(d->rebalance_timeout_ms, v >= 1 ? a->rebalance_timeout_ms : -1);
    harness_assert_slice_eq(a->member_id, d->member_id);
    check_opt(a->group_instance_id, d->group_instance_id, v >= 5);
    harness_assert_slice_eq(a->protocol_type, d->protocol_type);
    assert_int_equal(d->protocol_count, a->protocol_count);
    for (int32_t i = 0; i < a->protocol_count; i++) {
        harness_assert_slice_eq(a->protocols[i].name, d->protocols[i].name);
        harness_assert_slice_eq(a->protocols[i].metadata, d->protocols[i].metadata);
    }
    check_opt(a->reason, d->reason, v >= 8);
}
HARNESS_CHECK(check_request, wire_join_group_request)

static void check_response(const wire_join_group_response *a,
                           const wire_join_group_response *d, int16_t v)
{
    assert_int_equal(d->throttle_time_ms, v >= 2 ? a->throttle_time_ms : 0);
    assert_int_equal(d->error_code, a->error_code);
    assert_int_equal(d->generation_id, a->generation_id);
    check_opt(a->protocol_type, d->protocol_type, v >= 7);
    if (v >= 7 || a->protocol_name.len >= 0)
        harness_assert_slice_eq(a->protocol_name, d->protocol_name);
    else
        harness_assert_slice_eq(harness_str(""), d->protocol_name);
    harness_assert_slice_eq(a->leader, d->leader);
    assert_int_equal(d->skip_assignment, v >= 9 ? a->skip_assignment : false);
    harness_assert_slice_eq(a->member_id, d->member_id);
    assert_int_equal(d->member_count, a->member_count);
    for (int32_t i = 0; i < a->member_count; i++) {
        harness_assert_slice_eq(a->members[i].member_id, d->members[i].member_id);
        check_opt(a->members[i].group_instance_id, d->members[i].group_instance_id, v >= 5);
        harness_assert_slice_eq(a->members[i].metadata, d->members[i].metadata);
    }
}
HARNESS_CHECK(check_response, wire_join_group_response)

static void test_round_trip_all_versions(void **state)
{
    (void)state;
    build_samples();
    for (int16_t v = api.min_version; v <= api.max_version; v++) {
        harness_check_round_trip(api.request, v, &sample_req, check_request_any, true);
        harness_check_round_trip(api.response, v, &sample_resp, check_response_any, true);
        wire_join_group_request q = sample_req;
        q.group_instance_id = q.reason = HARNESS_NULL;
        q.member_id = harness_str("");
        q.protocols = NULL;
        q.protocol_count = 0;
        harness_check_round_trip(api.request, v, &q, check_request_any, true);
        wire_join_group_response p = sample_resp;
        p.protocol_type = HARNESS_NULL;
        p.protocol_name = v >= 7 ? HARNESS_NULL : harness_str("");
        p.members = NULL;
        p.member_count = 0;
        p.error_code = 79; /* MEMBER_ID_REQUIRED */
        harness_check_round_trip(api.response, v, &p, check_response_any, true);
    }
}

static void test_request_golden(void **state)
{
    (void)state;
    wire_join_group_protocol pr = {harness_str("p"), {meta, 2}};
    wire_join_group_request q = {harness_str("g"), 10, 20, harness_str("m"), harness_str("i"),
                                 harness_str("c"), &pr, 1, harness_str("r")};
    static const uint8_t v0[] = {
        0x00, 0x01, 'g', 0x00, 0x00, 0x00, 0x0a, /* group, session timeout */
        0x00, 0x01, 'm', 0x00, 0x01, 'c',        /* member, protocol type */
        0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 'p', 0x00, 0x00, 0x00, 0x02, 0x00, 0x03,
    };
    static const uint8_t v5[] = {
        0x00, 0x01, 'g', 0x00, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x14, /* rebalance */
        0x00, 0x01, 'm', 0x00, 0x01, 'i', 0x00, 0x01, 'c',
        0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 'p', 0x00, 0x00, 0x00, 0x02, 0x00, 0x03,
    };
    static const uint8_t v8[] = {
        0x02, 'g', 0x00, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x14,
        0x02, 'm', 0x02, 'i', 0x02, 'c',
        0x02, 0x02, 'p', 0x03, 0x00, 0x03, 0x00, /* protocols: compact */
        0x02, 'r',                               /* reason */
        0x00,
    };
    harness_check_golden(api.request, 0, &q, v0, sizeof v0, check_request_any);
    harness_check_golden(api.request, 5, &q, v5, sizeof v5, check_request_any);
    harness_check_golden(api.request, 8, &q, v8, sizeof v8, check_request_any);
}

static void test_response_golden(void **state)
{
    (void)state;
    wire_join_group_member m = {harness_str("m"), HARNESS_NULL, {meta, 1}};
    wire_join_group_response p = {1, 0, 2, HARNESS_NULL, harness_str("p"), harness_str("l"),
                                  true, harness_str("m"), &m, 1};
    static const uint8_t v1[] = {
        0x00, 0x00, 0x00, 0x00, 0x00, 0x02,      /* error, generation 2 */
        0x00, 0x01, 'p', 0x00, 0x01, 'l', 0x00, 0x01, 'm',
        0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 'm', 0x00, 0x00, 0x00, 0x01, 0x00,
    };
    static const uint8_t v9[] = {
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
        0x00, 0x02, 'p',                         /* protocol type null, name */
        0x02, 'l', 0x01, 0x02, 'm',              /* leader, skip, member id */
        0x02, 0x02, 'm', 0x00, 0x02, 0x00, 0x00, /* member: id, null instance, meta */
        0x00,
    };
    harness_check_golden(api.response, 1, &p, v1, sizeof v1, check_response_any);
    harness_check_golden(api.response, 9, &p, v9, sizeof v9, check_response_any);
}

/* Null metadata and a null protocol name before v7 are refused; a null
 * protocol name is written as "" before v7. */
static void test_nulls(void **state)
{
    (void)state;
    kq_arena arena;
    kq_arena_init(&arena, 1 << 20);
    kq_reader r;
    wire_join_group_request q;
    static const uint8_t null_meta_v6[] = {0x02, 'g', 0, 0, 0, 1, 0, 0, 0, 1, 0x01, 0x00,
                                           0x02, 'c', 0x02, 0x02, 'p', 0x00, 0x00, 0x00};
    kq_reader_init(&r, null_meta_v6, sizeof null_meta_v6);
    assert_int_equal(wire_join_group_request_decode(&r, 6, &arena, &q), -1);
    wire_join_group_response p;
    static const uint8_t null_name_v6[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0x00,
                                           0x01, 0x01, 0x01, 0x00};
    kq_reader_init(&r, null_name_v6, sizeof null_name_v6);
    assert_int_equal(wire_join_group_response_decode(&r, 6, &arena, &p), -1);
    uint8_t ok_v6[sizeof null_name_v6];
    memcpy(ok_v6, null_name_v6, sizeof ok_v6);
    ok_v6[10] = 0x01;
    harness_decode_ok(api.response, 6, ok_v6, sizeof ok_v6, &arena, &p);
    assert_int_equal(p.protocol_name.len, 0);
    harness_assert_null(p.protocol_type);
    kq_writer w;
    wire_join_group_response in = {0, 0, 1, HARNESS_NULL, HARNESS_NULL, HARNESS_NULL, false,
                                   HARNESS_NULL, NULL, 0};
    harness_encode(api.response, 6, &in, &w);
    assert_int_equal(w.len, sizeof ok_v6);
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
    harness_api_garbage(&api, &sample_req, &sample_resp, 3000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_all_versions),
        cmocka_unit_test(test_request_golden),
        cmocka_unit_test(test_response_golden),
        cmocka_unit_test(test_nulls),
        cmocka_unit_test(test_bad_versions),
        cmocka_unit_test(test_garbage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
