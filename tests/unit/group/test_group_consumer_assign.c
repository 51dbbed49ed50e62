/* KIP-848 server-side assignors through the coordinator: uniform
 * (homogeneous and heterogeneous, balanced and sticky) and range, with
 * several topics and members, and topic metadata changes. */
#include "consumer_test_util.h"

#define N_MAX 8

/* Heartbeats every client until nothing changes; at every step no
 * partition is in two hands. */
static void settle(group_coord *c, tc_client *m, int n, int64_t *now)
{
    for (int round = 0; round < 20; round++) {
        bool moved = false;
        for (int i = 0; i < n; i++) {
            uint64_t before[TC_TOPICS];
            memcpy(before, m[i].owned, sizeof(before));
            int32_t e = m[i].epoch;
            assert_int_equal(tc_hb(c, "g", &m[i], (*now)++), KAFKA_NONE);
            tc_assert_exclusive(c);
            moved |= e != m[i].epoch || memcmp(before, m[i].owned, sizeof(before)) != 0;
        }
        if (!moved)
            return;
    }
    fail_msg("no settled assignment after 20 rounds");
}

/* Every partition of the subscribed topics is owned exactly once. */
static void assert_covered(const tc_client *m, int n, const char *topics)
{
    for (int t = 0; t < TC_TOPICS; t++) {
        uint64_t all = 0;
        for (int i = 0; i < n; i++) {
            assert_int_equal(all & m[i].owned[t], 0);
            all |= m[i].owned[t];
        }
        bool wanted = strstr(topics, tc_topic(t).name) != NULL;
        uint64_t expect = wanted ? (1ull << tc_topic(t).partition_count) - 1 : 0;
        assert_int_equal(all, expect);
    }
}

static void test_uniform_homogeneous(void **state)
{
    (void)state;
    group_coord *c = tc_coord(0);
    tc_client m[N_MAX];
    int64_t now = 0;
    char id[8];
    for (int i = 0; i < 5; i++) {
        snprintf(id, sizeof(id), "m%d", i);
        tc_init(&m[i], id, "t0,t1,t2");
        assert_int_equal(tc_hb(c, "g", &m[i], now++), KAFKA_NONE);
        settle(c, m, i + 1, &now);
        assert_covered(m, i + 1, "t0,t1,t2");
        int lo = 99, hi = 0; /* 12 partitions: balanced within one */
        for (int k = 0; k <= i; k++) {
            lo = tc_count(&m[k]) < lo ? tc_count(&m[k]) : lo;
            hi = tc_count(&m[k]) > hi ? tc_count(&m[k]) : hi;
        }
        assert_true(hi - lo <= 1);
    }
    /* Sticky: a sixth member takes partitions; nobody else gains any. */
    uint64_t before[5][TC_TOPICS];
    for (int i = 0; i < 5; i++)
        memcpy(before[i], m[i].owned, sizeof(before[i]));
    tc_init(&m[5], "m5", "t0,t1,t2");
    assert_int_equal(tc_hb(c, "g", &m[5], now++), KAFKA_NONE);
    settle(c, m, 6, &now);
    assert_covered(m, 6, "t0,t1,t2");
    assert_int_equal(tc_count(&m[5]), 2);
    for (int i = 0; i < 5; i++)
        for (int t = 0; t < TC_TOPICS; t++)
            assert_int_equal(m[i].owned[t] & ~before[i][t], 0);
    group_coord_destroy(c);
}

static void test_uniform_heterogeneous(void **state)
{
    (void)state;
    group_coord *c = tc_coord(0);
    tc_client m[3];
    int64_t now = 0;
    tc_init(&m[0], "a", "t0");
    tc_init(&m[1], "b", "t0,t1");
    tc_init(&m[2], "c", "t1,t2");
    for (int i = 0; i < 3; i++)
        assert_int_equal(tc_hb(c, "g", &m[i], now++), KAFKA_NONE);
    settle(c, m, 3, &now);
    assert_covered(m, 3, "t0,t1,t2");
    assert_int_equal(m[0].owned[1] | m[0].owned[2], 0); /* only what it subscribes to */
    assert_int_equal(m[1].owned[2], 0);
    assert_int_equal(m[2].owned[0], 0);
    /* 12 partitions: c alone takes t2 (5); a and b share t0 and t1 (7). */
    assert_true(tc_count(&m[0]) >= 3 && tc_count(&m[1]) >= 3);
    /* b drops t1: its partitions move to c. */
    m[1].topics[0] = "t0";
    m[1].topic_count = 1;
    group_consumer_heartbeat_response out;
    tc_hb_full(c, "g", &m[1], now++, true, &out);
    assert_int_equal(out.error, KAFKA_NONE);
    settle(c, m, 3, &now);
    assert_covered(m, 3, "t0,t1,t2");
    assert_int_equal(m[1].owned[1], 0);
    group_coord_destroy(c);
}

static void test_range(void **state)
{
    (void)state;
    group_coord *c = tc_coord(0);
    tc_client m[3];
    int64_t now = 0;
    tc_init(&m[0], "zz", "t0,t1");
    tc_init(&m[1], "aa", "t0,t1");
    tc_init(&m[2], "mm", "t0,t1");
    m[0].instance = "i0"; /* static first */
    for (int i = 0; i < 3; i++) {
        m[i].assignor = "range";
        assert_int_equal(tc_hb(c, "g", &m[i], now++), KAFKA_NONE);
    }
    settle(c, m, 3, &now);
    assert_string_equal(tc_describe(c, "g").assignor_name, "range");
    /* Order zz (static), aa, mm. t0: 3 partitions one each; t1: 4, zz two. */
    assert_int_equal(m[0].owned[0], 1);
    assert_int_equal(m[1].owned[0], 2);
    assert_int_equal(m[2].owned[0], 4);
    assert_int_equal(m[0].owned[1], 3);
    assert_int_equal(m[1].owned[1], 4);
    assert_int_equal(m[2].owned[1], 8);
    group_coord_destroy(c);
}

/* The assignor most members name; ties to the configured order. */
static void test_assignor_choice(void **state)
{
    (void)state;
    group_coord *c = tc_coord(0);
    tc_client m[3];
    int64_t now = 0;
    for (int i = 0; i < 3; i++) {
        char id[4] = {'m', (char)('0' + i), 0};
        tc_init(&m[i], id, "t0");
    }
    m[0].assignor = "range";
    assert_int_equal(tc_hb(c, "g", &m[0], now++), KAFKA_NONE);
    assert_string_equal(tc_describe(c, "g").assignor_name, "range");
    m[1].assignor = "uniform";
    assert_int_equal(tc_hb(c, "g", &m[1], now++), KAFKA_NONE);
    assert_string_equal(tc_describe(c, "g").assignor_name, "uniform"); /* tie */
    m[2].assignor = "range";
    assert_int_equal(tc_hb(c, "g", &m[2], now++), KAFKA_NONE);
    assert_string_equal(tc_describe(c, "g").assignor_name, "range");
    m[0].assignor = "nope";
    assert_int_equal(tc_hb(c, "g", &m[0], now++), KAFKA_UNSUPPORTED_ASSIGNOR);
    group_coord_destroy(c);
}

/* A subscription to a topic that does not exist yet: assigned once the
 * metadata has it (the group epoch bumps at the next heartbeat). */
static void test_topic_appears(void **state)
{
    (void)state;
    group_coord *c = tc_coord(0);
    group_topic one = tc_topic(0);
    assert_true(group_consumer_set_topics(c, &one, 1));
    tc_client a;
    tc_init(&a, "A", "t0,t1");
    assert_int_equal(tc_hb(c, "g", &a, 0), KAFKA_NONE);
    assert_int_equal(tc_count(&a), 3);
    int32_t epoch = tc_describe(c, "g").group_epoch;
    group_topic two[2] = {tc_topic(0), tc_topic(1)};
    assert_true(group_consumer_set_topics(c, two, 2));
    assert_int_equal(tc_hb(c, "g", &a, 1), KAFKA_NONE);
    assert_int_equal(tc_describe(c, "g").group_epoch, epoch + 1);
    assert_int_equal(tc_count(&a), 7);
    group_consumer_member_view v;
    assert_true(group_consumer_member_at(c, "g", 0, &v));
    assert_int_equal(v.assignment_count, 2);
    assert_string_equal(v.assignment[1].topic_name, "t1");
    assert_int_equal(v.subscribed_topic_count, 2);
    /* Too many partitions: refused, nothing changed. */
    group_topic big = {.name = "big", .partition_count = KQ_GROUP_CONSUMER_PARTITIONS_MAX + 1};
    assert_false(group_consumer_set_topics(c, &big, 1));
    assert_int_equal(tc_hb(c, "g", &a, 2), KAFKA_NONE);
    assert_int_equal(tc_count(&a), 7);
    group_coord_destroy(c);
}

static uint64_t rnd(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* One random step of client i: a well-behaved heartbeat, one that keeps
 * what it was told to give up (a slow revocation), a leave, a rejoin, a
 * subscription change, or a tick far enough for timeouts. */
static void random_step(group_coord *c, tc_client *m, int i, uint64_t *x, int64_t *now)
{
    tc_client *k = &m[i];
    static const char *subs[] = {"t0", "t0,t1", "t1,t2", "t0,t1,t2"};
    group_consumer_heartbeat_response out;
    switch (rnd(x) % 8) {
    case 0:
        k->epoch = -1; /* leave */
        tc_hb_full(c, "g", k, (*now)++, false, &out);
        memset(k->owned, 0, sizeof(k->owned));
        k->epoch = 0;
        break;
    case 1: { /* slow: reports what it owned before, ignores the answer */
        uint64_t keep[TC_TOPICS];
        memcpy(keep, k->owned, sizeof(keep));
        tc_hb_full(c, "g", k, (*now)++, false, &out);
        memcpy(k->owned, keep, sizeof(keep));
        break;
    }
    case 2: { /* new subscription */
        char id[KQ_GROUP_NAME_BYTES_MAX];
        snprintf(id, sizeof(id), "%s", k->id);
        int32_t epoch = k->epoch;
        uint64_t owned[TC_TOPICS];
        memcpy(owned, k->owned, sizeof(owned));
        tc_init(k, id, subs[rnd(x) % 4]);
        k->epoch = epoch;
        memcpy(k->owned, owned, sizeof(owned));
        tc_hb_full(c, "g", k, (*now)++, true, &out);
        break;
    }
    case 3:
        *now += 20000; /* timeouts may fire */
        group_tick(c, *now);
        break;
    default:
        tc_hb_full(c, "g", k, (*now)++, false, &out);
        break;
    }
    if (k->error == KAFKA_UNKNOWN_MEMBER_ID || k->error == KAFKA_FENCED_MEMBER_EPOCH) {
        memset(k->owned, 0, sizeof(k->owned)); /* fenced: gives up all, rejoins */
        k->epoch = 0;
    }
}

/* Random members, subscriptions, slow revocations, leaves and timeouts:
 * no partition is ever held by two members; the mutant breaks it. */
static void random_run(uint32_t mutants, uint64_t seed, bool *clash, int *busy)
{
    group_coord *c = tc_coord(mutants);
    tc_client m[6];
    char id[8];
    for (int i = 0; i < 6; i++) {
        snprintf(id, sizeof(id), "r%d", i);
        tc_init(&m[i], id, "t0,t1,t2");
    }
    uint64_t x = seed;
    int64_t now = 0;
    char why[256];
    *clash = false;
    for (int step = 0; step < 3000 && !*clash; step++) {
        random_step(c, m, (int)(rnd(&x) % 6), &x, &now);
        *clash = !group_consumer_check_exclusive(c, why, sizeof(why));
        int held = 0;
        for (int i = 0; i < 6; i++)
            held += tc_count(&m[i]);
        *busy += held >= 6; /* most partitions in use: the run does something */
    }
    group_coord_destroy(c);
}

static void test_random_exclusive(void **state)
{
    (void)state;
    int caught = 0, busy = 0, ignored = 0;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        bool clash;
        random_run(0, seed * 0x9e3779b97f4a7c15ull, &clash, &busy);
        assert_false(clash);
        random_run(KQ_MUTANT_DOUBLE_ASSIGNMENT, seed * 0x9e3779b97f4a7c15ull, &clash, &ignored);
        caught += clash;
    }
    assert_true(busy > 20 * 3000 / 4);
    print_message("double-assignment caught in %d of 20 runs\n", caught);
    assert_true(caught > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uniform_homogeneous),
        cmocka_unit_test(test_uniform_heterogeneous),
        cmocka_unit_test(test_range),
        cmocka_unit_test(test_assignor_choice),
        cmocka_unit_test(test_topic_appears),
        cmocka_unit_test(test_random_exclusive),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
