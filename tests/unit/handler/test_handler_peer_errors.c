/* Issue 22 item 5: a peer's error code, and an answer from a peer that we
 * cannot read, are logged once per peer and code (per
 * EXEC_PEER_ERROR_LOG_MS), naming the peer, the request and the error by
 * Kafka's name, so that a mixed quorum's misconfiguration can be debugged
 * from one line and does not flood the log. */
#include "handler_test_node.h"

#include "kq/log_line.h"
#include "kq/wire.h"
#include "kq/wire_describe_cluster.h"
#include "kq/wire_vote.h"

static char lines[16][512];
static int line_count;

static void sink(void *ctx, const char *line)
{
    (void)ctx;
    if (strstr(line, "peer 2") && line_count < 16)
        snprintf(lines[line_count++], sizeof lines[0], "%s", line);
}

static uint64_t vote_tag;
static int32_t vote_corr;

static void on_send(int32_t node_id, int32_t corr, uint64_t tag)
{
    if (node_id == 2 && vote_tag == 0) {
        vote_tag = tag; /* the first request to peer 2: a (pre-)vote */
        vote_corr = corr;
    }
}

/* Peer 2 answers our vote with top-level error err. */
static void answer(tn_node *n, int16_t err, int16_t part)
{
    int16_t version = (int16_t)((vote_tag >> 1) & 0xffff);
    kq_writer w;
    kq_writer_init(&w, 0);
    wire_response_header_encode(&w, WIRE_API_VOTE, version, vote_corr);
    wire_vote_partition_result pr = {.partition_index = 0, .error_code = part, .leader_id = -1,
                                     .leader_epoch = 0};
    wire_vote_topic_result tr = {kq_slice_cstr("__cluster_metadata"), &pr, 1};
    wire_vote_response resp = {.error_code = err, .topics = &tr, .topic_count = 1};
    wire_vote_response_encode(&w, version, &resp);
    exec_on_peer_response(n->x, 2, vote_tag, w.data, w.len);
    kq_writer_free(&w);
}

static void test_peer_errors_logged_once_per_code(void **state)
{
    (void)state;
    tn_peer_send_hook = on_send;
    tn_node n;
    tn_open(&n, 1, 3);
    for (int64_t t = 1000000; vote_tag == 0 && t < 1100000; t += 100)
        tn_tick(&n, t);
    assert_true(vote_tag != 0);
    log_line_set_sink(sink, NULL);
    for (int i = 0; i < 5; i++)
        answer(&n, KAFKA_INVALID_REQUEST, KAFKA_NONE);
    assert_int_equal(line_count, 1);
    assert_non_null(strstr(lines[0], "peer 2 answers our Vote with INVALID_REQUEST (42)"));
    for (int i = 0; i < 3; i++)
        answer(&n, KAFKA_INCONSISTENT_CLUSTER_ID, KAFKA_NONE);
    assert_int_equal(line_count, 2); /* another code: one more line */
    assert_non_null(strstr(lines[1], "INCONSISTENT_CLUSTER_ID (104)"));
    answer(&n, KAFKA_NONE, KAFKA_INVALID_VOTER_KEY);
    answer(&n, KAFKA_NONE, KAFKA_INVALID_VOTER_KEY);
    assert_int_equal(line_count, 3);
    assert_non_null(strstr(lines[2], "INVALID_VOTER_KEY (125) for the partition"));
    static const uint8_t junk[3] = {1, 2, 3};
    for (int i = 0; i < 4; i++)
        exec_on_peer_response(n.x, 2, vote_tag, junk, sizeof junk);
    assert_int_equal(line_count, 4);
    assert_non_null(strstr(lines[3], "peer 2's answer to our Vote"));
    assert_non_null(strstr(lines[3], "cannot be read"));
    /* After the window the same code is named again. */
    tn_tick(&n, 1100000 + EXEC_PEER_ERROR_LOG_MS);
    answer(&n, KAFKA_INVALID_REQUEST, KAFKA_NONE);
    assert_int_equal(line_count, 5);
    log_line_set_sink(NULL, NULL);
    tn_close(&n);
    tn_peer_send_hook = NULL;
}

static uint64_t endpoint_tag;
static int32_t endpoint_corr;
static int endpoint_asks;

static void on_endpoint_send(int32_t node_id, int32_t corr, uint64_t tag)
{
    if (node_id == 2 && (tag & 1u) == 0) { /* the endpoint requests' class */
        endpoint_tag = tag;
        endpoint_corr = corr;
        endpoint_asks++;
    }
}

static void discover(exec_config *c)
{
    c->client_endpoint.node_id = c->node_id;
    snprintf(c->client_endpoint.host, sizeof c->client_endpoint.host, "client%d.test",
             (int)c->node_id);
    c->client_endpoint.port = 19000;
    c->discover_client_endpoints = true;
}

/* A peer that answers DescribeCluster with an error (Kafka's TestRaftServer:
 * UNKNOWN_SERVER_ERROR, and an ERROR line in its log each time) is asked
 * again only after EXEC_ENDPOINT_UNUSABLE_MS, not every second (issue 22);
 * a peer that does not answer at all is asked again after
 * EXEC_ENDPOINT_RETRY_MS. */
static void test_unusable_endpoint_answer_not_asked_every_second(void **state)
{
    (void)state;
    tn_config_hook = discover;
    tn_peer_send_hook = on_endpoint_send;
    tn_node n;
    tn_open(&n, 1, 3);
    int64_t t = 1000000;
    for (; endpoint_asks == 0 && t < 1010000; t += 100)
        tn_tick(&n, t);
    assert_int_equal(endpoint_asks, 1);
    kq_writer w;
    kq_writer_init(&w, 0);
    wire_response_header_encode(&w, WIRE_API_DESCRIBE_CLUSTER, 1, endpoint_corr);
    wire_describe_cluster_response r = {.error_code = KAFKA_UNKNOWN_SERVER_ERROR,
                                        .error_message = {NULL, -1},
                                        .cluster_id = kq_slice_cstr("x")};
    wire_describe_cluster_response_encode(&w, 1, &r);
    exec_on_peer_response(n.x, 2, endpoint_tag, w.data, w.len);
    kq_writer_free(&w);
    for (int64_t end = t + EXEC_ENDPOINT_UNUSABLE_MS - 1000; t < end; t += 5000)
        tn_tick(&n, t);
    assert_int_equal(endpoint_asks, 1); /* not asked again within the wait */
    tn_tick(&n, t + 2000);
    assert_int_equal(endpoint_asks, 2);
    exec_on_peer_response(n.x, 2, endpoint_tag, NULL, 0); /* no answer: soon again */
    tn_tick(&n, t + 2000 + EXEC_ENDPOINT_RETRY_MS + 100);
    assert_int_equal(endpoint_asks, 3);
    tn_close(&n);
    tn_config_hook = NULL;
    tn_peer_send_hook = NULL;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_peer_errors_logged_once_per_code),
        cmocka_unit_test(test_unusable_endpoint_answer_not_asked_every_second),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
