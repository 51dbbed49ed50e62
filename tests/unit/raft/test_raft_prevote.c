/* Pre-vote (KIP-996) as Kafka's KafkaRaftClient: a prospective node asks in
 * its current epoch, a pre-vote in our epoch changes no state, one in a newer
 * epoch moves us there as any Vote does, the grant rules of each state, and a
 * cut-off voter that never raises its epoch. */
#include "raft_test_util.h"

static raft_status status_of(const raft *r)
{
    raft_status s;
    raft_get_status(r, &s);
    return s;
}

static raft_msg pre_vote_req(int32_t from, int32_t epoch, int32_t last_epoch, int64_t end,
                             uint64_t token)
{
    raft_msg m = rt_vote_req(from, epoch, last_epoch, end, token);
    m.u.vote_request.pre_vote = true;
    return m;
}

/* Node 2 of three following leader 1 in epoch 3; the leader's fetch answer
 * arrived at t=100. */
static raft *fresh_follower(raft_output *out)
{
    raft_config c = rt_config(2, 3);
    raft *r = rt_create(&c, 3, -1, 1, 0, NULL, 0);
    rt_tick(r, 0, out);
    rt_records none = {.len = 0};
    raft_msg resp = rt_fetch_resp(3, 0, &none); /* HW news: an answer, not a copy */
    rt_recv(r, 100, &resp, out);
    assert_int_equal(status_of(r).role, RAFT_ROLE_FOLLOWER);
    assert_non_null(rt_sent(out, RAFT_MSG_FETCH_REQUEST, 1)); /* it took the answer */
    return r;
}

static void test_answering_pre_vote_changes_no_state(void **state)
{
    (void)state;
    raft_config c = rt_config(1, 3);
    raft *r = rt_create(&c, 2, -1, -1, 0, NULL, 0);
    raft_output out;
    rt_tick(r, 0, &out);
    int64_t deadline = out.wake_at_ms;

    /* In our epoch (a Kafka prospective's, buildVoteRequest): granted by the
     * log alone (QuorumState.unattachedOrProspectiveCanGrantVote) and no
     * vote recorded (handleVoteRequest adds a voted state only if !preVote). */
    raft_msg req = pre_vote_req(2, 2, 0, 0, 31);
    rt_recv(r, 10, &req, &out);
    const raft_msg *resp = rt_sent(&out, RAFT_MSG_VOTE_RESPONSE, 2);
    assert_non_null(resp);
    assert_int_equal(resp->token, 31);
    assert_true(resp->u.vote_response.vote_granted);
    assert_int_equal(resp->u.vote_response.leader_epoch, 2); /* its own epoch */
    assert_int_equal(rt_count(&out, RAFT_ACTION_STORE_QSTATE), 0);
    assert_false(out.role_changed);
    raft_status s = status_of(r);
    assert_int_equal(s.role, RAFT_ROLE_UNATTACHED);
    assert_int_equal(s.epoch, 2);
    assert_int_equal(s.voted_id, -1);
    assert_int_equal(out.wake_at_ms, deadline); /* its own timer untouched */

    /* Having granted 2 a pre-vote, it may still vote for 3 in epoch 3. */
    raft_msg real = rt_vote_req(3, 3, 0, 0, 32);
    rt_recv(r, 20, &real, &out);
    assert_true(rt_sent(&out, RAFT_MSG_VOTE_RESPONSE, 3)->u.vote_response.vote_granted);
    s = status_of(r);
    assert_int_equal(s.role, RAFT_ROLE_VOTED);
    assert_int_equal(s.voted_id, 3);

    /* A voted node still answers a pre-vote in its epoch by the log alone,
     * and keeps its vote (unattachedOrProspectiveCanGrantVote checks the
     * voted key only for a real vote). */
    req = pre_vote_req(2, 3, 0, 0, 33);
    rt_recv(r, 30, &req, &out);
    assert_true(rt_sent(&out, RAFT_MSG_VOTE_RESPONSE, 2)->u.vote_response.vote_granted);
    assert_int_equal(rt_count(&out, RAFT_ACTION_STORE_QSTATE), 0);
    assert_int_equal(status_of(r).voted_id, 3);
    raft_destroy(r);
}

/* KafkaRaftClient.handleVoteRequest: a pre-vote asks in the asker's epoch,
 * which its log may have reached; granted iff the log is up to date
 * (canGrantVote's isLogUpToDate); an older epoch is FENCED_LEADER_EPOCH
 * (validateVoterOnlyRequest). */
static void test_pre_vote_needs_up_to_date_log(void **state)
{
    (void)state;
    raft_config c = rt_config(1, 3);
    raft_epoch_entry ep[] = {{2, 0}};
    raft *r = rt_create(&c, 2, -1, -1, 10, ep, 1);
    raft_output out;
    rt_tick(r, 0, &out);
    raft_msg req = pre_vote_req(2, 2, 2, 9, 1); /* one record behind */
    rt_recv(r, 5, &req, &out);
    assert_false(rt_sent(&out, RAFT_MSG_VOTE_RESPONSE, 2)->u.vote_response.vote_granted);
    req = pre_vote_req(2, 2, 2, 10, 2);
    rt_recv(r, 6, &req, &out);
    const raft_msg *resp = rt_sent(&out, RAFT_MSG_VOTE_RESPONSE, 2);
    assert_true(resp->u.vote_response.vote_granted);
    assert_int_equal(resp->u.vote_response.partition_error, KAFKA_NONE);
    assert_int_equal(resp->u.vote_response.leader_epoch, 2); /* the asker's epoch */
    req = pre_vote_req(2, 1, 1, 10, 4); /* older: fenced as a real vote */
    rt_recv(r, 8, &req, &out);
    assert_int_equal(rt_sent(&out, RAFT_MSG_VOTE_RESPONSE, 2)->u.vote_response.partition_error,
                     KAFKA_FENCED_LEADER_EPOCH);
    assert_int_equal(status_of(r).epoch, 2);
    assert_int_equal(rt_count(&out, RAFT_ACTION_STORE_QSTATE), 0);
    raft_destroy(r);
}

/* KafkaRaftClient.handleVoteRequest answers INVALID_REQUEST, before it
 * fences or moves to a newer epoch, for a negative last offset or epoch and
 * for a last epoch the asker cannot have: lastOffsetEpoch > replicaEpoch for
 * a pre-vote, lastOffsetEpoch >= replicaEpoch for a vote. */
static void test_illegal_vote_epochs_are_invalid_requests(void **state)
{
    (void)state;
    raft_config c = rt_config(1, 3);
    raft *r = rt_create(&c, 2, -1, -1, 0, NULL, 0);
    raft_output out;
    rt_tick(r, 0, &out);
    struct {
        int32_t epoch, last_epoch;
        int64_t end;
        bool pre;
    } bad[] = {
        {5, 6, 10, true},  /* pre-vote: last epoch above the asker's */
        {5, 5, 10, false}, /* vote: a candidate raised its epoch past its log's */
        {5, 6, 10, false},
        {5, -1, 0, true},  /* negative last epoch */
        {5, 1, -1, false}, /* negative last offset */
        {1, 2, 10, true},  /* illegal and older: invalid, not fenced */
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        raft_msg req = rt_vote_req(2, bad[i].epoch, bad[i].last_epoch, bad[i].end, 40 + i);
        req.u.vote_request.pre_vote = bad[i].pre;
        rt_recv(r, 10 + (int64_t)i, &req, &out);
        const raft_msg *resp = rt_sent(&out, RAFT_MSG_VOTE_RESPONSE, 2);
        assert_non_null(resp);
        assert_int_equal(resp->u.vote_response.partition_error, KAFKA_INVALID_REQUEST);
        assert_false(resp->u.vote_response.vote_granted);
        assert_int_equal(resp->u.vote_response.leader_epoch, 2);
        assert_int_equal(rt_count(&out, RAFT_ACTION_STORE_QSTATE), 0);
        assert_int_equal(status_of(r).epoch, 2);
    }
    /* The same epochs are legal the other way round: a pre-vote may ask in
     * its log's last epoch. */
    raft_msg ok = pre_vote_req(2, 5, 5, 10, 50);
    rt_recv(r, 30, &ok, &out);
    assert_true(rt_sent(&out, RAFT_MSG_VOTE_RESPONSE, 2)->u.vote_response.vote_granted);
    raft_destroy(r);
}

/* Any Vote with replicaEpoch above ours, a pre-vote too, moves the receiver
 * to Unattached in that epoch first (handleVoteRequest's
 * transitionToUnattached); the pre-vote is then answered as Unattached
 * answers one (log only) and records no vote. This is what lets a Kafka
 * voter's pre-vote reach us, and why ours ask in our current epoch: one
 * asked in epoch + 1 would take a Kafka voter away from a healthy leader. */
static void test_pre_vote_in_newer_epoch_moves_to_unattached(void **state)
{
    (void)state;
    raft_output out;
    raft *r = fresh_follower(&out); /* following 1 in epoch 3 */
    raft_msg req = pre_vote_req(3, 4, 0, 0, 7);
    rt_recv(r, 600, &req, &out);
    const raft_msg *resp = rt_sent(&out, RAFT_MSG_VOTE_RESPONSE, 3);
    assert_true(resp->u.vote_response.vote_granted);
    assert_int_equal(resp->u.vote_response.leader_epoch, 4);
    assert_int_equal(resp->u.vote_response.leader_id, -1);
    assert_int_equal(rt_count(&out, RAFT_ACTION_STORE_QSTATE), 1);
    raft_status s = status_of(r);
    assert_int_equal(s.role, RAFT_ROLE_UNATTACHED);
    assert_int_equal(s.epoch, 4);
    assert_int_equal(s.voted_id, -1);
    assert_int_equal(s.leader_id, -1);

    /* Behind our log: refused, but the epoch still moved. */
    raft_destroy(r);
    raft_config c = rt_config(1, 3);
    raft_epoch_entry ep[] = {{2, 0}};
    r = rt_create(&c, 2, -1, -1, 10, ep, 1);
    rt_tick(r, 0, &out);
    req = pre_vote_req(2, 3, 2, 9, 8);
    rt_recv(r, 5, &req, &out);
    resp = rt_sent(&out, RAFT_MSG_VOTE_RESPONSE, 2);
    assert_false(resp->u.vote_response.vote_granted);
    assert_int_equal(resp->u.vote_response.leader_epoch, 3);
    assert_int_equal(status_of(r).epoch, 3);
    assert_int_equal(status_of(r).role, RAFT_ROLE_UNATTACHED);
    raft_destroy(r);
}

/* CandidateState.canGrantVote and ResignedState.canGrantVote: a pre-vote is
 * granted iff the log is up to date; a real vote never (the candidate voted
 * for itself, the resigned leader led the epoch). Neither changes state. */
static void test_candidate_and_resigned_grant_pre_votes_by_log(void **state)
{
    (void)state;
    raft_config c = rt_config(1, 3);
    raft *r = rt_create(&c, 0, -1, -1, 0, NULL, 0);
    raft_output out;
    rt_tick(r, 0, &out);
    rt_tick(r, 2000, &out);
    rt_pre_vote_granted(r, 2000, 2, 1, &out);
    assert_int_equal(status_of(r).role, RAFT_ROLE_CANDIDATE);
    raft_msg req = pre_vote_req(3, 1, 0, 0, 9); /* 3 asks in epoch 1, log as ours */
    rt_recv(r, 2001, &req, &out);
    assert_true(rt_sent(&out, RAFT_MSG_VOTE_RESPONSE, 3)->u.vote_response.vote_granted);
    raft_msg real = rt_vote_req(3, 1, 0, 0, 10);
    rt_recv(r, 2002, &real, &out);
    assert_false(rt_sent(&out, RAFT_MSG_VOTE_RESPONSE, 3)->u.vote_response.vote_granted);
    assert_int_equal(status_of(r).role, RAFT_ROLE_CANDIDATE);
    assert_int_equal(status_of(r).epoch, 1);
    raft_destroy(r);

    raft_epoch_entry ep[] = {{4, 0}};
    r = rt_create(&c, 4, 1, 1, 5, ep, 1); /* led epoch 4: restarts resigned */
    assert_int_equal(status_of(r).role, RAFT_ROLE_RESIGNED);
    rt_tick(r, 1, &out);
    req = pre_vote_req(2, 4, 4, 4, 11); /* a record behind */
    rt_recv(r, 2, &req, &out);
    assert_false(rt_sent(&out, RAFT_MSG_VOTE_RESPONSE, 2)->u.vote_response.vote_granted);
    req = pre_vote_req(2, 4, 4, 5, 12);
    rt_recv(r, 3, &req, &out);
    assert_true(rt_sent(&out, RAFT_MSG_VOTE_RESPONSE, 2)->u.vote_response.vote_granted);
    assert_int_equal(status_of(r).role, RAFT_ROLE_RESIGNED);
    assert_int_equal(rt_count(&out, RAFT_ACTION_STORE_QSTATE), 0);
    raft_destroy(r);
}

/* A late pre-vote grant never counts as a vote: it carries the epoch the
 * pre-vote asked in, below the candidate's (KafkaRaftClient's
 * maybeHandleCommonResponse ignores a response from an older epoch). With
 * three voters a counted grant from 3 would make 1 leader. */
static void test_late_pre_vote_grant_is_not_a_vote(void **state)
{
    (void)state;
    raft_config c = rt_config(1, 3);
    raft *r = rt_create(&c, 0, -1, -1, 0, NULL, 0);
    raft_output out;
    rt_tick(r, 0, &out);
    rt_tick(r, 2000, &out);
    assert_int_equal(rt_sent(&out, RAFT_MSG_VOTE_REQUEST, 3)->u.vote_request.candidate_epoch, 0);
    rt_pre_vote_granted(r, 2000, 2, 1, &out);
    assert_int_equal(status_of(r).role, RAFT_ROLE_CANDIDATE);
    assert_int_equal(status_of(r).epoch, 1);
    raft_msg late = rt_vote_resp(3, 0, true); /* 3's grant of the pre-vote */
    rt_recv(r, 2001, &late, &out);
    assert_int_equal(status_of(r).role, RAFT_ROLE_CANDIDATE);
    assert_false(out.role_changed);
    raft_msg vote = rt_vote_resp(3, 1, true); /* its real vote */
    rt_recv(r, 2002, &vote, &out);
    assert_int_equal(status_of(r).role, RAFT_ROLE_LEADER);
    raft_destroy(r);
}

static void test_vote_no_log_check_mutant_covers_pre_votes(void **state)
{
    (void)state;
    raft_config c = rt_config(1, 3);
    c.mutants = RAFT_MUTANT_VOTE_NO_LOG_CHECK;
    raft_epoch_entry ep[] = {{2, 0}};
    raft *r = rt_create(&c, 2, -1, -1, 10, ep, 1);
    raft_output out;
    rt_tick(r, 0, &out);
    raft_msg req = pre_vote_req(2, 3, 0, 0, 1);
    rt_recv(r, 5, &req, &out);
    assert_true(rt_sent(&out, RAFT_MSG_VOTE_RESPONSE, 2)->u.vote_response.vote_granted);
    raft_destroy(r);
}

static void test_follower_with_live_leader_rejects_pre_vote(void **state)
{
    (void)state;
    raft_output out;
    raft *r = fresh_follower(&out);
    /* In its epoch, log as good as ours: refused while the leader is alive.
     * Kafka's FollowerState.canGrantVote refuses once hasFetchedFromLeader;
     * ours refuses while the last leader contact is within the fetch
     * timeout, as strict while Kafka's follower would still follow. */
    raft_msg req = pre_vote_req(3, 3, 0, 0, 7);
    rt_recv(r, 600, &req, &out);
    const raft_msg *resp = rt_sent(&out, RAFT_MSG_VOTE_RESPONSE, 3);
    assert_false(resp->u.vote_response.vote_granted);
    assert_int_equal(resp->u.vote_response.leader_id, 1);
    assert_int_equal(resp->u.vote_response.leader_epoch, 3);
    assert_int_equal(rt_count(&out, RAFT_ACTION_STORE_QSTATE), 0);
    raft_status s = status_of(r);
    assert_int_equal(s.role, RAFT_ROLE_FOLLOWER);
    assert_int_equal(s.epoch, 3);
    assert_int_equal(s.leader_id, 1);

    /* A real Vote in a newer epoch still moves it, as before. */
    raft_msg real = rt_vote_req(3, 4, 0, 0, 8);
    rt_recv(r, 700, &real, &out);
    s = status_of(r);
    assert_int_equal(s.epoch, 4);
    assert_int_equal(s.voted_id, 3);
    raft_destroy(r);
}

static void test_leader_rejects_pre_vote(void **state)
{
    (void)state;
    raft *r = rt_leader(3, 0);
    raft_output out;
    raft_msg req = pre_vote_req(2, 1, 1, 1, 5); /* LeaderState.canGrantVote: never */
    rt_recv(r, 2100, &req, &out);
    assert_false(rt_sent(&out, RAFT_MSG_VOTE_RESPONSE, 2)->u.vote_response.vote_granted);
    raft_status s = status_of(r);
    assert_int_equal(s.role, RAFT_ROLE_LEADER);
    assert_int_equal(s.epoch, 1);
    raft_destroy(r);
}

/* A follower that has not heard from its leader (restarted: Kafka's
 * FollowerState with hasFetchedFromLeader false grants too), or not for the
 * fetch timeout (Kafka's would be Prospective by then, and grant), grants. */
static void test_follower_without_recent_leader_grants_pre_vote(void **state)
{
    (void)state;
    raft_config c = rt_config(2, 3);
    raft *r = rt_create(&c, 3, -1, 1, 0, NULL, 0); /* restarted: no contact yet */
    raft_output out;
    rt_tick(r, 0, &out);
    raft_msg req = pre_vote_req(3, 3, 0, 0, 7);
    rt_recv(r, 10, &req, &out);
    assert_true(rt_sent(&out, RAFT_MSG_VOTE_RESPONSE, 3)->u.vote_response.vote_granted);
    assert_int_equal(status_of(r).role, RAFT_ROLE_FOLLOWER);

    raft_destroy(r);
    r = fresh_follower(&out);
    raft_msg stale = pre_vote_req(3, 3, 0, 0, 9);
    rt_recv(r, 100 + 2000, &stale, &out); /* a full fetch timeout after the contact */
    assert_true(rt_sent(&out, RAFT_MSG_VOTE_RESPONSE, 3)->u.vote_response.vote_granted);
    raft_destroy(r);
}

static void test_rejection_naming_the_leader_returns_to_it(void **state)
{
    (void)state;
    raft_output out;
    raft *r = fresh_follower(&out);
    rt_tick(r, 100 + 2600, &out); /* past any fetch timeout */
    assert_int_equal(status_of(r).role, RAFT_ROLE_PROSPECTIVE);
    raft_msg no = rt_vote_resp(3, 3, false);
    no.to = 2;
    no.u.vote_response.leader_id = 1; /* 3 still follows 1 in epoch 3 */
    rt_recv(r, 2710, &no, &out);
    raft_status s = status_of(r);
    assert_int_equal(s.role, RAFT_ROLE_FOLLOWER);
    assert_int_equal(s.epoch, 3);
    assert_int_equal(s.leader_id, 1);
    assert_string_equal(out.reason, "following 1 in epoch 3: pre-vote rejected by 3");
    assert_int_equal(rt_count(&out, RAFT_ACTION_STORE_QSTATE), 0);
    assert_non_null(rt_sent(&out, RAFT_MSG_FETCH_REQUEST, 1));
    raft_destroy(r);
}

/* After EndQuorumEpoch the preferred successor's pre-vote may reach the other
 * follower before that follower's own EndQuorumEpoch does (different
 * connections): its refusal naming the resigned leader is stale, so the
 * successor stays prospective and asks again after the retry backoff
 * instead of following a leader that is gone (which cost a whole fetch
 * timeout in the SIGTERM failover test). */
static void test_refusal_naming_a_resigned_leader_is_retried(void **state)
{
    (void)state;
    raft_output out;
    raft *r = fresh_follower(&out);
    raft_msg eqe;
    memset(&eqe, 0, sizeof(eqe));
    eqe.type = RAFT_MSG_END_EPOCH_REQUEST;
    eqe.from = 1;
    eqe.to = 2;
    eqe.token = 77;
    eqe.u.end_epoch_request.leader_epoch = 3;
    eqe.u.end_epoch_request.leader_id = 1;
    eqe.u.end_epoch_request.preferred_successors[0] = 2;
    eqe.u.end_epoch_request.preferred_successors[1] = 3;
    eqe.u.end_epoch_request.preferred_count = 2;
    rt_recv(r, 200, &eqe, &out);
    if (status_of(r).role != RAFT_ROLE_PROSPECTIVE)
        rt_tick(r, 200, &out); /* the first successor starts at once */
    assert_int_equal(status_of(r).role, RAFT_ROLE_PROSPECTIVE);
    const raft_msg *pv = rt_sent(&out, RAFT_MSG_VOTE_REQUEST, 3);
    assert_non_null(pv);
    assert_true(pv->u.vote_request.pre_vote);

    raft_msg no = rt_vote_resp(3, 3, false);
    no.to = 2;
    no.u.vote_response.leader_id = 1; /* 3 has not heard that 1 resigned */
    rt_recv(r, 205, &no, &out);
    raft_status s = status_of(r);
    assert_int_equal(s.role, RAFT_ROLE_PROSPECTIVE);
    assert_int_equal(s.epoch, 3);

    /* Asked again once the retry backoff has passed. */
    assert_int_equal(out.wake_at_ms, 205 + 50 /* rt_config retry_backoff_ms */);
    rt_tick(r, 205 + 50 /* rt_config retry_backoff_ms */, &out);
    pv = rt_sent(&out, RAFT_MSG_VOTE_REQUEST, 3);
    assert_non_null(pv);
    assert_true(pv->u.vote_request.pre_vote);
    raft_msg yes = rt_vote_resp(3, 3, true);
    yes.to = 2;
    rt_recv(r, 205 + 50 /* rt_config retry_backoff_ms */ + 5, &yes, &out);
    s = status_of(r);
    assert_int_equal(s.role, RAFT_ROLE_CANDIDATE);
    assert_int_equal(s.epoch, 4);
    raft_destroy(r);
}

static void test_prospective_learns_newer_epoch_from_answer(void **state)
{
    (void)state;
    raft_output out;
    raft *r = fresh_follower(&out);
    rt_tick(r, 100 + 2600, &out);
    assert_int_equal(status_of(r).role, RAFT_ROLE_PROSPECTIVE);
    raft_msg no = rt_vote_resp(3, 5, false);
    no.to = 2;
    rt_recv(r, 2710, &no, &out);
    raft_status s = status_of(r);
    assert_int_equal(s.role, RAFT_ROLE_UNATTACHED);
    assert_int_equal(s.epoch, 5);
    raft_destroy(r);
}

static void test_begin_epoch_ends_prospective(void **state)
{
    (void)state;
    raft_output out;
    raft *r = fresh_follower(&out);
    rt_tick(r, 100 + 2600, &out);
    assert_int_equal(status_of(r).role, RAFT_ROLE_PROSPECTIVE);
    raft_msg m;
    memset(&m, 0, sizeof(m));
    m.type = RAFT_MSG_BEGIN_EPOCH_REQUEST;
    m.from = 3;
    m.to = 2;
    m.token = 4;
    m.u.begin_epoch_request.leader_epoch = 4;
    m.u.begin_epoch_request.leader_id = 3;
    rt_recv(r, 2720, &m, &out);
    raft_status s = status_of(r);
    assert_int_equal(s.role, RAFT_ROLE_FOLLOWER);
    assert_int_equal(s.epoch, 4);
    assert_int_equal(s.leader_id, 3);
    raft_destroy(r);
}

/* The minority side of a partition: nobody answers. For a minute of rounds
 * the epoch, vote and leader stay where they were and nothing is stored. */
static void test_partitioned_voter_keeps_its_epoch(void **state)
{
    (void)state;
    raft_output out;
    raft *r = fresh_follower(&out);
    int64_t now = 100;
    int rounds = 0, stores = 0;
    bool seen_prospective = false;
    while (now < 60000) {
        rt_tick(r, now, &out);
        stores += rt_count(&out, RAFT_ACTION_STORE_QSTATE);
        for (int i = 0; i < out.action_count; i++) {
            const raft_action *a = &out.actions[i];
            if (a->type == RAFT_ACTION_SEND && a->msg.type == RAFT_MSG_VOTE_REQUEST) {
                assert_true(a->msg.u.vote_request.pre_vote);
                assert_int_equal(a->msg.u.vote_request.candidate_epoch, 3);
                rounds++;
            }
        }
        raft_status s = status_of(r);
        assert_int_equal(s.epoch, 3);
        assert_true(s.role == RAFT_ROLE_FOLLOWER || s.role == RAFT_ROLE_PROSPECTIVE);
        seen_prospective |= s.role == RAFT_ROLE_PROSPECTIVE;
        assert_true(out.wake_at_ms > now);
        now = out.wake_at_ms;
    }
    assert_true(seen_prospective);
    assert_true(rounds >= 20); /* it kept asking (and backing off) */
    assert_int_equal(stores, 0);
    raft_status s = status_of(r);
    assert_int_equal(s.voted_id, -1);
    assert_int_equal(s.leader_id, 1);

    /* Healed: the next pre-vote that reaches 3 is granted; only now does it
     * stand, in epoch 4. */
    for (int i = 0; i < 1000 && !rt_sent(&out, RAFT_MSG_VOTE_REQUEST, 3); i++) {
        now = out.wake_at_ms;
        rt_tick(r, now, &out);
    }
    assert_non_null(rt_sent(&out, RAFT_MSG_VOTE_REQUEST, 3));
    raft_msg yes = rt_vote_resp(3, 3, true);
    yes.to = 2;
    rt_recv(r, now + 1, &yes, &out);
    s = status_of(r);
    assert_int_equal(s.role, RAFT_ROLE_CANDIDATE);
    assert_int_equal(s.epoch, 4);
    assert_int_equal(s.voted_id, 2);
    assert_string_equal(out.reason, "pre-vote granted by 3: candidate in epoch 4");
    raft_destroy(r);
}

static void test_single_voter_skips_pre_vote(void **state)
{
    (void)state;
    raft_config c = rt_config(1, 1);
    raft *r = rt_create(&c, 0, -1, -1, 0, NULL, 0);
    raft_output out;
    rt_tick(r, 0, &out);
    assert_int_equal(rt_sent_count(&out, RAFT_MSG_VOTE_REQUEST), 0);
    assert_int_equal(status_of(r).role, RAFT_ROLE_LEADER);
    assert_int_equal(status_of(r).epoch, 1);
    raft_destroy(r);
}

static void test_role_name(void **state)
{
    (void)state;
    assert_string_equal(raft_role_name(RAFT_ROLE_PROSPECTIVE), "prospective");
    assert_string_equal(raft_role_name(RAFT_ROLE_CANDIDATE), "candidate");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_answering_pre_vote_changes_no_state),
        cmocka_unit_test(test_pre_vote_needs_up_to_date_log),
        cmocka_unit_test(test_illegal_vote_epochs_are_invalid_requests),
        cmocka_unit_test(test_pre_vote_in_newer_epoch_moves_to_unattached),
        cmocka_unit_test(test_candidate_and_resigned_grant_pre_votes_by_log),
        cmocka_unit_test(test_late_pre_vote_grant_is_not_a_vote),
        cmocka_unit_test(test_vote_no_log_check_mutant_covers_pre_votes),
        cmocka_unit_test(test_follower_with_live_leader_rejects_pre_vote),
        cmocka_unit_test(test_leader_rejects_pre_vote),
        cmocka_unit_test(test_follower_without_recent_leader_grants_pre_vote),
        cmocka_unit_test(test_rejection_naming_the_leader_returns_to_it),
        cmocka_unit_test(test_refusal_naming_a_resigned_leader_is_retried),
        cmocka_unit_test(test_prospective_learns_newer_epoch_from_answer),
        cmocka_unit_test(test_begin_epoch_ends_prospective),
        cmocka_unit_test(test_partitioned_voter_keeps_its_epoch),
        cmocka_unit_test(test_single_voter_skips_pre_vote),
        cmocka_unit_test(test_role_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
