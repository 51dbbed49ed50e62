#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "kq/buf.h"

static void test_alloc_zeroed_aligned(void **state)
{
    (void)state;
    kq_arena a;
    kq_arena_init(&a, 1 << 20);
    for (size_t i = 1; i < 200; i++) {
        uint8_t *p = kq_arena_alloc(&a, i);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % 8, 0);
        for (size_t k = 0; k < i; k++)
            assert_int_equal(p[k], 0);
        memset(p, 0xAB, i);
    }
    /* after reset, reused memory must come back zeroed */
    kq_arena_reset(&a);
    for (size_t i = 1; i < 200; i++) {
        uint8_t *p = kq_arena_alloc(&a, i);
        assert_non_null(p);
        for (size_t k = 0; k < i; k++)
            assert_int_equal(p[k], 0);
    }
    assert_non_null(kq_arena_alloc(&a, 0));
    kq_arena_free(&a);
}

static void test_distinct_allocations(void **state)
{
    (void)state;
    kq_arena a;
    kq_arena_init(&a, 1 << 20);
    int *x = kq_arena_alloc(&a, sizeof(int) * 10);
    int *y = kq_arena_alloc(&a, sizeof(int) * 10);
    assert_non_null(x);
    assert_non_null(y);
    for (int i = 0; i < 10; i++) {
        x[i] = i;
        y[i] = -i;
    }
    for (int i = 0; i < 10; i++)
        assert_int_equal(x[i], i);
    /* a big allocation spills into a new block; old data stays valid */
    uint8_t *big = kq_arena_alloc(&a, 100000);
    assert_non_null(big);
    big[99999] = 1;
    for (int i = 0; i < 10; i++)
        assert_int_equal(y[i], -i);
    kq_arena_free(&a);
}

static void test_bound(void **state)
{
    (void)state;
    kq_arena a;
    kq_arena_init(&a, 10000);
    assert_null(kq_arena_alloc(&a, 10001));
    assert_null(kq_arena_alloc(&a, SIZE_MAX));
    assert_null(kq_arena_alloc(&a, SIZE_MAX - 3));
    size_t got = 0;
    while (kq_arena_alloc(&a, 1000))
        got += 1000;
    assert_true(got <= 10000);
    assert_true(got >= 4000);
    assert_null(kq_arena_alloc(&a, 1000));
    kq_arena_reset(&a);
    assert_non_null(kq_arena_alloc(&a, 1000));
    kq_arena_free(&a);
    /* usable again after free */
    assert_non_null(kq_arena_alloc(&a, 64));
    kq_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alloc_zeroed_aligned),
        cmocka_unit_test(test_distinct_allocations),
        cmocka_unit_test(test_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
