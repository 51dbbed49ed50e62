/* DescribeCluster v0-1 codec: round trips, golden bytes, truncation and
 * garbage. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "codec_harness.h"
#include "kq/wire_describe_cluster.h"

HARNESS_CODEC(wire_describe_cluster_request, wire_describe_cluster_request);
HARNESS_CODEC(wire_describe_cluster_response, wire_describe_cluster_response);
static const harness_api api = {&wire_describe_cluster_request_codec,
                                &wire_describe_cluster_response_codec,
                                WIRE_DESCRIBE_CLUSTER_MIN_VERSION,
                                WIRE_DESCRIBE_CLUSTER_MAX_VERSION};

static wire_describe_cluster_broker sample_brokers[2];
static wire_describe_cluster_response sample_resp;
static const wire_describe_cluster_request sample_req = {true, 2};

static void build_samples(void)
{
    sample_brokers[0] = (wire_describe_cluster_broker){1, harness_str("host1"), 9092,
                                                       harness_str("rack-a")};
    sample_brokers[1] = (wire_describe_cluster_broker){2, harness_str("host2"), 19092,
                                                       HARNESS_NULL};
    sample_resp = (wire_describe_cluster_response){
        .throttle_time_ms = 3, .error_code = 0, .error_message = harness_str("msg"),
        .endpoint_type = 2, .cluster_id = harness_str("AAAAAAAAAAAAAAAAAAAAAQ"),
        .controller_id = 1, .brokers = sample_brokers, .broker_count = 2,
        .cluster_authorized_operations = 0x1234};
}

static void check_request(const wire_describe_cluster_request *a,
                          const wire_describe_cluster_request *d, int16_t v)
{
    assert_int_equal(d->include_cluster_authorized_operations,
                     a->include_cluster_authorized_operations);
    assert_int_equal(d->endpoint_type, v >= 1 ? a->endpoint_type : 1);
}
HARNESS_CHECK(check_request, wire_describe_cluster_request)

static void check_response(const wire_describe_cluster_response *a,
                           const wire_describe_cluster_response *d, int16_t v)
{
    assert_int_equal(d->throttle_time_ms, a->throttle_time_ms);
    assert_int_equal(d->error_code, a->error_code);
    harness_assert_slice_eq(a->error_message, d->error_message);
    assert_int_equal(d->endpoint_type, v >= 1 ? a->endpoint_type : 1);
    harness_assert_slice_eq(a->cluster_id, d->cluster_id);
    assert_int_equal(d->controller_id, a->controller_id);
    assert_int_equal(d->broker_count, a->broker_count);
    for (int32_t i = 0; i < a->broker_count; i++) {
        assert_int_equal(d->brokers[i].broker_id, a->brokers[i].broker_id);
        harness_assert_slice_eq(a->brokers[i].host, d->brokers[i].host);
        assert_int_equal(d->brokers[i].port, a->brokers[i].port);
        harness_assert_slice_eq(a->brokers[i].rack, d->brokers[i].rack);
    }
    assert_int_equal(d->cluster_authorized_operations, a->cluster_authorized_operations);
}

HARNESS_CHECK(check_response, wire_describe_cluster_response)

static void test_round_trip_all_versions(void **state)
{
    (void)state;
    build_samples();
    for (int16_t v = api.min_version; v <= api.max_version; v++) {
        harness_check_round_trip(api.request, v, &sample_req, check_request_any, true);
        harness_check_round_trip(api.response, v, &sample_resp, check_response_any, true);
    }
}

static void test_request_golden(void **state)
{
    (void)state;
    wire_describe_cluster_request in = {true, 2};
    static const uint8_t v0[] = {
        0x01, /* include_cluster_authorized_operations true */
        0x00, /* top-level tags */
    };
    static const uint8_t v1[] = {
        0x01, /* include_cluster_authorized_operations true */
        0x02, /* endpoint_type 2 (v1+) */
        0x00, /* top-level tags */
    };
    harness_check_golden(api.request, 0, &in, v0, sizeof v0, check_request_any);
    harness_check_golden(api.request, 1, &in, v1, sizeof v1, check_request_any);
}

static void test_response_golden(void **state)
{
    (void)state;
    wire_describe_cluster_broker broker = {1, harness_str("h"), 9092, HARNESS_NULL};
    wire_describe_cluster_response in = {
        .throttle_time_ms = 0, .error_code = 0, .error_message = HARNESS_NULL,
        .endpoint_type = 2, .cluster_id = harness_str("c1"), .controller_id = 1,
        .brokers = &broker, .broker_count = 1, .cluster_authorized_operations = INT32_MIN};
    static const uint8_t v0[] = {
        0x00, 0x00, 0x00, 0x00,             /* throttle_time_ms 0 */
        0x00, 0x00,                         /* error_code 0 */
        0x00,                               /* error_message null */
        0x03, 'c', '1',                     /* cluster_id "c1" */
        0x00, 0x00, 0x00, 0x01,             /* controller_id 1 */
        0x02,                               /* brokers: compact count 1 */
        0x00, 0x00, 0x00, 0x01,             /*   broker_id 1 */
        0x02, 'h',                          /*   host "h" */
        0x00, 0x00, 0x23, 0x84,             /*   port 9092 (int32) */
        0x00,                               /*   rack null */
        0x00,                               /*   no tags */
        0x80, 0x00, 0x00, 0x00,             /* cluster_authorized_operations INT32_MIN */
        0x00,                               /* top-level tags */
    };
    static const uint8_t v1[] = {
        0x00, 0x00, 0x00, 0x00,             /* throttle_time_ms 0 */
        0x00, 0x00,                         /* error_code 0 */
        0x00,                               /* error_message null */
        0x02,                               /* endpoint_type 2 (v1+) */
        0x03, 'c', '1',                     /* cluster_id "c1" */
        0x00, 0x00, 0x00, 0x01,             /* controller_id 1 */
        0x02,                               /* brokers: compact count 1 */
        0x00, 0x00, 0x00, 0x01,             /*   broker_id 1 */
        0x02, 'h',                          /*   host "h" */
        0x00, 0x00, 0x23, 0x84,             /*   port 9092 (int32) */
        0x00,                               /*   rack null */
        0x00,                               /*   no tags */
        0x80, 0x00, 0x00, 0x00,             /* cluster_authorized_operations INT32_MIN */
        0x00,                               /* top-level tags */
    };
    harness_check_golden(api.response, 0, &in, v0, sizeof v0, check_response_any);
    harness_check_golden(api.response, 1, &in, v1, sizeof v1, check_response_any);
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
    harness_api_garbage(&api, &sample_req, &sample_resp, 20000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_all_versions),
        cmocka_unit_test(test_request_golden),
        cmocka_unit_test(test_response_golden),
        cmocka_unit_test(test_bad_versions),
        cmocka_unit_test(test_garbage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
