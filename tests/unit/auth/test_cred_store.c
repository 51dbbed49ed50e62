/* The credentials file: good files, every parse error with its line
 * number, limits, strict base64, and lines printed by kq-scram-credential
 * (run from the build directory, where CTest starts the tests). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/wait.h>
#include <unistd.h>

#include "auth_internal.h"
#include "auth_test_util.h"

/* SHA-256 test credential parts: 16-byte salt, 32-byte keys. */
#define SALT "W22ZaJ0SNY7soEsUEjb6gQ=="
#define KEY32 "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
#define GOOD256 "SCRAM-SHA-256=salt=" SALT ",stored_key=" KEY32 ",server_key=" KEY32 \
                ",iterations=4096"

static void test_good_file(void **state)
{
    (void)state;
    char l512[AUTH_CRED_LINE_BYTES_MAX];
    tc_line("carol", "pw", 4096, l512, sizeof l512);
    char text[4096];
    snprintf(text, sizeof text,
             "# users\n\n   \t\nalice " GOOD256 "\r\n  bob\t" GOOD256 "  \n%s", l512);
    kq_cred_store *s = tc_store(text);
    assert_int_equal(kq_cred_store_count(s), 3);
    const kq_scram_credential *c = kq_cred_store_find(s, "alice", 5, KQ_SCRAM_SHA_256);
    assert_non_null(c);
    assert_int_equal(c->iterations, 4096);
    assert_int_equal(c->salt_bytes, 16);
    assert_non_null(kq_cred_store_find(s, "bob", 3, KQ_SCRAM_SHA_256));
    assert_null(kq_cred_store_find(s, "bob", 3, KQ_SCRAM_SHA_512));
    assert_non_null(kq_cred_store_find(s, "carol", 5, KQ_SCRAM_SHA_512));
    assert_null(kq_cred_store_find(s, "caro", 4, KQ_SCRAM_SHA_256));
    assert_null(kq_cred_store_find(s, "carols", 6, KQ_SCRAM_SHA_256));
    assert_null(kq_cred_store_find(s, "dave", 4, KQ_SCRAM_SHA_256));
    kq_cred_store_free(s);
    /* empty */
    s = tc_store("");
    assert_int_equal(kq_cred_store_count(s), 0);
    assert_null(kq_cred_store_find(s, "alice", 5, KQ_SCRAM_SHA_256));
    kq_cred_store_free(s);
}

static void check_error(const char *text, size_t n, const char *want_prefix, const char *reason)
{
    kq_cred_store *s = (kq_cred_store *)1;
    char err[256] = "";
    assert_int_equal(kq_cred_store_parse("creds", text, n, &s, err, sizeof err), -1);
    assert_null(s);
    if (strncmp(err, want_prefix, strlen(want_prefix)) != 0 || !strstr(err, reason))
        fprintf(stderr, "got '%s', want '%s...%s'\n", err, want_prefix, reason);
    assert_int_equal(strncmp(err, want_prefix, strlen(want_prefix)), 0);
    assert_non_null(strstr(err, reason));
}

#define ERR(text, line, reason) check_error(text, strlen(text), "creds:" #line ": ", reason)

static void test_parse_errors(void **state)
{
    (void)state;
    ERR("alice\n", 1, "has no SCRAM");
    ERR("# c\nalice PLAIN=pw\n", 2, "unknown mechanism 'PLAIN'");
    ERR("alice SCRAM-SHA-1=salt=x\n", 1, "unknown mechanism");
    ERR("\nalice SCRAM-SHA-256=salt=" SALT ",iterations=4096\n", 2, "needs salt, stored_key");
    ERR("alice SCRAM-SHA-256\n", 1, "needs salt");
    ERR("alice " GOOD256 ",salt=" SALT "\n", 1, "repeated attribute 'salt'");
    ERR("alice " GOOD256 ",password=x\n", 1, "unknown attribute 'password'");
    ERR("alice " GOOD256 ",\n", 1, "trailing ','");
    ERR("alice " GOOD256 ",,x\n", 1, "has no '='");
    ERR("alice " GOOD256 " " GOOD256 "\n", 1, "SCRAM-SHA-256 given twice");
    ERR("alice SCRAM-SHA-256=salt=W22ZaJ0SNY7soEsUEjb6gQ=,stored_key=" KEY32, 1, "salt is not");
    ERR("alice SCRAM-SHA-256=salt=AAAAAA==,stored_key=" KEY32, 1, "salt is not"); /* 4 bytes */
    ERR("alice SCRAM-SHA-256=salt=" SALT ",stored_key=" SALT, 1, "stored_key is not base64 of 32");
    ERR("alice SCRAM-SHA-512=salt=" SALT ",server_key=" KEY32, 1, "server_key is not base64 of 64");
    ERR("alice SCRAM-SHA-256=iterations=4095", 1, "iterations must be");
    ERR("alice SCRAM-SHA-256=iterations=16385", 1, "iterations must be");
    ERR("alice SCRAM-SHA-256=iterations=04096", 1, "iterations must be");
    ERR("alice SCRAM-SHA-256=iterations=4096x", 1, "iterations must be");
    ERR("alice SCRAM-SHA-256=iterations=", 1, "iterations must be");
    ERR("alice SCRAM-SHA-256=iterations=99999999999999999999", 1, "iterations must be");
    ERR("alice " GOOD256 "\nbob " GOOD256 "\nalice " GOOD256 "\n", 3,
        "user 'alice' already defined on line 1");
    ERR("al\x80ice " GOOD256 "\n", 1, "user name must be");
    char longname[400];
    memset(longname, 'n', AUTH_USERNAME_BYTES_MAX + 1);
    snprintf(longname + AUTH_USERNAME_BYTES_MAX + 1, 100, " %s", "SCRAM-SHA-256=x");
    ERR(longname, 1, "user name must be");
    check_error("ok " GOOD256 "\nal\0ice " GOOD256 "\n", 9 + strlen(GOOD256) * 2 + 2, "creds:2: ",
                "NUL byte");
}

static void test_limits(void **state)
{
    (void)state;
    /* a line one byte too long (a comment of any length is fine) */
    static char text[AUTH_CRED_LINE_BYTES_MAX * 3];
    memset(text, ' ', sizeof text);
    text[0] = '#';
    text[AUTH_CRED_LINE_BYTES_MAX + 5] = '\n';
    memcpy(text + AUTH_CRED_LINE_BYTES_MAX + 6, "alice", 5);
    check_error(text, AUTH_CRED_LINE_BYTES_MAX + 6 + AUTH_CRED_LINE_BYTES_MAX + 1, "creds:2: ",
                "line longer than");
    /* AUTH_USERS_MAX users, then one more */
    size_t per = 16 + strlen(GOOD256), cap = per * (AUTH_USERS_MAX + 1) + 1, n = 0;
    char *big = malloc(cap);
    assert_non_null(big);
    for (int i = 0; i <= AUTH_USERS_MAX; i++)
        n += (size_t)snprintf(big + n, cap - n, "u%d %s\n", i, GOOD256);
    char err[256];
    kq_cred_store *s = NULL;
    size_t all_but_last = n - (size_t)snprintf(err, sizeof err, "u%d %s\n", AUTH_USERS_MAX, GOOD256);
    assert_int_equal(kq_cred_store_parse("creds", big, all_but_last, &s, err, sizeof err), 0);
    assert_int_equal(kq_cred_store_count(s), AUTH_USERS_MAX);
    assert_non_null(kq_cred_store_find(s, "u4095", 5, KQ_SCRAM_SHA_256));
    kq_cred_store_free(s);
    check_error(big, n, "creds:4097: ", "more than 4096 users");
    free(big);
}

static void test_base64_strict(void **state)
{
    (void)state;
    uint8_t out[16];
    size_t n = 0;
    assert_int_equal(auth_b64_decode("QQ==", 4, out, sizeof out, &n), 0);
    assert_int_equal(n, 1);
    assert_int_equal(out[0], 'A');
    assert_int_equal(auth_b64_decode("QUJD", 4, out, sizeof out, &n), 0);
    assert_int_equal(n, 3);
    static const char *const bad[] = {"", "QQ=", "QQ", "QR==", "Q===", "====", "QQ==QQ==",
                                      "QQ-=", "Q Q=", "QUJ=QUJD", "QUI\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(auth_b64_decode(bad[i], strlen(bad[i]), out, sizeof out, &n), -1);
    /* output bound */
    assert_int_equal(auth_b64_decode("QUJD", 4, out, 2, &n), -1);
    char enc[8];
    assert_int_equal(auth_b64_encode((const uint8_t *)"ABC", 3, enc, sizeof enc), 4);
    assert_string_equal(enc, "QUJD");
    assert_int_equal(auth_b64_encode((const uint8_t *)"ABCD", 4, enc, 8), 0); /* 8 + NUL */
}

static void test_load_file(void **state)
{
    (void)state;
    char path[] = "/tmp/kq_creds_XXXXXX", err[256];
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *text = "alice " GOOD256 "\nbob SCRAM-SHA-256=salt=\n";
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    kq_cred_store *s = NULL;
    assert_int_equal(kq_cred_store_load(path, &s, err, sizeof err), -1);
    char want[300];
    snprintf(want, sizeof want, "%s:2: salt is not", path);
    assert_int_equal(strncmp(err, want, strlen(want)), 0);
    unlink(path);
    assert_int_equal(kq_cred_store_load(path, &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "No such file"));
    assert_null(s);
}

/* Runs the CLI; returns its exit status and its first output line. */
static int run_cli(const char *args, char *line, size_t cap)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "./kq-scram-credential %s 2>/dev/null", args);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    line[0] = '\0';
    if (!fgets(line, (int)cap, p))
        line[0] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_cli_round_trip(void **state)
{
    (void)state;
    if (access("./kq-scram-credential", X_OK) != 0)
        fail_msg("kq-scram-credential not built next to the tests (run from the build dir)");
    char pw[] = "/tmp/kq_pw_XXXXXX", line[AUTH_CRED_LINE_BYTES_MAX + 2], args[256];
    int fd = mkstemp(pw);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "correct horse\n", 14), 14);
    close(fd);
    snprintf(args, sizeof args, "--user 'o,k=y' --password-file %s --iterations 5000", pw);
    assert_int_equal(run_cli(args, line, sizeof line), 0);
    assert_non_null(strstr(line, "iterations=5000"));
    kq_cred_store *s = tc_store(line); /* the '\n' is the line's end */
    kq_sasl_output out;
    const char tok[] = "\0o,k=y\0correct horse";
    assert_int_equal(kq_sasl_plain_authenticate(s, (const uint8_t *)tok, sizeof tok - 1, &out),
                     KQ_SASL_SUCCESS);
    assert_string_equal(out.principal, "User:o,k=y");
    for (int h = 0; h < KQ_SCRAM_HASH_COUNT; h++) {
        assert_int_equal(tc_exchange(s, (enum kq_scram_hash)h, "o=2Ck=3Dy", "correct horse", &out),
                         KQ_SASL_SUCCESS);
        assert_int_equal(tc_exchange(s, (enum kq_scram_hash)h, "o=2Ck=3Dy", "correct horse\n",
                                     &out), KQ_SASL_FAILURE);
    }
    kq_cred_store_free(s);
    snprintf(args, sizeof args, "--user u --password-file %s --mechanism SCRAM-SHA-512", pw);
    assert_int_equal(run_cli(args, line, sizeof line), 0);
    assert_null(strstr(line, "SCRAM-SHA-256"));
    assert_non_null(strstr(line, "SCRAM-SHA-512=salt="));
    snprintf(args, sizeof args, "--user u --password-file %s --mechanism SCRAM-SHA-256", pw);
    assert_int_equal(run_cli(args, line, sizeof line), 0);
    assert_null(strstr(line, "SCRAM-SHA-512"));
    assert_non_null(strstr(line, " SCRAM-SHA-256=salt="));
    kq_cred_store_free(tc_store(line));
    /* refused: bad mechanism, iterations out of range, bad name, missing file, no user */
    snprintf(args, sizeof args, "--user u --password-file %s --mechanism PLAIN", pw);
    assert_int_equal(run_cli(args, line, sizeof line), 2);
    snprintf(args, sizeof args, "--user u --password-file %s --iterations 1000", pw);
    assert_int_equal(run_cli(args, line, sizeof line), 2);
    snprintf(args, sizeof args, "--user '#u' --password-file %s", pw);
    assert_int_equal(run_cli(args, line, sizeof line), 2);
    assert_int_equal(run_cli("--user u --password-file /nonexistent/x", line, sizeof line), 2);
    snprintf(args, sizeof args, "--password-file %s", pw);
    assert_int_equal(run_cli(args, line, sizeof line), 2);
    unlink(pw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_file),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_base64_strict),
        cmocka_unit_test(test_load_file),
        cmocka_unit_test(test_cli_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
