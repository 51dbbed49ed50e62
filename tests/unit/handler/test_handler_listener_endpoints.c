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
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
