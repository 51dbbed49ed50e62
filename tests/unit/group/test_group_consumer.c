/* KIP-848 consumer groups: join, epochs, revocation before reassignment
 * (and the double-assignment mutant that skips it), leave, static leave and
 * rejoin, session and rebalance timeouts. */
#include "consumer_test_util.h"

static void test_join_alone(void **state)
{
    (void)state;
    group_coord *c = tc_coord(0);
    tc_client a;
    tc_init(&a, "A", "t0");
    group_consumer_heartbeat_response out;
    tc_hb_full(c, "g", &a, 0, false, &out);
    assert_int_equal(out.error, KAFKA_NONE);
    assert_string_equal(out.member_id, "A");
    assert_int_equal(out.member_epoch, 1);
    assert_int_equal(out.heartbeat_interval_ms, 5000);
    assert_true(out.has_assignment);
    assert_int_equal(out.assignment_count, 1);
    assert_string_equal(out.assignment[0].topic_name, "t0");
    assert_int_equal(out.assignment[0].partition_count, 3);
    assert_true(out.changed);
    assert_int_equal(out.output->wake_at_ms, 45000); /* the session timeout */
    group_consumer_summary s = tc_describe(c, "g");
    assert_int_equal(s.state, GROUP_CONSUMER_STABLE);
    assert_int_equal(s.group_epoch, 1);
    assert_int_equal(s.assignment_epoch, 1);
    assert_string_equal(s.assignor_name, "uniform");
    /* A heartbeat that changes nothing: no assignment, nothing to persist. */
    tc_hb_full(c, "g", &a, 1000, false, &out);
    assert_int_equal(out.error, KAFKA_NONE);
    assert_false(out.has_assignment);
    assert_false(out.changed);
    assert_int_equal(out.output->wake_at_ms, 46000);
    group_coord_destroy(c);
}

/* B joins a group where A holds every partition: B gets a partition only
 * once A has revoked it. */
static void two_members(group_coord *c, tc_client *a, tc_client *b, bool mutant)
{
    tc_init(a, "A", "t0");
    tc_init(b, "B", "t0");
    assert_int_equal(tc_hb(c, "g", a, 0), KAFKA_NONE);
    assert_int_equal(tc_count(a), 3);
    assert_int_equal(tc_hb(c, "g", b, 10), KAFKA_NONE);
    assert_int_equal(tc_describe(c, "g").group_epoch, 2);
    if (mutant) {
        assert_int_equal(b->epoch, 2);
        assert_true(tc_count(b) > 0); /* at once: A still holds it */
        return;
    }
    assert_int_equal(b->epoch, 2);
    assert_int_equal(tc_count(b), 0); /* unreleased: A holds them */
    tc_assert_exclusive(c);
    assert_int_equal(tc_describe(c, "g").state, GROUP_CONSUMER_RECONCILING);
    /* A learns what to revoke; its epoch stays until it has. */
    assert_int_equal(tc_hb(c, "g", a, 20), KAFKA_NONE);
    assert_int_equal(a->epoch, 1);
    assert_int_equal(tc_count(a), 2);
    assert_int_equal(tc_hb(c, "g", b, 30), KAFKA_NONE);
    assert_int_equal(tc_count(b), 0); /* still pending revocation at A */
    tc_assert_exclusive(c);
    assert_int_equal(tc_hb(c, "g", a, 40), KAFKA_NONE); /* owned = 2: revoked */
    assert_int_equal(a->epoch, 2);
    assert_int_equal(tc_hb(c, "g", b, 50), KAFKA_NONE);
    assert_int_equal(tc_count(b), 1);
    assert_int_equal(b->epoch, 2);
    tc_assert_exclusive(c);
    assert_int_equal(tc_describe(c, "g").state, GROUP_CONSUMER_STABLE);
}

static void test_revocation_before_reassignment(void **state)
{
    (void)state;
    group_coord *c = tc_coord(0);
    tc_client a, b;
    two_members(c, &a, &b, false);
    assert_int_equal(a.owned[0] & b.owned[0], 0);
    assert_int_equal(a.owned[0] | b.owned[0], 7);
    group_consumer_member_view v;
    assert_true(group_consumer_member_at(c, "g", 1, &v));
    assert_string_equal(v.member_id, "B");
    assert_int_equal(v.member_epoch, 2);
    assert_int_equal(v.member_type, 1);
    assert_int_equal(v.state, GROUP_MEMBER_STABLE);
    assert_int_equal(v.assignment_count, 1);
    assert_int_equal(v.target_assignment_count, 1);
    group_coord_destroy(c);
}

static void test_mutant_double_assignment(void **state)
{
    (void)state;
    group_coord *c = tc_coord(KQ_MUTANT_DOUBLE_ASSIGNMENT);
    tc_client a, b;
    two_members(c, &a, &b, true);
    char why[256];
    assert_false(group_consumer_check_exclusive(c, why, sizeof(why)));
    assert_non_null(strstr(why, "of group g"));
    group_coord_destroy(c);
}

/* A lost answer: a heartbeat at the previous epoch with owned partitions
 * within the assignment is accepted; other epochs are fenced. */
static void test_epochs(void **state)
{
    (void)state;
    group_coord *c = tc_coord(0);
    tc_client a, b;
    two_members(c, &a, &b, false);
    a.epoch = 1; /* A never saw epoch 2 */
    assert_int_equal(tc_hb(c, "g", &a, 60), KAFKA_NONE);
    assert_int_equal(a.epoch, 2);
    a.epoch = 3;
    assert_int_equal(tc_hb(c, "g", &a, 70), KAFKA_FENCED_MEMBER_EPOCH);
    a.epoch = 1;
    a.owned[0] = 7; /* more than its assignment */
    assert_int_equal(tc_hb(c, "g", &a, 80), KAFKA_FENCED_MEMBER_EPOCH);
    /* KAFKA-19233: a fenced member rejoins with epoch 0, same id. */
    a.epoch = 0;
    a.owned[0] = 0;
    group_consumer_heartbeat_response out;
    tc_hb_full(c, "g", &a, 90, true, &out);
    assert_int_equal(out.error, KAFKA_NONE);
    assert_int_equal(out.member_epoch, 2);
    assert_true(out.has_assignment);
    tc_assert_exclusive(c);
    group_coord_destroy(c);
}

static void test_leave(void **state)
{
    (void)state;
    group_coord *c = tc_coord(0);
    tc_client a, b;
    two_members(c, &a, &b, false);
    b.epoch = GROUP_CONSUMER_LEAVE_EPOCH;
    group_consumer_heartbeat_response out;
    tc_hb_full(c, "g", &b, 100, false, &out);
    assert_int_equal(out.error, KAFKA_NONE);
    assert_int_equal(out.member_epoch, -1);
    assert_string_equal(out.member_id, "B");
    assert_true(out.changed);
    group_consumer_summary s = tc_describe(c, "g");
    assert_int_equal(s.member_count, 1);
    assert_int_equal(s.group_epoch, 3);
    assert_int_equal(s.state, GROUP_CONSUMER_ASSIGNING);
    assert_int_equal(tc_hb(c, "g", &a, 110), KAFKA_NONE);
    assert_int_equal(a.epoch, 3);
    assert_int_equal(tc_count(&a), 3);
    assert_int_equal(tc_describe(c, "g").state, GROUP_CONSUMER_STABLE);
    assert_true(group_consumer_subscribes_to(c, "g", "t0"));
    assert_false(group_consumer_subscribes_to(c, "g", "t1"));
    assert_false(group_consumer_subscribes_to(c, "nope", "t0"));
    /* Kafka's ConsumerGroup: offsets expire from their commit in any state,
     * for the topics no member subscribes to (KIP-496). */
    int64_t busy;
    assert_true(group_offsets_may_expire(c, "g", &busy));
    assert_int_equal(busy, INT64_MIN);
    assert_true(group_subscribes_to(c, "g", "t0"));
    assert_false(group_subscribes_to(c, "g", "t1"));
    /* The last member leaves: Empty, and deletable. */
    a.epoch = -1;
    assert_int_equal(tc_hb(c, "g", &a, 120), KAFKA_NONE);
    assert_int_equal(tc_describe(c, "g").state, GROUP_CONSUMER_EMPTY);
    int64_t since;
    assert_true(group_offsets_may_expire(c, "g", &since));
    assert_int_equal(since, INT64_MIN); /* from each commit (Kafka's consumer groups) */
    assert_int_equal(group_delete(c, "g"), KAFKA_NONE);
    assert_int_equal(group_count(c), 0);
    group_coord_destroy(c);
}

/* A static member leaves with -2 and a new instance (new member id) takes
 * its assignment back without a rebalance. */
static void test_static_leave_rejoin(void **state)
{
    (void)state;
    group_coord *c = tc_coord(0);
    tc_client a, b;
    tc_init(&a, "A", "t0");
    tc_init(&b, "B", "t0");
    a.instance = "ia";
    assert_int_equal(tc_hb(c, "g", &a, 0), KAFKA_NONE);
    assert_int_equal(tc_hb(c, "g", &b, 1), KAFKA_NONE);
    assert_int_equal(tc_hb(c, "g", &a, 2), KAFKA_NONE);
    assert_int_equal(tc_hb(c, "g", &a, 3), KAFKA_NONE);
    assert_int_equal(tc_hb(c, "g", &b, 4), KAFKA_NONE);
    uint64_t a_owned = a.owned[0];
    int32_t epoch = tc_describe(c, "g").group_epoch;
    /* Another instance with the same id while A is there. */
    tc_client a2;
    tc_init(&a2, "A2", "t0");
    a2.instance = "ia";
    assert_int_equal(tc_hb(c, "g", &a2, 5), KAFKA_UNRELEASED_INSTANCE_ID);
    a.epoch = GROUP_CONSUMER_STATIC_LEAVE_EPOCH;
    group_consumer_heartbeat_response out;
    tc_hb_full(c, "g", &a, 6, false, &out);
    assert_int_equal(out.error, KAFKA_NONE);
    assert_int_equal(out.member_epoch, -2);
    assert_int_equal(tc_describe(c, "g").member_count, 2);
    tc_hb_full(c, "g", &a2, 7, false, &out);
    assert_int_equal(out.error, KAFKA_NONE);
    assert_int_equal(a2.owned[0], a_owned);
    assert_int_equal(tc_describe(c, "g").group_epoch, epoch); /* no rebalance */
    tc_assert_exclusive(c);
    /* The old member id is gone; the instance id names A2 now. */
    a.epoch = 3;
    assert_int_equal(tc_hb(c, "g", &a, 8), KAFKA_FENCED_INSTANCE_ID);
    group_coord_destroy(c);
}

static void test_session_timeout(void **state)
{
    (void)state;
    group_coord *c = tc_coord(0);
    tc_client a, b;
    two_members(c, &a, &b, false);
    const group_output *o = group_tick(c, 44999);
    assert_int_equal(tc_describe(c, "g").member_count, 2);
    assert_int_equal(o->wake_at_ms, 40 + 45000); /* A's last heartbeat */
    assert_int_equal(tc_hb(c, "g", &b, 30000), KAFKA_NONE);
    o = group_tick(c, 45040);
    assert_int_equal(tc_describe(c, "g").member_count, 1);
    assert_int_equal(o->wake_at_ms, 75000);
    assert_int_equal(tc_hb(c, "g", &a, 45041), KAFKA_UNKNOWN_MEMBER_ID);
    assert_int_equal(tc_hb(c, "g", &b, 45042), KAFKA_NONE);
    assert_int_equal(tc_count(&b), 3);
    group_coord_destroy(c);
}

/* A member asked to revoke that never does is fenced after its rebalance
 * timeout; its partitions go to the others. */
static void test_rebalance_timeout(void **state)
{
    (void)state;
    group_coord *c = tc_coord(0);
    tc_client a, b;
    tc_init(&a, "A", "t0");
    tc_init(&b, "B", "t0");
    a.rebalance_timeout_ms = 5000;
    assert_int_equal(tc_hb(c, "g", &a, 0), KAFKA_NONE);
    assert_int_equal(tc_hb(c, "g", &b, 10), KAFKA_NONE);
    group_consumer_heartbeat_response out;
    tc_hb_full(c, "g", &a, 20, false, &out); /* told to revoke */
    assert_int_equal(out.output->wake_at_ms, 5020);
    a.owned[0] = 7; /* it keeps them */
    assert_int_equal(tc_hb(c, "g", &a, 3000), KAFKA_NONE);
    assert_int_equal(a.epoch, 1);
    group_tick(c, 5019);
    assert_int_equal(tc_describe(c, "g").member_count, 2);
    group_tick(c, 5020);
    assert_int_equal(tc_describe(c, "g").member_count, 1);
    assert_int_equal(tc_hb(c, "g", &a, 5021), KAFKA_UNKNOWN_MEMBER_ID);
    assert_int_equal(tc_hb(c, "g", &b, 5022), KAFKA_NONE);
    assert_int_equal(tc_count(&b), 3);
    tc_assert_exclusive(c);
    group_coord_destroy(c);
}

/* The same with a member that revokes in time: the timer is dropped. */
static void test_rebalance_timeout_met(void **state)
{
    (void)state;
    group_coord *c = tc_coord(0);
    tc_client a, b;
    tc_init(&a, "A", "t0");
    tc_init(&b, "B", "t0");
    a.rebalance_timeout_ms = 5000;
    assert_int_equal(tc_hb(c, "g", &a, 0), KAFKA_NONE);
    assert_int_equal(tc_hb(c, "g", &b, 10), KAFKA_NONE);
    assert_int_equal(tc_hb(c, "g", &a, 20), KAFKA_NONE);
    assert_int_equal(tc_hb(c, "g", &a, 30), KAFKA_NONE);
    assert_int_equal(a.epoch, 2);
    group_tick(c, 6000);
    assert_int_equal(tc_describe(c, "g").member_count, 2);
    group_coord_destroy(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_join_alone),
        cmocka_unit_test(test_revocation_before_reassignment),
        cmocka_unit_test(test_mutant_double_assignment),
        cmocka_unit_test(test_epochs),
        cmocka_unit_test(test_leave),
        cmocka_unit_test(test_static_leave_rejoin),
        cmocka_unit_test(test_session_timeout),
        cmocka_unit_test(test_rebalance_timeout),
        cmocka_unit_test(test_rebalance_timeout_met),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
