#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "kq/limits.h"
#include "kq/log_line.h"

static void test_burst_then_suppressed_then_counted(void **state)
{
    (void)state;
    kq_log_limit l = {0};
    uint64_t dropped = 99;
    for (int i = 0; i < KQ_LOG_LIMITED_LINES_PER_WINDOW; i++) {
        assert_true(kq_log_limit_allow(&l, 1000, &dropped));
        assert_int_equal(dropped, 0);
    }
    for (int i = 0; i < 500; i++)
        assert_false(kq_log_limit_allow(&l, 1000 + (uint64_t)i % KQ_LOG_LIMITED_WINDOW_MS, &dropped));
    /* the next window lets a line through, carrying the count */
    assert_true(kq_log_limit_allow(&l, 1000 + KQ_LOG_LIMITED_WINDOW_MS, &dropped));
    assert_int_equal(dropped, 500);
    assert_true(kq_log_limit_allow(&l, 1000 + KQ_LOG_LIMITED_WINDOW_MS, &dropped));
    assert_int_equal(dropped, 0);
}

static void test_clock_backwards_restarts_window(void **state)
{
    (void)state;
    kq_log_limit l = {0};
    uint64_t dropped;
    for (int i = 0; i < KQ_LOG_LIMITED_LINES_PER_WINDOW; i++)
        assert_true(kq_log_limit_allow(&l, 5000, &dropped));
    assert_false(kq_log_limit_allow(&l, 5000, &dropped));
    assert_true(kq_log_limit_allow(&l, 10, &dropped));
    assert_int_equal(dropped, 1);
}

static char last_line[2048];
static int lines;
static void sink(void *ctx, const char *line)
{
    (void)ctx;
    lines++;
    snprintf(last_line, sizeof last_line, "%s", line);
}
static uint64_t fake_now;
static uint64_t fake_clock(void *ctx)
{
    (void)ctx;
    return fake_now;
}

static void refuse_line(int i)
{
    LOG_LINE_LIMITED("connection %d refused", i);
}

/* A flood from one site: bounded lines, the count printed, the total kept. */
static void test_macro_site_limited(void **state)
{
    (void)state;
    log_line_set_sink(sink, NULL);
    log_line_set_clock(fake_clock, NULL);
    fake_now = 100;
    uint64_t before = log_line_suppressed_total();
    for (int i = 0; i < 10000; i++)
        refuse_line(i);
    assert_int_equal(lines, KQ_LOG_LIMITED_LINES_PER_WINDOW);
    assert_int_equal(log_line_suppressed_total() - before, 10000 - KQ_LOG_LIMITED_LINES_PER_WINDOW);
    fake_now += KQ_LOG_LIMITED_WINDOW_MS;
    refuse_line(0);
    assert_int_equal(lines, KQ_LOG_LIMITED_LINES_PER_WINDOW + 1);
    char want[128];
    snprintf(want, sizeof want, "(%d similar lines suppressed before this one)",
             10000 - KQ_LOG_LIMITED_LINES_PER_WINDOW);
    assert_non_null(strstr(last_line, want));
    log_line_set_sink(NULL, NULL);
    log_line_set_clock(NULL, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_burst_then_suppressed_then_counted),
        cmocka_unit_test(test_clock_backwards_restarts_window),
        cmocka_unit_test(test_macro_site_limited),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
