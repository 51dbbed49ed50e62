/* Unit tests of kq-load's latency histogram (tools/loadgen/histogram.c)
 * and of its record payloads and pacer: bucket layout (exact below 1 ms,
 * within 1% above), percentiles, clamping past 60 s, payload sequence
 * encoding, and token-bucket pacing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "histogram.h"
#include "pacer.h"
#include "payload.h"

static struct kl_hist h;

static void test_empty(void **state)
{
    (void)state;
    kl_hist_reset(&h);
    assert_int_equal(kl_hist_percentile_us(&h, 50), 0);
    assert_int_equal(h.total_count, 0);
}

static void test_linear_exact(void **state)
{
    (void)state;
    kl_hist_reset(&h);
    for (uint64_t v = 1; v <= 1000; v++)
        kl_hist_record_us(&h, v);
    /* 1..999 are exact; 1000 is the first log bucket (max clamps it). */
    assert_int_equal(kl_hist_percentile_us(&h, 50), 500);
    assert_int_equal(kl_hist_percentile_us(&h, 99), 990);
    assert_int_equal(kl_hist_percentile_us(&h, 99.9), 999);
    assert_int_equal(kl_hist_percentile_us(&h, 100), 1000);
    assert_int_equal(h.min_us, 1);
    assert_int_equal(h.max_us, 1000);
}

static void test_relative_precision(void **state)
{
    (void)state;
    uint64_t prev_bucket = 0;
    for (uint64_t v = 1000; v < KL_HIST_MAX_US; v = v + v / 97 + 1) {
        unsigned b = kl_hist_bucket_of(v);
        assert_true(b >= prev_bucket);
        prev_bucket = b;
        uint64_t high = kl_hist_bucket_high_us(b);
        assert_true(high >= v);
        assert_true((double)high <= (double)v * 1.0101 + 1);
        assert_true(b == KL_HIST_LINEAR_US || kl_hist_bucket_high_us(b - 1) < v);
    }
}

static void test_percentiles_of_one_value(void **state)
{
    (void)state;
    kl_hist_reset(&h);
    for (int i = 0; i < 10; i++)
        kl_hist_record_us(&h, 123456);
    assert_int_equal(kl_hist_percentile_us(&h, 50), 123456);
    assert_int_equal(kl_hist_percentile_us(&h, 99.9), 123456);
    assert_true(kl_hist_mean_us(&h) == 123456.0);
}

static void test_percentile_mix(void **state)
{
    (void)state;
    kl_hist_reset(&h);
    for (int i = 0; i < 990; i++)
        kl_hist_record_us(&h, 200);
    for (int i = 0; i < 9; i++)
        kl_hist_record_us(&h, 50000);
    kl_hist_record_us(&h, 2000000);
    assert_int_equal(kl_hist_percentile_us(&h, 50), 200);
    assert_int_equal(kl_hist_percentile_us(&h, 99), 200);
    uint64_t p999 = kl_hist_percentile_us(&h, 99.9);
    assert_true(p999 >= 50000 && p999 <= 50500);
    assert_int_equal(kl_hist_percentile_us(&h, 100), 2000000);
}

static void test_overflow_clamps(void **state)
{
    (void)state;
    kl_hist_reset(&h);
    kl_hist_record_us(&h, 10ull * KL_HIST_MAX_US);
    assert_int_equal(kl_hist_bucket_of(10ull * KL_HIST_MAX_US), KL_HIST_BUCKETS - 1);
    assert_int_equal(kl_hist_percentile_us(&h, 50), 10ull * KL_HIST_MAX_US);
}

static void test_payload_seq(void **state)
{
    (void)state;
    struct kl_payload p;
    assert_int_equal(kl_payload_init(&p, 100, 12), 0);
    kl_payload_set_seq(&p, 0x0102030405060708ull);
    assert_int_equal(p.value[0], 1);
    assert_int_equal(p.value[7], 8);
    assert_true(p.value[8] >= 'A' && p.value[8] <= 'Z');
    assert_int_equal(kl_payload_seq_of(p.value), 0x0102030405060708ull);
    assert_int_equal(kl_payload_seq_of(p.key), 0x0102030405060708ull);
    kl_payload_free(&p);
    assert_int_equal(kl_payload_init(&p, 4, 0), 0);
    kl_payload_set_seq(&p, 0x0102030405060708ull);
    assert_int_equal(p.value[0], 5);
    assert_int_equal(p.value[3], 8);
    assert_null(p.key);
    kl_payload_free(&p);
}

static void test_pacer(void **state)
{
    (void)state;
    struct kl_pacer p;
    kl_pacer_start(&p, 1000, 1000000000ull);
    assert_int_equal(kl_pacer_due(&p, 1000000000ull), 1);
    kl_pacer_take(&p, 1);
    assert_int_equal(kl_pacer_due(&p, 1000500000ull), 0);
    assert_int_equal(kl_pacer_next_due_ns(&p, 1000500000ull), 1001000000ull);
    assert_int_equal(kl_pacer_due(&p, 1010000000ull), 10);
    kl_pacer_start(&p, -1, 0);
    assert_true(kl_pacer_due(&p, 5) == UINT64_MAX);
}

/* --threads: two histograms merged read as one that saw every value. */
static void test_merge(void **state)
{
    (void)state;
    static struct kl_hist a, b, both;
    kl_hist_reset(&a);
    kl_hist_reset(&b);
    kl_hist_reset(&both);
    for (uint64_t v = 1; v <= 1000; v++) {
        kl_hist_record_us(v % 2 ? &a : &b, v * 37);
        kl_hist_record_us(&both, v * 37);
    }
    kl_hist_merge(&a, &b);
    assert_int_equal(a.total_count, both.total_count);
    assert_int_equal(a.sum_us, both.sum_us);
    assert_int_equal(a.min_us, both.min_us);
    assert_int_equal(a.max_us, both.max_us);
    for (double pct = 1; pct <= 100; pct += 7.5)
        assert_int_equal(kl_hist_percentile_us(&a, pct), kl_hist_percentile_us(&both, pct));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_linear_exact),
        cmocka_unit_test(test_relative_precision),
        cmocka_unit_test(test_percentiles_of_one_value),
        cmocka_unit_test(test_percentile_mix),
        cmocka_unit_test(test_overflow_clamps),
        cmocka_unit_test(test_payload_seq),
        cmocka_unit_test(test_pacer),
        cmocka_unit_test(test_merge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
