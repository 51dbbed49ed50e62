/* Fetch v4-18 codec: round trips, golden bytes, truncation and garbage. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "codec_harness.h"
#include "kq/wire_fetch.h"

HARNESS_CODEC(wire_fetch_request, wire_fetch_request);
HARNESS_CODEC(wire_fetch_response, wire_fetch_response);
static const harness_api api = {&wire_fetch_request_codec, &wire_fetch_response_codec,
                                WIRE_FETCH_MIN_VERSION, WIRE_FETCH_MAX_VERSION};

#define META_NAME_BYTES                                                                       \
    '_', '_', 'c', 'l', 'u', 's', 't', 'e', 'r', '_', 'm', 'e', 't', 'a', 'd', 'a', 't', 'a'
#define META_ID_BYTES 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1

static const kq_uuid other_id = {{0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}};
static const kq_uuid dir_id = {{0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
                                0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11}};

/* ---- sample values with every field set ---- */

static wire_fetch_partition sample_req_parts[2];
static wire_fetch_topic sample_req_topics[2];
static int32_t sample_forgotten_parts[3] = {1, 2, 3};
static wire_fetch_forgotten_topic sample_forgotten[1];
static wire_fetch_request sample_req;

static void build_sample_request(void)
{
    sample_req_parts[0] = (wire_fetch_partition){
        .partition = 0, .current_leader_epoch = 5, .fetch_offset = 100, .last_fetched_epoch = 4,
        .log_start_offset = 7, .partition_max_bytes = 65536, .replica_directory_id = dir_id,
        .has_high_watermark = true, .high_watermark = 90};
    sample_req_parts[1] = (wire_fetch_partition){
        .partition = 1, .current_leader_epoch = 6, .fetch_offset = 200, .last_fetched_epoch = 3,
        .log_start_offset = 10, .partition_max_bytes = 1024};
    sample_req_topics[0] = (wire_fetch_topic){.topic = harness_str(WIRE_METADATA_TOPIC_NAME),
                                              .topic_id = WIRE_METADATA_TOPIC_ID,
                                              .partitions = sample_req_parts,
                                              .partition_count = 2};
    sample_req_topics[1] = (wire_fetch_topic){.topic = harness_str("other"), .topic_id = other_id};
    sample_forgotten[0] = (wire_fetch_forgotten_topic){.topic = harness_str("gone"),
                                                       .topic_id = other_id,
                                                       .partitions = sample_forgotten_parts,
                                                       .partition_count = 3};
    sample_req = (wire_fetch_request){
        .cluster_id = harness_str("clusterA"), .replica_id = 3, .replica_epoch = 77,
        .max_wait_ms = 500, .min_bytes = 1, .max_bytes = 1048576, .isolation_level = 1,
        .session_id = 9, .session_epoch = 4, .topics = sample_req_topics, .topic_count = 2,
        .forgotten_topics = sample_forgotten, .forgotten_topic_count = 1,
        .rack_id = harness_str("rack-1")};
}

static const uint8_t sample_records[] = {0x00, 0x01, 0x02, 0x03, 0xfe, 0xff};
static wire_fetch_aborted_transaction sample_aborted[2] = {{1000, 5}, {1001, 6}};
static wire_fetch_partition_data sample_resp_parts[2];
static wire_fetch_topic_response sample_resp_topics[2];
static wire_fetch_node_endpoint sample_endpoints[2];
static wire_fetch_response sample_resp;

static void build_sample_response(void)
{
    sample_resp_parts[0] = (wire_fetch_partition_data){
        .partition_index = 0, .error_code = 0, .high_watermark = 100, .last_stable_offset = 90,
        .log_start_offset = 1, .has_diverging_epoch = true, .diverging_epoch = {3, 80},
        .has_current_leader = true, .current_leader = {2, 5}, .has_snapshot_id = true,
        .snapshot_id = {70, 2}, .aborted_transactions = sample_aborted,
        .aborted_transaction_count = 2, .preferred_read_replica = 2,
        .records = {sample_records, (int32_t)sizeof sample_records}};
    sample_resp_parts[1] = (wire_fetch_partition_data){
        .partition_index = 1, .error_code = 6, .high_watermark = -1, .last_stable_offset = -1,
        .log_start_offset = -1, .diverging_epoch = {-1, -1}, .current_leader = {-1, -1},
        .snapshot_id = {-1, -1}, .aborted_transaction_count = -1, .preferred_read_replica = -1,
        .records = HARNESS_NULL};
    sample_resp_topics[0] = (wire_fetch_topic_response){
        .topic = harness_str(WIRE_METADATA_TOPIC_NAME), .topic_id = WIRE_METADATA_TOPIC_ID,
        .partitions = sample_resp_parts, .partition_count = 2};
    sample_resp_topics[1] = (wire_fetch_topic_response){.topic = harness_str("x"),
                                                        .topic_id = other_id};
    sample_endpoints[0] = (wire_fetch_node_endpoint){2, harness_str("host2"), 9092,
                                                     harness_str("r2")};
    sample_endpoints[1] = (wire_fetch_node_endpoint){3, harness_str("host3"), 9093, HARNESS_NULL};
    sample_resp = (wire_fetch_response){
        .throttle_time_ms = 10, .error_code = 0, .session_id = 9, .responses = sample_resp_topics,
        .response_count = 2, .node_endpoints = sample_endpoints, .node_endpoint_count = 2};
}

/* ---- comparison: fields present in v must match, absent ones are defaults ---- */

/* Topics are named up to v12 and identified by id from v13. */
static void check_topic_ref(kq_slice a_name, kq_uuid a_id, kq_slice d_name, kq_uuid d_id,
                            int16_t v)
{
    if (v <= 12) {
        harness_assert_slice_eq(a_name, d_name);
        harness_assert_uuid_zero(d_id);
    } else {
        harness_assert_null(d_name);
        harness_assert_uuid_eq(a_id, d_id);
    }
}

static void check_request(const wire_fetch_request *a, const wire_fetch_request *d, int16_t v)
{
    if (v >= 12)
        harness_assert_slice_eq(a->cluster_id, d->cluster_id);
    else
        harness_assert_null(d->cluster_id);
    assert_int_equal(d->replica_id, a->replica_id);
    assert_int_equal(d->replica_epoch, v >= 15 ? a->replica_epoch : -1);
    assert_int_equal(d->max_wait_ms, a->max_wait_ms);
    assert_int_equal(d->min_bytes, a->min_bytes);
    assert_int_equal(d->max_bytes, a->max_bytes);
    assert_int_equal(d->isolation_level, a->isolation_level);
    assert_int_equal(d->session_id, v >= 7 ? a->session_id : 0);
    assert_int_equal(d->session_epoch, v >= 7 ? a->session_epoch : -1);
    assert_int_equal(d->topic_count, a->topic_count);
    for (int32_t i = 0; i < a->topic_count; i++) {
        const wire_fetch_topic *at = &a->topics[i], *dt = &d->topics[i];
        check_topic_ref(at->topic, at->topic_id, dt->topic, dt->topic_id, v);
        assert_int_equal(dt->partition_count, at->partition_count);
        for (int32_t j = 0; j < at->partition_count; j++) {
            const wire_fetch_partition *ap = &at->partitions[j], *dp = &dt->partitions[j];
            assert_int_equal(dp->partition, ap->partition);
            assert_int_equal(dp->current_leader_epoch, v >= 9 ? ap->current_leader_epoch : -1);
            assert_int_equal(dp->fetch_offset, ap->fetch_offset);
            assert_int_equal(dp->last_fetched_epoch, v >= 12 ? ap->last_fetched_epoch : -1);
            assert_int_equal(dp->log_start_offset, v >= 5 ? ap->log_start_offset : -1);
            assert_int_equal(dp->partition_max_bytes, ap->partition_max_bytes);
            if (v >= 17)
                harness_assert_uuid_eq(ap->replica_directory_id, dp->replica_directory_id);
            else
                harness_assert_uuid_zero(dp->replica_directory_id);
            /* KIP-1166: absent (below v18, or not set) reads as INT64_MAX */
            bool hw_sent = v >= 18 && ap->has_high_watermark;
            assert_int_equal(dp->has_high_watermark, hw_sent);
            assert_int_equal(dp->high_watermark, hw_sent ? ap->high_watermark : INT64_MAX);
        }
    }
    if (v >= 7) {
        assert_int_equal(d->forgotten_topic_count, a->forgotten_topic_count);
        for (int32_t i = 0; i < a->forgotten_topic_count; i++) {
            const wire_fetch_forgotten_topic *at = &a->forgotten_topics[i];
            const wire_fetch_forgotten_topic *dt = &d->forgotten_topics[i];
            if (v <= 12)
                harness_assert_slice_eq(at->topic, dt->topic);
            else
                harness_assert_uuid_eq(at->topic_id, dt->topic_id);
            assert_int_equal(dt->partition_count, at->partition_count);
            for (int32_t j = 0; j < at->partition_count; j++)
                assert_int_equal(dt->partitions[j], at->partitions[j]);
        }
    } else {
        assert_int_equal(d->forgotten_topic_count, 0);
    }
    if (v >= 11)
        harness_assert_slice_eq(a->rack_id, d->rack_id);
    else
        harness_assert_slice_eq(harness_str(""), d->rack_id);
}
HARNESS_CHECK(check_request, wire_fetch_request)

static void check_partition_data(const wire_fetch_partition_data *a,
                                 const wire_fetch_partition_data *d, int16_t v)
{
    assert_int_equal(d->partition_index, a->partition_index);
    assert_int_equal(d->error_code, a->error_code);
    assert_int_equal(d->high_watermark, a->high_watermark);
    assert_int_equal(d->last_stable_offset, a->last_stable_offset);
    assert_int_equal(d->log_start_offset, v >= 5 ? a->log_start_offset : -1);
    bool tags = v >= 12;
    assert_int_equal(d->has_diverging_epoch, tags && a->has_diverging_epoch);
    assert_int_equal(d->has_current_leader, tags && a->has_current_leader);
    assert_int_equal(d->has_snapshot_id, tags && a->has_snapshot_id);
    if (d->has_diverging_epoch) {
        assert_int_equal(d->diverging_epoch.epoch, a->diverging_epoch.epoch);
        assert_int_equal(d->diverging_epoch.end_offset, a->diverging_epoch.end_offset);
    } else {
        assert_int_equal(d->diverging_epoch.epoch, -1);
        assert_int_equal(d->diverging_epoch.end_offset, -1);
    }
    if (d->has_current_leader) {
        assert_int_equal(d->current_leader.leader_id, a->current_leader.leader_id);
        assert_int_equal(d->current_leader.leader_epoch, a->current_leader.leader_epoch);
    } else {
        assert_int_equal(d->current_leader.leader_id, -1);
        assert_int_equal(d->current_leader.leader_epoch, -1);
    }
    if (d->has_snapshot_id) {
        assert_int_equal(d->snapshot_id.end_offset, a->snapshot_id.end_offset);
        assert_int_equal(d->snapshot_id.epoch, a->snapshot_id.epoch);
    } else {
        assert_int_equal(d->snapshot_id.end_offset, -1);
        assert_int_equal(d->snapshot_id.epoch, -1);
    }
    assert_int_equal(d->aborted_transaction_count, a->aborted_transaction_count);
    for (int32_t k = 0; k < a->aborted_transaction_count; k++) {
        assert_int_equal(d->aborted_transactions[k].producer_id,
                         a->aborted_transactions[k].producer_id);
        assert_int_equal(d->aborted_transactions[k].first_offset,
                         a->aborted_transactions[k].first_offset);
    }
    assert_int_equal(d->preferred_read_replica, v >= 11 ? a->preferred_read_replica : -1);
    harness_assert_slice_eq(a->records, d->records);
}

static void check_response(const wire_fetch_response *a, const wire_fetch_response *d, int16_t v)
{
    assert_int_equal(d->throttle_time_ms, a->throttle_time_ms);
    assert_int_equal(d->error_code, v >= 7 ? a->error_code : 0);
    assert_int_equal(d->session_id, v >= 7 ? a->session_id : 0);
    assert_int_equal(d->response_count, a->response_count);
    for (int32_t i = 0; i < a->response_count; i++) {
        const wire_fetch_topic_response *at = &a->responses[i], *dt = &d->responses[i];
        check_topic_ref(at->topic, at->topic_id, dt->topic, dt->topic_id, v);
        assert_int_equal(dt->partition_count, at->partition_count);
        for (int32_t j = 0; j < at->partition_count; j++)
            check_partition_data(&at->partitions[j], &dt->partitions[j], v);
    }
    if (v >= 16) {
        assert_int_equal(d->node_endpoint_count, a->node_endpoint_count);
        for (int32_t i = 0; i < a->node_endpoint_count; i++) {
            assert_int_equal(d->node_endpoints[i].node_id, a->node_endpoints[i].node_id);
            harness_assert_slice_eq(a->node_endpoints[i].host, d->node_endpoints[i].host);
            assert_int_equal(d->node_endpoints[i].port, a->node_endpoints[i].port);
            harness_assert_slice_eq(a->node_endpoints[i].rack, d->node_endpoints[i].rack);
        }
    } else {
        assert_int_equal(d->node_endpoint_count, 0);
    }
}

HARNESS_CHECK(check_response, wire_fetch_response)

/* ---- tests ---- */

static void test_metadata_topic_id(void **state)
{
    (void)state;
    static const uint8_t want[16] = {META_ID_BYTES};
    assert_memory_equal(WIRE_METADATA_TOPIC_ID.bytes, want, 16);
    assert_string_equal(WIRE_METADATA_TOPIC_NAME, "__cluster_metadata");
}

static void test_request_round_trip_all_versions(void **state)
{
    (void)state;
    build_sample_request();
    for (int16_t v = api.min_version; v <= api.max_version; v++)
        harness_check_round_trip(api.request, v, &sample_req, check_request_any, true);
}

static void test_request_replica_state_defaults(void **state)
{
    (void)state;
    /* v15+: replica_id/epoch at their defaults are not written at all */
    wire_fetch_request in = {.replica_id = -1, .replica_epoch = -1, .session_epoch = -1,
                             .rack_id = harness_str("")};
    kq_writer plain, with_state;
    harness_encode(&wire_fetch_request_codec, 15, &in, &plain);
    in.replica_id = 1;
    harness_encode(&wire_fetch_request_codec, 15, &in, &with_state);
    assert_int_equal(plain.data[plain.len - 1], 0); /* empty tag section */
    assert_true(with_state.len == plain.len + 15);  /* tag, size, 13-byte struct */
    kq_arena arena;
    kq_arena_init(&arena, 1 << 20);
    wire_fetch_request out;
    harness_decode_ok(&wire_fetch_request_codec, 15, plain.data, plain.len, &arena, &out);
    assert_int_equal(out.replica_id, -1);
    assert_int_equal(out.replica_epoch, -1);
    harness_decode_ok(&wire_fetch_request_codec, 15, with_state.data, with_state.len, &arena, &out);
    assert_int_equal(out.replica_id, 1);
    assert_int_equal(out.replica_epoch, -1);
    kq_arena_free(&arena);
    kq_writer_free(&plain);
    kq_writer_free(&with_state);
}

static void test_response_round_trip_all_versions(void **state)
{
    (void)state;
    build_sample_response();
    for (int16_t v = api.min_version; v <= api.max_version; v++)
        harness_check_round_trip(api.response, v, &sample_resp, check_response_any, true);
}

/* records_external_at (a streamed answer): the output without the records,
 * with them spliced in where it says, is the ordinary encoding, in every
 * version (a length prefix as int32 or varint). */
static void test_response_records_external(void **state)
{
    (void)state;
    for (int16_t v = api.min_version; v <= api.max_version; v++) {
        build_sample_response();
        kq_writer whole, hole;
        kq_writer_init(&whole, 0);
        kq_writer_init(&hole, 0);
        wire_fetch_response_encode(&whole, v, &sample_resp);
        size_t at = 0;
        sample_resp_parts[0].records_external_at = &at;
        sample_resp_parts[0].records.ptr = NULL;
        wire_fetch_response_encode(&hole, v, &sample_resp);
        assert_false(whole.error || hole.error);
        assert_int_equal(hole.len + sizeof sample_records, whole.len);
        assert_true(at > 0 && at <= hole.len);
        assert_memory_equal(hole.data, whole.data, at);
        assert_memory_equal(whole.data + at, sample_records, sizeof sample_records);
        assert_memory_equal(whole.data + at + sizeof sample_records, hole.data + at, hole.len - at);
        kq_writer_free(&whole);
        kq_writer_free(&hole);
    }
}

static void test_request_golden_v4(void **state)
{
    (void)state;
    wire_fetch_partition part = {.partition = 0, .current_leader_epoch = -1, .fetch_offset = 42,
                                 .last_fetched_epoch = -1, .log_start_offset = -1,
                                 .partition_max_bytes = 0x10000};
    wire_fetch_topic topic = {.topic = harness_str(WIRE_METADATA_TOPIC_NAME),
                              .partitions = &part, .partition_count = 1};
    wire_fetch_request in = {.cluster_id = HARNESS_NULL, .replica_id = 1, .replica_epoch = -1,
                             .max_wait_ms = 500, .min_bytes = 1, .max_bytes = 0x100000,
                             .isolation_level = 0, .session_id = 0, .session_epoch = -1,
                             .topics = &topic, .topic_count = 1, .rack_id = harness_str("")};
    static const uint8_t golden[] = {
        0x00, 0x00, 0x00, 0x01,             /* replica_id 1 */
        0x00, 0x00, 0x01, 0xf4,             /* max_wait_ms 500 */
        0x00, 0x00, 0x00, 0x01,             /* min_bytes 1 */
        0x00, 0x10, 0x00, 0x00,             /* max_bytes (v3+) */
        0x00,                               /* isolation_level (v4+) */
        0x00, 0x00, 0x00, 0x01,             /* topics: int32 count 1 */
        0x00, 0x12, META_NAME_BYTES,        /* topic: int16 length 18 + name */
        0x00, 0x00, 0x00, 0x01,             /* partitions: count 1 */
        0x00, 0x00, 0x00, 0x00,             /* partition 0 */
        0, 0, 0, 0, 0, 0, 0, 0x2a,          /* fetch_offset 42 */
        0x00, 0x01, 0x00, 0x00,             /* partition_max_bytes 65536 */
    };
    harness_check_golden(api.request, 4, &in, golden, sizeof golden, check_request_any);
}

static void test_request_golden_v17(void **state)
{
    (void)state;
    wire_fetch_partition part = {.partition = 0, .current_leader_epoch = 3, .fetch_offset = 42,
                                 .last_fetched_epoch = 2, .log_start_offset = 0,
                                 .partition_max_bytes = 0x10000,
                                 .replica_directory_id = dir_id};
    wire_fetch_topic topic = {.topic_id = WIRE_METADATA_TOPIC_ID, .partitions = &part,
                              .partition_count = 1};
    wire_fetch_request in = {.cluster_id = harness_str("c1"), .replica_id = 2,
                             .replica_epoch = 5, .max_wait_ms = 500, .min_bytes = 1,
                             .max_bytes = 0x100000, .isolation_level = 0, .session_id = 0,
                             .session_epoch = -1, .topics = &topic, .topic_count = 1,
                             .rack_id = harness_str("")};
    static const uint8_t golden[] = {
        /* no replica_id field from v15 */
        0x00, 0x00, 0x01, 0xf4,             /* max_wait_ms 500 */
        0x00, 0x00, 0x00, 0x01,             /* min_bytes 1 */
        0x00, 0x10, 0x00, 0x00,             /* max_bytes */
        0x00,                               /* isolation_level */
        0x00, 0x00, 0x00, 0x00,             /* session_id 0 */
        0xff, 0xff, 0xff, 0xff,             /* session_epoch -1 */
        0x02,                               /* topics: compact count 1 */
        META_ID_BYTES,                      /* topic_id (v13+) */
        0x02,                               /* partitions: compact count 1 */
        0x00, 0x00, 0x00, 0x00,             /* partition 0 */
        0x00, 0x00, 0x00, 0x03,             /* current_leader_epoch 3 */
        0, 0, 0, 0, 0, 0, 0, 0x2a,          /* fetch_offset 42 */
        0x00, 0x00, 0x00, 0x02,             /* last_fetched_epoch 2 */
        0, 0, 0, 0, 0, 0, 0, 0,             /* log_start_offset 0 */
        0x00, 0x01, 0x00, 0x00,             /* partition_max_bytes */
        0x01, 0x00, 0x10,                   /* 1 tag: tag 0 ReplicaDirectoryId, size 16 */
        0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
        0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
        0x00,                               /* topic tagged fields: none */
        0x01,                               /* forgotten_topics_data: empty */
        0x01,                               /* rack_id "" */
        0x02,                               /* 2 top-level tags */
        0x00, 0x03, 0x03, 'c', '1',         /* tag 0 ClusterId, size 3: compact "c1" */
        0x01, 0x0d,                         /* tag 1 ReplicaState, size 13 */
        0x00, 0x00, 0x00, 0x02,             /*   replica_id 2 */
        0, 0, 0, 0, 0, 0, 0, 0x05,          /*   replica_epoch 5 */
        0x00,                               /*   struct tagged fields: none */
    };
    harness_check_golden(api.request, 17, &in, golden, sizeof golden, check_request_any);
}

/* v18 (KIP-1166): FetchPartition's HighWatermark, tag 1, after the
 * directory id's tag 0; -1 (a follower that knows none) is written, and a
 * partition that does not set it (a consumer's) leaves it off. */
static void test_request_golden_v18_high_watermark(void **state)
{
    (void)state;
    wire_fetch_partition part = {.partition = 0, .current_leader_epoch = 3, .fetch_offset = 42,
                                 .last_fetched_epoch = 2, .log_start_offset = -1,
                                 .partition_max_bytes = 0x10000,
                                 .replica_directory_id = dir_id,
                                 .has_high_watermark = true, .high_watermark = 40};
    wire_fetch_topic topic = {.topic_id = WIRE_METADATA_TOPIC_ID, .partitions = &part,
                              .partition_count = 1};
    wire_fetch_request in = {.replica_id = -1, .replica_epoch = -1, .max_wait_ms = 500,
                             .min_bytes = 0, .max_bytes = 0x100000, .session_epoch = -1,
                             .topics = &topic, .topic_count = 1, .rack_id = harness_str("")};
    static const uint8_t golden[] = {
        0x00, 0x00, 0x01, 0xf4,             /* max_wait_ms 500 */
        0x00, 0x00, 0x00, 0x00,             /* min_bytes 0 */
        0x00, 0x10, 0x00, 0x00,             /* max_bytes */
        0x00,                               /* isolation_level */
        0x00, 0x00, 0x00, 0x00,             /* session_id 0 */
        0xff, 0xff, 0xff, 0xff,             /* session_epoch -1 */
        0x02,                               /* topics: compact count 1 */
        META_ID_BYTES,                      /* topic_id */
        0x02,                               /* partitions: compact count 1 */
        0x00, 0x00, 0x00, 0x00,             /* partition 0 */
        0x00, 0x00, 0x00, 0x03,             /* current_leader_epoch 3 */
        0, 0, 0, 0, 0, 0, 0, 0x2a,          /* fetch_offset 42 */
        0x00, 0x00, 0x00, 0x02,             /* last_fetched_epoch 2 */
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, /* log_start_offset -1 */
        0x00, 0x01, 0x00, 0x00,             /* partition_max_bytes */
        0x02,                               /* 2 tags */
        0x00, 0x10,                         /* tag 0 ReplicaDirectoryId, size 16 */
        0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
        0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
        0x01, 0x08,                         /* tag 1 HighWatermark, size 8 */
        0, 0, 0, 0, 0, 0, 0, 0x28,          /*   40 */
        0x00,                               /* topic tagged fields: none */
        0x01,                               /* forgotten_topics_data: empty */
        0x01,                               /* rack_id "" */
        0x00,                               /* no top-level tags */
    };
    harness_check_golden(api.request, 18, &in, golden, sizeof golden, check_request_any);

    /* -1 is not the default: written. Not set: nothing, and it reads as
     * INT64_MAX (Kafka's default: "the feature is not supported"). */
    kq_arena arena;
    kq_arena_init(&arena, 1 << 20);
    wire_fetch_request out;
    kq_writer w;
    part.high_watermark = -1;
    harness_encode(&wire_fetch_request_codec, 18, &in, &w);
    harness_decode_ok(&wire_fetch_request_codec, 18, w.data, w.len, &arena, &out);
    assert_true(out.topics[0].partitions[0].has_high_watermark);
    assert_int_equal(out.topics[0].partitions[0].high_watermark, -1);
    size_t with_hw = w.len;
    kq_writer_free(&w);
    part.has_high_watermark = false;
    harness_encode(&wire_fetch_request_codec, 18, &in, &w);
    assert_int_equal(w.len, with_hw - 10); /* tag, size, 8 bytes */
    harness_decode_ok(&wire_fetch_request_codec, 18, w.data, w.len, &arena, &out);
    assert_false(out.topics[0].partitions[0].has_high_watermark);
    assert_int_equal(out.topics[0].partitions[0].high_watermark, INT64_MAX);
    kq_writer_free(&w);
    kq_arena_free(&arena);
}

static void test_response_golden_v4(void **state)
{
    (void)state;
    static const uint8_t recs[] = {0xaa, 0xbb, 0xcc};
    wire_fetch_aborted_transaction txn = {7, 3};
    wire_fetch_partition_data part = {
        .partition_index = 0, .error_code = 0, .high_watermark = 10, .last_stable_offset = 10,
        .log_start_offset = -1, .diverging_epoch = {-1, -1}, .current_leader = {-1, -1},
        .snapshot_id = {-1, -1}, .aborted_transactions = &txn, .aborted_transaction_count = 1,
        .preferred_read_replica = -1, .records = {recs, 3}};
    wire_fetch_topic_response topic = {.topic = harness_str(WIRE_METADATA_TOPIC_NAME),
                                       .partitions = &part, .partition_count = 1};
    wire_fetch_response in = {.throttle_time_ms = 0, .responses = &topic, .response_count = 1};
    static const uint8_t golden[] = {
        0x00, 0x00, 0x00, 0x00,             /* throttle_time_ms 0 */
        0x00, 0x00, 0x00, 0x01,             /* responses: count 1 */
        0x00, 0x12, META_NAME_BYTES,        /* topic */
        0x00, 0x00, 0x00, 0x01,             /* partitions: count 1 */
        0x00, 0x00, 0x00, 0x00,             /* partition_index 0 */
        0x00, 0x00,                         /* error_code 0 */
        0, 0, 0, 0, 0, 0, 0, 0x0a,          /* high_watermark 10 */
        0, 0, 0, 0, 0, 0, 0, 0x0a,          /* last_stable_offset 10 (v4+) */
        0x00, 0x00, 0x00, 0x01,             /* aborted_transactions: count 1 */
        0, 0, 0, 0, 0, 0, 0, 0x07,          /*   producer_id 7 */
        0, 0, 0, 0, 0, 0, 0, 0x03,          /*   first_offset 3 */
        0x00, 0x00, 0x00, 0x03,             /* records: int32 length 3 */
        0xaa, 0xbb, 0xcc,
    };
    harness_check_golden(api.response, 4, &in, golden, sizeof golden, check_response_any);
}

static void test_response_golden_v17(void **state)
{
    (void)state;
    wire_fetch_partition_data part = {
        .partition_index = 0, .error_code = 6, .high_watermark = 10, .last_stable_offset = 10,
        .log_start_offset = 0, .has_diverging_epoch = true, .diverging_epoch = {4, 8},
        .has_current_leader = true, .current_leader = {2, 5}, .snapshot_id = {-1, -1},
        .aborted_transaction_count = -1, .preferred_read_replica = -1, .records = HARNESS_NULL};
    wire_fetch_topic_response topic = {.topic_id = WIRE_METADATA_TOPIC_ID, .partitions = &part,
                                       .partition_count = 1};
    wire_fetch_node_endpoint ep = {2, harness_str("h2"), 9092, HARNESS_NULL};
    wire_fetch_response in = {.responses = &topic, .response_count = 1, .node_endpoints = &ep,
                              .node_endpoint_count = 1};
    static const uint8_t golden[] = {
        0x00, 0x00, 0x00, 0x00,             /* throttle_time_ms 0 */
        0x00, 0x00,                         /* error_code 0 (v7+) */
        0x00, 0x00, 0x00, 0x00,             /* session_id 0 (v7+) */
        0x02,                               /* responses: compact count 1 */
        META_ID_BYTES,                      /* topic_id */
        0x02,                               /* partitions: compact count 1 */
        0x00, 0x00, 0x00, 0x00,             /* partition_index 0 */
        0x00, 0x06,                         /* error_code 6 NOT_LEADER_OR_FOLLOWER */
        0, 0, 0, 0, 0, 0, 0, 0x0a,          /* high_watermark 10 */
        0, 0, 0, 0, 0, 0, 0, 0x0a,          /* last_stable_offset 10 */
        0, 0, 0, 0, 0, 0, 0, 0,             /* log_start_offset 0 (v5+) */
        0x00,                               /* aborted_transactions: null */
        0xff, 0xff, 0xff, 0xff,             /* preferred_read_replica -1 (v11+) */
        0x00,                               /* records: null */
        0x02,                               /* 2 partition tags */
        0x00, 0x0d,                         /* tag 0 DivergingEpoch, size 13 */
        0x00, 0x00, 0x00, 0x04,             /*   epoch 4 */
        0, 0, 0, 0, 0, 0, 0, 0x08,          /*   end_offset 8 */
        0x00,                               /*   no tags */
        0x01, 0x09,                         /* tag 1 CurrentLeader, size 9 */
        0x00, 0x00, 0x00, 0x02,             /*   leader_id 2 */
        0x00, 0x00, 0x00, 0x05,             /*   leader_epoch 5 */
        0x00,                               /*   no tags */
        0x00,                               /* topic tags: none */
        0x01,                               /* 1 top-level tag */
        0x00, 0x0e,                         /* tag 0 NodeEndpoints, size 14 */
        0x02,                               /*   compact count 1 */
        0x00, 0x00, 0x00, 0x02,             /*   node_id 2 */
        0x03, 'h', '2',                     /*   host "h2" */
        0x00, 0x00, 0x23, 0x84,             /*   port 9092 (int32) */
        0x00,                               /*   rack null */
        0x00,                               /*   no tags */
    };
    harness_check_golden(api.response, 17, &in, golden, sizeof golden, check_response_any);
}

static void test_unknown_tags_skipped(void **state)
{
    (void)state;
    /* minimal v12 request with an unknown top-level tag 9 appended */
    wire_fetch_request in = {.replica_id = 4, .replica_epoch = -1, .session_epoch = -1,
                             .rack_id = harness_str("")};
    kq_writer w;
    harness_encode(&wire_fetch_request_codec, 12, &in, &w);
    assert_int_equal(w.data[w.len - 1], 0x00); /* empty tag section */
    uint8_t buf[128];
    assert_true(w.len + 4 <= sizeof buf);
    memcpy(buf, w.data, w.len - 1);
    size_t n = w.len - 1;
    buf[n++] = 0x01; /* one tag */
    buf[n++] = 0x09; /* tag 9 (unknown) */
    buf[n++] = 0x02; /* size 2 */
    buf[n++] = 0xab;
    buf[n++] = 0xcd;
    kq_arena arena;
    kq_arena_init(&arena, 1 << 20);
    wire_fetch_request out;
    harness_decode_ok(&wire_fetch_request_codec, 12, buf, n, &arena, &out);
    assert_int_equal(out.replica_id, 4);
    harness_assert_null(out.cluster_id);
    kq_arena_free(&arena);
    kq_writer_free(&w);
}

static void test_huge_counts_rejected(void **state)
{
    (void)state;
    /* v4 response claiming 0x7fffffff topics in a tiny buffer */
    static const uint8_t bad[] = {0, 0, 0, 0, 0x7f, 0xff, 0xff, 0xff, 0, 0};
    kq_arena arena;
    kq_arena_init(&arena, 1 << 16);
    wire_fetch_response out;
    kq_reader r;
    kq_reader_init(&r, bad, sizeof bad);
    assert_int_equal(wire_fetch_response_decode(&r, 4, &arena, &out), -1);
    /* a null (-1) topics array is not allowed */
    static const uint8_t null_topics[] = {0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
    kq_reader_init(&r, null_topics, sizeof null_topics);
    assert_int_equal(wire_fetch_response_decode(&r, 4, &arena, &out), -1);
    kq_arena_free(&arena);
}

static void test_bad_versions(void **state)
{
    (void)state;
    build_sample_request();
    build_sample_response();
    harness_api_bad_versions(&api, &sample_req, &sample_resp);
}

static void test_garbage(void **state)
{
    (void)state;
    build_sample_request();
    build_sample_response();
    harness_api_garbage(&api, &sample_req, &sample_resp, 10000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_metadata_topic_id),
        cmocka_unit_test(test_request_round_trip_all_versions),
        cmocka_unit_test(test_request_replica_state_defaults),
        cmocka_unit_test(test_response_round_trip_all_versions),
        cmocka_unit_test(test_response_records_external),
        cmocka_unit_test(test_request_golden_v4),
        cmocka_unit_test(test_request_golden_v17),
        cmocka_unit_test(test_request_golden_v18_high_watermark),
        cmocka_unit_test(test_response_golden_v4),
        cmocka_unit_test(test_response_golden_v17),
        cmocka_unit_test(test_unknown_tags_skipped),
        cmocka_unit_test(test_huge_counts_rejected),
        cmocka_unit_test(test_bad_versions),
        cmocka_unit_test(test_garbage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
