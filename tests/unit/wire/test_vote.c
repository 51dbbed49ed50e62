/* Vote v0-2 codec: round trips, golden bytes, truncation and garbage. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "kq/wire_vote.h"
#include "raft_api_test_util.h"

HARNESS_CODEC(wire_vote_request, wire_vote_request);
HARNESS_CODEC(wire_vote_response, wire_vote_response);
static const harness_api api = {&wire_vote_request_codec,
                                &wire_vote_response_codec,
                                WIRE_VOTE_MIN_VERSION,
                                WIRE_VOTE_MAX_VERSION};

static const kq_uuid cand_dir = {{U16(0x22)}};
static const kq_uuid voter_dir = {{U16(0x33)}};

static wire_vote_partition sample_parts[2] = {
    {.partition_index = 0, .candidate_epoch = 5, .candidate_id = 1,
     .candidate_directory_id = {{U16(0x22)}}, .voter_directory_id = {{U16(0x33)}},
     .last_offset_epoch = 4, .last_offset = 42, .pre_vote = true},
    {.partition_index = 1, .candidate_epoch = 6, .candidate_id = 2, .last_offset_epoch = -1,
     .last_offset = 0},
};
static wire_vote_topic sample_topics[2];
static wire_vote_request sample_req;

static wire_vote_partition_result sample_results[2] = {
    {.partition_index = 0, .error_code = 0, .leader_id = -1, .leader_epoch = 5,
     .vote_granted = true},
    {.partition_index = 1, .error_code = 4, .leader_id = 3, .leader_epoch = 7,
     .vote_granted = false},
};
static wire_vote_topic_result sample_topic_results[2];
static wire_raft_node_endpoint sample_endpoints[2];
static wire_vote_response sample_resp;

static void build_samples(void)
{
    sample_topics[0] = (wire_vote_topic){harness_str("__cluster_metadata"), sample_parts, 2};
    sample_topics[1] = (wire_vote_topic){harness_str("t2"), NULL, 0};
    sample_req = (wire_vote_request){harness_str("cluster-x"), 9, sample_topics, 2};
    sample_topic_results[0] =
        (wire_vote_topic_result){harness_str("__cluster_metadata"), sample_results, 2};
    sample_topic_results[1] = (wire_vote_topic_result){harness_str(""), NULL, 0};
    sample_endpoints[0] = (wire_raft_node_endpoint){1, harness_str("host1"), 9093};
    sample_endpoints[1] = (wire_raft_node_endpoint){2, harness_str("host2"), 65535};
    sample_resp = (wire_vote_response){0, sample_topic_results, 2, sample_endpoints, 2};
}

static void check_partition(const void *want, const void *got, int16_t v)
{
    const wire_vote_partition *ap = want, *dp = got;
    assert_int_equal(dp->partition_index, ap->partition_index);
    assert_int_equal(dp->candidate_epoch, ap->candidate_epoch);
    assert_int_equal(dp->candidate_id, ap->candidate_id);
    if (v >= 1) {
        harness_assert_uuid_eq(ap->candidate_directory_id, dp->candidate_directory_id);
        harness_assert_uuid_eq(ap->voter_directory_id, dp->voter_directory_id);
    } else {
        harness_assert_uuid_zero(dp->candidate_directory_id);
        harness_assert_uuid_zero(dp->voter_directory_id);
    }
    assert_int_equal(dp->last_offset_epoch, ap->last_offset_epoch);
    assert_int_equal(dp->last_offset, ap->last_offset);
    assert_int_equal(dp->pre_vote, v >= 2 ? ap->pre_vote : false);
}

static void check_result(const void *want, const void *got, int16_t v)
{
    (void)v;
    const wire_vote_partition_result *ap = want, *dp = got;
    RAFT_CHECK_LEADER_RESULT(ap, dp);
    assert_int_equal(dp->vote_granted, ap->vote_granted);
}

static const harness_topics request_topics =
    HARNESS_TOPICS(wire_vote_topic, topic_name, check_partition);
static const harness_topics response_topics =
    HARNESS_TOPICS(wire_vote_topic_result, topic_name, check_result);

static void check_request(const wire_vote_request *a, const wire_vote_request *d, int16_t v)
{
    harness_assert_slice_eq(a->cluster_id, d->cluster_id);
    assert_int_equal(d->voter_id, v >= 1 ? a->voter_id : -1);
    harness_check_topics(&request_topics, a->topics, a->topic_count, d->topics, d->topic_count,
                         v);
}
HARNESS_CHECK(check_request, wire_vote_request)

static void check_response(const wire_vote_response *a, const wire_vote_response *d, int16_t v)
{
    assert_int_equal(d->error_code, a->error_code);
    harness_check_topics(&response_topics, a->topics, a->topic_count, d->topics, d->topic_count,
                         v);
    raft_check_node_endpoints(a->node_endpoints, a->node_endpoint_count, d->node_endpoints,
                              d->node_endpoint_count, v);
}
HARNESS_CHECK(check_response, wire_vote_response)

static void test_round_trip_all_versions(void **state)
{
    (void)state;
    build_samples();
    for (int16_t v = api.min_version; v <= api.max_version; v++) {
        harness_check_round_trip(api.request, v, &sample_req, check_request_any, true);
        harness_check_round_trip(api.response, v, &sample_resp, check_response_any, true);
        /* null cluster id and no endpoints */
        wire_vote_request r2 = sample_req;
        r2.cluster_id = HARNESS_NULL;
        harness_check_round_trip(api.request, v, &r2, check_request_any, false);
        wire_vote_response p2 = sample_resp;
        p2.node_endpoint_count = 0;
        p2.node_endpoints = NULL;
        harness_check_round_trip(api.response, v, &p2, check_response_any, false);
    }
}

static void test_request_golden(void **state)
{
    (void)state;
    wire_vote_partition part = {.partition_index = 0, .candidate_epoch = 5, .candidate_id = 1,
                                .candidate_directory_id = cand_dir,
                                .voter_directory_id = voter_dir, .last_offset_epoch = 4,
                                .last_offset = 42};
    wire_vote_topic topic = {harness_str("__cluster_metadata"), &part, 1};
    wire_vote_request in = {harness_str("c"), -1, &topic, 1};
    static const uint8_t v0[] = {
        0x02, 'c',                          /* cluster_id: compact "c" */
        0x02,                               /* topics: compact count 1 */
        0x13, META_NAME_BYTES,              /* topic_name: compact len 18+1 */
        0x02,                               /* partitions: compact count 1 */
        0x00, 0x00, 0x00, 0x00,             /* partition_index 0 */
        0x00, 0x00, 0x00, 0x05,             /* candidate_epoch 5 */
        0x00, 0x00, 0x00, 0x01,             /* candidate_id 1 */
        0x00, 0x00, 0x00, 0x04,             /* last_offset_epoch 4 */
        0, 0, 0, 0, 0, 0, 0, 0x2a,          /* last_offset 42 */
        0x00,                               /* partition tags */
        0x00,                               /* topic tags */
        0x00,                               /* top-level tags */
    };
    harness_check_golden(api.request, 0, &in, v0, sizeof v0, check_request_any);

    in.cluster_id = HARNESS_NULL;
    in.voter_id = 2;
    static const uint8_t v1[] = {
        0x00,                               /* cluster_id: null */
        0x00, 0x00, 0x00, 0x02,             /* voter_id 2 (v1+) */
        0x02,                               /* topics: compact count 1 */
        0x13, META_NAME_BYTES,              /* topic_name */
        0x02,                               /* partitions: compact count 1 */
        0x00, 0x00, 0x00, 0x00,             /* partition_index 0 */
        0x00, 0x00, 0x00, 0x05,             /* candidate_epoch 5 */
        0x00, 0x00, 0x00, 0x01,             /* candidate_id 1 */
        U16(0x22),                          /* candidate_directory_id (v1+) */
        U16(0x33),                          /* voter_directory_id (v1+) */
        0x00, 0x00, 0x00, 0x04,             /* last_offset_epoch 4 */
        0, 0, 0, 0, 0, 0, 0, 0x2a,          /* last_offset 42 */
        0x00, 0x00, 0x00,                   /* partition, topic, top-level tags */
    };
    harness_check_golden(api.request, 1, &in, v1, sizeof v1, check_request_any);

    /* v2 (KIP-996): one boolean after last_offset, before the partition tags. */
    in.topics[0].partitions[0].pre_vote = true;
    static const uint8_t v2[] = {
        0x00,                               /* cluster_id: null */
        0x00, 0x00, 0x00, 0x02,             /* voter_id 2 */
        0x02,                               /* topics: compact count 1 */
        0x13, META_NAME_BYTES,              /* topic_name */
        0x02,                               /* partitions: compact count 1 */
        0x00, 0x00, 0x00, 0x00,             /* partition_index 0 */
        0x00, 0x00, 0x00, 0x05,             /* candidate_epoch 5 */
        0x00, 0x00, 0x00, 0x01,             /* candidate_id 1 */
        U16(0x22),                          /* candidate_directory_id */
        U16(0x33),                          /* voter_directory_id */
        0x00, 0x00, 0x00, 0x04,             /* last_offset_epoch 4 */
        0, 0, 0, 0, 0, 0, 0, 0x2a,          /* last_offset 42 */
        0x01,                               /* pre_vote true (v2+) */
        0x00, 0x00, 0x00,                   /* partition, topic, top-level tags */
    };
    harness_check_golden(api.request, 2, &in, v2, sizeof v2, check_request_any);
    /* pre_vote is not written below v2: v1 bytes are unchanged */
    harness_check_golden(api.request, 1, &in, v1, sizeof v1, check_request_any);
}

static void test_response_golden(void **state)
{
    (void)state;
    wire_vote_partition_result part = {0, 0, -1, 5, true};
    wire_vote_topic_result topic = {harness_str("__cluster_metadata"), &part, 1};
    wire_raft_node_endpoint ep = {1, harness_str("h"), 9092};
    wire_vote_response in = {0, &topic, 1, &ep, 1};
    static const uint8_t v0[] = {
        0x00, 0x00,                         /* error_code 0 */
        0x02,                               /* topics: compact count 1 */
        0x13, META_NAME_BYTES,              /* topic_name */
        0x02,                               /* partitions: compact count 1 */
        0x00, 0x00, 0x00, 0x00,             /* partition_index 0 */
        0x00, 0x00,                         /* error_code 0 */
        0xff, 0xff, 0xff, 0xff,             /* leader_id -1 */
        0x00, 0x00, 0x00, 0x05,             /* leader_epoch 5 */
        0x01,                               /* vote_granted true */
        0x00, 0x00,                         /* partition, topic tags */
        0x00,                               /* top-level tags (no endpoints in v0) */
    };
    harness_check_golden(api.response, 0, &in, v0, sizeof v0, check_response_any);
    static const uint8_t v1[] = {
        0x00, 0x00,                         /* error_code 0 */
        0x02,                               /* topics: compact count 1 */
        0x13, META_NAME_BYTES,              /* topic_name */
        0x02,                               /* partitions: compact count 1 */
        0x00, 0x00, 0x00, 0x00,             /* partition_index 0 */
        0x00, 0x00,                         /* error_code 0 */
        0xff, 0xff, 0xff, 0xff,             /* leader_id -1 */
        0x00, 0x00, 0x00, 0x05,             /* leader_epoch 5 */
        0x01,                               /* vote_granted true */
        0x00, 0x00,                         /* partition, topic tags */
        0x01,                               /* 1 top-level tag */
        0x00, 0x0a,                         /* tag 0 NodeEndpoints, size 10 */
        0x02,                               /*   compact count 1 */
        0x00, 0x00, 0x00, 0x01,             /*   node_id 1 */
        0x02, 'h',                          /*   host "h" */
        0x23, 0x84,                         /*   port 9092 (uint16) */
        0x00,                               /*   no tags */
    };
    harness_check_golden(api.response, 1, &in, v1, sizeof v1, check_response_any);
    /* v2 responses are laid out as v1 */
    harness_check_golden(api.response, 2, &in, v1, sizeof v1, check_response_any);
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
