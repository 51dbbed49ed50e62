/* The group coordinator's refusals: unknown member, wrong generation,
 * invalid session timeout, full group, too many groups, inconsistent
 * protocols, oversized metadata; OffsetCommit checks; ListGroups. */
#include <stdio.h>
#include <stdlib.h>

#include "group_test_util.h"

static enum kafka_error join_error(group_coord *c, const group_join_request *r, int64_t now_ms)
{
    const group_answer *a = t_find(group_join(c, r, now_ms), r->token);
    assert_non_null(a);
    return a->error;
}

static void test_unknown_member_and_generation(void **state)
{
    (void)state;
    group_coord *c = t_coord(0, KQ_GROUP_MAX_SIZE_DEFAULT);
    assert_int_equal(group_heartbeat(c, "none", "m", NULL, 1, 0), KAFKA_UNKNOWN_MEMBER_ID);
    group_join_request r = t_join_req("none", "ghost", NULL, 1, NULL, 0);
    assert_int_equal(join_error(c, &r, 0), KAFKA_UNKNOWN_MEMBER_ID);
    const group_output *o = t_join(c, "g", "", 2, 0);
    char id[KQ_GROUP_NAME_BYTES_MAX];
    strcpy(id, t_find(o, 2)->member_id);
    assert_int_equal(group_heartbeat(c, "g", "ghost", NULL, 1, 1), KAFKA_UNKNOWN_MEMBER_ID);
    assert_int_equal(group_heartbeat(c, "g", id, NULL, 7, 1), KAFKA_ILLEGAL_GENERATION);
    o = t_sync(c, "g", id, 7, 3, NULL, 0, 2);
    assert_int_equal(t_find(o, 3)->error, KAFKA_ILLEGAL_GENERATION);
    o = t_sync(c, "g", "ghost", 1, 4, NULL, 0, 2);
    assert_int_equal(t_find(o, 4)->error, KAFKA_UNKNOWN_MEMBER_ID);
    group_sync_request s = { .token = 5, .group_id = "g", .member_id = id, .generation = 1,
                             .protocol_name = "roundrobin" };
    assert_int_equal(t_find(group_sync(c, &s, 3), 5)->error, KAFKA_INCONSISTENT_GROUP_PROTOCOL);
    r = t_join_req("g", "ghost", NULL, 6, NULL, 0);
    assert_int_equal(join_error(c, &r, 4), KAFKA_UNKNOWN_MEMBER_ID);
    group_coord_destroy(c);
}

static void test_invalid_session_timeout(void **state)
{
    (void)state;
    group_coord *c = t_coord(0, KQ_GROUP_MAX_SIZE_DEFAULT);
    group_join_request r = t_join_req("g", "", NULL, 1, NULL, 0);
    r.session_timeout_ms = KQ_GROUP_MIN_SESSION_TIMEOUT_MS_DEFAULT - 1;
    assert_int_equal(join_error(c, &r, 0), KAFKA_INVALID_SESSION_TIMEOUT);
    r.session_timeout_ms = KQ_GROUP_MAX_SESSION_TIMEOUT_MS_DEFAULT + 1;
    assert_int_equal(join_error(c, &r, 0), KAFKA_INVALID_SESSION_TIMEOUT);
    r.session_timeout_ms = KQ_GROUP_MIN_SESSION_TIMEOUT_MS_DEFAULT;
    assert_int_equal(join_error(c, &r, 0), KAFKA_NONE);
    r.group_id = "";
    assert_int_equal(join_error(c, &r, 0), KAFKA_INVALID_GROUP_ID);
    group_coord_destroy(c);
}

static void test_group_full(void **state)
{
    (void)state;
    group_coord *c = t_coord(3000, 2);
    assert_int_equal(t_join(c, "g", "", 1, 0)->answer_count, 0);
    group_join_request r = t_join_req("g", "", NULL, 2, NULL, 0);
    r.require_known_member_id = true; /* a pending id counts */
    assert_int_equal(join_error(c, &r, 1), KAFKA_MEMBER_ID_REQUIRED);
    r.token = 3;
    assert_int_equal(join_error(c, &r, 2), KAFKA_GROUP_MAX_SIZE_REACHED);
    group_coord_destroy(c);
}

static void test_too_many_groups(void **state)
{
    (void)state;
    group_coord *c = t_coord(3000, 1);
    char name[32];
    for (int i = 0; i < KQ_GROUPS_MAX; i++) {
        snprintf(name, sizeof(name), "g%d", i);
        assert_int_equal(t_join(c, name, "", (uint64_t)i, 0)->answer_count, 0);
    }
    assert_int_equal(group_count(c), KQ_GROUPS_MAX);
    group_join_request r = t_join_req("one-more", "", NULL, 99999, NULL, 0);
    assert_int_equal(join_error(c, &r, 1), KAFKA_COORDINATOR_NOT_AVAILABLE);
    /* every group's initial delay ends in one tick */
    const group_output *o = group_tick(c, 3000);
    int answered = o->answer_count;
    while (o->wake_at_ms == 3000) {
        o = group_tick(c, 3000);
        answered += o->answer_count;
    }
    assert_int_equal(answered, KQ_GROUPS_MAX);
    group_summary s;
    assert_true(group_at(c, 0, &s));
    assert_int_equal(s.state, GROUP_COMPLETING_REBALANCE);
    assert_string_equal(s.protocol_type, "consumer");
    assert_false(group_at(c, KQ_GROUPS_MAX, &s));
    group_coord_destroy(c);
}

static void test_inconsistent_protocol_and_oversize(void **state)
{
    (void)state;
    group_coord *c = t_coord(3000, KQ_GROUP_MAX_SIZE_DEFAULT);
    t_join(c, "g", "", 1, 0);
    group_protocol rr = { "roundrobin", t_meta, sizeof(t_meta) };
    group_join_request r = t_join_req("g", "", NULL, 2, &rr, 1);
    assert_int_equal(join_error(c, &r, 1), KAFKA_INCONSISTENT_GROUP_PROTOCOL);
    r = t_join_req("g", "", NULL, 3, NULL, 0);
    r.protocol_type = "connect";
    assert_int_equal(join_error(c, &r, 1), KAFKA_INCONSISTENT_GROUP_PROTOCOL);
    uint8_t *big = calloc(1, KQ_GROUP_MEMBER_BYTES_MAX + 1);
    group_protocol huge = { "range", big, KQ_GROUP_MEMBER_BYTES_MAX + 1 };
    r = t_join_req("g", "", NULL, 4, &huge, 1);
    assert_int_equal(join_error(c, &r, 1), KAFKA_INVALID_REQUEST);
    free(big);
    /* a second member offering both: "range" is the one all support */
    group_protocol both[] = { rr, { "range", t_meta, sizeof(t_meta) } };
    r = t_join_req("g", "", NULL, 5, both, 2);
    assert_int_equal(group_join(c, &r, 2)->answer_count, 0);
    const group_output *o = group_tick(c, 3000);
    o = group_tick(c, o->wake_at_ms);
    assert_string_equal(t_find(o, 5)->protocol_name, "range");
    group_coord_destroy(c);
}

/* A sole member may change its protocols (its old ones do not count). */
static void test_sole_member_changes_protocol(void **state)
{
    (void)state;
    group_coord *c = t_coord(0, KQ_GROUP_MAX_SIZE_DEFAULT);
    const group_output *o = t_join(c, "g", "", 1, 0);
    char id[KQ_GROUP_NAME_BYTES_MAX];
    strcpy(id, t_find(o, 1)->member_id);
    group_protocol rr = { "roundrobin", t_meta, sizeof(t_meta) };
    group_join_request r = t_join_req("g", id, NULL, 2, &rr, 1);
    o = group_join(c, &r, 1);
    assert_int_equal(t_find(o, 2)->error, KAFKA_NONE);
    assert_int_equal(t_find(o, 2)->generation, 2);
    assert_string_equal(t_find(o, 2)->protocol_name, "roundrobin");
    group_coord_destroy(c);
}

static void test_offset_commit_checks(void **state)
{
    (void)state;
    group_coord *c = t_coord(0, KQ_GROUP_MAX_SIZE_DEFAULT);
    bool exists;
    assert_int_equal(group_validate_offset_commit(c, "g", "", NULL, -1, &exists), KAFKA_NONE);
    assert_false(exists);
    const group_output *o = t_join(c, "g", "", 1, 0);
    char id[KQ_GROUP_NAME_BYTES_MAX];
    strcpy(id, t_find(o, 1)->member_id);
    assert_int_equal(group_validate_offset_commit(c, "g", id, NULL, 1, &exists),
                     KAFKA_REBALANCE_IN_PROGRESS); /* CompletingRebalance */
    assert_true(exists);
    t_sync(c, "g", id, 1, 2, NULL, 0, 1);
    assert_int_equal(group_validate_offset_commit(c, "g", id, NULL, 1, &exists), KAFKA_NONE);
    assert_int_equal(group_validate_offset_commit(c, "g", id, NULL, 2, &exists),
                     KAFKA_ILLEGAL_GENERATION);
    assert_int_equal(group_validate_offset_commit(c, "g", "x", NULL, 1, &exists),
                     KAFKA_UNKNOWN_MEMBER_ID);
    assert_int_equal(group_validate_offset_commit(c, "g", "", NULL, -1, &exists),
                     KAFKA_UNKNOWN_MEMBER_ID); /* not Empty */
    assert_int_equal(group_delete(c, "g"), KAFKA_NON_EMPTY_GROUP);
    assert_int_equal(group_delete(c, "h"), KAFKA_GROUP_ID_NOT_FOUND);
    group_summary s;
    assert_int_equal(group_describe(c, "h", &s), KAFKA_GROUP_ID_NOT_FOUND);
    assert_string_equal(group_state_name(GROUP_COMPLETING_REBALANCE), "CompletingRebalance");
    group_coord_destroy(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unknown_member_and_generation),
        cmocka_unit_test(test_invalid_session_timeout),
        cmocka_unit_test(test_group_full),
        cmocka_unit_test(test_too_many_groups),
        cmocka_unit_test(test_inconsistent_protocol_and_oversize),
        cmocka_unit_test(test_sole_member_changes_protocol),
        cmocka_unit_test(test_offset_commit_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
