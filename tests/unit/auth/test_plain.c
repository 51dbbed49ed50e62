/* SASL PLAIN against salted SCRAM credentials (RFC 4616). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "auth_test_util.h"

static kq_cred_store *store;

static int setup(void **state)
{
    (void)state;
    char text[3 * AUTH_CRED_LINE_BYTES_MAX], l1[AUTH_CRED_LINE_BYTES_MAX];
    kq_scram_credential c[KQ_SCRAM_HASH_COUNT];
    memset(c, 0, sizeof c);
    tc_line("alice", "s3cret", 4096, l1, sizeof l1);
    /* bob has only a SHA-512 credential */
    if (kq_scram_credential_new(KQ_SCRAM_SHA_512, (const uint8_t *)"hunter2", 7, 8192, &c[1]))
        return -1;
    size_t n = strlen(l1);
    snprintf(text, sizeof text, "%s\n", l1);
    if (kq_cred_line_format("bob", c, text + n + 1, sizeof text - n - 1) < 0)
        return -1;
    store = tc_store(text);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    kq_cred_store_free(store);
    return 0;
}

static kq_sasl_status plain(const char *tok, size_t n, kq_sasl_output *out)
{
    return kq_sasl_plain_authenticate(store, (const uint8_t *)tok, n, out);
}

static void test_success(void **state)
{
    (void)state;
    kq_sasl_output out;
    assert_int_equal(plain("\0alice\0s3cret", 13, &out), KQ_SASL_SUCCESS);
    assert_string_equal(out.principal, "User:alice");
    assert_int_equal(out.len, 0);
    /* authzid equal to authcid */
    assert_int_equal(plain("alice\0alice\0s3cret", 18, &out), KQ_SASL_SUCCESS);
    /* a user with only a SHA-512 credential */
    assert_int_equal(plain("\0bob\0hunter2", 12, &out), KQ_SASL_SUCCESS);
    assert_string_equal(out.principal, "User:bob");
}

static void test_failures_look_alike(void **state)
{
    (void)state;
    kq_sasl_output wrong, unknown;
    assert_int_equal(plain("\0alice\0s3creT", 13, &wrong), KQ_SASL_FAILURE);
    assert_int_equal(plain("\0mallory\0s3cret", 15, &unknown), KQ_SASL_FAILURE);
    assert_int_equal(wrong.len, 0);
    assert_int_equal(unknown.len, 0);
    assert_string_equal(wrong.principal, "");
    assert_string_equal(unknown.principal, "");
    assert_non_null(strstr(wrong.reason, "wrong password"));
    assert_non_null(strstr(unknown.reason, "unknown user"));
    assert_non_null(strstr(kq_sasl_failure_message(KQ_SASL_PLAIN), "Invalid username or password"));
    /* a password that is a prefix, or longer */
    assert_int_equal(plain("\0alice\0s3cre", 12, &wrong), KQ_SASL_FAILURE);
    assert_int_equal(plain("\0alice\0s3crett", 14, &wrong), KQ_SASL_FAILURE);
    /* names are case-sensitive */
    assert_int_equal(plain("\0Alice\0s3cret", 13, &wrong), KQ_SASL_FAILURE);
    /* control bytes in a name do not reach the log as they are */
    assert_int_equal(plain("\0ev\nil\0x", 8, &unknown), KQ_SASL_FAILURE);
    assert_null(strchr(unknown.reason, '\n'));
}

static void test_malformed(void **state)
{
    (void)state;
    static const struct {
        const char *tok;
        size_t n;
        const char *reason;
    } cases[] = {
        {"", 0, "empty"},
        {"alice", 5, "no NUL"},
        {"\0alice", 6, "one NUL"},
        {"\0alice\0", 7, "password empty"},
        {"\0\0s3cret", 8, "user name empty"},
        {"\0alice\0s3\0cret", 14, "more than two"},
        {"bob\0alice\0s3cret", 16, "authorization id"},
        {"alicex\0alice\0s3cret", 19, "authorization id"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kq_sasl_output out;
        assert_int_equal(plain(cases[i].tok, cases[i].n, &out), KQ_SASL_FAILURE);
        if (!strstr(out.reason, cases[i].reason))
            fprintf(stderr, "case %zu: reason '%s'\n", i, out.reason);
        assert_non_null(strstr(out.reason, cases[i].reason));
        assert_int_equal(out.len, 0);
    }
}

static void test_bounds(void **state)
{
    (void)state;
    static char tok[AUTH_PLAIN_MESSAGE_BYTES_MAX + 8];
    kq_sasl_output out;
    /* a password of AUTH_PASSWORD_BYTES_MAX + 1 bytes */
    memset(tok, 'p', sizeof tok);
    memcpy(tok, "\0alice\0", 7);
    assert_int_equal(plain(tok, 7 + AUTH_PASSWORD_BYTES_MAX + 1, &out), KQ_SASL_FAILURE);
    assert_non_null(strstr(out.reason, "password empty or too long"));
    /* a name of AUTH_USERNAME_BYTES_MAX + 1 bytes */
    memset(tok, 'u', sizeof tok);
    tok[0] = '\0';
    tok[AUTH_USERNAME_BYTES_MAX + 2] = '\0';
    assert_int_equal(plain(tok, AUTH_USERNAME_BYTES_MAX + 5, &out), KQ_SASL_FAILURE);
    assert_non_null(strstr(out.reason, "user name empty or too long"));
    /* the whole token past its limit, checked before anything else */
    assert_int_equal(plain(tok, sizeof tok, &out), KQ_SASL_FAILURE);
    assert_non_null(strstr(out.reason, "too long"));
    /* an empty store knows nobody */
    kq_cred_store *empty = tc_store("# nobody\n");
    assert_int_equal(kq_sasl_plain_authenticate(empty, (const uint8_t *)"\0alice\0s3cret", 13,
                                                &out), KQ_SASL_FAILURE);
    kq_cred_store_free(empty);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_success),
        cmocka_unit_test(test_failures_look_alike),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_bounds),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
