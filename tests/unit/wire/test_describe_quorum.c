/* DescribeQuorum v0-2 codec: round trips, golden bytes, truncation and
 * garbage. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "kq/wire_describe_quorum.h"
#include "raft_api_test_util.h"

HARNESS_CODEC(wire_describe_quorum_request, wire_describe_quorum_request);
HARNESS_CODEC(wire_describe_quorum_response, wire_describe_quorum_response);
static const harness_api api = {&wire_describe_quorum_request_codec,
                                &wire_describe_quorum_response_codec,
                                WIRE_DESCRIBE_QUORUM_MIN_VERSION,
                                WIRE_DESCRIBE_QUORUM_MAX_VERSION};

static wire_describe_quorum_partition sample_req_parts[2] = {{0}, {4}};
static wire_describe_quorum_topic sample_req_topics[2];
static wire_describe_quorum_request sample_req;

static wire_describe_quorum_replica_state sample_voters[2] = {
    {1, {{U16(0x66)}}, 100, 1000, 999},
    {2, {{0}}, 90, -1, -1},
};
static wire_describe_quorum_replica_state sample_observers[1] = {{5, {{U16(0x77)}}, 12, 3, 4}};
static wire_describe_quorum_partition_data sample_parts[2];
static wire_describe_quorum_topic_data sample_topics[1];
static wire_raft_listener sample_listeners[2];
static wire_describe_quorum_node sample_nodes[2];
static wire_describe_quorum_response sample_resp;

static void build_samples(void)
{
    sample_req_topics[0] =
        (wire_describe_quorum_topic){harness_str("__cluster_metadata"), sample_req_parts, 2};
    sample_req_topics[1] = (wire_describe_quorum_topic){harness_str("b"), NULL, 0};
    sample_req = (wire_describe_quorum_request){sample_req_topics, 2};
    sample_parts[0] = (wire_describe_quorum_partition_data){
        .partition_index = 0, .error_code = 0, .error_message = harness_str(""), .leader_id = 1,
        .leader_epoch = 5, .high_watermark = 100, .current_voters = sample_voters,
        .current_voter_count = 2, .observers = sample_observers, .observer_count = 1};
    sample_parts[1] = (wire_describe_quorum_partition_data){
        .partition_index = 1, .error_code = 3, .error_message = harness_str("unknown"),
        .leader_id = -1, .leader_epoch = -1, .high_watermark = -1};
    sample_topics[0] =
        (wire_describe_quorum_topic_data){harness_str("__cluster_metadata"), sample_parts, 2};
    sample_listeners[0] = (wire_raft_listener){harness_str("CONTROLLER"), harness_str("h1"), 9093};
    sample_listeners[1] = (wire_raft_listener){harness_str("X"), harness_str("h2"), 1};
    sample_nodes[0] = (wire_describe_quorum_node){1, sample_listeners, 2};
    sample_nodes[1] = (wire_describe_quorum_node){2, NULL, 0};
    sample_resp = (wire_describe_quorum_response){0, harness_str("all good"), sample_topics, 1,
                                                  sample_nodes, 2};
}

static void check_request_partition(const void *want, const void *got, int16_t v)
{
    (void)v;
    const wire_describe_quorum_partition *ap = want, *dp = got;
    assert_int_equal(dp->partition_index, ap->partition_index);
}

static const harness_topics request_topics =
    HARNESS_TOPICS(wire_describe_quorum_topic, topic_name, check_request_partition);

/* The request is the same in every version. */
static void check_request(const wire_describe_quorum_request *a,
                          const wire_describe_quorum_request *d, int16_t v)
{
    harness_check_topics(&request_topics, a->topics, a->topic_count, d->topics, d->topic_count,
                         v);
}
HARNESS_CHECK(check_request, wire_describe_quorum_request)

static void check_replicas(const wire_describe_quorum_replica_state *a, int32_t an,
                           const wire_describe_quorum_replica_state *d, int32_t dn, int16_t v)
{
    assert_int_equal(dn, an);
    for (int32_t i = 0; i < an; i++) {
        assert_int_equal(d[i].replica_id, a[i].replica_id);
        if (v >= 2)
            harness_assert_uuid_eq(a[i].replica_directory_id, d[i].replica_directory_id);
        else
            harness_assert_uuid_zero(d[i].replica_directory_id);
        assert_int_equal(d[i].log_end_offset, a[i].log_end_offset);
        assert_int_equal(d[i].last_fetch_timestamp, v >= 1 ? a[i].last_fetch_timestamp : -1);
        assert_int_equal(d[i].last_caught_up_timestamp,
                         v >= 1 ? a[i].last_caught_up_timestamp : -1);
    }
}

static void check_partition(const void *want, const void *got, int16_t v)
{
    const wire_describe_quorum_partition_data *ap = want, *dp = got;
    assert_int_equal(dp->partition_index, ap->partition_index);
    assert_int_equal(dp->error_code, ap->error_code);
    if (v >= 2)
        harness_assert_slice_eq(ap->error_message, dp->error_message);
    else
        harness_assert_null(dp->error_message);
    assert_int_equal(dp->leader_id, ap->leader_id);
    assert_int_equal(dp->leader_epoch, ap->leader_epoch);
    assert_int_equal(dp->high_watermark, ap->high_watermark);
    check_replicas(ap->current_voters, ap->current_voter_count, dp->current_voters,
                   dp->current_voter_count, v);
    check_replicas(ap->observers, ap->observer_count, dp->observers, dp->observer_count, v);
}

static const harness_topics response_topics =
    HARNESS_TOPICS(wire_describe_quorum_topic_data, topic_name, check_partition);

static void check_response(const wire_describe_quorum_response *a,
                           const wire_describe_quorum_response *d, int16_t v)
{
    assert_int_equal(d->error_code, a->error_code);
    if (v >= 2)
        harness_assert_slice_eq(a->error_message, d->error_message);
    else
        harness_assert_null(d->error_message);
    harness_check_topics(&response_topics, a->topics, a->topic_count, d->topics, d->topic_count,
                         v);
    if (v >= 2) {
        assert_int_equal(d->node_count, a->node_count);
        for (int32_t i = 0; i < a->node_count; i++) {
            assert_int_equal(d->nodes[i].node_id, a->nodes[i].node_id);
            raft_check_listeners(a->nodes[i].listeners, a->nodes[i].listener_count,
                                 d->nodes[i].listeners, d->nodes[i].listener_count);
        }
    } else {
        assert_int_equal(d->node_count, 0);
    }
}
HARNESS_CHECK(check_response, wire_describe_quorum_response)

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
    wire_describe_quorum_partition part = {0};
    wire_describe_quorum_topic topic = {harness_str("__cluster_metadata"), &part, 1};
    wire_describe_quorum_request in = {&topic, 1};
    /* identical in every version */
    static const uint8_t golden[] = {
        0x02,                               /* topics: compact count 1 */
        0x13, META_NAME_BYTES,              /* topic_name */
        0x02,                               /* partitions: compact count 1 */
        0x00, 0x00, 0x00, 0x00,             /* partition_index 0 */
        0x00,                               /* partition tags */
        0x00,                               /* topic tags */
        0x00,                               /* top-level tags */
    };
    for (int16_t v = 0; v <= 2; v++)
        harness_check_golden(api.request, v, &in, golden, sizeof golden, check_request_any);
}

static void test_response_golden(void **state)
{
    (void)state;
    wire_describe_quorum_replica_state voter = {1, {{U16(0x66)}}, 10, 1000, 999};
    wire_describe_quorum_partition_data part = {
        .partition_index = 0, .error_code = 0, .error_message = HARNESS_NULL, .leader_id = 1,
        .leader_epoch = 5, .high_watermark = 10, .current_voters = &voter,
        .current_voter_count = 1};
    wire_describe_quorum_topic_data topic = {harness_str("__cluster_metadata"), &part, 1};
    wire_raft_listener listener = {harness_str("PL"), harness_str("h"), 9092};
    wire_describe_quorum_node node = {1, &listener, 1};
    wire_describe_quorum_response in = {0, HARNESS_NULL, &topic, 1, &node, 1};
    static const uint8_t v0[] = {
        0x00, 0x00,                         /* error_code 0 */
        0x02,                               /* topics: compact count 1 */
        0x13, META_NAME_BYTES,              /* topic_name */
        0x02,                               /* partitions: compact count 1 */
        0x00, 0x00, 0x00, 0x00,             /* partition_index 0 */
        0x00, 0x00,                         /* error_code 0 */
        0x00, 0x00, 0x00, 0x01,             /* leader_id 1 */
        0x00, 0x00, 0x00, 0x05,             /* leader_epoch 5 */
        0, 0, 0, 0, 0, 0, 0, 0x0a,          /* high_watermark 10 */
        0x02,                               /* current_voters: compact count 1 */
        0x00, 0x00, 0x00, 0x01,             /*   replica_id 1 */
        0, 0, 0, 0, 0, 0, 0, 0x0a,          /*   log_end_offset 10 */
        0x00,                               /*   no tags */
        0x01,                               /* observers: empty */
        0x00, 0x00,                         /* partition, topic tags */
        0x00,                               /* top-level tags */
    };
    harness_check_golden(api.response, 0, &in, v0, sizeof v0, check_response_any);

    part.error_message = harness_str("");
    static const uint8_t v2[] = {
        0x00, 0x00,                         /* error_code 0 */
        0x00,                               /* error_message null (v2+) */
        0x02,                               /* topics: compact count 1 */
        0x13, META_NAME_BYTES,              /* topic_name */
        0x02,                               /* partitions: compact count 1 */
        0x00, 0x00, 0x00, 0x00,             /* partition_index 0 */
        0x00, 0x00,                         /* error_code 0 */
        0x01,                               /* error_message "" (v2+) */
        0x00, 0x00, 0x00, 0x01,             /* leader_id 1 */
        0x00, 0x00, 0x00, 0x05,             /* leader_epoch 5 */
        0, 0, 0, 0, 0, 0, 0, 0x0a,          /* high_watermark 10 */
        0x02,                               /* current_voters: compact count 1 */
        0x00, 0x00, 0x00, 0x01,             /*   replica_id 1 */
        U16(0x66),                          /*   replica_directory_id (v2+) */
        0, 0, 0, 0, 0, 0, 0, 0x0a,          /*   log_end_offset 10 */
        0, 0, 0, 0, 0, 0, 0x03, 0xe8,       /*   last_fetch_timestamp 1000 (v1+) */
        0, 0, 0, 0, 0, 0, 0x03, 0xe7,       /*   last_caught_up_timestamp 999 (v1+) */
        0x00,                               /*   no tags */
        0x01,                               /* observers: empty */
        0x00, 0x00,                         /* partition, topic tags */
        0x02,                               /* nodes (v2+): compact count 1 */
        0x00, 0x00, 0x00, 0x01,             /*   node_id 1 */
        0x02,                               /*   listeners: compact count 1 */
        0x03, 'P', 'L',                     /*     name "PL" */
        0x02, 'h',                          /*     host "h" */
        0x23, 0x84,                         /*     port 9092 (uint16) */
        0x00,                               /*     no tags */
        0x00,                               /*   node tags */
        0x00,                               /* top-level tags */
    };
    harness_check_golden(api.response, 2, &in, v2, sizeof v2, check_response_any);
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
