/* ssl.* keys (config_ssl.c): listeners mapped to SSL, per-listener
 * overrides, controller.quorum.voter.principals, and every class of bad
 * TLS setting refused as "<file>:<line>: <key>: <reason>" at load time.
 * The certificates come from tests/unit/tls/gen-certs.sh. */
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
#include "kq/config_ssl.h"

static char certs[256];
static char props_path[64];

static int certs_setup(void **state)
{
    (void)state;
    snprintf(certs, sizeof certs, "/tmp/kq-config-ssl-XXXXXX");
    if (!mkdtemp(certs))
        return -1;
    char src[512];
    snprintf(src, sizeof src, "%s", __FILE__);
    char *slash = strrchr(src, '/');
    if (slash)
        *slash = '\0';
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "sh '%s/../tls/gen-certs.sh' '%s' >/dev/null 2>&1", src, certs);
    if (system(cmd) != 0) {
        fprintf(stderr, "gen-certs.sh failed (is the openssl CLI installed?)\n");
        return -1;
    }
    return 0;
}

static int certs_teardown(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", certs);
    if (props_path[0])
        unlink(props_path);
    return system(cmd) == 0 ? 0 : -1;
}

/* Loads text after replacing every "$C" with the certificate directory. */
static int load(const char *text, kq_config *cfg, char *err, size_t errlen)
{
    char buf[8192];
    size_t o = 0;
    for (const char *p = text; *p && o + sizeof certs < sizeof buf; p++) {
        if (p[0] == '$' && p[1] == 'C') {
            o += (size_t)snprintf(buf + o, sizeof buf - o, "%s", certs);
            p++;
        } else {
            buf[o++] = *p;
        }
    }
    buf[o] = '\0';
    if (props_path[0])
        unlink(props_path);
    strcpy(props_path, "/tmp/kq-config-ssl-test-XXXXXX");
    int fd = mkstemp(props_path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, buf, o), (ssize_t)o);
    close(fd);
    FILE *w = fopen("/dev/null", "w");
    int rc = kq_config_load_warn(props_path, cfg, err, errlen, w);
    fclose(w);
    return rc;
}

static kq_config cfg; /* large: not on the stack */

/* The load fails with an error that starts with "<file><prefix>" and
 * contains needle. */
static void expect_error(const char *text, const char *prefix, const char *needle)
{
    char err[1024], want[1200];
    int rc = load(text, &cfg, err, sizeof err);
    snprintf(want, sizeof want, "%s%s", props_path, prefix);
    if (rc != -1 || strncmp(err, want, strlen(want)) != 0 || !strstr(err, needle))
        fail_msg("rc=%d\n  got:  %s\n  want: %s ... %s", rc, err, want, needle);
    if (getenv("KQ_TEST_VERBOSE"))
        fprintf(stderr, "refused as expected: %s\n", err);
}

#define BASE "node.id=1\nlisteners=SSL://:9093\n"

static void test_ssl_listener_and_overrides(void **state)
{
    (void)state;
    char err[1024];
    int rc = load("node.id=1\nlisteners=CLIENT://:9092,CONTROLLER://localhost:9093\n"
                  "listener.security.protocol.map=CLIENT:SSL,CONTROLLER:SSL\n"
                  "controller.listener.names=CONTROLLER\n"
                  "controller.quorum.voters=1@localhost:9093,2@localhost:9094\n"
                  "ssl.keystore.location=$C/node1.pem\n"
                  "ssl.truststore.location=$C/ca.crt\n"
                  "listener.name.controller.ssl.client.auth=required\n"
                  "listener.name.controller.ssl.keystore.type=PKCS12\n"
                  "listener.name.controller.ssl.keystore.location=$C/node1.p12\n"
                  "listener.name.controller.ssl.keystore.password=storepass\n"
                  "controller.quorum.voter.principals=1:User:CN=node1,2:User:node2\n",
                  &cfg, err, sizeof err);
    if (rc != 0)
        fail_msg("%s", err);
    assert_int_equal(cfg.listeners[0].protocol, KQ_PROTOCOL_SSL);
    assert_int_equal(cfg.listeners[1].protocol, KQ_PROTOCOL_SSL);
    assert_int_equal(kq_config_peer_listener(&cfg), 1);
    int line = 0;
    assert_null(kq_config_ssl_value(&cfg, 0, KQ_SSL_CLIENT_AUTH, NULL));
    assert_string_equal(kq_config_ssl_value(&cfg, 1, KQ_SSL_CLIENT_AUTH, &line), "required");
    assert_int_equal(line, 8);
    assert_string_equal(kq_config_ssl_value(&cfg, 1, KQ_SSL_TRUSTSTORE_LOCATION, &line) +
                            strlen(certs),
                        "/ca.crt");
    assert_int_equal(line, 7);
    const char *ks = kq_config_ssl_value(&cfg, 0, KQ_SSL_KEYSTORE_LOCATION, NULL);
    assert_non_null(strstr(ks, "node1.pem"));
    ks = kq_config_ssl_value(&cfg, 1, KQ_SSL_KEYSTORE_LOCATION, NULL);
    assert_non_null(strstr(ks, "node1.p12"));
    assert_int_equal(cfg.voter_principal_count, 2);
    assert_int_equal(kq_config_voter_for_principal(&cfg, "User:CN=node1"), 1);
    assert_int_equal(kq_config_voter_for_principal(&cfg, "User:node2"), 2);
    assert_int_equal(kq_config_voter_for_principal(&cfg, "User:node3"), -1);
    assert_int_equal(kq_config_voter_for_principal(&cfg, NULL), -1);
    kq_tls_ctx *ctx = kq_config_tls_client(&cfg, 1, err, sizeof err);
    assert_non_null(ctx);
    kq_tls_ctx_destroy(ctx);
    /* The last of two lines for one key wins, as in a Properties file. */
    rc = load(BASE "ssl.keystore.location=/nonexistent\nssl.keystore.location=$C/node1.pem\n",
              &cfg, err, sizeof err);
    if (rc != 0)
        fail_msg("%s", err);
    assert_int_equal(cfg.listeners[0].protocol, KQ_PROTOCOL_SSL);
}

static void test_bad_stores(void **state)
{
    (void)state;
    expect_error(BASE, ":2: ssl.keystore.location: ", "required");
    expect_error(BASE "ssl.keystore.location=/nonexistent/ks.pem\n",
                 ":3: ssl.keystore.location: ", "No such file");
    expect_error(BASE "ssl.keystore.location=$C/mismatch.pem\n", ":3: ssl.keystore.", "match");
    expect_error(BASE "ssl.keystore.type=PKCS12\nssl.keystore.location=$C/node1.p12\n"
                      "ssl.keystore.password=wrong\n",
                 ":5: ssl.keystore.password: ", "");
    expect_error(BASE "ssl.keystore.location=$C/node1-enc.pem\nssl.key.password=nope\n",
                 ":4: ssl.key.password: ", "");
    expect_error(BASE "ssl.keystore.location=$C/node1.pem\n"
                      "ssl.truststore.location=/nonexistent/ts.pem\n",
                 ":4: ssl.truststore.location: ", "No such file");
    expect_error(BASE "ssl.keystore.type=JKS\n", ":3: ssl.keystore.type: ", "JKS");
    /* The per-listener form is the one named when it is the one used. */
    expect_error(BASE "ssl.keystore.location=$C/node1.pem\n"
                      "listener.name.ssl.ssl.keystore.location=/nonexistent/x.pem\n",
                 ":4: listener.name.ssl.ssl.keystore.location: ", "No such file");
    expect_error(BASE "ssl.keystore.location=$C/node1.pem\n"
                      "listener.name.other.ssl.client.auth=required\n",
                 ":4: listener.name.other.ssl.client.auth: ", "no listener is named other");
}

static void test_bad_protocols_and_values(void **state)
{
    (void)state;
    expect_error(BASE "ssl.keystore.location=$C/node1.pem\nssl.enabled.protocols=TLSv1.1\n",
                 ":4: ssl.enabled.protocols: ", "TLSv1.1");
    expect_error(BASE "ssl.keystore.location=$C/node1.pem\nssl.cipher.suites=TLS_NO_SUCH_SUITE\n",
                 ":4: ssl.cipher.suites: ", "TLS_NO_SUCH_SUITE");
    expect_error(BASE "ssl.client.auth=sometimes\n", ":3: ssl.client.auth: ", "sometimes");
    expect_error(BASE "ssl.endpoint.identification.algorithm=ldap\n",
                 ":3: ssl.endpoint.identification.algorithm: ", "ldap");
    expect_error(BASE "ssl.keystore.location=$C/node1.pem\n"
                      "ssl.principal.mapping.rules=RULE:^CN=(.*)$\n",
                 ":4: ssl.principal.mapping.rules: ", "");
    expect_error("node.id=1\nlisteners=SASL_SSL://:9093\n", ":2: listeners: ",
                 "set sasl.enabled.mechanisms");
    expect_error("node.id=1\nlisteners=SASL_SSL://:9093\nsasl.enabled.mechanisms=PLAIN\n"
                 "sasl.credentials.file=/nonexistent\n", ":2: ssl.keystore.location: ",
                 "required for a TLS listener");
}

static void test_bad_voter_principals(void **state)
{
    (void)state;
    expect_error("node.id=1\ncontroller.quorum.voter.principals=1:User:a\n",
                 ":2: controller.quorum.voter.principals: ", "needs the controller listener");
    expect_error(BASE "ssl.keystore.location=$C/node1.pem\nssl.truststore.location=$C/ca.crt\n"
                      "ssl.client.auth=required\n"
                      "controller.quorum.voter.principals=1:User:a,7:User:b\n",
                 ":6: controller.quorum.voter.principals: ", "7 is not one of the voters");
    expect_error(BASE "controller.quorum.voter.principals=1:node1\n",
                 ":3: controller.quorum.voter.principals: ", "User:name");
    expect_error(BASE "controller.quorum.voter.principals=x:User:a\n",
                 ":3: controller.quorum.voter.principals: ", "not a number");
    expect_error(BASE "controller.quorum.voter.principals=1:User:a,1:User:b\n",
                 ":3: controller.quorum.voter.principals: ", "appears twice");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ssl_listener_and_overrides),
        cmocka_unit_test(test_bad_stores),
        cmocka_unit_test(test_bad_protocols_and_values),
        cmocka_unit_test(test_bad_voter_principals),
    };
    return cmocka_run_group_tests(tests, certs_setup, certs_teardown);
}
