/* kq_histogram: which bucket a value lands in (le is inclusive), the
 * cumulative counts, NaN ignored, and the exposed _bucket/_sum/_count. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "kq/metrics.h"

static const double bounds[] = {1.0, 2.0, 5.0};

static void test_bucketing_inclusive(void **state)
{
    (void)state;
    kq_histogram h;
    kq_histogram_init(&h, bounds, 3);
    kq_histogram_observe(&h, 0.5);
    kq_histogram_observe(&h, 1.0); /* on the bound: that bucket */
    kq_histogram_observe(&h, 1.5);
    kq_histogram_observe(&h, 5.0);
    kq_histogram_observe(&h, 7.0); /* above every bound: +Inf only */
    kq_histogram_observe(&h, NAN); /* not counted */
    assert_int_equal(h.count, 5);
    assert_int_equal(kq_histogram_cumulative(&h, 0), 2);
    assert_int_equal(kq_histogram_cumulative(&h, 1), 3);
    assert_int_equal(kq_histogram_cumulative(&h, 2), 4);
    assert_int_equal(kq_histogram_cumulative(&h, 3), 5);
    assert_true(fabs(h.sum - 15.0) < 1e-9);
}

static void test_exposition(void **state)
{
    (void)state;
    kq_histogram h;
    kq_histogram_init(&h, bounds, 3);
    kq_histogram_observe(&h, 1.5);
    kq_histogram_observe(&h, 3.0);
    char buf[2048];
    kq_mtext t;
    kq_mtext_init(&t, buf, sizeof buf);
    kq_mlabel l = {"api", "Produce"};
    kq_mtext_histogram(&t, "x_seconds", &l, 1, &h);
    assert_false(t.truncated);
    assert_string_equal(buf, "x_seconds_bucket{api=\"Produce\",le=\"1\"} 0\n"
                             "x_seconds_bucket{api=\"Produce\",le=\"2\"} 1\n"
                             "x_seconds_bucket{api=\"Produce\",le=\"5\"} 2\n"
                             "x_seconds_bucket{api=\"Produce\",le=\"+Inf\"} 2\n"
                             "x_seconds_sum{api=\"Produce\"} 4.5\n"
                             "x_seconds_count{api=\"Produce\"} 2\n");
}

static void test_server_bounds_ascending(void **state)
{
    (void)state;
    for (int i = 1; i < kq_metrics_latency_bound_count; i++)
        assert_true(kq_metrics_latency_bounds_s[i] > kq_metrics_latency_bounds_s[i - 1]);
    for (int i = 1; i < kq_metrics_size_bound_count; i++)
        assert_true(kq_metrics_size_bounds_bytes[i] > kq_metrics_size_bounds_bytes[i - 1]);
    kq_histogram h;
    kq_histogram_init(&h, kq_metrics_latency_bounds_s, kq_metrics_latency_bound_count);
    kq_histogram_observe(&h, 0.0);
    kq_histogram_observe(&h, 1e9);
    assert_int_equal(kq_histogram_cumulative(&h, 0), 1);
    assert_int_equal(kq_histogram_cumulative(&h, h.bound_count), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bucketing_inclusive),
        cmocka_unit_test(test_exposition),
        cmocka_unit_test(test_server_bounds_ascending),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
