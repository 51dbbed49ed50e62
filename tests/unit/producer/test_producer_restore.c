/* Producer state walk and restore (producer_state_foreach, _restore): the
 * walk is least recent first with batches oldest first, and restoring the
 * walk in order rebuilds a table with the same content and eviction order. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kq/producer_state.h"

#define DUMP_MAX 64

typedef struct dumped {
    int64_t pid;
    int16_t epoch;
    int count;
    producer_batch_view batches[PRODUCER_STATE_BATCHES];
} dumped;

typedef struct dump {
    dumped e[DUMP_MAX];
    int n;
    int stop_after; /* 0: never */
} dump;

static int collect(void *ctx, int64_t pid, int16_t epoch, const producer_batch_view *b, int count)
{
    dump *d = ctx;
    assert_true(d->n < DUMP_MAX);
    assert_true(count >= 1 && count <= PRODUCER_STATE_BATCHES);
    dumped *x = &d->e[d->n++];
    x->pid = pid;
    x->epoch = epoch;
    x->count = count;
    memcpy(x->batches, b, sizeof(*b) * (size_t)count);
    return d->stop_after && d->n == d->stop_after ? 7 : 0;
}

static void take_dump(const producer_state *ps, dump *d)
{
    memset(d, 0, sizeof(*d));
    assert_int_equal(producer_state_foreach(ps, collect, d), 0);
}

/* Fills a table: pids 1..5 with 1..7 batches each, then 2 touched again. */
static void fill(producer_state *ps)
{
    for (int64_t pid = 1; pid <= 5; pid++)
        for (int k = 0; k < (int)pid + 2; k++)
            producer_state_record(ps, pid, (int16_t)pid, k * 10, k * 10 + 9, pid * 1000 + k * 10,
                                  pid * 1000 + k * 10 + 9);
    producer_state_record(ps, 2, 2, 100, 100, 5000, 5000);
}

static void test_foreach_order(void **state)
{
    (void)state;
    producer_state *ps = producer_state_create(8);
    fill(ps);
    dump d;
    take_dump(ps, &d);
    assert_int_equal(d.n, 5);
    int64_t order[] = { 1, 3, 4, 5, 2 };
    for (int i = 0; i < 5; i++)
        assert_int_equal(d.e[i].pid, order[i]);
    /* pid 5 recorded 7 batches: the last 5 are kept, oldest first. */
    assert_int_equal(d.e[3].count, 5);
    assert_int_equal(d.e[3].batches[0].first_seq, 20);
    assert_int_equal(d.e[3].batches[4].last_seq, 69);
    assert_int_equal(d.e[3].batches[4].last_offset, 5069);
    assert_int_equal(d.e[0].count, 3);
    assert_int_equal(d.e[4].batches[d.e[4].count - 1].first_offset, 5000);
    /* fn's non-zero return stops the walk. */
    memset(&d, 0, sizeof(d));
    d.stop_after = 2;
    assert_int_equal(producer_state_foreach(ps, collect, &d), 7);
    assert_int_equal(d.n, 2);
    producer_state_clear(ps);
    take_dump(ps, &d);
    assert_int_equal(d.n, 0);
    producer_state_destroy(ps);
}

static void test_restore_rebuilds_same_table(void **state)
{
    (void)state;
    producer_state *a = producer_state_create(5);
    producer_state *b = producer_state_create(5);
    fill(a);
    dump da, db;
    take_dump(a, &da);
    for (int i = 0; i < da.n; i++)
        assert_int_equal(producer_state_restore(b, da.e[i].pid, da.e[i].epoch, da.e[i].batches,
                                                da.e[i].count), 0);
    take_dump(b, &db);
    assert_memory_equal(&da, &db, sizeof(da));
    /* Checks answer alike (duplicates with the original offset). */
    int64_t oa = -1, ob = -1;
    assert_int_equal(producer_state_check(a, 5, 5, 30, 39, &oa), PRODUCER_DUPLICATE);
    assert_int_equal(producer_state_check(b, 5, 5, 30, 39, &ob), PRODUCER_DUPLICATE);
    assert_int_equal(oa, ob);
    assert_int_equal(producer_state_check(b, 5, 5, 70, 70, NULL), PRODUCER_APPEND);
    /* The same eviction order: new producers push out 1, 3, 4, 5, 2. */
    int64_t order[] = { 1, 3, 4, 5, 2 };
    for (int i = 0; i < 5; i++) {
        producer_state_record(a, 100 + i, 0, 0, 0, 9000 + i, 9000 + i);
        producer_state_record(b, 100 + i, 0, 0, 0, 9000 + i, 9000 + i);
        assert_false(producer_state_get(a, order[i], NULL, NULL, NULL));
        assert_false(producer_state_get(b, order[i], NULL, NULL, NULL));
        for (int j = i + 1; j < 5; j++)
            assert_true(producer_state_get(b, order[j], NULL, NULL, NULL));
    }
    take_dump(a, &da);
    take_dump(b, &db);
    assert_memory_equal(&da, &db, sizeof(da));
    producer_state_destroy(a);
    producer_state_destroy(b);
}

static void test_restore_evicts_and_refuses(void **state)
{
    (void)state;
    producer_state *ps = producer_state_create(2);
    producer_batch_view bv[PRODUCER_STATE_BATCHES + 1] = { { 0, 4, 10, 14 } };
    assert_int_equal(producer_state_restore(ps, -1, 0, bv, 1), -EINVAL);
    assert_int_equal(producer_state_restore(ps, 1, 0, bv, 0), -EINVAL);
    assert_int_equal(producer_state_restore(ps, 1, 0, bv, PRODUCER_STATE_BATCHES + 1), -EINVAL);
    assert_int_equal(producer_state_restore(ps, 1, 0, NULL, 1), -EINVAL);
    assert_int_equal(producer_state_count(ps), 0);
    assert_int_equal(producer_state_restore(ps, 1, 3, bv, 1), 0);
    assert_int_equal(producer_state_restore(ps, 1, 4, bv, 1), -EEXIST);
    int16_t epoch = 0;
    assert_true(producer_state_get(ps, 1, &epoch, NULL, NULL));
    assert_int_equal(epoch, 3);
    assert_int_equal(producer_state_restore(ps, 2, 0, bv, 1), 0);
    assert_int_equal(producer_state_restore(ps, 3, 0, bv, 1), 0);
    assert_int_equal(producer_state_count(ps), 2);
    assert_false(producer_state_get(ps, 1, NULL, NULL, NULL));
    assert_int_equal(producer_state_check(ps, 3, 0, 5, 5, NULL), PRODUCER_APPEND);
    assert_int_equal(producer_state_capacity(ps), 2);
    producer_state_destroy(ps);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_foreach_order),
        cmocka_unit_test(test_restore_rebuilds_same_table),
        cmocka_unit_test(test_restore_evicts_and_refuses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
