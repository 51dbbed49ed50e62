/* Classic and consumer members in one group (KIP-848 online migration):
 * the upgrade of a classic group when a consumer-protocol member joins,
 * classic members reconciled through JoinGroup/SyncGroup/Heartbeat, the
 * downgrade when the last consumer-protocol member leaves, and the
 * migration policy. */
#include "consumer_test_util.h"
#include "kq/buf.h"

/* ConsumerProtocolSubscription v1 for t0 with owned partitions (bit set). */
static size_t subscription(uint8_t *out, size_t cap, uint64_t owned)
{
    kq_writer w;
    kq_writer_init(&w, 0);
    kq_write_i16(&w, 1);
    kq_write_array_len(&w, 1);
    kq_write_cstring(&w, "t0");
    kq_write_bytes(&w, (kq_slice){NULL, -1});
    kq_write_array_len(&w, owned ? 1 : 0);
    if (owned) {
        kq_write_cstring(&w, "t0");
        kq_write_array_len(&w, __builtin_popcountll(owned));
        for (int p = 0; p < 64; p++)
            if (owned >> p & 1)
                kq_write_i32(&w, p);
    }
    assert_true(w.len <= cap);
    memcpy(out, w.data, w.len);
    size_t n = w.len;
    kq_writer_free(&w);
    return n;
}

/* The partitions of t0 in a ConsumerProtocolAssignment, as a bit set. */
static uint64_t assigned_t0(const uint8_t *p, size_t n)
{
    kq_reader r;
    kq_reader_init(&r, p, n);
    assert_true(kq_read_i16(&r) >= 0);
    uint64_t bits = 0;
    for (int32_t t = kq_read_array_len(&r); t > 0; t--) {
        kq_slice name = kq_read_string(&r);
        for (int32_t k = kq_read_array_len(&r); k > 0; k--) {
            int32_t part = kq_read_i32(&r);
            if (kq_slice_eq_cstr(name, "t0"))
                bits |= 1ull << part;
        }
    }
    assert_false(r.error);
    return bits;
}

typedef struct classic {
    char id[KQ_GROUP_NAME_BYTES_MAX];
    int32_t generation;
    uint64_t owned;
    uint8_t meta[256];
    size_t meta_len;
} classic;

static const group_answer *join(group_coord *c, classic *k, uint64_t token, int64_t now)
{
    k->meta_len = subscription(k->meta, sizeof(k->meta), k->owned);
    group_protocol p = {"range", k->meta, k->meta_len};
    group_join_request r = {
        .token = token, .group_id = "g", .member_id = k->id, .client_id = "old",
        .client_host = "/h", .protocol_type = "consumer", .protocols = &p, .protocol_count = 1,
        .session_timeout_ms = 10000, .rebalance_timeout_ms = 20000,
    };
    const group_output *o = group_join(c, &r, now);
    for (int i = 0; i < o->answer_count; i++)
        if (o->answers[i].token == token) {
            if (o->answers[i].error == KAFKA_NONE) {
                strcpy(k->id, o->answers[i].member_id);
                k->generation = o->answers[i].generation;
            }
            return &o->answers[i];
        }
    return NULL;
}

static const group_answer *sync(group_coord *c, classic *k, uint64_t token, int64_t now,
                                const group_assignment *as, int n)
{
    group_sync_request r = {
        .token = token, .group_id = "g", .member_id = k->id, .generation = k->generation,
        .protocol_type = "consumer", .protocol_name = "range", .assignments = as,
        .assignment_count = n,
    };
    const group_output *o = group_sync(c, &r, now);
    for (int i = 0; i < o->answer_count; i++)
        if (o->answers[i].token == token) {
            if (o->answers[i].error == KAFKA_NONE)
                k->owned = assigned_t0(o->answers[i].assignment, o->answers[i].assignment_len);
            return &o->answers[i];
        }
    return NULL;
}

static group_coord *coord(enum group_migration_policy policy)
{
    group_config cfg = group_config_default();
    cfg.members_per_connection_max = 0;
    cfg.initial_rebalance_delay_ms = 0;
    cfg.consumer_migration_policy = policy;
    group_coord *c = group_coord_create(&cfg);
    group_topic t = tc_topic(0);
    group_consumer_set_topics(c, &t, 1);
    return c;
}

/* A classic group: A alone, Stable, owning t0's three partitions. */
static void classic_group(group_coord *c, classic *a)
{
    memset(a, 0, sizeof(*a));
    const group_answer *j = join(c, a, 1, 0);
    assert_non_null(j);
    assert_int_equal(j->error, KAFKA_NONE);
    assert_true(j->is_leader);
    static const uint8_t all[] = {0, 1, 0, 0, 0, 1, 0, 2, 't', '0', 0, 0, 0, 3,
                                  0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0xff, 0xff, 0xff, 0xff};
    group_assignment as = {a->id, all, sizeof(all)};
    const group_answer *s = sync(c, a, 2, 1, &as, 1);
    assert_int_equal(s->error, KAFKA_NONE);
    assert_int_equal(a->owned, 7);
}

static void test_upgrade_and_reconcile(void **state)
{
    (void)state;
    group_coord *c = coord(GROUP_MIGRATION_BIDIRECTIONAL);
    classic a;
    classic_group(c, &a);
    tc_client b;
    tc_init(&b, "B", "t0");
    assert_int_equal(tc_hb(c, "g", &b, 10), KAFKA_NONE); /* upgrade */
    group_consumer_summary s = tc_describe(c, "g");
    assert_int_equal(s.member_count, 2);
    assert_int_equal(s.group_epoch, 2);
    assert_int_equal(tc_count(&b), 0); /* A holds them */
    group_consumer_member_view v;
    assert_true(group_consumer_member_at(c, "g", 0, &v));
    assert_int_equal(v.member_type, 0);
    assert_int_equal(v.member_epoch, 1);
    tc_assert_exclusive(c);
    /* A is told to rejoin, rejoins still owning all: it must revoke. */
    assert_int_equal(group_heartbeat(c, "g", a.id, NULL, 1, 20), KAFKA_REBALANCE_IN_PROGRESS);
    const group_answer *j = join(c, &a, 3, 30);
    assert_int_equal(j->error, KAFKA_NONE);
    assert_int_equal(j->generation, 1);
    assert_string_equal(j->protocol_name, "range");
    assert_false(j->is_leader);
    assert_int_equal(sync(c, &a, 4, 31, NULL, 0)->error, KAFKA_NONE);
    assert_int_equal(__builtin_popcountll(a.owned), 2);
    tc_assert_exclusive(c);
    assert_int_equal(group_heartbeat(c, "g", a.id, NULL, 1, 32), KAFKA_REBALANCE_IN_PROGRESS);
    j = join(c, &a, 5, 40); /* owns two now: epoch 2 */
    assert_int_equal(j->generation, 2);
    assert_int_equal(sync(c, &a, 6, 41, NULL, 0)->error, KAFKA_NONE);
    assert_int_equal(group_heartbeat(c, "g", a.id, NULL, 2, 42), KAFKA_NONE);
    assert_int_equal(tc_hb(c, "g", &b, 50), KAFKA_NONE);
    assert_int_equal(tc_count(&b), 1);
    assert_int_equal(a.owned & b.owned[0], 0);
    assert_int_equal(tc_describe(c, "g").state, GROUP_CONSUMER_STABLE);
    /* Commits: the classic member's generation is its member epoch. */
    bool exists;
    assert_int_equal(group_validate_offset_commit(c, "g", a.id, NULL, 2, &exists), KAFKA_NONE);
    assert_int_equal(group_validate_offset_commit(c, "g", a.id, NULL, 1, &exists),
                     KAFKA_ILLEGAL_GENERATION);
    /* B leaves: only a classic member is left, the group goes back to classic. */
    b.epoch = -1;
    assert_int_equal(tc_hb(c, "g", &b, 60), KAFKA_NONE);
    enum group_type type;
    assert_true(group_type_of(c, "g", &type));
    assert_int_equal(type, GROUP_TYPE_CLASSIC);
    group_summary gs;
    assert_int_equal(group_describe(c, "g", &gs), KAFKA_NONE);
    assert_int_equal(gs.state, GROUP_PREPARING_REBALANCE);
    assert_int_equal(gs.generation, 2); /* the group epoch */
    assert_int_equal(group_heartbeat(c, "g", a.id, NULL, 2, 61), KAFKA_REBALANCE_IN_PROGRESS);
    j = join(c, &a, 7, 62);
    assert_int_equal(j->error, KAFKA_NONE);
    assert_int_equal(j->generation, 3);
    assert_true(j->is_leader);
    group_coord_destroy(c);
}

static void test_policy_disabled(void **state)
{
    (void)state;
    group_coord *c = coord(GROUP_MIGRATION_DOWNGRADE);
    classic a;
    classic_group(c, &a);
    tc_client b;
    tc_init(&b, "B", "t0");
    assert_int_equal(tc_hb(c, "g", &b, 10), KAFKA_GROUP_ID_NOT_FOUND);
    enum group_type type;
    assert_true(group_type_of(c, "g", &type));
    assert_int_equal(type, GROUP_TYPE_CLASSIC);
    group_coord_destroy(c);
}

/* Classic joins to a consumer group: protocol checks, MEMBER_ID_REQUIRED,
 * unknown members, LeaveGroup. */
static void test_classic_joins(void **state)
{
    (void)state;
    group_coord *c = coord(GROUP_MIGRATION_BIDIRECTIONAL);
    tc_client b;
    tc_init(&b, "B", "t0");
    assert_int_equal(tc_hb(c, "g", &b, 0), KAFKA_NONE);
    classic a;
    memset(&a, 0, sizeof(a));
    a.meta_len = subscription(a.meta, sizeof(a.meta), 0);
    group_protocol p = {"range", a.meta, a.meta_len};
    group_join_request r = {
        .token = 1, .group_id = "g", .member_id = "", .client_id = "old", .client_host = "/h",
        .protocol_type = "other", .protocols = &p, .protocol_count = 1,
        .session_timeout_ms = 10000, .rebalance_timeout_ms = 20000,
        .require_known_member_id = true,
    };
    const group_output *o = group_join(c, &r, 1);
    assert_int_equal(o->answers[0].error, KAFKA_INCONSISTENT_GROUP_PROTOCOL);
    r.protocol_type = "consumer";
    o = group_join(c, &r, 2);
    assert_int_equal(o->answers[0].error, KAFKA_MEMBER_ID_REQUIRED);
    strcpy(a.id, o->answers[0].member_id);
    assert_int_equal(tc_describe(c, "g").member_count, 1); /* not a member yet */
    const group_answer *j = join(c, &a, 2, 3);
    assert_int_equal(j->error, KAFKA_NONE);
    assert_int_equal(tc_describe(c, "g").member_count, 2);
    /* Malformed subscription. */
    uint8_t junk[] = {0, 1, 0x7f};
    group_protocol bad = {"range", junk, sizeof(junk)};
    r.protocols = &bad;
    r.member_id = "";
    r.require_known_member_id = false;
    o = group_join(c, &r, 4);
    assert_int_equal(o->answers[0].error, KAFKA_UNKNOWN_SERVER_ERROR);
    /* Heartbeat/Sync of unknown or consumer-protocol members. */
    assert_int_equal(group_heartbeat(c, "g", "nobody", NULL, 1, 5), KAFKA_UNKNOWN_MEMBER_ID);
    assert_int_equal(group_heartbeat(c, "g", "B", NULL, 1, 5), KAFKA_UNKNOWN_MEMBER_ID);
    assert_int_equal(group_heartbeat(c, "g", a.id, NULL, a.generation + 1, 5),
                     KAFKA_ILLEGAL_GENERATION);
    /* A classic member may switch to the consumer protocol (same id). */
    tc_client a2;
    tc_init(&a2, a.id, "t0");
    assert_int_equal(tc_hb(c, "g", &a2, 5), KAFKA_NONE);
    group_consumer_member_view v;
    assert_true(group_consumer_member_at(c, "g", 1, &v));
    assert_string_equal(v.member_id, a.id);
    assert_int_equal(v.member_type, 1);
    assert_int_equal(group_heartbeat(c, "g", a.id, NULL, a2.epoch, 5), KAFKA_UNKNOWN_MEMBER_ID);
    /* ... and back: a classic JoinGroup of that id makes it classic again. */
    assert_int_equal(join(c, &a, 3, 5)->error, KAFKA_NONE);
    assert_true(group_consumer_member_at(c, "g", 1, &v));
    assert_int_equal(v.member_type, 0);
    /* LeaveGroup: the classic member goes, the consumer one is not classic. */
    group_leave_member lm[2] = {{.member_id = a.id}, {.member_id = "B"}};
    const group_output *out;
    assert_int_equal(group_leave(c, "g", lm, 2, 6, &out), KAFKA_NONE);
    assert_int_equal(lm[0].error, KAFKA_NONE);
    assert_int_equal(lm[1].error, KAFKA_UNKNOWN_MEMBER_ID);
    assert_int_equal(tc_describe(c, "g").member_count, 1);
    tc_assert_exclusive(c);
    group_coord_destroy(c);
}

/* A classic member that is told to rejoin and does not is fenced after its
 * rebalance timeout; one that joins but never syncs likewise. */
static void test_classic_timeouts(void **state)
{
    (void)state;
    group_coord *c = coord(GROUP_MIGRATION_BIDIRECTIONAL);
    classic a;
    classic_group(c, &a);
    tc_client b;
    tc_init(&b, "B", "t0");
    assert_int_equal(tc_hb(c, "g", &b, 10), KAFKA_NONE);
    assert_int_equal(group_heartbeat(c, "g", a.id, NULL, 1, 100), KAFKA_REBALANCE_IN_PROGRESS);
    assert_int_equal(group_heartbeat(c, "g", a.id, NULL, 1, 9000), KAFKA_REBALANCE_IN_PROGRESS);
    assert_int_equal(group_heartbeat(c, "g", a.id, NULL, 1, 18000), KAFKA_REBALANCE_IN_PROGRESS);
    group_tick(c, 20099);
    assert_int_equal(tc_describe(c, "g").member_count, 2);
    group_tick(c, 20100); /* 100 + the rebalance timeout */
    assert_int_equal(tc_describe(c, "g").member_count, 1);
    assert_int_equal(tc_hb(c, "g", &b, 20101), KAFKA_NONE);
    assert_int_equal(tc_count(&b), 3);
    group_coord_destroy(c);
}

/* The last consumer-protocol member is a static member, replaced by a
 * classic consumer of the same instance id: the group goes back to
 * classic at once, Stable, the new member with the old one's target. */
static void test_static_replaced_by_classic(void **state)
{
    (void)state;
    group_coord *c = coord(GROUP_MIGRATION_BIDIRECTIONAL);
    classic a;
    classic_group(c, &a);
    tc_client s;
    tc_init(&s, "S", "t0");
    s.instance = "is";
    assert_int_equal(tc_hb(c, "g", &s, 10), KAFKA_NONE);
    group_consumer_member_view v;
    assert_true(group_consumer_member_at(c, "g", 1, &v));
    assert_int_equal(v.target_assignment_count, 1);
    uint64_t s_target = 0;
    for (int i = 0; i < v.target_assignment[0].partition_count; i++)
        s_target |= 1ull << v.target_assignment[0].partitions[i];
    classic k;
    memset(&k, 0, sizeof(k));
    k.meta_len = subscription(k.meta, sizeof(k.meta), 0);
    group_protocol p = {"range", k.meta, k.meta_len};
    group_join_request r = {
        .token = 9, .group_id = "g", .member_id = "", .instance_id = "is", .client_id = "old",
        .client_host = "/h", .protocol_type = "consumer", .protocols = &p, .protocol_count = 1,
        .session_timeout_ms = 10000, .rebalance_timeout_ms = 20000,
    };
    const group_output *o = group_join(c, &r, 20);
    assert_int_equal(o->answer_count, 1);
    assert_int_equal(o->answers[0].error, KAFKA_NONE);
    strcpy(k.id, o->answers[0].member_id);
    k.generation = o->answers[0].generation;
    enum group_type type;
    assert_true(group_type_of(c, "g", &type));
    assert_int_equal(type, GROUP_TYPE_CLASSIC);
    group_summary gs;
    assert_int_equal(group_describe(c, "g", &gs), KAFKA_NONE);
    assert_int_equal(gs.state, GROUP_STABLE);
    assert_int_equal(gs.member_count, 2);
    assert_int_equal(gs.generation, k.generation);
    assert_int_equal(sync(c, &k, 10, 21, NULL, 0)->error, KAFKA_NONE);
    assert_int_equal(k.owned, s_target);
    group_coord_destroy(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_upgrade_and_reconcile),
        cmocka_unit_test(test_policy_disabled),
        cmocka_unit_test(test_classic_joins),
        cmocka_unit_test(test_classic_timeouts),
        cmocka_unit_test(test_static_replaced_by_classic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
