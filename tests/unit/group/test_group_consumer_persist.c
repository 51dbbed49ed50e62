/* KIP-848 consumer groups' persisted state: the bodies round-trip, a
 * restored coordinator answers the members' next heartbeats without a
 * rebalance, and malformed bodies are refused. */
#include "consumer_test_util.h"
#include "consumer_internal.h"

/* Copies every consumer group of from into a new coordinator, through the
 * encoded bodies. */
static group_coord *copy_through_bodies(const group_coord *from, int64_t now)
{
    group_coord *to = tc_coord(0);
    for (int i = 0; i < from->group_count; i++) {
        const ggroup *g = from->groups[i];
        if (g->type != GROUP_TYPE_CONSUMER)
            continue;
        kq_writer w;
        kq_writer_init(&w, 0);
        assert_true(cg_encode_group(g->cg, &w));
        int32_t ge, ae;
        assert_true(cg_decode_group(w.data, w.len, &ge, &ae));
        ggroup *ng = cg_restore_group(to, g->id, ge, ae);
        assert_non_null(ng);
        for (int j = 0; j < g->cg->member_count; j++) {
            kq_writer_reset(&w);
            const cmember *m = g->cg->members[j];
            assert_true(cg_encode_member(m, &w));
            cmember *nm = cg_decode_member(m->id, w.data, w.len);
            assert_non_null(nm);
            assert_true(cg_restore_member(to, ng, nm, now));
            /* A truncated body is refused. */
            assert_null(cg_decode_member(m->id, w.data, w.len - 1));
        }
        cg_restore_done(to, ng);
        kq_writer_free(&w);
    }
    return to;
}

static void test_failover_keeps_members(void **state)
{
    (void)state;
    group_coord *c = tc_coord(0);
    tc_client a, b;
    tc_init(&a, "A", "t0,t1");
    tc_init(&b, "B", "t0,t1");
    b.instance = "ib";
    assert_int_equal(tc_hb(c, "g", &a, 0), KAFKA_NONE);
    assert_int_equal(tc_hb(c, "g", &b, 1), KAFKA_NONE);
    assert_int_equal(tc_hb(c, "g", &a, 2), KAFKA_NONE); /* A revoking */
    group_consumer_summary before = tc_describe(c, "g");
    group_coord *d = copy_through_bodies(c, 1000);
    group_consumer_summary after = tc_describe(d, "g");
    assert_int_equal(after.group_epoch, before.group_epoch);
    assert_int_equal(after.assignment_epoch, before.assignment_epoch);
    assert_int_equal(after.state, before.state);
    assert_int_equal(after.member_count, 2);
    group_consumer_member_view va, vb;
    assert_true(group_consumer_member_at(d, "g", 0, &va));
    assert_int_equal(va.state, GROUP_MEMBER_UNREVOKED_PARTITIONS);
    assert_true(group_consumer_member_at(d, "g", 1, &vb));
    assert_string_equal(vb.instance_id, "ib");
    /* The members carry on at the new coordinator: no new epoch. */
    assert_int_equal(tc_hb(d, "g", &a, 1001), KAFKA_NONE);
    assert_int_equal(tc_hb(d, "g", &b, 1002), KAFKA_NONE);
    assert_int_equal(tc_hb(d, "g", &a, 1003), KAFKA_NONE);
    assert_int_equal(tc_hb(d, "g", &b, 1004), KAFKA_NONE);
    assert_int_equal(tc_describe(d, "g").group_epoch, before.group_epoch);
    assert_int_equal(tc_describe(d, "g").state, GROUP_CONSUMER_STABLE);
    assert_int_equal(tc_count(&a) + tc_count(&b), 7);
    tc_assert_exclusive(d);
    /* Sessions restart at the restore. */
    assert_int_equal(group_tick(d, 1005)->wake_at_ms, 1003 + 45000);
    group_coord_destroy(c);
    group_coord_destroy(d);
}

static void test_restore_refuses_clashes(void **state)
{
    (void)state;
    group_coord *c = tc_coord(0);
    tc_client a;
    tc_init(&a, "A", "t0");
    assert_int_equal(tc_hb(c, "g", &a, 0), KAFKA_NONE);
    kq_writer w;
    kq_writer_init(&w, 0);
    const cmember *m = c->groups[0]->cg->members[0];
    assert_true(cg_encode_member(m, &w));
    group_coord *d = tc_coord(0);
    ggroup *g = cg_restore_group(d, "g", 1, 1);
    assert_true(cg_restore_member(d, g, cg_decode_member("A", w.data, w.len), 0));
    /* Another member holding the same partitions. */
    assert_false(cg_restore_member(d, g, cg_decode_member("B", w.data, w.len), 0));
    cg_restore_done(d, g);
    assert_int_equal(tc_describe(d, "g").member_count, 1);
    /* Garbage. */
    uint8_t junk[64];
    memset(junk, 0xff, sizeof(junk));
    assert_null(cg_decode_member("X", junk, sizeof(junk)));
    int32_t ge, ae;
    assert_false(cg_decode_group(junk, 3, &ge, &ae));
    kq_writer_free(&w);
    group_coord_destroy(c);
    group_coord_destroy(d);
}

/* Dirty marks: set by persistent changes only, not by a heartbeat that
 * changes nothing. */
static void test_dirty_marks(void **state)
{
    (void)state;
    group_coord *c = tc_coord(0);
    tc_client a, b;
    tc_init(&a, "A", "t0");
    tc_init(&b, "B", "t0");
    assert_int_equal(tc_hb(c, "g", &a, 0), KAFKA_NONE);
    cgroup *cg = c->groups[0]->cg;
    assert_true(cg->dirty && cg->members[0]->dirty);
    cg->dirty = cg->members[0]->dirty = false;
    assert_int_equal(tc_hb(c, "g", &a, 1), KAFKA_NONE);
    assert_false(cg->dirty || cg->members[0]->dirty);
    assert_int_equal(tc_hb(c, "g", &b, 2), KAFKA_NONE); /* B joins: epoch, target */
    assert_true(cg->dirty && cg->members[1]->dirty);
    cg->dirty = cg->members[0]->dirty = cg->members[1]->dirty = false;
    /* Still unreleased: Kafka's updateMemberEpoch moves the previous epoch
     * (0 -> 2) once, then nothing. */
    assert_int_equal(tc_hb(c, "g", &b, 3), KAFKA_NONE);
    cg->dirty = cg->members[1]->dirty = false;
    assert_int_equal(tc_hb(c, "g", &b, 3), KAFKA_NONE);
    assert_false(cg->dirty || cg->members[1]->dirty);
    assert_int_equal(tc_hb(c, "g", &a, 4), KAFKA_NONE); /* A told to revoke */
    assert_true(cg->members[0]->dirty);
    cg->dirty = cg->members[0]->dirty = false;
    assert_int_equal(tc_hb(c, "g", &a, 5), KAFKA_NONE); /* A revoked: epoch 2 */
    assert_true(cg->members[0]->dirty);
    b.epoch = -1;
    assert_int_equal(tc_hb(c, "g", &b, 6), KAFKA_NONE);
    assert_int_equal(cg->gone_count, 1);
    assert_string_equal(cg->gone[0], "B");
    group_coord_destroy(c);
}

static group_coord *budget_coord(uint64_t max)
{
    group_config cfg = group_config_default();
    cfg.members_per_connection_max = 0;
    cfg.initial_rebalance_delay_ms = 0;
    cfg.persist_bytes_max = max;
    group_coord *c = group_coord_create(&cfg);
    group_topic t = tc_topic(0);
    group_consumer_set_topics(c, &t, 1);
    return c;
}

/* Consumer members count in the group store's budget: a join past it is
 * refused; charges leave with the members, and a classic group's with its
 * upgrade. */
static void test_store_budget(void **state)
{
    (void)state;
    group_coord *c = budget_coord(KQ_GROUP_STORE_BYTES_MAX);
    tc_client a, b;
    tc_init(&a, "A", "t0");
    tc_init(&b, "B", "t0");
    assert_int_equal(tc_hb(c, "g", &a, 0), KAFKA_NONE);
    uint64_t one = c->persist_bytes;
    assert_true(one > KQ_GROUP_STORE_RECORD_FIXED_BYTES);
    assert_int_equal(tc_hb(c, "g", &b, 1), KAFKA_NONE);
    assert_true(c->persist_bytes > one);
    b.epoch = -1;
    assert_int_equal(tc_hb(c, "g", &b, 2), KAFKA_NONE);
    assert_int_equal(c->persist_bytes, one);
    a.epoch = -1;
    assert_int_equal(tc_hb(c, "g", &a, 3), KAFKA_NONE);
    uint64_t empty = c->persist_bytes; /* the group's own charge */
    assert_true(empty < one);
    group_coord_destroy(c);

    /* A classic group upgraded: its classic charges go with it. */
    c = budget_coord(KQ_GROUP_STORE_BYTES_MAX);
    static const uint8_t meta[] = {0, 0, 0, 0, 0, 1, 0, 2, 't', '0', 0xff, 0xff, 0xff, 0xff};
    static const uint8_t all[] = {0, 0, 0, 0, 0, 1, 0, 2, 't', '0', 0, 0, 0, 1,
                                  0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
    group_protocol p = {"range", meta, sizeof(meta)};
    group_join_request j = {
        .token = 1, .group_id = "g", .member_id = "", .client_id = "x", .client_host = "/h",
        .protocol_type = "consumer", .protocols = &p, .protocol_count = 1,
        .session_timeout_ms = 10000, .rebalance_timeout_ms = 10000,
    };
    const group_output *o = group_join(c, &j, 0);
    char id[KQ_GROUP_NAME_BYTES_MAX];
    strcpy(id, o->answers[0].member_id);
    group_assignment as = {id, all, sizeof(all)};
    group_sync_request sr = {.token = 2, .group_id = "g", .member_id = id, .generation = 1,
                             .assignments = &as, .assignment_count = 1};
    assert_int_equal(group_sync(c, &sr, 1)->answers[0].error, KAFKA_NONE);
    tc_init(&a, "A", "t0");
    assert_int_equal(tc_hb(c, "g", &a, 2), KAFKA_NONE); /* the upgrade */
    group_leave_member lm = {.member_id = id};
    assert_int_equal(group_leave(c, "g", &lm, 1, 3, &o), KAFKA_NONE);
    assert_int_equal(lm.error, KAFKA_NONE);
    a.epoch = -1;
    assert_int_equal(tc_hb(c, "g", &a, 4), KAFKA_NONE);
    assert_int_equal(c->persist_bytes, empty);
    group_coord_destroy(c);

    c = budget_coord(one + 10); /* room for one member */
    tc_init(&a, "A", "t0");
    tc_init(&b, "B", "t0");
    assert_int_equal(tc_hb(c, "g", &a, 0), KAFKA_NONE);
    group_consumer_heartbeat_response out;
    tc_hb_full(c, "g", &b, 1, false, &out);
    assert_int_equal(out.error, KAFKA_COORDINATOR_NOT_AVAILABLE);
    assert_non_null(out.limit);
    group_coord_destroy(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_failover_keeps_members),
        cmocka_unit_test(test_restore_refuses_clashes),
        cmocka_unit_test(test_dirty_marks),
        cmocka_unit_test(test_store_budget),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
