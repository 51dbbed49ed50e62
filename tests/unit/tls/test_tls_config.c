/* Contexts from Kafka's keys: PEM and PKCS#12 stores, in-line PEM, the
 * errors naming the key and the reason, protocols, and cipher suites given
 * by their IANA names. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "tls_test_util.h"

static tt_end client, server;

/* The context is refused with an error starting with key and containing
 * reason. */
static void assert_refused(const kq_tls_settings *s, bool server_side, const char *key,
                           const char *reason)
{
    char err[KQ_TLS_ERROR_BYTES] = "unset";
    kq_tls_ctx *ctx = server_side ? kq_tls_ctx_create_server(s, err, sizeof err)
                                  : kq_tls_ctx_create_client(s, err, sizeof err);
    if (ctx || strncmp(err, key, strlen(key)) != 0 || err[strlen(key)] != ':' ||
        !strstr(err, reason)) {
        fprintf(stderr, "expected \"%s: ...%s...\", got %s \"%s\"\n", key, reason,
                ctx ? "a context and" : "", err);
        kq_tls_ctx_destroy(ctx);
        fail();
    }
}

/* Handshakes and returns whether it succeeded; leaves the result in
 * client/server until the next call. */
static bool handshake(const kq_tls_settings *ss, const kq_tls_settings *cs)
{
    static kq_tls_ctx *sctx, *cctx;
    kq_tls_conn_destroy(client.conn);
    kq_tls_conn_destroy(server.conn);
    client.conn = server.conn = NULL;
    kq_tls_ctx_destroy(sctx);
    kq_tls_ctx_destroy(cctx);
    sctx = cctx = NULL;
    if (!ss)
        return false; /* cleanup only */
    sctx = tt_ctx(ss, true);
    cctx = tt_ctx(cs, false);
    assert_true(sctx && cctx);
    tt_handshake(cctx, sctx, "localhost", &client, &server);
    return kq_tls_conn_handshake_done(server.conn) && !kq_tls_conn_failed(client.conn) &&
           !kq_tls_conn_failed(server.conn);
}

static void test_pkcs12_stores(void **state)
{
    (void)state;
    kq_tls_settings ss = {0};
    ss.keystore_type = KQ_TLS_STORE_PKCS12;
    ss.keystore_location = tt_path("node1.p12");
    ss.keystore_password = "storepass";
    ss.truststore_type = KQ_TLS_STORE_PKCS12;
    ss.truststore_location = tt_path("trust.p12");
    ss.truststore_password = "trustpass";
    ss.client_auth = KQ_TLS_CLIENT_AUTH_REQUIRED;
    kq_tls_settings cs = ss; /* node1 talks to itself */
    assert_true(handshake(&ss, &cs));
    kq_tls_peer_identity id;
    assert_true(kq_tls_conn_peer_identity(server.conn, &id));
    assert_string_equal(id.subject, "CN=node1,OU=quorum,O=kq");

    ss.keystore_password = "wrong";
    assert_refused(&ss, true, "ssl.keystore.password", "wrong password");
    ss.keystore_password = NULL;
    assert_refused(&ss, true, "ssl.keystore.password", "(none set)");
    ss.keystore_password = "storepass";
    ss.truststore_password = "nope";
    assert_refused(&ss, true, "ssl.truststore.password", "wrong password");
    ss.truststore_password = "trustpass";
    ss.keystore_location = tt_path("node1.pem"); /* PEM file, PKCS12 type */
    assert_refused(&ss, true, "ssl.keystore.location", "is not a PKCS#12 file");
    ss.keystore_type = KQ_TLS_STORE_PEM;
    ss.truststore_type = KQ_TLS_STORE_PEM;
    ss.truststore_location = tt_path("trust.p12");
    assert_refused(&ss, true, "ssl.truststore.location", "not PEM text");
}

static void test_pem_key_password(void **state)
{
    (void)state;
    kq_tls_settings ss = tt_server_settings();
    ss.keystore_location = tt_path("node1-enc.pem");
    ss.key_password = "keypass";
    kq_tls_settings cs = tt_client_settings();
    assert_true(handshake(&ss, &cs));
    ss.key_password = "wrong";
    assert_refused(&ss, true, "ssl.key.password", "cannot decrypt the private key");
    ss.key_password = NULL;
    assert_refused(&ss, true, "ssl.key.password", "encrypted and no password is set");
}

static void test_store_errors(void **state)
{
    (void)state;
    kq_tls_settings s = tt_server_settings();
    s.keystore_location = "/nonexistent/node.pem";
    assert_refused(&s, true, "ssl.keystore.location", "No such file or directory");
    s.keystore_location = tt_path("mismatch.pem");
    assert_refused(&s, true, "ssl.keystore.location", "does not match the certificate");
    s.keystore_location = tt_path("ca.crt");
    assert_refused(&s, true, "ssl.keystore.location", "no private key");
    s.keystore_location = tt_path("node1.key");
    assert_refused(&s, true, "ssl.keystore.location", "no certificate");
    s.keystore_location = tt_path("node1.p12"); /* PKCS12 file, PEM type */
    assert_refused(&s, true, "ssl.keystore.location", "is not PEM text");
    s.keystore_location = NULL;
    assert_refused(&s, true, "ssl.keystore.location", "required for a TLS listener");
    s = tt_server_settings();
    s.truststore_location = tt_path("node1.key");
    assert_refused(&s, true, "ssl.truststore.location", "no certificate");
    s.truststore_location = "/nonexistent/ca.crt";
    assert_refused(&s, false, "ssl.truststore.location", "No such file or directory");
    /* A client needs no keystore. */
    kq_tls_settings c = tt_client_settings();
    kq_tls_ctx *ctx = tt_ctx(&c, false);
    assert_non_null(ctx);
    kq_tls_ctx_destroy(ctx);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char bufs[3][16384];
    static int next;
    char *b = bufs[next++ % 3];
    size_t n = fread(b, 1, sizeof bufs[0] - 1, f);
    fclose(f);
    b[n] = '\0';
    return b;
}

static void test_inline_pem(void **state)
{
    (void)state;
    kq_tls_settings ss = {0};
    ss.keystore_key = slurp(tt_path("node1.key"));
    ss.keystore_certificate_chain = slurp(tt_path("node1.crt"));
    ss.truststore_certificates = slurp(tt_path("ca.crt"));
    kq_tls_settings cs = {0};
    cs.truststore_certificates = ss.truststore_certificates;
    assert_true(handshake(&ss, &cs));
    ss.keystore_location = tt_path("node1.pem");
    assert_refused(&ss, true, "ssl.keystore.location", "set either it or ssl.keystore.key");
    ss.keystore_location = NULL;
    ss.keystore_key = NULL;
    assert_refused(&ss, true, "ssl.keystore.key", "required with");
}

static void test_protocols(void **state)
{
    (void)state;
    kq_tls_settings s = tt_server_settings();
    s.enabled_protocols = "TLSv1.2, TLSv1.1";
    assert_refused(&s, true, "ssl.enabled.protocols", "TLSv1.1 is not supported");
    s.enabled_protocols = "TLSv9";
    assert_refused(&s, true, "ssl.enabled.protocols", "unknown protocol TLSv9");
    s.enabled_protocols = " , ";
    assert_refused(&s, true, "ssl.enabled.protocols", "no protocol enabled");
    s.enabled_protocols = NULL;
    s.protocol = "SSLv3";
    assert_refused(&s, true, "ssl.protocol", "unknown or unsupported protocol SSLv3");
    /* ssl.protocol=TLSv1.2 alone makes TLSv1.2 the default. */
    s.protocol = "TLSv1.2";
    kq_tls_settings cs = tt_client_settings();
    assert_true(handshake(&s, &cs));
    assert_string_equal(kq_tls_conn_protocol(client.conn), "TLSv1.2");
    /* No common version. */
    s.protocol = NULL;
    s.enabled_protocols = "TLSv1.3";
    cs.enabled_protocols = "TLSv1.2";
    assert_false(handshake(&s, &cs));
    assert_non_null(strstr(kq_tls_conn_error(server.conn), "protocol"));
    cs.endpoint_identification_algorithm = "ldap";
    assert_refused(&cs, false, "ssl.endpoint.identification.algorithm", "unknown algorithm");
}

static void test_cipher_suites_by_iana_name(void **state)
{
    (void)state;
    kq_tls_settings ss = tt_server_settings();
    kq_tls_settings cs = tt_client_settings();
    ss.cipher_suites = "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384";
    ss.enabled_protocols = "TLSv1.2,TLSv1.3"; /* 1.3 goes: no 1.3 suite is listed */
    assert_true(handshake(&ss, &cs));
    assert_string_equal(kq_tls_conn_protocol(client.conn), "TLSv1.2");
    assert_string_equal(kq_tls_conn_cipher(client.conn), "ECDHE-RSA-AES256-GCM-SHA384");
    ss.cipher_suites = "TLS_CHACHA20_POLY1305_SHA256, TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256";
    assert_true(handshake(&ss, &cs));
    assert_string_equal(kq_tls_conn_protocol(client.conn), "TLSv1.3");
    assert_string_equal(kq_tls_conn_cipher(client.conn), "TLS_CHACHA20_POLY1305_SHA256");
    cs.enabled_protocols = "TLSv1.2";
    assert_true(handshake(&ss, &cs));
    assert_string_equal(kq_tls_conn_cipher(client.conn), "ECDHE-RSA-AES128-GCM-SHA256");
    ss.cipher_suites = "ECDHE-RSA-AES256-GCM-SHA384"; /* an OpenSSL name is taken too */
    assert_true(handshake(&ss, &cs));
    assert_string_equal(kq_tls_conn_cipher(client.conn), "ECDHE-RSA-AES256-GCM-SHA384");
    ss.cipher_suites = "TLS_AES_128_GCM_SHA256,TLS_BOGUS_WITH_NOTHING";
    assert_refused(&ss, true, "ssl.cipher.suites", "unknown cipher suite TLS_BOGUS_WITH_NOTHING");
    ss.cipher_suites = "TLS_AES_128_GCM_SHA256";
    ss.enabled_protocols = "TLSv1.2";
    assert_refused(&ss, true, "ssl.cipher.suites", "no listed suite works");
}

static void test_parse_helpers(void **state)
{
    (void)state;
    char err[128];
    kq_tls_store_type t;
    assert_true(kq_tls_parse_store_type("pkcs12", &t, err, sizeof err));
    assert_int_equal(t, KQ_TLS_STORE_PKCS12);
    assert_true(kq_tls_parse_store_type("PEM", &t, err, sizeof err));
    assert_int_equal(t, KQ_TLS_STORE_PEM);
    assert_false(kq_tls_parse_store_type("JKS", &t, err, sizeof err));
    assert_non_null(strstr(err, "JKS is not supported"));
    kq_tls_client_auth a;
    assert_true(kq_tls_parse_client_auth("required", &a, err, sizeof err));
    assert_int_equal(a, KQ_TLS_CLIENT_AUTH_REQUIRED);
    assert_true(kq_tls_parse_client_auth("requested", &a, err, sizeof err));
    assert_int_equal(a, KQ_TLS_CLIENT_AUTH_REQUESTED);
    assert_true(kq_tls_parse_client_auth("none", &a, err, sizeof err));
    assert_int_equal(a, KQ_TLS_CLIENT_AUTH_NONE);
    assert_false(kq_tls_parse_client_auth("maybe", &a, err, sizeof err));
    handshake(NULL, NULL); /* frees the last contexts */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pkcs12_stores),
        cmocka_unit_test(test_pem_key_password),
        cmocka_unit_test(test_store_errors),
        cmocka_unit_test(test_inline_pem),
        cmocka_unit_test(test_protocols),
        cmocka_unit_test(test_cipher_suites_by_iana_name),
        cmocka_unit_test(test_parse_helpers),
    };
    return cmocka_run_group_tests(tests, tt_certs_setup, tt_certs_teardown);
}
