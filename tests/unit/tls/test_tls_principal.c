/* ssl.principal.mapping.rules (KIP-371): parsing, the first matching rule,
 * $n groups, L/U, falling through, malformed rules. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "kq/tls.h"

/* Maps dn with rules; "<no match>" / "<too long>" for the failures. */
static const char *map(const char *rules, const char *dn)
{
    static char out[256];
    char err[256];
    kq_tls_principal_rules *r = kq_tls_principal_rules_parse(rules, err, sizeof err);
    if (!r) {
        fprintf(stderr, "refused: %s\n", err);
        fail();
    }
    kq_tls_principal_result res = kq_tls_principal_map(r, dn, out, sizeof out);
    kq_tls_principal_rules_free(r);
    if (res == KQ_TLS_PRINCIPAL_NO_MATCH)
        return "<no match>";
    if (res == KQ_TLS_PRINCIPAL_TOO_LONG)
        return "<too long>";
    return out;
}

static void assert_refused(const char *rules, const char *reason)
{
    char err[256] = "";
    kq_tls_principal_rules *r = kq_tls_principal_rules_parse(rules, err, sizeof err);
    if (r || strncmp(err, "ssl.principal.mapping.rules: ", 29) != 0 || !strstr(err, reason)) {
        fprintf(stderr, "rules \"%s\": expected a refusal with \"%s\", got \"%s\"\n", rules, reason,
                r ? "accepted" : err);
        kq_tls_principal_rules_free(r);
        fail();
    }
}

static void test_default(void **state)
{
    (void)state;
    const char *dn = "CN=node1,OU=quorum,O=kq";
    assert_string_equal(map(NULL, dn), dn);
    assert_string_equal(map("", dn), dn);
    assert_string_equal(map("  DEFAULT  ", dn), dn);
}

static void test_rule_with_group_and_case(void **state)
{
    (void)state;
    const char *dn = "CN=Node1,OU=Quorum,O=kq";
    assert_string_equal(map("RULE:^CN=(.*?),OU=(.*?),O=kq$/$1/", dn), "Node1");
    assert_string_equal(map("RULE:^CN=(.*?),OU=(.*?),O=kq$/$1/L", dn), "node1");
    assert_string_equal(map("RULE:^CN=(.*?),OU=(.*?),O=kq$/$2@$1/U", dn), "QUORUM@NODE1");
    assert_string_equal(map("RULE:^CN=([a-zA-Z0-9]+),.*$/user-$1/", dn), "user-Node1");
    assert_string_equal(map("RULE:^CN=(\\w+)\\d,.*$/$1/", dn), "Node");
    assert_string_equal(map("RULE:(?i)^cn=(.*),ou=.*$/$1/", dn), "Node1");
    /* $0 is the whole DN, \x a literal x, \/ a slash in either part. */
    assert_string_equal(map("RULE:^CN=([^,]*).*$/\\$0=$0/", dn), "$0=CN=Node1,OU=Quorum,O=kq");
    assert_string_equal(map("RULE:^CN=([^,\\/]*).*$/a\\/$1/", dn), "a/Node1");
    assert_string_equal(map("RULE:^CN=a\\/b$/slash/", "CN=a/b"), "slash");
    /* Kafka's documentation's example. */
    assert_string_equal(
        map("RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/,RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),"
            "ST=(.*?),C=(.*?)$/$1@$2/L,RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/L,DEFAULT",
            "CN=kafka1,OU=ServiceUsers,O=Unknown,L=Unknown,ST=Unknown,C=Unknown"),
        "kafka1");
}

static void test_first_match_and_fall_through(void **state)
{
    (void)state;
    const char *rules = "RULE:^CN=(.*),OU=admins,O=kq$/admin-$1/, "
                        "RULE:^CN=(.*),OU=quorum,O=kq$/$1/L ,DEFAULT";
    assert_string_equal(map(rules, "CN=root,OU=admins,O=kq"), "admin-root");
    assert_string_equal(map(rules, "CN=NODE2,OU=quorum,O=kq"), "node2");
    assert_string_equal(map(rules, "CN=x,OU=other,O=kq"), "CN=x,OU=other,O=kq");
    /* Without DEFAULT nothing matches: the caller fails authentication. */
    assert_string_equal(map("RULE:^CN=(.*),OU=admins,O=kq$/$1/", "CN=x,OU=other,O=kq"),
                        "<no match>");
    /* A pattern must match the whole DN, not a part. */
    assert_string_equal(map("RULE:OU=admins/x/", "CN=root,OU=admins,O=kq"), "<no match>");
    assert_string_equal(map("RULE:OU=admins/x/,DEFAULT", "OU=admins"), "x");
    /* The result must fit. */
    char big[300];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    assert_string_equal(map("DEFAULT", big), "<too long>");
}

static void test_malformed(void **state)
{
    (void)state;
    assert_refused("RULE:^CN=(.*)$/$1", "replacement not closed");
    assert_refused("RULE:^CN=(.*)$", "pattern not closed");
    assert_refused("RULE:^CN=(.*$/$1/", "bad pattern");
    assert_refused("RULE:^CN=(.*)$/$2/", "$2 but the pattern has 1 groups");
    assert_refused("RULE:^CN=(.*)$/$x/", "'$' without a group number");
    assert_refused("RULE:^CN=(.*)$/$1/X", "unexpected \"X\"");
    assert_refused("DEFAULT,", "empty rule");
    assert_refused("DEFAULT,,DEFAULT", "expected DEFAULT or RULE");
    assert_refused("default", "expected DEFAULT or RULE");
    assert_refused("RULE:(?:a)/b/", "(? groups are not supported");
    assert_refused("RULE:[abc/b/", "unclosed [");
    assert_refused("RULE:abc\\", "pattern not closed");
    char many[4096] = "";
    for (int i = 0; i < KQ_TLS_PRINCIPAL_RULES_MAX + 1; i++)
        strcat(many, i ? ",DEFAULT" : "DEFAULT");
    assert_refused(many, "more than");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default),
        cmocka_unit_test(test_rule_with_group_and_case),
        cmocka_unit_test(test_first_match_and_fall_through),
        cmocka_unit_test(test_malformed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
