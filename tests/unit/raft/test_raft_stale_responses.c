/* Responses carry no request id: a duplicate, or a late answer to a request
 * the core already gave up on, must not count as the answer to the request
 * in flight (Fetch, Vote, BeginQuorumEpoch, EndQuorumEpoch). */
#include "raft_test_util.h"

static rt_records g_recs;

static raft_msg diverging_resp(int32_t epoch, int64_t end)
{
    raft_msg m = rt_fetch_resp(3, -1, &g_recs);
    m.u.fetch_response.records = NULL;
    m.u.fetch_response.records_len = 0;
    m.u.fetch_response.diverging_epoch = epoch;
    m.u.fetch_response.diverging_end_offset = end;
    return m;
}

/* Node 2 of voters {1,2,3}, following 1 in epoch 3; its first fetch leaves
 * at t=0 (request timeout 500 + max wait 400: expires at 900). */
static raft *follower(int64_t end, const raft_epoch_entry *ep, int n, raft_output *out)
{
    raft_config c = rt_config(2, 3);
    raft *r = rt_create(&c, 3, -1, 1, end, ep, n);
    rt_tick(r, 0, out);
    assert_non_null(rt_sent(out, RAFT_MSG_FETCH_REQUEST, 1));
    return r;
}

static int64_t log_end(const raft *r)
{
    raft_status s;
    raft_get_status(r, &s);
    return s.log_end_offset;
}

static const raft_fetch_request *sent_fetch(const raft_output *out)
{
    const raft_msg *m = rt_sent(out, RAFT_MSG_FETCH_REQUEST, 1);
    assert_non_null(m);
    return &m->u.fetch_request;
}

static void test_duplicate_records_response_ignored(void **state)
{
    (void)state;
    raft_output out;
    raft *r = follower(0, NULL, 0, &out);
    g_recs.len = 0;
    rt_records_add(&g_recs, 0, 3, 3);
    raft_msg resp = rt_fetch_resp(3, 0, &g_recs);
    rt_recv(r, 5, &resp, &out);
    assert_int_equal(rt_count(&out, RAFT_ACTION_APPEND), 1);
    rt_flushed(r, 10, 3, &out);
    assert_int_equal(sent_fetch(&out)->fetch_offset, 3);

    rt_recv(r, 15, &resp, &out); /* the network delivers it again */
    assert_int_equal(rt_count(&out, RAFT_ACTION_APPEND), 0);
    assert_int_equal(rt_count(&out, RAFT_ACTION_TRUNCATE), 0);
    assert_int_equal(rt_sent_count(&out, RAFT_MSG_FETCH_REQUEST), 0);
    rt_tick(r, 100, &out); /* the fetch at 3 is still the one in flight */
    assert_int_equal(rt_sent_count(&out, RAFT_MSG_FETCH_REQUEST), 0);
    assert_int_equal(log_end(r), 3);

    rt_tick(r, 910, &out); /* it times out, then is retried after the backoff */
    assert_int_equal(rt_sent_count(&out, RAFT_MSG_FETCH_REQUEST), 0);
    rt_tick(r, 960, &out);
    assert_int_equal(sent_fetch(&out)->fetch_offset, 3);
    raft_destroy(r);
}

static void test_duplicate_diverging_response_after_catch_up(void **state)
{
    (void)state;
    raft_epoch_entry ep[] = {{1, 0}, {2, 10}};
    raft_output out;
    raft *r = follower(15, ep, 2, &out);
    raft_msg div = diverging_resp(1, 10);
    rt_recv(r, 5, &div, &out);
    assert_int_equal(rt_find(&out, RAFT_ACTION_TRUNCATE, 0), 0);
    assert_int_equal(out.actions[0].offset, 10);
    assert_int_equal(sent_fetch(&out)->fetch_offset, 10);

    g_recs.len = 0;
    rt_records_add(&g_recs, 10, 3, 2);
    raft_msg recs = rt_fetch_resp(3, -1, &g_recs);
    rt_recv(r, 10, &recs, &out);
    assert_int_equal(rt_count(&out, RAFT_ACTION_APPEND), 1);
    rt_flushed(r, 20, 12, &out);
    assert_int_equal(sent_fetch(&out)->fetch_offset, 12);
    assert_int_equal(sent_fetch(&out)->last_fetched_epoch, 3);

    /* a second copy of the diverging answer: the leader already confirmed
     * our log up to 12 in this epoch, so it cannot answer the fetch at 12 */
    rt_recv(r, 25, &div, &out);
    assert_int_equal(rt_count(&out, RAFT_ACTION_TRUNCATE), 0);
    assert_int_equal(rt_sent_count(&out, RAFT_MSG_FETCH_REQUEST), 0);
    assert_int_equal(log_end(r), 12);
    raft_destroy(r);
}

static void test_duplicate_diverging_response_does_not_refetch(void **state)
{
    (void)state;
    raft_epoch_entry ep[] = {{1, 0}, {2, 10}};
    raft_output out;
    raft *r = follower(15, ep, 2, &out);
    raft_msg div = diverging_resp(1, 10);
    rt_recv(r, 5, &div, &out);
    assert_int_equal(sent_fetch(&out)->fetch_offset, 10);
    assert_int_equal(sent_fetch(&out)->last_fetched_epoch, 1);
    /* the copy does not match the fetch at 10 (epoch 1): no second fetch loop */
    rt_recv(r, 6, &div, &out);
    assert_int_equal(rt_count(&out, RAFT_ACTION_TRUNCATE), 0);
    assert_int_equal(rt_sent_count(&out, RAFT_MSG_FETCH_REQUEST), 0);
    rt_tick(r, 200, &out);
    assert_int_equal(rt_sent_count(&out, RAFT_MSG_FETCH_REQUEST), 0);
    raft_destroy(r);
}

static void test_duplicate_empty_response_does_not_refetch(void **state)
{
    (void)state;
    raft_output out;
    raft *r = follower(0, NULL, 0, &out);
    g_recs.len = 0;
    raft_msg empty = rt_fetch_resp(3, -1, &g_recs);
    rt_recv(r, 400, &empty, &out); /* the long poll expired */
    assert_int_equal(rt_sent_count(&out, RAFT_MSG_FETCH_REQUEST), 1);
    rt_recv(r, 410, &empty, &out); /* a copy: not the answer to the new fetch */
    assert_int_equal(rt_sent_count(&out, RAFT_MSG_FETCH_REQUEST), 0);
    rt_recv(r, 800, &empty, &out); /* the real answer */
    assert_int_equal(rt_sent_count(&out, RAFT_MSG_FETCH_REQUEST), 1);
    raft_destroy(r);
}

static void test_late_fetch_response_after_timeout_ignored(void **state)
{
    (void)state;
    raft_output out;
    raft *r = follower(0, NULL, 0, &out);
    rt_tick(r, 900, &out); /* our own request timeout */
    rt_tick(r, 950, &out);
    assert_int_equal(rt_sent_count(&out, RAFT_MSG_FETCH_REQUEST), 1);
    g_recs.len = 0;
    raft_msg late = rt_fetch_resp(3, -1, &g_recs);
    rt_recv(r, 960, &late, &out);
    assert_int_equal(rt_sent_count(&out, RAFT_MSG_FETCH_REQUEST), 0);
    rt_tick(r, 1100, &out);
    assert_int_equal(rt_sent_count(&out, RAFT_MSG_FETCH_REQUEST), 0);
    raft_destroy(r);
}

static void test_fetch_response_from_older_epoch_ignored(void **state)
{
    (void)state;
    raft_output out;
    raft *r = follower(0, NULL, 0, &out);
    g_recs.len = 0;
    raft_msg old = rt_fetch_resp(2, -1, &g_recs);
    rt_recv(r, 5, &old, &out);
    rt_tick(r, 100, &out);
    assert_int_equal(rt_sent_count(&out, RAFT_MSG_FETCH_REQUEST), 0);
    raft_status s;
    raft_get_status(r, &s);
    assert_int_equal(s.role, RAFT_ROLE_FOLLOWER);
    assert_int_equal(s.epoch, 3);
    raft_destroy(r);
}

static enum raft_role role_of(const raft *r)
{
    raft_status s;
    raft_get_status(r, &s);
    return s.role;
}

/* Node 1 of five voters, candidate in epoch 1 at t=2000 (pre-votes from 2
 * and 3; a duplicate pre-vote counts once). */
static raft *candidate5(raft_output *out)
{
    raft_config c = rt_config(1, 5);
    raft *r = rt_create(&c, 0, -1, -1, 0, NULL, 0);
    rt_tick(r, 0, out);
    rt_tick(r, 2000, out);
    assert_int_equal(rt_sent_count(out, RAFT_MSG_VOTE_REQUEST), 4);
    raft_msg pre = rt_vote_resp(2, 0, true);
    rt_recv(r, 2000, &pre, out);
    rt_recv(r, 2000, &pre, out);
    assert_int_equal(role_of(r), RAFT_ROLE_PROSPECTIVE); /* 2 of 5, not 3 */
    pre = rt_vote_resp(3, 0, true);
    rt_recv(r, 2000, &pre, out);
    assert_int_equal(role_of(r), RAFT_ROLE_CANDIDATE);
    assert_int_equal(rt_sent_count(out, RAFT_MSG_VOTE_REQUEST), 4);
    return r;
}

static void test_duplicate_vote_counted_once(void **state)
{
    (void)state;
    raft_output out;
    raft *r = candidate5(&out);
    raft_msg yes = rt_vote_resp(2, 1, true);
    rt_recv(r, 2001, &yes, &out);
    rt_recv(r, 2002, &yes, &out);
    assert_int_equal(role_of(r), RAFT_ROLE_CANDIDATE); /* 2 of 5, not 3 */
    raft_msg yes3 = rt_vote_resp(3, 1, true);
    rt_recv(r, 2003, &yes3, &out);
    assert_int_equal(role_of(r), RAFT_ROLE_LEADER);
    raft_destroy(r);
}

static void test_late_vote_after_timeout_not_counted(void **state)
{
    (void)state;
    raft_output out;
    raft *r = candidate5(&out);
    raft_msg yes = rt_vote_resp(2, 1, true);
    rt_recv(r, 2001, &yes, &out);
    rt_tick(r, 2500, &out); /* the requests to 3, 4, 5 time out */
    raft_msg late = rt_vote_resp(3, 1, true);
    rt_recv(r, 2510, &late, &out);
    assert_int_equal(role_of(r), RAFT_ROLE_CANDIDATE);
    rt_tick(r, 2550, &out); /* retried after the backoff */
    assert_non_null(rt_sent(&out, RAFT_MSG_VOTE_REQUEST, 3));
    assert_null(rt_sent(&out, RAFT_MSG_VOTE_REQUEST, 2));
    rt_recv(r, 2560, &late, &out);
    assert_int_equal(role_of(r), RAFT_ROLE_LEADER);
    raft_destroy(r);
}

static raft_msg epoch_resp(enum raft_msg_type type, int32_t from, int32_t epoch)
{
    raft_msg m;
    memset(&m, 0, sizeof(m));
    m.type = type;
    m.from = from;
    m.to = 1;
    m.u.begin_epoch_response.leader_id = 1;
    m.u.begin_epoch_response.leader_epoch = epoch;
    return m;
}

static void test_stale_begin_epoch_response_keeps_request_in_flight(void **state)
{
    (void)state;
    raft *r = rt_leader(3, 0); /* BeginQuorumEpoch to 2 and 3 left at 2001 */
    raft_output out;
    raft_msg old = epoch_resp(RAFT_MSG_BEGIN_EPOCH_RESPONSE, 3, 0);
    rt_recv(r, 2010, &old, &out);
    assert_null(rt_sent(&out, RAFT_MSG_BEGIN_EPOCH_REQUEST, 3)); /* no second one */
    rt_tick(r, 2100, &out);
    assert_null(rt_sent(&out, RAFT_MSG_BEGIN_EPOCH_REQUEST, 3));
    raft_destroy(r);
}

static void test_late_begin_epoch_ack_after_timeout_not_counted(void **state)
{
    (void)state;
    raft *r = rt_leader(3, 0);
    raft_output out;
    rt_tick(r, 2501, &out); /* the requests time out */
    raft_msg late = epoch_resp(RAFT_MSG_BEGIN_EPOCH_RESPONSE, 3, 1);
    rt_recv(r, 2510, &late, &out);
    rt_tick(r, 2551, &out);
    assert_non_null(rt_sent(&out, RAFT_MSG_BEGIN_EPOCH_REQUEST, 3));
    rt_recv(r, 2560, &late, &out); /* answers the retry: acknowledged */
    rt_tick(r, 3200, &out);
    assert_null(rt_sent(&out, RAFT_MSG_BEGIN_EPOCH_REQUEST, 3));
    raft_destroy(r);
}

static void shutdown_at(raft *r, int64_t now, raft_output *out)
{
    raft_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.type = RAFT_EVENT_SHUTDOWN;
    ev.now_ms = now;
    raft_step(r, &ev, out);
}

static void test_stale_end_epoch_ack_not_counted(void **state)
{
    (void)state;
    raft *r = rt_leader(3, 0);
    raft_output out;
    shutdown_at(r, 2200, &out);
    assert_int_equal(rt_sent_count(&out, RAFT_MSG_END_EPOCH_REQUEST), 2);
    raft_msg ack = epoch_resp(RAFT_MSG_END_EPOCH_RESPONSE, 2, 1);
    rt_recv(r, 2210, &ack, &out);
    assert_false(out.shutdown_complete);
    raft_msg old = epoch_resp(RAFT_MSG_END_EPOCH_RESPONSE, 3, 0);
    rt_recv(r, 2220, &old, &out);
    assert_false(out.shutdown_complete);
    rt_recv(r, 2221, &ack, &out); /* a copy of 2's ack */
    assert_false(out.shutdown_complete);
    ack.from = 3;
    rt_recv(r, 2230, &ack, &out);
    assert_true(out.shutdown_complete);
    raft_destroy(r);
}

static void test_late_end_epoch_ack_after_timeout_not_counted(void **state)
{
    (void)state;
    raft *r = rt_leader(3, 0);
    raft_output out;
    rt_tick(r, 4001, &out); /* check quorum fails: resigned */
    assert_int_equal(role_of(r), RAFT_ROLE_RESIGNED);
    assert_int_equal(rt_sent_count(&out, RAFT_MSG_END_EPOCH_REQUEST), 2);
    rt_tick(r, 4501, &out); /* the requests time out */
    raft_msg late = epoch_resp(RAFT_MSG_END_EPOCH_RESPONSE, 3, 1);
    rt_recv(r, 4510, &late, &out);
    rt_tick(r, 4551, &out);
    assert_non_null(rt_sent(&out, RAFT_MSG_END_EPOCH_REQUEST, 3));
    raft_destroy(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_duplicate_records_response_ignored),
        cmocka_unit_test(test_duplicate_diverging_response_after_catch_up),
        cmocka_unit_test(test_duplicate_diverging_response_does_not_refetch),
        cmocka_unit_test(test_duplicate_empty_response_does_not_refetch),
        cmocka_unit_test(test_late_fetch_response_after_timeout_ignored),
        cmocka_unit_test(test_fetch_response_from_older_epoch_ignored),
        cmocka_unit_test(test_duplicate_vote_counted_once),
        cmocka_unit_test(test_late_vote_after_timeout_not_counted),
        cmocka_unit_test(test_stale_begin_epoch_response_keeps_request_in_flight),
        cmocka_unit_test(test_late_begin_epoch_ack_after_timeout_not_counted),
        cmocka_unit_test(test_stale_end_epoch_ack_not_counted),
        cmocka_unit_test(test_late_end_epoch_ack_after_timeout_not_counted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
