/* OffsetFetch v1-10 codec: round trips at every version (one group up to
 * v7, batched groups from v8, topic ids from v10), null topic lists,
 * goldens, truncation, version bounds and garbage. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "codec_harness.h"
#include "kq/wire_offset_fetch.h"

HARNESS_CODEC(wire_offset_fetch_request, wire_offset_fetch_request);
HARNESS_CODEC(wire_offset_fetch_response, wire_offset_fetch_response);
static const harness_api api = {&wire_offset_fetch_request_codec,
                                &wire_offset_fetch_response_codec,
                                WIRE_OFFSET_FETCH_MIN_VERSION, WIRE_OFFSET_FETCH_MAX_VERSION};

static const kq_uuid topic_id = {{9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 1, 2, 3, 4, 5, 6}};
static int32_t sample_indexes[3] = {0, 2, 7};
static wire_offset_fetch_request_topic sample_req_topics[2];
static wire_offset_fetch_request_group sample_req_groups[2];
static wire_offset_fetch_request sample_req;
static wire_offset_fetch_partition sample_parts[2];
static wire_offset_fetch_topic sample_topics[2];
static wire_offset_fetch_group sample_groups[2];
static wire_offset_fetch_response sample_resp;

static void build_samples(void)
{
    sample_req_topics[0] =
        (wire_offset_fetch_request_topic){harness_str("t1"), topic_id, sample_indexes, 3};
    sample_req_topics[1] = (wire_offset_fetch_request_topic){harness_str(""), {{0}}, NULL, 0};
    sample_req_groups[0] = (wire_offset_fetch_request_group){
        harness_str("g1"), harness_str("m1"), 4, sample_req_topics, 2};
    sample_req_groups[1] =
        (wire_offset_fetch_request_group){harness_str("g2"), HARNESS_NULL, -1, NULL, -1};
    sample_req = (wire_offset_fetch_request){harness_str("g0"), sample_req_topics, 2,
                                             sample_req_groups, 2, true};
    sample_parts[0] = (wire_offset_fetch_partition){0, 100, 3, harness_str("md"), 0};
    sample_parts[1] = (wire_offset_fetch_partition){2, -1, -1, HARNESS_NULL, 3};
    sample_topics[0] = (wire_offset_fetch_topic){harness_str("t1"), topic_id, sample_parts, 2};
    sample_topics[1] = (wire_offset_fetch_topic){harness_str("t2"), {{0}}, NULL, 0};
    sample_groups[0] = (wire_offset_fetch_group){harness_str("g1"), sample_topics, 2, 0};
    sample_groups[1] = (wire_offset_fetch_group){harness_str("g2"), NULL, 0, 16};
    sample_resp = (wire_offset_fetch_response){5, sample_topics, 2, 14, sample_groups, 2};
}

static void check_ref(kq_slice an, kq_uuid ai, kq_slice dn, kq_uuid di, int16_t v)
{
    if (v <= 9) {
        harness_assert_slice_eq(an, dn);
        harness_assert_uuid_zero(di);
    } else {
        harness_assert_null(dn);
        harness_assert_uuid_eq(ai, di);
    }
}

static void check_req_topics(const wire_offset_fetch_request_topic *a, int32_t an,
                             const wire_offset_fetch_request_topic *d, int32_t dn, int16_t v)
{
    assert_int_equal(dn, an);
    for (int32_t i = 0; i < an; i++) {
        check_ref(a[i].name, a[i].topic_id, d[i].name, d[i].topic_id, v);
        assert_int_equal(d[i].partition_index_count, a[i].partition_index_count);
        for (int32_t k = 0; k < a[i].partition_index_count; k++)
            assert_int_equal(d[i].partition_indexes[k], a[i].partition_indexes[k]);
    }
}

static void check_request(const wire_offset_fetch_request *a, const wire_offset_fetch_request *d,
                          int16_t v)
{
    assert_int_equal(d->require_stable, v >= 7 ? a->require_stable : false);
    if (v <= 7) {
        harness_assert_slice_eq(a->group_id, d->group_id);
        check_req_topics(a->topics, a->topic_count, d->topics, d->topic_count, v);
        assert_int_equal(d->group_count, 0);
        return;
    }
    assert_int_equal(d->topic_count, 0);
    assert_int_equal(d->group_count, a->group_count);
    for (int32_t i = 0; i < a->group_count; i++) {
        const wire_offset_fetch_request_group *x = &a->groups[i], *y = &d->groups[i];
        harness_assert_slice_eq(x->group_id, y->group_id);
        harness_assert_slice_eq(v >= 9 ? x->member_id : HARNESS_NULL, y->member_id);
        assert_int_equal(y->member_epoch, v >= 9 ? x->member_epoch : -1);
        check_req_topics(x->topics, x->topic_count, y->topics, y->topic_count, v);
    }
}

static void check_topics(const wire_offset_fetch_topic *a, int32_t an,
                         const wire_offset_fetch_topic *d, int32_t dn, int16_t v)
{
    assert_int_equal(dn, an);
    for (int32_t i = 0; i < an; i++) {
        check_ref(a[i].name, a[i].topic_id, d[i].name, d[i].topic_id, v);
        assert_int_equal(d[i].partition_count, a[i].partition_count);
        for (int32_t k = 0; k < a[i].partition_count; k++) {
            const wire_offset_fetch_partition *p = &a[i].partitions[k], *q = &d[i].partitions[k];
            assert_int_equal(q->partition_index, p->partition_index);
            assert_int_equal(q->committed_offset, p->committed_offset);
            assert_int_equal(q->committed_leader_epoch, v >= 5 ? p->committed_leader_epoch : -1);
            harness_assert_slice_eq(p->metadata, q->metadata);
            assert_int_equal(q->error_code, p->error_code);
        }
    }
}

static void check_response(const wire_offset_fetch_response *a,
                           const wire_offset_fetch_response *d, int16_t v)
{
    assert_int_equal(d->throttle_time_ms, v >= 3 ? a->throttle_time_ms : 0);
    if (v <= 7) {
        check_topics(a->topics, a->topic_count, d->topics, d->topic_count, v);
        assert_int_equal(d->error_code, v >= 2 ? a->error_code : 0);
        assert_int_equal(d->group_count, 0);
        return;
    }
    assert_int_equal(d->topic_count, 0);
    assert_int_equal(d->group_count, a->group_count);
    for (int32_t i = 0; i < a->group_count; i++) {
        harness_assert_slice_eq(a->groups[i].group_id, d->groups[i].group_id);
        check_topics(a->groups[i].topics, a->groups[i].topic_count, d->groups[i].topics,
                     d->groups[i].topic_count, v);
        assert_int_equal(d->groups[i].error_code, a->groups[i].error_code);
    }
}

HARNESS_CHECK(check_request, wire_offset_fetch_request)
HARNESS_CHECK(check_response, wire_offset_fetch_response)

static void test_round_trip_all_versions(void **state)
{
    (void)state;
    build_samples();
    for (int16_t v = api.min_version; v <= api.max_version; v++) {
        harness_check_round_trip(api.request, v, &sample_req, check_request_any, true);
        harness_check_round_trip(api.response, v, &sample_resp, check_response_any, true);
        wire_offset_fetch_response none = {0, NULL, 0, 0, NULL, 0};
        harness_check_round_trip(api.response, v, &none, check_response_any, true);
        if (v < 2)
            continue;
        /* a null topic list: every topic of the group */
        wire_offset_fetch_request all = {harness_str("g"), NULL, -1, NULL, 0, false};
        harness_check_round_trip(api.request, v, &all, check_request_any, true);
    }
}

static void test_golden(void **state)
{
    (void)state;
    int32_t idx = 3;
    wire_offset_fetch_request_topic t = {harness_str("t"), topic_id, &idx, 1};
    wire_offset_fetch_request req = {harness_str("g"), &t, 1, NULL, 0, false};
    static const uint8_t req_v1[] = {0x00, 0x01, 'g', 0, 0, 0, 1, 0x00, 0x01, 't',
                                     0,    0,    0,   1, 0, 0, 0, 3};
    harness_check_golden(api.request, 1, &req, req_v1, sizeof req_v1, check_request_any);
    req.topic_count = -1;
    static const uint8_t req_v2_null[] = {0x00, 0x01, 'g', 0xff, 0xff, 0xff, 0xff};
    harness_check_golden(api.request, 2, &req, req_v2_null, sizeof req_v2_null,
                         check_request_any);
    /* v1 has no null topic list: a null one is refused on decode */
    kq_reader r;
    kq_reader_init(&r, req_v2_null, sizeof req_v2_null);
    wire_offset_fetch_request out;
    assert_int_equal(wire_offset_fetch_request_decode(&r, 1, NULL, &out), -1);

    wire_offset_fetch_request_group g = {harness_str("g"), HARNESS_NULL, -1, NULL, -1};
    req = (wire_offset_fetch_request){harness_str(""), NULL, 0, &g, 1, true};
    static const uint8_t req_v8[] = {0x02, 0x02, 'g', 0x00, 0x00, 0x01, 0x00};
    harness_check_golden(api.request, 8, &req, req_v8, sizeof req_v8, check_request_any);
    static const uint8_t req_v9[] = {0x02, 0x02, 'g', 0x00, 0xff, 0xff, 0xff, 0xff,
                                     0x00, 0x00, 0x01, 0x00};
    harness_check_golden(api.request, 9, &req, req_v9, sizeof req_v9, check_request_any);

    wire_offset_fetch_partition p = {1, 42, 2, HARNESS_NULL, 0};
    wire_offset_fetch_topic ft = {harness_str("t"), topic_id, &p, 1};
    wire_offset_fetch_response resp = {0, &ft, 1, 0, NULL, 0};
    static const uint8_t resp_v1[] = {0, 0, 0, 1, 0x00, 0x01, 't', 0, 0, 0, 1, 0, 0, 0, 1,
                                      0, 0, 0, 0, 0, 0, 0, 42, 0xff, 0xff, 0x00, 0x00};
    harness_check_golden(api.response, 1, &resp, resp_v1, sizeof resp_v1, check_response_any);
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
        cmocka_unit_test(test_golden),
        cmocka_unit_test(test_bad_versions),
        cmocka_unit_test(test_garbage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
