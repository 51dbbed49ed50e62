/* max.connections, max.connections.per.ip and its overrides (config_conn.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kq/config.h"

static char path[64];

static int load(const char *extra, kq_config *cfg, char *err, size_t errlen)
{
    strcpy(path, "/tmp/kq-config-conn-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    char text[2048];
    int n = snprintf(text, sizeof text, "node.id=1\nlisteners=PLAINTEXT://:9092\n%s", extra);
    assert_int_equal(write(fd, text, (size_t)n), n);
    close(fd);
    int rc = kq_config_load_warn(path, cfg, err, errlen, NULL);
    unlink(path);
    return rc;
}

static kq_config cfg;

static void test_defaults(void **state)
{
    (void)state;
    char err[1024];
    assert_int_equal(load("", &cfg, err, sizeof err), 0);
    assert_int_equal(cfg.max_connections, -1);
    assert_int_equal(cfg.max_connections_per_ip, -1);
    assert_int_equal(cfg.max_connections_ip_override_count, 0);
}

static void test_values(void **state)
{
    (void)state;
    char err[1024];
    assert_int_equal(load("max.connections=500\nmax.connections.per.ip=20\n"
                          "max.connections.per.ip.overrides=127.0.0.2:100, [::1]:0 ,10.1.2.3 : 7\n",
                          &cfg, err, sizeof err),
                     0);
    assert_int_equal(cfg.max_connections, 500);
    assert_int_equal(cfg.max_connections_per_ip, 20);
    assert_int_equal(cfg.max_connections_ip_override_count, 3);
    assert_int_equal(cfg.max_connections_ip_overrides[0].max, 100);
    assert_int_equal(cfg.max_connections_ip_overrides[0].addr.family, 4);
    assert_int_equal(cfg.max_connections_ip_overrides[1].max, 0);
    assert_int_equal(cfg.max_connections_ip_overrides[1].addr.family, 6);
    assert_int_equal(cfg.max_connections_ip_overrides[2].max, 7);
}

static void expect_fail(const char *extra, const char *needle)
{
    char err[1024];
    assert_int_equal(load(extra, &cfg, err, sizeof err), -1);
    if (!strstr(err, needle))
        fail_msg("error \"%s\" lacks \"%s\"", err, needle);
}

static void test_errors(void **state)
{
    (void)state;
    expect_fail("max.connections=-5\n", ":3: max.connections:");
    expect_fail("max.connections.per.ip=x\n", ":3: max.connections.per.ip:");
    expect_fail("max.connections.per.ip.overrides=localhost:5\n", "not an IP address");
    expect_fail("max.connections.per.ip.overrides=1.2.3.4\n", "not host:count");
    expect_fail("max.connections.per.ip.overrides=1.2.3.4:\n", "count is missing");
    expect_fail("max.connections.per.ip.overrides=1.2.3.4:1,1.2.3.4:2\n", "given twice");
    expect_fail("\nmax.connections.per.ip=0\n", ":4: max.connections.per.ip: 0 refuses every address");
    char err[1024];
    assert_int_equal(load("max.connections.per.ip=0\nmax.connections.per.ip.overrides=127.0.0.1:5\n",
                          &cfg, err, sizeof err),
                     0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
