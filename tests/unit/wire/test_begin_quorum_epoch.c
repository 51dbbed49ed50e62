/* BeginQuorumEpoch v0-1 codec: round trips, golden bytes, truncation and
 * garbage. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "kq/wire_begin_quorum_epoch.h"
#include "raft_api_test_util.h"

HARNESS_CODEC(wire_begin_quorum_epoch_request, wire_begin_quorum_epoch_request);
HARNESS_CODEC(wire_begin_quorum_epoch_response, wire_begin_quorum_epoch_response);
static const harness_api api = {
    &wire_begin_quorum_epoch_request_codec, &wire_begin_quorum_epoch_response_codec,
    WIRE_BEGIN_QUORUM_EPOCH_MIN_VERSION, WIRE_BEGIN_QUORUM_EPOCH_MAX_VERSION};

static wire_begin_quorum_epoch_partition sample_parts[2] = {
    {.partition_index = 0, .voter_directory_id = {{U16(0x44)}}, .leader_id = 1,
     .leader_epoch = 5},
    {.partition_index = 3, .leader_id = 2, .leader_epoch = 9},
};
static wire_begin_quorum_epoch_topic sample_topics[2];
static wire_raft_listener sample_listeners[2];
static wire_begin_quorum_epoch_request sample_req;

static wire_begin_quorum_epoch_partition_result sample_results[2] = {
    {0, 0, 1, 5},
    {1, 11, -1, 6},
};
static wire_begin_quorum_epoch_topic_result sample_topic_results[2];
static wire_raft_node_endpoint sample_endpoints[2];
static wire_begin_quorum_epoch_response sample_resp;

static void build_samples(void)
{
    sample_topics[0] = (wire_begin_quorum_epoch_topic){harness_str("__cluster_metadata"),
                                                       sample_parts, 2};
    sample_topics[1] = (wire_begin_quorum_epoch_topic){harness_str("t2"), NULL, 0};
    sample_listeners[0] = (wire_raft_listener){harness_str("CONTROLLER"), harness_str("h1"), 9093};
    sample_listeners[1] = (wire_raft_listener){harness_str("PLAIN"), harness_str("h1.x"), 1};
    sample_req = (wire_begin_quorum_epoch_request){harness_str("cid"), 7, sample_topics, 2,
                                                   sample_listeners, 2};
    sample_topic_results[0] = (wire_begin_quorum_epoch_topic_result){
        harness_str("__cluster_metadata"), sample_results, 2};
    sample_topic_results[1] = (wire_begin_quorum_epoch_topic_result){harness_str("z"), NULL, 0};
    sample_endpoints[0] = (wire_raft_node_endpoint){1, harness_str("host1"), 9093};
    sample_endpoints[1] = (wire_raft_node_endpoint){2, harness_str("host2"), 0};
    sample_resp = (wire_begin_quorum_epoch_response){0, sample_topic_results, 2,
                                                     sample_endpoints, 2};
}

static void check_partition(const void *want, const void *got, int16_t v)
{
    const wire_begin_quorum_epoch_partition *ap = want, *dp = got;
    assert_int_equal(dp->partition_index, ap->partition_index);
    if (v >= 1)
        harness_assert_uuid_eq(ap->voter_directory_id, dp->voter_directory_id);
    else
        harness_assert_uuid_zero(dp->voter_directory_id);
    assert_int_equal(dp->leader_id, ap->leader_id);
    assert_int_equal(dp->leader_epoch, ap->leader_epoch);
}

static void check_result(const void *want, const void *got, int16_t v)
{
    (void)v;
    const wire_begin_quorum_epoch_partition_result *ap = want, *dp = got;
    RAFT_CHECK_LEADER_RESULT(ap, dp);
}

static const harness_topics request_topics =
    HARNESS_TOPICS(wire_begin_quorum_epoch_topic, topic_name, check_partition);
static const harness_topics response_topics =
    HARNESS_TOPICS(wire_begin_quorum_epoch_topic_result, topic_name, check_result);

static void check_request(const wire_begin_quorum_epoch_request *a,
                          const wire_begin_quorum_epoch_request *d, int16_t v)
{
    harness_assert_slice_eq(a->cluster_id, d->cluster_id);
    assert_int_equal(d->voter_id, v >= 1 ? a->voter_id : -1);
    harness_check_topics(&request_topics, a->topics, a->topic_count, d->topics, d->topic_count,
                         v);
    if (v >= 1)
        raft_check_listeners(a->leader_endpoints, a->leader_endpoint_count,
                             d->leader_endpoints, d->leader_endpoint_count);
    else
        assert_int_equal(d->leader_endpoint_count, 0);
}
HARNESS_CHECK(check_request, wire_begin_quorum_epoch_request)

static void check_response(const wire_begin_quorum_epoch_response *a,
                           const wire_begin_quorum_epoch_response *d, int16_t v)
{
    assert_int_equal(d->error_code, a->error_code);
    harness_check_topics(&response_topics, a->topics, a->topic_count, d->topics, d->topic_count,
                         v);
    raft_check_node_endpoints(a->node_endpoints, a->node_endpoint_count, d->node_endpoints,
                              d->node_endpoint_count, v);
}
HARNESS_CHECK(check_response, wire_begin_quorum_epoch_response)

static void test_round_trip_all_versions(void **state)
{
    (void)state;
    build_samples();
    for (int16_t v = api.min_version; v <= api.max_version; v++) {
        harness_check_round_trip(api.request, v, &sample_req, check_request_any, true);
        harness_check_round_trip(api.response, v, &sample_resp, check_response_any, true);
        wire_begin_quorum_epoch_request r2 = sample_req;
        r2.cluster_id = HARNESS_NULL;
        harness_check_round_trip(api.request, v, &r2, check_request_any, false);
    }
}

static void test_request_golden(void **state)
{
    (void)state;
    wire_begin_quorum_epoch_partition part = {0, {{U16(0x44)}}, 1, 5};
    wire_begin_quorum_epoch_topic topic = {harness_str("__cluster_metadata"), &part, 1};
    wire_raft_listener le = {harness_str("PL"), harness_str("h"), 9092};
    wire_begin_quorum_epoch_request in = {harness_str("c"), -1, &topic, 1, NULL, 0};
    static const uint8_t v0[] = {
        0x00, 0x01, 'c',                    /* cluster_id: int16 length 1 */
        0x00, 0x00, 0x00, 0x01,             /* topics: int32 count 1 */
        0x00, 0x12, META_NAME_BYTES,        /* topic_name */
        0x00, 0x00, 0x00, 0x01,             /* partitions: count 1 */
        0x00, 0x00, 0x00, 0x00,             /* partition_index 0 */
        0x00, 0x00, 0x00, 0x01,             /* leader_id 1 */
        0x00, 0x00, 0x00, 0x05,             /* leader_epoch 5 */
    };
    harness_check_golden(api.request, 0, &in, v0, sizeof v0, check_request_any);

    in.cluster_id = HARNESS_NULL;
    in.voter_id = 2;
    in.leader_endpoints = &le;
    in.leader_endpoint_count = 1;
    static const uint8_t v1[] = {
        0x00,                               /* cluster_id: compact null */
        0x00, 0x00, 0x00, 0x02,             /* voter_id 2 (v1+) */
        0x02,                               /* topics: compact count 1 */
        0x13, META_NAME_BYTES,              /* topic_name */
        0x02,                               /* partitions: compact count 1 */
        0x00, 0x00, 0x00, 0x00,             /* partition_index 0 */
        U16(0x44),                          /* voter_directory_id (v1+) */
        0x00, 0x00, 0x00, 0x01,             /* leader_id 1 */
        0x00, 0x00, 0x00, 0x05,             /* leader_epoch 5 */
        0x00, 0x00,                         /* partition, topic tags */
        0x02,                               /* leader_endpoints: compact count 1 */
        0x03, 'P', 'L',                     /*   name "PL" */
        0x02, 'h',                          /*   host "h" */
        0x23, 0x84,                         /*   port 9092 (uint16) */
        0x00,                               /*   no tags */
        0x00,                               /* top-level tags */
    };
    harness_check_golden(api.request, 1, &in, v1, sizeof v1, check_request_any);
}

static void test_response_golden(void **state)
{
    (void)state;
    wire_begin_quorum_epoch_partition_result part = {0, 0, 1, 5};
    wire_begin_quorum_epoch_topic_result topic = {harness_str("__cluster_metadata"), &part, 1};
    wire_raft_node_endpoint ep = {1, harness_str("h"), 9092};
    wire_begin_quorum_epoch_response in = {0, &topic, 1, &ep, 1};
    raft_epoch_response_golden(api.response, &in, check_response_any);
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
