/* Membership through the log in the coordinator (issue 24; kq/group.h
 * group_coord_take_changes / group_coord_restore): what each change writes
 * (a rebalance begun, completed, the assignments, a leave, a static
 * member's replacement, a group deleted), never a heartbeat; a coordinator
 * restored from the store answers the members' heartbeats and commits at
 * their generation, in each state; the persisted bounds. */
#include <stdio.h>
#include <stdlib.h>

#include "group_test_util.h"
#include "kq/group_store.h"
#include "kq/record.h"

static group_coord *p_coord(void)
{
    group_config cfg = group_config_default();
    cfg.initial_rebalance_delay_ms = 0;
    cfg.members_per_connection_max = 0;
    cfg.persist_bytes_max = KQ_GROUP_STORE_BYTES_MAX;
    group_coord *c = group_coord_create(&cfg);
    assert_non_null(c);
    return c;
}

/* Takes the coordinator's changes into the store as the log would apply
 * them (at *offset); returns the records written. */
static int take(group_coord *c, group_store *s, int64_t *offset)
{
    group_store_batch b;
    group_store_batch_init(&b);
    uint64_t covered = 0;
    bool more = false;
    int n = 0;
    if (group_coord_take_changes(c, &b, &covered, &more)) {
        assert_int_equal(covered, group_coord_change_seq(c));
        assert_false(more);
        kq_writer w;
        kq_writer_init(&w, 0);
        assert_true(group_store_batch_build(&b, &w, 0));
        record_batch_set_base_offset(w.data, *offset);
        n = group_store_note_batches(s, w.data, w.len, NULL);
        assert_int_equal(n, b.count);
        *offset += n;
        kq_writer_free(&w);
    }
    assert_false(b.failed);
    group_store_batch_free(&b);
    return n;
}

/* The classic group record of group_id in s (false: none). */
static bool stored_group(const group_store *s, const char *group_id, group_store_classic_group *g,
                         group_store_classic_strings *str)
{
    int gi = group_store_find(s, group_id);
    group_store_record r;
    if (gi < 0 || !group_store_group_at(s, gi, &r) || r.tombstone)
        return false;
    assert_null(group_store_classic_group_read((kq_slice){r.body, (int32_t)r.body_len}, g, str));
    return true;
}

/* A member that joined and synced alone in group "g": its id, generation. */
static int32_t form(group_coord *c, char *id, int64_t *now)
{
    const group_output *o = t_join(c, "g", "", 1, *now);
    assert_int_equal(o->answer_count, 1);
    assert_int_equal(o->answers[0].error, KAFKA_NONE);
    snprintf(id, KQ_GROUP_NAME_BYTES_MAX, "%s", o->answers[0].member_id);
    int32_t gen = o->answers[0].generation;
    group_assignment a = {id, (const uint8_t *)"assign", 6};
    o = t_sync(c, "g", id, gen, 2, &a, 1, *now);
    assert_int_equal(o->answers[0].error, KAFKA_NONE);
    return gen;
}

static void test_take_and_restore_stable(void **state)
{
    (void)state;
    group_coord *c = p_coord();
    group_store *s = group_store_create();
    int64_t off = 1, now = 1000;
    char id[KQ_GROUP_NAME_BYTES_MAX];
    assert_int_equal(group_coord_change_seq(c), 0);
    int32_t gen = form(c, id, &now);
    assert_true(group_coord_group_seq(c, "g") > 0);
    assert_int_equal(take(c, s, &off), 2); /* the group's record and the member's */
    group_store_classic_group g;
    group_store_classic_strings str;
    assert_true(stored_group(s, "g", &g, &str));
    assert_int_equal(g.state, GROUP_STABLE);
    assert_int_equal(g.generation, gen);
    assert_string_equal(g.leader_id, id);
    assert_string_equal(g.protocol_name, "range");
    group_store_record r;
    assert_true(group_store_member_at(s, 0, 0, &r));
    assert_string_equal(r.member_id, id);
    group_store_classic_member m;
    assert_null(group_store_classic_member_read((kq_slice){r.body, (int32_t)r.body_len}, &m, &str));
    assert_memory_equal(m.metadata, t_meta, sizeof(t_meta));
    assert_memory_equal(m.assignment, "assign", 6);
    assert_int_equal(m.session_timeout_ms, T_SESSION_MS);
    /* Heartbeats write nothing. */
    uint64_t seq = group_coord_change_seq(c);
    assert_int_equal(group_heartbeat(c, "g", id, NULL, gen, now + 1000), KAFKA_NONE);
    assert_int_equal(group_coord_change_seq(c), seq);
    assert_int_equal(take(c, s, &off), 0);
    /* A new coordinator (a failover) loads the group: the member's
     * heartbeat and commit at its generation are answered as before, until
     * its session timeout from the load. */
    group_coord *c2 = p_coord();
    int64_t t = now + 50000; /* long after the old deadline */
    assert_int_equal(group_coord_restore(c2, s, t), 1);
    assert_int_equal(group_coord_change_seq(c2), 0); /* loaded as written */
    group_summary sum;
    assert_int_equal(group_describe(c2, "g", &sum), KAFKA_NONE);
    assert_int_equal(sum.state, GROUP_STABLE);
    assert_int_equal(sum.generation, gen);
    assert_int_equal(sum.member_count, 1);
    assert_int_equal(group_heartbeat(c2, "g", id, NULL, gen, t + T_SESSION_MS - 1), KAFKA_NONE);
    bool exists = false;
    assert_int_equal(group_validate_offset_commit(c2, "g", id, NULL, gen, &exists), KAFKA_NONE);
    assert_int_equal(group_validate_offset_commit(c2, "g", id, NULL, gen - 1, &exists),
                     KAFKA_ILLEGAL_GENERATION);
    group_member_view v;
    assert_true(group_member_at(c2, "g", 0, &v));
    assert_int_equal(v.assignment_len, 6);
    /* A SyncGroup of the same generation gets its assignment again. */
    const group_output *o = t_sync(c2, "g", id, gen, 3, NULL, 0, t + 10);
    assert_int_equal(o->answers[0].error, KAFKA_NONE);
    assert_memory_equal(o->answers[0].assignment, "assign", 6);
    /* Without heartbeats it is removed after its session timeout (its
     * tombstone and the group's PreparingRebalance, then Empty). */
    group_tick(c2, t + 10 + T_SESSION_MS + 1);
    group_tick(c2, t + 10 + T_SESSION_MS + 1 + T_REBALANCE_MS + 1);
    assert_true(take(c2, s, &off) >= 2);
    assert_true(stored_group(s, "g", &g, &str));
    assert_int_equal(g.state, GROUP_EMPTY);
    assert_int_equal(group_store_member_count(s, 0), 0);
    /* Deleted: the group's tombstone. */
    assert_int_equal(group_delete(c2, "g"), KAFKA_NONE);
    assert_int_equal(take(c2, s, &off), 1);
    assert_int_equal(group_store_group_count(s), 0);
    assert_int_equal(group_store_bytes(s), 0);
    group_coord_destroy(c);
    group_coord_destroy(c2);
    group_store_destroy(s);
}

/* A rebalance in progress is written as it stands: PreparingRebalance
 * (members as last written, those gone tombstoned), then
 * CompletingRebalance with the chosen protocol's metadata; a coordinator
 * loaded from either lets the members rejoin or sync. */
static void test_rebalance_states(void **state)
{
    (void)state;
    group_coord *c = p_coord();
    group_store *s = group_store_create();
    int64_t off = 1, now = 1000;
    char a[KQ_GROUP_NAME_BYTES_MAX];
    int32_t gen = form(c, a, &now);
    take(c, s, &off);
    /* A second member joins: PreparingRebalance. */
    const group_output *o = t_join(c, "g", "", 10, now);
    assert_int_equal(o->answer_count, 0);
    assert_int_equal(take(c, s, &off), 1); /* the group record alone */
    group_store_classic_group g;
    group_store_classic_strings str;
    assert_true(stored_group(s, "g", &g, &str));
    assert_int_equal(g.state, GROUP_PREPARING_REBALANCE);
    assert_int_equal(group_store_member_count(s, 0), 1);
    /* Loaded now: the member rejoins (its heartbeat says so) and the
     * rebalance completes without the joiner that never came back. */
    group_coord *c2 = p_coord();
    assert_int_equal(group_coord_restore(c2, s, now), 1);
    assert_int_equal(group_heartbeat(c2, "g", a, NULL, gen, now + 1), KAFKA_REBALANCE_IN_PROGRESS);
    o = t_join(c2, "g", a, 20, now + 2);
    assert_int_equal(o->answer_count, 1);
    assert_int_equal(o->answers[0].error, KAFKA_NONE);
    assert_int_equal(o->answers[0].generation, gen + 1);
    /* The first coordinator completes its rebalance: CompletingRebalance
     * with both members' metadata. */
    o = t_join(c, "g", a, 11, now + 5);
    assert_int_equal(o->answer_count, 2);
    char b[KQ_GROUP_NAME_BYTES_MAX];
    const group_answer *jb = t_find(o, 10);
    snprintf(b, sizeof(b), "%s", jb->member_id);
    assert_int_equal(take(c, s, &off), 3);
    assert_true(stored_group(s, "g", &g, &str));
    assert_int_equal(g.state, GROUP_COMPLETING_REBALANCE);
    assert_int_equal(g.generation, gen + 1);
    assert_int_equal(group_store_member_count(s, 0), 2);
    group_coord *c3 = p_coord();
    assert_int_equal(group_coord_restore(c3, s, now + 10), 1);
    assert_int_equal(group_heartbeat(c3, "g", b, NULL, gen + 1, now + 11), KAFKA_NONE);
    bool exists;
    assert_int_equal(group_validate_offset_commit(c3, "g", b, NULL, gen + 1, &exists),
                     KAFKA_REBALANCE_IN_PROGRESS);
    /* The leader's SyncGroup completes it there. */
    group_assignment as[2] = {{a, (const uint8_t *)"x", 1}, {b, (const uint8_t *)"y", 1}};
    const char *leader = t_find(o, 11)->is_leader ? a : b;
    o = t_sync(c3, "g", leader, gen + 1, 30, as, 2, now + 12);
    assert_int_equal(o->answers[0].error, KAFKA_NONE);
    group_summary sum;
    assert_int_equal(group_describe(c3, "g", &sum), KAFKA_NONE);
    assert_int_equal(sum.state, GROUP_STABLE);
    /* Members that do not sync within the rebalance timeout of the load
     * are removed. */
    group_coord *c4 = p_coord();
    assert_int_equal(group_coord_restore(c4, s, now + 10), 1);
    group_tick(c4, now + 10 + T_REBALANCE_MS);
    assert_int_equal(group_describe(c4, "g", &sum), KAFKA_NONE);
    assert_int_equal(sum.member_count, 0);
    group_coord_destroy(c);
    group_coord_destroy(c2);
    group_coord_destroy(c3);
    group_coord_destroy(c4);
    group_store_destroy(s);
}

/* A leave writes the member's tombstone; a static member replaced with
 * unchanged protocols keeps the generation, its old id tombstoned. */
static void test_leave_and_static(void **state)
{
    (void)state;
    group_coord *c = p_coord();
    group_store *s = group_store_create();
    int64_t off = 1, now = 1000;
    group_join_request r = t_join_req("s", "", "inst-1", 1, NULL, 0);
    const group_output *o = group_join(c, &r, now);
    assert_int_equal(o->answers[0].error, KAFKA_NONE);
    char old[KQ_GROUP_NAME_BYTES_MAX];
    snprintf(old, sizeof(old), "%s", o->answers[0].member_id);
    int32_t gen = o->answers[0].generation;
    group_assignment a = {old, (const uint8_t *)"a", 1};
    group_sync_request sr = {.token = 2, .group_id = "s", .member_id = old,
                             .instance_id = "inst-1", .generation = gen, .assignments = &a,
                             .assignment_count = 1};
    assert_int_equal(group_sync(c, &sr, now)->answers[0].error, KAFKA_NONE);
    take(c, s, &off);
    r.token = 3;
    r.client_id = "client-b";
    o = group_join(c, &r, now + 1);
    assert_int_equal(o->answers[0].error, KAFKA_NONE);
    assert_int_equal(o->answers[0].generation, gen);
    char neu[KQ_GROUP_NAME_BYTES_MAX];
    snprintf(neu, sizeof(neu), "%s", o->answers[0].member_id);
    assert_true(group_coord_group_seq(c, "s") > 0);
    assert_int_equal(take(c, s, &off), 3); /* tombstone of old, group, new */
    assert_int_equal(group_store_member_count(s, 0), 1);
    group_store_record rec;
    assert_true(group_store_member_at(s, 0, 0, &rec));
    assert_string_equal(rec.member_id, neu);
    group_coord *c2 = p_coord();
    assert_int_equal(group_coord_restore(c2, s, now + 2), 1);
    assert_int_equal(group_heartbeat(c2, "s", neu, "inst-1", gen, now + 3), KAFKA_NONE);
    assert_int_equal(group_heartbeat(c2, "s", old, "inst-1", gen, now + 3),
                     KAFKA_FENCED_INSTANCE_ID);
    group_leave_member lm = {neu, "inst-1", KAFKA_NONE};
    const group_output *lo;
    assert_int_equal(group_leave(c2, "s", &lm, 1, now + 4, &lo), KAFKA_NONE);
    assert_int_equal(lm.error, KAFKA_NONE);
    assert_int_equal(take(c2, s, &off), 2); /* the member's tombstone, the group (Preparing) */
    assert_int_equal(group_store_member_count(s, 0), 0);
    group_coord_destroy(c);
    group_coord_destroy(c2);
    group_store_destroy(s);
}

/* The persisted bounds: metadata or an assignment over the record bound
 * is INVALID_REQUEST; a coordinator at its byte budget refuses a join
 * with COORDINATOR_NOT_AVAILABLE (retriable), naming the limit. */
static void test_bounds(void **state)
{
    (void)state;
    group_coord *c = p_coord();
    uint8_t *big = calloc(1, KQ_GROUP_STORE_METADATA_BYTES_MAX + 1);
    group_protocol p = {"range", big, KQ_GROUP_STORE_METADATA_BYTES_MAX + 1};
    group_join_request r = t_join_req("g", "", NULL, 1, &p, 1);
    const group_output *o = group_join(c, &r, 0);
    assert_int_equal(o->answers[0].error, KAFKA_INVALID_REQUEST);
    p.metadata_len = KQ_GROUP_STORE_METADATA_BYTES_MAX;
    r.token = 2;
    o = group_join(c, &r, 0);
    assert_int_equal(o->answers[0].error, KAFKA_NONE);
    char id[KQ_GROUP_NAME_BYTES_MAX];
    snprintf(id, sizeof(id), "%s", o->answers[0].member_id);
    group_assignment a = {id, big, KQ_GROUP_STORE_ASSIGNMENT_BYTES_MAX + 1};
    o = t_sync(c, "g", id, o->answers[0].generation, 3, &a, 1, 0);
    assert_int_equal(o->answers[0].error, KAFKA_INVALID_REQUEST);
    group_coord_destroy(c);
    /* A budget of a few members. */
    group_config cfg = group_config_default();
    cfg.initial_rebalance_delay_ms = 0;
    cfg.members_per_connection_max = 0;
    cfg.persist_bytes_max = 4 * (KQ_GROUP_STORE_RECORD_FIXED_BYTES + 3 * 256 + 1000);
    c = group_coord_create(&cfg);
    int refused = 0;
    char name[16];
    for (int i = 0; i < 40; i++) {
        snprintf(name, sizeof(name), "g%d", i);
        r = t_join_req(name, "", NULL, (uint64_t)(10 + i), NULL, 0);
        o = group_join(c, &r, 0);
        if (o->answers[0].error == KAFKA_COORDINATOR_NOT_AVAILABLE) {
            refused++;
            if (o->answers[0].limit)
                assert_non_null(strstr(o->answers[0].limit, "KQ_GROUP_STORE_BYTES_MAX"));
        }
    }
    assert_true(refused > 0 && refused < 40);
    group_coord_destroy(c);
    free(big);
}

/* Without persist_bytes_max nothing is marked or taken (the coordinator of
 * the tests before issue 24). */
static void test_off(void **state)
{
    (void)state;
    group_coord *c = t_coord(0, 100);
    const group_output *o = t_join(c, "g", "", 1, 0);
    assert_int_equal(o->answers[0].error, KAFKA_NONE);
    assert_int_equal(group_coord_change_seq(c), 0);
    group_store_batch b;
    group_store_batch_init(&b);
    uint64_t covered;
    bool more;
    assert_false(group_coord_take_changes(c, &b, &covered, &more));
    assert_int_equal(b.count, 0);
    group_store_batch_free(&b);
    group_coord_destroy(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_take_and_restore_stable),
        cmocka_unit_test(test_rebalance_states),
        cmocka_unit_test(test_leave_and_static),
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_off),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
