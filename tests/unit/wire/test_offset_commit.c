/* OffsetCommit v2-10 codec: round trips at every version (topic names up
 * to v9, ids from v10), goldens, truncation, version bounds and garbage. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "codec_harness.h"
#include "kq/wire_offset_commit.h"

HARNESS_CODEC(wire_offset_commit_request, wire_offset_commit_request);
HARNESS_CODEC(wire_offset_commit_response, wire_offset_commit_response);
static const harness_api api = {
    &wire_offset_commit_request_codec, &wire_offset_commit_response_codec,
    WIRE_OFFSET_COMMIT_MIN_VERSION, WIRE_OFFSET_COMMIT_MAX_VERSION};

static const kq_uuid topic_id = {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}};
static wire_offset_commit_partition sample_parts[2];
static wire_offset_commit_topic sample_topics[2];
static wire_offset_commit_request sample_req;
static wire_offset_commit_partition_response sample_results[2];
static wire_offset_commit_topic_response sample_topic_results[2];
static wire_offset_commit_response sample_resp;

static void build_samples(void)
{
    sample_parts[0] = (wire_offset_commit_partition){0, 1234, 7, harness_str("meta")};
    sample_parts[1] = (wire_offset_commit_partition){5, -1, -1, HARNESS_NULL};
    sample_topics[0] = (wire_offset_commit_topic){harness_str("t1"), topic_id, sample_parts, 2};
    sample_topics[1] = (wire_offset_commit_topic){harness_str(""), {{0}}, NULL, 0};
    sample_req = (wire_offset_commit_request){harness_str("group"), 3, harness_str("member-1"),
                                              harness_str("inst"), 60000, sample_topics, 2};
    sample_results[0] = (wire_offset_commit_partition_response){0, 0};
    sample_results[1] = (wire_offset_commit_partition_response){5, 25};
    sample_topic_results[0] =
        (wire_offset_commit_topic_response){harness_str("t1"), topic_id, sample_results, 2};
    sample_topic_results[1] = (wire_offset_commit_topic_response){harness_str("x"), {{0}}, NULL, 0};
    sample_resp = (wire_offset_commit_response){40, sample_topic_results, 2};
}

/* The topic reference carried at v: the name up to v9, the id from v10. */
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

static void check_request(const wire_offset_commit_request *a,
                          const wire_offset_commit_request *d, int16_t v)
{
    harness_assert_slice_eq(a->group_id, d->group_id);
    assert_int_equal(d->generation_id_or_member_epoch, a->generation_id_or_member_epoch);
    harness_assert_slice_eq(a->member_id, d->member_id);
    harness_assert_slice_eq(v >= 7 ? a->group_instance_id : HARNESS_NULL, d->group_instance_id);
    assert_int_equal(d->retention_time_ms, v <= 4 ? a->retention_time_ms : -1);
    assert_int_equal(d->topic_count, a->topic_count);
    for (int32_t i = 0; i < a->topic_count; i++) {
        const wire_offset_commit_topic *x = &a->topics[i], *y = &d->topics[i];
        check_ref(x->name, x->topic_id, y->name, y->topic_id, v);
        assert_int_equal(y->partition_count, x->partition_count);
        for (int32_t k = 0; k < x->partition_count; k++) {
            const wire_offset_commit_partition *p = &x->partitions[k], *q = &y->partitions[k];
            assert_int_equal(q->partition_index, p->partition_index);
            assert_int_equal(q->committed_offset, p->committed_offset);
            assert_int_equal(q->committed_leader_epoch, v >= 6 ? p->committed_leader_epoch : -1);
            harness_assert_slice_eq(p->committed_metadata, q->committed_metadata);
        }
    }
}

static void check_response(const wire_offset_commit_response *a,
                           const wire_offset_commit_response *d, int16_t v)
{
    assert_int_equal(d->throttle_time_ms, v >= 3 ? a->throttle_time_ms : 0);
    assert_int_equal(d->topic_count, a->topic_count);
    for (int32_t i = 0; i < a->topic_count; i++) {
        const wire_offset_commit_topic_response *x = &a->topics[i], *y = &d->topics[i];
        check_ref(x->name, x->topic_id, y->name, y->topic_id, v);
        assert_int_equal(y->partition_count, x->partition_count);
        for (int32_t k = 0; k < x->partition_count; k++) {
            assert_int_equal(y->partitions[k].partition_index, x->partitions[k].partition_index);
            assert_int_equal(y->partitions[k].error_code, x->partitions[k].error_code);
        }
    }
}

HARNESS_CHECK(check_request, wire_offset_commit_request)
HARNESS_CHECK(check_response, wire_offset_commit_response)

static void test_round_trip_all_versions(void **state)
{
    (void)state;
    build_samples();
    for (int16_t v = api.min_version; v <= api.max_version; v++) {
        harness_check_round_trip(api.request, v, &sample_req, check_request_any, true);
        harness_check_round_trip(api.response, v, &sample_resp, check_response_any, true);
        wire_offset_commit_request empty = {harness_str(""), -1, harness_str(""), HARNESS_NULL,
                                            -1, NULL, 0};
        harness_check_round_trip(api.request, v, &empty, check_request_any, true);
        wire_offset_commit_response none = {0, NULL, 0};
        harness_check_round_trip(api.response, v, &none, check_response_any, true);
    }
}

static void test_golden(void **state)
{
    (void)state;
    wire_offset_commit_partition p = {0, 5, -1, HARNESS_NULL};
    wire_offset_commit_topic t = {harness_str("t"), topic_id, &p, 1};
    wire_offset_commit_request req = {harness_str("g"), 1, harness_str("m"), HARNESS_NULL, -1,
                                      &t, 1};
    static const uint8_t req_v2[] = {
        0x00, 0x01, 'g', 0, 0, 0, 1, 0x00, 0x01, 'm',     /* group, generation, member */
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,   /* retention -1 */
        0, 0, 0, 1, 0x00, 0x01, 't', 0, 0, 0, 1,          /* one topic "t", one partition */
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0xff, 0xff};  /* index, offset, null metadata */
    harness_check_golden(api.request, 2, &req, req_v2, sizeof req_v2, check_request_any);
    static const uint8_t req_v10[] = {
        0x02, 'g', 0, 0, 0, 1, 0x02, 'm', 0x00,           /* group, generation, member, instance */
        0x02, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 0x02, /* topic id */
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, /* partition */
        0x00, 0x00};                                       /* topic and request tags */
    harness_check_golden(api.request, 10, &req, req_v10, sizeof req_v10, check_request_any);

    wire_offset_commit_partition_response pr = {1, 27};
    wire_offset_commit_topic_response tr = {harness_str("t"), topic_id, &pr, 1};
    wire_offset_commit_response resp = {0, &tr, 1};
    static const uint8_t resp_v8[] = {0, 0, 0, 0, 0x02, 0x02, 't', 0x02, 0, 0, 0, 1,
                                      0x00, 0x1b, 0x00, 0x00, 0x00};
    harness_check_golden(api.response, 8, &resp, resp_v8, sizeof resp_v8, check_response_any);
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
