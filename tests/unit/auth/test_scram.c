/* SCRAM-SHA-256/512 server: RFC 7677's example, round trips with a test
 * client, wrong passwords, unknown users and malformed messages. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "auth_test_util.h"

#define RFC_CLIENT_NONCE "rOprNGfwEbeRWgbNEkqO"
#define RFC_SERVER_NONCE "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"
#define RFC_NONCE RFC_CLIENT_NONCE RFC_SERVER_NONCE

static void out_is(const kq_sasl_output *out, const char *want)
{
    assert_int_equal(out->len, strlen(want));
    assert_memory_equal(out->bytes, want, out->len);
}

static kq_cred_store *rfc7677_store(void)
{
    uint8_t salt[16];
    /* RFC 7677 section 3: salt W22ZaJ0SNY7soEsUEjb6gQ==, 4096 iterations */
    assert_int_equal(tc_unb64("W22ZaJ0SNY7soEsUEjb6gQ==", 24, salt), 16);
    kq_scram_credential c[KQ_SCRAM_HASH_COUNT];
    memset(c, 0, sizeof c);
    assert_int_equal(kq_scram_credential_derive(KQ_SCRAM_SHA_256, (const uint8_t *)"pencil", 6,
                                                salt, sizeof salt, 4096, &c[0]), 0);
    char line[AUTH_CRED_LINE_BYTES_MAX];
    assert_true(kq_cred_line_format("user", c, line, sizeof line) > 0);
    return tc_store(line);
}

static void test_rfc7677_example(void **state)
{
    (void)state;
    kq_cred_store *store = rfc7677_store();
    kq_scram_server s;
    kq_sasl_output out;
    kq_scram_server_init(&s, store, KQ_SCRAM_SHA_256);
    assert_int_equal(kq_scram_server_set_nonce(&s, RFC_SERVER_NONCE, strlen(RFC_SERVER_NONCE)), 0);
    assert_int_equal(tc_step(&s, "n,,n=user,r=" RFC_CLIENT_NONCE, &out), KQ_SASL_CONTINUE);
    out_is(&out, "r=" RFC_NONCE ",s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096");
    assert_int_equal(tc_step(&s, "c=biws,r=" RFC_NONCE
                                 ",p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=", &out),
                     KQ_SASL_SUCCESS);
    out_is(&out, "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=");
    assert_string_equal(out.principal, "User:user");
    /* nothing after the end */
    assert_int_equal(tc_step(&s, "c=biws", &out), KQ_SASL_FAILURE);
    assert_int_equal(out.len, 0);
    kq_scram_server_clear(&s);
    kq_cred_store_free(store);
}

static void test_rfc7677_wrong_proof(void **state)
{
    (void)state;
    kq_cred_store *store = rfc7677_store();
    kq_scram_server s;
    kq_sasl_output out;
    kq_scram_server_init(&s, store, KQ_SCRAM_SHA_256);
    assert_int_equal(kq_scram_server_set_nonce(&s, RFC_SERVER_NONCE, strlen(RFC_SERVER_NONCE)), 0);
    assert_int_equal(tc_step(&s, "n,,n=user,r=" RFC_CLIENT_NONCE, &out), KQ_SASL_CONTINUE);
    assert_int_equal(tc_step(&s, "c=biws,r=" RFC_NONCE
                                 ",p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVU=", &out),
                     KQ_SASL_FAILURE);
    out_is(&out, "e=invalid-proof");
    assert_string_equal(out.principal, "");
    assert_non_null(strstr(out.reason, "wrong password"));
    kq_cred_store_free(store);
}

static void test_set_nonce_validates(void **state)
{
    (void)state;
    kq_scram_server s;
    kq_scram_server_init(&s, NULL, KQ_SCRAM_SHA_256);
    assert_int_equal(kq_scram_server_set_nonce(&s, "a,b", 3), -1);
    assert_int_equal(kq_scram_server_set_nonce(&s, "", 0), -1);
    char big[AUTH_SCRAM_SERVER_NONCE_BYTES_MAX + 1];
    memset(big, 'x', sizeof big);
    assert_int_equal(kq_scram_server_set_nonce(&s, big, sizeof big), -1);
}

static void test_round_trips(void **state)
{
    (void)state;
    char text[3 * AUTH_CRED_LINE_BYTES_MAX], l1[AUTH_CRED_LINE_BYTES_MAX],
        l2[AUTH_CRED_LINE_BYTES_MAX];
    tc_line("alice", "s3cret", 4096, l1, sizeof l1);
    tc_line("a,b=c", "p,w=d", 5000, l2, sizeof l2);
    snprintf(text, sizeof text, "%s\n%s\n", l1, l2);
    kq_cred_store *store = tc_store(text);
    kq_sasl_output out;
    for (int h = 0; h < KQ_SCRAM_HASH_COUNT; h++) {
        assert_int_equal(tc_exchange(store, (enum kq_scram_hash)h, "alice", "s3cret", &out),
                         KQ_SASL_SUCCESS);
        assert_string_equal(out.principal, "User:alice");
        /* RFC 5802 section 5.1: ',' and '=' in names travel as =2C and =3D */
        assert_int_equal(tc_exchange(store, (enum kq_scram_hash)h, "a=2Cb=3Dc", "p,w=d", &out),
                         KQ_SASL_SUCCESS);
        assert_string_equal(out.principal, "User:a,b=c");
        assert_int_equal(tc_exchange(store, (enum kq_scram_hash)h, "alice", "s3creT", &out),
                         KQ_SASL_FAILURE);
        out_is(&out, "e=invalid-proof");
    }
    kq_cred_store_free(store);
}

/* A user with only a SHA-256 credential is unknown to SCRAM-SHA-512. */
static void test_mechanism_missing_for_user(void **state)
{
    (void)state;
    kq_scram_credential c[KQ_SCRAM_HASH_COUNT];
    memset(c, 0, sizeof c);
    assert_int_equal(kq_scram_credential_new(KQ_SCRAM_SHA_256, (const uint8_t *)"pw", 2, 4096,
                                             &c[0]), 0);
    char line[AUTH_CRED_LINE_BYTES_MAX];
    assert_true(kq_cred_line_format("bob", c, line, sizeof line) > 0);
    kq_cred_store *store = tc_store(line);
    kq_sasl_output out;
    assert_int_equal(tc_exchange(store, KQ_SCRAM_SHA_256, "bob", "pw", &out), KQ_SASL_SUCCESS);
    assert_int_equal(tc_exchange(store, KQ_SCRAM_SHA_512, "bob", "pw", &out), KQ_SASL_FAILURE);
    out_is(&out, "e=invalid-proof");
    kq_cred_store_free(store);
}

/* The salt in a server-first message. */
static void salt_of(const kq_sasl_output *out, char *salt, size_t cap)
{
    char sf[AUTH_SASL_REPLY_BYTES_MAX + 1];
    memcpy(sf, out->bytes, out->len);
    sf[out->len] = '\0';
    const char *s = strstr(sf, ",s="), *i = strstr(sf, ",i=");
    assert_true(s && i && (size_t)(i - s - 3) < cap);
    memcpy(salt, s + 3, (size_t)(i - s - 3));
    salt[i - s - 3] = '\0';
    assert_string_equal(i, ",i=4096");
}

static void first_salt(const kq_cred_store *store, enum kq_scram_hash h, const char *user,
                       char *salt, size_t cap)
{
    kq_scram_server s;
    kq_sasl_output out;
    char first[300];
    kq_scram_server_init(&s, store, h);
    snprintf(first, sizeof first, "n,,n=%s,r=abc", user);
    assert_int_equal(tc_step(&s, first, &out), KQ_SASL_CONTINUE);
    salt_of(&out, salt, cap);
}

static void test_unknown_user_same_shape(void **state)
{
    (void)state;
    char line[AUTH_CRED_LINE_BYTES_MAX];
    tc_line("alice", "s3cret", 4096, line, sizeof line);
    kq_cred_store *store = tc_store(line);
    char real[128], fake1[128], fake2[128], other[128], fake512[128];
    first_salt(store, KQ_SCRAM_SHA_256, "alice", real, sizeof real);
    first_salt(store, KQ_SCRAM_SHA_256, "mallory", fake1, sizeof fake1);
    first_salt(store, KQ_SCRAM_SHA_256, "mallory", fake2, sizeof fake2);
    first_salt(store, KQ_SCRAM_SHA_256, "trudy", other, sizeof other);
    first_salt(store, KQ_SCRAM_SHA_512, "mallory", fake512, sizeof fake512);
    assert_int_equal(strlen(fake1), strlen(real)); /* 32 bytes, as the CLI's */
    assert_string_equal(fake1, fake2);             /* stable per name */
    assert_string_not_equal(fake1, other);
    assert_string_not_equal(fake1, fake512);
    kq_sasl_output out;
    assert_int_equal(tc_exchange(store, KQ_SCRAM_SHA_256, "mallory", "s3cret", &out),
                     KQ_SASL_FAILURE);
    out_is(&out, "e=invalid-proof");
    assert_non_null(strstr(out.reason, "unknown user"));
    assert_string_equal(out.principal, "");
    kq_cred_store_free(store);
}

static void check_first_fails(const kq_cred_store *store, const char *msg, size_t n,
                              const char *reason)
{
    kq_scram_server s;
    kq_sasl_output out;
    kq_scram_server_init(&s, store, KQ_SCRAM_SHA_256);
    kq_sasl_status st = kq_scram_server_step(&s, (const uint8_t *)msg, n, &out);
    if (st != KQ_SASL_FAILURE || !strstr(out.reason, reason))
        fprintf(stderr, "client-first '%.*s': status %d reason '%s'\n", (int)(n > 80 ? 80 : n),
                msg, st, out.reason);
    assert_int_equal(st, KQ_SASL_FAILURE);
    assert_int_equal(out.len, 0);
    assert_non_null(strstr(out.reason, reason));
}

static void test_malformed_client_first(void **state)
{
    (void)state;
    char line[AUTH_CRED_LINE_BYTES_MAX];
    tc_line("user", "pencil", 4096, line, sizeof line);
    kq_cred_store *store = tc_store(line);
    static const struct {
        const char *msg, *reason;
    } cases[] = {
        {"x,,n=user,r=abc", "channel-binding flag"},
        {"p=tls-unique,,n=user,r=abc", "channel binding (p=)"},
        {"n", "gs2 header incomplete"},
        {"n,,", "user name"},
        {"n,n=user,r=abc", "authzid"},
        {"n,a=,n=user,r=abc", "authzid"},
        {"n,,r=abc", "user name"},
        {"n,,n=,r=abc", "user name"},
        {"n,,n=us=er,r=abc", "user name"},
        {"n,,n=us=2,r=abc", "user name"},
        {"n,,n=user", "nonce"},
        {"n,,n=user,r=", "nonce"},
        {"n,,n=user,x=abc", "nonce"},
        {"n,,n=user,r=a b", "nonce"},
        {"n,,n=user,r=abc,", "extension"},
        {"n,,n=user,r=abc,ext", "extension"},
        {"n,,n=user,r=abc,=v", "extension"},
        {"n,,n=user,r=abc,e1=v", "extension name"},
        {"n,,m=x,n=user,r=abc", "mandatory extension"},
        {"n,a=other,n=user,r=abc", "authorization id"},
        {"n,,n=user,r=abc,tokenauth=true", "tokenauth"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_first_fails(store, cases[i].msg, strlen(cases[i].msg), cases[i].reason);
    check_first_fails(store, "", 0, "empty");
    check_first_fails(store, "n,,n=us\0er,r=abc", 16, "NUL");
    char big[AUTH_SCRAM_MESSAGE_BYTES_MAX + 16];
    memset(big, 'a', sizeof big);
    memcpy(big, "n,,n=user,r=", 12);
    check_first_fails(store, big, sizeof big, "too long");
    /* a nonce past its limit inside a message within its limit */
    check_first_fails(store, big, 12 + AUTH_SCRAM_CLIENT_NONCE_BYTES_MAX + 1, "nonce");
    /* a name past AUTH_USERNAME_BYTES_MAX */
    memset(big, 'a', sizeof big);
    memcpy(big, "n,,n=", 5);
    big[5 + AUTH_USERNAME_BYTES_MAX + 1] = ',';
    memcpy(big + 5 + AUTH_USERNAME_BYTES_MAX + 2, "r=abc", 5);
    check_first_fails(store, big, 5 + AUTH_USERNAME_BYTES_MAX + 7, "user name");
    kq_cred_store_free(store);
}

static void test_accepted_client_first_variants(void **state)
{
    (void)state;
    char line[AUTH_CRED_LINE_BYTES_MAX];
    tc_line("user", "pencil", 4096, line, sizeof line);
    kq_cred_store *store = tc_store(line);
    static const char *const ok[] = {
        "y,,n=user,r=abc",              /* client could bind, thinks we cannot */
        "n,a=user,n=user,r=abc",        /* authzid equal to the user */
        "n,,n=user,r=abc,tokenauth=false,foo=bar", /* Kafka extensions */
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        kq_scram_server s;
        kq_sasl_output out;
        kq_scram_server_init(&s, store, KQ_SCRAM_SHA_256);
        assert_int_equal(tc_step(&s, ok[i], &out), KQ_SASL_CONTINUE);
        /* r= echoes the client nonce, then 24 random bytes in base64 */
        assert_memory_equal(out.bytes, "r=abc", 5);
        assert_int_equal(((const char *)memchr(out.bytes, ',', out.len) - (char *)out.bytes),
                         5 + AUTH_B64_BYTES(AUTH_SCRAM_SERVER_NONCE_RANDOM_BYTES));
    }
    /* y,, and an authzid travel back in c=, and the proof still checks */
    kq_scram_server s;
    kq_sasl_output out;
    char sf[AUTH_SASL_REPLY_BYTES_MAX + 1], final[1024], expect[128];
    kq_scram_server_init(&s, store, KQ_SCRAM_SHA_256);
    assert_int_equal(tc_step(&s, "y,a=user,n=user,r=abc", &out), KQ_SASL_CONTINUE);
    memcpy(sf, out.bytes, out.len);
    sf[out.len] = '\0';
    tc_client_final(KQ_SCRAM_SHA_256, "pencil", "y,a=user,", "n=user,r=abc", sf, final, expect);
    assert_int_equal(tc_step(&s, final, &out), KQ_SASL_SUCCESS);
    out_is(&out, expect);
    kq_cred_store_free(store);
}

/* Runs client-first for "user", then final as produced by mutate() from a
 * valid final message; checks the failure and its e= reply. */
static void check_final_fails(const kq_cred_store *store, void (*mutate)(char *final),
                              const char *e, const char *reason)
{
    kq_scram_server s;
    kq_sasl_output out;
    char sf[AUTH_SASL_REPLY_BYTES_MAX + 1], final[4096], expect[128];
    kq_scram_server_init(&s, store, KQ_SCRAM_SHA_256);
    assert_int_equal(tc_step(&s, "n,,n=user,r=abc", &out), KQ_SASL_CONTINUE);
    memcpy(sf, out.bytes, out.len);
    sf[out.len] = '\0';
    tc_client_final(KQ_SCRAM_SHA_256, "pencil", "n,,", "n=user,r=abc", sf, final, expect);
    mutate(final);
    kq_sasl_status st = tc_step(&s, final, &out);
    if (st != KQ_SASL_FAILURE || !strstr(out.reason, reason))
        fprintf(stderr, "final '%.80s': status %d reason '%s'\n", final, st, out.reason);
    assert_int_equal(st, KQ_SASL_FAILURE);
    out_is(&out, e);
    assert_non_null(strstr(out.reason, reason));
}

static void drop_proof(char *f) { *strstr(f, ",p=") = '\0'; }
static void bad_proof_b64(char *f) { memcpy(strstr(f, ",p=") + 3, "!!!!", 4); }
static void short_proof(char *f) { strcpy(strstr(f, ",p=") + 3, "AAAA"); }
static void bad_cbind_b64(char *f) { f[3] = '*'; }
static void other_cbind(char *f) { memcpy(f, "c=eSws", 6); } /* "y,," */
static void missing_cbind(char *f) { f[0] = 'x'; }
static void short_nonce(char *f)
{
    char *r = strstr(f, ",r=abc") + 6, *p = strstr(f, ",p=");
    memmove(r, p, strlen(p) + 1); /* only the client's part */
}
static void after_proof(char *f) { strcat(f, ",x=y"); }
static void ext_before_proof(char *f)
{
    char *p = strstr(f, ",p="), tail[200];
    strcpy(tail, p);
    strcpy(p, ",x");
    strcat(p, tail);
}
static void oversized(char *f)
{
    size_t n = strlen(f);
    memset(f + n, 'A', AUTH_SCRAM_MESSAGE_BYTES_MAX);
    f[n + AUTH_SCRAM_MESSAGE_BYTES_MAX] = '\0';
}
static void flip_proof(char *f) { char *p = strstr(f, ",p=") + 3; p[0] = p[0] == 'A' ? 'B' : 'A'; }

static void test_malformed_client_final(void **state)
{
    (void)state;
    char line[AUTH_CRED_LINE_BYTES_MAX];
    tc_line("user", "pencil", 4096, line, sizeof line);
    kq_cred_store *store = tc_store(line);
    check_final_fails(store, drop_proof, "e=invalid-encoding", "proof");
    check_final_fails(store, bad_proof_b64, "e=invalid-encoding", "proof");
    check_final_fails(store, short_proof, "e=invalid-encoding", "proof");
    check_final_fails(store, after_proof, "e=invalid-encoding", "proof");
    check_final_fails(store, ext_before_proof, "e=invalid-encoding", "proof");
    check_final_fails(store, bad_cbind_b64, "e=invalid-encoding", "c=");
    check_final_fails(store, missing_cbind, "e=invalid-encoding", "c=");
    check_final_fails(store, other_cbind, "e=channel-bindings-dont-match", "gs2 header");
    check_final_fails(store, short_nonce, "e=other-error", "nonce");
    check_final_fails(store, oversized, "e=invalid-encoding", "too long");
    check_final_fails(store, flip_proof, "e=invalid-proof", "wrong password");
    kq_cred_store_free(store);
}

/* The mechanism-neutral session: one token for PLAIN, two for SCRAM. */
/* librdkafka before 2.6.1 echoes its nonce, then the server's whole nonce:
 * accepted in exactly that form (as Kafka 3.8.1-3.9), nothing else in front. */
static void one_final_with_prefix(const kq_cred_store *store, const char *prefix,
                                  kq_sasl_status want)
{
    kq_scram_server s;
    kq_sasl_output out;
    char sf[AUTH_SASL_REPLY_BYTES_MAX + 1], final[4096], expect[128];
    kq_scram_server_init(&s, store, KQ_SCRAM_SHA_256);
    assert_int_equal(tc_step(&s, "n,,n=user,r=abc", &out), KQ_SASL_CONTINUE);
    memcpy(sf, out.bytes, out.len);
    sf[out.len] = '\0';
    tc_nonce_prefix = prefix;
    tc_client_final(KQ_SCRAM_SHA_256, "pencil", "n,,", "n=user,r=abc", sf, final, expect);
    tc_nonce_prefix = "";
    assert_int_equal(tc_step(&s, final, &out), want);
    kq_scram_server_clear(&s);
}

static void test_librdkafka_doubled_nonce(void **state)
{
    (void)state;
    kq_cred_store *store = rfc7677_store();
    one_final_with_prefix(store, "", KQ_SASL_SUCCESS);
    one_final_with_prefix(store, "abc", KQ_SASL_SUCCESS);
    one_final_with_prefix(store, "abd", KQ_SASL_FAILURE);
    one_final_with_prefix(store, "ab", KQ_SASL_FAILURE);
    one_final_with_prefix(store, "abcabc", KQ_SASL_FAILURE);
    kq_cred_store_free(store);
}

static void test_session(void **state)
{
    (void)state;
    char line[AUTH_CRED_LINE_BYTES_MAX];
    tc_line("alice", "s3cret", 4096, line, sizeof line);
    kq_cred_store *store = tc_store(line);
    enum kq_sasl_mech m;
    assert_int_equal(kq_sasl_mech_parse(kq_slice_cstr("SCRAM-SHA-512"), &m), 0);
    assert_int_equal(m, KQ_SASL_SCRAM_SHA_512);
    assert_int_equal(kq_sasl_mech_parse(kq_slice_cstr("scram-sha-512"), &m), -1);
    assert_int_equal(kq_sasl_mech_parse(kq_slice_cstr("GSSAPI"), &m), -1);
    assert_string_equal(kq_sasl_mech_name(KQ_SASL_PLAIN), "PLAIN");

    kq_sasl_session s;
    kq_sasl_output out;
    char sf[AUTH_SASL_REPLY_BYTES_MAX + 1], final[1024], expect[256];
    kq_sasl_session_init(&s, store, KQ_SASL_SCRAM_SHA_512);
    const char *first = "n,,n=alice,r=xyz";
    assert_int_equal(kq_sasl_session_step(&s, (const uint8_t *)first, strlen(first), &out),
                     KQ_SASL_CONTINUE);
    memcpy(sf, out.bytes, out.len);
    sf[out.len] = '\0';
    tc_client_final(KQ_SCRAM_SHA_512, "s3cret", "n,,", first + 3, sf, final, expect);
    assert_int_equal(kq_sasl_session_step(&s, (const uint8_t *)final, strlen(final), &out),
                     KQ_SASL_SUCCESS);
    out_is(&out, expect);
    assert_int_equal(kq_sasl_session_step(&s, (const uint8_t *)first, strlen(first), &out),
                     KQ_SASL_FAILURE);
    kq_sasl_session_clear(&s);

    kq_sasl_session_init(&s, store, KQ_SASL_PLAIN);
    assert_int_equal(kq_sasl_session_step(&s, (const uint8_t *)"\0alice\0s3cret", 13, &out),
                     KQ_SASL_SUCCESS);
    assert_string_equal(out.principal, "User:alice");
    assert_int_equal(kq_sasl_session_step(&s, (const uint8_t *)"\0alice\0s3cret", 13, &out),
                     KQ_SASL_FAILURE);
    assert_non_null(strstr(kq_sasl_failure_message(KQ_SASL_SCRAM_SHA_256), "SCRAM-SHA-256"));
    kq_cred_store_free(store);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc7677_example),
        cmocka_unit_test(test_rfc7677_wrong_proof),
        cmocka_unit_test(test_set_nonce_validates),
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_mechanism_missing_for_user),
        cmocka_unit_test(test_unknown_user_same_shape),
        cmocka_unit_test(test_malformed_client_first),
        cmocka_unit_test(test_accepted_client_first_variants),
        cmocka_unit_test(test_malformed_client_final),
        cmocka_unit_test(test_session),
        cmocka_unit_test(test_librdkafka_doubled_nonce),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
