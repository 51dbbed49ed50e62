/* A single-voter quorum: elects itself at start, appends the LeaderChange
 * batch, flushes, and commits only what is flushed. */
#include "raft_test_util.h"

#include "kq/limits.h"
#include "kq/record.h"

static void test_single_voter_elects_itself(void **state)
{
    (void)state;
    raft_config c = rt_config(1, 1);
    raft *r = rt_create(&c, 3, -1, -1, 0, NULL, 0);
    raft_output out;
    rt_tick(r, 0, &out);

    /* candidate(4) store, leader(4) store, LeaderChange append, flush */
    assert_int_equal(out.action_count, 4);
    assert_int_equal(out.actions[0].type, RAFT_ACTION_STORE_QSTATE);
    assert_int_equal(out.actions[0].qstate.epoch, 4);
    assert_int_equal(out.actions[0].qstate.voted_id, 1);
    assert_int_equal(out.actions[0].qstate.leader_id, -1);
    assert_int_equal(out.actions[1].type, RAFT_ACTION_STORE_QSTATE);
    assert_int_equal(out.actions[1].qstate.epoch, 4);
    assert_int_equal(out.actions[1].qstate.leader_id, 1);
    assert_int_equal(out.actions[2].type, RAFT_ACTION_APPEND);
    assert_int_equal(out.actions[2].append.base_offset, 0);
    assert_int_equal(out.actions[2].append.epoch, 4);
    record_batch_header h;
    assert_int_equal(record_batch_parse_header(out.actions[2].append.records,
                                               out.actions[2].append.len, &h),
                     RECORD_OK);
    assert_true(record_batch_is_control(&h));
    assert_int_equal(h.last_offset_delta, 0);
    assert_int_equal(out.actions[3].type, RAFT_ACTION_FLUSH);
    assert_int_equal(out.actions[3].offset, 1);
    assert_true(out.role_changed);
    assert_non_null(strstr(out.reason, "won election"));
    assert_false(out.high_watermark_changed);
    assert_true(out.wake_at_ms > 0);

    raft_status s;
    raft_get_status(r, &s);
    assert_int_equal(s.role, RAFT_ROLE_LEADER);
    assert_int_equal(s.epoch, 4);
    assert_int_equal(s.log_end_offset, 1);
    assert_int_equal(s.flushed_offset, 0);
    assert_int_equal(s.high_watermark, -1);
    raft_destroy(r);
}

static void test_single_voter_hw_after_flush(void **state)
{
    (void)state;
    raft_config c = rt_config(1, 1);
    raft *r = rt_create(&c, 0, -1, -1, 0, NULL, 0);
    raft_output out;
    rt_tick(r, 0, &out);

    rt_append(r, 1, 3, &out); /* flush of the LeaderChange still in flight */
    assert_int_equal(out.append_error, 0);
    assert_int_equal(out.append_base_offset, 1);
    assert_int_equal(out.action_count, 1);
    assert_int_equal(out.actions[0].type, RAFT_ACTION_APPEND);
    assert_int_equal(out.actions[0].append.base_offset, 1);
    assert_int_equal(out.actions[0].append.epoch, 1);
    assert_false(out.high_watermark_changed);

    rt_flushed(r, 2, 1, &out);
    assert_true(out.high_watermark_changed);
    assert_int_equal(out.high_watermark, 1);
    /* group commit: the next flush covers everything appended meanwhile */
    assert_int_equal(rt_count(&out, RAFT_ACTION_FLUSH), 1);
    assert_int_equal(out.actions[rt_find(&out, RAFT_ACTION_FLUSH, 0)].offset, 4);

    rt_append(r, 3, 2, &out);
    assert_int_equal(out.append_base_offset, 4);
    assert_int_equal(rt_count(&out, RAFT_ACTION_FLUSH), 0); /* one at a time */

    rt_flushed(r, 4, 4, &out);
    assert_int_equal(out.high_watermark, 4);
    assert_int_equal(out.actions[rt_find(&out, RAFT_ACTION_FLUSH, 0)].offset, 6);
    rt_flushed(r, 5, 6, &out);
    assert_int_equal(out.high_watermark, 6);
    assert_int_equal(rt_count(&out, RAFT_ACTION_FLUSH), 0);
    raft_destroy(r);
}

static void test_single_voter_restart_as_leader_bumps_epoch(void **state)
{
    (void)state;
    raft_config c = rt_config(1, 1);
    raft_epoch_entry ep[] = {{.epoch = 5, .start_offset = 0}};
    raft *r = rt_create(&c, 5, 1, 1, 10, ep, 1);
    raft_status s;
    raft_get_status(r, &s);
    assert_int_equal(s.role, RAFT_ROLE_RESIGNED);
    raft_output out;
    rt_tick(r, 0, &out);
    raft_get_status(r, &s);
    assert_int_equal(s.role, RAFT_ROLE_LEADER);
    assert_int_equal(s.epoch, 6);
    int a = rt_find(&out, RAFT_ACTION_APPEND, 0);
    assert_true(a > rt_find(&out, RAFT_ACTION_STORE_QSTATE, 0));
    assert_int_equal(out.actions[a].append.base_offset, 10);
    raft_destroy(r);
}

/* quorum.append.linger.ms: the leader's fsync starts only once the first
 * unflushed append is linger_ms old, covering everything appended by then;
 * the core asks to be woken at that time. */
static void test_single_voter_append_linger(void **state)
{
    (void)state;
    raft_config c = rt_config(1, 1);
    c.append_linger_ms = 10;
    raft *r = rt_create(&c, 0, -1, -1, 0, NULL, 0);
    raft_output out;
    rt_tick(r, 0, &out); /* elected; its LeaderChange lingers */
    assert_int_equal(rt_count(&out, RAFT_ACTION_FLUSH), 0);
    assert_true(out.wake_at_ms <= 10);

    rt_append(r, 4, 3, &out);
    assert_int_equal(rt_count(&out, RAFT_ACTION_FLUSH), 0);
    rt_tick(r, 9, &out);
    assert_int_equal(rt_count(&out, RAFT_ACTION_FLUSH), 0);
    rt_tick(r, 10, &out);
    assert_int_equal(rt_count(&out, RAFT_ACTION_FLUSH), 1);
    assert_int_equal(out.actions[rt_find(&out, RAFT_ACTION_FLUSH, 0)].offset, 4);

    rt_append(r, 12, 2, &out); /* a flush is out: nothing yet either way */
    rt_flushed(r, 13, 4, &out);
    assert_int_equal(out.high_watermark, 4);
    assert_int_equal(rt_count(&out, RAFT_ACTION_FLUSH), 0); /* lingers from 13 */
    rt_tick(r, 23, &out);
    assert_int_equal(rt_count(&out, RAFT_ACTION_FLUSH), 1);
    assert_int_equal(out.actions[rt_find(&out, RAFT_ACTION_FLUSH, 0)].offset, 6);
    raft_destroy(r);
}

/* A linger past RAFT_APPEND_LINGER_MS_MAX is refused at creation. */
static void test_append_linger_bounded(void **state)
{
    (void)state;
    raft_config c = rt_config(1, 1);
    c.append_linger_ms = RAFT_APPEND_LINGER_MS_MAX + 1;
    raft_quorum_state q = {.epoch = 0, .voted_id = -1, .leader_id = -1};
    raft_log_state ls = {0};
    assert_null(raft_create(&c, &q, &ls, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_voter_elects_itself),
        cmocka_unit_test(test_single_voter_hw_after_flush),
        cmocka_unit_test(test_single_voter_append_linger),
        cmocka_unit_test(test_append_linger_bounded),
        cmocka_unit_test(test_single_voter_restart_as_leader_bumps_epoch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
