/* TLS handshakes between in-memory connections: protocol versions, mutual
 * TLS, certificate verification failures, host name verification, a
 * plaintext Kafka client on a TLS port, and the peer's identity. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "tls_test_util.h"

static tt_end client, server;
static kq_tls_ctx *client_ctx, *server_ctx;

/* Connections first: a context outlives its connections. */
static void end_both(void)
{
    kq_tls_conn_destroy(client.conn);
    kq_tls_conn_destroy(server.conn);
    client.conn = server.conn = NULL;
    kq_tls_ctx_destroy(client_ctx);
    kq_tls_ctx_destroy(server_ctx);
    client_ctx = server_ctx = NULL;
}

static void assert_contains(const char *text, const char *part)
{
    if (!strstr(text, part)) {
        fprintf(stderr, "\"%s\" does not contain \"%s\"\n", text, part);
        fail();
    }
}

static void handshake_with(const kq_tls_settings *ss, const kq_tls_settings *cs, const char *host)
{
    server_ctx = tt_ctx(ss, true);
    client_ctx = tt_ctx(cs, false);
    assert_non_null(server_ctx);
    assert_non_null(client_ctx);
    tt_handshake(client_ctx, server_ctx, host, &client, &server);
}

static void test_handshake_versions(void **state)
{
    (void)state;
    const char *versions[] = {"TLSv1.2", "TLSv1.3"};
    for (int i = 0; i < 2; i++) {
        kq_tls_settings ss = tt_server_settings();
        ss.enabled_protocols = versions[i];
        kq_tls_settings cs = tt_client_settings();
        handshake_with(&ss, &cs, "localhost");
        assert_true(kq_tls_conn_handshake_done(server.conn));
        assert_true(kq_tls_conn_handshake_done(client.conn));
        assert_false(kq_tls_conn_failed(server.conn));
        assert_string_equal(kq_tls_conn_protocol(server.conn), versions[i]);
        assert_string_equal(kq_tls_conn_protocol(client.conn), versions[i]);
        assert_true(strlen(kq_tls_conn_cipher(client.conn)) > 0);
        end_both();
    }
}

static void test_default_is_tls13_and_identity(void **state)
{
    (void)state;
    kq_tls_settings ss = tt_server_settings();
    ss.client_auth = KQ_TLS_CLIENT_AUTH_REQUIRED;
    kq_tls_settings cs = tt_client_settings();
    cs.keystore_location = tt_path("client.pem");
    handshake_with(&ss, &cs, "node1");
    assert_true(kq_tls_conn_handshake_done(server.conn));
    assert_string_equal(kq_tls_conn_protocol(server.conn), "TLSv1.3");
    kq_tls_peer_identity id;
    assert_true(kq_tls_conn_peer_identity(server.conn, &id));
    assert_true(id.has_certificate);
    assert_string_equal(id.subject, "CN=client,OU=clients,O=kq");
    assert_int_equal(id.dns_count, 1);
    assert_string_equal(id.dns[0], "client");
    assert_true(kq_tls_conn_peer_identity(client.conn, &id));
    assert_string_equal(id.subject, "CN=node1,OU=quorum,O=kq");
    assert_int_equal(id.dns_count, 2);
    assert_string_equal(id.dns[0], "localhost");
    assert_string_equal(id.dns[1], "node1");
    end_both();
}

static void test_mtls_required_without_client_cert(void **state)
{
    (void)state;
    const char *versions[] = {"TLSv1.2", "TLSv1.3"};
    for (int i = 0; i < 2; i++) {
        kq_tls_settings ss = tt_server_settings();
        ss.client_auth = KQ_TLS_CLIENT_AUTH_REQUIRED;
        ss.enabled_protocols = versions[i];
        kq_tls_settings cs = tt_client_settings();
        handshake_with(&ss, &cs, "localhost");
        assert_true(kq_tls_conn_failed(server.conn));
        assert_false(kq_tls_conn_handshake_done(server.conn));
        assert_contains(kq_tls_conn_error(server.conn), "peer did not return a certificate");
        /* The client learns it from the server's alert. */
        assert_true(kq_tls_conn_failed(client.conn));
        assert_contains(kq_tls_conn_error(client.conn), "alert");
        end_both();
    }
}

static void test_mtls_requested_without_client_cert(void **state)
{
    (void)state;
    kq_tls_settings ss = tt_server_settings();
    ss.client_auth = KQ_TLS_CLIENT_AUTH_REQUESTED;
    kq_tls_settings cs = tt_client_settings();
    handshake_with(&ss, &cs, "localhost");
    assert_true(kq_tls_conn_handshake_done(server.conn));
    kq_tls_peer_identity id;
    assert_true(kq_tls_conn_peer_identity(server.conn, &id));
    assert_false(id.has_certificate);
    end_both();
}

static void test_untrusted_ca(void **state)
{
    (void)state;
    kq_tls_settings ss = tt_server_settings();
    ss.keystore_location = tt_path("rogue.pem");
    kq_tls_settings cs = tt_client_settings();
    handshake_with(&ss, &cs, "localhost");
    assert_true(kq_tls_conn_failed(client.conn));
    assert_contains(kq_tls_conn_error(client.conn), "certificate verify failed");
    assert_contains(kq_tls_conn_error(client.conn), "unable to get local issuer certificate");
    end_both();

    /* A client certificate from the rogue CA, on a listener requiring one. */
    ss = tt_server_settings();
    ss.client_auth = KQ_TLS_CLIENT_AUTH_REQUIRED;
    cs.keystore_location = tt_path("rogue.pem");
    handshake_with(&ss, &cs, "localhost");
    assert_true(kq_tls_conn_failed(server.conn));
    assert_contains(kq_tls_conn_error(server.conn), "unable to get local issuer certificate");
    end_both();
}

static void test_expired_certificate(void **state)
{
    (void)state;
    kq_tls_settings ss = tt_server_settings();
    ss.keystore_location = tt_path("expired.pem");
    kq_tls_settings cs = tt_client_settings();
    handshake_with(&ss, &cs, "localhost");
    assert_true(kq_tls_conn_failed(client.conn));
    assert_contains(kq_tls_conn_error(client.conn), "certificate has expired");
    end_both();

    ss = tt_server_settings();
    ss.client_auth = KQ_TLS_CLIENT_AUTH_REQUIRED;
    cs.keystore_location = tt_path("expired.pem");
    handshake_with(&ss, &cs, "localhost");
    assert_true(kq_tls_conn_failed(server.conn));
    assert_contains(kq_tls_conn_error(server.conn), "certificate has expired");
    end_both();
}

static void test_host_name_verification(void **state)
{
    (void)state;
    kq_tls_settings ss = tt_server_settings();
    kq_tls_settings cs = tt_client_settings(); /* NULL: https, Kafka's default */
    const char *good[] = {"localhost", "node1", "127.0.0.1"};
    for (int i = 0; i < 3; i++) {
        handshake_with(&ss, &cs, good[i]);
        assert_true(kq_tls_conn_handshake_done(client.conn));
        assert_false(kq_tls_conn_failed(client.conn));
        end_both();
    }
    const char *bad[] = {"node2", "127.0.0.2"};
    const char *why[] = {"hostname mismatch", "IP address mismatch"};
    for (int i = 0; i < 2; i++) {
        cs.endpoint_identification_algorithm = i ? "HTTPS" : "https";
        handshake_with(&ss, &cs, bad[i]);
        assert_true(kq_tls_conn_failed(client.conn));
        assert_contains(kq_tls_conn_error(client.conn), why[i]);
        end_both();
    }
    cs.endpoint_identification_algorithm = "";
    handshake_with(&ss, &cs, "node2");
    assert_true(kq_tls_conn_handshake_done(client.conn));
    assert_false(kq_tls_conn_failed(client.conn));
    end_both();
    handshake_with(&ss, &cs, NULL); /* off: no host needed */
    assert_true(kq_tls_conn_handshake_done(client.conn));
    end_both();
}

static void test_plaintext_client_on_tls_port(void **state)
{
    (void)state;
    kq_tls_settings ss = tt_server_settings();
    kq_tls_ctx *sctx = tt_ctx(&ss, true);
    assert_non_null(sctx);
    /* ApiVersions v3: size, api key 18, version 3, correlation id 1,
     * client id "kq", no tags, client software name/version. */
    static const uint8_t frame[] = {0, 0, 0, 0x14, 0, 18, 0, 3, 0, 0, 0, 1, 0, 2, 'k', 'q',
                                    0, 3, 'k', 'q', 3, '0', '.', '1', 0};
    kq_tls_conn *conn = kq_tls_conn_create(sctx, true, NULL);
    assert_non_null(conn);
    ptrdiff_t r = kq_tls_conn_feed(conn, frame, sizeof frame);
    assert_int_equal(r, KQ_TLS_ERR_FATAL);
    assert_true(kq_tls_conn_failed(conn));
    const char *err = kq_tls_conn_error(conn);
    assert_contains(err, "TLS handshake failed");
    assert_contains(err, "wrong version number");
    assert_contains(err, "does not speak TLS");
    assert_int_equal(kq_tls_conn_feed(conn, frame, sizeof frame), KQ_TLS_ERR_FATAL);
    uint8_t buf[64];
    assert_int_equal(kq_tls_conn_read(conn, buf, sizeof buf), KQ_TLS_ERR_FATAL);
    kq_tls_conn_destroy(conn);

    /* An HTTP request is named as such by OpenSSL. */
    conn = kq_tls_conn_create(sctx, true, NULL);
    static const char get[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    assert_int_equal(kq_tls_conn_feed(conn, (const uint8_t *)get, sizeof get - 1),
                     KQ_TLS_ERR_FATAL);
    assert_contains(kq_tls_conn_error(conn), "http request");
    kq_tls_conn_destroy(conn);
    kq_tls_ctx_destroy(sctx);
}

static void test_mutual_tls_between_voters(void **state)
{
    (void)state;
    /* node2 dials node1: both present their keystore, both verify. */
    kq_tls_settings ss = tt_server_settings();
    ss.client_auth = KQ_TLS_CLIENT_AUTH_REQUIRED;
    kq_tls_settings cs = tt_client_settings();
    cs.keystore_location = tt_path("node2.pem");
    handshake_with(&ss, &cs, "node1");
    assert_true(kq_tls_conn_handshake_done(server.conn));
    kq_tls_peer_identity id;
    assert_true(kq_tls_conn_peer_identity(server.conn, &id));
    assert_string_equal(id.subject, "CN=node2,OU=quorum,O=kq");
    end_both();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_handshake_versions),
        cmocka_unit_test(test_default_is_tls13_and_identity),
        cmocka_unit_test(test_mtls_required_without_client_cert),
        cmocka_unit_test(test_mtls_requested_without_client_cert),
        cmocka_unit_test(test_untrusted_ca),
        cmocka_unit_test(test_expired_certificate),
        cmocka_unit_test(test_host_name_verification),
        cmocka_unit_test(test_plaintext_client_on_tls_port),
        cmocka_unit_test(test_mutual_tls_between_voters),
    };
    return cmocka_run_group_tests(tests, tt_certs_setup, tt_certs_teardown);
}
