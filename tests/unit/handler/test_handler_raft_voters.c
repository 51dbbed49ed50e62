/* AddRaftVoter, RemoveRaftVoter and UpdateRaftVoter (KIP-853) through the
 * real executor while the quorum is static (kraft.version 0): each is
 * answered as Kafka 4.4 answers it at kraft.version 0 (src/handler/
 * raft_voters.c), in Kafka's order of checks, and nothing changes: not the
 * epoch, the voters, the log, nor the connection's standing with the quorum.
 * A client listener is refused like the other quorum APIs. */
#include "handler_test_node.h"

#include "kq/wire_add_raft_voter.h"
#include "kq/wire_remove_raft_voter.h"
#include "kq/wire_update_raft_voter.h"

static const kq_uuid dir_id = {{0x11, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}};
static const kq_uuid zero_id = {{0}};
static wire_raft_listener controller = {{(const uint8_t *)"CONTROLLER", 10},
                                        {(const uint8_t *)"node9.test", 10}, 9099};

static kq_slice cluster(void)
{
    return kq_slice_cstr(TN_CLUSTER_ID);
}

typedef struct answer {
    int16_t error;
    char message[256]; /* "(null)" for null */
} answer;

static void keep_message(answer *a, kq_slice m)
{
    snprintf(a->message, sizeof a->message, "%.*s", m.len < 0 ? 6 : (int)m.len,
             m.len < 0 ? "(null)" : (const char *)m.ptr);
}

static answer add_voter(tn_node *n, tn_slot *s, int16_t v, kq_slice cluster_id, int32_t id,
                        kq_uuid dir, int32_t listener_count)
{
    wire_add_raft_voter_request req = {.cluster_id = cluster_id, .timeout_ms = 30000,
                                       .voter_id = id, .voter_directory_id = dir,
                                       .listeners = &controller,
                                       .listener_count = listener_count,
                                       .ack_when_committed = true};
    int before = tn_count(n, s);
    TN_SEND(n, s, WIRE_API_ADD_RAFT_VOTER, v, 31, wire_add_raft_voter_request_encode, &req);
    assert_int_equal(tn_count(n, s), before + 1); /* answered at once */
    wire_add_raft_voter_response resp;
    TN_DECODE(n, s, WIRE_API_ADD_RAFT_VOTER, v, 31, wire_add_raft_voter_response_decode, &resp);
    answer a = {.error = resp.error_code};
    keep_message(&a, resp.error_message);
    return a;
}

static answer remove_voter(tn_node *n, tn_slot *s, kq_slice cluster_id, int32_t id, kq_uuid dir)
{
    wire_remove_raft_voter_request req = {cluster_id, id, dir};
    int before = tn_count(n, s);
    TN_SEND(n, s, WIRE_API_REMOVE_RAFT_VOTER, 0, 32, wire_remove_raft_voter_request_encode,
            &req);
    assert_int_equal(tn_count(n, s), before + 1);
    wire_remove_raft_voter_response resp;
    TN_DECODE(n, s, WIRE_API_REMOVE_RAFT_VOTER, 0, 32, wire_remove_raft_voter_response_decode,
              &resp);
    answer a = {.error = resp.error_code};
    keep_message(&a, resp.error_message);
    return a;
}

static wire_update_raft_voter_response update_voter(tn_node *n, tn_slot *s, int32_t epoch,
                                                    int32_t id, int16_t min, int16_t max)
{
    wire_update_raft_voter_request req = {.cluster_id = cluster(), .current_leader_epoch = epoch,
                                          .voter_id = id, .voter_directory_id = dir_id,
                                          .listeners = &controller, .listener_count = 1,
                                          .kraft_version_feature = {min, max}};
    int before = tn_count(n, s);
    TN_SEND(n, s, WIRE_API_UPDATE_RAFT_VOTER, 0, 33, wire_update_raft_voter_request_encode, &req);
    assert_int_equal(tn_count(n, s), before + 1);
    wire_update_raft_voter_response resp;
    TN_DECODE(n, s, WIRE_API_UPDATE_RAFT_VOTER, 0, 33, wire_update_raft_voter_response_decode,
              &resp);
    return resp;
}

/* What "nothing changed" means here. */
typedef struct snapshot {
    raft_status st;
    int64_t log_end;
    int quorum_accepted;
} snapshot;

static snapshot take(tn_node *n)
{
    return (snapshot){tn_status(n), kq_log_end_offset(n->log), n->quorum_accepted};
}

static void assert_unchanged(tn_node *n, const snapshot *b)
{
    snapshot a = take(n);
    assert_int_equal(a.st.role, b->st.role);
    assert_int_equal(a.st.epoch, b->st.epoch);
    assert_int_equal(a.st.leader_id, b->st.leader_id);
    assert_int_equal(a.st.voter_count, b->st.voter_count);
    assert_int_equal(a.st.high_watermark, b->st.high_watermark);
    assert_int_equal(a.log_end, b->log_end);
    assert_int_equal(a.quorum_accepted, b->quorum_accepted);
    assert_false(n->flush_wanted);
}

/* The leader of a static quorum: Add and Remove are UNSUPPORTED_VERSION
 * with Kafka's message, after the cluster id and voter checks. */
static void test_leader_refuses_add_and_remove(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    snapshot before = take(&n);
    tn_slot s = {1};
    for (int16_t v = 0; v <= 1; v++) {
        answer a = add_voter(&n, &s, v, cluster(), 2, dir_id, 1);
        assert_int_equal(a.error, KAFKA_UNSUPPORTED_VERSION);
        assert_string_equal(a.message, "Cluster doesn't support adding voter because the "
                                       "kraft.version feature is 0");
    }
    answer r = remove_voter(&n, &s, cluster(), 1, dir_id);
    assert_int_equal(r.error, KAFKA_UNSUPPORTED_VERSION);
    assert_string_equal(r.message, "Cluster doesn't support removing voter because the "
                                   "kraft.version feature is 0");
    /* Kafka lets a null cluster id pass (its admin tool sends none). */
    assert_int_equal(remove_voter(&n, &s, (kq_slice){NULL, -1}, 1, dir_id).error,
                     KAFKA_UNSUPPORTED_VERSION);
    r = remove_voter(&n, &s, kq_slice_cstr("other"), 1, dir_id);
    assert_int_equal(r.error, KAFKA_INCONSISTENT_CLUSTER_ID);
    assert_string_equal(r.message, "The given id \"other\" doesn't match the cluster id \""
                                   TN_CLUSTER_ID "\"");
    r = remove_voter(&n, &s, cluster(), 1, zero_id);
    assert_int_equal(r.error, KAFKA_INVALID_REQUEST);
    assert_string_equal(r.message, "Remove voter request didn't include a valid voter");
    assert_int_equal(remove_voter(&n, &s, cluster(), -1, dir_id).error, KAFKA_INVALID_REQUEST);
    assert_int_equal(add_voter(&n, &s, 1, cluster(), 2, zero_id, 1).error,
                     KAFKA_INVALID_REQUEST);
    assert_int_equal(add_voter(&n, &s, 1, cluster(), 2, dir_id, 0).error, KAFKA_INVALID_REQUEST);
    assert_unchanged(&n, &before);
    tn_close(&n);
}

/* Before the leader's high watermark is known, Kafka answers
 * REQUEST_TIMED_OUT (the HWM check comes before the kraft.version one). */
static void test_leader_without_high_watermark(void **state)
{
    (void)state;
    tn_node n;
    tn_open(&n, 1, 1);
    assert_int_equal(tn_status(&n).role, RAFT_ROLE_LEADER);
    assert_true(tn_status(&n).high_watermark < 0); /* its first batch is not flushed yet */
    tn_slot s = {1};
    answer r = remove_voter(&n, &s, cluster(), 1, dir_id);
    assert_int_equal(r.error, KAFKA_REQUEST_TIMED_OUT);
    assert_string_equal(r.message, "Request timed out waiting for leader to establish HWM and "
                                   "fence previous voter changes");
    assert_int_equal(add_voter(&n, &s, 0, cluster(), 2, dir_id, 1).error,
                     KAFKA_REQUEST_TIMED_OUT);
    int32_t epoch = tn_status(&n).epoch;
    assert_int_equal(update_voter(&n, &s, epoch, 1, 0, 1).error_code, KAFKA_REQUEST_TIMED_OUT);
    tn_close(&n);
}

/* A voter that is not the leader: NOT_LEADER_OR_FOLLOWER (Update checks
 * the epoch it names first). */
static void test_follower_is_not_leader(void **state)
{
    (void)state;
    tn_node n;
    tn_open(&n, 2, 3);
    snapshot before = take(&n);
    assert_int_not_equal(before.st.role, RAFT_ROLE_LEADER);
    tn_slot s = {1};
    answer a = add_voter(&n, &s, 1, cluster(), 4, dir_id, 1);
    assert_int_equal(a.error, KAFKA_NOT_LEADER_OR_FOLLOWER);
    assert_string_equal(a.message, "(null)");
    assert_int_equal(remove_voter(&n, &s, cluster(), 3, dir_id).error,
                     KAFKA_NOT_LEADER_OR_FOLLOWER);
    int32_t epoch = before.st.epoch;
    wire_update_raft_voter_response u = update_voter(&n, &s, epoch, 3, 0, 1);
    assert_int_equal(u.error_code, KAFKA_NOT_LEADER_OR_FOLLOWER);
    assert_int_equal(update_voter(&n, &s, epoch + 1, 3, 0, 1).error_code,
                     KAFKA_UNKNOWN_LEADER_EPOCH);
    assert_unchanged(&n, &before);
    tn_close(&n);
}

/* UpdateRaftVoter at kraft.version 0: Kafka's leader accepts a static
 * voter's endpoints (kept in its memory only) and names itself as leader;
 * here nothing is kept, and the checks before are Kafka's. */
static void test_update_voter(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    snapshot before = take(&n);
    int32_t epoch = before.st.epoch;
    tn_slot s = {1};
    wire_update_raft_voter_response u = update_voter(&n, &s, epoch, 1, 0, 1);
    assert_int_equal(u.error_code, KAFKA_NONE);
    assert_true(u.has_current_leader);
    assert_int_equal(u.current_leader.leader_id, 1);
    assert_int_equal(u.current_leader.leader_epoch, epoch);
    assert_true(kq_slice_eq_cstr(u.current_leader.host, "node1.test"));
    assert_int_equal(u.current_leader.port, TN_PORT_BASE + 1);
    assert_int_equal(update_voter(&n, &s, epoch, 5, 0, 1).error_code, KAFKA_VOTER_NOT_FOUND);
    assert_int_equal(update_voter(&n, &s, epoch, 1, 1, 1).error_code, KAFKA_INVALID_REQUEST);
    assert_int_equal(update_voter(&n, &s, epoch, 1, -1, 1).error_code, KAFKA_INVALID_REQUEST);
    assert_int_equal(update_voter(&n, &s, epoch, 1, 1, 0).error_code, KAFKA_INVALID_REQUEST);
    assert_int_equal(update_voter(&n, &s, epoch - 1, 1, 0, 1).error_code,
                     KAFKA_FENCED_LEADER_EPOCH);
    assert_int_equal(update_voter(&n, &s, epoch + 1, 1, 0, 1).error_code,
                     KAFKA_UNKNOWN_LEADER_EPOCH);
    assert_unchanged(&n, &before);
    tn_close(&n);
}

/* On a client listener the three are refused before anything else, as the
 * other quorum APIs are (quorum_auth.c). */
static void test_client_listener_refused(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    snapshot before = take(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID};
    answer a = add_voter(&n, &s, 1, cluster(), 2, dir_id, 1);
    assert_int_equal(a.error, KAFKA_CLUSTER_AUTHORIZATION_FAILED);
    assert_int_equal(remove_voter(&n, &s, cluster(), 1, dir_id).error,
                     KAFKA_CLUSTER_AUTHORIZATION_FAILED);
    wire_update_raft_voter_response u = update_voter(&n, &s, before.st.epoch, 1, 0, 1);
    assert_int_equal(u.error_code, KAFKA_CLUSTER_AUTHORIZATION_FAILED);
    assert_false(u.has_current_leader);
    /* a listener proving voters by certificate wants a voter's */
    tn_slot stranger = {TN_VOTER_CERT_ID};
    assert_int_equal(remove_voter(&n, &stranger, cluster(), 1, dir_id).error,
                     KAFKA_CLUSTER_AUTHORIZATION_FAILED);
    tn_slot voter = {TN_VOTER_CERT_ID + 1};
    assert_int_equal(remove_voter(&n, &voter, cluster(), 1, dir_id).error,
                     KAFKA_UNSUPPORTED_VERSION);
    assert_unchanged(&n, &before);
    tn_close(&n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_leader_refuses_add_and_remove),
        cmocka_unit_test(test_leader_without_high_watermark),
        cmocka_unit_test(test_follower_is_not_leader),
        cmocka_unit_test(test_update_voter),
        cmocka_unit_test(test_client_listener_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
