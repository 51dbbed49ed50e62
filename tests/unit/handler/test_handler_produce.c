/* Produce: acks semantics against a real core and log, validation errors,
 * idempotence, timeouts and the non-leader answer. */
#include "handler_test_node.h"

#include "kq/wire_begin_quorum_epoch.h"
#include "kq/wire_fetch.h"
#include "kq/wire_produce.h"

#define META "__cluster_metadata"

static void produce_one(tn_node *n, tn_slot *slot, int16_t v, int32_t corr, int16_t acks,
                        int32_t timeout_ms, const char *topic, int32_t partition,
                        const kq_writer *batch)
{
    wire_produce_partition p = {.index = partition,
                                .records = {batch->data, (int32_t)batch->len}};
    wire_produce_topic t = {.name = kq_slice_cstr(topic), .partitions = &p, .partition_count = 1};
    wire_produce_request req = {.transactional_id = {NULL, -1}, .acks = acks,
                                .timeout_ms = timeout_ms, .topics = &t, .topic_count = 1};
    TN_SEND(n, slot, WIRE_API_PRODUCE, v, corr, wire_produce_request_encode, &req);
}

/* The one partition result of the slot's latest Produce response. */
static wire_produce_partition_response produce_result(tn_node *n, tn_slot *slot, int16_t v,
                                                      int32_t corr, const char *topic,
                                                      int32_t partition)
{
    wire_produce_response resp;
    TN_DECODE(n, slot, WIRE_API_PRODUCE, v, corr, wire_produce_response_decode, &resp);
    assert_int_equal(resp.topic_count, 1);
    assert_true(kq_slice_eq_cstr(resp.topics[0].name, topic));
    assert_int_equal(resp.topics[0].partition_count, 1);
    assert_int_equal(resp.topics[0].partitions[0].index, partition);
    return resp.topics[0].partitions[0];
}

static void test_acks_all_waits_for_flush_and_hw(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {1};
    kq_writer b;
    tn_batch(&b, -1, -1, -1, 2, "all");
    produce_one(&n, &s, 9, 11, -1, 30000, META, 0, &b);
    kq_writer_free(&b);

    assert_int_equal(tn_count(&n, &s), 0);
    assert_int_equal(kq_log_end_offset(n.log), 3); /* appended after the LeaderChange */
    assert_true(n.flush_wanted);

    /* Durable but the core has not been told: the HW has not moved. */
    assert_int_equal(tn_flush_silently(&n), 3);
    handler_on_progress(n.h);
    assert_int_equal(tn_status(&n).high_watermark, 1);
    assert_int_equal(tn_count(&n, &s), 0);

    tn_event(&n, RAFT_EVENT_FLUSHED, 3);
    n.flush_wanted = false;
    assert_int_equal(tn_status(&n).high_watermark, 3);
    assert_int_equal(tn_count(&n, &s), 1);
    wire_produce_partition_response pr = produce_result(&n, &s, 9, 11, META, 0);
    assert_int_equal(pr.error_code, KAFKA_NONE);
    assert_int_equal(pr.base_offset, 1);
    assert_int_equal(pr.log_start_offset, 0);
    assert_int_equal(pr.current_leader_id, -1);

    /* a second batch gets the next offset */
    tn_slot s2 = {2};
    tn_batch(&b, -1, -1, -1, 1, "all2");
    produce_one(&n, &s2, 12, 12, -1, 30000, META, 0, &b);
    kq_writer_free(&b);
    assert_int_equal(tn_count(&n, &s2), 0);
    tn_flush(&n);
    pr = produce_result(&n, &s2, 12, 12, META, 0);
    assert_int_equal(pr.error_code, KAFKA_NONE);
    assert_int_equal(pr.base_offset, 3);
    assert_int_equal(tn_count(&n, &s), 1); /* answered once */
    tn_close(&n);
}

static void test_acks_one_answered_after_flush(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {1};
    kq_writer b;
    tn_batch(&b, -1, -1, -1, 3, "one");
    produce_one(&n, &s, 3, 21, 1, 30000, META, 0, &b);
    kq_writer_free(&b);
    assert_int_equal(tn_count(&n, &s), 0);
    handler_on_progress(n.h);
    assert_int_equal(tn_count(&n, &s), 0);
    assert_int_equal(tn_flush(&n), 1);
    assert_int_equal(tn_count(&n, &s), 1);
    wire_produce_partition_response pr = produce_result(&n, &s, 3, 21, META, 0);
    assert_int_equal(pr.error_code, KAFKA_NONE);
    assert_int_equal(pr.base_offset, 1);
    tn_close(&n);
}

static void test_acks_zero_no_reply_data_in_log(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {1};
    kq_writer b;
    tn_batch(&b, -1, -1, -1, 4, "zero");
    produce_one(&n, &s, 7, 31, 0, 30000, META, 0, &b);
    kq_writer_free(&b);
    assert_int_equal(tn_count(&n, &s), 1);
    assert_int_equal(tn_last(&n, &s)->kind, TN_REPLY_NONE);
    assert_int_equal(kq_log_end_offset(n.log), 5);
    tn_flush(&n);
    assert_int_equal(tn_count(&n, &s), 1); /* still nothing more */
    tn_scan sc = tn_scan_log(&n);
    assert_int_equal(sc.batches, 2);
    assert_int_equal(sc.last_base, 1);
    tn_close(&n);
}

/* acks=0 has no answer to carry an error: a failed write closes the
 * connection (as Kafka does), and nothing is appended. */
static void test_acks_zero_failure_closes(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {1};
    kq_writer b;
    tn_batch(&b, -1, -1, -1, 2, "lost");
    produce_one(&n, &s, 7, 32, 0, 30000, "no-such-topic", 0, &b);
    kq_writer_free(&b);
    assert_int_equal(tn_count(&n, &s), 1);
    assert_int_equal(tn_last(&n, &s)->kind, TN_REPLY_CLOSE);
    assert_int_equal(kq_log_end_offset(n.log), 1);
    tn_close(&n);
}

static void assert_rejected(tn_node *n, tn_slot *s, int16_t v, int32_t corr, int16_t error)
{
    assert_int_equal(tn_count(n, s), 1);
    wire_produce_partition_response pr = produce_result(n, s, v, corr, META, 0);
    assert_int_equal(pr.error_code, error);
    assert_int_equal(pr.base_offset, -1);
}

static void test_bad_crc_and_magic_are_corrupt(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    kq_writer b;

    tn_slot s1 = {1};
    tn_batch(&b, -1, -1, -1, 2, "crc");
    b.data[b.len - 1] ^= 0x5a; /* a record byte: the CRC no longer matches */
    produce_one(&n, &s1, 9, 41, -1, 30000, META, 0, &b);
    kq_writer_free(&b);
    assert_rejected(&n, &s1, 9, 41, KAFKA_CORRUPT_MESSAGE);
    assert_int_equal(kq_log_end_offset(n.log), 1);

    tn_slot s2 = {2};
    tn_batch(&b, -1, -1, -1, 2, "magic");
    b.data[16] = 1; /* magic */
    produce_one(&n, &s2, 9, 42, -1, 30000, META, 0, &b);
    kq_writer_free(&b);
    assert_rejected(&n, &s2, 9, 42, KAFKA_CORRUPT_MESSAGE);
    assert_int_equal(kq_log_end_offset(n.log), 1);

    /* a batch cut short */
    tn_slot s3 = {3};
    tn_batch(&b, -1, -1, -1, 2, "short");
    b.len -= 3;
    produce_one(&n, &s3, 9, 43, 1, 30000, META, 0, &b);
    kq_writer_free(&b);
    assert_rejected(&n, &s3, 9, 43, KAFKA_CORRUPT_MESSAGE);
    assert_int_equal(kq_log_end_offset(n.log), 1);
    assert_false(n.flush_wanted);
    tn_close(&n);
}

static void test_invalid_acks_and_control_batch(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    kq_writer b;

    tn_slot s1 = {1};
    tn_batch(&b, -1, -1, -1, 1, "acks");
    produce_one(&n, &s1, 8, 51, 2, 30000, META, 0, &b);
    kq_writer_free(&b);
    assert_rejected(&n, &s1, 8, 51, KAFKA_INVALID_REQUIRED_ACKS);
    assert_int_equal(kq_log_end_offset(n.log), 1);

    tn_slot s2 = {2};
    int32_t voters[] = {1};
    kq_writer_init(&b, 0);
    assert_true(record_build_leader_change(&b, 0, 1, 1600000000000, 1, voters, 1, voters, 1));
    produce_one(&n, &s2, 8, 52, -1, 30000, META, 0, &b);
    kq_writer_free(&b);
    assert_rejected(&n, &s2, 8, 52, KAFKA_INVALID_RECORD);
    assert_int_equal(kq_log_end_offset(n.log), 1);
    tn_close(&n);
}

/* Several topics and partitions: every one echoed exactly, in order. */
static void test_unknown_topics_and_partitions_echoed(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {1};
    kq_writer b;
    tn_batch(&b, -1, -1, -1, 2, "mix");
    kq_slice recs = {b.data, (int32_t)b.len};
    wire_produce_partition foo[] = {{3, recs}, {7, recs}};
    wire_produce_partition meta[] = {{1, recs}, {0, recs}};
    wire_produce_partition bar[] = {{0, recs}};
    wire_produce_topic topics[] = {
        {kq_slice_cstr("foo"), foo, 2},
        {kq_slice_cstr(META), meta, 2},
        {kq_slice_cstr("bar"), bar, 1},
    };
    wire_produce_request req = {.transactional_id = {NULL, -1}, .acks = 1, .timeout_ms = 30000,
                                .topics = topics, .topic_count = 3};
    TN_SEND(&n, &s, WIRE_API_PRODUCE, 9, 61, wire_produce_request_encode, &req);
    kq_writer_free(&b);
    assert_int_equal(tn_count(&n, &s), 0); /* partition 0 waits for its flush */
    assert_int_equal(kq_log_end_offset(n.log), 3);
    tn_flush(&n);
    assert_int_equal(tn_count(&n, &s), 1);

    wire_produce_response resp;
    TN_DECODE(&n, &s, WIRE_API_PRODUCE, 9, 61, wire_produce_response_decode, &resp);
    assert_int_equal(resp.topic_count, 3);
    const char *names[] = {"foo", META, "bar"};
    int32_t idx[3][2] = {{3, 7}, {1, 0}, {0, -1}};
    int counts[] = {2, 2, 1};
    for (int t = 0; t < 3; t++) {
        assert_true(kq_slice_eq_cstr(resp.topics[t].name, names[t]));
        assert_int_equal(resp.topics[t].partition_count, counts[t]);
        for (int p = 0; p < counts[t]; p++) {
            const wire_produce_partition_response *pr = &resp.topics[t].partitions[p];
            assert_int_equal(pr->index, idx[t][p]);
            bool ok = t == 1 && p == 1;
            assert_int_equal(pr->error_code, ok ? KAFKA_NONE : KAFKA_UNKNOWN_TOPIC_OR_PARTITION);
            assert_int_equal(pr->base_offset, ok ? 1 : -1);
        }
    }
    tn_close(&n);
}

static void test_unknown_only_answered_at_once(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {1};
    kq_writer b;
    tn_batch(&b, -1, -1, -1, 1, "x");
    produce_one(&n, &s, 12, 62, -1, 30000, "other-topic", 0, &b);
    kq_writer_free(&b);
    wire_produce_partition_response pr = produce_result(&n, &s, 12, 62, "other-topic", 0);
    assert_int_equal(pr.error_code, KAFKA_UNKNOWN_TOPIC_OR_PARTITION);

    tn_slot s2 = {2};
    tn_batch(&b, -1, -1, -1, 1, "x");
    produce_one(&n, &s2, 12, 63, -1, 30000, META, 1, &b);
    kq_writer_free(&b);
    pr = produce_result(&n, &s2, 12, 63, META, 1);
    assert_int_equal(pr.error_code, KAFKA_UNKNOWN_TOPIC_OR_PARTITION);
    assert_int_equal(kq_log_end_offset(n.log), 1);
    tn_close(&n);
}

static void test_idempotent_duplicate_gets_original_offset(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s1 = {1}, s2 = {2}, s3 = {3};
    kq_writer b;
    tn_batch(&b, 5000, 0, 0, 3, "idem");
    produce_one(&n, &s1, 9, 71, -1, 30000, META, 0, &b);
    produce_one(&n, &s2, 9, 72, -1, 30000, META, 0, &b); /* retry before the commit */
    assert_int_equal(kq_log_end_offset(n.log), 4);
    assert_int_equal(tn_count(&n, &s1) + tn_count(&n, &s2), 0);
    tn_flush(&n);
    wire_produce_partition_response pr = produce_result(&n, &s1, 9, 71, META, 0);
    assert_int_equal(pr.error_code, KAFKA_NONE);
    assert_int_equal(pr.base_offset, 1);
    pr = produce_result(&n, &s2, 9, 72, META, 0);
    assert_int_equal(pr.error_code, KAFKA_NONE);
    assert_int_equal(pr.base_offset, 1);

    /* a retry after the commit is answered at once, still not appended */
    produce_one(&n, &s3, 9, 73, -1, 30000, META, 0, &b);
    kq_writer_free(&b);
    assert_int_equal(tn_count(&n, &s3), 1);
    pr = produce_result(&n, &s3, 9, 73, META, 0);
    assert_int_equal(pr.error_code, KAFKA_NONE);
    assert_int_equal(pr.base_offset, 1);
    assert_int_equal(kq_log_end_offset(n.log), 4);
    assert_false(n.flush_wanted);
    tn_scan sc = tn_scan_log(&n);
    assert_int_equal(sc.batches, 2);
    tn_close(&n);
}

static void test_sequence_gap_and_old_epoch(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s1 = {1}, s2 = {2}, s3 = {3}, s4 = {4};
    kq_writer b;
    tn_batch(&b, 6000, 2, 0, 2, "seq"); /* seqs 0..1 in epoch 2 */
    produce_one(&n, &s1, 9, 81, -1, 30000, META, 0, &b);
    kq_writer_free(&b);
    tn_flush(&n);
    assert_int_equal(produce_result(&n, &s1, 9, 81, META, 0).base_offset, 1);

    tn_batch(&b, 6000, 2, 5, 1, "gap"); /* expected 2 */
    produce_one(&n, &s2, 9, 82, -1, 30000, META, 0, &b);
    kq_writer_free(&b);
    assert_rejected(&n, &s2, 9, 82, KAFKA_OUT_OF_ORDER_SEQUENCE_NUMBER);
    assert_int_equal(kq_log_end_offset(n.log), 3);

    tn_batch(&b, 6000, 1, 2, 1, "old"); /* epoch 1 < 2 */
    produce_one(&n, &s3, 9, 83, -1, 30000, META, 0, &b);
    kq_writer_free(&b);
    assert_rejected(&n, &s3, 9, 83, KAFKA_INVALID_PRODUCER_EPOCH);
    assert_int_equal(kq_log_end_offset(n.log), 3);

    tn_batch(&b, 6000, 2, 2, 1, "next"); /* the right next sequence is accepted */
    produce_one(&n, &s4, 9, 84, -1, 30000, META, 0, &b);
    kq_writer_free(&b);
    tn_flush(&n);
    wire_produce_partition_response pr = produce_result(&n, &s4, 9, 84, META, 0);
    assert_int_equal(pr.error_code, KAFKA_NONE);
    assert_int_equal(pr.base_offset, 3);
    tn_close(&n);
}

static void test_timeout_when_flush_never_completes(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {1};
    kq_writer b;
    tn_batch(&b, -1, -1, -1, 1, "late");
    int64_t t0 = n.now;
    produce_one(&n, &s, 9, 91, -1, 1500, META, 0, &b);
    kq_writer_free(&b);
    assert_int_equal(handler_next_deadline(n.h), t0 + 1500);
    tn_tick(&n, t0 + 1499);
    assert_int_equal(tn_count(&n, &s), 0);
    tn_tick(&n, t0 + 1500);
    assert_int_equal(tn_count(&n, &s), 1);
    wire_produce_partition_response pr = produce_result(&n, &s, 9, 91, META, 0);
    assert_int_equal(pr.error_code, KAFKA_REQUEST_TIMED_OUT);
    assert_int_equal(pr.base_offset, -1);
    assert_int_equal(handler_next_deadline(n.h), INT64_MAX);
    /* the flush completing later does not answer it twice */
    tn_flush(&n);
    assert_int_equal(tn_count(&n, &s), 1);
    tn_close(&n);
}

static void begin_quorum_epoch(tn_node *n, tn_slot *s, int32_t leader, int32_t epoch)
{
    wire_begin_quorum_epoch_partition p = {.partition_index = 0, .leader_id = leader,
                                           .leader_epoch = epoch};
    wire_begin_quorum_epoch_topic t = {kq_slice_cstr(META), &p, 1};
    wire_raft_listener l = {kq_slice_cstr("PLAINTEXT"), kq_slice_cstr("node2.test"), 9092};
    wire_begin_quorum_epoch_request req = {.cluster_id = kq_slice_cstr(TN_CLUSTER_ID),
                                           .voter_id = n->node_id, .topics = &t,
                                           .topic_count = 1, .leader_endpoints = &l,
                                           .leader_endpoint_count = 1};
    TN_SEND(n, s, WIRE_API_BEGIN_QUORUM_EPOCH, 1, 100, wire_begin_quorum_epoch_request_encode,
            &req);
}

static void test_not_leader_with_leader_hint(void **state)
{
    (void)state;
    tn_node n;
    tn_open(&n, 1, 3); /* fresh voter of three: unattached, no leader */
    assert_int_equal(tn_status(&n).role, RAFT_ROLE_UNATTACHED);
    kq_writer b;
    tn_batch(&b, -1, -1, -1, 1, "nl");

    tn_slot s1 = {1};
    produce_one(&n, &s1, 10, 201, -1, 30000, META, 0, &b);
    wire_produce_response resp;
    TN_DECODE(&n, &s1, WIRE_API_PRODUCE, 10, 201, wire_produce_response_decode, &resp);
    assert_int_equal(resp.topics[0].partitions[0].error_code, KAFKA_NOT_LEADER_OR_FOLLOWER);
    assert_int_equal(resp.topics[0].partitions[0].current_leader_id, -1);
    assert_int_equal(resp.node_endpoint_count, 0);
    assert_int_equal(kq_log_end_offset(n.log), 0);

    /* node 2 becomes leader in epoch 5 and tells us */
    tn_slot peer = {9};
    begin_quorum_epoch(&n, &peer, 2, 5);
    wire_begin_quorum_epoch_response bresp;
    TN_DECODE(&n, &peer, WIRE_API_BEGIN_QUORUM_EPOCH, 1, 100,
              wire_begin_quorum_epoch_response_decode, &bresp);
    assert_int_equal(bresp.error_code, KAFKA_NONE);
    assert_int_equal(bresp.topics[0].partitions[0].error_code, KAFKA_NONE);
    raft_status st = tn_status(&n);
    assert_int_equal(st.role, RAFT_ROLE_FOLLOWER);
    assert_int_equal(st.leader_id, 2);
    assert_int_equal(st.epoch, 5);

    tn_slot s2 = {2};
    produce_one(&n, &s2, 10, 202, -1, 30000, META, 0, &b);
    TN_DECODE(&n, &s2, WIRE_API_PRODUCE, 10, 202, wire_produce_response_decode, &resp);
    const wire_produce_partition_response *pr = &resp.topics[0].partitions[0];
    assert_int_equal(pr->error_code, KAFKA_NOT_LEADER_OR_FOLLOWER);
    assert_int_equal(pr->base_offset, -1);
    assert_int_equal(pr->current_leader_id, 2);
    assert_int_equal(pr->current_leader_epoch, 5);
    assert_int_equal(resp.node_endpoint_count, 1);
    assert_int_equal(resp.node_endpoints[0].node_id, 2);
    assert_true(kq_slice_eq_cstr(resp.node_endpoints[0].host, "node2.test"));
    assert_int_equal(resp.node_endpoints[0].port, TN_PORT_BASE + 2);

    /* v9 has no tagged hint: plain NOT_LEADER_OR_FOLLOWER */
    tn_slot s3 = {3};
    produce_one(&n, &s3, 9, 203, 1, 30000, META, 0, &b);
    TN_DECODE(&n, &s3, WIRE_API_PRODUCE, 9, 203, wire_produce_response_decode, &resp);
    assert_int_equal(resp.topics[0].partitions[0].error_code, KAFKA_NOT_LEADER_OR_FOLLOWER);
    assert_int_equal(resp.topics[0].partitions[0].current_leader_id, -1);
    assert_int_equal(resp.node_endpoint_count, 0);
    kq_writer_free(&b);
    assert_int_equal(kq_log_end_offset(n.log), 0);
    tn_close(&n);
}

/* A driver whose flush completes inside the append's step (allowed by the
 * step contract): the HW moves while the Produce request is still being
 * handled, which wakes a parked fetch. The rest of the Produce request must
 * still be read and answered exactly. */
static void test_eager_flush_with_parked_fetch(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    n.eager_flush = true;
    tn_slot f = {1}, s = {2};
    wire_fetch_partition fp = {.partition = 0, .current_leader_epoch = -1, .fetch_offset = 1,
                               .last_fetched_epoch = -1, .log_start_offset = -1,
                               .partition_max_bytes = 1 << 20};
    wire_fetch_topic ft = {.topic = kq_slice_cstr(META), .partitions = &fp, .partition_count = 1};
    wire_fetch_request fr = {.cluster_id = {NULL, -1}, .replica_id = -1, .replica_epoch = -1,
                             .max_wait_ms = 5000, .min_bytes = 1, .max_bytes = 1 << 20,
                             .session_epoch = -1, .topics = &ft, .topic_count = 1,
                             .rack_id = kq_slice_cstr("")};
    TN_SEND(&n, &f, WIRE_API_FETCH, 11, 300, wire_fetch_request_encode, &fr);
    assert_int_equal(tn_count(&n, &f), 0);

    kq_writer b;
    tn_batch(&b, -1, -1, -1, 2, "eager");
    kq_slice recs = {b.data, (int32_t)b.len};
    wire_produce_partition meta[] = {{0, recs}};
    wire_produce_partition other[] = {{4, recs}, {5, recs}};
    wire_produce_topic topics[] = {
        {kq_slice_cstr(META), meta, 1},
        {kq_slice_cstr("other-topic-name"), other, 2},
    };
    wire_produce_request req = {.transactional_id = {NULL, -1}, .acks = -1, .timeout_ms = 30000,
                                .topics = topics, .topic_count = 2};
    TN_SEND(&n, &s, WIRE_API_PRODUCE, 9, 301, wire_produce_request_encode, &req);
    kq_writer_free(&b);
    assert_int_equal(tn_status(&n).high_watermark, 3);
    assert_int_equal(tn_count(&n, &f), 1); /* woken by the HW */
    assert_int_equal(tn_count(&n, &s), 1);
    wire_produce_response resp;
    TN_DECODE(&n, &s, WIRE_API_PRODUCE, 9, 301, wire_produce_response_decode, &resp);
    assert_int_equal(resp.topic_count, 2);
    assert_true(kq_slice_eq_cstr(resp.topics[0].name, META));
    assert_int_equal(resp.topics[0].partitions[0].error_code, KAFKA_NONE);
    assert_int_equal(resp.topics[0].partitions[0].base_offset, 1);
    assert_true(kq_slice_eq_cstr(resp.topics[1].name, "other-topic-name"));
    assert_int_equal(resp.topics[1].partition_count, 2);
    assert_int_equal(resp.topics[1].partitions[0].index, 4);
    assert_int_equal(resp.topics[1].partitions[1].index, 5);
    assert_int_equal(resp.topics[1].partitions[1].error_code, KAFKA_UNKNOWN_TOPIC_OR_PARTITION);
    tn_close(&n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_acks_all_waits_for_flush_and_hw),
        cmocka_unit_test(test_acks_one_answered_after_flush),
        cmocka_unit_test(test_acks_zero_no_reply_data_in_log),
        cmocka_unit_test(test_acks_zero_failure_closes),
        cmocka_unit_test(test_bad_crc_and_magic_are_corrupt),
        cmocka_unit_test(test_invalid_acks_and_control_batch),
        cmocka_unit_test(test_unknown_topics_and_partitions_echoed),
        cmocka_unit_test(test_unknown_only_answered_at_once),
        cmocka_unit_test(test_idempotent_duplicate_gets_original_offset),
        cmocka_unit_test(test_sequence_gap_and_old_epoch),
        cmocka_unit_test(test_timeout_when_flush_never_completes),
        cmocka_unit_test(test_not_leader_with_leader_hint),
        cmocka_unit_test(test_eager_flush_with_parked_fetch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
