#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "kq/conn_limits.h"
#include "kq/mutants.h"

static kq_conn_addr ip(const char *s)
{
    kq_conn_addr a;
    assert_true(kq_conn_addr_parse(&a, s, strlen(s)));
    return a;
}

static void test_addr_parse(void **state)
{
    (void)state;
    kq_conn_addr a, b;
    assert_true(kq_conn_addr_parse(&a, "127.0.0.2", 9));
    assert_int_equal(a.family, 4);
    assert_true(kq_conn_addr_parse(&b, "[::ffff:127.0.0.2]", 18));
    assert_true(kq_conn_addr_equal(&a, &b)); /* v4-mapped counts as v4 */
    assert_true(kq_conn_addr_parse(&b, "::1", 3));
    assert_int_equal(b.family, 6);
    assert_false(kq_conn_addr_parse(&b, "localhost", 9));
    assert_false(kq_conn_addr_parse(&b, "", 0));
    assert_false(kq_conn_addr_parse(&b, "1.2.3.4.5", 9));
    struct sockaddr_in sin = {.sin_family = AF_INET};
    inet_pton(AF_INET, "127.0.0.2", &sin.sin_addr);
    kq_conn_addr_from_sockaddr(&b, (struct sockaddr *)&sin);
    assert_true(kq_conn_addr_equal(&a, &b));
}

static void test_total_and_per_ip(void **state)
{
    (void)state;
    kq_conn_pool p;
    kq_conn_pool_init(&p, &(kq_conn_pool_config){.max_connections = 5, .max_per_ip = 3});
    kq_conn_addr a = ip("127.0.0.1"), b = ip("127.0.0.2");
    for (int i = 0; i < 3; i++)
        assert_int_equal(kq_conn_pool_admit(&p, &a), KQ_CONN_ADMIT);
    assert_int_equal(kq_conn_pool_admit(&p, &a), KQ_CONN_REFUSE_PER_IP);
    assert_int_equal(kq_conn_pool_admit(&p, &b), KQ_CONN_ADMIT);
    assert_int_equal(kq_conn_pool_admit(&p, &b), KQ_CONN_ADMIT);
    assert_int_equal(kq_conn_pool_admit(&p, &b), KQ_CONN_REFUSE_TOTAL);
    assert_int_equal(p.refused_per_ip, 1);
    assert_int_equal(p.refused_total, 1);
    kq_conn_pool_release(&p, &a);
    assert_int_equal(kq_conn_pool_admit(&p, &b), KQ_CONN_ADMIT);
    assert_int_equal(p.open, 5);
    assert_int_equal(kq_addr_counts_get(&p.per_ip, &b), 3);
    assert_int_equal(kq_addr_counts_get(&p.per_ip, &a), 2);
    kq_conn_pool_free(&p);
}

static void test_overrides(void **state)
{
    (void)state;
    kq_conn_ip_override o[2] = {{ip("10.0.0.1"), 0}, {ip("10.0.0.2"), 10}};
    kq_conn_pool p;
    kq_conn_pool_init(&p, &(kq_conn_pool_config){.max_connections = 100, .max_per_ip = 2,
                                                  .overrides = o, .override_count = 2});
    kq_conn_addr a = ip("10.0.0.1"), b = ip("10.0.0.2"), c = ip("10.0.0.3");
    assert_int_equal(kq_conn_pool_admit(&p, &a), KQ_CONN_REFUSE_PER_IP); /* 0: none */
    for (int i = 0; i < 10; i++)
        assert_int_equal(kq_conn_pool_admit(&p, &b), KQ_CONN_ADMIT);
    assert_int_equal(kq_conn_pool_admit(&p, &b), KQ_CONN_REFUSE_PER_IP);
    assert_int_equal(kq_conn_pool_admit(&p, &c), KQ_CONN_ADMIT);
    assert_int_equal(kq_conn_pool_admit(&p, &c), KQ_CONN_ADMIT);
    assert_int_equal(kq_conn_pool_admit(&p, &c), KQ_CONN_REFUSE_PER_IP);
    kq_conn_pool_free(&p);
}

/* Many addresses in and out: the table keeps exact counts through growth
 * and backward-shift deletion, and empties completely. */
static void test_table_churn(void **state)
{
    (void)state;
    kq_addr_counts t = {0};
    enum { N = 5000 };
    kq_conn_addr addrs[N];
    for (int i = 0; i < N; i++) {
        char s[32];
        snprintf(s, sizeof s, "10.%d.%d.%d", i / 65536, (i / 256) % 256, i % 256);
        addrs[i] = ip(s);
        for (int k = 0; k <= i % 3; k++)
            assert_true(kq_addr_counts_add(&t, &addrs[i]));
    }
    assert_int_equal(t.used, N);
    for (int i = 0; i < N; i += 2) {
        for (int k = 0; k <= i % 3; k++)
            kq_addr_counts_remove(&t, &addrs[i]);
    }
    for (int i = 0; i < N; i++)
        assert_int_equal(kq_addr_counts_get(&t, &addrs[i]), i % 2 ? (uint32_t)(i % 3 + 1) : 0u);
    for (int i = 1; i < N; i += 2)
        for (int k = 0; k <= i % 3; k++)
            kq_addr_counts_remove(&t, &addrs[i]);
    assert_int_equal(t.used, 0);
    for (uint32_t i = 0; i < t.cap; i++)
        assert_int_equal(t.slots[i].count, 0);
    kq_addr_counts_free(&t);
}

static void test_budget(void **state)
{
    (void)state;
    assert_int_equal(kq_conn_client_budget(1024, true),
                     1024 - KQ_FD_RESERVE - KQ_CONTROLLER_CONNECTIONS_MAX);
    assert_int_equal(kq_conn_client_budget(1024, false), 1024 - KQ_FD_RESERVE);
    assert_int_equal(kq_conn_client_budget(KQ_FD_RESERVE, false), 0);
    assert_int_equal(kq_conn_client_budget(1ull << 40, false), KQ_MAX_CONNECTIONS_LIMIT);
    assert_int_equal(kq_conn_effective_max(-1, 700), 700);
    assert_int_equal(kq_conn_effective_max(100, 700), 100);
    assert_int_equal(kq_conn_effective_max(100000, 700), 700);
}

/* The daemon's pools (kq_conn_pools_init, also the simulator's). */
static void test_pools(void **state)
{
    (void)state;
    assert_int_equal(kq_conn_per_ip_effective(-1, 16),
                     16 * KQ_MAX_CONNECTIONS_PER_IP_DEFAULT_QUARTERS / 4);
    assert_int_equal(kq_conn_per_ip_effective(-1, 1), 1);
    assert_int_equal(kq_conn_per_ip_effective(5, 16), 5);
    assert_int_equal(kq_conn_per_ip_effective(0, 16), 0);
    assert_int_equal(kq_conn_per_ip_effective(100, 16), 16);
    kq_conn_ip_override o = {.addr = ip("10.0.0.9"), .max = 2};
    kq_conn_pool clients, controller;
    kq_conn_pools_init(&clients, &controller,
                       &(kq_conn_pools_config){.max_connections = 40,
                                               .max_connections_per_ip = -1,
                                               .overrides = &o,
                                               .override_count = 1});
    assert_int_equal(clients.max_connections, 40);
    assert_int_equal(clients.max_per_ip, 30);
    assert_true(clients.evict);
    assert_int_equal(clients.mutants, 0);
    kq_conn_addr a = ip("10.0.0.9");
    assert_int_equal(kq_conn_pool_ip_limit(&clients, &a), 2);
    assert_int_equal(controller.max_connections, KQ_CONTROLLER_CONNECTIONS_MAX);
    assert_int_equal(controller.max_per_ip, KQ_CONTROLLER_CONNECTIONS_PER_IP_MAX);
    assert_false(controller.evict);
    assert_int_equal(controller.override_count, 0);
    assert_ptr_equal(kq_conn_pool_of_listener(&clients, &controller, true, true), &controller);
    assert_ptr_equal(kq_conn_pool_of_listener(&clients, &controller, true, false), &clients);
    assert_ptr_equal(kq_conn_pool_of_listener(&clients, &controller, false, true), &clients);
    controller.mutants = KQ_MUTANT_CONN_PEERS_IN_CLIENT_POOL;
    assert_ptr_equal(kq_conn_pool_of_listener(&clients, &controller, true, true), &clients);
    kq_conn_pool_free(&clients);
    kq_conn_pool_free(&controller);
}

typedef struct tmember {
    kq_conn_member m;
} tmember;

static bool always_evictable(kq_conn_member *m)
{
    (void)m;
    return true;
}

/* KQ_MUTANT_CONN_NO_EVICT: the full pool refuses where it would evict. */
static void test_no_evict_mutant(void **state)
{
    (void)state;
    for (int mutant = 0; mutant < 2; mutant++) {
        kq_conn_pool p;
        kq_conn_pool_init(&p, &(kq_conn_pool_config){
                                  .max_connections = 4, .max_per_ip = 4, .evict = true,
                                  .mutants = mutant ? KQ_MUTANT_CONN_NO_EVICT : 0});
        tmember flood[4] = {0}, other = {0};
        kq_conn_addr f = ip("10.0.2.1"), b = ip("10.0.1.1");
        kq_conn_member *v = NULL;
        for (int i = 0; i < 4; i++)
            assert_int_equal(kq_conn_pool_admit_member(&p, &f, &flood[i].m, always_evictable, &v),
                             KQ_CONN_ADMIT);
        kq_conn_verdict r = kq_conn_pool_admit_member(&p, &b, &other.m, always_evictable, &v);
        if (mutant) {
            assert_int_equal(r, KQ_CONN_REFUSE_TOTAL);
            assert_null(v);
            assert_int_equal(p.evicted, 0);
        } else {
            assert_int_equal(r, KQ_CONN_ADMIT);
            assert_ptr_equal(v, &flood[0].m); /* the oldest fresh one */
            assert_int_equal(p.evicted, 1);
        }
        kq_conn_pool_free(&p);
    }
}

/* kq_conn_pool_keep_member (issue 19, a shared listener's quorum peers):
 * a kept member is never the victim, yet stays counted in the pool and its
 * address until released. */
static void test_keep_member(void **state)
{
    (void)state;
    kq_conn_pool p;
    kq_conn_pool_init(&p, &(kq_conn_pool_config){.max_connections = 4, .max_per_ip = 4,
                                                 .evict = true});
    tmember heavy[4] = {0}, other = {0}, late = {0};
    kq_conn_addr f = ip("10.0.2.1"), b = ip("10.0.1.1"), c = ip("10.0.3.1");
    kq_conn_member *v = NULL;
    for (int i = 0; i < 4; i++)
        assert_int_equal(kq_conn_pool_admit_member(&p, &f, &heavy[i].m, always_evictable, &v),
                         KQ_CONN_ADMIT);
    /* The three oldest are kept (twice: idempotent): the newest is the victim. */
    for (int i = 0; i < 3; i++) {
        kq_conn_pool_keep_member(&p, &heavy[i].m);
        kq_conn_pool_keep_member(&p, &heavy[i].m);
    }
    assert_int_equal(p.open, 4);
    assert_int_equal(kq_addr_counts_get(&p.per_ip, &f), 4);
    assert_int_equal(kq_conn_pool_admit_member(&p, &b, &other.m, always_evictable, &v),
                     KQ_CONN_ADMIT);
    assert_ptr_equal(v, &heavy[3].m);
    assert_int_equal(p.open, 4);
    assert_int_equal(kq_addr_counts_get(&p.per_ip, &f), 3);
    /* Full again: the only evictable member left is b's. Kept too, none is
     * left and the newcomer is refused. */
    kq_conn_pool_keep_member(&p, &other.m);
    assert_int_equal(kq_conn_pool_admit_member(&p, &c, &late.m, always_evictable, &v),
                     KQ_CONN_REFUSE_TOTAL);
    assert_null(v);
    /* Released as any member. */
    for (int i = 0; i < 3; i++)
        kq_conn_pool_release_member(&p, &f, &heavy[i].m);
    kq_conn_pool_release_member(&p, &b, &other.m);
    assert_int_equal(p.open, 0);
    assert_int_equal(kq_addr_counts_get(&p.per_ip, &f), 0);
    kq_conn_pool_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_addr_parse),
        cmocka_unit_test(test_total_and_per_ip),
        cmocka_unit_test(test_overrides),
        cmocka_unit_test(test_table_churn),
        cmocka_unit_test(test_budget),
        cmocka_unit_test(test_pools),
        cmocka_unit_test(test_no_evict_mutant),
        cmocka_unit_test(test_keep_member),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
