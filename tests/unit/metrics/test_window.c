/* kq_window: rate over the live samples with the (samples - 1) window
 * floor, avg and max over the live samples, NaN when empty, samples aging
 * out after samples * window. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "kq/metrics.h"

#define W_MS 1000

static void test_empty_is_nan(void **state)
{
    (void)state;
    kq_window w;
    kq_window_init(&w, W_MS, 0);
    assert_true(isnan(kq_window_avg(&w, 10)));
    assert_true(isnan(kq_window_max(&w, 10)));
    assert_true(kq_window_rate_per_s(&w, 10) == 0.0);
}

static void test_rate_floor_and_span(void **state)
{
    (void)state;
    kq_window w;
    kq_window_init(&w, W_MS, 0);
    kq_window_record(&w, 100, 100);
    /* 100 within the first 100 ms: divided by the floor of one window */
    assert_true(fabs(kq_window_rate_per_s(&w, 100) - 100.0) < 1e-9);
    kq_window_record(&w, 100, 1500); /* second sample, starting at 1500 */
    /* 200 over 0..1800 ms */
    assert_true(fabs(kq_window_rate_per_s(&w, 1800) - 200.0 / 1.8) < 1e-9);
    /* at 2100 the first sample (start 0) is 2100 ms old: out */
    assert_true(fabs(kq_window_rate_per_s(&w, 2100) - 100.0) < 1e-9);
}

static void test_avg_max_age_out(void **state)
{
    (void)state;
    kq_window w;
    kq_window_init(&w, W_MS, 0);
    kq_window_record(&w, 10, 0);
    kq_window_record(&w, 30, 500);
    kq_window_record(&w, 5, 1200); /* next sample */
    assert_true(fabs(kq_window_avg(&w, 1300) - 15.0) < 1e-9);
    assert_true(kq_window_max(&w, 1300) == 30.0);
    /* at 2100 the first sample is gone: only 5 left */
    assert_true(kq_window_avg(&w, 2100) == 5.0);
    assert_true(kq_window_max(&w, 2100) == 5.0);
    /* a recording much later resets the sample it lands in */
    kq_window_record(&w, 7, 10000);
    assert_true(kq_window_avg(&w, 10000) == 7.0);
    assert_true(kq_window_max(&w, 10000) == 7.0);
    assert_true(isnan(kq_window_avg(&w, 20000)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_is_nan),
        cmocka_unit_test(test_rate_floor_and_span),
        cmocka_unit_test(test_avg_max_age_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
