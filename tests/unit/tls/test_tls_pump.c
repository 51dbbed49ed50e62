/* The byte pump: 1 MiB each way in random chunk sizes with the buffers
 * staying within their limits, back-pressure of a full output or input
 * buffer, and close_notify. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "tls_test_util.h"

#define ROUND_TRIP_BYTES (1u << 20)

static tt_end client, server;

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = (uint8_t)(seed >> 16);
    }
}

static void round_trip(const char *protocol, size_t chunk_max)
{
    kq_tls_settings ss = tt_server_settings();
    ss.enabled_protocols = protocol;
    kq_tls_settings cs = tt_client_settings();
    kq_tls_ctx *sctx = tt_ctx(&ss, true), *cctx = tt_ctx(&cs, false);
    assert_non_null(sctx);
    assert_non_null(cctx);
    uint8_t *up = malloc(ROUND_TRIP_BYTES), *down = malloc(ROUND_TRIP_BYTES);
    uint8_t *up_got = malloc(ROUND_TRIP_BYTES), *down_got = malloc(ROUND_TRIP_BYTES);
    assert_true(up && down && up_got && down_got);
    fill(up, ROUND_TRIP_BYTES, 1);
    fill(down, ROUND_TRIP_BYTES, 2);
    tt_handshake(cctx, sctx, "localhost", &client, &server);
    assert_true(kq_tls_conn_handshake_done(server.conn));
    client.send = up;
    client.send_len = ROUND_TRIP_BYTES;
    client.recv = down_got;
    client.recv_cap = ROUND_TRIP_BYTES;
    server.send = down;
    server.send_len = ROUND_TRIP_BYTES;
    server.recv = up_got;
    server.recv_cap = ROUND_TRIP_BYTES;
    client.chunk_max = server.chunk_max = chunk_max;
    tt_pump(&client, &server);
    assert_false(kq_tls_conn_failed(client.conn));
    assert_false(kq_tls_conn_failed(server.conn));
    assert_int_equal(server.recv_len, ROUND_TRIP_BYTES);
    assert_int_equal(client.recv_len, ROUND_TRIP_BYTES);
    assert_memory_equal(up, up_got, ROUND_TRIP_BYTES);
    assert_memory_equal(down, down_got, ROUND_TRIP_BYTES);
    assert_true(client.out_peak <= KQ_TLS_CONN_CIPHER_OUT_BYTES_MAX);
    assert_true(server.out_peak <= KQ_TLS_CONN_CIPHER_OUT_BYTES_MAX);
    assert_true(client.in_peak <= KQ_TLS_CONN_CIPHER_IN_BYTES_MAX);
    assert_true(server.in_peak <= KQ_TLS_CONN_CIPHER_IN_BYTES_MAX);
    kq_tls_conn_destroy(client.conn);
    kq_tls_conn_destroy(server.conn);
    kq_tls_ctx_destroy(sctx);
    kq_tls_ctx_destroy(cctx);
    free(up);
    free(down);
    free(up_got);
    free(down_got);
}

static void test_round_trip_random_chunks(void **state)
{
    (void)state;
    round_trip("TLSv1.3", 7000);
    round_trip("TLSv1.2", 5000);
    round_trip("TLSv1.3", 40); /* many tiny pieces, records split everywhere */
}

static void test_round_trip_whole_buffers(void **state)
{
    (void)state;
    round_trip("TLSv1.3", 0);
}

static void handshaken(kq_tls_ctx **sctx, kq_tls_ctx **cctx)
{
    kq_tls_settings ss = tt_server_settings();
    kq_tls_settings cs = tt_client_settings();
    *sctx = tt_ctx(&ss, true);
    *cctx = tt_ctx(&cs, false);
    assert_true(*sctx && *cctx);
    tt_handshake(*cctx, *sctx, "localhost", &client, &server);
    assert_true(kq_tls_conn_handshake_done(client.conn));
}

static void test_back_pressure(void **state)
{
    (void)state;
    kq_tls_ctx *sctx, *cctx;
    handshaken(&sctx, &cctx);
    /* Nobody takes the output: write stops below the limit. */
    static uint8_t big[1u << 20];
    ptrdiff_t w = kq_tls_conn_write(client.conn, big, sizeof big);
    assert_true(w > 0 && (size_t)w < sizeof big);
    assert_true(kq_tls_conn_pending_out(client.conn) <= KQ_TLS_CONN_CIPHER_OUT_BYTES_MAX);
    assert_int_equal(kq_tls_conn_write(client.conn, big, sizeof big), 0);
    /* The server takes input up to its limit while nobody reads plaintext. */
    static uint8_t cipher[KQ_TLS_CONN_CIPHER_OUT_BYTES_MAX];
    size_t n = kq_tls_conn_take_out(client.conn, cipher, sizeof cipher);
    assert_true(n > KQ_TLS_CONN_CIPHER_IN_BYTES_MAX);
    ptrdiff_t f = kq_tls_conn_feed(server.conn, cipher, n);
    assert_int_equal(f, KQ_TLS_CONN_CIPHER_IN_BYTES_MAX);
    assert_int_equal(kq_tls_conn_feed_room(server.conn), 0);
    assert_int_equal(kq_tls_conn_feed(server.conn, cipher + f, n - (size_t)f), 0);
    /* Reading makes room again. */
    uint8_t plain[4096];
    assert_true(kq_tls_conn_read(server.conn, plain, sizeof plain) > 0);
    while (kq_tls_conn_read(server.conn, plain, sizeof plain) > 0) {
    }
    assert_true(kq_tls_conn_feed_room(server.conn) > KQ_TLS_RECORD_BYTES_MAX);
    kq_tls_conn_destroy(client.conn);
    kq_tls_conn_destroy(server.conn);
    kq_tls_ctx_destroy(sctx);
    kq_tls_ctx_destroy(cctx);
}

static void test_write_before_handshake_and_close_notify(void **state)
{
    (void)state;
    kq_tls_settings ss = tt_server_settings();
    kq_tls_ctx *sctx = tt_ctx(&ss, true);
    kq_tls_conn *early = kq_tls_conn_create(sctx, true, NULL);
    assert_int_equal(kq_tls_conn_write(early, (const uint8_t *)"x", 1), 0);
    uint8_t b[16];
    assert_int_equal(kq_tls_conn_read(early, b, sizeof b), 0);
    assert_string_equal(kq_tls_conn_protocol(early), "");
    kq_tls_peer_identity id;
    assert_false(kq_tls_conn_peer_identity(early, &id));
    kq_tls_conn_destroy(early);
    kq_tls_ctx_destroy(sctx);

    kq_tls_ctx *cctx;
    handshaken(&sctx, &cctx);
    kq_tls_conn_shutdown(client.conn);
    assert_true(kq_tls_conn_pending_out(client.conn) > 0);
    tt_pump(&client, &server);
    assert_true(kq_tls_conn_failed(server.conn));
    assert_int_equal(kq_tls_conn_read(server.conn, b, sizeof b), KQ_TLS_ERR_CLOSED);
    assert_non_null(strstr(kq_tls_conn_error(server.conn), "close_notify"));
    kq_tls_conn_destroy(client.conn);
    kq_tls_conn_destroy(server.conn);
    kq_tls_ctx_destroy(sctx);
    kq_tls_ctx_destroy(cctx);
}

static void test_garbage_after_handshake(void **state)
{
    (void)state;
    kq_tls_ctx *sctx, *cctx;
    handshaken(&sctx, &cctx);
    /* An application-data record header with a corrupted body. */
    uint8_t junk[600] = {23, 3, 3, 0x02, 0x00};
    fill(junk + 5, sizeof junk - 5, 9);
    assert_int_equal(kq_tls_conn_feed(server.conn, junk, sizeof junk), (ptrdiff_t)sizeof junk);
    uint8_t b[1024];
    assert_int_equal(kq_tls_conn_read(server.conn, b, sizeof b), KQ_TLS_ERR_FATAL);
    assert_true(strlen(kq_tls_conn_error(server.conn)) > 0);
    assert_true(kq_tls_conn_pending_out(server.conn) > 0); /* an alert for the peer */
    kq_tls_conn_destroy(client.conn);
    kq_tls_conn_destroy(server.conn);
    kq_tls_ctx_destroy(sctx);
    kq_tls_ctx_destroy(cctx);
}

/* Random bytes behind a plausible record header, in random pieces, on both
 * sides of a handshake: an error or a wait, never a crash (ASan/UBSan). */
static void test_random_garbage(void **state)
{
    (void)state;
    kq_tls_settings ss = tt_server_settings();
    kq_tls_settings cs = tt_client_settings();
    kq_tls_ctx *sctx = tt_ctx(&ss, true), *cctx = tt_ctx(&cs, false);
    assert_true(sctx && cctx);
    static uint8_t junk[4096];
    for (uint32_t seed = 1; seed <= 300; seed++) {
        kq_tls_conn *conn = seed % 2 ? kq_tls_conn_create(sctx, true, NULL)
                                     : kq_tls_conn_create(cctx, false, "localhost");
        assert_non_null(conn);
        fill(junk, sizeof junk, seed);
        if (seed % 3) { /* a handshake record header, then noise */
            junk[0] = 22;
            junk[1] = 3;
            junk[2] = (uint8_t)(seed % 4);
        }
        for (size_t off = 0; off < sizeof junk;) {
            size_t n = tt_rand(600);
            n = n < sizeof junk - off ? n : sizeof junk - off;
            ptrdiff_t f = kq_tls_conn_feed(conn, junk + off, n);
            uint8_t b[512];
            kq_tls_conn_read(conn, b, sizeof b);
            kq_tls_conn_take_out(conn, b, sizeof b);
            if (f <= 0)
                break; /* refused, or waiting for more than the junk holds */
            off += (size_t)f;
        }
        kq_tls_conn_destroy(conn);
    }
    kq_tls_ctx_destroy(sctx);
    kq_tls_ctx_destroy(cctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_random_chunks),
        cmocka_unit_test(test_round_trip_whole_buffers),
        cmocka_unit_test(test_back_pressure),
        cmocka_unit_test(test_write_before_handshake_and_close_notify),
        cmocka_unit_test(test_garbage_after_handshake),
        cmocka_unit_test(test_random_garbage),
    };
    return cmocka_run_group_tests(tests, tt_certs_setup, tt_certs_teardown);
}
