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
#include "config_internal.h"

/* Writes text to a fresh temporary file; the path is kept in a static buffer
 * until the next call. */
static char props_path[64];

static void remove_props(void)
{
    if (props_path[0])
        unlink(props_path);
    props_path[0] = '\0';
}

static const char *write_props(const char *text)
{
    char *path = props_path;
    if (path[0])
        unlink(path);
    strcpy(path, "/tmp/kq-config-test-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    size_t n = strlen(text);
    assert_int_equal(write(fd, text, n), (ssize_t)n);
    close(fd);
    return path;
}

/* Loads text; returns the rc and leaves warnings (if any) in warn_out. */
static int load_text(const char *text, kq_config *cfg, char *err, size_t errlen,
                     char *warn_out, size_t warnlen)
{
    FILE *w = tmpfile();
    assert_non_null(w);
    int rc = kq_config_load_warn(write_props(text), cfg, err, errlen, w);
    if (warn_out) {
        rewind(w);
        size_t got = fread(warn_out, 1, warnlen - 1, w);
        warn_out[got] = '\0';
    }
    fclose(w);
    return rc;
}

/* Asserts the load fails with exactly "<tmpfile>:<suffix>". */
static void expect_error(const char *text, const char *suffix)
{
    kq_config cfg;
    char err[1024], want[1200];
    int rc = load_text(text, &cfg, err, sizeof err, NULL, 0);
    assert_string_equal(cfg.path, props_path);
    snprintf(want, sizeof want, "%s%s", props_path, suffix);
    if (rc != -1 || strcmp(err, want) != 0)
        fail_msg("rc=%d\n  got:  %s\n  want: %s", rc, err, want);
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static void test_defaults(void **state)
{
    (void)state;
    kq_config cfg;
    char err[512], warn[512];
    assert_int_equal(load_text("broker.id=7\n", &cfg, err, sizeof err, warn,
                               sizeof warn), 0);
    assert_string_equal(warn, "");
    assert_int_equal(cfg.node_id, 7);
    assert_string_equal(cfg.listener_host, "");
    assert_int_equal(cfg.listener_port, 9092);
    assert_int_equal(cfg.voter_count, 1);
    assert_int_equal(cfg.voters[0].id, 7);
    assert_false(cfg.voters_static);
    assert_string_equal(cfg.voters[0].host, "localhost");
    assert_int_equal(cfg.voters[0].port, 9092);
    assert_string_equal(cfg.log_dir, "/tmp/kraft-logs");
    assert_false(cfg.verbose);
    assert_int_equal(cfg.election_timeout_ms, 1000);
    assert_int_equal(cfg.fetch_timeout_ms, 2000);
    assert_int_equal(cfg.election_backoff_max_ms, 1000);
    assert_int_equal(cfg.request_timeout_ms, 2000);
    assert_int_equal(cfg.retry_backoff_ms, 20);
    assert_int_equal(cfg.append_linger_ms, 0);
    assert_int_equal(cfg.segment_bytes, 1073741824u);
    assert_int_equal(cfg.socket_request_max_bytes, 104857600);
    assert_int_equal(cfg.queued_max_request_bytes, 268435456u);
    assert_int_equal(cfg.connections_max_idle_ms, 600000);
    assert_string_equal(cfg.cluster_id, "kq-raft-test-cluster");
}

static void test_raft_properties(void **state)
{
    (void)state;
    kq_config cfg;
    char err[512], warn[512];
    const char *text = "# single node\n"
                       "broker.id=1\n"
                       "listeners=PLAINTEXT://localhost:9092\n"
                       "quorum.voters=1@localhost:9092\n"
                       "log.dirs=/tmp/raft-logs\n"
                       "verbose=true\n";
    assert_int_equal(load_text(text, &cfg, err, sizeof err, warn, sizeof warn), 0);
    assert_string_equal(warn, "");
    assert_int_equal(cfg.node_id, 1);
    assert_string_equal(cfg.listener_host, "localhost");
    assert_int_equal(cfg.listener_port, 9092);
    assert_int_equal(cfg.voter_count, 1);
    assert_int_equal(cfg.voters[0].id, 1);
    assert_true(cfg.voters_static);
    assert_string_equal(cfg.voters[0].host, "localhost");
    assert_string_equal(cfg.log_dir, "/tmp/raft-logs");
    assert_true(cfg.verbose);
}

static void check_three(const kq_config *cfg)
{
    assert_int_equal(cfg->voter_count, 3);
    assert_true(cfg->voters_static);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(cfg->voters[i].id, i + 1);
        assert_string_equal(cfg->voters[i].host, "localhost");
        assert_int_equal(cfg->voters[i].port, 9092 + i);
    }
}

static void test_voter_spellings(void **state)
{
    (void)state;
    kq_config cfg;
    char err[512], warn[1024];
    const char *texts[] = {
        "broker.id=2\nquorum.voters=1@localhost:9092,2@localhost:9093,3@localhost:9094\n",
        "node.id=2\ncontroller.quorum.voters = 1@localhost:9092, 2@localhost:9093 ,3@localhost:9094\n",
        "broker.id=2\nquorum.bootstrap.servers=localhost:9092,localhost:9093,localhost:9094\n"
        "quorum.bootstrap.voters=1,2,3\n",
        "broker.id=2\ncontroller.quorum.bootstrap.servers=localhost:9092,localhost:9093,localhost:9094\n"
        "quorum.bootstrap.voters=1,2,3\n",
        "broker.id=2\ncontroller.quorum.bootstrap.servers=localhost:9092,localhost:9093,localhost:9094\n"
        "controller.quorum.bootstrap.voters=1,2,3\n",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        if (load_text(texts[i], &cfg, err, sizeof err, warn, sizeof warn) != 0)
            fail_msg("case %zu: %s", i, err);
        assert_string_equal(warn, "");
        assert_int_equal(cfg.node_id, 2);
        check_three(&cfg);
    }
    /* bootstrap voters matched by position, not sorted */
    assert_int_equal(load_text("broker.id=9\nquorum.bootstrap.servers=a:1,b:2\n"
                               "quorum.bootstrap.voters=9,4\n",
                               &cfg, err, sizeof err, NULL, 0), 0);
    assert_int_equal(cfg.voters[0].id, 9);
    assert_string_equal(cfg.voters[0].host, "a");
    assert_int_equal(cfg.voters[1].id, 4);
    assert_int_equal(cfg.voters[1].port, 2);
    /* alone (Kafka 3.9+, KIP-853): where to ask for the leader, no voters */
    assert_int_equal(load_text("node.id=9\ncontroller.quorum.bootstrap.servers=a:1,b:2\n",
                               &cfg, err, sizeof err, NULL, 0), 0);
    assert_false(cfg.voters_static);
    assert_int_equal(cfg.bootstrap_server_count, 2);
    assert_int_equal(cfg.bootstrap_servers[0].id, -2);
    assert_int_equal(cfg.bootstrap_servers[1].id, -3);
    assert_string_equal(cfg.bootstrap_servers[1].host, "b");
}

static void test_seed_quorum_file(void **state)
{
    (void)state;
    kq_config cfg;
    char err[512], warn[1024], want[600];
    const char *text = "broker.id=3\n"
                       "listeners=PLAINTEXT://localhost:9094\n"
                       "quorum.bootstrap.servers=localhost:9092,localhost:9093,localhost:9094\n"
                       "quorum.bootstrap.voters=1,2,3\n"
                       "log.dirs=/tmp/raft-logs-3\n"
                       "verbose=true\n"
                       "zookeeper.connect=localhost:2181\n";
    assert_int_equal(load_text(text, &cfg, err, sizeof err, warn, sizeof warn), 0);
    check_three(&cfg);
    assert_int_equal(cfg.listener_port, 9094);
    assert_string_equal(cfg.log_dir, "/tmp/raft-logs-3");
    snprintf(want, sizeof want,
             "warning: %s:7: zookeeper.connect is not used by this server\n", props_path);
    assert_string_equal(warn, want);
}

/* The quorum timing fields, in the order of their keys. */
static void assert_timings(const kq_config *cfg, int election, int fetch, int backoff_max,
                           int request, int retry, int linger)
{
    assert_int_equal(cfg->election_timeout_ms, election);
    assert_int_equal(cfg->fetch_timeout_ms, fetch);
    assert_int_equal(cfg->election_backoff_max_ms, backoff_max);
    assert_int_equal(cfg->request_timeout_ms, request);
    assert_int_equal(cfg->retry_backoff_ms, retry);
    assert_int_equal(cfg->append_linger_ms, linger);
}

static void test_timing_keys_both_spellings(void **state)
{
    (void)state;
    kq_config cfg;
    char err[512];
    assert_int_equal(load_text("broker.id=1\n"
                               "quorum.election.timeout.ms=111\n"
                               "quorum.fetch.timeout.ms=222\n"
                               "quorum.election.backoff.max.ms=333\n"
                               "quorum.request.timeout.ms=444\n"
                               "quorum.retry.backoff.ms=0\n"
                               "quorum.append.linger.ms=5\n"
                               "log.segment.bytes=14\n"
                               "socket.request.max.bytes=1000\n"
                               "cluster.id=abc\n",
                               &cfg, err, sizeof err, NULL, 0), 0);
    assert_timings(&cfg, 111, 222, 333, 444, 0, 5);
    assert_int_equal(cfg.segment_bytes, 14);
    assert_int_equal(cfg.socket_request_max_bytes, 1000);
    assert_string_equal(cfg.cluster_id, "abc");
    assert_int_equal(load_text("broker.id=1\n"
                               "controller.quorum.election.timeout.ms=11\n"
                               "controller.quorum.fetch.timeout.ms=22\n"
                               "controller.quorum.election.backoff.max.ms=33\n"
                               "controller.quorum.request.timeout.ms=44\n"
                               "controller.quorum.retry.backoff.ms=55\n"
                               "controller.quorum.append.linger.ms=66\n",
                               &cfg, err, sizeof err, NULL, 0), 0);
    assert_timings(&cfg, 11, 22, 33, 44, 55, 66);
}

static void test_log_dir_choice(void **state)
{
    (void)state;
    kq_config cfg;
    char err[512];
    assert_int_equal(load_text("broker.id=1\nlog.dirs= /a/b , /c/d\n", &cfg, err,
                               sizeof err, NULL, 0), 0);
    assert_string_equal(cfg.log_dir, "/a/b");
    assert_int_equal(load_text("broker.id=1\nlog.dir=/x\n", &cfg, err, sizeof err,
                               NULL, 0), 0);
    assert_string_equal(cfg.log_dir, "/x");
    assert_int_equal(load_text("broker.id=1\nlog.dir=/x\nlog.dirs=/y\n"
                               "metadata.log.dir=/m\n",
                               &cfg, err, sizeof err, NULL, 0), 0);
    assert_string_equal(cfg.log_dir, "/m");
    assert_int_equal(load_text("broker.id=1\nlog.dir=/x\nlog.dirs=/y\n", &cfg, err,
                               sizeof err, NULL, 0), 0);
    assert_string_equal(cfg.log_dir, "/y");
}

static void test_syntax_tolerance(void **state)
{
    (void)state;
    kq_config cfg;
    char err[512];
    char text[2048];
    char longdir[600];
    memset(longdir, 'd', sizeof longdir - 1);
    longdir[0] = '/';
    longdir[sizeof longdir - 1] = '\0';
    snprintf(text, sizeof text,
             "! bang comment\r\n"
             "   # indented comment\n"
             "\n"
             "  broker.id : 4\r\n"
             "    listeners=PLAINTEXT://[::1]:19092\n"
             "cluster.id=a;b ;c\n"
             "log.dirs=%s\n",
             longdir);
    if (load_text(text, &cfg, err, sizeof err, NULL, 0) != 0)
        fail_msg("%s", err);
    assert_int_equal(cfg.node_id, 4);
    assert_string_equal(cfg.listener_host, "::1");
    assert_int_equal(cfg.listener_port, 19092);
    assert_string_equal(cfg.cluster_id, "a;b ;c");
    assert_string_equal(cfg.log_dir, longdir);
    /* the implicit single voter advertises the listener host */
    assert_string_equal(cfg.voters[0].host, "::1");
    assert_int_equal(load_text("broker.id=1\nlisteners=PLAINTEXT://0.0.0.0:9000\n",
                               &cfg, err, sizeof err, NULL, 0), 0);
    assert_string_equal(cfg.listener_host, "0.0.0.0");
    assert_string_equal(cfg.voters[0].host, "localhost");
    assert_int_equal(cfg.voters[0].port, 9000);
}

static void test_unknown_keys_warn_once_each(void **state)
{
    (void)state;
    kq_config cfg;
    char err[512], warn[2048], want[2048];
    const char *text = "zookeeper.connect=localhost:2181\n"
                       "broker.id=1\n"
                       "num.network.threads=3\n"
                       "no.such.key=1\n";
    assert_int_equal(load_text(text, &cfg, err, sizeof err, warn, sizeof warn), 0);
    assert_int_equal(count_lines(warn), 3);
    snprintf(want, sizeof want,
             "warning: %s:1: zookeeper.connect is not used by this server\n"
             "warning: %s:3: num.network.threads is not used by this server\n"
             "warning: %s:4: no.such.key is not used by this server\n",
             props_path, props_path, props_path);
    assert_string_equal(warn, want);
}

static void test_errors_numbers(void **state)
{
    (void)state;
    expect_error("broker.id=1\n\nquorum.election.timeout.ms=abc\n",
                 ":3: quorum.election.timeout.ms: not a number: \"abc\"");
    expect_error("broker.id=1\ncontroller.quorum.fetch.timeout.ms=12x\n",
                 ":2: controller.quorum.fetch.timeout.ms: not a number: \"12x\"");
    expect_error("broker.id=1\nquorum.request.timeout.ms=0\n",
                 ":2: quorum.request.timeout.ms: out of range: \"0\" "
                 "(must be between 1 and 2147483647)");
    expect_error("broker.id=1\nlog.segment.bytes=13\n",
                 ":2: log.segment.bytes: out of range: \"13\" "
                 "(must be between 14 and 2147483647)");
    expect_error("broker.id=1\nquorum.retry.backoff.ms=99999999999999999999999\n",
                 ":2: quorum.retry.backoff.ms: out of range: \"99999999999999999999999\" "
                 "(must be between 0 and 2147483647)");
    expect_error("broker.id=1\nquorum.append.linger.ms=1001\n",
                 ":2: quorum.append.linger.ms: out of range: \"1001\" "
                 "(must be between 0 and 1000)");
    expect_error("broker.id=-1\n",
                 ":1: broker.id: out of range: \"-1\" (must be between 0 and 2147483647)");
    expect_error("broker.id=\n", ":1: broker.id: not a number: \"\"");
    expect_error("broker.id=1\nverbose=yes please\n",
                 ":2: verbose: not a boolean (true or false): \"yes please\"");
    /* the first error wins */
    expect_error("broker.id=x\nquorum.fetch.timeout.ms=y\n",
                 ":1: broker.id: not a number: \"x\"");
}

static void test_memory_keys(void **state)
{
    (void)state;
    kq_config cfg;
    char err[512], warn[512];
    assert_int_equal(load_text("broker.id=1\nsocket.request.max.bytes=1000\n"
                               "queued.max.request.bytes=1000\nconnections.max.idle.ms=-1\n",
                               &cfg, err, sizeof err, warn, sizeof warn), 0);
    assert_string_equal(warn, "");
    assert_int_equal(cfg.socket_request_max_bytes, 1000);
    assert_int_equal(cfg.queued_max_request_bytes, 1000);
    assert_int_equal(cfg.connections_max_idle_ms, -1);
    assert_int_equal(load_text("broker.id=1\nqueued.max.request.bytes=17179869184\n"
                               "connections.max.idle.ms=250\n",
                               &cfg, err, sizeof err, NULL, 0), 0);
    assert_int_equal(cfg.queued_max_request_bytes, 17179869184ull);
    assert_int_equal(cfg.connections_max_idle_ms, 250);
    /* the cross-check does not depend on the order of the keys */
    assert_int_equal(load_text("broker.id=1\nqueued.max.request.bytes=400000000\n"
                               "socket.request.max.bytes=300000000\n",
                               &cfg, err, sizeof err, NULL, 0), 0);
}

static void test_errors_memory_keys(void **state)
{
    (void)state;
    expect_error("broker.id=1\nqueued.max.request.bytes=-1\n",
                 ":2: queued.max.request.bytes: -1 (unbounded in Kafka) is not supported: this "
                 "server always bounds the memory of requests being read (default 268435456)");
    expect_error("broker.id=1\nqueued.max.request.bytes=0\n",
                 ":2: queued.max.request.bytes: 0 (unbounded in Kafka) is not supported: this "
                 "server always bounds the memory of requests being read (default 268435456)");
    expect_error("broker.id=1\nqueued.max.request.bytes=lots\n",
                 ":2: queued.max.request.bytes: not a number: \"lots\"");
    expect_error("broker.id=1\nqueued.max.request.bytes=1000\n",
                 ":2: queued.max.request.bytes: 1000 is less than socket.request.max.bytes "
                 "(104857600): one request of the largest size must fit");
    expect_error("broker.id=1\nqueued.max.request.bytes=1000\nsocket.request.max.bytes=1001\n",
                 ":2: queued.max.request.bytes: 1000 is less than socket.request.max.bytes "
                 "(1001): one request of the largest size must fit");
    expect_error("broker.id=1\n\nsocket.request.max.bytes=300000000\n",
                 ":3: socket.request.max.bytes: 300000000 exceeds queued.max.request.bytes "
                 "(268435456, the default): raise queued.max.request.bytes to at least this");
    expect_error("broker.id=1\nconnections.max.idle.ms=0\n",
                 ":2: connections.max.idle.ms: must be positive, or -1 to never close idle "
                 "connections");
    expect_error("broker.id=1\nconnections.max.idle.ms=-2\n",
                 ":2: connections.max.idle.ms: out of range: \"-2\" "
                 "(must be between -1 and 9223372036854775807)");
    expect_error("broker.id=1\nconnections.max.idle.ms=10m\n",
                 ":2: connections.max.idle.ms: not a number: \"10m\"");
}

static void test_errors_listener(void **state)
{
    (void)state;
    /* An SSL listener needs a keystore (config_ssl.c; test_config_ssl.c). */
    expect_error("broker.id=1\nlisteners=SSL://localhost:9093\n",
                 ":2: ssl.keystore.location: required for a TLS listener (listener SSL)");
    expect_error("broker.id=1\nlisteners=SASL_PLAINTEXT://localhost:9093\n",
                 ":2: listeners: listener SASL_PLAINTEXT is SASL: set sasl.enabled.mechanisms "
                 "(Kafka's default, GSSAPI, is not supported)");
    expect_error("broker.id=1\nlisteners=SASL_PLAINTEXT://localhost:9093\n"
                 "sasl.enabled.mechanisms=PLAIN,GSSAPI\n",
                 ":3: sasl.enabled.mechanisms: SASL mechanism GSSAPI is not supported (PLAIN, "
                 "SCRAM-SHA-256, SCRAM-SHA-512)");
    expect_error("broker.id=1\nlisteners=SASL_PLAINTEXT://localhost:9093\n"
                 "listener.name.sasl_plaintext.sasl.enabled.mechanisms=OAUTHBEARER\n",
                 ":3: listener.name.sasl_plaintext.sasl.enabled.mechanisms: SASL mechanism "
                 "OAUTHBEARER is not supported (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512)");
    expect_error("broker.id=1\nlisteners=SASL_PLAINTEXT://localhost:9093\n"
                 "sasl.enabled.mechanisms=SCRAM-SHA-256\n",
                 ":2: listeners: a SASL listener needs sasl.credentials.file (see "
                 "kq-scram-credential)");
    expect_error("broker.id=1\nlisteners=SASL_PLAINTEXT://localhost:9093\n"
                 "sasl.enabled.mechanisms=PLAIN\nsasl.credentials.file=/c\n"
                 "quorum.voters=1@localhost:9093,2@localhost:9094\n",
                 ":2: listeners: listener SASL_PLAINTEXT carries the voters' traffic and cannot "
                 "be SASL (use SSL with ssl.client.auth=required, or name a controller listener)");
    expect_error("broker.id=1\nlisteners=FOO://localhost:9093\n",
                 ":2: listeners: no security protocol for listener FOO (add FOO:PLAINTEXT to "
                 "listener.security.protocol.map)");
    expect_error("broker.id=1\nlisteners=localhost:9093\n",
                 ":2: listeners: malformed listener (expected NAME://host:port): "
                 "\"localhost:9093\"");
    expect_error("broker.id=1\nlisteners=PLAINTEXT://localhost:99999\n",
                 ":2: listeners: bad port in \"localhost:99999\": out of range: \"99999\" "
                 "(must be between 1 and 65535)");
    expect_error("broker.id=1\nlisteners=PLAINTEXT://:9092,PLAINTEXT://:9093\n",
                 ":2: listeners: listener name PLAINTEXT appears twice");
    expect_error("broker.id=1\nlisteners=PLAINTEXT://:9092,CONTROLLER://:9092\n"
                 "listener.security.protocol.map=CONTROLLER:PLAINTEXT\n",
                 ":2: listeners: listeners PLAINTEXT and CONTROLLER use the same address");
    expect_error("broker.id=1\nlisteners=PLAINTEXT://:9092,CONTROLLER://:9093\n"
                 "listener.security.protocol.map=CONTROLLER:TLS\n",
                 ":3: listener.security.protocol.map: unknown security protocol TLS for "
                 "listener CONTROLLER");
    expect_error("broker.id=1\nlisteners=PLAINTEXT://:9092,CONTROLLER://:9093\n"
                 "listener.security.protocol.map=CONTROLLER:SASL_SSL\n",
                 ":2: listeners: listener CONTROLLER is SASL: set sasl.enabled.mechanisms "
                 "(Kafka's default, GSSAPI, is not supported)");
    expect_error("broker.id=1\nlisteners=PLAINTEXT://:9092,CONTROLLER://:9093\n"
                 "listener.security.protocol.map=CONTROLLER:PLAINTEXT\n"
                 "controller.listener.names=QUORUM\n",
                 ":4: controller.listener.names: QUORUM is not one of the listeners");
}

/* Named listeners: the controller listener is the voters' endpoint, the
 * other one the client listener. */
static void test_listener_set(void **state)
{
    (void)state;
    kq_config cfg;
    char err[1024];
    int rc = load_text("node.id=1\nlisteners=PLAINTEXT://:9092,CONTROLLER://127.0.0.1:9093\n"
                       "listener.security.protocol.map=CONTROLLER:PLAINTEXT,"
                       "PLAINTEXT:PLAINTEXT\ncontroller.listener.names=CONTROLLER\n",
                       &cfg, err, sizeof err, NULL, 0);
    if (rc != 0)
        fail_msg("%s", err);
    assert_int_equal(cfg.listener_count, 2);
    assert_true(cfg.controller_listener_named);
    assert_false(cfg.listeners[0].controller);
    assert_true(cfg.listeners[1].controller);
    assert_string_equal(cfg.listener_host, "");
    assert_int_equal(cfg.listener_port, 9092);
    assert_int_equal(cfg.voter_count, 1); /* itself, at its controller listener */
    assert_string_equal(cfg.voters[0].host, "127.0.0.1");
    assert_int_equal(cfg.voters[0].port, 9093);
    assert_false(cfg.listeners[0].advertised);

    rc = load_text("node.id=1\nlisteners=PLAINTEXT://:9092,SASL_PLAINTEXT://:9094\n"
                   "sasl.enabled.mechanisms=PLAIN\n"
                   "listener.name.sasl_plaintext.sasl.enabled.mechanisms=SCRAM-SHA-256,"
                   "SCRAM-SHA-512\nsasl.credentials.file=/etc/kq/creds\n",
                   &cfg, err, sizeof err, NULL, 0);
    if (rc != 0)
        fail_msg("%s", err);
    assert_false(cfg.listeners[0].sasl);
    assert_true(cfg.listeners[1].sasl);
    assert_int_equal(cfg.listeners[1].sasl_mechanisms, (1u << 1) | (1u << 2)); /* the override */
    assert_string_equal(cfg.sasl_credentials_file, "/etc/kq/creds");
    assert_int_equal(cfg.sasl_credentials_line, 5);

    /* A certificate's DN holds commas: only ';' or a ',' before "User:" separate. */
    rc = load_text("node.id=1\nsuper.users=User:a;User:b\nauthorizer.class.name=x\n"
                   "acl.describe.principals=User:CN=client,OU=clients,O=kq, User:alice,User:bob\n",
                   &cfg, err, sizeof err, NULL, 0);
    if (rc != 0)
        fail_msg("%s", err);
    assert_true(cfg.authorizer_enabled);
    assert_int_equal(cfg.super_users.count, 2);
    assert_string_equal(cfg.super_users.names[1], "User:b");
    assert_int_equal(cfg.acl[KQ_ACL_DESCRIBE].count, 3);
    assert_string_equal(cfg.acl[KQ_ACL_DESCRIBE].names[0], "User:CN=client,OU=clients,O=kq");
    assert_string_equal(cfg.acl[KQ_ACL_DESCRIBE].names[1], "User:alice");
    expect_error("broker.id=1\nsuper.users=alice\n",
                 ":2: super.users: principal \"alice\" is not of the form User:name");

    rc = load_text("node.id=1\nlisteners=PLAINTEXT://:9092\n"
                   "advertised.listeners=PLAINTEXT://public.example:19092\n",
                   &cfg, err, sizeof err, NULL, 0);
    if (rc != 0)
        fail_msg("%s", err);
    assert_true(cfg.listeners[0].advertised);
    assert_string_equal(cfg.listeners[0].advertised_host, "public.example");
    assert_int_equal(cfg.listeners[0].advertised_port, 19092);
    assert_false(cfg.controller_listener_named);
    expect_error("broker.id=1\nlisteners=PLAINTEXT://:9092\n"
                 "advertised.listeners=CONTROLLER://h:1\n",
                 ":3: advertised.listeners: CONTROLLER is not one of the listeners");
    expect_error("broker.id=1\nlisteners=PLAINTEXT://:9092\n"
                 "advertised.listeners=PLAINTEXT://0.0.0.0:9092\n",
                 ":3: advertised.listeners: listener PLAINTEXT: 0.0.0.0 is not an address "
                 "clients can reach");
}

static void test_errors_voters(void **state)
{
    (void)state;
    expect_error("broker.id=4\nquorum.voters=1@localhost:9092,2@localhost:9093\n",
                 ":2: quorum.voters: this node's id 4 (broker.id) is not one of the voters");
    expect_error("node.id=4\nquorum.bootstrap.servers=a:1\nquorum.bootstrap.voters=1\n",
                 ":3: quorum.bootstrap.voters: this node's id 4 (node.id) is not one of "
                 "the voters");
    expect_error("broker.id=1\nquorum.bootstrap.servers=a:1,b:2\nquorum.bootstrap.voters=1,2,3\n",
                 ":3: quorum.bootstrap.voters: 3 voter ids but quorum.bootstrap.servers "
                 "(line 2) lists 2 servers");
    expect_error("broker.id=1\ncontroller.quorum.voters=1@a:1,1@b:2\n",
                 ":2: controller.quorum.voters: duplicate voter id 1");
    expect_error("broker.id=1\nquorum.bootstrap.servers=a:1,b:2\nquorum.bootstrap.voters=1,1\n",
                 ":3: quorum.bootstrap.voters: duplicate voter id 1");
    expect_error("broker.id=1\nquorum.voters=1@localhost\n",
                 ":2: quorum.voters: malformed voter \"1@localhost\": malformed address "
                 "(expected host:port): \"localhost\"");
    expect_error("broker.id=1\nquorum.voters=localhost:9092\n",
                 ":2: quorum.voters: malformed voter (expected id@host:port): "
                 "\"localhost:9092\"");
    expect_error("broker.id=1\nquorum.voters=x@localhost:9092\n",
                 ":2: quorum.voters: malformed voter \"x@localhost:9092\": bad id: "
                 "not a number: \"x\"");
    expect_error("broker.id=1\nquorum.voters=1@a:1,,2@b:2\n",
                 ":2: quorum.voters: empty element in list");
    expect_error("broker.id=1\nquorum.voters=1@a:1\nquorum.bootstrap.voters=1\n",
                 ":3: quorum.bootstrap.voters: cannot be combined with quorum.voters "
                 "(line 2); use one way of naming the voters");
}

static void test_errors_file_level(void **state)
{
    (void)state;
    kq_config cfg;
    char err[512];
    assert_int_equal(kq_config_load_warn("/nonexistent/dir/x.properties", &cfg, err,
                                         sizeof err, NULL), -1);
    assert_string_equal(err, "/nonexistent/dir/x.properties: cannot open: "
                             "No such file or directory");
    assert_int_equal(kq_config_load_warn("/tmp", &cfg, err, sizeof err, NULL), -1);
    assert_string_equal(err, "/tmp: cannot read: Is a directory");
    expect_error("listeners=PLAINTEXT://localhost:9092\n",
                 ": broker.id: required (set broker.id or node.id)");
    expect_error("broker.id=1\njust some words\n",
                 ":2: malformed line (expected key=value)");
    expect_error("broker.id=1\nnode.id=2\n", ":2: node.id: 2 differs from broker.id 1");
    char *huge = malloc(20000);
    assert_non_null(huge);
    strcpy(huge, "broker.id=1\nlog.dirs=/");
    size_t n = strlen(huge);
    memset(huge + n, 'x', 17000);
    strcpy(huge + n + 17000, "\n");
    expect_error(huge, ":2: line too long (max 16384 bytes)");
    free(huge);
}

static void test_value_parsers(void **state)
{
    (void)state;
    char why[256], host[16];
    uint16_t port;
    int64_t v;
    assert_int_equal(kq_config_parse_int("+12", 0, 100, &v, why, sizeof why), 0);
    assert_int_equal(v, 12);
    assert_int_equal(kq_config_parse_int("-", 0, 100, &v, why, sizeof why), -1);
    assert_int_equal(kq_config_parse_hostport("h:1", 3, host, sizeof host, &port,
                                              why, sizeof why), 0);
    assert_string_equal(host, "h");
    assert_int_equal(port, 1);
    assert_int_equal(kq_config_parse_hostport("::1:9092", 8, host, sizeof host,
                                              &port, why, sizeof why), -1);
    assert_string_equal(why, "malformed address (write IPv6 hosts as [addr]:port): "
                             "\"::1:9092\"");
    assert_int_equal(kq_config_parse_hostport("averyveryverylonghost:1", 23, host,
                                              sizeof host, &port, why, sizeof why), -1);
    kq_config_endpoint eps[KQ_CONFIG_VOTERS_MAX];
    int count = -1;
    assert_int_equal(kq_config_parse_voters("  ", eps, &count, why, sizeof why), 0);
    assert_int_equal(count, 0);
    char many[1024] = "";
    for (int i = 0; i <= KQ_CONFIG_VOTERS_MAX; i++) {
        char one[32];
        snprintf(one, sizeof one, "%s%d@h:%d", i ? "," : "", i, 1000 + i);
        strcat(many, one);
    }
    assert_int_equal(kq_config_parse_voters(many, eps, &count, why, sizeof why), -1);
    assert_string_equal(why, "too many voters (max 16)");
}

/* metrics.port (1..65535; unset: off) and metrics.host. */
static void test_metrics_keys(void **state)
{
    (void)state;
    kq_config cfg;
    char err[1024];
    if (load_text("node.id=1\n", &cfg, err, sizeof err, NULL, 0) != 0)
        fail_msg("%s", err);
    assert_int_equal(cfg.metrics_port, 0);
    assert_string_equal(cfg.metrics_host, "");
    if (load_text("node.id=1\nmetrics.port=9100\nmetrics.host=127.0.0.1\n", &cfg, err,
                  sizeof err, NULL, 0) != 0)
        fail_msg("%s", err);
    assert_int_equal(cfg.metrics_port, 9100);
    assert_string_equal(cfg.metrics_host, "127.0.0.1");
    kq_config bad;
    assert_int_equal(load_text("node.id=1\nmetrics.port=0\n", &bad, err, sizeof err, NULL, 0),
                     -1);
    assert_non_null(strstr(err, ":2: metrics.port: "));
    assert_int_equal(load_text("node.id=1\nmetrics.port=65536\n", &bad, err, sizeof err, NULL, 0),
                     -1);
    assert_non_null(strstr(err, "metrics.port"));
}

/* Issue 19: acl.cluster.action.principals (who may speak for the quorum)
 * and Kafka's connection.failed.authentication.delay.ms. */
static void test_auth_keys_issue19(void **state)
{
    (void)state;
    kq_config cfg;
    char err[512];
    assert_int_equal(load_text("broker.id=1\n", &cfg, err, sizeof err, NULL, 0), 0);
    assert_int_equal(cfg.failed_auth_delay_ms, 100);
    assert_int_equal(cfg.acl[KQ_ACL_CLUSTER_ACTION].count, 0);
    assert_int_equal(load_text("broker.id=1\nacl.cluster.action.principals=User:ANONYMOUS,User:n1\n"
                               "connection.failed.authentication.delay.ms=0\n",
                               &cfg, err, sizeof err, NULL, 0), 0);
    assert_int_equal(cfg.failed_auth_delay_ms, 0);
    assert_int_equal(cfg.acl[KQ_ACL_CLUSTER_ACTION].count, 2);
    assert_string_equal(cfg.acl[KQ_ACL_CLUSTER_ACTION].names[1], "User:n1");
    expect_error("broker.id=1\nconnection.failed.authentication.delay.ms=-1\n",
                 ":2: connection.failed.authentication.delay.ms: out of range: \"-1\" "
                 "(must be between 0 and 60000)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_raft_properties),
        cmocka_unit_test(test_voter_spellings),
        cmocka_unit_test(test_seed_quorum_file),
        cmocka_unit_test(test_timing_keys_both_spellings),
        cmocka_unit_test(test_log_dir_choice),
        cmocka_unit_test(test_syntax_tolerance),
        cmocka_unit_test(test_unknown_keys_warn_once_each),
        cmocka_unit_test(test_errors_numbers),
        cmocka_unit_test(test_memory_keys),
        cmocka_unit_test(test_errors_memory_keys),
        cmocka_unit_test(test_errors_listener),
        cmocka_unit_test(test_listener_set),
        cmocka_unit_test(test_errors_voters),
        cmocka_unit_test(test_errors_file_level),
        cmocka_unit_test(test_value_parsers),
        cmocka_unit_test(test_metrics_keys),
        cmocka_unit_test(test_auth_keys_issue19),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    remove_props();
    return rc;
}
