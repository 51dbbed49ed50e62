/* The eviction index and a pool that evicts (kq/conn_evict.h): a full pool
 * admits a lighter address by closing the heaviest address's idlest
 * connection (fresh ones first, busy ones never); an address never evicts
 * its own; the heaviest address stays right through churn of many
 * addresses. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/conn_evict.h"
#include "kq/conn_limits.h"

typedef struct tconn {
    kq_conn_member m;
    kq_conn_addr addr;
    bool busy;
    bool open;
} tconn;

static bool tconn_evictable(kq_conn_member *m)
{
    return !((tconn *)m)->busy; /* m is the first member */
}

static kq_conn_addr ip(const char *s)
{
    kq_conn_addr a;
    assert_true(kq_conn_addr_parse(&a, s, strlen(s)));
    return a;
}

static kq_conn_verdict admit(kq_conn_pool *p, tconn *c, const char *addr, tconn **evicted)
{
    c->addr = ip(addr);
    kq_conn_member *v = NULL;
    kq_conn_verdict r = kq_conn_pool_admit_member(p, &c->addr, &c->m, tconn_evictable, &v);
    *evicted = (tconn *)v;
    if (v)
        ((tconn *)v)->open = false; /* released by the pool */
    c->open = r == KQ_CONN_ADMIT;
    return r;
}

static void release(kq_conn_pool *p, tconn *c)
{
    assert_true(c->open);
    kq_conn_pool_release_member(p, &c->addr, &c->m);
    c->open = false;
}

/* Four from A (two answered a request, two never did), then B: the oldest
 * fresh one of A goes first, then the other fresh one, then the least
 * recently active used one; busy ones are skipped; B never evicts once it
 * holds as many as A. */
static void test_idlest_of_heaviest(void **state)
{
    (void)state;
    kq_conn_pool p;
    kq_conn_pool_init(&p, &(kq_conn_pool_config){.max_connections = 6, .max_per_ip = 6,
                                                 .evict = true});
    tconn a[6] = {0}, b[4] = {0}, *v;
    for (int i = 0; i < 6; i++)
        assert_int_equal(admit(&p, &a[i], "10.0.0.1", &v), KQ_CONN_ADMIT);
    kq_conn_evict_touch(&a[0].m, true);
    kq_conn_evict_touch(&a[1].m, true);
    kq_conn_evict_touch(&a[0].m, false); /* a[0] most recent of the used */
    a[2].busy = true;
    kq_conn_evict_touch(&a[4].m, false); /* fresh, order 2 3 5 4 */
    /* the same address never evicts its own */
    tconn extra = {0};
    assert_int_equal(admit(&p, &extra, "10.0.0.1", &v), KQ_CONN_REFUSE_TOTAL);
    assert_null(v);
    assert_int_equal(admit(&p, &b[0], "10.0.0.2", &v), KQ_CONN_ADMIT);
    assert_ptr_equal(v, &a[3]); /* a[2] is busy */
    assert_int_equal(admit(&p, &b[1], "10.0.0.2", &v), KQ_CONN_ADMIT);
    assert_ptr_equal(v, &a[5]);
    assert_int_equal(admit(&p, &b[2], "10.0.0.2", &v), KQ_CONN_ADMIT);
    assert_ptr_equal(v, &a[4]);
    /* A 3 (a0 a1 used, a2 busy), B 3: no longer lighter */
    assert_int_equal(admit(&p, &b[3], "10.0.0.2", &v), KQ_CONN_REFUSE_TOTAL);
    assert_null(v);
    tconn c = {0};
    assert_int_equal(admit(&p, &c, "10.0.0.3", &v), KQ_CONN_ADMIT);
    assert_true(v == &a[1] || v == &b[0]); /* a tie: the idlest of one of them */
    assert_int_equal(p.evicted, 4);
    assert_int_equal(p.open, 6);
    assert_int_equal(p.refused_total, 2);
    for (int i = 0; i < 6; i++)
        if (a[i].open)
            release(&p, &a[i]);
    for (int i = 0; i < 4; i++)
        if (b[i].open)
            release(&p, &b[i]);
    release(&p, &c);
    assert_int_equal(p.open, 0);
    assert_int_equal(p.index.used, 0);
    assert_int_equal(p.index.heap_len, 0);
    kq_conn_pool_free(&p);
}

/* Every connection of the heaviest busy: nothing is evicted; without evict
 * (the controller pool) nothing is either. */
static void test_busy_and_off(void **state)
{
    (void)state;
    kq_conn_pool p, q;
    kq_conn_pool_init(&p, &(kq_conn_pool_config){.max_connections = 2, .max_per_ip = 2,
                                                 .evict = true});
    kq_conn_pool_init(&q, &(kq_conn_pool_config){.max_connections = 2, .max_per_ip = 2});
    tconn a[2] = {0}, qa[2] = {0}, b = {0}, *v;
    for (int i = 0; i < 2; i++) {
        assert_int_equal(admit(&p, &a[i], "10.0.0.1", &v), KQ_CONN_ADMIT);
        assert_int_equal(admit(&q, &qa[i], "10.0.0.1", &v), KQ_CONN_ADMIT);
        a[i].busy = true;
    }
    assert_int_equal(admit(&p, &b, "10.0.0.2", &v), KQ_CONN_REFUSE_TOTAL);
    assert_null(v);
    assert_int_equal(admit(&q, &b, "10.0.0.2", &v), KQ_CONN_REFUSE_TOTAL);
    assert_null(v);
    a[1].busy = false;
    assert_int_equal(admit(&p, &b, "10.0.0.2", &v), KQ_CONN_ADMIT);
    assert_ptr_equal(v, &a[1]);
    release(&p, &a[0]);
    release(&p, &b);
    release(&q, &qa[0]);
    release(&q, &qa[1]);
    kq_conn_pool_free(&p);
    kq_conn_pool_free(&q);
}

/* Random adds and removes over many addresses: the victim always comes
 * from an address with the most members, and only when the asker holds
 * fewer. */
static void test_heaviest_through_churn(void **state)
{
    (void)state;
    enum { ADDRS = 300, CONNS = 4000, STEPS = 40000 };
    kq_conn_evict e = {0};
    tconn *c = calloc(CONNS, sizeof *c);
    uint32_t counts[ADDRS] = {0};
    kq_conn_addr addrs[ADDRS];
    for (int i = 0; i < ADDRS; i++) {
        char s[32];
        snprintf(s, sizeof s, "10.1.%d.%d", i / 256, i % 256);
        addrs[i] = ip(s);
    }
    srand(7);
    for (int step = 0; step < STEPS; step++) {
        int k = rand() % CONNS;
        if (c[k].open) {
            kq_conn_evict_remove(&e, &c[k].m);
            counts[c[k].addr.bytes[2] * 256 + c[k].addr.bytes[3]]--;
            c[k].open = false;
        } else {
            int a = rand() % 16 == 0 ? 0 : rand() % ADDRS; /* address 0 heavier */
            c[k].addr = addrs[a];
            assert_true(kq_conn_evict_add(&e, &addrs[a], &c[k].m));
            counts[a]++;
            c[k].open = true;
        }
        if (step % 97)
            continue;
        uint32_t top = 0;
        for (int i = 0; i < ADDRS; i++)
            top = counts[i] > top ? counts[i] : top;
        int asker = rand() % ADDRS;
        assert_int_equal(kq_conn_evict_count(&e, &addrs[asker]), counts[asker]);
        kq_conn_member *v = kq_conn_evict_victim(&e, &addrs[asker], tconn_evictable);
        if (counts[asker] >= top) {
            assert_null(v);
            continue;
        }
        assert_non_null(v);
        const kq_conn_addr *va = kq_conn_evict_member_addr(v);
        assert_int_equal(counts[va->bytes[2] * 256 + va->bytes[3]], top);
    }
    for (int k = 0; k < CONNS; k++)
        if (c[k].open)
            kq_conn_evict_remove(&e, &c[k].m);
    assert_int_equal(e.used, 0);
    assert_int_equal(e.heap_len, 0);
    kq_conn_evict_free(&e);
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_idlest_of_heaviest),
        cmocka_unit_test(test_busy_and_off),
        cmocka_unit_test(test_heaviest_through_churn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
