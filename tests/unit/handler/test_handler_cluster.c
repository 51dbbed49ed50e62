/* ApiVersions, Metadata, InitProducerId, FindCoordinator, DescribeCluster and
 * DescribeQuorum through the handler. */
#include "handler_test_node.h"

#include "kq/wire_api_versions.h"
#include "kq/wire_describe_cluster.h"
#include "kq/wire_describe_quorum.h"
#include "kq/wire_fetch.h"
#include "kq/wire_find_coordinator.h"
#include "kq/wire_init_producer_id.h"
#include "kq/wire_metadata.h"
#include "kq/wire_produce.h"

#define META "__cluster_metadata"

static void assert_advertised_table(const wire_api_versions_response *resp)
{
    int count = 0;
    const wire_api_range *want = wire_advertised_apis(&count);
    assert_true(count > 5);
    assert_int_equal(resp->api_key_count, count);
    for (int i = 0; i < count; i++) {
        assert_int_equal(resp->api_keys[i].api_key, want[i].api_key);
        assert_int_equal(resp->api_keys[i].min_version, want[i].min_version);
        assert_int_equal(resp->api_keys[i].max_version, want[i].max_version);
    }
}

static void test_api_versions_v3(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {1};
    wire_api_versions_request req = {kq_slice_cstr("kq-test"), kq_slice_cstr("1.0")};
    TN_SEND(&n, &s, WIRE_API_API_VERSIONS, 3, 77, wire_api_versions_request_encode, &req);
    int count = 0;
    wire_advertised_apis(&count);
    /* Response header v0: the error code follows the correlation id directly,
     * then the compact array length (no tagged-field byte in between). */
    const tn_reply *rep = tn_last(&n, &s);
    assert_non_null(rep);
    assert_int_equal(rep->kind, TN_REPLY);
    assert_true(rep->len > 7);
    static const uint8_t head[] = {0, 0, 0, 77, 0, 0};
    assert_memory_equal(rep->data, head, sizeof(head));
    assert_int_equal(rep->data[6], count + 1);

    wire_api_versions_response resp;
    TN_DECODE(&n, &s, WIRE_API_API_VERSIONS, 3, 77, wire_api_versions_response_decode, &resp);
    assert_int_equal(resp.error_code, KAFKA_NONE);
    assert_advertised_table(&resp);
    tn_close(&n);
}

static void test_api_versions_unsupported_version(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {1};
    kq_writer w;
    tn_begin_request(&w, WIRE_API_API_VERSIONS, 99, 78);
    kq_write_raw(&w, "\x07whatever", 9); /* a body we cannot know: never parsed */
    tn_deliver(&n, &s, &w);
    wire_api_versions_response resp;
    TN_DECODE(&n, &s, WIRE_API_API_VERSIONS, 0, 78, wire_api_versions_response_decode, &resp);
    assert_int_equal(resp.error_code, KAFKA_UNSUPPORTED_VERSION);
    assert_advertised_table(&resp);
    tn_close(&n);
}

static void metadata(tn_node *n, tn_slot *s, int16_t v, int32_t corr,
                     const wire_metadata_request_topic *topics, int32_t topic_count,
                     wire_metadata_response *resp)
{
    wire_metadata_request req = {.topics = topics, .topic_count = topic_count,
                                 .allow_auto_topic_creation = true};
    TN_SEND(n, s, WIRE_API_METADATA, v, corr, wire_metadata_request_encode, &req);
    TN_DECODE(n, s, WIRE_API_METADATA, v, corr, wire_metadata_response_decode, resp);
}

static void assert_brokers(const wire_metadata_response *resp, int count)
{
    assert_int_equal(resp->broker_count, count);
    for (int i = 0; i < count; i++) {
        char host[32];
        snprintf(host, sizeof(host), "node%d.test", i + 1);
        assert_int_equal(resp->brokers[i].node_id, i + 1);
        assert_true(kq_slice_eq_cstr(resp->brokers[i].host, host));
        assert_int_equal(resp->brokers[i].port, TN_PORT_BASE + i + 1);
    }
}

static void assert_metadata_topic(const wire_metadata_topic *t, int16_t v, int32_t leader,
                                  int32_t epoch)
{
    assert_int_equal(t->error_code, KAFKA_NONE);
    assert_true(kq_slice_eq_cstr(t->name, META));
    assert_false(t->is_internal); /* issue 12: every client produces to it */
    assert_int_equal(t->partition_count, 1);
    assert_int_equal(t->partitions[0].error_code, KAFKA_NONE);
    assert_int_equal(t->partitions[0].partition_index, 0);
    assert_int_equal(t->partitions[0].leader_id, leader);
    assert_int_equal(t->partitions[0].leader_epoch, v >= 7 ? epoch : -1);
    assert_int_equal(t->partitions[0].replica_node_count, 1);
    assert_int_equal(t->partitions[0].replica_nodes[0], 1);
    if (v >= 10)
        assert_memory_equal(t->topic_id.bytes, WIRE_METADATA_TOPIC_ID.bytes, 16);
}

static void test_metadata_v1_and_v12(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {1};
    int32_t epoch = tn_status(&n).epoch;
    assert_true(epoch > 0);
    wire_metadata_request_topic topics[] = {
        {.name = kq_slice_cstr(META)},
        {.name = kq_slice_cstr("no-such-topic")},
    };
    wire_metadata_response resp;
    metadata(&n, &s, 1, 1, topics, 2, &resp);
    assert_brokers(&resp, 1);
    assert_int_equal(resp.controller_id, 1);
    assert_int_equal(resp.topic_count, 2);
    assert_metadata_topic(&resp.topics[0], 1, 1, epoch);
    assert_int_equal(resp.topics[1].error_code, KAFKA_UNKNOWN_TOPIC_OR_PARTITION);
    assert_true(kq_slice_eq_cstr(resp.topics[1].name, "no-such-topic"));

    metadata(&n, &s, 12, 2, topics, 2, &resp);
    assert_brokers(&resp, 1);
    assert_true(kq_slice_eq_cstr(resp.cluster_id, TN_CLUSTER_ID));
    assert_int_equal(resp.topic_count, 2);
    assert_metadata_topic(&resp.topics[0], 12, 1, epoch);
    assert_int_equal(resp.topics[1].error_code, KAFKA_UNKNOWN_TOPIC_OR_PARTITION);
    assert_true(kq_slice_eq_cstr(resp.topics[1].name, "no-such-topic"));

    /* v12 by topic id only */
    wire_metadata_request_topic by_id[] = {{.topic_id = WIRE_METADATA_TOPIC_ID,
                                            .name = {NULL, -1}}};
    metadata(&n, &s, 12, 3, by_id, 1, &resp);
    assert_int_equal(resp.topic_count, 1);
    assert_metadata_topic(&resp.topics[0], 12, 1, epoch);
    tn_close(&n);
}

static void test_metadata_all_topics(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {1};
    wire_metadata_response resp;
    metadata(&n, &s, 1, 4, NULL, -1, &resp);
    assert_int_equal(resp.topic_count, 1);
    assert_metadata_topic(&resp.topics[0], 1, 1, tn_status(&n).epoch);
    metadata(&n, &s, 9, 5, NULL, -1, &resp);
    assert_int_equal(resp.topic_count, 1);
    assert_metadata_topic(&resp.topics[0], 9, 1, tn_status(&n).epoch);
    metadata(&n, &s, 0, 6, NULL, 0, &resp); /* v0: empty means all */
    assert_int_equal(resp.topic_count, 1);
    assert_metadata_topic(&resp.topics[0], 0, 1, tn_status(&n).epoch);
    tn_close(&n);
}

static void test_metadata_without_leader(void **state)
{
    (void)state;
    tn_node n;
    tn_open(&n, 1, 3);
    tn_slot s = {1};
    wire_metadata_response resp;
    metadata(&n, &s, 12, 7, NULL, -1, &resp);
    assert_brokers(&resp, 3);
    assert_int_equal(resp.controller_id, -1);
    assert_int_equal(resp.topic_count, 1);
    assert_int_equal(resp.topics[0].partitions[0].error_code, KAFKA_LEADER_NOT_AVAILABLE);
    assert_int_equal(resp.topics[0].partitions[0].leader_id, -1);
    assert_int_equal(resp.topics[0].partitions[0].replica_node_count, 3);
    tn_close(&n);
}

static wire_init_producer_id_response init_pid(tn_node *n, tn_slot *s, int16_t v, int32_t corr,
                                               const char *txn, int64_t pid, int16_t epoch)
{
    wire_init_producer_id_request req = {
        .transactional_id = txn ? kq_slice_cstr(txn) : (kq_slice){NULL, -1},
        .transaction_timeout_ms = 60000, .producer_id = pid, .producer_epoch = epoch};
    TN_SEND(n, s, WIRE_API_INIT_PRODUCER_ID, v, corr, wire_init_producer_id_request_encode, &req);
    wire_init_producer_id_response resp;
    TN_DECODE(n, s, WIRE_API_INIT_PRODUCER_ID, v, corr, wire_init_producer_id_response_decode,
              &resp);
    return resp;
}

static void test_init_producer_id(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {1};
    wire_init_producer_id_response a = init_pid(&n, &s, 1, 1, NULL, -1, -1);
    wire_init_producer_id_response b = init_pid(&n, &s, 4, 2, NULL, -1, -1);
    assert_int_equal(a.error_code, KAFKA_NONE);
    assert_int_equal(b.error_code, KAFKA_NONE);
    assert_true(a.producer_id >= 0);
    assert_true(b.producer_id >= 0);
    assert_true(a.producer_id != b.producer_id);
    assert_int_equal(a.producer_epoch, 0);
    assert_int_equal(b.producer_epoch, 0);

    wire_init_producer_id_response c = init_pid(&n, &s, 3, 3, NULL, b.producer_id, 0);
    assert_int_equal(c.error_code, KAFKA_NONE);
    assert_int_equal(c.producer_id, b.producer_id);
    assert_int_equal(c.producer_epoch, 1);
    c = init_pid(&n, &s, 5, 4, NULL, b.producer_id, 1);
    assert_int_equal(c.producer_id, b.producer_id);
    assert_int_equal(c.producer_epoch, 2);
    /* A transactional id goes to the coordinator: test_handler_txn.c. */
    tn_close(&n);
}

static void test_find_coordinator_v0(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {1};
    wire_find_coordinator_request req = {.key = kq_slice_cstr("group-1")};
    TN_SEND(&n, &s, WIRE_API_FIND_COORDINATOR, 0, 9, wire_find_coordinator_request_encode, &req);
    wire_find_coordinator_response resp;
    TN_DECODE(&n, &s, WIRE_API_FIND_COORDINATOR, 0, 9, wire_find_coordinator_response_decode,
              &resp);
    /* The leader coordinates every group (test_handler_groups.c). */
    assert_int_equal(resp.error_code, KAFKA_NONE);
    assert_int_equal(resp.node_id, 1);
    assert_int_equal(resp.port, TN_PORT_BASE + 1);
    tn_close(&n);
}

static void test_describe_cluster_v1(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {1};
    wire_describe_cluster_request req = {.endpoint_type = 2};
    TN_SEND(&n, &s, WIRE_API_DESCRIBE_CLUSTER, 1, 10, wire_describe_cluster_request_encode, &req);
    wire_describe_cluster_response resp;
    TN_DECODE(&n, &s, WIRE_API_DESCRIBE_CLUSTER, 1, 10, wire_describe_cluster_response_decode,
              &resp);
    assert_int_equal(resp.error_code, KAFKA_NONE);
    assert_int_equal(resp.endpoint_type, 2);
    assert_int_equal(resp.controller_id, 1);
    assert_true(kq_slice_eq_cstr(resp.cluster_id, TN_CLUSTER_ID));
    assert_int_equal(resp.broker_count, 1);
    assert_int_equal(resp.brokers[0].broker_id, 1);
    assert_true(kq_slice_eq_cstr(resp.brokers[0].host, "node1.test"));
    assert_int_equal(resp.brokers[0].port, TN_PORT_BASE + 1);
    tn_close(&n);
}

/* Peer 2's answer to our DescribeCluster (brokers) names its client
 * listener; Metadata and DescribeCluster (brokers) then send clients
 * there, node 3 (not heard from) stays at its voter endpoint, and the
 * controllers stay at the voter endpoints. */
/* A relayed DescribeQuorum (a follower's forward) is a quorum request:
 * refused on a client listener, answered on a controller one. */
static void test_describe_quorum_relay_only_from_quorum(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    wire_describe_quorum_partition qp = {0};
    wire_describe_quorum_topic qt = {kq_slice_cstr(META), &qp, 1};
    wire_describe_quorum_request req = {&qt, 1};
    tn_slot slots[] = {{TN_CLIENT_LISTENER_ID + 1}, {1}};
    int16_t want[] = {KAFKA_CLUSTER_AUTHORIZATION_FAILED, KAFKA_NONE};
    for (int i = 0; i < 2; i++) {
        kq_writer w;
        kq_writer_init(&w, 0);
        wire_request_header hdr = {.api_key = WIRE_API_DESCRIBE_QUORUM, .api_version = 1,
                                   .correlation_id = 30 + i,
                                   .client_id = kq_slice_cstr("kq-forwarded")};
        wire_request_header_encode(&w, &hdr);
        wire_describe_quorum_request_encode(&w, 1, &req);
        tn_deliver(&n, &slots[i], &w);
        wire_describe_quorum_response resp;
        TN_DECODE(&n, &slots[i], WIRE_API_DESCRIBE_QUORUM, 1, 30 + i,
                  wire_describe_quorum_response_decode, &resp);
        assert_int_equal(resp.error_code, want[i]);
    }
    tn_close(&n);
}

static void test_peer_client_endpoints(void **state)
{
    (void)state;
    tn_node n;
    tn_open(&n, 1, 3);
    uint8_t *req = NULL;
    size_t req_len = 0;
    assert_true(handler_encode_endpoint_request(n.h, 5, -1, &req, &req_len));
    assert_true(req_len > 8);
    free(req);

    wire_describe_cluster_broker peer[] = {
        {.broker_id = 3, .host = kq_slice_cstr("wrong.test"), .port = 1, .rack = {NULL, -1}},
        {.broker_id = 2, .host = kq_slice_cstr("client2.test"), .port = 19092,
         .rack = {NULL, -1}},
    };
    wire_describe_cluster_response dc = {.error_message = {NULL, -1}, .endpoint_type = 1,
                                         .cluster_id = kq_slice_cstr(TN_CLUSTER_ID),
                                         .controller_id = 2, .brokers = peer, .broker_count = 2,
                                         .cluster_authorized_operations = INT32_MIN};
    kq_writer w;
    kq_writer_init(&w, 0);
    wire_response_header_encode(&w, WIRE_API_DESCRIBE_CLUSTER, 1, 5);
    wire_describe_cluster_response_encode(&w, 1, &dc);
    assert_false(handler_note_peer_endpoint(n.h, 2, -1, w.data, w.len - 1)); /* truncated */
    assert_true(handler_note_peer_endpoint(n.h, 2, -1, w.data, w.len));
    dc.brokers = &peer[1]; /* node 3's answer without its own entry: nothing learned */
    dc.broker_count = 1;
    kq_writer_reset(&w);
    wire_response_header_encode(&w, WIRE_API_DESCRIBE_CLUSTER, 1, 6);
    wire_describe_cluster_response_encode(&w, 1, &dc);
    assert_false(handler_note_peer_endpoint(n.h, 3, -1, w.data, w.len));
    kq_writer_free(&w);

    tn_slot s = {1};
    wire_metadata_response resp;
    metadata(&n, &s, 12, 1, NULL, -1, &resp);
    assert_int_equal(resp.broker_count, 3);
    assert_true(kq_slice_eq_cstr(resp.brokers[0].host, "node1.test"));
    assert_true(kq_slice_eq_cstr(resp.brokers[1].host, "client2.test"));
    assert_int_equal(resp.brokers[1].port, 19092);
    assert_true(kq_slice_eq_cstr(resp.brokers[2].host, "node3.test")); /* B's word on C: no */

    for (int8_t type = 1; type <= 2; type++) {
        wire_describe_cluster_request dreq = {.endpoint_type = type};
        TN_SEND(&n, &s, WIRE_API_DESCRIBE_CLUSTER, 1, 20 + type,
                wire_describe_cluster_request_encode, &dreq);
        wire_describe_cluster_response d;
        TN_DECODE(&n, &s, WIRE_API_DESCRIBE_CLUSTER, 1, 20 + type,
                  wire_describe_cluster_response_decode, &d);
        assert_int_equal(d.broker_count, 3);
        assert_true(kq_slice_eq_cstr(d.brokers[1].host, type == 1 ? "client2.test" : "node2.test"));
    }
    tn_close(&n);
}

static void test_describe_quorum_on_leader(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {1}, p = {2};
    kq_writer b;
    tn_batch(&b, -1, -1, -1, 4, "dq");
    wire_produce_partition pp = {.index = 0, .records = {b.data, (int32_t)b.len}};
    wire_produce_topic pt = {.name = kq_slice_cstr(META), .partitions = &pp, .partition_count = 1};
    wire_produce_request preq = {.transactional_id = {NULL, -1}, .acks = -1, .timeout_ms = 30000,
                                 .topics = &pt, .topic_count = 1};
    TN_SEND(&n, &p, WIRE_API_PRODUCE, 9, 1, wire_produce_request_encode, &preq);
    kq_writer_free(&b);
    tn_flush(&n);
    assert_int_equal(tn_count(&n, &p), 1);

    wire_describe_quorum_partition qp = {0};
    wire_describe_quorum_topic qt = {kq_slice_cstr(META), &qp, 1};
    wire_describe_quorum_request req = {&qt, 1};
    TN_SEND(&n, &s, WIRE_API_DESCRIBE_QUORUM, 1, 11, wire_describe_quorum_request_encode, &req);
    wire_describe_quorum_response resp;
    TN_DECODE(&n, &s, WIRE_API_DESCRIBE_QUORUM, 1, 11, wire_describe_quorum_response_decode,
              &resp);
    assert_int_equal(resp.error_code, KAFKA_NONE);
    assert_int_equal(resp.topic_count, 1);
    assert_true(kq_slice_eq_cstr(resp.topics[0].topic_name, META));
    assert_int_equal(resp.topics[0].partition_count, 1);
    const wire_describe_quorum_partition_data *pd = &resp.topics[0].partitions[0];
    assert_int_equal(pd->error_code, KAFKA_NONE);
    assert_int_equal(pd->leader_id, 1);
    assert_int_equal(pd->leader_epoch, tn_status(&n).epoch);
    assert_int_equal(pd->high_watermark, 5);
    assert_int_equal(pd->current_voter_count, 1);
    assert_int_equal(pd->current_voters[0].replica_id, 1);
    assert_int_equal(pd->current_voters[0].log_end_offset, 5);
    assert_int_equal(pd->observer_count, 0);

    /* an unknown partition is refused */
    qp.partition_index = 3;
    TN_SEND(&n, &s, WIRE_API_DESCRIBE_QUORUM, 2, 12, wire_describe_quorum_request_encode, &req);
    TN_DECODE(&n, &s, WIRE_API_DESCRIBE_QUORUM, 2, 12, wire_describe_quorum_response_decode,
              &resp);
    assert_int_equal(resp.topics[0].partitions[0].error_code, KAFKA_UNKNOWN_TOPIC_OR_PARTITION);
    assert_int_equal(resp.node_count, 1);
    assert_int_equal(resp.nodes[0].node_id, 1);
    tn_close(&n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_api_versions_v3),
        cmocka_unit_test(test_api_versions_unsupported_version),
        cmocka_unit_test(test_metadata_v1_and_v12),
        cmocka_unit_test(test_metadata_all_topics),
        cmocka_unit_test(test_metadata_without_leader),
        cmocka_unit_test(test_init_producer_id),
        cmocka_unit_test(test_find_coordinator_v0),
        cmocka_unit_test(test_describe_cluster_v1),
        cmocka_unit_test(test_describe_quorum_on_leader),
        cmocka_unit_test(test_peer_client_endpoints),
        cmocka_unit_test(test_describe_quorum_relay_only_from_quorum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
