/* The leader: serving Fetch (epoch checks, divergence, long polls, flushed
 * cap), high watermark counting, check quorum, and graceful shutdown. */
#include "raft_test_util.h"

static const raft_fetch_response *fetch_resp(const raft_output *out, int32_t to)
{
    const raft_msg *m = rt_sent(out, RAFT_MSG_FETCH_RESPONSE, to);
    assert_non_null(m);
    return &m->u.fetch_response;
}

static void test_fetch_epoch_validation(void **state)
{
    (void)state;
    raft *r = rt_leader(3, 0);
    raft_output out;
    raft_msg f = rt_fetch_req(2, 0, 0, 0, 0, 11);
    rt_recv(r, 2100, &f, &out);
    assert_int_equal(fetch_resp(&out, 2)->partition_error, KAFKA_FENCED_LEADER_EPOCH);
    assert_int_equal(rt_sent(&out, RAFT_MSG_FETCH_RESPONSE, 2)->token, 11);
    assert_int_equal(fetch_resp(&out, 2)->leader_id, 1);
    assert_int_equal(fetch_resp(&out, 2)->leader_epoch, 1);
    f = rt_fetch_req(2, 5, 0, 0, 0, 12);
    rt_recv(r, 2101, &f, &out);
    assert_int_equal(fetch_resp(&out, 2)->partition_error, KAFKA_UNKNOWN_LEADER_EPOCH);
    raft_destroy(r);

    raft_config c = rt_config(2, 3);
    r = rt_create(&c, 3, -1, 1, 0, NULL, 0);
    f = rt_fetch_req(3, 3, 0, 0, 0, 13);
    rt_recv(r, 1, &f, &out);
    const raft_fetch_response *fr = fetch_resp(&out, 3);
    assert_int_equal(fr->partition_error, KAFKA_NOT_LEADER_OR_FOLLOWER);
    assert_int_equal(fr->leader_id, 1);
    assert_int_equal(fr->leader_epoch, 3);
    raft_destroy(r);
}

static void test_fetch_diverging(void **state)
{
    (void)state;
    /* log: epoch 1 at 0..9, epoch 3 at 10..; elected in epoch 4 at 20 */
    raft_config c = rt_config(1, 3);
    raft_epoch_entry ep[] = {{1, 0}, {3, 10}};
    raft *r = rt_create(&c, 3, -1, -1, 20, ep, 2);
    raft_output out;
    rt_win_election(r, 4, 21, &out);

    /* follower has epoch 2 up to 15: largest epoch <= 2 is 1, ending at 10 */
    raft_msg f = rt_fetch_req(2, 4, 15, 2, 0, 1);
    rt_recv(r, 2003, &f, &out);
    const raft_fetch_response *fr = fetch_resp(&out, 2);
    assert_int_equal(fr->partition_error, 0);
    assert_int_equal(fr->diverging_epoch, 1);
    assert_int_equal(fr->diverging_end_offset, 10);
    assert_int_equal(fr->read_offset, fr->read_end_offset);
    raft_status s;
    raft_get_status(r, &s);
    assert_int_equal(s.voters[1].log_end_offset, -1); /* not recorded */

    /* epoch 1 but past its end */
    f = rt_fetch_req(2, 4, 12, 1, 0, 2);
    rt_recv(r, 2004, &f, &out);
    fr = fetch_resp(&out, 2);
    assert_int_equal(fr->diverging_epoch, 1);
    assert_int_equal(fr->diverging_end_offset, 10);

    /* consistent: epoch 3 up to 15 */
    f = rt_fetch_req(2, 4, 15, 3, 0, 3);
    rt_recv(r, 2005, &f, &out);
    fr = fetch_resp(&out, 2);
    assert_int_equal(fr->diverging_epoch, -1);
    assert_int_equal(fr->read_offset, 15);
    assert_int_equal(fr->read_end_offset, 21);
    raft_destroy(r);
}

static void test_fetch_capped_at_flushed_and_parked(void **state)
{
    (void)state;
    raft *r = rt_leader(3, 0);
    raft_output out;
    rt_append(r, 2100, 4, &out); /* end 5, flushed 1 */
    raft_msg f = rt_fetch_req(2, 1, 0, 0, 400, 21);
    rt_recv(r, 2101, &f, &out);
    const raft_fetch_response *fr = fetch_resp(&out, 2);
    assert_int_equal(fr->read_offset, 0);
    assert_int_equal(fr->read_end_offset, 1); /* never the unflushed tail */
    assert_int_equal(fr->read_max_bytes, 1000);

    /* caught up with what is flushed: the long poll waits */
    f = rt_fetch_req(2, 1, 1, 1, 400, 22);
    rt_recv(r, 2102, &f, &out);
    assert_null(rt_sent(&out, RAFT_MSG_FETCH_RESPONSE, 2));
    assert_true(out.wake_at_ms <= 2102 + 400);
    /* HW moved to 1 when node 2 reached 1 (both at 1, > epoch start 0) */
    assert_true(out.high_watermark_changed);
    assert_int_equal(out.high_watermark, 1);

    rt_flushed(r, 2150, 5, &out); /* new flushed data answers it */
    fr = fetch_resp(&out, 2);
    assert_int_equal(rt_sent(&out, RAFT_MSG_FETCH_RESPONSE, 2)->token, 22);
    assert_int_equal(fr->read_offset, 1);
    assert_int_equal(fr->read_end_offset, 5);

    /* expiry answers with no records */
    f = rt_fetch_req(3, 1, 5, 1, 400, 23);
    rt_recv(r, 2200, &f, &out);
    assert_null(rt_sent(&out, RAFT_MSG_FETCH_RESPONSE, 3));
    rt_tick(r, 2599, &out);
    assert_null(rt_sent(&out, RAFT_MSG_FETCH_RESPONSE, 3));
    rt_tick(r, 2600, &out);
    fr = fetch_resp(&out, 3);
    assert_int_equal(fr->read_offset, fr->read_end_offset);
    assert_int_equal(fr->high_watermark, 5);
    raft_destroy(r);
}

static void test_parked_answered_on_hw_move_and_on_leadership_loss(void **state)
{
    (void)state;
    raft *r = rt_leader(3, 0);
    raft_output out;
    raft_msg f = rt_fetch_req(3, 1, 1, 1, 400, 31); /* parks; HW -> 1 */
    rt_recv(r, 2100, &f, &out);
    assert_int_equal(out.high_watermark, 1);
    rt_append(r, 2110, 2, &out);
    rt_flushed(r, 2120, 3, &out); /* answers node 3 (new data) */
    assert_non_null(rt_sent(&out, RAFT_MSG_FETCH_RESPONSE, 3));
    f = rt_fetch_req(2, 1, 3, 1, 400, 32); /* node 2 caught up: parks, HW -> 3 */
    rt_recv(r, 2130, &f, &out);
    assert_int_equal(out.high_watermark, 3);
    assert_null(rt_sent(&out, RAFT_MSG_FETCH_RESPONSE, 2));
    f = rt_fetch_req(3, 1, 3, 1, 400, 33); /* node 3 parks at hw 3 */
    rt_recv(r, 2140, &f, &out);
    assert_null(rt_sent(&out, RAFT_MSG_FETCH_RESPONSE, 3));

    raft_msg v = rt_vote_req(2, 2, 1, 3, 34); /* a newer epoch ends leadership */
    rt_recv(r, 2150, &v, &out);
    assert_int_equal(out.actions[0].type, RAFT_ACTION_STORE_QSTATE);
    const raft_fetch_response *fr = fetch_resp(&out, 3);
    assert_int_equal(fr->partition_error, KAFKA_NOT_LEADER_OR_FOLLOWER);
    assert_int_equal(fr->leader_epoch, 2);
    assert_int_equal(rt_sent(&out, RAFT_MSG_FETCH_RESPONSE, 3)->token, 33);
    assert_int_equal(rt_sent(&out, RAFT_MSG_FETCH_RESPONSE, 2)->token, 32);
    raft_destroy(r);
}

/* KIP-1166: a fetch whose high watermark is below the leader's is answered
 * at once, not held for max_wait_ms (KafkaRaftClient.handleFetchRequest's
 * isHighWatermarkUpdated: request HW < response HW); -1 (unknown) is below
 * any; an equal one waits; INT64_MAX (pre-v18, consumers) never hurries. */
static void test_fetch_with_older_hw_answered_at_once(void **state)
{
    (void)state;
    raft *r = rt_leader(3, 0); /* end 1, HW unknown until a follower has 1 */
    raft_output out;
    raft_msg f = rt_fetch_req(3, 1, 1, 1, 400, 41);
    f.u.fetch_request.high_watermark = -1;
    rt_recv(r, 2100, &f, &out); /* HW -> 1 on this fetch: news for it */
    assert_int_equal(out.high_watermark, 1);
    const raft_fetch_response *fr = fetch_resp(&out, 3);
    assert_int_equal(rt_sent(&out, RAFT_MSG_FETCH_RESPONSE, 3)->token, 41);
    assert_int_equal(fr->high_watermark, 1);
    assert_int_equal(fr->read_offset, fr->read_end_offset); /* no records */

    f = rt_fetch_req(3, 1, 1, 1, 400, 42);
    f.u.fetch_request.high_watermark = 1; /* up to date: the long poll waits */
    rt_recv(r, 2101, &f, &out);
    assert_null(rt_sent(&out, RAFT_MSG_FETCH_RESPONSE, 3));

    f = rt_fetch_req(2, 1, 1, 1, 400, 43);
    f.u.fetch_request.high_watermark = 0;
    rt_recv(r, 2102, &f, &out);
    assert_int_equal(fetch_resp(&out, 2)->high_watermark, 1);
    assert_int_equal(rt_sent(&out, RAFT_MSG_FETCH_RESPONSE, 2)->token, 43);

    f = rt_fetch_req(2, 1, 1, 1, 400, 44); /* INT64_MAX: as before v18 */
    rt_recv(r, 2103, &f, &out);
    assert_null(rt_sent(&out, RAFT_MSG_FETCH_RESPONSE, 2));
    raft_destroy(r);
}

/* KafkaRaftClient.handleFetchRequest answers INVALID_REQUEST for a last
 * fetched epoch above the fetcher's current leader epoch, before the epoch
 * checks (validateLeaderOnlyRequest) that would fence it. */
static void test_fetch_last_epoch_above_leader_epoch_invalid(void **state)
{
    (void)state;
    raft *r = rt_leader(3, 0);
    raft_output out;
    raft_msg f = rt_fetch_req(2, 1, 1, 2, 0, 51);
    rt_recv(r, 2100, &f, &out);
    assert_int_equal(fetch_resp(&out, 2)->partition_error, KAFKA_INVALID_REQUEST);
    f = rt_fetch_req(2, 0, 1, 1, 0, 52); /* older epoch too: still invalid, not fenced */
    rt_recv(r, 2101, &f, &out);
    assert_int_equal(fetch_resp(&out, 2)->partition_error, KAFKA_INVALID_REQUEST);
    f = rt_fetch_req(2, 1, 1, 1, 0, 53);
    rt_recv(r, 2102, &f, &out);
    assert_int_equal(fetch_resp(&out, 2)->partition_error, KAFKA_NONE);
    raft_destroy(r);
}

static void test_hw_majority_and_monotonic(void **state)
{
    (void)state;
    raft *r = rt_leader(5, 0); /* voters 1..5; 1 leads with 2,3's votes */
    raft_output out;
    rt_append(r, 2100, 9, &out); /* end 10 */
    rt_flushed(r, 2101, 10, &out);
    assert_false(out.high_watermark_changed); /* only the leader has it */
    raft_msg f = rt_fetch_req(2, 1, 8, 1, 0, 1);
    rt_recv(r, 2102, &f, &out);
    assert_false(out.high_watermark_changed); /* two of five */
    f = rt_fetch_req(3, 1, 6, 1, 0, 2);
    rt_recv(r, 2103, &f, &out);
    assert_true(out.high_watermark_changed);
    assert_int_equal(out.high_watermark, 6); /* third largest of 10,8,6 */
    f = rt_fetch_req(3, 1, 2, 1, 0, 3); /* a replica going back */
    rt_recv(r, 2104, &f, &out);
    assert_false(out.high_watermark_changed);
    assert_int_equal(out.high_watermark, 6);
    assert_int_equal(fetch_resp(&out, 3)->high_watermark, 6);
    raft_destroy(r);
}

static void test_hw_waits_for_current_epoch(void **state)
{
    (void)state;
    /* a new leader with an old-epoch tail at 0..9, LeaderChange at 10 */
    raft_config c = rt_config(1, 3);
    raft_epoch_entry ep[] = {{1, 0}};
    raft *r = rt_create(&c, 1, -1, -1, 10, ep, 1);
    raft_output out;
    rt_win_election(r, 2, 11, &out);
    raft_msg f = rt_fetch_req(2, 2, 10, 1, 0, 1); /* majority at 10 = epoch start */
    rt_recv(r, 2003, &f, &out);
    assert_false(out.high_watermark_changed);
    f = rt_fetch_req(2, 2, 11, 2, 0, 2);
    rt_recv(r, 2004, &f, &out);
    assert_true(out.high_watermark_changed);
    assert_int_equal(out.high_watermark, 11);
    raft_destroy(r);
}

static void test_observer_does_not_count(void **state)
{
    (void)state;
    raft *r = rt_leader(3, 0);
    raft_output out;
    raft_msg f = rt_fetch_req(9, 1, 1, 1, 0, 1);
    rt_recv(r, 2100, &f, &out);
    assert_false(out.high_watermark_changed);
    raft_status s;
    raft_get_status(r, &s);
    assert_int_equal(s.observer_count, 1);
    assert_int_equal(s.observers[0].replica_id, 9);
    assert_int_equal(s.observers[0].log_end_offset, 1);
    assert_int_equal(s.observers[0].last_fetch_ms, 2100);
    assert_int_equal(s.voter_count, 3);
    raft_destroy(r);
}

static void test_check_quorum_resigns(void **state)
{
    (void)state;
    raft *r = rt_leader(3, 0); /* leader since 2001, fetch timeout 2000 */
    raft_output out;
    raft_msg f = rt_fetch_req(2, 1, 1, 1, 0, 1);
    rt_recv(r, 3000, &f, &out);
    rt_tick(r, 4001, &out);
    raft_status s;
    raft_get_status(r, &s);
    assert_int_equal(s.role, RAFT_ROLE_LEADER); /* node 2 fetched at 3000 */
    rt_tick(r, 4999, &out);
    raft_get_status(r, &s);
    assert_int_equal(s.role, RAFT_ROLE_LEADER);
    rt_tick(r, 5000, &out);
    raft_get_status(r, &s);
    assert_int_equal(s.role, RAFT_ROLE_RESIGNED);
    assert_true(out.role_changed);
    assert_non_null(strstr(out.reason, "majority"));
    assert_int_equal(rt_sent_count(&out, RAFT_MSG_END_EPOCH_REQUEST), 2);
    rt_append(r, 5001, 1, &out);
    assert_int_equal(out.append_error, KAFKA_NOT_LEADER_OR_FOLLOWER);
    raft_destroy(r);
}

static void test_graceful_shutdown(void **state)
{
    (void)state;
    raft *r = rt_leader(3, 0);
    raft_output out;
    rt_append(r, 2100, 4, &out);
    rt_flushed(r, 2101, 5, &out);
    raft_msg f = rt_fetch_req(3, 1, 5, 1, 0, 1);
    rt_recv(r, 2102, &f, &out);
    f = rt_fetch_req(2, 1, 1, 1, 0, 2);
    rt_recv(r, 2103, &f, &out);

    raft_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.type = RAFT_EVENT_SHUTDOWN;
    ev.now_ms = 2200;
    raft_step(r, &ev, &out);
    assert_false(out.shutdown_complete);
    assert_int_equal(rt_sent_count(&out, RAFT_MSG_END_EPOCH_REQUEST), 2);
    const raft_end_epoch_request *e =
        &rt_sent(&out, RAFT_MSG_END_EPOCH_REQUEST, 2)->u.end_epoch_request;
    assert_int_equal(e->leader_epoch, 1);
    assert_int_equal(e->preferred_count, 2);
    assert_int_equal(e->preferred_successors[0], 3); /* most caught up first */
    assert_int_equal(e->preferred_successors[1], 2);

    raft_msg ack;
    memset(&ack, 0, sizeof(ack));
    ack.type = RAFT_MSG_END_EPOCH_RESPONSE;
    ack.from = 2;
    ack.u.end_epoch_response.leader_id = 1;
    ack.u.end_epoch_response.leader_epoch = 1;
    rt_recv(r, 2210, &ack, &out);
    assert_false(out.shutdown_complete);
    ack.from = 3;
    rt_recv(r, 2220, &ack, &out);
    assert_true(out.shutdown_complete);
    raft_destroy(r);

    /* without acknowledgements it completes after request_timeout_ms */
    r = rt_leader(3, 0);
    ev.now_ms = 3000;
    raft_step(r, &ev, &out);
    assert_false(out.shutdown_complete);
    rt_tick(r, 3499, &out);
    assert_false(out.shutdown_complete);
    rt_tick(r, 3500, &out);
    assert_true(out.shutdown_complete);
    raft_destroy(r);

    /* a follower completes at once */
    raft_config c = rt_config(2, 3);
    r = rt_create(&c, 1, -1, 1, 0, NULL, 0);
    ev.now_ms = 1;
    raft_step(r, &ev, &out);
    assert_true(out.shutdown_complete);
    raft_destroy(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fetch_epoch_validation),
        cmocka_unit_test(test_fetch_diverging),
        cmocka_unit_test(test_fetch_capped_at_flushed_and_parked),
        cmocka_unit_test(test_parked_answered_on_hw_move_and_on_leadership_loss),
        cmocka_unit_test(test_fetch_with_older_hw_answered_at_once),
        cmocka_unit_test(test_fetch_last_epoch_above_leader_epoch_invalid),
        cmocka_unit_test(test_hw_majority_and_monotonic),
        cmocka_unit_test(test_hw_waits_for_current_epoch),
        cmocka_unit_test(test_observer_does_not_count),
        cmocka_unit_test(test_check_quorum_resigns),
        cmocka_unit_test(test_graceful_shutdown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
