/* Raft RPCs through the handler: Vote and replica Fetch mapped to the core
 * and back, and the errors the handler or the core answer with
 * (INCONSISTENT_CLUSTER_ID, INCONSISTENT_VOTER_SET, NOT_LEADER_OR_FOLLOWER,
 * FENCED_LEADER_EPOCH). */
#include "handler_test_node.h"

#include "kq/record.h"
#include "kq/wire_begin_quorum_epoch.h"
#include "kq/wire_end_quorum_epoch.h"
#include "kq/wire_fetch.h"
#include "kq/wire_vote.h"

#define META "__cluster_metadata"

static void send_vote_v(tn_node *n, tn_slot *s, int16_t v, int32_t corr, const char *cluster,
                        int32_t candidate, int32_t epoch, bool pre_vote)
{
    wire_vote_partition p = {.partition_index = 0, .candidate_epoch = epoch,
                             .candidate_id = candidate, .last_offset_epoch = 0,
                             .last_offset = 0, .pre_vote = pre_vote};
    wire_vote_topic t = {kq_slice_cstr(META), &p, 1};
    wire_vote_request req = {.cluster_id = kq_slice_cstr(cluster), .voter_id = n->node_id,
                             .topics = &t, .topic_count = 1};
    TN_SEND(n, s, WIRE_API_VOTE, v, corr, wire_vote_request_encode, &req);
}

static void send_vote(tn_node *n, tn_slot *s, int32_t corr, const char *cluster,
                      int32_t candidate, int32_t epoch)
{
    send_vote_v(n, s, 1, corr, cluster, candidate, epoch, false);
}

static void send_replica_fetch_hw(tn_node *n, tn_slot *s, int16_t v, int32_t corr,
                                  const char *cluster, int32_t replica, int32_t leader_epoch,
                                  int64_t offset, int32_t max_wait_ms, int64_t hw)
{
    wire_fetch_partition p = {.partition = 0, .current_leader_epoch = leader_epoch,
                              .fetch_offset = offset,
                              .last_fetched_epoch = offset > 0 ? leader_epoch : 0,
                              .log_start_offset = -1, .partition_max_bytes = 1 << 20,
                              .has_high_watermark = hw != INT64_MAX, .high_watermark = hw};
    /* The encoder writes the name up to v12 and the id from v13. */
    wire_fetch_topic t = {.topic = kq_slice_cstr(META), .topic_id = WIRE_METADATA_TOPIC_ID,
                          .partitions = &p, .partition_count = 1};
    wire_fetch_request req = {.cluster_id = kq_slice_cstr(cluster), .replica_id = replica,
                              .replica_epoch = -1, .max_wait_ms = max_wait_ms, .min_bytes = 0,
                              .max_bytes = 1 << 20, .session_epoch = -1, .topics = &t,
                              .topic_count = 1, .rack_id = kq_slice_cstr("")};
    TN_SEND(n, s, WIRE_API_FETCH, v, corr, wire_fetch_request_encode, &req);
}

static void send_replica_fetch(tn_node *n, tn_slot *s, int16_t v, int32_t corr,
                               const char *cluster, int32_t replica, int32_t leader_epoch,
                               int64_t offset)
{
    send_replica_fetch_hw(n, s, v, corr, cluster, replica, leader_epoch, offset, 0, INT64_MAX);
}

/* A Vote for another Raft partition sharing our cluster id (issue 8) is
 * refused with INVALID_REQUEST and never reaches the core. */
static void test_vote_for_other_partition_refused(void **state)
{
    (void)state;
    tn_node n;
    tn_open(&n, 1, 3);
    const char *topics[] = {"other-raft-topic", META};
    int32_t partitions[] = {0, 1};
    for (int i = 0; i < 2; i++) {
        wire_vote_partition p = {.partition_index = partitions[i], .candidate_epoch = 1,
                                 .candidate_id = 2, .last_offset_epoch = 0, .last_offset = 0};
        wire_vote_topic t = {kq_slice_cstr(topics[i]), &p, 1};
        wire_vote_request req = {.cluster_id = kq_slice_cstr(TN_CLUSTER_ID), .voter_id = 1,
                                 .topics = &t, .topic_count = 1};
        tn_slot s = {40 + i};
        TN_SEND(&n, &s, WIRE_API_VOTE, 1, 50 + i, wire_vote_request_encode, &req);
        wire_vote_response resp;
        TN_DECODE(&n, &s, WIRE_API_VOTE, 1, 50 + i, wire_vote_response_decode, &resp);
        assert_int_equal(resp.error_code, KAFKA_INVALID_REQUEST);
        raft_status st = tn_status(&n);
        assert_int_equal(st.epoch, 0); /* the core never saw it */
        assert_int_equal(st.voted_id, -1);
    }
    tn_close(&n);
}

static void test_vote_granted_then_cluster_id_and_voter_set_checked(void **state)
{
    (void)state;
    tn_node n;
    tn_open(&n, 1, 3);
    assert_int_equal(tn_status(&n).role, RAFT_ROLE_UNATTACHED);

    tn_slot bad = {1};
    send_vote(&n, &bad, 10, "some-other-cluster", 2, 1);
    wire_vote_response resp;
    TN_DECODE(&n, &bad, WIRE_API_VOTE, 1, 10, wire_vote_response_decode, &resp);
    assert_int_equal(resp.error_code, KAFKA_INCONSISTENT_CLUSTER_ID);
    assert_int_equal(tn_status(&n).epoch, 0); /* the core never saw it */

    tn_slot stranger = {2};
    send_vote(&n, &stranger, 11, TN_CLUSTER_ID, 7, 1);
    TN_DECODE(&n, &stranger, WIRE_API_VOTE, 1, 11, wire_vote_response_decode, &resp);
    assert_int_equal(resp.topic_count, 1);
    assert_int_equal(resp.topics[0].partitions[0].error_code, KAFKA_INCONSISTENT_VOTER_SET);
    assert_false(resp.topics[0].partitions[0].vote_granted);

    tn_slot good = {3};
    send_vote(&n, &good, 12, TN_CLUSTER_ID, 2, 1);
    TN_DECODE(&n, &good, WIRE_API_VOTE, 1, 12, wire_vote_response_decode, &resp);
    assert_int_equal(resp.error_code, KAFKA_NONE);
    assert_int_equal(resp.topics[0].partitions[0].error_code, KAFKA_NONE);
    assert_true(resp.topics[0].partitions[0].vote_granted);
    raft_status st = tn_status(&n);
    assert_int_equal(st.epoch, 1);
    assert_int_equal(st.voted_id, 2);
    tn_close(&n);
}

/* Vote v2 carries PreVote: the core answers it without changing its state. */
/* Issue 9: on a client listener nobody speaks for the quorum (a forged
 * replica_id or candidate id is refused before the core sees it), and a
 * Raft RPC must name the cluster (a null cluster id is refused too). */
static void test_quorum_requests_only_on_controller_listener(void **state)
{
    (void)state;
    tn_node n;
    tn_open(&n, 1, 3);
    tn_slot client = {TN_CLIENT_LISTENER_ID + 1};
    send_vote(&n, &client, 30, TN_CLUSTER_ID, 2, 1);
    wire_vote_response vresp;
    TN_DECODE(&n, &client, WIRE_API_VOTE, 1, 30, wire_vote_response_decode, &vresp);
    assert_int_equal(vresp.error_code, KAFKA_CLUSTER_AUTHORIZATION_FAILED);

    tn_slot client2 = {TN_CLIENT_LISTENER_ID + 2};
    send_replica_fetch(&n, &client2, 17, 31, TN_CLUSTER_ID, 2, 1, 100);
    wire_fetch_response fresp;
    TN_DECODE(&n, &client2, WIRE_API_FETCH, 17, 31, wire_fetch_response_decode, &fresp);
    assert_int_equal(fresp.error_code, KAFKA_CLUSTER_AUTHORIZATION_FAILED);

    tn_slot peer = {3};
    wire_vote_partition p = {.partition_index = 0, .candidate_epoch = 1, .candidate_id = 2};
    wire_vote_topic t = {kq_slice_cstr(META), &p, 1};
    wire_vote_request req = {.cluster_id = {NULL, -1}, .voter_id = 1, .topics = &t,
                             .topic_count = 1};
    TN_SEND(&n, &peer, WIRE_API_VOTE, 1, 32, wire_vote_request_encode, &req);
    TN_DECODE(&n, &peer, WIRE_API_VOTE, 1, 32, wire_vote_response_decode, &vresp);
    assert_int_equal(vresp.error_code, KAFKA_INCONSISTENT_CLUSTER_ID);

    raft_status st = tn_status(&n);
    assert_int_equal(st.epoch, 0); /* the core saw none of them */
    assert_int_equal(st.voted_id, -1);
    tn_close(&n);
}

/* On a listener that proves voters by certificate, a Vote from candidate 2
 * needs voter 2's certificate: voter 3's, or none, is refused. */
static void test_voter_certificate_must_match(void **state)
{
    (void)state;
    tn_node n;
    tn_open(&n, 1, 3);
    int ids[] = {TN_VOTER_CERT_ID, TN_VOTER_CERT_ID + 3};
    for (int i = 0; i < 2; i++) {
        tn_slot s = {ids[i]};
        send_vote(&n, &s, 40 + i, TN_CLUSTER_ID, 2, 1);
        wire_vote_response resp;
        TN_DECODE(&n, &s, WIRE_API_VOTE, 1, 40 + i, wire_vote_response_decode, &resp);
        assert_int_equal(resp.error_code, KAFKA_CLUSTER_AUTHORIZATION_FAILED);
        assert_int_equal(tn_status(&n).epoch, 0);
    }
    tn_slot good = {TN_VOTER_CERT_ID + 2};
    send_vote(&n, &good, 42, TN_CLUSTER_ID, 2, 1);
    wire_vote_response resp;
    TN_DECODE(&n, &good, WIRE_API_VOTE, 1, 42, wire_vote_response_decode, &resp);
    assert_int_equal(resp.error_code, KAFKA_NONE);
    assert_true(resp.topics[0].partitions[0].vote_granted);
    tn_close(&n);
}

static void test_pre_vote_v2_mapped_both_ways(void **state)
{
    (void)state;
    tn_node n;
    tn_open(&n, 1, 3);
    tn_slot s = {1};
    /* A pre-vote comes in the asker's current epoch (KIP-996,
     * KafkaRaftClient.buildVoteRequest): ours, so nothing moves. */
    send_vote_v(&n, &s, 2, 20, TN_CLUSTER_ID, 2, 0, true);
    wire_vote_response resp;
    TN_DECODE(&n, &s, WIRE_API_VOTE, 2, 20, wire_vote_response_decode, &resp);
    assert_int_equal(resp.topics[0].partitions[0].error_code, KAFKA_NONE);
    assert_true(resp.topics[0].partitions[0].vote_granted);
    assert_int_equal(resp.topics[0].partitions[0].leader_epoch, 0);
    raft_status st = tn_status(&n);
    assert_int_equal(st.epoch, 0); /* a pre-vote in our epoch moves nothing */
    assert_int_equal(st.voted_id, -1);

    /* outbound: sent at v2 with the flag */
    raft_msg m;
    memset(&m, 0, sizeof(m));
    m.type = RAFT_MSG_VOTE_REQUEST;
    m.from = 1;
    m.to = 3;
    m.u.vote_request = (raft_vote_request){.candidate_epoch = 4, .candidate_id = 1,
                                           .last_epoch = 3, .last_epoch_end_offset = 9,
                                           .pre_vote = true};
    for (int pre = 1; pre >= 0; pre--) {
        m.u.vote_request.pre_vote = pre;
        kq_reader r;
        uint8_t *data = tn_encode_outbound(&n, &m, 77, WIRE_API_VOTE, 2, &r);
        kq_arena arena;
        kq_arena_init(&arena, 1 << 16);
        wire_vote_request req;
        assert_int_equal(wire_vote_request_decode(&r, 2, &arena, &req), 0);
        assert_int_equal(req.topics[0].partitions[0].candidate_epoch, 4);
        assert_int_equal(req.topics[0].partitions[0].pre_vote, pre);
        assert_int_equal(kq_reader_remaining(&r), 0);
        kq_arena_free(&arena);
        free(data);
    }
    tn_close(&n);
}

static void test_replica_fetch_served_up_to_flushed(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n); /* single voter: LeaderChange batch at offset 0, HW 1 */

    tn_slot wrong = {1};
    send_replica_fetch(&n, &wrong, 17, 20, "some-other-cluster", 5, 1, 0);
    wire_fetch_response resp;
    TN_DECODE(&n, &wrong, WIRE_API_FETCH, 17, 20, wire_fetch_response_decode, &resp);
    assert_int_equal(resp.error_code, KAFKA_INCONSISTENT_CLUSTER_ID);

    tn_slot fenced = {2};
    send_replica_fetch(&n, &fenced, 17, 21, TN_CLUSTER_ID, 5, 0, 0);
    TN_DECODE(&n, &fenced, WIRE_API_FETCH, 17, 21, wire_fetch_response_decode, &resp);
    assert_int_equal(resp.responses[0].partitions[0].error_code, KAFKA_FENCED_LEADER_EPOCH);

    /* An observer (id 5) fetching from 0 gets the flushed LeaderChange batch. */
    tn_slot ok = {3};
    send_replica_fetch(&n, &ok, 17, 22, TN_CLUSTER_ID, 5, 1, 0);
    TN_DECODE(&n, &ok, WIRE_API_FETCH, 17, 22, wire_fetch_response_decode, &resp);
    const wire_fetch_partition_data *pd = &resp.responses[0].partitions[0];
    assert_int_equal(pd->error_code, KAFKA_NONE);
    assert_int_equal(pd->high_watermark, 1);
    assert_true(pd->has_current_leader);
    assert_int_equal(pd->current_leader.leader_id, 1);
    assert_int_equal(pd->current_leader.leader_epoch, 1);
    assert_true(pd->records.len > 0);
    record_batch_header h;
    assert_int_equal(record_batch_check(pd->records.ptr, (size_t)pd->records.len, &h), RECORD_OK);
    assert_int_equal(h.base_offset, 0);
    assert_true(record_batch_is_control(&h));
    tn_close(&n);
}

/* Fetch v18 (KIP-1166) both ways. In: a replica's HighWatermark reaches the
 * core: at our end with a long wait, one that knows less than our high
 * watermark (-1) is answered at once (KafkaRaftClient's
 * isHighWatermarkUpdated), one at ours is held, as is a v17 fetch. Out: our
 * follower's fetch goes as v18 with its high watermark, -1 included. */
static void test_replica_fetch_v18_high_watermark(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n); /* epoch 1, end 1, HW 1 */
    tn_slot s = {1};
    int before = n.reply_count;
    send_replica_fetch_hw(&n, &s, 17, 60, TN_CLUSTER_ID, 5, 1, 1, 500, INT64_MAX);
    send_replica_fetch_hw(&n, &s, 18, 61, TN_CLUSTER_ID, 6, 1, 1, 500, 1);
    assert_int_equal(n.reply_count, before); /* both held */
    send_replica_fetch_hw(&n, &s, 18, 62, TN_CLUSTER_ID, 7, 1, 1, 500, -1);
    assert_int_equal(n.reply_count, before + 1);
    wire_fetch_response resp;
    TN_DECODE(&n, &s, WIRE_API_FETCH, 18, 62, wire_fetch_response_decode, &resp);
    assert_int_equal(resp.responses[0].partitions[0].error_code, KAFKA_NONE);
    assert_int_equal(resp.responses[0].partitions[0].high_watermark, 1);

    raft_msg m;
    memset(&m, 0, sizeof(m));
    m.type = RAFT_MSG_FETCH_REQUEST;
    m.from = 1;
    m.to = 3;
    m.u.fetch_request = (raft_fetch_request){.replica_id = 1, .current_leader_epoch = 2,
                                             .fetch_offset = 5, .last_fetched_epoch = 1,
                                             .max_wait_ms = 500, .max_bytes = 1000,
                                             .high_watermark = -1};
    kq_reader r;
    uint8_t *data = tn_encode_outbound(&n, &m, 78, WIRE_API_FETCH, 18, &r);
    kq_arena arena;
    kq_arena_init(&arena, 1 << 16);
    wire_fetch_request req;
    assert_int_equal(wire_fetch_request_decode(&r, 18, &arena, &req), 0);
    assert_true(req.topics[0].partitions[0].has_high_watermark);
    assert_int_equal(req.topics[0].partitions[0].high_watermark, -1);
    kq_arena_free(&arena);
    free(data);
    tn_close(&n);
}

/* KafkaRaftClient's Vote (and BeginQuorumEpoch, EndQuorumEpoch,
 * FetchSnapshot) answers carry the named leader's endpoint in NodeEndpoints
 * from v1: a Kafka node that learns of a leader its voter set lacks needs it
 * (QuorumState.transitionToFollower refuses empty endpoints). */
static void test_vote_answer_names_leader_endpoint(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n); /* node 1 leads epoch 1 */
    tn_slot s = {1};
    for (int16_t v = 0; v <= 2; v++) {
        send_vote_v(&n, &s, v, 70 + v, TN_CLUSTER_ID, 2, 1, false);
        wire_vote_response resp;
        TN_DECODE(&n, &s, WIRE_API_VOTE, v, 70 + v, wire_vote_response_decode, &resp);
        assert_int_equal(resp.topics[0].partitions[0].leader_id, 1);
        assert_int_equal(resp.node_endpoint_count, v >= 1 ? 1 : 0);
        if (v >= 1) {
            assert_int_equal(resp.node_endpoints[0].node_id, 1);
            assert_true(kq_slice_eq_cstr(resp.node_endpoints[0].host, "node1.test"));
            assert_int_equal(resp.node_endpoints[0].port, TN_PORT_BASE + 1);
        }
    }
    tn_close(&n);
}

static void controller_named(exec_config *c)
{
    snprintf(c->controller_listener, sizeof c->controller_listener, "CONTROLLER");
}

/* BeginQuorumEpoch and EndQuorumEpoch v1 name our endpoint in
 * LeaderEndpoints by our controller listener's name: a Kafka follower finds
 * its leader by its own controller listener's name
 * (FollowerState.leaderNode), and throws for a name it lacks. */
static void test_leader_endpoints_named_by_controller_listener(void **state)
{
    (void)state;
    for (int named = 0; named < 2; named++) {
        tn_config_hook = named ? controller_named : NULL;
        tn_node n;
        tn_open(&n, 1, 3);
        tn_config_hook = NULL;
        for (int end = 0; end < 2; end++) {
            raft_msg m;
            memset(&m, 0, sizeof(m));
            m.type = end ? RAFT_MSG_END_EPOCH_REQUEST : RAFT_MSG_BEGIN_EPOCH_REQUEST;
            m.from = 1;
            m.to = 2;
            if (end)
                m.u.end_epoch_request = (raft_end_epoch_request){.leader_epoch = 3,
                                                                 .leader_id = 1};
            else
                m.u.begin_epoch_request = (raft_begin_epoch_request){.leader_epoch = 3,
                                                                     .leader_id = 1};
            kq_reader r;
            uint8_t *data = tn_encode_outbound(
                &n, &m, 80, end ? WIRE_API_END_QUORUM_EPOCH : WIRE_API_BEGIN_QUORUM_EPOCH, 1, &r);
            kq_arena arena;
            kq_arena_init(&arena, 1 << 16);
            const wire_raft_listener *l;
            int32_t count;
            if (end) {
                wire_end_quorum_epoch_request req;
                assert_int_equal(wire_end_quorum_epoch_request_decode(&r, 1, &arena, &req), 0);
                l = req.leader_endpoints;
                count = req.leader_endpoint_count;
            } else {
                wire_begin_quorum_epoch_request req;
                assert_int_equal(wire_begin_quorum_epoch_request_decode(&r, 1, &arena, &req), 0);
                l = req.leader_endpoints;
                count = req.leader_endpoint_count;
            }
            assert_int_equal(count, 1);
            assert_true(kq_slice_eq_cstr(l[0].name, named ? "CONTROLLER" : "PLAINTEXT"));
            assert_true(kq_slice_eq_cstr(l[0].host, "node1.test"));
            assert_int_equal(l[0].port, TN_PORT_BASE + 1);
            kq_arena_free(&arena);
            free(data);
        }
        tn_close(&n);
    }
}

static uint64_t grant_nothing(void *ctx, void *slot, uint64_t want)
{
    (void)ctx;
    (void)slot;
    (void)want;
    return 0;
}

/* Issue 19 item 4: a replica Fetch answer takes its log data from the
 * response budget (the transport's slot_grant); granted nothing, it is an
 * answer without records or error (the follower fetches again). */
static void test_replica_fetch_data_granted_by_budget(void **state)
{
    (void)state;
    tn_node n;
    tn_slot_grant = grant_nothing;
    tn_open_leader(&n);
    tn_slot s = {1};
    send_replica_fetch(&n, &s, 17, 22, TN_CLUSTER_ID, 5, 1, 0);
    tn_slot_grant = NULL;
    wire_fetch_response resp;
    TN_DECODE(&n, &s, WIRE_API_FETCH, 17, 22, wire_fetch_response_decode, &resp);
    const wire_fetch_partition_data *pd = &resp.responses[0].partitions[0];
    assert_int_equal(resp.error_code, KAFKA_NONE);
    assert_int_equal(pd->error_code, KAFKA_NONE);
    assert_int_equal(pd->high_watermark, 1);
    assert_true(pd->records.len <= 0);
    tn_close(&n);
}

static void test_replica_fetch_on_follower_names_leader(void **state)
{
    (void)state;
    tn_node n;
    tn_open(&n, 1, 3);
    tn_slot s = {1};
    send_replica_fetch(&n, &s, 12, 30, TN_CLUSTER_ID, 3, 0, 0);
    wire_fetch_response resp;
    TN_DECODE(&n, &s, WIRE_API_FETCH, 12, 30, wire_fetch_response_decode, &resp);
    assert_int_equal(resp.response_count, 1);
    /* Same epoch (0) but not the leader (none known yet): never data. */
    assert_int_equal(resp.responses[0].partitions[0].error_code, KAFKA_NOT_LEADER_OR_FOLLOWER);
    assert_true(resp.responses[0].partitions[0].records.len <= 0);
    tn_close(&n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vote_granted_then_cluster_id_and_voter_set_checked),
        cmocka_unit_test(test_replica_fetch_data_granted_by_budget),
        cmocka_unit_test(test_vote_for_other_partition_refused),
        cmocka_unit_test(test_quorum_requests_only_on_controller_listener),
        cmocka_unit_test(test_voter_certificate_must_match),
        cmocka_unit_test(test_pre_vote_v2_mapped_both_ways),
        cmocka_unit_test(test_replica_fetch_v18_high_watermark),
        cmocka_unit_test(test_vote_answer_names_leader_endpoint),
        cmocka_unit_test(test_leader_endpoints_named_by_controller_listener),
        cmocka_unit_test(test_replica_fetch_served_up_to_flushed),
        cmocka_unit_test(test_replica_fetch_on_follower_names_leader),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
