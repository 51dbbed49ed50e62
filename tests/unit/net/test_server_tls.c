/* A TLS listener over loopback TCP: frames and their answers through the
 * engine (a large answer crosses the ciphertext bound many times), the
 * client certificate's principal, plaintext on the TLS port, the handshake
 * deadline and the cap on handshakes in progress. Certificates from
 * tests/unit/tls/gen-certs.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>

#include "kq/net.h"
#include "kq/tls.h"
#include "net/net_test_util.h"

static char certs[256];

static int certs_setup(void **state)
{
    (void)state;
    snprintf(certs, sizeof certs, "/tmp/kq-net-tls-XXXXXX");
    if (!mkdtemp(certs))
        return -1;
    char src[512];
    snprintf(src, sizeof src, "%s", __FILE__);
    char *slash = strrchr(src, '/');
    if (slash)
        *slash = '\0';
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "sh '%s/../tls/gen-certs.sh' '%s' >/dev/null 2>&1", src, certs);
    return system(cmd) == 0 ? 0 : -1;
}

static int certs_teardown(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", certs);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *cert(const char *name)
{
    static char paths[4][320];
    static unsigned next;
    char *p = paths[next++ % 4];
    snprintf(p, sizeof paths[0], "%s/%s", certs, name);
    return p;
}

typedef struct fx {
    uv_loop_t loop;
    net_server *server;
    kq_tls_ctx *sctx, *cctx;
    uint16_t port;
    int frames;
    char principal[256];
} fx;

static void on_frame(void *ctx, net_slot *slot, uint8_t *frame, size_t len)
{
    fx *f = ctx;
    f->frames++;
    const char *p = net_slot_tls_principal(slot);
    snprintf(f->principal, sizeof f->principal, "%s", p ? p : "(none)");
    net_slot_respond(slot, frame, len); /* echo */
}

static void find_listener(uv_handle_t *h, void *arg)
{
    struct sockaddr_in a;
    int alen = sizeof(a);
    if (h->type == UV_TCP && uv_tcp_getsockname((uv_tcp_t *)h, (struct sockaddr *)&a, &alen) == 0)
        *(uint16_t *)arg = ntohs(a.sin_port);
}

static fx *fx_start(uint32_t handshake_timeout_ms)
{
    fx *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    assert_int_equal(uv_loop_init(&f->loop), 0);
    char err[KQ_TLS_ERROR_BYTES];
    kq_tls_settings ss = {.keystore_location = cert("node1.pem"),
                          .truststore_location = cert("ca.crt"),
                          .client_auth = KQ_TLS_CLIENT_AUTH_REQUESTED};
    f->sctx = kq_tls_ctx_create_server(&ss, err, sizeof err);
    assert_non_null(f->sctx);
    kq_tls_settings cs = {.keystore_location = cert("client.pem"),
                          .truststore_location = cert("ca.crt")};
    f->cctx = kq_tls_ctx_create_client(&cs, err, sizeof err);
    assert_non_null(f->cctx);
    net_server_config cfg = {.host = "127.0.0.1", .frame_bytes_max = 8 << 20,
                             .on_frame = on_frame, .ctx = f, .tls = f->sctx,
                             .tls_handshake_timeout_ms = handshake_timeout_ms};
    f->server = net_server_start(&f->loop, &cfg, err, sizeof(err));
    assert_non_null(f->server);
    uv_walk(&f->loop, find_listener, &f->port);
    assert_true(f->port != 0);
    return f;
}

static void fx_stop(fx *f)
{
    net_server_stop(f->server);
    assert_int_equal(nt_loop_finish(&f->loop), 0);
    kq_tls_ctx_destroy(f->sctx);
    kq_tls_ctx_destroy(f->cctx);
    free(f);
}

/* One round of a blocking-style TLS client on a non-blocking socket:
 * ciphertext out, ciphertext in; false once the socket is closed. */
static bool client_round(fx *f, int fd, kq_tls_conn *c)
{
    uint8_t buf[1 << 16];
    size_t n;
    while ((n = kq_tls_conn_take_out(c, buf, sizeof buf)) > 0)
        assert_true(nt_send_all(&f->loop, fd, buf, n));
    nt_turn(&f->loop);
    size_t room = kq_tls_conn_feed_room(c);
    ssize_t got = recv(fd, buf, room < sizeof buf ? room : sizeof buf, 0);
    if (got == 0)
        return false;
    if (got > 0)
        assert_int_equal(kq_tls_conn_feed(c, buf, (size_t)got), got);
    return true;
}

/* Sends one frame of len bytes and reads its echo back through TLS. */
static void tls_echo(fx *f, int fd, kq_tls_conn *c, size_t len)
{
    uint8_t *out = malloc(len + 4), *in = malloc(len + 4);
    assert_true(out && in);
    nt_put32(out, (uint32_t)len);
    for (size_t i = 0; i < len; i++)
        out[4 + i] = (uint8_t)(i * 7);
    size_t sent = 0, got = 0;
    uint64_t end = nt_now_ms() + 20000;
    while (got < len + 4 && nt_now_ms() < end) {
        if (sent < len + 4) {
            ptrdiff_t w = kq_tls_conn_write(c, out + sent, len + 4 - sent);
            assert_true(w >= 0);
            sent += (size_t)w;
        }
        assert_true(client_round(f, fd, c));
        ptrdiff_t r;
        while ((r = kq_tls_conn_read(c, in + got, len + 4 - got)) > 0)
            got += (size_t)r;
        assert_true(r >= 0);
    }
    assert_int_equal(got, len + 4);
    assert_memory_equal(in, out, len + 4);
    free(out);
    free(in);
}

static void test_tls_frames_and_principal(void **state)
{
    (void)state;
    fx *f = fx_start(0);
    int fd = nt_connect(f->port);
    assert_true(fd >= 0);
    kq_tls_conn *c = kq_tls_conn_create(f->cctx, false, "localhost");
    assert_non_null(c);
    tls_echo(f, fd, c, 5);
    assert_string_equal(f->principal, "User:CN=client,OU=clients,O=kq");
    tls_echo(f, fd, c, 3 << 20); /* twelve times the ciphertext bound */
    assert_int_equal(f->frames, 2);
    net_server_stats st;
    net_server_get_stats(f->server, &st);
    assert_int_equal(st.tls_handshakes, 0);
    assert_int_equal(st.write_queued_bytes, 0);
    kq_tls_conn_destroy(c);
    close(fd);
    fx_stop(f);
}

static void test_plaintext_on_tls_port_closes_only_it(void **state)
{
    (void)state;
    fx *f = fx_start(0);
    int plain = nt_connect(f->port);
    uint8_t frame[9] = {0, 0, 0, 5, 'h', 'e', 'l', 'l', 'o'};
    assert_true(nt_send_all(&f->loop, plain, frame, sizeof frame));
    assert_true(nt_wait_eof(&f->loop, plain));
    close(plain);
    assert_int_equal(f->frames, 0);
    int fd = nt_connect(f->port);
    kq_tls_conn *c = kq_tls_conn_create(f->cctx, false, "localhost");
    tls_echo(f, fd, c, 100);
    net_server_stats st;
    net_server_get_stats(f->server, &st);
    assert_int_equal(st.tls_failures, 1);
    kq_tls_conn_destroy(c);
    close(fd);
    fx_stop(f);
}

/* Source addresses spread so that the per-address bound is not hit. */
static int connect_spread(uint16_t port, int i)
{
    char src[32];
    snprintf(src, sizeof src, "127.0.0.%d", 1 + i / KQ_TLS_HANDSHAKES_PER_IP_MAX);
    return nt_connect_from(port, src);
}

static void test_handshake_deadline_and_cap(void **state)
{
    (void)state;
    fx *f = fx_start(300);
    int fds[KQ_TLS_HANDSHAKES_MAX + 1];
    for (int i = 0; i < KQ_TLS_HANDSHAKES_MAX; i++) {
        fds[i] = connect_spread(f->port, i);
        assert_true(fds[i] >= 0);
    }
    nt_pump_ms(&f->loop, 100);
    net_server_stats st;
    net_server_get_stats(f->server, &st);
    assert_int_equal(st.tls_handshakes, KQ_TLS_HANDSHAKES_MAX);
    /* One more (from a fresh address) is closed at accept. */
    fds[KQ_TLS_HANDSHAKES_MAX] = nt_connect_from(f->port, "127.0.1.1");
    assert_true(nt_wait_eof(&f->loop, fds[KQ_TLS_HANDSHAKES_MAX]));
    net_server_get_stats(f->server, &st);
    assert_int_equal(st.tls_failures, 1);
    assert_int_equal(st.refused_tls_handshakes, 1);
    /* The silent ones are closed at their deadline. */
    for (int i = 0; i < KQ_TLS_HANDSHAKES_MAX; i++)
        assert_true(nt_wait_eof(&f->loop, fds[i]));
    net_server_get_stats(f->server, &st);
    assert_int_equal(st.tls_handshakes, 0);
    assert_int_equal(st.tls_failures, 1 + KQ_TLS_HANDSHAKES_MAX);
    for (int i = 0; i <= KQ_TLS_HANDSHAKES_MAX; i++)
        close(fds[i]);
    int fd = nt_connect(f->port);
    kq_tls_conn *c = kq_tls_conn_create(f->cctx, false, "localhost");
    tls_echo(f, fd, c, 10); /* served after all that */
    kq_tls_conn_destroy(c);
    close(fd);
    fx_stop(f);
}

/* One address holding KQ_TLS_HANDSHAKES_PER_IP_MAX stalled handshakes gets
 * no more; another address still completes its handshake meanwhile. */
static void test_handshakes_per_address(void **state)
{
    (void)state;
    fx *f = fx_start(0);
    int fds[KQ_TLS_HANDSHAKES_PER_IP_MAX + 4];
    for (int i = 0; i < KQ_TLS_HANDSHAKES_PER_IP_MAX; i++)
        assert_true((fds[i] = nt_connect_from(f->port, "127.0.0.1")) >= 0);
    nt_pump_ms(&f->loop, 100);
    for (int i = KQ_TLS_HANDSHAKES_PER_IP_MAX; i < KQ_TLS_HANDSHAKES_PER_IP_MAX + 4; i++) {
        assert_true((fds[i] = nt_connect_from(f->port, "127.0.0.1")) >= 0);
        assert_true(nt_wait_eof(&f->loop, fds[i]));
    }
    net_server_stats st;
    net_server_get_stats(f->server, &st);
    assert_int_equal(st.tls_handshakes, KQ_TLS_HANDSHAKES_PER_IP_MAX);
    assert_int_equal(st.refused_tls_handshakes_per_ip, 4);
    int fd = nt_connect_from(f->port, "127.0.0.2");
    kq_tls_conn *c = kq_tls_conn_create(f->cctx, false, "localhost");
    tls_echo(f, fd, c, 10);
    kq_tls_conn_destroy(c);
    close(fd);
    for (int i = 0; i < KQ_TLS_HANDSHAKES_PER_IP_MAX + 4; i++)
        close(fds[i]);
    fx_stop(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tls_frames_and_principal),
        cmocka_unit_test(test_plaintext_on_tls_port_closes_only_it),
        cmocka_unit_test(test_handshake_deadline_and_cap),
        cmocka_unit_test(test_handshakes_per_address),
    };
    return cmocka_run_group_tests(tests, certs_setup, certs_teardown);
}
