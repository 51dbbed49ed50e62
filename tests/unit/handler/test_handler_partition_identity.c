/* Issue 22 items 1 and 4: the replicated partition is configurable
 * (quorum.topic.name, quorum.topic.id) and, when it is one Kafka's Raft
 * nodes may replicate beside ours (produce.raft.record.check), a Produce
 * whose records Kafka's Raft reader would refuse
 * (RecordsDecodingStrategy.readRecord / decodeDataRecord) is answered
 * INVALID_RECORD with the reason and never appended. */
#include "handler_test_node.h"

#include "kq/wire_describe_quorum.h"
#include "kq/wire_fetch.h"
#include "kq/wire_metadata.h"
#include "kq/wire_produce.h"
#include "kq/wire_vote.h"

#define PERF "__raft_performance_test"
#define META "__cluster_metadata"

static const kq_uuid perf_id = {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}};

static void perf_identity(exec_config *c)
{
    c->topic_name = PERF;
    c->topic_id = perf_id;
    c->raft_record_check = true;
}

/* One batch of count records, each shaped by kind; its timestamps are
 * base + i * ts_step. */
enum shape { SHAPE_OK, SHAPE_KEY, SHAPE_HEADER, SHAPE_EMPTY_VALUE, SHAPE_NULL_VALUE, SHAPE_TS };

static void append_batch(kq_writer *w, enum shape kind)
{
    record recs[2];
    record_header_kv hdr = {kq_slice_cstr("h"), kq_slice_cstr("v")};
    for (int i = 0; i < 2; i++) {
        recs[i] = (record){.offset = i, .timestamp = 1600000000000, .key = {NULL, -1},
                           .value = kq_slice_cstr("value")};
        if (i == 1) { /* the second record carries the flaw */
            if (kind == SHAPE_KEY)
                recs[i].key = kq_slice_cstr("k");
            else if (kind == SHAPE_HEADER) {
                recs[i].headers = &hdr;
                recs[i].header_count = 1;
            } else if (kind == SHAPE_EMPTY_VALUE)
                recs[i].value = kq_slice_cstr("");
            else if (kind == SHAPE_NULL_VALUE)
                recs[i].value = (kq_slice){NULL, -1};
            else if (kind == SHAPE_TS)
                recs[i].timestamp = 1600000000001;
        }
    }
    record_batch_builder_args a = {.producer_id = -1, .producer_epoch = -1,
                                   .base_sequence = -1, .base_timestamp = 1600000000000,
                                   .records = recs, .record_count = 2};
    assert_true(record_batch_build(w, &a));
}

static wire_produce_partition_response produce(tn_node *n, int16_t v, int32_t corr,
                                               const char *topic, const kq_writer *records)
{
    tn_slot s = {1};
    wire_produce_partition p = {.index = 0, .records = {records->data, (int32_t)records->len}};
    wire_produce_topic t = {.name = kq_slice_cstr(topic), .partitions = &p, .partition_count = 1};
    wire_produce_request req = {.transactional_id = {NULL, -1}, .acks = 1, .timeout_ms = 30000,
                                .topics = &t, .topic_count = 1};
    TN_SEND(n, &s, WIRE_API_PRODUCE, v, corr, wire_produce_request_encode, &req);
    tn_flush(n);
    wire_produce_response resp;
    TN_DECODE(n, &s, WIRE_API_PRODUCE, v, corr, wire_produce_response_decode, &resp);
    assert_int_equal(resp.topic_count, 1);
    assert_int_equal(resp.topics[0].partition_count, 1);
    return resp.topics[0].partitions[0];
}

/* Every flaw Kafka's reader refuses, in the second record of a good batch
 * after a good one: refused whole with its reason; a good Produce is taken. */
static void test_record_shape_refused(void **state)
{
    (void)state;
    tn_config_hook = perf_identity;
    tn_node n;
    tn_open_leader(&n);
    static const char *const words[] = {NULL, "key", "headers", "value", "value", "timestamp"};
    int32_t corr = 10;
    for (int k = SHAPE_KEY; k <= SHAPE_TS; k++) {
        kq_writer w;
        kq_writer_init(&w, 0);
        append_batch(&w, SHAPE_OK);
        append_batch(&w, (enum shape)k);
        wire_produce_partition_response pr = produce(&n, 9, ++corr, PERF, &w);
        assert_int_equal(pr.error_code, KAFKA_INVALID_RECORD);
        assert_true(pr.error_message.len > 0);
        char msg[256];
        snprintf(msg, sizeof msg, "%.*s", (int)pr.error_message.len, (const char *)pr.error_message.ptr);
        assert_non_null(strstr(msg, words[k]));
        assert_non_null(strstr(msg, "Kafka's Raft reader"));
        assert_int_equal(kq_log_end_offset(n.log), 1); /* nothing appended */
        kq_writer_free(&w);
    }
    kq_writer w;
    kq_writer_init(&w, 0);
    append_batch(&w, SHAPE_OK);
    wire_produce_partition_response pr = produce(&n, 9, ++corr, PERF, &w);
    assert_int_equal(pr.error_code, KAFKA_NONE);
    assert_int_equal(kq_log_end_offset(n.log), 3);
    /* The old name is no longer ours. */
    pr = produce(&n, 9, ++corr, META, &w);
    assert_int_equal(pr.error_code, KAFKA_UNKNOWN_TOPIC_OR_PARTITION);
    kq_writer_free(&w);
    tn_close(&n);
    tn_config_hook = NULL;
}

/* The default identity keeps today's behaviour: any record shape is taken. */
static void test_default_identity_takes_any_shape(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    kq_writer w;
    kq_writer_init(&w, 0);
    append_batch(&w, SHAPE_KEY);
    append_batch(&w, SHAPE_TS);
    wire_produce_partition_response pr = produce(&n, 9, 5, META, &w);
    assert_int_equal(pr.error_code, KAFKA_NONE);
    assert_int_equal(kq_log_end_offset(n.log), 5);
    kq_writer_free(&w);
    tn_close(&n);
}

static wire_vote_response vote(tn_node *n, int32_t corr, const char *topic)
{
    tn_slot s = {2};
    wire_vote_partition p = {.partition_index = 0, .candidate_epoch = 1, .candidate_id = 2,
                             .last_offset_epoch = 0, .last_offset = 0};
    wire_vote_topic t = {kq_slice_cstr(topic), &p, 1};
    wire_vote_request req = {.cluster_id = kq_slice_cstr(TN_CLUSTER_ID), .voter_id = 1,
                             .topics = &t, .topic_count = 1};
    TN_SEND(n, &s, WIRE_API_VOTE, 1, corr, wire_vote_request_encode, &req);
    wire_vote_response resp;
    TN_DECODE(n, &s, WIRE_API_VOTE, 1, corr, wire_vote_response_decode, &resp);
    return resp;
}

static int16_t replica_fetch(tn_node *n, int16_t v, int32_t corr, const char *topic,
                             kq_uuid topic_id)
{
    tn_slot s = {3};
    wire_fetch_partition p = {.partition = 0, .current_leader_epoch = 0, .fetch_offset = 0,
                              .last_fetched_epoch = 0, .log_start_offset = -1,
                              .partition_max_bytes = 1 << 20};
    wire_fetch_topic t = {.topic = kq_slice_cstr(topic), .topic_id = topic_id,
                          .partitions = &p, .partition_count = 1};
    wire_fetch_request req = {.cluster_id = kq_slice_cstr(TN_CLUSTER_ID), .replica_id = 2,
                              .replica_epoch = -1, .max_wait_ms = 0, .max_bytes = 1 << 20,
                              .session_epoch = -1, .topics = &t, .topic_count = 1,
                              .rack_id = kq_slice_cstr("")};
    TN_SEND(n, &s, WIRE_API_FETCH, v, corr, wire_fetch_request_encode, &req);
    wire_fetch_response resp;
    TN_DECODE(n, &s, WIRE_API_FETCH, v, corr, wire_fetch_response_decode, &resp);
    return resp.error_code;
}

/* Raft RPCs for any partition but the configured one get Kafka's answer
 * (KafkaRaftClient.hasValidTopicPartition: INVALID_REQUEST), by name
 * (Vote, Fetch up to v12) and by topic id (Fetch v13+); Metadata names the
 * configured topic with its id. */
static void test_raft_rpcs_follow_the_identity(void **state)
{
    (void)state;
    tn_config_hook = perf_identity;
    tn_node n;
    tn_open(&n, 1, 3);
    assert_int_equal(vote(&n, 20, META).error_code, KAFKA_INVALID_REQUEST);
    assert_int_equal(tn_status(&n).epoch, 0);
    wire_vote_response r = vote(&n, 21, PERF);
    assert_int_equal(r.error_code, KAFKA_NONE);
    assert_int_equal(tn_status(&n).epoch, 1);
    assert_int_equal(replica_fetch(&n, 12, 22, META, perf_id), KAFKA_INVALID_REQUEST);
    assert_int_equal(replica_fetch(&n, 13, 23, PERF, WIRE_METADATA_TOPIC_ID),
                     KAFKA_INVALID_REQUEST);
    assert_int_equal(replica_fetch(&n, 13, 24, META, perf_id), KAFKA_NONE);
    assert_int_equal(replica_fetch(&n, 12, 25, PERF, WIRE_METADATA_TOPIC_ID), KAFKA_NONE);

    tn_slot s = {4};
    wire_metadata_request req = {.topics = NULL, .topic_count = -1};
    TN_SEND(&n, &s, WIRE_API_METADATA, 12, 26, wire_metadata_request_encode, &req);
    wire_metadata_response resp;
    TN_DECODE(&n, &s, WIRE_API_METADATA, 12, 26, wire_metadata_response_decode, &resp);
    assert_int_equal(resp.topic_count, 1);
    assert_true(kq_slice_eq_cstr(resp.topics[0].name, PERF));
    assert_memory_equal(resp.topics[0].topic_id.bytes, perf_id.bytes, 16);
    tn_close(&n);
    tn_config_hook = NULL;
}

/* DescribeQuorum: Kafka's admin client asks for __cluster_metadata-0 and
 * wants that name back, so the name stands for the configured partition;
 * the configured name is answered too, any other is unknown. */
static void test_describe_quorum_under_either_name(void **state)
{
    (void)state;
    tn_config_hook = perf_identity;
    tn_node n;
    tn_open_leader(&n);
    const char *names[] = {META, PERF, "other"};
    int16_t want[] = {KAFKA_NONE, KAFKA_NONE, KAFKA_UNKNOWN_TOPIC_OR_PARTITION};
    const char *answered[] = {META, PERF, PERF};
    for (int i = 0; i < 3; i++) {
        wire_describe_quorum_partition qp = {0};
        wire_describe_quorum_topic qt = {kq_slice_cstr(names[i]), &qp, 1};
        wire_describe_quorum_request req = {&qt, 1};
        tn_slot s = {5};
        TN_SEND(&n, &s, WIRE_API_DESCRIBE_QUORUM, 2, 40 + i, wire_describe_quorum_request_encode,
                &req);
        wire_describe_quorum_response resp;
        TN_DECODE(&n, &s, WIRE_API_DESCRIBE_QUORUM, 2, 40 + i,
                  wire_describe_quorum_response_decode, &resp);
        assert_int_equal(resp.error_code, KAFKA_NONE);
        assert_int_equal(resp.topic_count, 1);
        assert_true(kq_slice_eq_cstr(resp.topics[0].topic_name, answered[i]));
        assert_int_equal(resp.topics[0].partitions[0].error_code, want[i]);
        if (want[i] == KAFKA_NONE)
            assert_int_equal(resp.topics[0].partitions[0].leader_id, 1);
    }
    tn_close(&n);
    tn_config_hook = NULL;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record_shape_refused),
        cmocka_unit_test(test_default_identity_takes_any_shape),
        cmocka_unit_test(test_raft_rpcs_follow_the_identity),
        cmocka_unit_test(test_describe_quorum_under_either_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
