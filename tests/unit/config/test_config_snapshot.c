/* The segment, snapshot and retention keys (docs/snapshots.md "Snapshots and
 * retention"): defaults, values, aliases and their precedence, errors. */
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
#include "kq/limits.h"

static char props_path[64];

static const char *write_props(const char *text)
{
    if (props_path[0])
        unlink(props_path);
    strcpy(props_path, "/tmp/kq-config-snap-XXXXXX");
    int fd = mkstemp(props_path);
    assert_true(fd >= 0);
    size_t n = strlen(text);
    assert_int_equal(write(fd, text, n), (ssize_t)n);
    close(fd);
    return props_path;
}

/* Loads text, which must succeed without warnings. */
static void load_ok(const char *text, kq_config *cfg)
{
    char err[1024], warn[1024];
    FILE *w = tmpfile();
    assert_non_null(w);
    int rc = kq_config_load_warn(write_props(text), cfg, err, sizeof err, w);
    rewind(w);
    size_t got = fread(warn, 1, sizeof warn - 1, w);
    warn[got] = '\0';
    fclose(w);
    if (rc != 0)
        fail_msg("load failed: %s", err);
    assert_string_equal(warn, "");
}

/* Asserts the load fails with exactly "<tmpfile>:<suffix>". */
static void expect_error(const char *text, const char *suffix)
{
    kq_config cfg;
    char err[1024], want[1200];
    int rc = kq_config_load_warn(write_props(text), &cfg, err, sizeof err, NULL);
    snprintf(want, sizeof want, "%s%s", props_path, suffix);
    if (rc != -1 || strcmp(err, want) != 0)
        fail_msg("rc=%d\n  got:  %s\n  want: %s", rc, err, want);
}

static void test_defaults(void **state)
{
    (void)state;
    kq_config cfg;
    load_ok("node.id=1\n", &cfg);
    assert_int_equal(cfg.segment_bytes, 1073741824u);
    assert_int_equal(cfg.snapshot_bytes_between, 20971520u);
    assert_int_equal(cfg.snapshot_interval_ms, 3600000u);
    assert_int_equal(cfg.retention_bytes, 104857600);
    assert_int_equal(cfg.retention_ms, 604800000);
    assert_int_equal(cfg.fetch_snapshot_max_bytes, 1048576u);
    assert_int_equal(cfg.snapshot_bytes_between, EXEC_SNAPSHOT_BYTES_BETWEEN_DEFAULT);
    assert_int_equal(cfg.snapshot_interval_ms, EXEC_SNAPSHOT_INTERVAL_MS_DEFAULT);
    assert_int_equal(cfg.retention_bytes, EXEC_RETENTION_BYTES_DEFAULT);
    assert_int_equal(cfg.retention_ms, EXEC_RETENTION_MS_DEFAULT);
    assert_int_equal(cfg.fetch_snapshot_max_bytes, EXEC_FETCH_SNAPSHOT_MAX_BYTES_DEFAULT);
}

static void test_values(void **state)
{
    (void)state;
    kq_config cfg;
    load_ok("node.id=1\n"
            "metadata.log.max.record.bytes.between.snapshots=1\n"
            "metadata.log.max.snapshot.interval.ms=0\n"
            "metadata.max.retention.bytes=-1\n"
            "metadata.max.retention.ms=-1\n"
            "controller.quorum.fetch.snapshot.max.bytes=1\n"
            "metadata.log.segment.bytes=65536\n",
            &cfg);
    assert_int_equal(cfg.snapshot_bytes_between, 1);
    assert_int_equal(cfg.snapshot_interval_ms, 0);
    assert_int_equal(cfg.retention_bytes, -1);
    assert_int_equal(cfg.retention_ms, -1);
    assert_int_equal(cfg.fetch_snapshot_max_bytes, 1);
    assert_int_equal(cfg.segment_bytes, 65536);
    load_ok("node.id=1\n"
            "metadata.log.max.record.bytes.between.snapshots=9223372036854775807\n"
            "metadata.log.max.snapshot.interval.ms=60000\n"
            "metadata.max.retention.bytes=0\n"
            "metadata.max.retention.ms=0\n"
            "controller.quorum.fetch.snapshot.max.bytes=67108864\n"
            "metadata.log.segment.bytes=14\n",
            &cfg);
    assert_int_equal(cfg.snapshot_bytes_between, INT64_MAX);
    assert_int_equal(cfg.snapshot_interval_ms, 60000);
    assert_int_equal(cfg.retention_bytes, 0);
    assert_int_equal(cfg.retention_ms, 0);
    assert_int_equal(cfg.fetch_snapshot_max_bytes, KQ_SNAPSHOT_BYTES_MAX);
    assert_int_equal(cfg.segment_bytes, 14);
}

static void test_aliases(void **state)
{
    (void)state;
    kq_config cfg;
    load_ok("node.id=1\nlog.retention.bytes=5000\nlog.retention.ms=7000\n"
            "log.segment.bytes=1048576\n",
            &cfg);
    assert_int_equal(cfg.retention_bytes, 5000);
    assert_int_equal(cfg.retention_ms, 7000);
    assert_int_equal(cfg.segment_bytes, 1048576);
    load_ok("node.id=1\nlog.retention.minutes=3\n", &cfg);
    assert_int_equal(cfg.retention_ms, 180000);
    load_ok("node.id=1\nlog.retention.hours=2\n", &cfg);
    assert_int_equal(cfg.retention_ms, 7200000);
    load_ok("node.id=1\nlog.retention.hours=-1\n", &cfg);
    assert_int_equal(cfg.retention_ms, -1);
    load_ok("node.id=1\nlog.retention.minutes=2147483647\n", &cfg);
    assert_int_equal(cfg.retention_ms, 2147483647ll * 60000);
}

/* The metadata.* spelling wins over log.*, ms over minutes over hours,
 * wherever each is in the file; the same key twice: the last one. */
static void test_alias_precedence(void **state)
{
    (void)state;
    kq_config cfg;
    load_ok("node.id=1\nmetadata.max.retention.bytes=10\nlog.retention.bytes=20\n"
            "metadata.log.segment.bytes=100000\nlog.segment.bytes=200000\n",
            &cfg);
    assert_int_equal(cfg.retention_bytes, 10);
    assert_int_equal(cfg.segment_bytes, 100000);
    load_ok("node.id=1\nlog.retention.bytes=20\nmetadata.max.retention.bytes=10\n"
            "log.segment.bytes=200000\nmetadata.log.segment.bytes=100000\n",
            &cfg);
    assert_int_equal(cfg.retention_bytes, 10);
    assert_int_equal(cfg.segment_bytes, 100000);
    load_ok("node.id=1\nmetadata.max.retention.ms=5\nlog.retention.ms=6\n"
            "log.retention.minutes=7\nlog.retention.hours=8\n",
            &cfg);
    assert_int_equal(cfg.retention_ms, 5);
    load_ok("node.id=1\nlog.retention.hours=8\nlog.retention.minutes=7\nlog.retention.ms=6\n",
            &cfg);
    assert_int_equal(cfg.retention_ms, 6);
    load_ok("node.id=1\nlog.retention.minutes=7\nlog.retention.hours=8\n", &cfg);
    assert_int_equal(cfg.retention_ms, 420000);
    load_ok("node.id=1\nmetadata.max.retention.ms=5\nmetadata.max.retention.ms=9\n", &cfg);
    assert_int_equal(cfg.retention_ms, 9);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("node.id=1\nmetadata.log.max.record.bytes.between.snapshots=0\n",
                 ":2: metadata.log.max.record.bytes.between.snapshots: out of range: \"0\" "
                 "(must be between 1 and 9223372036854775807)");
    expect_error("node.id=1\n\nmetadata.log.max.snapshot.interval.ms=-1\n",
                 ":3: metadata.log.max.snapshot.interval.ms: out of range: \"-1\" "
                 "(must be between 0 and 9223372036854775807)");
    expect_error("node.id=1\nmetadata.log.max.snapshot.interval.ms=1h\n",
                 ":2: metadata.log.max.snapshot.interval.ms: not a number: \"1h\"");
    expect_error("node.id=1\nmetadata.max.retention.bytes=-2\n",
                 ":2: metadata.max.retention.bytes: out of range: \"-2\" "
                 "(must be between -1 and 9223372036854775807)");
    expect_error("node.id=1\nlog.retention.bytes=100MB\n",
                 ":2: log.retention.bytes: not a number: \"100MB\"");
    expect_error("node.id=1\nmetadata.max.retention.ms=-5\n",
                 ":2: metadata.max.retention.ms: out of range: \"-5\" "
                 "(must be between -1 and 9223372036854775807)");
    expect_error("node.id=1\nlog.retention.ms=99999999999999999999\n",
                 ":2: log.retention.ms: out of range: \"99999999999999999999\" "
                 "(must be between -1 and 9223372036854775807)");
    expect_error("node.id=1\nlog.retention.minutes=2147483648\n",
                 ":2: log.retention.minutes: out of range: \"2147483648\" "
                 "(must be between -1 and 2147483647)");
    expect_error("node.id=1\nlog.retention.hours=-2\n",
                 ":2: log.retention.hours: out of range: \"-2\" "
                 "(must be between -1 and 2147483647)");
    expect_error("node.id=1\ncontroller.quorum.fetch.snapshot.max.bytes=0\n",
                 ":2: controller.quorum.fetch.snapshot.max.bytes: out of range: \"0\" "
                 "(must be between 1 and 67108864)");
    expect_error("node.id=1\ncontroller.quorum.fetch.snapshot.max.bytes=67108865\n",
                 ":2: controller.quorum.fetch.snapshot.max.bytes: out of range: \"67108865\" "
                 "(must be between 1 and 67108864)");
    expect_error("node.id=1\nmetadata.log.segment.bytes=13\n",
                 ":2: metadata.log.segment.bytes: out of range: \"13\" "
                 "(must be between 14 and 2147483647)");
    /* an outranked spelling is still checked */
    expect_error("node.id=1\nmetadata.max.retention.ms=5\nlog.retention.ms=x\n",
                 ":3: log.retention.ms: not a number: \"x\"");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_aliases),
        cmocka_unit_test(test_alias_precedence),
        cmocka_unit_test(test_errors),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    if (props_path[0])
        unlink(props_path);
    return rc;
}
