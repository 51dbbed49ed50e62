/* Consumer Fetch (committed data only, long polling) and ListOffsets. */
#include "handler_test_node.h"

#include "kq/wire_fetch.h"
#include "kq/wire_list_offsets.h"
#include "kq/wire_produce.h"

#define META "__cluster_metadata"

static void produce(tn_node *n, tn_slot *slot, int16_t acks, int count, const char *tag)
{
    kq_writer b;
    tn_batch(&b, -1, -1, -1, count, tag);
    wire_produce_partition p = {.index = 0, .records = {b.data, (int32_t)b.len}};
    wire_produce_topic t = {.name = kq_slice_cstr(META), .partitions = &p, .partition_count = 1};
    wire_produce_request req = {.transactional_id = {NULL, -1}, .acks = acks,
                                .timeout_ms = 30000, .topics = &t, .topic_count = 1};
    TN_SEND(n, slot, WIRE_API_PRODUCE, 9, 1, wire_produce_request_encode, &req);
    kq_writer_free(&b);
}

typedef struct fetch_args {
    int16_t version;
    const char *topic;   /* by name (v < 13) */
    kq_uuid topic_id;    /* by id (v13+) */
    int32_t partition;
    int64_t offset;
    int32_t max_wait_ms;
    int32_t min_bytes;
    bool send_hw; /* v18: a HighWatermark tag (KIP-1166), for replicas only */
    int64_t hw;
} fetch_args;

static void fetch(tn_node *n, tn_slot *slot, int32_t corr, const fetch_args *a)
{
    wire_fetch_partition p = {.partition = a->partition, .current_leader_epoch = -1,
                              .fetch_offset = a->offset, .last_fetched_epoch = -1,
                              .log_start_offset = -1, .partition_max_bytes = 1 << 20,
                              .has_high_watermark = a->send_hw, .high_watermark = a->hw};
    wire_fetch_topic t = {.topic = a->version < 13 ? kq_slice_cstr(a->topic) : (kq_slice){NULL, -1},
                          .topic_id = a->topic_id, .partitions = &p, .partition_count = 1};
    wire_fetch_request req = {.cluster_id = {NULL, -1}, .replica_id = -1, .replica_epoch = -1,
                              .max_wait_ms = a->max_wait_ms, .min_bytes = a->min_bytes,
                              .max_bytes = 1 << 20, .session_epoch = -1, .topics = &t,
                              .topic_count = 1, .rack_id = kq_slice_cstr("")};
    TN_SEND(n, slot, WIRE_API_FETCH, a->version, corr, wire_fetch_request_encode, &req);
}

/* The single partition of the slot's latest Fetch response. */
static wire_fetch_partition_data fetch_result(tn_node *n, tn_slot *slot, int16_t v, int32_t corr,
                                              wire_fetch_topic_response *topic_out)
{
    wire_fetch_response resp;
    TN_DECODE(n, slot, WIRE_API_FETCH, v, corr, wire_fetch_response_decode, &resp);
    assert_int_equal(resp.error_code, KAFKA_NONE);
    assert_int_equal(resp.response_count, 1);
    assert_int_equal(resp.responses[0].partition_count, 1);
    if (topic_out)
        *topic_out = resp.responses[0];
    return resp.responses[0].partitions[0];
}

/* Base offsets of the batches in records (at most max). */
static int batch_bases(kq_slice records, int64_t *bases, int max)
{
    int count = 0;
    size_t pos = 0;
    while (pos < (size_t)records.len) {
        record_batch_header h;
        assert_int_equal(record_batch_check(records.ptr + pos, (size_t)records.len - pos, &h),
                         RECORD_OK);
        assert_true(count < max);
        bases[count++] = h.base_offset;
        pos += record_batch_size(&h);
    }
    return count;
}

static const fetch_args by_name = {.version = 11, .topic = META, .partition = 0, .min_bytes = 1};

static void test_only_committed_batches_returned(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {1}, p = {2};
    int64_t bases[8];

    fetch_args a = by_name;
    fetch(&n, &s, 1, &a); /* the LeaderChange batch only */
    wire_fetch_partition_data pd = fetch_result(&n, &s, 11, 1, NULL);
    assert_int_equal(pd.error_code, KAFKA_NONE);
    assert_int_equal(pd.high_watermark, 1);
    assert_int_equal(batch_bases(pd.records, bases, 8), 1);
    assert_int_equal(bases[0], 0);

    produce(&n, &p, 1, 2, "fetched");
    assert_int_equal(kq_log_end_offset(n.log), 3);
    a.offset = 1;
    fetch(&n, &s, 2, &a); /* appended, not flushed: above the HW */
    pd = fetch_result(&n, &s, 11, 2, NULL);
    assert_int_equal(pd.error_code, KAFKA_NONE);
    assert_int_equal(pd.high_watermark, 1);
    assert_int_equal(pd.records.len, 0);
    a.offset = 0;
    fetch(&n, &s, 3, &a);
    pd = fetch_result(&n, &s, 11, 3, NULL);
    assert_int_equal(batch_bases(pd.records, bases, 8), 1);

    tn_flush(&n);
    a.offset = 1;
    fetch(&n, &s, 4, &a);
    pd = fetch_result(&n, &s, 11, 4, NULL);
    assert_int_equal(pd.error_code, KAFKA_NONE);
    assert_int_equal(pd.high_watermark, 3);
    assert_int_equal(pd.last_stable_offset, 3);
    assert_int_equal(pd.log_start_offset, 0);
    assert_int_equal(batch_bases(pd.records, bases, 8), 1);
    assert_int_equal(bases[0], 1);
    tn_assert_record_value(pd.records.ptr, (size_t)pd.records.len, 1, "fetched-1");
    tn_close(&n);
}

/* A single-voter leader whose log holds its LeaderChange batch and two
 * produced batches of two records, all flushed (HW 5). */
static void open_leader_with_two_batches(tn_node *n)
{
    tn_slot p = {2};
    tn_open_leader(n);
    produce(n, &p, 1, 2, "a");
    produce(n, &p, 1, 2, "b");
    tn_flush(n);
}

/* The response budget (kq/budget.h) grants less: the answer holds fewer
 * batches, or none, never an error (issue 19 item 3). */
static void test_fetch_holds_what_the_budget_grants(void **state)
{
    (void)state;
    tn_node n;
    tn_slot s = {1};
    int64_t bases[8];
    open_leader_with_two_batches(&n);
    fetch_args a = by_name;
    fetch(&n, &s, 1, &a);
    wire_fetch_partition_data pd = fetch_result(&n, &s, 11, 1, NULL);
    assert_int_equal(batch_bases(pd.records, bases, 8), 3);
    record_batch_header h;
    assert_int_equal(record_batch_check(pd.records.ptr, (size_t)pd.records.len, &h), RECORD_OK);
    size_t first = record_batch_size(&h);

    n.grant_set = true;
    n.grant_bytes = 0;
    fetch(&n, &s, 2, &a); /* max_wait 0: answered at once, empty */
    pd = fetch_result(&n, &s, 11, 2, NULL);
    assert_int_equal(pd.error_code, KAFKA_NONE);
    assert_int_equal(pd.records.len, 0);
    assert_int_equal(pd.high_watermark, 5);

    n.grant_bytes = first;
    fetch(&n, &s, 3, &a);
    pd = fetch_result(&n, &s, 11, 3, NULL);
    assert_int_equal(pd.error_code, KAFKA_NONE);
    assert_int_equal(batch_bases(pd.records, bases, 8), 1);
    assert_int_equal(bases[0], 0);

    n.grant_set = false;
    a.offset = 1;
    fetch(&n, &s, 4, &a);
    pd = fetch_result(&n, &s, 11, 4, NULL);
    assert_int_equal(batch_bases(pd.records, bases, 8), 2);
    tn_close(&n);
}

static void test_long_poll_answered_when_hw_moves(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {1}, p = {2};
    fetch_args a = by_name;
    a.offset = 1;
    a.max_wait_ms = 500;
    fetch(&n, &s, 10, &a);
    assert_int_equal(tn_count(&n, &s), 0);
    assert_int_equal(handler_next_deadline(n.h), n.now + 500);
    handler_on_progress(n.h);
    assert_int_equal(tn_count(&n, &s), 0);

    produce(&n, &p, 1, 1, "wake");
    assert_int_equal(tn_count(&n, &s), 0); /* appended is not committed */
    tn_flush(&n);
    assert_int_equal(tn_count(&n, &s), 1);
    int64_t bases[4];
    wire_fetch_partition_data pd = fetch_result(&n, &s, 11, 10, NULL);
    assert_int_equal(pd.high_watermark, 2);
    assert_int_equal(batch_bases(pd.records, bases, 4), 1);
    assert_int_equal(bases[0], 1);
    assert_int_equal(handler_next_deadline(n.h), INT64_MAX);
    tn_close(&n);
}

static void test_long_poll_expires_empty(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {1};
    fetch_args a = by_name;
    a.offset = 1;
    a.max_wait_ms = 500;
    int64_t t0 = n.now;
    fetch(&n, &s, 20, &a);
    tn_tick(&n, t0 + 499);
    assert_int_equal(tn_count(&n, &s), 0);
    tn_tick(&n, t0 + 500);
    assert_int_equal(tn_count(&n, &s), 1);
    wire_fetch_partition_data pd = fetch_result(&n, &s, 11, 20, NULL);
    assert_int_equal(pd.error_code, KAFKA_NONE);
    assert_int_equal(pd.high_watermark, 1);
    assert_int_equal(pd.records.len, 0);
    tn_tick(&n, t0 + 5000);
    assert_int_equal(tn_count(&n, &s), 1); /* answered once */

    /* max_wait 0 (or min_bytes 0) is answered at once */
    tn_slot s2 = {2};
    a.max_wait_ms = 0;
    fetch(&n, &s2, 21, &a);
    assert_int_equal(tn_count(&n, &s2), 1);
    tn_close(&n);
}

static void test_offset_out_of_range_and_unknown_topic(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {1};
    fetch_args a = by_name;
    a.offset = 2; /* the log ends at 1 */
    a.max_wait_ms = 500;
    fetch(&n, &s, 30, &a);
    assert_int_equal(tn_count(&n, &s), 1); /* errors are never parked */
    wire_fetch_partition_data pd = fetch_result(&n, &s, 11, 30, NULL);
    assert_int_equal(pd.error_code, KAFKA_OFFSET_OUT_OF_RANGE);
    assert_int_equal(pd.records.len, 0);

    a.offset = 0;
    a.topic = "nope";
    wire_fetch_topic_response tr;
    fetch(&n, &s, 31, &a);
    pd = fetch_result(&n, &s, 11, 31, &tr);
    assert_true(kq_slice_eq_cstr(tr.topic, "nope"));
    assert_int_equal(pd.error_code, KAFKA_UNKNOWN_TOPIC_OR_PARTITION);

    a.topic = META;
    a.partition = 1;
    fetch(&n, &s, 32, &a);
    pd = fetch_result(&n, &s, 11, 32, NULL);
    assert_int_equal(pd.partition_index, 1);
    assert_int_equal(pd.error_code, KAFKA_UNKNOWN_TOPIC_OR_PARTITION);
    tn_close(&n);
}

static void test_fetch_by_topic_id(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {1};
    fetch_args a = {.version = 13, .topic_id = WIRE_METADATA_TOPIC_ID, .min_bytes = 1};
    wire_fetch_topic_response tr;
    int64_t bases[4];
    fetch(&n, &s, 40, &a);
    wire_fetch_partition_data pd = fetch_result(&n, &s, 13, 40, &tr);
    assert_memory_equal(tr.topic_id.bytes, WIRE_METADATA_TOPIC_ID.bytes, 16);
    assert_int_equal(pd.error_code, KAFKA_NONE);
    assert_int_equal(batch_bases(pd.records, bases, 4), 1);
    assert_int_equal(bases[0], 0);

    a.version = 16;
    a.topic_id.bytes[0] = 0x42; /* some other topic */
    fetch(&n, &s, 41, &a);
    pd = fetch_result(&n, &s, 16, 41, &tr);
    assert_int_equal(tr.topic_id.bytes[0], 0x42);
    assert_int_equal(pd.error_code, KAFKA_UNKNOWN_TOPIC_OR_PARTITION);
    assert_int_equal(pd.records.len, 0);
    tn_close(&n);
}

/* A replica's Fetch is bounded by the request's MaxBytes, as
 * KafkaRaftClient.handleFetchRequest reads it: Kafka's followers send
 * PartitionMaxBytes 0 (RaftUtil.singletonFetchRequest), and still get every
 * flushed batch, not one per round trip. */
static void test_replica_fetch_bounded_by_request_max_bytes(void **state)
{
    (void)state;
    tn_node n;
    tn_slot s = {1};
    int64_t bases[8];
    open_leader_with_two_batches(&n);
    wire_fetch_partition fp = {.partition = 0, .current_leader_epoch = 1, .fetch_offset = 0,
                               .last_fetched_epoch = 0, .log_start_offset = -1,
                               .partition_max_bytes = 0};
    wire_fetch_topic t = {.topic_id = WIRE_METADATA_TOPIC_ID, .partitions = &fp,
                          .partition_count = 1};
    wire_fetch_request req = {.cluster_id = kq_slice_cstr(TN_CLUSTER_ID), .replica_id = 5,
                              .replica_epoch = -1, .max_wait_ms = 0, .max_bytes = 1 << 20,
                              .session_epoch = -1, .topics = &t, .topic_count = 1,
                              .rack_id = kq_slice_cstr("")};
    TN_SEND(&n, &s, WIRE_API_FETCH, 17, 60, wire_fetch_request_encode, &req);
    wire_fetch_partition_data pd = fetch_result(&n, &s, 17, 60, NULL);
    assert_int_equal(pd.error_code, KAFKA_NONE);
    assert_int_equal(batch_bases(pd.records, bases, 8), 3); /* LeaderChange, a, b */
    tn_close(&n);
}

/* Fetch v18 (KIP-1166) from a consumer: answered as v17; the replica-only
 * HighWatermark, sent or not, changes nothing for it. */
static void test_consumer_fetch_v18(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {1};
    int64_t bases[4];
    for (int sent = 0; sent < 2; sent++) {
        fetch_args a = {.version = 18, .topic_id = WIRE_METADATA_TOPIC_ID, .min_bytes = 1,
                        .max_wait_ms = 500, .send_hw = sent, .hw = -1};
        fetch(&n, &s, 50 + sent, &a);
        wire_fetch_partition_data pd = fetch_result(&n, &s, 18, 50 + sent, NULL);
        assert_int_equal(pd.error_code, KAFKA_NONE);
        assert_int_equal(batch_bases(pd.records, bases, 4), 1);
        assert_int_equal(bases[0], 0);
    }
    tn_close(&n);
}

static wire_list_offsets_partition_response list_offsets(tn_node *n, tn_slot *s, int16_t v,
                                                         int32_t corr, int64_t timestamp)
{
    wire_list_offsets_partition p = {.partition_index = 0, .current_leader_epoch = -1,
                                     .timestamp = timestamp, .max_num_offsets = 1};
    wire_list_offsets_topic t = {kq_slice_cstr(META), &p, 1};
    wire_list_offsets_request req = {.replica_id = -1, .topics = &t, .topic_count = 1};
    TN_SEND(n, s, WIRE_API_LIST_OFFSETS, v, corr, wire_list_offsets_request_encode, &req);
    wire_list_offsets_response resp;
    TN_DECODE(n, s, WIRE_API_LIST_OFFSETS, v, corr, wire_list_offsets_response_decode, &resp);
    assert_int_equal(resp.topic_count, 1);
    assert_true(kq_slice_eq_cstr(resp.topics[0].name, META));
    assert_int_equal(resp.topics[0].partition_count, 1);
    return resp.topics[0].partitions[0];
}

static void test_list_offsets(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {1}, p = {2};
    produce(&n, &p, 1, 2, "lo");
    tn_flush(&n);
    produce(&n, &p, 1, 3, "lo2"); /* appended, not committed */
    assert_int_equal(kq_log_end_offset(n.log), 6);
    assert_int_equal(tn_status(&n).high_watermark, 3);

    wire_list_offsets_partition_response pr = list_offsets(&n, &s, 1, 50, -2);
    assert_int_equal(pr.error_code, KAFKA_NONE);
    assert_int_equal(pr.offset, 0);
    pr = list_offsets(&n, &s, 1, 51, -1);
    assert_int_equal(pr.error_code, KAFKA_NONE);
    assert_int_equal(pr.offset, 3); /* the HW, not the log end */

    pr = list_offsets(&n, &s, 0, 52, -1);
    assert_int_equal(pr.error_code, KAFKA_NONE);
    assert_int_equal(pr.old_style_offset_count, 1);
    assert_int_equal(pr.old_style_offsets[0], 3);
    pr = list_offsets(&n, &s, 0, 53, -2);
    assert_int_equal(pr.old_style_offset_count, 1);
    assert_int_equal(pr.old_style_offsets[0], 0);

    tn_flush(&n);
    pr = list_offsets(&n, &s, 4, 54, -1);
    assert_int_equal(pr.offset, 6);
    assert_int_equal(pr.leader_epoch, tn_status(&n).epoch);
    tn_close(&n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_only_committed_batches_returned),
        cmocka_unit_test(test_fetch_holds_what_the_budget_grants),
        cmocka_unit_test(test_long_poll_answered_when_hw_moves),
        cmocka_unit_test(test_long_poll_expires_empty),
        cmocka_unit_test(test_offset_out_of_range_and_unknown_topic),
        cmocka_unit_test(test_fetch_by_topic_id),
        cmocka_unit_test(test_consumer_fetch_v18),
        cmocka_unit_test(test_replica_fetch_bounded_by_request_max_bytes),
        cmocka_unit_test(test_list_offsets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
