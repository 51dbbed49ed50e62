/* Issue 19 item 10: the replica and quorum APIs need the quorum's identity
 * on every listener that serves them. On a SASL quorum listener (no
 * controller.listener.names) a principal that is neither a super user nor
 * allowed CLUSTER_ACTION is refused, before the core, a replica Fetch, a
 * FetchSnapshot and a Vote; with the authorizer on, so is User:ANONYMOUS on
 * a PLAINTEXT quorum listener unless listed; a DescribeQuorum claiming to be
 * a relay by its client id (kq-forwarded) is refused unless the connection
 * may speak for the quorum; with the authorizer off on PLAINTEXT, today's
 * trust stays. */
#include "handler_test_node.h"

#include "kq/auth.h"
#include "kq/wire_describe_quorum.h"
#include "kq/wire_fetch.h"
#include "kq/wire_fetch_snapshot.h"
#include "kq/wire_sasl.h"
#include "kq/wire_vote.h"

#define META "__cluster_metadata"

static const char *const supers[] = {"User:admin"};
static const char *const cluster_ops[] = {"User:ANONYMOUS"};
static const char *const consumers[] = {"User:alice"};

static void make_store(void)
{
    kq_scram_credential c[KQ_SCRAM_HASH_COUNT];
    char lines[2 * AUTH_CRED_LINE_BYTES_MAX] = "";
    const char *users[] = {"alice", "admin"};
    for (int u = 0; u < 2; u++) {
        memset(c, 0, sizeof c);
        assert_int_equal(kq_scram_credential_new(KQ_SCRAM_SHA_256, (const uint8_t *)"pw", 2,
                                                 4096, &c[0]), 0);
        char line[AUTH_CRED_LINE_BYTES_MAX];
        assert_true(kq_cred_line_format(users[u], c, line, sizeof line) > 0);
        strcat(lines, line);
        strcat(lines, "\n");
    }
    char err[256];
    assert_int_equal(kq_cred_store_parse("test", lines, strlen(lines), &tn_sasl_store, err,
                                         sizeof err), 0);
}

/* Logs connection s in as user with PLAIN. */
static void login(tn_node *n, tn_slot *s, const char *user)
{
    wire_sasl_handshake_request hs = {kq_slice_cstr("PLAIN")};
    TN_SEND(n, s, WIRE_API_SASL_HANDSHAKE, 1, 1, wire_sasl_handshake_request_encode, &hs);
    char token[64];
    size_t len = (size_t)snprintf(token, sizeof token, "%c%s%cpw", 0, user, 0);
    wire_sasl_authenticate_request req = {{(const uint8_t *)token, (int32_t)len}};
    TN_SEND(n, s, WIRE_API_SASL_AUTHENTICATE, 2, 2, wire_sasl_authenticate_request_encode, &req);
    wire_sasl_authenticate_response resp;
    TN_DECODE(n, s, WIRE_API_SASL_AUTHENTICATE, 2, 2, wire_sasl_authenticate_response_decode,
              &resp);
    assert_int_equal(resp.error_code, KAFKA_NONE);
}

static int16_t replica_fetch(tn_node *n, tn_slot *s, int32_t corr, int32_t replica)
{
    wire_fetch_partition p = {.partition = 0, .current_leader_epoch = 1, .fetch_offset = 0,
                              .last_fetched_epoch = 0, .log_start_offset = -1,
                              .partition_max_bytes = 1 << 20};
    wire_fetch_topic t = {.topic = kq_slice_cstr(META), .topic_id = WIRE_METADATA_TOPIC_ID,
                          .partitions = &p, .partition_count = 1};
    wire_fetch_request req = {.cluster_id = kq_slice_cstr(TN_CLUSTER_ID), .replica_id = replica,
                              .replica_epoch = -1, .max_bytes = 1 << 20, .session_epoch = -1,
                              .topics = &t, .topic_count = 1, .rack_id = kq_slice_cstr("")};
    int before = tn_count(n, s);
    TN_SEND(n, s, WIRE_API_FETCH, 15, corr, wire_fetch_request_encode, &req);
    assert_int_equal(tn_count(n, s), before + 1); /* answered at once either way */
    wire_fetch_response resp;
    TN_DECODE(n, s, WIRE_API_FETCH, 15, corr, wire_fetch_response_decode, &resp);
    if (resp.error_code != KAFKA_NONE)
        return resp.error_code;
    assert_int_equal(resp.response_count, 1);
    return resp.responses[0].partitions[0].error_code;
}

static int16_t fetch_snapshot(tn_node *n, tn_slot *s, int32_t corr)
{
    wire_fetch_snapshot_partition p = {.partition = 0, .current_leader_epoch = 1,
                                       .snapshot_id = {10, 1}, .position = 0};
    wire_fetch_snapshot_topic t = {kq_slice_cstr(META), &p, 1};
    wire_fetch_snapshot_request req = {.cluster_id = kq_slice_cstr(TN_CLUSTER_ID),
                                       .replica_id = 2, .max_bytes = 1 << 20, .topics = &t,
                                       .topic_count = 1};
    TN_SEND(n, s, WIRE_API_FETCH_SNAPSHOT, 1, corr, wire_fetch_snapshot_request_encode, &req);
    wire_fetch_snapshot_response resp;
    TN_DECODE(n, s, WIRE_API_FETCH_SNAPSHOT, 1, corr, wire_fetch_snapshot_response_decode,
              &resp);
    return resp.error_code;
}

static int16_t vote(tn_node *n, tn_slot *s, int32_t corr)
{
    wire_vote_partition p = {.partition_index = 0, .candidate_epoch = 5, .candidate_id = 2};
    wire_vote_topic t = {kq_slice_cstr(META), &p, 1};
    wire_vote_request req = {.cluster_id = kq_slice_cstr(TN_CLUSTER_ID), .voter_id = 1,
                             .topics = &t, .topic_count = 1};
    int before = tn_count(n, s);
    TN_SEND(n, s, WIRE_API_VOTE, 1, corr, wire_vote_request_encode, &req);
    if (tn_count(n, s) == before)
        return KAFKA_NONE; /* went to the core (its answer comes later) */
    wire_vote_response resp;
    TN_DECODE(n, s, WIRE_API_VOTE, 1, corr, wire_vote_response_decode, &resp);
    return resp.error_code;
}

/* A DescribeQuorum with the relay's client id. */
static int16_t claimed_relay(tn_node *n, tn_slot *s, int32_t corr)
{
    wire_describe_quorum_partition qp = {0};
    wire_describe_quorum_topic qt = {kq_slice_cstr(META), &qp, 1};
    wire_describe_quorum_request req = {&qt, 1};
    kq_writer w;
    kq_writer_init(&w, 0);
    wire_request_header hdr = {.api_key = WIRE_API_DESCRIBE_QUORUM, .api_version = 1,
                               .correlation_id = corr,
                               .client_id = kq_slice_cstr("kq-forwarded")};
    wire_request_header_encode(&w, &hdr);
    wire_describe_quorum_request_encode(&w, 1, &req);
    tn_deliver(n, s, &w);
    wire_describe_quorum_response resp;
    TN_DECODE(n, s, WIRE_API_DESCRIBE_QUORUM, 1, corr, wire_describe_quorum_response_decode,
              &resp);
    return resp.error_code;
}

/* The case: carol (here alice, allowed only to consume) on a SASL
 * listener that is a quorum listener, the authorizer off or on. */
static void sasl_principal_refused(bool acl_on)
{
    handler_acl acl = {.enabled = acl_on, .super_users = supers, .super_user_count = 1};
    acl.allowed[HANDLER_OP_CONSUME] = consumers;
    acl.allowed_count[HANDLER_OP_CONSUME] = 1;
    tn_acl = &acl;
    tn_sasl_quorum = true;
    tn_node n;
    tn_open_leader(&n);
    int64_t end = kq_log_end_offset(n.log);
    tn_slot alice = {TN_SASL_ID}, admin = {TN_SASL_ID + 1};
    login(&n, &alice, "alice");
    login(&n, &admin, "admin");
    assert_int_equal(replica_fetch(&n, &alice, 10, 7), KAFKA_CLUSTER_AUTHORIZATION_FAILED);
    assert_int_equal(fetch_snapshot(&n, &alice, 11), KAFKA_CLUSTER_AUTHORIZATION_FAILED);
    assert_int_equal(vote(&n, &alice, 12), KAFKA_CLUSTER_AUTHORIZATION_FAILED);
    assert_int_equal(claimed_relay(&n, &alice, 13), KAFKA_CLUSTER_AUTHORIZATION_FAILED);
    raft_status st = tn_status(&n);
    assert_int_equal(st.role, RAFT_ROLE_LEADER);
    assert_int_equal(st.observer_count, 0); /* replica 7 never reached the core */
    assert_int_equal(kq_log_end_offset(n.log), end);
    /* A super user is allowed CLUSTER_ACTION: the core answers it. */
    assert_int_equal(replica_fetch(&n, &admin, 20, 7), KAFKA_NONE);
    assert_int_equal(tn_status(&n).observer_count, 1);
    assert_int_equal(claimed_relay(&n, &admin, 21), KAFKA_NONE);
    tn_close(&n);
    tn_acl = NULL;
    tn_sasl_quorum = false;
}

static void test_sasl_principal_refused_authorizer_off(void **state)
{
    (void)state;
    sasl_principal_refused(false);
}

static void test_sasl_principal_refused_authorizer_on(void **state)
{
    (void)state;
    sasl_principal_refused(true);
}

/* With the authorizer on, User:ANONYMOUS on a PLAINTEXT quorum listener
 * speaks for the quorum only when allowed CLUSTER_ACTION, as in Kafka
 * (where it would be a super user); off, the network is trusted. */
static void test_plaintext_quorum_listener(void **state)
{
    (void)state;
    handler_acl acl = {.enabled = true, .super_users = supers, .super_user_count = 1};
    for (int allowed = 0; allowed < 3; allowed++) {
        acl.allowed[HANDLER_OP_CLUSTER_ACTION] = allowed == 1 ? cluster_ops : NULL;
        acl.allowed_count[HANDLER_OP_CLUSTER_ACTION] = allowed == 1 ? 1 : 0;
        acl.enabled = allowed < 2; /* 2: the authorizer off */
        tn_acl = &acl;
        tn_node n;
        tn_open_leader(&n);
        tn_slot plain = {1};
        int16_t want = allowed ? KAFKA_NONE : KAFKA_CLUSTER_AUTHORIZATION_FAILED;
        assert_int_equal(replica_fetch(&n, &plain, 30, 7), want);
        assert_int_equal(claimed_relay(&n, &plain, 31), want);
        if (!allowed)
            assert_int_equal(fetch_snapshot(&n, &plain, 32), KAFKA_CLUSTER_AUTHORIZATION_FAILED);
        tn_close(&n);
    }
    tn_acl = NULL;
}

/* On a listener proving voters by certificate the voter's own certificate
 * keeps working with the authorizer on, whatever the lists say; a relay
 * needs some voter's certificate. */
static void test_voter_certificate_with_authorizer(void **state)
{
    (void)state;
    handler_acl acl = {.enabled = true, .super_users = supers, .super_user_count = 1};
    tn_acl = &acl;
    tn_node n;
    tn_open(&n, 1, 3);
    tn_slot voter2 = {TN_VOTER_CERT_ID + 2}, stranger = {TN_VOTER_CERT_ID};
    assert_int_not_equal(vote(&n, &voter2, 40), KAFKA_CLUSTER_AUTHORIZATION_FAILED);
    assert_int_equal(vote(&n, &stranger, 41), KAFKA_CLUSTER_AUTHORIZATION_FAILED);
    assert_int_equal(claimed_relay(&n, &stranger, 42), KAFKA_CLUSTER_AUTHORIZATION_FAILED);
    assert_int_not_equal(claimed_relay(&n, &voter2, 43), KAFKA_CLUSTER_AUTHORIZATION_FAILED);
    tn_close(&n);
    tn_acl = NULL;
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
        cmocka_unit_test(test_sasl_principal_refused_authorizer_off),
        cmocka_unit_test(test_sasl_principal_refused_authorizer_on),
        cmocka_unit_test(test_plaintext_quorum_listener),
        cmocka_unit_test(test_voter_certificate_with_authorizer),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
