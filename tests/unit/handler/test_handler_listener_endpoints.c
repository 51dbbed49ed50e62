/* Issue 19 item 13: Metadata, DescribeCluster and FindCoordinator name this
 * node by the listener they were asked on, for every listener kind
 * (PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL), as Kafka's brokers answer per
 * listener name; a controller or seed-style listener (no endpoint of its
 * own) keeps naming the voter endpoint. */
#include "handler_test_node.h"

#include "kq/auth.h"
#include "kq/wire_describe_cluster.h"
#include "kq/wire_find_coordinator.h"
#include "kq/wire_metadata.h"
#include "kq/wire_sasl.h"

static void make_store(void)
{
    kq_scram_credential c[KQ_SCRAM_HASH_COUNT];
    memset(c, 0, sizeof c);
    assert_int_equal(kq_scram_credential_new(KQ_SCRAM_SHA_256, (const uint8_t *)"pw", 2, 4096,
                                             &c[0]), 0);
    char line[AUTH_CRED_LINE_BYTES_MAX];
    assert_true(kq_cred_line_format("alice", c, line, sizeof line) > 0);
    char err[256];
    assert_int_equal(kq_cred_store_parse("test", line, strlen(line), &tn_sasl_store, err,
                                         sizeof err), 0);
}

static void login(tn_node *n, tn_slot *s)
{
    wire_sasl_handshake_request hs = {kq_slice_cstr("PLAIN")};
    TN_SEND(n, s, WIRE_API_SASL_HANDSHAKE, 1, 1, wire_sasl_handshake_request_encode, &hs);
    wire_sasl_authenticate_request req = {{(const uint8_t *)"\0alice\0pw", 9}};
    TN_SEND(n, s, WIRE_API_SASL_AUTHENTICATE, 2, 2, wire_sasl_authenticate_request_encode, &req);
    wire_sasl_authenticate_response resp;
    TN_DECODE(n, s, WIRE_API_SASL_AUTHENTICATE, 2, 2, wire_sasl_authenticate_response_decode,
              &resp);
    assert_int_equal(resp.error_code, KAFKA_NONE);
}

/* What the three APIs answer on slot s for this node: all must agree. */
static void assert_named(tn_node *n, tn_slot *s, const char *host, int32_t port)
{
    wire_metadata_request md = {.topics = NULL, .topic_count = -1};
    TN_SEND(n, s, WIRE_API_METADATA, 12, 10, wire_metadata_request_encode, &md);
    wire_metadata_response mr;
    TN_DECODE(n, s, WIRE_API_METADATA, 12, 10, wire_metadata_response_decode, &mr);
    assert_int_equal(mr.broker_count, 1);
    assert_true(kq_slice_eq_cstr(mr.brokers[0].host, host));
    assert_int_equal(mr.brokers[0].port, port);

    wire_describe_cluster_request dc = {.endpoint_type = 1};
    TN_SEND(n, s, WIRE_API_DESCRIBE_CLUSTER, 1, 11, wire_describe_cluster_request_encode, &dc);
    wire_describe_cluster_response dr;
    TN_DECODE(n, s, WIRE_API_DESCRIBE_CLUSTER, 1, 11, wire_describe_cluster_response_decode, &dr);
    assert_int_equal(dr.broker_count, 1);
    assert_true(kq_slice_eq_cstr(dr.brokers[0].host, host));
    assert_int_equal(dr.brokers[0].port, port);

    wire_find_coordinator_request fc = {.key = kq_slice_cstr("group-1")};
    TN_SEND(n, s, WIRE_API_FIND_COORDINATOR, 0, 12, wire_find_coordinator_request_encode, &fc);
    wire_find_coordinator_response fr;
    TN_DECODE(n, s, WIRE_API_FIND_COORDINATOR, 0, 12, wire_find_coordinator_response_decode, &fr);
    assert_int_equal(fr.error_code, KAFKA_NONE);
    assert_true(kq_slice_eq_cstr(fr.host, host));
    assert_int_equal(fr.port, port);
}

static void test_each_listener_kind_names_its_own_endpoint(void **state)
{
    (void)state;
    static const char *const hosts[TN_KINDS] = {"plain.test", "ssl.test", "sasl.test",
                                                "sasl-ssl.test"};
    for (int k = 0; k < TN_KINDS; k++) {
        tn_listener_endpoints[k] = (handler_endpoint){.node_id = 1, .port = (uint16_t)(9500 + k)};
        snprintf(tn_listener_endpoints[k].host, sizeof tn_listener_endpoints[k].host, "%s",
                 hosts[k]);
    }
    tn_node n;
    tn_open_leader(&n);
    for (int k = 0; k < TN_KINDS; k++) {
        tn_slot s = {TN_LISTENER_ID + k};
        if (k == TN_SASL_PLAINTEXT || k == TN_SASL_SSL)
            login(&n, &s);
        assert_named(&n, &s, hosts[k], 9500 + k);
    }
    /* A quorum (controller) connection: the voter endpoint, as before. */
    tn_slot quorum = {1};
    assert_named(&n, &quorum, "node1.test", TN_PORT_BASE + 1);
    /* A listener without an endpoint of its own (port 0): the same. */
    tn_listener_endpoints[TN_SASL_PLAINTEXT].port = 0;
    tn_slot sasl = {TN_LISTENER_ID + TN_SASL_PLAINTEXT};
    assert_named(&n, &sasl, "node1.test", TN_PORT_BASE + 1);
    tn_close(&n);
}

static void two_client_listeners(exec_config *c)
{
    c->client_listener_count = 2;
    snprintf(c->client_listeners[0].name, sizeof c->client_listeners[0].name, "PLAIN");
    snprintf(c->client_listeners[0].endpoint.host, 256, "plain.test");
    c->client_listeners[0].endpoint.port = 9500;
    snprintf(c->client_listeners[1].name, sizeof c->client_listeners[1].name, "SASL");
    snprintf(c->client_listeners[1].endpoint.host, 256, "sasl.test");
    c->client_listeners[1].endpoint.port = 9502;
}

/* In a quorum every node is named by its endpoint on the listener asked:
 * each asks its peers per listener name (the name in the client id of a
 * DescribeCluster on the controller connection) and each answers with its
 * own endpoint on that listener. */
static void test_peers_named_by_listener(void **state)
{
    (void)state;
    tn_config_hook = two_client_listeners;
    tn_node n;
    tn_open(&n, 1, 3);
    tn_config_hook = NULL;
    /* Our request for listener SASL carries its name. */
    uint8_t *req = NULL;
    size_t len = 0;
    assert_true(handler_encode_endpoint_request(n.h, 5, 1, &req, &len));
    kq_reader r;
    kq_reader_init(&r, req, len);
    wire_request_header hdr;
    assert_int_equal(wire_request_header_decode(&r, &hdr), 0);
    assert_true(kq_slice_eq_cstr(hdr.client_id, "kq-endpoint/SASL"));
    /* A peer asking us so (on the controller connection) gets our SASL one. */
    tn_slot quorum = {1};
    tn_deliver_raw(&n, &quorum, req, len);
    free(req);
    wire_describe_cluster_response dr;
    TN_DECODE(&n, &quorum, WIRE_API_DESCRIBE_CLUSTER, 1, 5, wire_describe_cluster_response_decode,
              &dr);
    assert_true(kq_slice_eq_cstr(dr.brokers[0].host, "sasl.test"));
    assert_int_equal(dr.brokers[0].port, 9502);

    /* Peer 2's answer for SASL; Metadata on our SASL listener names it. */
    wire_describe_cluster_broker peer = {.broker_id = 2, .host = kq_slice_cstr("n2-sasl.test"),
                                         .port = 9602, .rack = {NULL, -1}};
    wire_describe_cluster_response dc = {.error_message = {NULL, -1}, .endpoint_type = 1,
                                         .cluster_id = kq_slice_cstr(TN_CLUSTER_ID),
                                         .controller_id = 2, .brokers = &peer, .broker_count = 1,
                                         .cluster_authorized_operations = INT32_MIN};
    kq_writer w;
    kq_writer_init(&w, 0);
    wire_response_header_encode(&w, WIRE_API_DESCRIBE_CLUSTER, 1, 6);
    wire_describe_cluster_response_encode(&w, 1, &dc);
    assert_true(handler_note_peer_endpoint(n.h, 2, 1, w.data, w.len));
    kq_writer_free(&w);
    tn_listener_endpoints[TN_SASL_PLAINTEXT] =
        (handler_endpoint){.node_id = 1, .host = "sasl.test", .port = 9502};
    tn_listener_endpoints[TN_PLAINTEXT] =
        (handler_endpoint){.node_id = 1, .host = "plain.test", .port = 9500};
    tn_slot sasl = {TN_LISTENER_ID + TN_SASL_PLAINTEXT}, plain = {TN_LISTENER_ID + TN_PLAINTEXT};
    login(&n, &sasl);
    wire_metadata_request md = {.topics = NULL, .topic_count = -1};
    TN_SEND(&n, &sasl, WIRE_API_METADATA, 12, 20, wire_metadata_request_encode, &md);
    wire_metadata_response mr;
    TN_DECODE(&n, &sasl, WIRE_API_METADATA, 12, 20, wire_metadata_response_decode, &mr);
    assert_int_equal(mr.broker_count, 3);
    assert_int_equal(mr.brokers[0].port, 9502);
    assert_true(kq_slice_eq_cstr(mr.brokers[1].host, "n2-sasl.test"));
    assert_int_equal(mr.brokers[1].port, 9602);
    assert_true(kq_slice_eq_cstr(mr.brokers[2].host, "node3.test")); /* not heard from */
    /* On PLAIN, peer 2 is not known for that name: its client endpoint
     * (here still its voter endpoint). */
    TN_SEND(&n, &plain, WIRE_API_METADATA, 12, 21, wire_metadata_request_encode, &md);
    TN_DECODE(&n, &plain, WIRE_API_METADATA, 12, 21, wire_metadata_response_decode, &mr);
    assert_int_equal(mr.brokers[0].port, 9500);
    assert_true(kq_slice_eq_cstr(mr.brokers[1].host, "node2.test"));
    tn_close(&n);
}

static int setup(void **state)
{
    (void)state;
    make_store();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    kq_cred_store_free(tn_sasl_store);
    tn_sasl_store = NULL;
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_listener_kind_names_its_own_endpoint),
        cmocka_unit_test(test_peers_named_by_listener),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
