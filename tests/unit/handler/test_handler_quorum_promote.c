/* Issue 19, a listener shared by clients and peers (the seed's single
 * listener, no controller.listener.names): the handlers tell the transport
 * (exec_env.slot_quorum_accepted, through the real executor) when a quorum
 * request was accepted on a connection, so that it may promote that
 * connection to the quorum's reserved resources. Only an accepted one: a
 * replica Fetch with the wrong cluster id, one on a client listener (a
 * controller listener is named), one from a principal that may not
 * CLUSTER_ACTION, and a consumer's Fetch promote nothing. */
#include "handler_test_node.h"

#include "kq/wire_fetch.h"
#include "kq/wire_fetch_snapshot.h"
#include "kq/wire_vote.h"

#define META "__cluster_metadata"

/* A replica Fetch (replica >= 0) or a consumer's (-1) with cluster id
 * cluster (NULL: none); its top-level or partition error. */
static int16_t fetch(tn_node *n, tn_slot *s, int32_t corr, int32_t replica, const char *cluster)
{
    wire_fetch_partition p = {.partition = 0, .current_leader_epoch = 1, .fetch_offset = 0,
                              .last_fetched_epoch = 0, .log_start_offset = -1,
                              .partition_max_bytes = 1 << 20};
    wire_fetch_topic t = {.topic = kq_slice_cstr(META), .topic_id = WIRE_METADATA_TOPIC_ID,
                          .partitions = &p, .partition_count = 1};
    wire_fetch_request req = {.cluster_id = cluster ? kq_slice_cstr(cluster) : (kq_slice){NULL, -1},
                              .replica_id = replica, .replica_epoch = -1, .max_bytes = 1 << 20,
                              .session_epoch = -1, .topics = &t, .topic_count = 1,
                              .rack_id = kq_slice_cstr("")};
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

/* A replica Fetch accepted on the shared listener (a quorum listener that
 * is no named controller listener: slot ids below TN_CLIENT_LISTENER_ID)
 * reaches the transport with its slot and replica id, every time (the
 * transport promotes once); a consumer's Fetch on it does not. */
static void test_accepted_replica_fetch_promotes(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot consumer = {2}, peer = {1};
    assert_int_equal(fetch(&n, &consumer, 10, -1, NULL), KAFKA_NONE);
    assert_int_equal(n.quorum_accepted, 0);
    assert_int_equal(fetch(&n, &peer, 11, 7, TN_CLUSTER_ID), KAFKA_NONE);
    assert_int_equal(n.quorum_accepted, 1);
    assert_int_equal(n.quorum_accepted_slot, 1);
    assert_int_equal(n.quorum_accepted_replica, 7);
    assert_int_equal(fetch(&n, &peer, 12, 7, TN_CLUSTER_ID), KAFKA_NONE);
    assert_int_equal(n.quorum_accepted, 2);
    tn_close(&n);
}

/* Refused before the core: no promotion. */
static void test_refused_replica_fetch_does_not(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot shared = {1}, client = {TN_CLIENT_LISTENER_ID};
    assert_int_equal(fetch(&n, &shared, 20, 7, "another-cluster"),
                     KAFKA_INCONSISTENT_CLUSTER_ID);
    assert_int_equal(fetch(&n, &shared, 21, 7, NULL), KAFKA_INCONSISTENT_CLUSTER_ID);
    /* A client listener when controller.listener.names names another. */
    assert_int_equal(fetch(&n, &client, 22, 7, TN_CLUSTER_ID), KAFKA_CLUSTER_AUTHORIZATION_FAILED);
    assert_int_equal(n.quorum_accepted, 0);
    tn_close(&n);

    /* The authorizer on: User:ANONYMOUS may not CLUSTER_ACTION. */
    static const char *const supers[] = {"User:admin"};
    handler_acl acl = {.enabled = true, .super_users = supers, .super_user_count = 1};
    tn_acl = &acl;
    tn_open_leader(&n);
    assert_int_equal(fetch(&n, &shared, 23, 7, TN_CLUSTER_ID), KAFKA_CLUSTER_AUTHORIZATION_FAILED);
    assert_int_equal(n.quorum_accepted, 0);
    tn_close(&n);
    tn_acl = NULL;
}

/* The Raft RPCs and FetchSnapshot accepted on the shared listener promote
 * too (a Vote from candidate 2, a FetchSnapshot from replica 2). */
static void test_accepted_raft_rpcs_promote(void **state)
{
    (void)state;
    tn_node n;
    tn_open(&n, 1, 3);
    tn_slot voter = {3};
    wire_vote_partition vp = {.partition_index = 0, .candidate_epoch = 5, .candidate_id = 2};
    wire_vote_topic vt = {kq_slice_cstr(META), &vp, 1};
    wire_vote_request vote = {.cluster_id = kq_slice_cstr(TN_CLUSTER_ID), .voter_id = 1,
                              .topics = &vt, .topic_count = 1};
    TN_SEND(&n, &voter, WIRE_API_VOTE, 1, 30, wire_vote_request_encode, &vote);
    assert_int_equal(n.quorum_accepted, 1);
    assert_int_equal(n.quorum_accepted_slot, 3);
    assert_int_equal(n.quorum_accepted_replica, 2);

    tn_slot fetcher = {4};
    wire_fetch_snapshot_partition sp = {.partition = 0, .current_leader_epoch = 5,
                                        .snapshot_id = {10, 1}, .position = 0};
    wire_fetch_snapshot_topic st = {kq_slice_cstr(META), &sp, 1};
    wire_fetch_snapshot_request fs = {.cluster_id = kq_slice_cstr(TN_CLUSTER_ID),
                                      .replica_id = 2, .max_bytes = 1 << 20, .topics = &st,
                                      .topic_count = 1};
    TN_SEND(&n, &fetcher, WIRE_API_FETCH_SNAPSHOT, 1, 31, wire_fetch_snapshot_request_encode, &fs);
    assert_int_equal(n.quorum_accepted, 2);
    assert_int_equal(n.quorum_accepted_slot, 4);
    /* The wrong cluster id: refused, not promoted. */
    fs.cluster_id = kq_slice_cstr("another-cluster");
    tn_slot stranger = {5};
    TN_SEND(&n, &stranger, WIRE_API_FETCH_SNAPSHOT, 1, 32, wire_fetch_snapshot_request_encode, &fs);
    assert_int_equal(n.quorum_accepted, 2);
    tn_close(&n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accepted_replica_fetch_promotes),
        cmocka_unit_test(test_refused_replica_fetch_does_not),
        cmocka_unit_test(test_accepted_raft_rpcs_promote),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
