/* Connection admission on real sockets (kq/conn_limits.h through
 * net_server_config.pool): over max.connections or max.connections.per.ip
 * a connection is accepted and closed at once, counted per reason; the
 * admitted ones are served; a closed one frees its slot; an evicting pool
 * full of one address serves others by closing that address's idlest. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "kq/conn_limits.h"
#include "kq/limits.h"
#include "kq/net.h"
#include "net/net_test_util.h"

typedef struct fx {
    uv_loop_t loop;
    net_server *server;
    uint16_t port;
    kq_conn_pool pool;
} fx;

static void on_frame(void *ctx, net_slot *slot, uint8_t *frame, size_t len)
{
    (void)ctx;
    if (len > 0 && frame[0] == 'A') /* "Auth!": as a SASL exchange would */
        net_slot_authenticated(slot);
    net_slot_respond(slot, frame, len);
}

/* fx_start_pool: as a SASL listener's (unauthenticated_frame_bytes_max). */
static int32_t g_unauthenticated_max;

static void find_listener(uv_handle_t *h, void *arg)
{
    if (h->type != UV_TCP)
        return;
    struct sockaddr_in a;
    int alen = sizeof(a);
    if (uv_tcp_getsockname((uv_tcp_t *)h, (struct sockaddr *)&a, &alen) == 0)
        *(uint16_t *)arg = ntohs(a.sin_port);
}

static fx *fx_start_pool(uint32_t max, uint32_t per_ip, bool evict)
{
    fx *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    assert_int_equal(uv_loop_init(&f->loop), 0);
    kq_conn_pool_init(&f->pool, &(kq_conn_pool_config){.max_connections = max,
                                                       .max_per_ip = per_ip, .evict = evict});
    net_server_config cfg = {.host = "127.0.0.1", .frame_bytes_max = 1 << 20, .on_frame = on_frame,
                             .ctx = f, .pool = &f->pool,
                             .unauthenticated_frame_bytes_max = g_unauthenticated_max};
    char err[256] = "";
    f->server = net_server_start(&f->loop, &cfg, err, sizeof(err));
    assert_non_null(f->server);
    uv_walk(&f->loop, find_listener, &f->port);
    assert_true(f->port != 0);
    return f;
}

static fx *fx_start(uint32_t max, uint32_t per_ip)
{
    return fx_start_pool(max, per_ip, false);
}

static void fx_stop(fx *f)
{
    net_server_stop(f->server);
    assert_int_equal(nt_loop_finish(&f->loop), 0);
    assert_int_equal(f->pool.open, 0); /* every admitted connection released */
    kq_conn_pool_free(&f->pool);
    free(f);
}

/* A frame goes out and comes back: the connection is served. */
static void echo(fx *f, int fd)
{
    uint8_t out[9] = {0, 0, 0, 5, 'h', 'e', 'l', 'l', 'o'}, in[9];
    assert_true(nt_send_all(&f->loop, fd, out, sizeof out));
    assert_int_equal(nt_recv_exact(&f->loop, fd, in, sizeof in), sizeof in);
    assert_memory_equal(in, out, sizeof out);
}

static void test_total_and_per_ip(void **state)
{
    (void)state;
    fx *f = fx_start(3, 2);
    int a1 = nt_connect_from(f->port, "127.0.0.1");
    int a2 = nt_connect_from(f->port, "127.0.0.1");
    echo(f, a1);
    echo(f, a2);
    int a3 = nt_connect_from(f->port, "127.0.0.1"); /* per ip */
    assert_true(nt_wait_eof(&f->loop, a3));
    int b1 = nt_connect_from(f->port, "127.0.0.2");
    echo(f, b1);
    int c1 = nt_connect_from(f->port, "127.0.0.3"); /* total */
    assert_true(nt_wait_eof(&f->loop, c1));
    net_server_stats st;
    net_server_get_stats(f->server, &st);
    assert_int_equal(st.connections, 3);
    assert_int_equal(st.refused_per_ip, 1);
    assert_int_equal(st.refused_max_connections, 1);
    /* a closed connection frees its slot */
    close(a1);
    nt_pump_ms(&f->loop, 100);
    int c2 = nt_connect_from(f->port, "127.0.0.3");
    echo(f, c2);
    echo(f, a2);
    close(a2);
    close(a3);
    close(b1);
    close(c1);
    close(c2);
    fx_stop(f);
}

/* A flood far past the limit: every extra connection is closed, the server
 * keeps serving the admitted ones and holds no more than the limit. */
static void test_flood(void **state)
{
    (void)state;
    fx *f = fx_start(8, 8);
    int keep[8];
    for (int i = 0; i < 8; i++) {
        keep[i] = nt_connect_from(f->port, "127.0.0.5");
        echo(f, keep[i]);
    }
    int extra[200];
    for (int i = 0; i < 200; i++)
        assert_true((extra[i] = nt_connect_from(f->port, "127.0.0.6")) >= 0);
    for (int i = 0; i < 200; i++) {
        assert_true(nt_wait_eof(&f->loop, extra[i]));
        close(extra[i]);
    }
    net_server_stats st;
    net_server_get_stats(f->server, &st);
    assert_int_equal(st.connections, 8);
    assert_int_equal(st.refused_max_connections, 200);
    for (int i = 0; i < 8; i++) {
        echo(f, keep[i]);
        close(keep[i]);
    }
    fx_stop(f);
}

/* Descriptors run out (RLIMIT_NOFILE lowered under the open ones): a
 * connection arriving then is dropped, the server neither stops nor spins,
 * and once descriptors are free again a new connection is served. */
static void test_descriptors_exhausted(void **state)
{
    (void)state;
    fx *f = fx_start(100, 100);
    int early = nt_connect_from(f->port, "127.0.0.1");
    echo(f, early);
    int late = socket(AF_INET, SOCK_STREAM, 0), later = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(late >= 0 && later >= 0);
    struct rlimit was;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &was), 0);
    struct rlimit low = {.rlim_cur = (rlim_t)later + 8, .rlim_max = was.rlim_max};
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
    int fill[16], filled = 0;
    while (filled < 16 && (fill[filled] = dup(0)) >= 0)
        filled++;
    assert_true(filled < 16); /* every descriptor taken */
    struct sockaddr_in a = nt_addr(f->port);
    assert_int_equal(connect(late, (struct sockaddr *)&a, sizeof a), 0);
    nt_set_nonblocking(late);
    assert_true(nt_wait_eof(&f->loop, late)); /* libuv drops it (its spare descriptor) */
    echo(f, early); /* the admitted connection is still served */
    for (int i = 0; i < filled; i++)
        close(fill[i]);
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &was), 0);
    assert_int_equal(connect(later, (struct sockaddr *)&a, sizeof a), 0);
    nt_set_nonblocking(later);
    nt_pump_ms(&f->loop, KQ_ACCEPT_BACKOFF_MS + 100);
    echo(f, later);
    close(early);
    close(late);
    close(later);
    fx_stop(f);
}

/* An evicting pool (the daemon's client pool) full of one address's
 * connections: a connection from another address is served, and the one
 * closed for it is the heaviest address's idlest: never-used ones first
 * (oldest first), then the least recently active; an address never
 * evicts its own, nor once it holds as many as the heaviest. */
static void test_evict_idlest_of_heaviest(void **state)
{
    (void)state;
    fx *f = fx_start_pool(4, 4, true);
    int a[4];
    for (int i = 0; i < 4; i++)
        a[i] = nt_connect_from(f->port, "127.0.0.5");
    echo(f, a[0]);
    echo(f, a[1]);
    nt_pump_ms(&f->loop, 20);
    echo(f, a[0]); /* a[1] is now the least recently active used one */
    int same = nt_connect_from(f->port, "127.0.0.5"); /* its own: refused */
    assert_true(nt_wait_eof(&f->loop, same));
    int b1 = nt_connect_from(f->port, "127.0.0.6");
    echo(f, b1);
    assert_true(nt_wait_eof(&f->loop, a[2])); /* the oldest never used */
    int b2 = nt_connect_from(f->port, "127.0.0.6");
    echo(f, b2);
    assert_true(nt_wait_eof(&f->loop, a[3]));
    int b3 = nt_connect_from(f->port, "127.0.0.6"); /* 2 and 2: refused */
    assert_true(nt_wait_eof(&f->loop, b3));
    close(b2);
    nt_pump_ms(&f->loop, 50);
    int c1 = nt_connect_from(f->port, "127.0.0.7"); /* a free slot */
    echo(f, c1);
    int d1 = nt_connect_from(f->port, "127.0.0.8");
    echo(f, d1);
    assert_true(nt_wait_eof(&f->loop, a[1])); /* the heaviest's idlest */
    echo(f, a[0]);
    echo(f, b1);
    echo(f, c1);
    net_server_stats st;
    net_server_get_stats(f->server, &st);
    assert_int_equal(st.evicted, 3);
    assert_int_equal(st.refused_max_connections, 2);
    assert_int_equal(st.connections, 4);
    assert_int_equal(f->pool.evicted, 3);
    int all[] = {a[0], a[1], a[2], a[3], same, b1, b3, c1, d1};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        close(all[i]);
    fx_stop(f);
}

/* On a SASL listener a connection answered requests but never
 * authenticated is evicted before an authenticated one, even one less
 * recently active. */
static void test_evict_unauthenticated_first(void **state)
{
    (void)state;
    g_unauthenticated_max = 1 << 16;
    fx *f = fx_start_pool(2, 2, true);
    g_unauthenticated_max = 0;
    int a0 = nt_connect_from(f->port, "127.0.0.5"), a1 = nt_connect_from(f->port, "127.0.0.5");
    uint8_t auth[9] = {0, 0, 0, 5, 'A', 'u', 't', 'h', '!'}, in[9];
    assert_true(nt_send_all(&f->loop, a0, auth, sizeof auth));
    assert_int_equal(nt_recv_exact(&f->loop, a0, in, sizeof in), sizeof in);
    nt_pump_ms(&f->loop, 20);
    echo(f, a1); /* answered, not authenticated, and the most recent */
    int b = nt_connect_from(f->port, "127.0.0.6");
    echo(f, b);
    assert_true(nt_wait_eof(&f->loop, a1));
    echo(f, a0);
    close(a0);
    close(a1);
    close(b);
    fx_stop(f);
}

/* A flood of idle connections from one address holding every slot: every
 * connection from other addresses is still served (each evicting one of
 * the flood), and the flood keeps no more than its share. */
static void test_evict_flood(void **state)
{
    (void)state;
    fx *f = fx_start_pool(16, 16, true);
    int flood[40], others[8];
    for (int i = 0; i < 40; i++)
        assert_true((flood[i] = nt_connect_from(f->port, "127.0.0.9")) >= 0);
    nt_pump_ms(&f->loop, 100);
    for (int i = 0; i < 8; i++) {
        char from[32];
        snprintf(from, sizeof from, "127.0.1.%d", i + 1);
        others[i] = nt_connect_from(f->port, from);
        echo(f, others[i]);
    }
    net_server_stats st;
    net_server_get_stats(f->server, &st);
    assert_int_equal(st.evicted, 8);
    assert_int_equal(st.refused_max_connections, 24);
    assert_int_equal(st.connections, 16);
    for (int i = 0; i < 8; i++) {
        echo(f, others[i]);
        close(others[i]);
    }
    for (int i = 0; i < 40; i++)
        close(flood[i]);
    fx_stop(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_total_and_per_ip),
        cmocka_unit_test(test_flood),
        cmocka_unit_test(test_descriptors_exhausted),
        cmocka_unit_test(test_evict_idlest_of_heaviest),
        cmocka_unit_test(test_evict_unauthenticated_first),
        cmocka_unit_test(test_evict_flood),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
