/* The coordinator's bounds (issue 19): member metadata and assignments
 * against the per-group byte budget (JoinGroup and SyncGroup refused with
 * GROUP_MAX_SIZE_REACHED naming KQ_GROUP_BYTES_MAX; the bytes counted back
 * to zero as members go); members and pending ids per client host; a full
 * table forgets an Empty group to make room; which groups' offsets may
 * expire. */
#include <stdio.h>
#include <stdlib.h>

#include "group_test_util.h"

#define BIG 1000000 /* bytes of one member's metadata */

static const group_output *join_big(group_coord *c, const char *group, const char *host,
                                    uint64_t token, const uint8_t *meta, size_t len)
{
    group_protocol p = {"range", meta, len};
    group_join_request r = t_join_req(group, "", NULL, token, &p, 1);
    r.client_host = host;
    return group_join(c, &r, 0);
}

static void test_group_bytes_budget(void **state)
{
    (void)state;
    group_coord *c = t_coord(3000, 100);
    uint8_t *meta = calloc(1, BIG);
    assert_non_null(meta);
    int fit = (int)(KQ_GROUP_BYTES_MAX / BIG);
    char host[32];
    for (int i = 0; i < fit; i++) {
        snprintf(host, sizeof(host), "h%d", i);
        assert_int_equal(join_big(c, "g", host, (uint64_t)i + 1, meta, BIG)->answer_count, 0);
    }
    assert_int_equal(group_bytes_of(c, "g"), (uint64_t)fit * BIG);
    const group_output *o = join_big(c, "g", "late", 999, meta, BIG);
    assert_int_equal(o->answer_count, 1);
    assert_int_equal(o->answers[0].error, KAFKA_GROUP_MAX_SIZE_REACHED);
    assert_non_null(o->answers[0].limit);
    assert_non_null(strstr(o->answers[0].limit, "KQ_GROUP_BYTES_MAX"));
    /* Another group is not affected. */
    assert_int_equal(join_big(c, "other", "x", 1000, meta, 10)->answer_count, 0);
    /* The join completes; the leader's assignment would pass the budget. */
    /* (the initial delay grows while members joined during it) */
    int64_t t = 0;
    int answered = 0;
    char leader_id[KQ_GROUP_NAME_BYTES_MAX] = "";
    int32_t gen = -1;
    while (answered < fit && t <= T_REBALANCE_MS + 3000) {
        t += 3000;
        o = group_tick(c, t);
        for (int i = 0; i < o->answer_count; i++) {
            if (o->answers[i].token > (uint64_t)fit)
                continue;
            answered++;
            if (o->answers[i].is_leader) {
                snprintf(leader_id, sizeof(leader_id), "%s", o->answers[i].member_id);
                gen = o->answers[i].generation;
            }
        }
    }
    assert_int_equal(answered, fit);
    assert_true(leader_id[0] != '\0');
    group_assignment a = {leader_id, meta, BIG};
    o = t_sync(c, "g", leader_id, gen, 5000, &a, 1, t);
    assert_int_equal(o->answer_count, 1);
    assert_int_equal(o->answers[0].error, KAFKA_GROUP_MAX_SIZE_REACHED);
    assert_non_null(strstr(o->answers[0].limit, "KQ_GROUP_BYTES_MAX"));
    /* A small one fits. */
    a.assignment_len = 100;
    o = t_sync(c, "g", leader_id, gen, 5001, &a, 1, t);
    assert_int_equal(o->answers[0].error, KAFKA_NONE);
    assert_int_equal(group_bytes_of(c, "g"), (uint64_t)fit * BIG + 100);
    /* Members that stop heartbeating are removed: their bytes go with them. */
    for (int k = 1; k <= 4; k++)
        group_tick(c, t + k * (T_SESSION_MS + T_REBALANCE_MS));
    assert_int_equal(group_bytes(c), 0);
    free(meta);
    group_coord_destroy(c);
}

static void test_members_per_connection(void **state)
{
    (void)state;
    group_config cfg = group_config_default();
    group_coord *c = group_coord_create(&cfg);
    char name[32];
    group_join_request r = t_join_req("", "", NULL, 0, NULL, 0);
    r.require_known_member_id = true;
    r.client_host = "attacker:1";
    int refused = 0;
    for (int i = 0; i < KQ_GROUPS_MAX; i++) {
        snprintf(name, sizeof(name), "g-%d", i);
        r.group_id = name;
        r.token = (uint64_t)i + 1;
        const group_output *o = group_join(c, &r, 0);
        assert_int_equal(o->answer_count, 1);
        if (o->answers[0].error == KAFKA_GROUP_MAX_SIZE_REACHED) {
            assert_non_null(strstr(o->answers[0].limit, "PER_CONNECTION"));
            refused++;
        } else {
            assert_int_equal(o->answers[0].error, KAFKA_MEMBER_ID_REQUIRED);
        }
    }
    assert_int_equal(refused, KQ_GROUPS_MAX - KQ_GROUP_MEMBERS_PER_CONNECTION_MAX);
    /* Another connection's new group joins. */
    r.client_host = "consumer:2";
    r.group_id = "mine";
    r.token = 77777;
    const group_output *o = group_join(c, &r, 0);
    assert_int_equal(o->answers[0].error, KAFKA_MEMBER_ID_REQUIRED);
    /* The pending ids expire after the session timeout: room again. */
    group_tick(c, T_SESSION_MS + 1);
    r.client_host = "attacker:1";
    r.group_id = "again";
    o = group_join(c, &r, T_SESSION_MS + 2);
    assert_int_equal(o->answers[0].error, KAFKA_MEMBER_ID_REQUIRED);
    group_coord_destroy(c);
}

static void test_full_table_forgets_empty(void **state)
{
    (void)state;
    group_coord *c = t_coord(0, 1);
    char name[32];
    for (int i = 0; i < KQ_GROUPS_MAX; i++) {
        snprintf(name, sizeof(name), "g%d", i);
        t_join(c, name, "", (uint64_t)i + 1, 0);
    }
    /* Every member leaves by its session timeout: the groups are Empty. */
    for (int k = 0; k < 8; k++)
        group_tick(c, T_SESSION_MS + T_REBALANCE_MS + 1 + k);
    group_summary s;
    assert_true(group_describe(c, "g0", &s) == KAFKA_NONE);
    assert_int_equal(s.state, GROUP_EMPTY);
    int64_t since = 0;
    assert_true(group_offsets_may_expire(c, "g0", &since));
    assert_true(since > 0);
    assert_true(group_offsets_may_expire(c, "unknown", &since));
    assert_int_equal(since, INT64_MIN);
    const group_output *o = t_join(c, "new", "", 99999, 100000);
    assert_int_equal(o->answer_count, 1); /* no initial delay: answered at once */
    assert_int_equal(o->answers[0].error, KAFKA_NONE);
    assert_int_equal(group_count(c), KQ_GROUPS_MAX);
    assert_false(group_offsets_may_expire(c, "new", &since)); /* it has a member */
    group_coord_destroy(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_group_bytes_budget),
        cmocka_unit_test(test_members_per_connection),
        cmocka_unit_test(test_full_table_forgets_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
