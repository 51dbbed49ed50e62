/* The group coordinator keys (group.max.size, group.{min,max}.session.
 * timeout.ms, group.initial.rebalance.delay.ms): defaults, values, errors. */
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
    strcpy(props_path, "/tmp/kq-config-grp-XXXXXX");
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
    assert_int_equal(cfg.group_max_size, KQ_GROUP_MAX_SIZE_DEFAULT);
    assert_int_equal(cfg.group_min_session_timeout_ms, 6000);
    assert_int_equal(cfg.group_max_session_timeout_ms, 1800000);
    assert_int_equal(cfg.group_initial_rebalance_delay_ms, 3000);
}

static void test_values(void **state)
{
    (void)state;
    kq_config cfg;
    load_ok("node.id=1\ngroup.max.size=5\ngroup.min.session.timeout.ms=100\n"
            "group.max.session.timeout.ms=100\ngroup.initial.rebalance.delay.ms=0\n",
            &cfg);
    assert_int_equal(cfg.group_max_size, 5);
    assert_int_equal(cfg.group_min_session_timeout_ms, 100);
    assert_int_equal(cfg.group_max_session_timeout_ms, 100);
    assert_int_equal(cfg.group_initial_rebalance_delay_ms, 0);
    load_ok("node.id=1\ngroup.max.size=1000\n", &cfg);
    assert_int_equal(cfg.group_max_size, 1000);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("node.id=1\ngroup.max.size=0\n",
                 ":2: group.max.size: out of range: \"0\" (must be between 1 and 1000)");
    expect_error("node.id=1\ngroup.max.size=1001\n",
                 ":2: group.max.size: out of range: \"1001\" (must be between 1 and 1000)");
    expect_error("node.id=1\ngroup.initial.rebalance.delay.ms=-1\n",
                 ":2: group.initial.rebalance.delay.ms: out of range: \"-1\" "
                 "(must be between 0 and 2147483647)");
    expect_error("node.id=1\ngroup.max.session.timeout.ms=abc\n",
                 ":2: group.max.session.timeout.ms: not a number: \"abc\"");
    expect_error("node.id=1\ngroup.min.session.timeout.ms=2147483648\n",
                 ":2: group.min.session.timeout.ms: out of range: \"2147483648\" "
                 "(must be between 0 and 2147483647)");
    /* min <= max: the max is blamed when the file set it ... */
    expect_error("node.id=1\ngroup.max.session.timeout.ms=5000\n",
                 ":2: group.max.session.timeout.ms: group.min.session.timeout.ms (6000) "
                 "exceeds group.max.session.timeout.ms (5000)");
    expect_error("node.id=1\ngroup.max.session.timeout.ms=10\n\ngroup.min.session.timeout.ms=20\n",
                 ":2: group.max.session.timeout.ms: group.min.session.timeout.ms (20) "
                 "exceeds group.max.session.timeout.ms (10)");
    /* ... else the min */
    expect_error("node.id=1\n\ngroup.min.session.timeout.ms=1800001\n",
                 ":3: group.min.session.timeout.ms: group.min.session.timeout.ms (1800001) "
                 "exceeds group.max.session.timeout.ms (1800000)");
}

/* offsets.retention.minutes and offsets.retention.check.interval.ms
 * (issue 19): Kafka's defaults, minutes kept as ms, at least 1. */
static void test_offsets_retention(void **state)
{
    (void)state;
    kq_config cfg;
    load_ok("node.id=1\n", &cfg);
    assert_int_equal(cfg.offsets_retention_ms, 10080LL * 60000);
    assert_int_equal(cfg.offsets_retention_check_interval_ms, 600000);
    load_ok("node.id=1\noffsets.retention.minutes=2\noffsets.retention.check.interval.ms=50\n",
            &cfg);
    assert_int_equal(cfg.offsets_retention_ms, 120000);
    assert_int_equal(cfg.offsets_retention_check_interval_ms, 50);
    expect_error("node.id=1\noffsets.retention.minutes=0\n",
                 ":2: offsets.retention.minutes: out of range: \"0\" "
                 "(must be between 1 and 2147483647)");
    expect_error("node.id=1\noffsets.retention.check.interval.ms=x\n",
                 ":2: offsets.retention.check.interval.ms: not a number: \"x\"");
}

/* quorum.topic.name, quorum.topic.id and produce.raft.record.check (issue
 * 22): defaults, the two ids Kafka's nodes use, and the refusals. */
static void test_partition_identity(void **state)
{
    (void)state;
    kq_config cfg;
    static const uint8_t one[16] = {[15] = 1}, two[16] = {[15] = 2};
    load_ok("node.id=1\n", &cfg);
    assert_string_equal(cfg.topic_name, "__cluster_metadata");
    assert_memory_equal(cfg.topic_id.bytes, one, 16);
    assert_false(cfg.raft_record_check);
    load_ok("node.id=1\nquorum.topic.name=__raft_performance_test\n", &cfg);
    assert_memory_equal(cfg.topic_id.bytes, two, 16);
    assert_true(cfg.raft_record_check);
    load_ok("node.id=1\nquorum.topic.name=__raft_performance_test\n"
            "produce.raft.record.check=false\n", &cfg);
    assert_false(cfg.raft_record_check);
    load_ok("node.id=1\nquorum.topic.name=mine\nquorum.topic.id=AAAAAAAAAAAAAAAAAAAAAg\n"
            "produce.raft.record.check=true\n", &cfg);
    assert_string_equal(cfg.topic_name, "mine");
    assert_memory_equal(cfg.topic_id.bytes, two, 16);
    assert_true(cfg.raft_record_check);
    expect_error("node.id=1\nquorum.topic.name=mine\n",
                 ":2: quorum.topic.id: required: quorum.topic.name is mine, whose topic id has "
                 "no default");
    expect_error("node.id=1\nquorum.topic.name=a b\n",
                 ":2: quorum.topic.name: \"a b\" is not a Kafka topic name (1-249 of a-z A-Z "
                 "0-9 . _ -)");
    expect_error("node.id=1\nquorum.topic.id=AAAAAAAAAAAAAAAAAAAAAA\n",
                 ":2: quorum.topic.id: the zero Uuid is not a topic id");
    expect_error("node.id=1\nquorum.topic.id=short\n",
                 ":2: quorum.topic.id: \"short\" is not a topic id (22 characters of base64url, "
                 "as Kafka writes a Uuid)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_offsets_retention),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_partition_identity),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_errors),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    if (props_path[0])
        unlink(props_path);
    return rc;
}
