/* The text exposition: label values and help escaped, special numbers
 * spelled as the format does, and a full buffer marks the body truncated. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "kq/metrics.h"

static void test_family_and_escaping(void **state)
{
    (void)state;
    char buf[1024];
    kq_mtext t;
    kq_mtext_init(&t, buf, sizeof buf);
    kq_mtext_family(&t, "m", "gauge", "a \\ b\nc");
    kq_mlabel l = {"v", "q\"b\\n\nx"};
    kq_mtext_sample(&t, "m", &l, 1, 1);
    assert_false(t.truncated);
    assert_string_equal(buf, "# HELP m a \\\\ b\\nc\n# TYPE m gauge\n"
                             "m{v=\"q\\\"b\\\\n\\nx\"} 1\n");
}

static void test_numbers(void **state)
{
    (void)state;
    char buf[1024];
    kq_mtext t;
    kq_mtext_init(&t, buf, sizeof buf);
    kq_mtext_sample(&t, "a", NULL, 0, NAN);
    kq_mtext_sample(&t, "b", NULL, 0, INFINITY);
    kq_mtext_sample(&t, "c", NULL, 0, -INFINITY);
    kq_mtext_sample(&t, "d", NULL, 0, 123456789012.0);
    kq_mtext_sample(&t, "e", NULL, 0, 0.25);
    kq_mtext_sample(&t, "f", NULL, 0, -1);
    assert_string_equal(buf, "a NaN\nb +Inf\nc -Inf\nd 123456789012\ne 0.25\nf -1\n");
}

static void test_truncated(void **state)
{
    (void)state;
    char buf[16];
    kq_mtext t;
    kq_mtext_init(&t, buf, sizeof buf);
    kq_mtext_sample(&t, "abc", NULL, 0, 1);
    assert_false(t.truncated);
    kq_mtext_sample(&t, "a_long_metric_name", NULL, 0, 1);
    assert_true(t.truncated);
    assert_true(t.len < sizeof buf);
    assert_string_equal(buf, "abc 1\n");
    char small[4];
    assert_false(kq_mtext_escape_label("\"\"\"", small, sizeof small));
    assert_int_equal(strlen(small), 2);
    kq_mtext_init(&t, buf, sizeof buf);
    char long_value[KQ_METRICS_LABEL_BYTES_MAX * 3];
    memset(long_value, '"', sizeof long_value - 1);
    long_value[sizeof long_value - 1] = '\0';
    kq_mlabel l = {"v", long_value};
    char big[4 * KQ_METRICS_LABEL_BYTES_MAX * 3];
    kq_mtext_init(&t, big, sizeof big);
    kq_mtext_sample(&t, "m", &l, 1, 1);
    assert_true(t.truncated); /* a label value too long is never served cut */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_family_and_escaping),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_truncated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
