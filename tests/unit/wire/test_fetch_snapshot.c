/* FetchSnapshot v0-1 codec: round trips, golden bytes, tagged fields,
 * truncation, version bounds and garbage. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "kq/kafka_errors.h"
#include "kq/wire_fetch_snapshot.h"
#include "raft_api_test_util.h"

HARNESS_CODEC(wire_fetch_snapshot_request, wire_fetch_snapshot_request);
HARNESS_CODEC(wire_fetch_snapshot_response, wire_fetch_snapshot_response);
static const harness_api api = {
    &wire_fetch_snapshot_request_codec, &wire_fetch_snapshot_response_codec,
    WIRE_FETCH_SNAPSHOT_MIN_VERSION, WIRE_FETCH_SNAPSHOT_MAX_VERSION};

static const uint8_t chunk_bytes[] = {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xff};

static wire_fetch_snapshot_partition sample_parts[2] = {
    {.partition = 0, .current_leader_epoch = 5, .snapshot_id = {900, 4}, .position = 65536,
     .replica_directory_id = {{U16(0x44)}}},
    {.partition = 3, .current_leader_epoch = -1, .snapshot_id = {-1, -1}, .position = 0},
};
static wire_fetch_snapshot_topic sample_topics[2];
static wire_fetch_snapshot_request sample_req;

static wire_fetch_snapshot_partition_data sample_data[2];
static wire_fetch_snapshot_topic_response sample_topic_results[2];
static wire_raft_node_endpoint sample_endpoints[2];
static wire_fetch_snapshot_response sample_resp;

static void build_samples(void)
{
    sample_topics[0] = (wire_fetch_snapshot_topic){harness_str("__cluster_metadata"),
                                                   sample_parts, 2};
    sample_topics[1] = (wire_fetch_snapshot_topic){harness_str("t2"), NULL, 0};
    sample_req = (wire_fetch_snapshot_request){harness_str("cid"), 2, 1 << 20, sample_topics, 2};
    sample_data[0] = (wire_fetch_snapshot_partition_data){
        0, 0, {900, 4}, true, {1, 5}, 123456, 65536,
        {chunk_bytes, (int32_t)sizeof chunk_bytes}};
    sample_data[1] = (wire_fetch_snapshot_partition_data){
        1, KAFKA_SNAPSHOT_NOT_FOUND, {-1, -1}, false, {-1, -1}, -1, -1,
        {(const uint8_t *)"", 0}};
    sample_topic_results[0] = (wire_fetch_snapshot_topic_response){
        harness_str("__cluster_metadata"), sample_data, 2};
    sample_topic_results[1] = (wire_fetch_snapshot_topic_response){harness_str("z"), NULL, 0};
    sample_endpoints[0] = (wire_raft_node_endpoint){1, harness_str("host1"), 9093};
    sample_endpoints[1] = (wire_raft_node_endpoint){2, harness_str("host2"), 0};
    sample_resp = (wire_fetch_snapshot_response){3, 0, sample_topic_results, 2,
                                                 sample_endpoints, 2};
}

static void check_partition(const void *want, const void *got, int16_t v)
{
    const wire_fetch_snapshot_partition *ap = want, *dp = got;
    assert_int_equal(dp->partition, ap->partition);
    assert_int_equal(dp->current_leader_epoch, ap->current_leader_epoch);
    assert_int_equal(dp->snapshot_id.end_offset, ap->snapshot_id.end_offset);
    assert_int_equal(dp->snapshot_id.epoch, ap->snapshot_id.epoch);
    assert_int_equal(dp->position, ap->position);
    if (v >= 1)
        harness_assert_uuid_eq(ap->replica_directory_id, dp->replica_directory_id);
    else
        harness_assert_uuid_zero(dp->replica_directory_id);
}

static void check_data(const void *want, const void *got, int16_t v)
{
    (void)v;
    const wire_fetch_snapshot_partition_data *ap = want, *dp = got;
    assert_int_equal(dp->index, ap->index);
    assert_int_equal(dp->error_code, ap->error_code);
    assert_int_equal(dp->snapshot_id.end_offset, ap->snapshot_id.end_offset);
    assert_int_equal(dp->snapshot_id.epoch, ap->snapshot_id.epoch);
    assert_int_equal(dp->has_current_leader, ap->has_current_leader);
    assert_int_equal(dp->current_leader.leader_id,
                     ap->has_current_leader ? ap->current_leader.leader_id : 0);
    assert_int_equal(dp->current_leader.leader_epoch,
                     ap->has_current_leader ? ap->current_leader.leader_epoch : 0);
    assert_int_equal(dp->size, ap->size);
    assert_int_equal(dp->position, ap->position);
    harness_assert_slice_eq(ap->unaligned_records, dp->unaligned_records);
}

static const harness_topics request_topics =
    HARNESS_TOPICS(wire_fetch_snapshot_topic, name, check_partition);
static const harness_topics response_topics =
    HARNESS_TOPICS(wire_fetch_snapshot_topic_response, name, check_data);

static void check_request(const wire_fetch_snapshot_request *a,
                          const wire_fetch_snapshot_request *d, int16_t v)
{
    harness_assert_slice_eq(a->cluster_id, d->cluster_id);
    assert_int_equal(d->replica_id, a->replica_id);
    assert_int_equal(d->max_bytes, a->max_bytes);
    harness_check_topics(&request_topics, a->topics, a->topic_count, d->topics, d->topic_count,
                         v);
}
HARNESS_CHECK(check_request, wire_fetch_snapshot_request)

static void check_response(const wire_fetch_snapshot_response *a,
                           const wire_fetch_snapshot_response *d, int16_t v)
{
    assert_int_equal(d->throttle_time_ms, a->throttle_time_ms);
    assert_int_equal(d->error_code, a->error_code);
    harness_check_topics(&response_topics, a->topics, a->topic_count, d->topics, d->topic_count,
                         v);
    raft_check_node_endpoints(a->node_endpoints, a->node_endpoint_count, d->node_endpoints,
                              d->node_endpoint_count, v);
}
HARNESS_CHECK(check_response, wire_fetch_snapshot_response)

static void test_round_trip_all_versions(void **state)
{
    (void)state;
    build_samples();
    for (int16_t v = api.min_version; v <= api.max_version; v++) {
        harness_check_round_trip(api.request, v, &sample_req, check_request_any, true);
        harness_check_round_trip(api.response, v, &sample_resp, check_response_any, true);
        wire_fetch_snapshot_request r2 = sample_req;
        r2.cluster_id = HARNESS_NULL;
        harness_check_round_trip(api.request, v, &r2, check_request_any, true);
        wire_fetch_snapshot_response s2 = sample_resp;
        s2.node_endpoint_count = 0;
        s2.node_endpoints = NULL;
        harness_check_round_trip(api.response, v, &s2, check_response_any, true);
    }
}

static void test_request_golden(void **state)
{
    (void)state;
    wire_fetch_snapshot_partition part = {0, 5, {900, 4}, 16, {{U16(0x44)}}};
    wire_fetch_snapshot_topic topic = {harness_str("__cluster_metadata"), &part, 1};
    wire_fetch_snapshot_request in = {HARNESS_NULL, 2, 4096, &topic, 1};
    static const uint8_t v0[] = {
        0x00, 0x00, 0x00, 0x02,             /* replica_id 2 */
        0x00, 0x00, 0x10, 0x00,             /* max_bytes 4096 */
        0x02,                               /* topics: compact count 1 */
        0x13, META_NAME_BYTES,              /* name */
        0x02,                               /* partitions: compact count 1 */
        0x00, 0x00, 0x00, 0x00,             /* partition 0 */
        0x00, 0x00, 0x00, 0x05,             /* current_leader_epoch 5 */
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x84, /* snapshot end_offset 900 */
        0x00, 0x00, 0x00, 0x04,             /* snapshot epoch 4 */
        0x00,                               /* SnapshotId struct tags */
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, /* position 16 */
        0x00,                               /* partition tags: no directory id in v0 */
        0x00,                               /* topic tags */
        0x00,                               /* top-level tags: cluster id null */
    };
    harness_check_golden(api.request, 0, &in, v0, sizeof v0, check_request_any);

    in.cluster_id = harness_str("c");
    static const uint8_t v1[] = {
        0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x10, 0x00, 0x02, 0x13, META_NAME_BYTES, 0x02,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x84, 0x00, 0x00, 0x00, 0x04, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10,
        0x01, 0x00, 0x10, U16(0x44),        /* tag 0 ReplicaDirectoryId, 16 bytes */
        0x00,                               /* topic tags */
        0x01, 0x00, 0x02, 0x02, 'c',        /* tag 0 ClusterId "c" */
    };
    harness_check_golden(api.request, 1, &in, v1, sizeof v1, check_request_any);
}

static void test_response_golden(void **state)
{
    (void)state;
    static const uint8_t chunk[] = {0xaa, 0xbb};
    wire_fetch_snapshot_partition_data part = {0, KAFKA_POSITION_OUT_OF_RANGE, {900, 4},
                                               true, {1, 5}, 300, 298, {chunk, 2}};
    wire_fetch_snapshot_topic_response topic = {harness_str("__cluster_metadata"), &part, 1};
    wire_raft_node_endpoint ep = {1, harness_str("h"), 9092};
    wire_fetch_snapshot_response in = {0, 0, &topic, 1, &ep, 1};
    static const uint8_t body[] = {
        0x00, 0x00, 0x00, 0x00,             /* throttle_time_ms */
        0x00, 0x00,                         /* error_code */
        0x02, 0x13, META_NAME_BYTES, 0x02,  /* topics, name, partitions */
        0x00, 0x00, 0x00, 0x00,             /* index 0 */
        0x00, 0x63,                         /* error_code 99 */
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x84, 0x00, 0x00, 0x00, 0x04,
        0x00,                               /* SnapshotId struct tags */
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x2c, /* size 300 */
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x2a, /* position 298 */
        0x03, 0xaa, 0xbb,                   /* unaligned records: compact bytes */
        0x01, 0x00, 0x09,                   /* tag 0 CurrentLeader, 9 bytes */
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x05, 0x00,
        0x00,                               /* topic tags */
    };
    uint8_t v0[sizeof body + 1], v1[sizeof body + 13];
    memcpy(v0, body, sizeof body);
    v0[sizeof body] = 0x00; /* v0: no NodeEndpoints */
    memcpy(v1, body, sizeof body);
    static const uint8_t tail[] = {0x01, 0x00, 0x0a, 0x02, 0x00, 0x00, 0x00, 0x01,
                                   0x02, 'h',  0x23, 0x84, 0x00};
    memcpy(v1 + sizeof body, tail, sizeof tail);
    harness_check_golden(api.response, 0, &in, v0, sizeof v0, check_response_any);
    harness_check_golden(api.response, 1, &in, v1, sizeof v1, check_response_any);
}

/* Tags from a later version, unknown tags and a null chunk. */
static void test_tags_and_null_records(void **state)
{
    (void)state;
    kq_arena arena;
    kq_arena_init(&arena, 1 << 20);
    /* v0 request whose partition carries tag 0 (the v1 directory id): skipped. */
    static const uint8_t v0_dir[] = {
        0, 0, 0, 2, 0, 0, 0, 1, 0x02, 0x02, 'x', 0x02, 0, 0, 0, 0, 0, 0, 0, 1,
        0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 1, 0x00, 0, 0, 0, 0, 0, 0, 0, 0,
        0x01, 0x00, 0x10, U16(0x44), 0x00, 0x01, 0x05, 0x01, 0x07, /* unknown tag 5 */
    };
    wire_fetch_snapshot_request q;
    harness_decode_ok(api.request, 0, v0_dir, sizeof v0_dir, &arena, &q);
    harness_assert_uuid_zero(q.topics[0].partitions[0].replica_directory_id);
    harness_assert_null(q.cluster_id);
    /* A null UnalignedRecords is refused (the field is not nullable). */
    static const uint8_t null_chunk[] = {
        0, 0, 0, 0, 0, 0, 0x02, 0x02, 'x', 0x02, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 1, 0x00, 0, 0, 0, 0, 0, 0, 0, 9,
        0, 0, 0, 0, 0, 0, 0, 0, 0x00 /* null */, 0x00, 0x00, 0x00,
    };
    wire_fetch_snapshot_response s;
    kq_reader r;
    kq_reader_init(&r, null_chunk, sizeof null_chunk);
    assert_int_equal(wire_fetch_snapshot_response_decode(&r, 0, &arena, &s), -1);
    /* The same with an empty chunk decodes. */
    uint8_t empty_chunk[sizeof null_chunk];
    memcpy(empty_chunk, null_chunk, sizeof null_chunk);
    empty_chunk[45] = 0x01;
    harness_decode_ok(api.response, 0, empty_chunk, sizeof empty_chunk, &arena, &s);
    assert_int_equal(s.topics[0].partitions[0].unaligned_records.len, 0);
    assert_false(s.topics[0].partitions[0].has_current_leader);
    /* absent: Kafka's default for FetchSnapshot's LeaderIdAndEpoch */
    assert_int_equal(s.topics[0].partitions[0].current_leader.leader_id, 0);
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
    harness_api_garbage(&api, &sample_req, &sample_resp, 20000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_all_versions),
        cmocka_unit_test(test_request_golden),
        cmocka_unit_test(test_response_golden),
        cmocka_unit_test(test_tags_and_null_records),
        cmocka_unit_test(test_bad_versions),
        cmocka_unit_test(test_garbage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
