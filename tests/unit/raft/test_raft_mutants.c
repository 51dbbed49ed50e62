/* Each simulator mutant changes exactly the behaviour it names; every test
 * runs the same scenario with and without the mutant. */
#include "raft_test_util.h"

static void test_skip_flush_leader_serves_and_counts_unflushed(void **state)
{
    (void)state;
    for (int mutant = 0; mutant <= 1; mutant++) {
        raft *r = rt_leader(3, mutant ? RAFT_MUTANT_SKIP_FLUSH : 0);
        raft_output out;
        rt_append(r, 2100, 4, &out); /* end 5, flushed 1 */
        raft_msg f = rt_fetch_req(2, 1, 1, 1, 0, 1);
        rt_recv(r, 2101, &f, &out);
        const raft_msg *resp = rt_sent(&out, RAFT_MSG_FETCH_RESPONSE, 2);
        assert_int_equal(resp->u.fetch_response.read_end_offset, mutant ? 5 : 1);
        f = rt_fetch_req(2, 1, 5, 1, 0, 2);
        rt_recv(r, 2102, &f, &out);
        assert_int_equal(out.high_watermark, mutant ? 5 : 1);
        raft_destroy(r);
    }
}

static void test_skip_flush_follower_does_not_wait_for_flush(void **state)
{
    (void)state;
    for (int mutant = 0; mutant <= 1; mutant++) {
        raft *r = rt_leader(3, mutant ? RAFT_MUTANT_SKIP_FLUSH : 0);
        raft_output out;
        /* the old leader learns of epoch 2 under node 3 with data unflushed */
        rt_append(r, 2100, 4, &out); /* end 5, flushed 1 */
        raft_msg b;
        memset(&b, 0, sizeof(b));
        b.type = RAFT_MSG_BEGIN_EPOCH_REQUEST;
        b.from = 3;
        b.u.begin_epoch_request.leader_epoch = 2;
        b.u.begin_epoch_request.leader_id = 3;
        rt_recv(r, 2200, &b, &out);
        const raft_msg *f = rt_sent(&out, RAFT_MSG_FETCH_REQUEST, 3);
        if (mutant) {
            assert_non_null(f);
            assert_int_equal(f->u.fetch_request.fetch_offset, 5);
        } else {
            assert_null(f); /* waits until its log is flushed */
            rt_flushed(r, 2300, 5, &out);
            f = rt_sent(&out, RAFT_MSG_FETCH_REQUEST, 3);
            assert_non_null(f);
            assert_int_equal(f->u.fetch_request.fetch_offset, 5);
        }
        raft_destroy(r);
    }
}

static void test_vote_no_log_check(void **state)
{
    (void)state;
    for (int mutant = 0; mutant <= 1; mutant++) {
        raft_config c = rt_config(1, 3);
        c.mutants = mutant ? RAFT_MUTANT_VOTE_NO_LOG_CHECK : 0;
        raft_epoch_entry ep[] = {{2, 0}};
        raft *r = rt_create(&c, 2, -1, -1, 10, ep, 1);
        raft_output out;
        raft_msg req = rt_vote_req(2, 3, 1, 3, 1);
        rt_recv(r, 1, &req, &out);
        assert_int_equal(rt_sent(&out, RAFT_MSG_VOTE_RESPONSE, 2)->u.vote_response.vote_granted,
                         mutant);
        raft_destroy(r);
    }
}

static void test_hw_counts_observer(void **state)
{
    (void)state;
    for (int mutant = 0; mutant <= 1; mutant++) {
        raft *r = rt_leader(3, mutant ? RAFT_MUTANT_HW_COUNTS_OBSERVER : 0);
        raft_output out;
        raft_msg f = rt_fetch_req(9, 1, 1, 1, 0, 1);
        rt_recv(r, 2100, &f, &out);
        assert_int_equal(out.high_watermark_changed, mutant);
        assert_int_equal(out.high_watermark, mutant ? 1 : -1);
        raft_destroy(r);
    }
}

static void test_hw_any_epoch(void **state)
{
    (void)state;
    for (int mutant = 0; mutant <= 1; mutant++) {
        raft_config c = rt_config(1, 3);
        c.mutants = mutant ? RAFT_MUTANT_HW_ANY_EPOCH : 0;
        raft_epoch_entry ep[] = {{1, 0}};
        raft *r = rt_create(&c, 1, -1, -1, 10, ep, 1);
        raft_output out;
        rt_win_election(r, 2, 11, &out);
        raft_msg f = rt_fetch_req(2, 2, 10, 1, 0, 1);
        rt_recv(r, 2003, &f, &out);
        assert_int_equal(out.high_watermark_changed, mutant);
        assert_int_equal(out.high_watermark, mutant ? 10 : -1);
        raft_destroy(r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_skip_flush_leader_serves_and_counts_unflushed),
        cmocka_unit_test(test_skip_flush_follower_does_not_wait_for_flush),
        cmocka_unit_test(test_vote_no_log_check),
        cmocka_unit_test(test_hw_counts_observer),
        cmocka_unit_test(test_hw_any_epoch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
