/* BeginQuorumEpoch v0-1 codec: round trips, golden bytes, truncation and
 * garbage. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "codec_harness.h"
#include "kq/wire_begin_quorum_epoch.h"

HARNESS_CODEC(wire_begin_quorum_epoch_request, wire_begin_quorum_epoch_request);
HARNESS_CODEC(wire_begin_quorum_epoch_response, wire_begin_quorum_epoch_response);

#define META_NAME_BYTES                                                                       \
    '_', '_', 'c', 'l', 'u', 's', 't', 'e', 'r', '_', 'm', 'e', 't', 'a', 'd', 'a', 't', 'a'
#define U16(b) b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b

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

static void check_listeners(const wire_raft_listener *a, int32_t an, const wire_raft_listener *d,
                            int32_t dn)
{
    assert_int_equal(dn, an);
    for (int32_t i = 0; i < an; i++) {
        harness_assert_slice_eq(a[i].name, d[i].name);
        harness_assert_slice_eq(a[i].host, d[i].host);
        assert_int_equal(d[i].port, a[i].port);
    }
}

static void check_request(const wire_begin_quorum_epoch_request *a,
                          const wire_begin_quorum_epoch_request *d, int16_t v)
{
    harness_assert_slice_eq(a->cluster_id, d->cluster_id);
    assert_int_equal(d->voter_id, v >= 1 ? a->voter_id : -1);
    assert_int_equal(d->topic_count, a->topic_count);
    for (int32_t i = 0; i < a->topic_count; i++) {
        harness_assert_slice_eq(a->topics[i].topic_name, d->topics[i].topic_name);
        assert_int_equal(d->topics[i].partition_count, a->topics[i].partition_count);
        for (int32_t j = 0; j < a->topics[i].partition_count; j++) {
            const wire_begin_quorum_epoch_partition *ap = &a->topics[i].partitions[j];
            const wire_begin_quorum_epoch_partition *dp = &d->topics[i].partitions[j];
            assert_int_equal(dp->partition_index, ap->partition_index);
            if (v >= 1)
                harness_assert_uuid_eq(ap->voter_directory_id, dp->voter_directory_id);
            else
                harness_assert_uuid_zero(dp->voter_directory_id);
            assert_int_equal(dp->leader_id, ap->leader_id);
            assert_int_equal(dp->leader_epoch, ap->leader_epoch);
        }
    }
    if (v >= 1)
        check_listeners(a->leader_endpoints, a->leader_endpoint_count, d->leader_endpoints,
                        d->leader_endpoint_count);
    else
        assert_int_equal(d->leader_endpoint_count, 0);
}

static void check_response(const wire_begin_quorum_epoch_response *a,
                           const wire_begin_quorum_epoch_response *d, int16_t v)
{
    assert_int_equal(d->error_code, a->error_code);
    assert_int_equal(d->topic_count, a->topic_count);
    for (int32_t i = 0; i < a->topic_count; i++) {
        harness_assert_slice_eq(a->topics[i].topic_name, d->topics[i].topic_name);
        assert_int_equal(d->topics[i].partition_count, a->topics[i].partition_count);
        for (int32_t j = 0; j < a->topics[i].partition_count; j++) {
            const wire_begin_quorum_epoch_partition_result *ap = &a->topics[i].partitions[j];
            const wire_begin_quorum_epoch_partition_result *dp = &d->topics[i].partitions[j];
            assert_int_equal(dp->partition_index, ap->partition_index);
            assert_int_equal(dp->error_code, ap->error_code);
            assert_int_equal(dp->leader_id, ap->leader_id);
            assert_int_equal(dp->leader_epoch, ap->leader_epoch);
        }
    }
    if (v >= 1) {
        assert_int_equal(d->node_endpoint_count, a->node_endpoint_count);
        for (int32_t i = 0; i < a->node_endpoint_count; i++) {
            assert_int_equal(d->node_endpoints[i].node_id, a->node_endpoints[i].node_id);
            harness_assert_slice_eq(a->node_endpoints[i].host, d->node_endpoints[i].host);
            assert_int_equal(d->node_endpoints[i].port, a->node_endpoints[i].port);
        }
    } else {
        assert_int_equal(d->node_endpoint_count, 0);
    }
}

static void test_round_trip_all_versions(void **state)
{
    (void)state;
    build_samples();
    for (int16_t v = WIRE_BEGIN_QUORUM_EPOCH_MIN_VERSION; v <= WIRE_BEGIN_QUORUM_EPOCH_MAX_VERSION;
         v++) {
        kq_arena arena;
        kq_arena_init(&arena, 1 << 20);
        kq_writer enc;
        wire_begin_quorum_epoch_request req;
        harness_round_trip(&wire_begin_quorum_epoch_request_codec, v, &sample_req, &arena, &req,
                           &enc);
        check_request(&sample_req, &req, v);
        harness_truncations(&wire_begin_quorum_epoch_request_codec, v, enc.data, enc.len);
        kq_writer_free(&enc);
        wire_begin_quorum_epoch_response resp;
        harness_round_trip(&wire_begin_quorum_epoch_response_codec, v, &sample_resp, &arena,
                           &resp, &enc);
        check_response(&sample_resp, &resp, v);
        harness_truncations(&wire_begin_quorum_epoch_response_codec, v, enc.data, enc.len);
        kq_writer_free(&enc);
        wire_begin_quorum_epoch_request r2 = sample_req;
        r2.cluster_id = HARNESS_NULL;
        harness_round_trip(&wire_begin_quorum_epoch_request_codec, v, &r2, &arena, &req, &enc);
        check_request(&r2, &req, v);
        kq_writer_free(&enc);
        kq_arena_free(&arena);
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
    kq_arena arena;
    kq_arena_init(&arena, 1 << 20);
    wire_begin_quorum_epoch_request out;
    harness_golden(&wire_begin_quorum_epoch_request_codec, 0, &in, v0, sizeof v0, &arena, &out);
    check_request(&in, &out, 0);

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
    harness_golden(&wire_begin_quorum_epoch_request_codec, 1, &in, v1, sizeof v1, &arena, &out);
    check_request(&in, &out, 1);
    kq_arena_free(&arena);
}

static void test_response_golden(void **state)
{
    (void)state;
    wire_begin_quorum_epoch_partition_result part = {0, 0, 1, 5};
    wire_begin_quorum_epoch_topic_result topic = {harness_str("__cluster_metadata"), &part, 1};
    wire_raft_node_endpoint ep = {1, harness_str("h"), 9092};
    wire_begin_quorum_epoch_response in = {0, &topic, 1, &ep, 1};
    static const uint8_t v0[] = {
        0x00, 0x00,                         /* error_code 0 */
        0x00, 0x00, 0x00, 0x01,             /* topics: int32 count 1 */
        0x00, 0x12, META_NAME_BYTES,        /* topic_name */
        0x00, 0x00, 0x00, 0x01,             /* partitions: count 1 */
        0x00, 0x00, 0x00, 0x00,             /* partition_index 0 */
        0x00, 0x00,                         /* error_code 0 */
        0x00, 0x00, 0x00, 0x01,             /* leader_id 1 */
        0x00, 0x00, 0x00, 0x05,             /* leader_epoch 5 */
    };
    kq_arena arena;
    kq_arena_init(&arena, 1 << 20);
    wire_begin_quorum_epoch_response out;
    harness_golden(&wire_begin_quorum_epoch_response_codec, 0, &in, v0, sizeof v0, &arena, &out);
    check_response(&in, &out, 0);
    static const uint8_t v1[] = {
        0x00, 0x00,                         /* error_code 0 */
        0x02,                               /* topics: compact count 1 */
        0x13, META_NAME_BYTES,              /* topic_name */
        0x02,                               /* partitions: compact count 1 */
        0x00, 0x00, 0x00, 0x00,             /* partition_index 0 */
        0x00, 0x00,                         /* error_code 0 */
        0x00, 0x00, 0x00, 0x01,             /* leader_id 1 */
        0x00, 0x00, 0x00, 0x05,             /* leader_epoch 5 */
        0x00, 0x00,                         /* partition, topic tags */
        0x01,                               /* 1 top-level tag */
        0x00, 0x0a,                         /* tag 0 NodeEndpoints, size 10 */
        0x02,                               /*   compact count 1 */
        0x00, 0x00, 0x00, 0x01,             /*   node_id 1 */
        0x02, 'h',                          /*   host "h" */
        0x23, 0x84,                         /*   port 9092 */
        0x00,                               /*   no tags */
    };
    harness_golden(&wire_begin_quorum_epoch_response_codec, 1, &in, v1, sizeof v1, &arena, &out);
    check_response(&in, &out, 1);
    kq_arena_free(&arena);
}

static void test_bad_versions(void **state)
{
    (void)state;
    build_samples();
    harness_bad_version(&wire_begin_quorum_epoch_request_codec, -1, &sample_req);
    harness_bad_version(&wire_begin_quorum_epoch_request_codec, 2, &sample_req);
    harness_bad_version(&wire_begin_quorum_epoch_response_codec, -1, &sample_resp);
    harness_bad_version(&wire_begin_quorum_epoch_response_codec, 2, &sample_resp);
}

static void test_garbage(void **state)
{
    (void)state;
    build_samples();
    for (int16_t v = WIRE_BEGIN_QUORUM_EPOCH_MIN_VERSION; v <= WIRE_BEGIN_QUORUM_EPOCH_MAX_VERSION;
         v++) {
        kq_writer a, b;
        harness_encode(&wire_begin_quorum_epoch_request_codec, v, &sample_req, &a);
        harness_encode(&wire_begin_quorum_epoch_response_codec, v, &sample_resp, &b);
        harness_fuzz(&wire_begin_quorum_epoch_request_codec, v, a.data, a.len, 20000);
        harness_fuzz(&wire_begin_quorum_epoch_response_codec, v, b.data, b.len, 20000);
        kq_writer_free(&a);
        kq_writer_free(&b);
    }
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
