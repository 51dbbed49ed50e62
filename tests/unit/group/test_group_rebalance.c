/* The group coordinator's rebalances: a two-member join/sync round, a third
 * member, a leave, a session timeout, a static restart, MEMBER_ID_REQUIRED. */
#include "group_test_util.h"

typedef struct two {
    group_coord *c;
    char m1[KQ_GROUP_NAME_BYTES_MAX], m2[KQ_GROUP_NAME_BYTES_MAX];
    int32_t gen;
    int64_t now_ms;
} two;

static const uint8_t a1[] = { 'p', '0' }, a2[] = { 'p', '1', 'p', '2' };

/* m1 and m2 join within the initial delay; the leader m1 syncs. */
static void two_members(two *t)
{
    t->c = t_coord(3000, KQ_GROUP_MAX_SIZE_DEFAULT);
    const group_output *o = t_join(t->c, "g", "", 1, 0);
    assert_int_equal(o->answer_count, 0);
    assert_int_equal(o->wake_at_ms, 3000);
    o = t_join(t->c, "g", "", 2, 100);
    assert_int_equal(o->answer_count, 0);
    o = group_tick(t->c, 3000); /* a member joined during the delay: extended */
    assert_int_equal(o->answer_count, 0);
    assert_int_equal(o->wake_at_ms, 6000);
    o = group_tick(t->c, 6000);
    assert_int_equal(o->answer_count, 2);
    const group_answer *j1 = t_find(o, 1), *j2 = t_find(o, 2);
    assert_int_equal(j1->error, KAFKA_NONE);
    assert_int_equal(j1->generation, 1);
    assert_true(j1->is_leader);
    assert_false(j2->is_leader);
    assert_string_equal(j1->protocol_name, "range");
    assert_string_equal(j2->leader_id, j1->member_id);
    strcpy(t->m1, j1->member_id);
    strcpy(t->m2, j2->member_id);
    t->gen = 1;
    group_member_view v;
    assert_true(group_join_member_at(t->c, "g", 1, &v));
    assert_string_equal(v.member_id, t->m2);
    assert_memory_equal(v.metadata, t_meta, sizeof(t_meta));

    o = t_sync(t->c, "g", t->m2, 1, 12, NULL, 0, 6001); /* a follower waits */
    assert_int_equal(o->answer_count, 0);
    group_assignment as[] = { { t->m1, a1, sizeof(a1) }, { t->m2, a2, sizeof(a2) } };
    o = t_sync(t->c, "g", t->m1, 1, 11, as, 2, 6002);
    assert_int_equal(o->answer_count, 2);
    assert_int_equal(t_find(o, 11)->assignment_len, sizeof(a1));
    assert_memory_equal(t_find(o, 12)->assignment, a2, sizeof(a2));
    assert_int_equal(t_find(o, 12)->error, KAFKA_NONE);
    t->now_ms = 6002;
    group_summary s;
    assert_int_equal(group_describe(t->c, "g", &s), KAFKA_NONE);
    assert_int_equal(s.state, GROUP_STABLE);
    assert_int_equal(s.member_count, 2);
    assert_string_equal(s.protocol_name, "range");
}

static void test_two_member_round(void **state)
{
    (void)state;
    two t;
    two_members(&t);
    assert_int_equal(group_heartbeat(t.c, "g", t.m2, NULL, 1, 7000), KAFKA_NONE);
    group_member_view v;
    assert_true(group_member_at(t.c, "g", 1, &v));
    assert_memory_equal(v.assignment, a2, sizeof(a2));
    assert_string_equal(v.client_host, "/127.0.0.1");
    group_coord_destroy(t.c);
}

static void test_third_member_rebalances(void **state)
{
    (void)state;
    two t;
    two_members(&t);
    const group_output *o = t_join(t.c, "g", "", 3, 7000);
    assert_int_equal(o->answer_count, 0);
    assert_int_equal(group_heartbeat(t.c, "g", t.m1, NULL, 1, 7001), KAFKA_REBALANCE_IN_PROGRESS);
    assert_int_equal(group_heartbeat(t.c, "g", t.m2, NULL, 1, 7001), KAFKA_REBALANCE_IN_PROGRESS);
    assert_int_equal(t_join(t.c, "g", t.m1, 4, 7002)->answer_count, 0);
    o = t_join(t.c, "g", t.m2, 5, 7003);
    assert_int_equal(o->answer_count, 3);
    assert_int_equal(t_find(o, 3)->generation, 2);
    assert_true(t_find(o, 4)->is_leader);
    assert_string_equal(t_find(o, 5)->leader_id, t.m1);
    assert_int_equal(group_heartbeat(t.c, "g", t.m2, NULL, 1, 7004), KAFKA_ILLEGAL_GENERATION);
    assert_int_equal(group_heartbeat(t.c, "g", t.m2, NULL, 2, 7004), KAFKA_NONE);
    group_coord_destroy(t.c);
}

static void test_member_leaves(void **state)
{
    (void)state;
    two t;
    two_members(&t);
    group_leave_member lm[] = { { t.m2, NULL, KAFKA_NONE }, { "nobody", NULL, KAFKA_NONE } };
    const group_output *o;
    assert_int_equal(group_leave(t.c, "g", lm, 2, 7000, &o), KAFKA_NONE);
    assert_int_equal(lm[0].error, KAFKA_NONE);
    assert_int_equal(lm[1].error, KAFKA_UNKNOWN_MEMBER_ID);
    assert_int_equal(group_heartbeat(t.c, "g", t.m1, NULL, 1, 7001), KAFKA_REBALANCE_IN_PROGRESS);
    o = t_join(t.c, "g", t.m1, 6, 7002);
    assert_int_equal(o->answer_count, 1);
    assert_int_equal(t_find(o, 6)->generation, 2);
    group_leave_member last[] = { { t.m1, NULL, KAFKA_NONE } };
    group_leave(t.c, "g", last, 1, 7003, &o);
    group_summary s;
    group_describe(t.c, "g", &s);
    assert_int_equal(s.state, GROUP_EMPTY);
    assert_int_equal(s.generation, 3);
    assert_int_equal(group_delete(t.c, "g"), KAFKA_NONE);
    assert_int_equal(group_count(t.c), 0);
    group_coord_destroy(t.c);
}

static void test_session_timeout_expires_member(void **state)
{
    (void)state;
    two t;
    two_members(&t);
    assert_int_equal(group_heartbeat(t.c, "g", t.m1, NULL, 1, 12000), KAFKA_NONE);
    const group_output *o = group_tick(t.c, 6001 + T_SESSION_MS - 1);
    assert_int_equal(o->wake_at_ms, 6001 + T_SESSION_MS);
    o = group_tick(t.c, 6001 + T_SESSION_MS); /* m2 silent since its sync */
    group_summary s;
    group_describe(t.c, "g", &s);
    assert_int_equal(s.state, GROUP_PREPARING_REBALANCE);
    assert_int_equal(s.member_count, 1);
    assert_int_equal(group_heartbeat(t.c, "g", t.m2, NULL, 1, 16003), KAFKA_UNKNOWN_MEMBER_ID);
    o = t_join(t.c, "g", t.m1, 7, 16004);
    assert_int_equal(t_find(o, 7)->generation, 2);
    group_coord_destroy(t.c);
}

static void test_rebalance_timeout_drops_absent_member(void **state)
{
    (void)state;
    two t;
    two_members(&t);
    int64_t now = 7000;
    t_join(t.c, "g", "", 3, now);
    /* m1 rejoins and keeps heartbeating; m2 neither rejoins nor heartbeats */
    assert_int_equal(t_join(t.c, "g", t.m1, 4, now)->answer_count, 0);
    const group_output *o = group_tick(t.c, now);
    while (o->answer_count == 0) {
        assert_true(o->wake_at_ms > now && o->wake_at_ms <= now + T_REBALANCE_MS);
        now = o->wake_at_ms;
        o = group_tick(t.c, now);
    }
    assert_int_equal(o->answer_count, 2);
    assert_int_equal(t_find(o, 4)->generation, 2);
    group_coord_destroy(t.c);
}

static void test_static_member_restart(void **state)
{
    (void)state;
    group_coord *c = t_coord(0, KQ_GROUP_MAX_SIZE_DEFAULT);
    group_join_request r = t_join_req("g", "", "i1", 1, NULL, 0);
    const group_output *o = group_join(c, &r, 0);
    assert_int_equal(o->answer_count, 1);
    char old[KQ_GROUP_NAME_BYTES_MAX];
    strcpy(old, t_find(o, 1)->member_id);
    group_assignment as[] = { { old, a1, sizeof(a1) } };
    o = t_sync(c, "g", old, 1, 2, as, 1, 1);
    assert_int_equal(t_find(o, 2)->error, KAFKA_NONE);
    /* the process restarts: no member id, same instance id and protocols */
    r = t_join_req("g", "", "i1", 3, NULL, 0);
    o = group_join(c, &r, 100);
    assert_int_equal(o->answer_count, 1);
    const group_answer *j = t_find(o, 3);
    assert_int_equal(j->error, KAFKA_NONE);
    assert_int_equal(j->generation, 1); /* no rebalance */
    assert_string_not_equal(j->member_id, old);
    char fresh[KQ_GROUP_NAME_BYTES_MAX];
    strcpy(fresh, j->member_id);
    assert_int_equal(group_heartbeat(c, "g", old, "i1", 1, 101), KAFKA_FENCED_INSTANCE_ID);
    group_summary s;
    group_describe(c, "g", &s);
    assert_int_equal(s.state, GROUP_STABLE);
    o = t_sync(c, "g", fresh, 1, 4, NULL, 0, 102);
    assert_int_equal(t_find(o, 4)->error, KAFKA_NONE);
    assert_memory_equal(t_find(o, 4)->assignment, a1, sizeof(a1));
    group_leave_member lm[] = { { "", "i1", KAFKA_NONE } };
    group_leave(c, "g", lm, 1, 103, &o);
    assert_int_equal(lm[0].error, KAFKA_NONE);
    group_coord_destroy(c);
}

/* A static member restarting while its old incarnation waits for a join:
 * the old join is answered FENCED_INSTANCE_ID, the new one joins. */
static void test_static_member_fenced_while_joining(void **state)
{
    (void)state;
    group_coord *c = t_coord(3000, KQ_GROUP_MAX_SIZE_DEFAULT);
    group_join_request r = t_join_req("g", "", "i1", 1, NULL, 0);
    assert_int_equal(group_join(c, &r, 0)->answer_count, 0);
    r.token = 2;
    const group_output *o = group_join(c, &r, 10);
    assert_int_equal(o->answer_count, 1);
    assert_int_equal(t_find(o, 1)->error, KAFKA_FENCED_INSTANCE_ID);
    o = group_tick(c, 3000);
    assert_int_equal(t_find(o, 2)->error, KAFKA_NONE);
    assert_int_equal(t_find(o, 2)->generation, 1);
    group_summary s;
    group_describe(c, "g", &s);
    assert_int_equal(s.member_count, 1);
    group_member_view v;
    assert_true(group_member_at(c, "g", 0, &v));
    assert_string_equal(v.instance_id, "i1");
    group_coord_destroy(c);
}

/* Followers' syncs wait for the leader; a rebalance before it answers
 * them REBALANCE_IN_PROGRESS. */
static void test_pending_sync_answered_by_rebalance(void **state)
{
    (void)state;
    group_coord *c = t_coord(0, KQ_GROUP_MAX_SIZE_DEFAULT);
    const group_output *o = t_join(c, "g", "", 1, 0);
    char m1[KQ_GROUP_NAME_BYTES_MAX], m2[KQ_GROUP_NAME_BYTES_MAX];
    strcpy(m1, t_find(o, 1)->member_id);
    t_sync(c, "g", m1, 1, 2, NULL, 0, 1);
    t_join(c, "g", "", 3, 2);
    o = t_join(c, "g", m1, 4, 3);
    assert_int_equal(o->answer_count, 2);
    strcpy(m2, t_find(o, 3)->member_id);
    assert_int_equal(t_sync(c, "g", m2, 2, 5, NULL, 0, 4)->answer_count, 0);
    assert_int_equal(group_heartbeat(c, "g", m2, NULL, 2, 5), KAFKA_NONE);
    o = t_join(c, "g", "", 6, 6); /* a third member before the leader syncs */
    assert_int_equal(o->answer_count, 1);
    assert_int_equal(t_find(o, 5)->error, KAFKA_REBALANCE_IN_PROGRESS);
    o = t_sync(c, "g", m1, 2, 7, NULL, 0, 7);
    assert_int_equal(t_find(o, 7)->error, KAFKA_REBALANCE_IN_PROGRESS);
    group_coord_destroy(c);
}

/* A member that got its join answer but never syncs is removed after the
 * rebalance timeout (Kafka's pending-sync timeout), although it heartbeats. */
static void test_sync_timeout_removes_member(void **state)
{
    (void)state;
    two t;
    t.c = t_coord(0, KQ_GROUP_MAX_SIZE_DEFAULT);
    const group_output *o = t_join(t.c, "g", "", 1, 0);
    strcpy(t.m1, t_find(o, 1)->member_id);
    t_sync(t.c, "g", t.m1, 1, 2, NULL, 0, 1);
    t_join(t.c, "g", "", 3, 2);
    o = t_join(t.c, "g", t.m1, 4, 3);
    strcpy(t.m2, t_find(o, 3)->member_id);
    assert_int_equal(o->wake_at_ms, 3 + T_SESSION_MS);
    o = t_sync(t.c, "g", t.m1, 2, 5, NULL, 0, 4); /* only the leader syncs */
    assert_int_equal(t_find(o, 5)->error, KAFKA_NONE);
    for (int64_t now = 5000; now < 3 + T_REBALANCE_MS; now += 5000) {
        assert_int_equal(group_heartbeat(t.c, "g", t.m1, NULL, 2, now), KAFKA_NONE);
        assert_int_equal(group_heartbeat(t.c, "g", t.m2, NULL, 2, now), KAFKA_NONE);
        o = group_tick(t.c, now);
    }
    assert_int_equal(o->wake_at_ms, 3 + T_REBALANCE_MS);
    group_tick(t.c, 3 + T_REBALANCE_MS);
    assert_int_equal(group_heartbeat(t.c, "g", t.m2, NULL, 2, 30004), KAFKA_UNKNOWN_MEMBER_ID);
    assert_int_equal(group_heartbeat(t.c, "g", t.m1, NULL, 2, 30004), KAFKA_REBALANCE_IN_PROGRESS);
    group_coord_destroy(t.c);
}

static void test_member_id_required(void **state)
{
    (void)state;
    group_coord *c = t_coord(0, KQ_GROUP_MAX_SIZE_DEFAULT);
    group_join_request r = t_join_req("g", "", NULL, 1, NULL, 0);
    r.require_known_member_id = true;
    const group_output *o = group_join(c, &r, 0);
    const group_answer *a = t_find(o, 1);
    assert_int_equal(a->error, KAFKA_MEMBER_ID_REQUIRED);
    assert_true(strncmp(a->member_id, "client-", 7) == 0);
    char id[KQ_GROUP_NAME_BYTES_MAX];
    strcpy(id, a->member_id);
    r.member_id = id;
    r.token = 2;
    o = group_join(c, &r, 10);
    assert_int_equal(t_find(o, 2)->error, KAFKA_NONE);
    assert_string_equal(t_find(o, 2)->member_id, id);
    assert_true(t_find(o, 2)->is_leader);
    /* a pending id never used expires after the session timeout */
    assert_int_equal(group_heartbeat(c, "g", id, NULL, 1, 20), KAFKA_NONE);
    r.member_id = "";
    r.token = 3;
    o = group_join(c, &r, 20);
    assert_int_equal(t_find(o, 3)->error, KAFKA_MEMBER_ID_REQUIRED);
    assert_int_equal(o->wake_at_ms, 20 + T_SESSION_MS);
    group_tick(c, 20 + T_SESSION_MS);
    group_summary s;
    group_describe(c, "g", &s);
    assert_int_equal(s.state, GROUP_EMPTY);
    assert_int_equal(s.member_count, 0);
    assert_int_equal(group_delete(c, "g"), KAFKA_NONE); /* no pending id left */
    group_coord_destroy(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_member_round),
        cmocka_unit_test(test_third_member_rebalances),
        cmocka_unit_test(test_member_leaves),
        cmocka_unit_test(test_session_timeout_expires_member),
        cmocka_unit_test(test_rebalance_timeout_drops_absent_member),
        cmocka_unit_test(test_static_member_restart),
        cmocka_unit_test(test_static_member_fenced_while_joining),
        cmocka_unit_test(test_pending_sync_answered_by_rebalance),
        cmocka_unit_test(test_sync_timeout_removes_member),
        cmocka_unit_test(test_member_id_required),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
