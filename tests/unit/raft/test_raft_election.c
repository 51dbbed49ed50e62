/* Elections with three voters: timeouts, vote requests, granting rules,
 * winning, BeginQuorumEpoch, backoff, observers and voter-set checks. */
#include "raft_test_util.h"

static void test_three_voters_elect_leader(void **state)
{
    (void)state;
    raft_config c = rt_config(1, 3);
    raft *r = rt_create(&c, 0, -1, -1, 0, NULL, 0);
    raft_output out;
    rt_tick(r, 0, &out);
    assert_int_equal(out.action_count, 0);
    assert_true(out.wake_at_ms >= 1000 && out.wake_at_ms < 2000);

    /* election timeout: prospective, pre-votes in its epoch 0 (KIP-996:
     * KafkaRaftClient.buildVoteRequest sends the current epoch), nothing
     * stored */
    int64_t t = out.wake_at_ms;
    rt_tick(r, t, &out);
    assert_int_equal(rt_count(&out, RAFT_ACTION_STORE_QSTATE), 0);
    assert_int_equal(rt_sent_count(&out, RAFT_MSG_VOTE_REQUEST), 2);
    const raft_msg *v = rt_sent(&out, RAFT_MSG_VOTE_REQUEST, 3);
    assert_non_null(v);
    assert_true(v->u.vote_request.pre_vote);
    assert_int_equal(v->u.vote_request.candidate_epoch, 0);
    assert_int_equal(v->u.vote_request.candidate_id, 1);
    raft_status s;
    raft_get_status(r, &s);
    assert_int_equal(s.role, RAFT_ROLE_PROSPECTIVE);
    assert_int_equal(s.epoch, 0);
    assert_int_equal(s.voted_id, -1);
    assert_string_equal(out.reason, "prospective in epoch 0: election timeout");

    /* a majority of pre-votes (itself and 2, answering from epoch 0) */
    raft_msg pre = rt_vote_resp(2, 0, true);
    rt_recv(r, t, &pre, &out);
    assert_int_equal(out.actions[0].type, RAFT_ACTION_STORE_QSTATE);
    assert_int_equal(out.actions[0].qstate.epoch, 1);
    assert_int_equal(out.actions[0].qstate.voted_id, 1);
    assert_int_equal(rt_sent_count(&out, RAFT_MSG_VOTE_REQUEST), 2);
    v = rt_sent(&out, RAFT_MSG_VOTE_REQUEST, 3);
    assert_non_null(v);
    assert_false(v->u.vote_request.pre_vote);
    assert_int_equal(v->u.vote_request.candidate_epoch, 1);
    assert_int_equal(v->u.vote_request.candidate_id, 1);
    assert_int_equal(v->from, 1);
    raft_get_status(r, &s);
    assert_int_equal(s.role, RAFT_ROLE_CANDIDATE);
    assert_string_equal(out.reason, "pre-vote granted by 2: candidate in epoch 1");

    raft_msg resp = rt_vote_resp(3, 1, true);
    rt_recv(r, 1500, &resp, &out);
    raft_get_status(r, &s);
    assert_int_equal(s.role, RAFT_ROLE_LEADER);
    assert_int_equal(out.actions[0].type, RAFT_ACTION_STORE_QSTATE);
    assert_int_equal(out.actions[0].qstate.leader_id, 1);
    assert_int_equal(out.actions[1].type, RAFT_ACTION_APPEND);
    assert_int_equal(rt_sent_count(&out, RAFT_MSG_BEGIN_EPOCH_REQUEST), 2);
    assert_true(rt_find(&out, RAFT_ACTION_FLUSH, 0) > rt_find(&out, RAFT_ACTION_SEND, 0));
    assert_non_null(strstr(out.reason, "1,3"));

    /* BeginQuorumEpoch is retried until acknowledged */
    raft_msg ack;
    memset(&ack, 0, sizeof(ack));
    ack.type = RAFT_MSG_BEGIN_EPOCH_RESPONSE;
    ack.from = 2;
    ack.u.begin_epoch_response.leader_id = 1;
    ack.u.begin_epoch_response.leader_epoch = 1;
    rt_recv(r, 1600, &ack, &out);
    rt_tick(r, 1500 + 500, &out); /* request timeout: counts as failed */
    assert_null(rt_sent(&out, RAFT_MSG_BEGIN_EPOCH_REQUEST, 3));
    rt_tick(r, 1500 + 500 + 50, &out); /* + retry backoff */
    assert_non_null(rt_sent(&out, RAFT_MSG_BEGIN_EPOCH_REQUEST, 3));
    assert_null(rt_sent(&out, RAFT_MSG_BEGIN_EPOCH_REQUEST, 2));
    raft_destroy(r);
}

static void test_vote_granted_once_per_epoch(void **state)
{
    (void)state;
    raft_config c = rt_config(1, 3);
    raft *r = rt_create(&c, 2, -1, -1, 0, NULL, 0);
    raft_output out;
    raft_msg req = rt_vote_req(2, 3, 0, 0, 77);
    rt_recv(r, 10, &req, &out);
    /* unattached(3) then voted(3, 2), each stored before the response */
    assert_int_equal(out.actions[0].type, RAFT_ACTION_STORE_QSTATE);
    assert_int_equal(out.actions[0].qstate.epoch, 3);
    assert_int_equal(out.actions[1].type, RAFT_ACTION_STORE_QSTATE);
    assert_int_equal(out.actions[1].qstate.voted_id, 2);
    const raft_msg *resp = rt_sent(&out, RAFT_MSG_VOTE_RESPONSE, 2);
    assert_non_null(resp);
    assert_int_equal(resp->token, 77);
    assert_true(resp->u.vote_response.vote_granted);
    assert_true(rt_find(&out, RAFT_ACTION_SEND, 0) > 1);

    req = rt_vote_req(3, 3, 0, 0, 78);
    rt_recv(r, 11, &req, &out);
    resp = rt_sent(&out, RAFT_MSG_VOTE_RESPONSE, 3);
    assert_false(resp->u.vote_response.vote_granted);
    assert_int_equal(rt_count(&out, RAFT_ACTION_STORE_QSTATE), 0);

    req = rt_vote_req(2, 3, 0, 0, 79); /* the same candidate retrying */
    rt_recv(r, 12, &req, &out);
    assert_true(rt_sent(&out, RAFT_MSG_VOTE_RESPONSE, 2)->u.vote_response.vote_granted);

    req = rt_vote_req(3, 2, 0, 0, 80); /* stale epoch */
    rt_recv(r, 13, &req, &out);
    assert_int_equal(rt_sent(&out, RAFT_MSG_VOTE_RESPONSE, 3)->u.vote_response.partition_error,
                     KAFKA_FENCED_LEADER_EPOCH);
    raft_destroy(r);
}

static void test_vote_refused_to_stale_log(void **state)
{
    (void)state;
    raft_config c = rt_config(1, 3);
    raft_epoch_entry ep[] = {{1, 0}, {2, 5}};
    raft *r = rt_create(&c, 2, -1, -1, 10, ep, 2);
    raft_output out;
    raft_msg req = rt_vote_req(2, 3, 2, 9, 1); /* same last epoch, shorter */
    rt_recv(r, 1, &req, &out);
    assert_false(rt_sent(&out, RAFT_MSG_VOTE_RESPONSE, 2)->u.vote_response.vote_granted);
    req = rt_vote_req(3, 3, 1, 100, 2); /* older last epoch, longer */
    rt_recv(r, 2, &req, &out);
    assert_false(rt_sent(&out, RAFT_MSG_VOTE_RESPONSE, 3)->u.vote_response.vote_granted);
    req = rt_vote_req(3, 3, 2, 10, 3); /* equal: up to date */
    rt_recv(r, 3, &req, &out);
    assert_true(rt_sent(&out, RAFT_MSG_VOTE_RESPONSE, 3)->u.vote_response.vote_granted);
    raft_destroy(r);
}

static void test_vote_compares_full_log_not_flushed(void **state)
{
    (void)state;
    /* a follower whose log holds unflushed data still counts it */
    raft_config c = rt_config(1, 3);
    raft *r = rt_leader(3, 0);
    raft_output out;
    rt_append(r, 2100, 5, &out); /* end 6, flushed 1 */
    raft_msg req = rt_vote_req(2, 2, 1, 1, 5);
    rt_recv(r, 2200, &req, &out);
    assert_false(rt_sent(&out, RAFT_MSG_VOTE_RESPONSE, 2)->u.vote_response.vote_granted);
    (void)c;
    raft_destroy(r);
}

static void test_vote_from_non_voter_inconsistent(void **state)
{
    (void)state;
    raft_config c = rt_config(1, 3);
    raft *r = rt_create(&c, 1, -1, -1, 0, NULL, 0);
    raft_output out;
    raft_msg req = rt_vote_req(9, 2, 0, 0, 4);
    rt_recv(r, 1, &req, &out);
    const raft_msg *resp = rt_sent(&out, RAFT_MSG_VOTE_RESPONSE, 9);
    assert_int_equal(resp->u.vote_response.partition_error, KAFKA_INCONSISTENT_VOTER_SET);
    assert_false(resp->u.vote_response.vote_granted);
    assert_int_equal(rt_count(&out, RAFT_ACTION_STORE_QSTATE), 0);
    raft_destroy(r);
}

static void test_observer_never_votes_or_campaigns(void **state)
{
    (void)state;
    raft_config c = rt_config(7, 3); /* voters 1,2,3; 7 observes */
    raft *r = rt_create(&c, 0, -1, -1, 0, NULL, 0);
    raft_output out;
    raft_msg req = rt_vote_req(2, 1, 0, 0, 4);
    rt_recv(r, 1, &req, &out);
    assert_int_equal(rt_sent(&out, RAFT_MSG_VOTE_RESPONSE, 2)->u.vote_response.partition_error,
                     KAFKA_INCONSISTENT_VOTER_SET);
    for (int64_t t = 0; t < 20000; t += 100) {
        rt_tick(r, t, &out);
        assert_int_equal(rt_sent_count(&out, RAFT_MSG_VOTE_REQUEST), 0);
        raft_status s;
        raft_get_status(r, &s);
        assert_int_not_equal(s.role, RAFT_ROLE_CANDIDATE);
    }
    raft_destroy(r);
}

static void test_rejected_by_majority_backs_off_then_retries(void **state)
{
    (void)state;
    raft_config c = rt_config(1, 3);
    raft *r = rt_create(&c, 0, -1, -1, 0, NULL, 0);
    raft_output out;
    rt_tick(r, 2000, &out);
    rt_pre_vote_granted(r, 2000, 2, 1, &out);
    raft_msg no = rt_vote_resp(2, 1, false);
    rt_recv(r, 2001, &no, &out);
    raft_status s;
    raft_get_status(r, &s);
    assert_int_equal(s.epoch, 1); /* one rejection is not a majority */
    no = rt_vote_resp(3, 1, false);
    rt_recv(r, 2002, &no, &out);
    raft_get_status(r, &s);
    /* backing off (at least 100 ms, capped by election_backoff_max_ms) */
    assert_int_equal(s.epoch, 1);
    assert_int_equal(rt_sent_count(&out, RAFT_MSG_VOTE_REQUEST), 0);
    assert_true(out.wake_at_ms >= 2002 + 100 && out.wake_at_ms <= 2002 + 1000);
    int64_t wake = out.wake_at_ms;
    rt_tick(r, wake - 1, &out);
    raft_get_status(r, &s);
    assert_int_equal(s.epoch, 1);
    rt_tick(r, wake, &out);
    raft_get_status(r, &s);
    /* a failed candidate asks for pre-votes again before bumping its epoch */
    assert_int_equal(s.epoch, 1);
    assert_int_equal(s.voted_id, 1);
    assert_int_equal(s.role, RAFT_ROLE_PROSPECTIVE);
    assert_int_equal(rt_count(&out, RAFT_ACTION_STORE_QSTATE), 0);
    assert_int_equal(rt_sent_count(&out, RAFT_MSG_VOTE_REQUEST), 2);
    /* in its current epoch 1 (buildVoteRequest) */
    assert_int_equal(rt_sent(&out, RAFT_MSG_VOTE_REQUEST, 2)->u.vote_request.candidate_epoch, 1);
    assert_true(rt_sent(&out, RAFT_MSG_VOTE_REQUEST, 2)->u.vote_request.pre_vote);
    rt_pre_vote_granted(r, wake, 3, 2, &out);
    raft_get_status(r, &s);
    assert_int_equal(s.epoch, 2);
    assert_int_equal(s.role, RAFT_ROLE_CANDIDATE);
    raft_destroy(r);
}

static void test_vote_request_retried_after_timeout(void **state)
{
    (void)state;
    raft_config c = rt_config(1, 3);
    raft *r = rt_create(&c, 0, -1, -1, 0, NULL, 0);
    raft_output out;
    rt_tick(r, 1999, &out);
    assert_int_equal(rt_sent_count(&out, RAFT_MSG_VOTE_REQUEST), 2);
    rt_tick(r, 2100, &out);
    assert_int_equal(rt_sent_count(&out, RAFT_MSG_VOTE_REQUEST), 0);
    rt_tick(r, 1999 + 500, &out); /* request timeout */
    rt_tick(r, 1999 + 550, &out); /* + retry backoff */
    assert_int_equal(rt_sent_count(&out, RAFT_MSG_VOTE_REQUEST), 2);
    raft_destroy(r);
}

static void test_begin_epoch_makes_follower(void **state)
{
    (void)state;
    raft_config c = rt_config(2, 3);
    raft *r = rt_create(&c, 1, -1, -1, 0, NULL, 0);
    raft_output out;
    raft_msg m;
    memset(&m, 0, sizeof(m));
    m.type = RAFT_MSG_BEGIN_EPOCH_REQUEST;
    m.from = 1;
    m.token = 9;
    m.u.begin_epoch_request.leader_epoch = 3;
    m.u.begin_epoch_request.leader_id = 1;
    rt_recv(r, 5, &m, &out);
    assert_int_equal(out.actions[0].type, RAFT_ACTION_STORE_QSTATE);
    assert_int_equal(out.actions[0].qstate.leader_id, 1);
    assert_int_equal(out.actions[0].qstate.epoch, 3);
    const raft_msg *resp = rt_sent(&out, RAFT_MSG_BEGIN_EPOCH_RESPONSE, 1);
    assert_int_equal(resp->token, 9);
    assert_int_equal(resp->u.begin_epoch_response.partition_error, 0);
    assert_non_null(rt_sent(&out, RAFT_MSG_FETCH_REQUEST, 1));

    m.u.begin_epoch_request.leader_epoch = 2; /* stale */
    rt_recv(r, 6, &m, &out);
    assert_int_equal(rt_sent(&out, RAFT_MSG_BEGIN_EPOCH_RESPONSE, 1)
                         ->u.begin_epoch_response.partition_error,
                     KAFKA_FENCED_LEADER_EPOCH);
    raft_destroy(r);
}

static void test_restart_rules(void **state)
{
    (void)state;
    raft_config c = rt_config(1, 3);
    raft_status s;
    raft *r = rt_create(&c, 4, 1, 1, 0, NULL, 0);
    raft_get_status(r, &s);
    assert_int_equal(s.role, RAFT_ROLE_RESIGNED);
    assert_int_equal(s.epoch, 4);
    raft_output out;
    rt_tick(r, 1, &out);
    assert_int_equal(rt_sent_count(&out, RAFT_MSG_END_EPOCH_REQUEST), 2);
    raft_destroy(r);

    r = rt_create(&c, 4, -1, 2, 0, NULL, 0);
    raft_get_status(r, &s);
    assert_int_equal(s.role, RAFT_ROLE_FOLLOWER);
    raft_destroy(r);
    r = rt_create(&c, 4, 3, -1, 0, NULL, 0);
    raft_get_status(r, &s);
    assert_int_equal(s.role, RAFT_ROLE_VOTED);
    raft_destroy(r);
}

static void test_hopeless_candidates_do_not_postpone_election(void **state)
{
    (void)state;
    raft_config c = rt_config(1, 3);
    raft_epoch_entry ep[] = {{1, 0}};
    raft *r = rt_create(&c, 1, -1, -1, 10, ep, 1);
    raft_output out;
    rt_tick(r, 0, &out);
    int64_t deadline = out.wake_at_ms; /* < 2000 */
    raft_msg req = rt_vote_req(2, 2, 0, 0, 1); /* stale log: refused */
    rt_recv(r, deadline - 10, &req, &out);
    assert_false(rt_sent(&out, RAFT_MSG_VOTE_RESPONSE, 2)->u.vote_response.vote_granted);
    assert_int_equal(out.wake_at_ms, deadline);
    rt_tick(r, deadline, &out);
    raft_status s;
    raft_get_status(r, &s);
    assert_int_equal(s.role, RAFT_ROLE_PROSPECTIVE);
    assert_int_equal(s.epoch, 2);
    raft_destroy(r);
}

static void test_backoff_at_cap_stays_random(void **state)
{
    (void)state;
    /* Two prospective voters refusing each other must not retry in lockstep
     * once the exponential backoff reaches election_backoff_max_ms. */
    raft_config c = rt_config(1, 3);
    raft *r = rt_create(&c, 0, -1, -1, 0, NULL, 0);
    raft_output out;
    rt_tick(r, 2000, &out);
    int64_t now = 2000;
    int below_cap = 0;
    for (int round = 1; round <= 24; round++) {
        raft_status s;
        raft_get_status(r, &s);
        assert_int_equal(s.role, RAFT_ROLE_PROSPECTIVE);
        assert_int_equal(s.epoch, 0); /* failed pre-votes never move the epoch */
        raft_msg no = rt_vote_resp(2, s.epoch, false);
        rt_recv(r, now + 1, &no, &out);
        no = rt_vote_resp(3, s.epoch, false);
        rt_recv(r, now + 2, &no, &out);
        int64_t wait = out.wake_at_ms - (now + 2);
        assert_true(wait >= 100 && wait <= 1000);
        if (round > 12 && wait < 1000)
            below_cap++;
        now = out.wake_at_ms;
        rt_tick(r, now, &out);
    }
    assert_true(below_cap >= 6); /* of 12 rounds at the cap */
    raft_destroy(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_three_voters_elect_leader),
        cmocka_unit_test(test_vote_granted_once_per_epoch),
        cmocka_unit_test(test_vote_refused_to_stale_log),
        cmocka_unit_test(test_vote_compares_full_log_not_flushed),
        cmocka_unit_test(test_vote_from_non_voter_inconsistent),
        cmocka_unit_test(test_observer_never_votes_or_campaigns),
        cmocka_unit_test(test_rejected_by_majority_backs_off_then_retries),
        cmocka_unit_test(test_vote_request_retried_after_timeout),
        cmocka_unit_test(test_begin_epoch_makes_follower),
        cmocka_unit_test(test_restart_rules),
        cmocka_unit_test(test_hopeless_candidates_do_not_postpone_election),
        cmocka_unit_test(test_backoff_at_cap_stays_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
