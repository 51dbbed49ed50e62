/* A replica repairing corruption (issue 8), and a log cut lower than asked.
 * A replica repairing corruption: storage truncated it below what
 * it once held durably. Until it has fetched and flushed that far again it
 * votes as if it still had that end and never stands for election. */
#include "raft_test_util.h"

static raft *repairing_voter(void)
{
    raft_config c = rt_config(1, 3);
    raft_quorum_state q = {.epoch = 2, .voted_id = -1, .leader_id = -1};
    static const raft_epoch_entry epochs[] = {{1, 0}, {2, 3}};
    raft_log_state log = {.end_offset = 5, .epochs = epochs, .epoch_count = 2,
                          .repair_end_offset = 10, .repair_last_epoch = 2};
    raft *r = raft_create(&c, &q, &log, 0);
    assert_non_null(r);
    return r;
}

static bool granted(const raft_output *out, int32_t to)
{
    const raft_msg *m = rt_sent(out, RAFT_MSG_VOTE_RESPONSE, to);
    assert_non_null(m);
    return m->u.vote_response.vote_granted;
}

static void test_votes_as_if_it_still_had_its_end(void **state)
{
    (void)state;
    raft *r = repairing_voter();
    raft_output out;
    raft_status st;
    raft_get_status(r, &st);
    assert_int_equal(st.repair_end_offset, 10);
    /* Candidate 2 has everything our real log has (5), not what we lost. */
    raft_msg m = rt_vote_req(2, 3, 2, 5, 7);
    rt_recv(r, 10, &m, &out);
    assert_false(granted(&out, 2));
    /* Candidate 3 has all we once held: granted. */
    m = rt_vote_req(3, 3, 2, 10, 8);
    rt_recv(r, 20, &m, &out);
    assert_true(granted(&out, 3));
    raft_destroy(r);
}

static void test_never_stands_for_election_while_repairing(void **state)
{
    (void)state;
    raft *r = repairing_voter();
    raft_output out;
    for (int64_t t = 0; t <= 20000; t += 100) {
        rt_tick(r, t, &out);
        assert_int_equal(rt_sent_count(&out, RAFT_MSG_VOTE_REQUEST), 0);
    }
    raft_status st;
    raft_get_status(r, &st);
    assert_int_not_equal(st.role, RAFT_ROLE_PROSPECTIVE);
    assert_int_not_equal(st.role, RAFT_ROLE_CANDIDATE);
    raft_destroy(r);
}

static void test_without_repair_it_stands(void **state)
{
    (void)state;
    raft_config c = rt_config(1, 3);
    static const raft_epoch_entry epochs[] = {{1, 0}, {2, 3}};
    raft *r = rt_create(&c, 2, -1, -1, 5, epochs, 2);
    raft_output out;
    int asked = 0;
    for (int64_t t = 0; t <= 20000 && !asked; t += 100) {
        rt_tick(r, t, &out);
        asked += rt_sent_count(&out, RAFT_MSG_VOTE_REQUEST);
    }
    assert_true(asked > 0); /* the control: the same voter does start pre-votes */
    raft_destroy(r);
}

/* The driver cut lower than a TRUNCATE asked (the start of the batch holding
 * the offset): the core's end, flushed offset and epochs follow, and its next
 * fetch starts there. */
static void test_log_truncated_lower(void **state)
{
    (void)state;
    raft_config c = rt_config(1, 3);
    static const raft_epoch_entry epochs[] = {{1, 0}, {2, 3}};
    raft *r = rt_create(&c, 2, -1, -1, 9, epochs, 2);
    raft_output out;
    raft_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.type = RAFT_EVENT_LOG_TRUNCATED;
    ev.log_end_offset = 2;
    ev.now_ms = 1;
    raft_step(r, &ev, &out);
    raft_status st;
    raft_get_status(r, &st);
    assert_int_equal(st.log_end_offset, 2);
    assert_int_equal(st.flushed_offset, 2);
    assert_int_equal(rt_count(&out, RAFT_ACTION_TRUNCATE), 0); /* already done */
    /* a higher "end" changes nothing */
    ev.log_end_offset = 5;
    raft_step(r, &ev, &out);
    raft_get_status(r, &st);
    assert_int_equal(st.log_end_offset, 2);
    raft_destroy(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_votes_as_if_it_still_had_its_end),
        cmocka_unit_test(test_never_stands_for_election_while_repairing),
        cmocka_unit_test(test_without_repair_it_stands),
        cmocka_unit_test(test_log_truncated_lower),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
