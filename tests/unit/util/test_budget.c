/* The response memory budget's decisions (kq/budget.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "kq/budget.h"
#include "kq/limits.h"
#include "kq/mutants.h"

#define MiB (1ull << 20)

static void test_defaults(void **state)
{
    (void)state;
    kq_budget b;
    kq_budget_init(&b, 0, 0, 0);
    assert_int_equal(b.bytes_max, KQ_QUEUED_RESPONSE_BYTES_DEFAULT);
    assert_int_equal(b.conn_bytes_max, KQ_CONN_WRITE_QUEUE_BYTES_MAX);
    assert_int_equal(b.quorum_bytes, KQ_QUEUED_RESPONSE_BYTES_DEFAULT / KQ_RESPONSE_QUORUM_SHARE_DIV);
    assert_int_equal(b.headroom_bytes, KQ_RESPONSE_HEADROOM_BYTES);
    assert_int_equal(kq_budget_room(&b, KQ_BUDGET_QUORUM), b.bytes_max);
    assert_int_equal(kq_budget_room(&b, KQ_BUDGET_CLIENT), b.bytes_max - b.quorum_bytes);
}

/* 40 non-reading connections each asking for 64 MiB: together they never
 * get past the clients' share, one alone gets its own bound. */
static void test_grants_sum_to_the_share(void **state)
{
    (void)state;
    kq_budget b;
    kq_budget_init(&b, 128 * MiB, 64 * MiB, 0);
    uint64_t held[40] = {0};
    for (int i = 0; i < 40; i++)
        kq_budget_conn_open(&b, KQ_BUDGET_CLIENT);
    for (int round = 0; round < 100; round++)
        for (int i = 0; i < 40; i++) {
            if (!kq_budget_may_read(&b, KQ_BUDGET_CLIENT, held[i]))
                continue;
            uint64_t g = kq_budget_grant(&b, KQ_BUDGET_CLIENT, held[i], 1 * MiB);
            kq_budget_charge(&b, KQ_BUDGET_CLIENT, g + 100); /* data + answer overhead */
            held[i] += g + 100;
        }
    assert_true(kq_budget_used(&b) <= kq_budget_class_max(&b, KQ_BUDGET_CLIENT));
    assert_true(b.peak <= b.bytes_max);
    assert_true(b.grants_cut > 0);
    /* The quorum still has its whole share. */
    assert_true(kq_budget_room(&b, KQ_BUDGET_QUORUM) >= b.quorum_bytes);
    assert_int_equal(kq_budget_grant(&b, KQ_BUDGET_QUORUM, 0, 1 * MiB), 1 * MiB);
    assert_true(kq_budget_may_read(&b, KQ_BUDGET_QUORUM, 0));
}

static void test_one_connection_own_bound(void **state)
{
    (void)state;
    kq_budget b;
    kq_budget_init(&b, 1024 * MiB, 64 * MiB, 0);
    kq_budget_conn_open(&b, KQ_BUDGET_CLIENT);
    assert_int_equal(kq_budget_grant(&b, KQ_BUDGET_CLIENT, 60 * MiB, 8 * MiB), 4 * MiB);
    assert_false(kq_budget_may_read(&b, KQ_BUDGET_CLIENT, 64 * MiB));
    assert_true(kq_budget_may_read(&b, KQ_BUDGET_CLIENT, 63 * MiB));
}

/* Past the limit, the heaviest connections stop; light ones (a fresh
 * ApiVersions) are still read, and reading resumes once bytes are freed. */
static void test_heaviest_stop_light_read(void **state)
{
    (void)state;
    kq_budget b;
    kq_budget_init(&b, 16 * MiB, 64 * MiB, 0);
    for (int i = 0; i < 3; i++)
        kq_budget_conn_open(&b, KQ_BUDGET_CLIENT);
    kq_budget_charge(&b, KQ_BUDGET_CLIENT, 8 * MiB);
    kq_budget_charge(&b, KQ_BUDGET_CLIENT, 4 * MiB - 1024);
    assert_true(kq_budget_room(&b, KQ_BUDGET_CLIENT) <= b.headroom_bytes);
    assert_int_equal(kq_budget_grant(&b, KQ_BUDGET_CLIENT, 0, 1 * MiB), 0);
    assert_false(kq_budget_may_read(&b, KQ_BUDGET_CLIENT, 8 * MiB));
    assert_false(kq_budget_may_read(&b, KQ_BUDGET_CLIENT, 4 * MiB - 1024));
    assert_true(kq_budget_may_read(&b, KQ_BUDGET_CLIENT, 0)); /* light: a fresh ApiVersions */
    assert_true(kq_budget_may_read(&b, KQ_BUDGET_CLIENT, 1000));
    assert_true(b.reads_refused == 2);
    /* At the limit only a connection holding nothing is read (a new
     * client during a flood of unread answers). */
    kq_budget_charge(&b, KQ_BUDGET_CLIENT, 1024);
    assert_true(kq_budget_may_read(&b, KQ_BUDGET_CLIENT, 0));
    assert_false(kq_budget_may_read(&b, KQ_BUDGET_CLIENT, 1000));
    uint64_t before = b.released;
    kq_budget_release(&b, KQ_BUDGET_CLIENT, 8 * MiB);
    assert_true(b.released > before);
    assert_true(kq_budget_may_read(&b, KQ_BUDGET_CLIENT, 0));
    assert_true(kq_budget_grant(&b, KQ_BUDGET_CLIENT, 0, 1 * MiB) == 1 * MiB);
}

/* The quorum may use the clients' share when clients hold nothing, and the
 * sum of both never passes bytes_max. */
static void test_quorum_room_is_what_is_left(void **state)
{
    (void)state;
    kq_budget b;
    kq_budget_init(&b, 16 * MiB, 64 * MiB, 0);
    kq_budget_charge(&b, KQ_BUDGET_QUORUM, 10 * MiB);
    assert_int_equal(kq_budget_room(&b, KQ_BUDGET_QUORUM), 6 * MiB);
    assert_int_equal(kq_budget_room(&b, KQ_BUDGET_CLIENT), 6 * MiB);
    kq_budget_charge(&b, KQ_BUDGET_CLIENT, 6 * MiB);
    assert_int_equal(kq_budget_room(&b, KQ_BUDGET_QUORUM), 0);
    assert_int_equal(kq_budget_room(&b, KQ_BUDGET_CLIENT), 0);
    kq_budget_release(&b, KQ_BUDGET_QUORUM, 10 * MiB);
    assert_int_equal(kq_budget_room(&b, KQ_BUDGET_CLIENT), 6 * MiB);
    assert_int_equal(kq_budget_room(&b, KQ_BUDGET_QUORUM), 10 * MiB);
}

static void test_mutant_per_connection_only(void **state)
{
    (void)state;
    kq_budget b;
    kq_budget_init(&b, 16 * MiB, 64 * MiB, KQ_MUTANT_PER_CONNECTION_BUDGET_ONLY);
    kq_budget_conn_open(&b, KQ_BUDGET_CLIENT);
    kq_budget_charge(&b, KQ_BUDGET_CLIENT, 20 * MiB);
    assert_true(kq_budget_may_read(&b, KQ_BUDGET_CLIENT, 20 * MiB));
    assert_int_equal(kq_budget_grant(&b, KQ_BUDGET_CLIENT, 20 * MiB, 1 * MiB), 1 * MiB);
}

/* The quorum-no-reserve mutant (issue 19 item 4): with no share of their
 * own, the quorum's connections are granted nothing once client floods hold
 * what clients may; the shipped budget still grants them records. */
static void test_mutant_quorum_no_reserve(void **state)
{
    (void)state;
    for (int mutant = 0; mutant < 2; mutant++) {
        kq_budget b;
        kq_budget_init(&b, 64 << 10, 64 << 10, mutant ? KQ_MUTANT_QUORUM_NO_RESERVE : 0);
        assert_int_equal(b.quorum_bytes, mutant ? 0 : (64 << 10) / KQ_RESPONSE_QUORUM_SHARE_DIV);
        /* One connection pipelining Fetches, never reading. */
        uint64_t held = 0;
        kq_budget_conn_open(&b, KQ_BUDGET_CLIENT);
        for (int round = 0; round < 200 && kq_budget_may_read(&b, KQ_BUDGET_CLIENT, held); round++) {
            uint64_t g = kq_budget_grant(&b, KQ_BUDGET_CLIENT, held, 4096);
            kq_budget_charge(&b, KQ_BUDGET_CLIENT, g + 100); /* data + answer overhead */
            held += g + 100;
        }
        assert_true(held <= kq_budget_class_max(&b, KQ_BUDGET_CLIENT));
        uint64_t quorum = kq_budget_grant(&b, KQ_BUDGET_QUORUM, 0, 4096);
        if (mutant)
            assert_int_equal(quorum, 0);
        else
            assert_int_equal(quorum, 4096);
    }
}

/* A shared listener's connection that proved itself a quorum peer (issue
 * 19): it moves with what it holds, the sum stays, and from then on it is
 * granted from the quorum's class while clients fill theirs. */
static void test_conn_move_to_quorum(void **state)
{
    (void)state;
    kq_budget b;
    kq_budget_init(&b, 16 * MiB, 64 * MiB, 0);
    kq_budget_conn_open(&b, KQ_BUDGET_CLIENT); /* the flood */
    kq_budget_conn_open(&b, KQ_BUDGET_CLIENT); /* the peer, before it proved itself */
    kq_budget_charge(&b, KQ_BUDGET_CLIENT, 11 * MiB);
    kq_budget_charge(&b, KQ_BUDGET_CLIENT, 1 * MiB); /* the peer's */
    assert_int_equal(kq_budget_room(&b, KQ_BUDGET_CLIENT), 0);
    assert_int_equal(kq_budget_grant(&b, KQ_BUDGET_CLIENT, 1 * MiB, 4096), 0);
    uint64_t peak = b.peak, released = b.released;
    kq_budget_conn_move(&b, KQ_BUDGET_CLIENT, KQ_BUDGET_QUORUM, 1 * MiB);
    assert_int_equal(b.conns[KQ_BUDGET_CLIENT], 1);
    assert_int_equal(b.conns[KQ_BUDGET_QUORUM], 1);
    assert_int_equal(b.used[KQ_BUDGET_CLIENT], 11 * MiB);
    assert_int_equal(b.used[KQ_BUDGET_QUORUM], 1 * MiB);
    assert_int_equal(kq_budget_used(&b), 12 * MiB);
    assert_int_equal(b.peak, peak); /* nothing was charged or released */
    assert_int_equal(b.released, released);
    assert_int_equal(kq_budget_grant(&b, KQ_BUDGET_QUORUM, 1 * MiB, 4096), 4096);
    assert_true(kq_budget_may_read(&b, KQ_BUDGET_QUORUM, 1 * MiB));
    /* Its bytes are released from the class it is in now. */
    kq_budget_release(&b, KQ_BUDGET_QUORUM, 1 * MiB);
    kq_budget_conn_close(&b, KQ_BUDGET_QUORUM);
    assert_int_equal(b.used[KQ_BUDGET_QUORUM], 0);
    assert_int_equal(b.conns[KQ_BUDGET_QUORUM], 0);
    /* A connection holding nothing moves too. */
    kq_budget_conn_move(&b, KQ_BUDGET_CLIENT, KQ_BUDGET_QUORUM, 0);
    assert_int_equal(b.conns[KQ_BUDGET_CLIENT], 0);
    assert_int_equal(b.used[KQ_BUDGET_CLIENT], 11 * MiB);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_grants_sum_to_the_share),
        cmocka_unit_test(test_one_connection_own_bound),
        cmocka_unit_test(test_heaviest_stop_light_read),
        cmocka_unit_test(test_quorum_room_is_what_is_left),
        cmocka_unit_test(test_mutant_per_connection_only),
        cmocka_unit_test(test_mutant_quorum_no_reserve),
        cmocka_unit_test(test_conn_move_to_quorum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
