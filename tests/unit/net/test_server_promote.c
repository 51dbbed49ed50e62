/* A shared listener's connection promoted to the quorum's class
 * (net_slot_promote_quorum, issue 19), on real sockets: it moves in the
 * response budget with what it holds, leaves the clients' frames-per-turn
 * total (a promoted peer's frame is dispatched in the first loop turn while
 * clients pipeline past the total), is never the pool's eviction victim but
 * stays counted in the pool, and is promoted once. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>

#include "kq/budget.h"
#include "kq/conn_limits.h"
#include "kq/limits.h"
#include "kq/net.h"
#include "net/net_test_util.h"

enum { CLIENTS = 96, PIPELINED = 16 };

typedef struct fx {
    uv_loop_t loop;
    net_server *server;
    uint16_t port;
    kq_budget budget;
    kq_conn_pool pool;
    int promoted_now; /* net_slot_promote_quorum answered true */
    int promoted_again; /* ... false, on a connection promoted before */
    uint64_t quorum_used_at_promotion;
    int voter_frames;
    int client_frames;
} fx;

/* "P...": promote (then answer); "V...": a voter's request; 8-byte frames
 * are the clients' pipelines. Every frame is answered with itself. */
static void on_frame(void *ctx, net_slot *slot, uint8_t *frame, size_t len)
{
    fx *f = ctx;
    if (len > 0 && frame[0] == 'P') {
        if (net_slot_promote_quorum(slot)) {
            f->promoted_now++;
            f->quorum_used_at_promotion = f->budget.used[KQ_BUDGET_QUORUM];
        } else {
            f->promoted_again++;
        }
    }
    if (len > 0 && frame[0] == 'V')
        f->voter_frames++;
    else if (len == 8)
        f->client_frames++;
    net_slot_respond(slot, frame, len);
}

static void find_listener(uv_handle_t *h, void *arg)
{
    if (h->type != UV_TCP)
        return;
    struct sockaddr_in a;
    int alen = sizeof(a);
    if (uv_tcp_getsockname((uv_tcp_t *)h, (struct sockaddr *)&a, &alen) == 0)
        *(uint16_t *)arg = ntohs(a.sin_port);
}

/* One client-class listener (the seed's single listener) with a budget and
 * an evicting pool of max connections. */
static fx *fx_start(uint32_t max)
{
    fx *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    assert_int_equal(uv_loop_init(&f->loop), 0);
    kq_budget_init(&f->budget, 0, 0, 0);
    kq_conn_pool_init(&f->pool, &(kq_conn_pool_config){.max_connections = max,
                                                       .max_per_ip = max, .evict = true});
    net_server_config cfg = {.host = "127.0.0.1", .frame_bytes_max = 1024, .on_frame = on_frame,
                             .ctx = f, .budget = &f->budget, .budget_class = KQ_BUDGET_CLIENT,
                             .pool = &f->pool};
    char err[256] = "";
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
    /* Every connection released from the class it ended in. */
    assert_int_equal(f->pool.open, 0);
    for (int c = 0; c < KQ_BUDGET_CLASSES; c++) {
        assert_int_equal(f->budget.conns[c], 0);
        assert_int_equal(f->budget.used[c], 0);
    }
    kq_conn_pool_free(&f->pool);
    free(f);
}

static bool quorum_holds_nothing(void *arg)
{
    return ((fx *)arg)->budget.used[KQ_BUDGET_QUORUM] == 0;
}

static bool promoted_once(void *arg)
{
    return ((fx *)arg)->promoted_now == 1;
}

/* Two frames in one write: an answered one, then the promotion. The first
 * answer is charged (not yet written) when the second is dispatched, and it
 * moves with the connection; a second promotion does nothing. */
static void test_budget_class_moves_with_its_bytes(void **state)
{
    (void)state;
    fx *f = fx_start(8);
    int other = nt_connect_from(f->port, "127.0.0.1");
    int peer = nt_connect_from(f->port, "127.0.0.1");
    uint8_t two[4 + 5 + 4 + 5] = {0, 0, 0, 5, 'h', 'e', 'l', 'l', 'o',
                                  0, 0, 0, 5, 'P', 'r', 'o', 'm', 'o'};
    assert_true(nt_send_all(&f->loop, peer, two, sizeof two));
    assert_true(nt_pump_until(&f->loop, promoted_once, f, 0));
    assert_int_equal(f->quorum_used_at_promotion, 4 + 5); /* "hello", its size first */
    uint8_t back[sizeof two];
    assert_int_equal(nt_recv_exact(&f->loop, peer, back, sizeof back), sizeof back);
    assert_memory_equal(back, two, sizeof two);
    assert_int_equal(f->budget.conns[KQ_BUDGET_QUORUM], 1);
    assert_int_equal(f->budget.conns[KQ_BUDGET_CLIENT], 1);
    /* Released from its new class once written. */
    assert_true(nt_pump_until(&f->loop, quorum_holds_nothing, f, 0));
    assert_int_equal(f->budget.used[KQ_BUDGET_CLIENT], 0);
    net_server_stats st;
    net_server_get_stats(f->server, &st);
    assert_int_equal(st.promoted_quorum, 1);

    uint8_t again[9] = {0, 0, 0, 5, 'P', 'r', 'o', 'm', 'o'};
    assert_true(nt_send_all(&f->loop, peer, again, sizeof again));
    assert_int_equal(nt_recv_exact(&f->loop, peer, back, sizeof again), sizeof again);
    assert_int_equal(f->promoted_now, 1);
    assert_int_equal(f->promoted_again, 1);
    net_server_get_stats(f->server, &st);
    assert_int_equal(st.promoted_quorum, 1);
    assert_int_equal(f->budget.conns[KQ_BUDGET_QUORUM], 1);
    close(peer);
    close(other);
    fx_stop(f);
}

/* Connection k's pipeline: PIPELINED frames of 8 bytes in one write. */
static void send_pipeline(int fd, uint32_t k)
{
    uint8_t all[PIPELINED * 12];
    for (uint32_t i = 0; i < PIPELINED; i++) {
        nt_put32(all + i * 12, 8);
        nt_put32(all + i * 12 + 4, k);
        nt_put32(all + i * 12 + 8, i);
    }
    assert_int_equal(send(fd, all, sizeof(all), MSG_NOSIGNAL), (ssize_t)sizeof(all));
}

static void drain(int fd)
{
    uint8_t buf[4096];
    while (recv(fd, buf, sizeof buf, 0) > 0)
        ;
}

/* CLIENTS connections pipeline past the clients' total on the same
 * listener as a promoted peer: the peer's next frame is dispatched in the
 * first loop turn (as a controller listener's is), and the total is still
 * reached by the clients. */
static void test_promoted_not_held_by_client_total(void **state)
{
    (void)state;
    fx *f = fx_start(CLIENTS + 1);
    int peer = nt_connect(f->port);
    assert_true(peer >= 0);
    uint8_t promo[9] = {0, 0, 0, 5, 'P', 'r', 'o', 'm', 'o'}, back[9];
    assert_true(nt_send_all(&f->loop, peer, promo, sizeof promo));
    assert_int_equal(nt_recv_exact(&f->loop, peer, back, sizeof back), sizeof back);
    assert_int_equal(f->promoted_now, 1);
    int fd[CLIENTS];
    for (int k = 0; k < CLIENTS; k++)
        assert_true((fd[k] = nt_connect(f->port)) >= 0);
    nt_pump_ms(&f->loop, 50); /* every connection accepted */
    for (int k = 0; k < CLIENTS; k++)
        send_pipeline(fd[k], (uint32_t)k);
    uint8_t vote[8] = {0, 0, 0, 4, 'V', 'o', 't', 'e'};
    assert_int_equal(send(peer, vote, sizeof vote, MSG_NOSIGNAL), (ssize_t)sizeof vote);

    int runs = 0, voter_run = 0;
    uint64_t end = nt_now_ms() + NT_WAIT_MS;
    while (f->client_frames < CLIENTS * PIPELINED && nt_now_ms() < end) {
        int before = f->client_frames;
        uv_run(&f->loop, UV_RUN_NOWAIT);
        runs++;
        assert_true(f->client_frames - before <= 2 * KQ_NET_CLIENT_FRAMES_PER_TURN_MAX);
        if (!voter_run && f->voter_frames > 0)
            voter_run = runs;
        for (int k = 0; k < CLIENTS; k++)
            drain(fd[k]);
    }
    assert_int_equal(f->client_frames, CLIENTS * PIPELINED);
    assert_int_equal(voter_run, 1);
    for (int k = 0; k < CLIENTS; k++)
        close(fd[k]);
    close(peer);
    fx_stop(f);
}

static void echo(fx *f, int fd)
{
    uint8_t out[9] = {0, 0, 0, 5, 'h', 'e', 'l', 'l', 'o'}, in[9];
    assert_true(nt_send_all(&f->loop, fd, out, sizeof out));
    assert_int_equal(nt_recv_exact(&f->loop, fd, in, sizeof in), sizeof in);
}

/* A full evicting pool of two, both from 127.0.0.2: the promoted peer is
 * the idlest (without its promotion it would be the victim), yet a
 * newcomer from 127.0.0.3 evicts the other; the peer stays counted in the
 * pool and served. */
static void test_promoted_never_evicted(void **state)
{
    (void)state;
    fx *f = fx_start(2);
    int peer = nt_connect_from(f->port, "127.0.0.2");
    uint8_t promo[9] = {0, 0, 0, 5, 'P', 'r', 'o', 'm', 'o'}, back[9];
    assert_true(nt_send_all(&f->loop, peer, promo, sizeof promo));
    assert_int_equal(nt_recv_exact(&f->loop, peer, back, sizeof back), sizeof back);
    int other = nt_connect_from(f->port, "127.0.0.2");
    echo(f, other); /* more recently active than the peer */
    int newcomer = nt_connect_from(f->port, "127.0.0.3");
    echo(f, newcomer);
    assert_true(nt_wait_eof(&f->loop, other));
    net_server_stats st;
    net_server_get_stats(f->server, &st);
    assert_int_equal(st.evicted, 1);
    assert_int_equal(st.connections, 2);
    assert_int_equal(f->pool.open, 2);
    echo(f, peer); /* still served */
    close(other);
    close(newcomer);
    close(peer);
    fx_stop(f);
}

static bool all_asked(void *arg)
{
    const fx *f = arg;
    return f->promoted_now + f->promoted_again == KQ_PROMOTED_CONNECTIONS_MAX + 2;
}

static bool one_more(void *arg)
{
    return ((fx *)arg)->promoted_now == KQ_PROMOTED_CONNECTIONS_MAX + 1;
}

/* Promotions are bounded in sum: a client forging quorum requests on every
 * connection gets at most KQ_PROMOTED_CONNECTIONS_MAX of them promoted; a
 * promoted connection that closes frees its place. */
static void test_promotions_bounded_in_sum(void **state)
{
    (void)state;
    enum { N = KQ_PROMOTED_CONNECTIONS_MAX + 2 };
    fx *f = fx_start(N + 1);
    int fd[N];
    uint8_t promo[9] = {0, 0, 0, 5, 'P', 'r', 'o', 'm', 'o'}, back[9];
    for (int k = 0; k < N; k++) {
        fd[k] = nt_connect_from(f->port, "127.0.0.1");
        assert_true(nt_send_all(&f->loop, fd[k], promo, sizeof promo));
        assert_int_equal(nt_recv_exact(&f->loop, fd[k], back, sizeof back), sizeof back);
    }
    assert_true(nt_pump_until(&f->loop, all_asked, f, 0));
    assert_int_equal(f->promoted_now, KQ_PROMOTED_CONNECTIONS_MAX);
    assert_int_equal(f->promoted_again, 2); /* refused: the sum is reached */
    net_server_stats st;
    net_server_get_stats(f->server, &st);
    assert_int_equal(st.promote_refused, 2);
    assert_int_equal(f->budget.conns[KQ_BUDGET_QUORUM], KQ_PROMOTED_CONNECTIONS_MAX);
    close(fd[0]); /* a promoted one */
    nt_pump_ms(&f->loop, 50);
    assert_true(nt_send_all(&f->loop, fd[N - 1], promo, sizeof promo));
    assert_int_equal(nt_recv_exact(&f->loop, fd[N - 1], back, sizeof back), sizeof back);
    assert_true(nt_pump_until(&f->loop, one_more, f, 0));
    for (int k = 1; k < N; k++)
        close(fd[k]);
    fx_stop(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_budget_class_moves_with_its_bytes),
        cmocka_unit_test(test_promoted_not_held_by_client_total),
        cmocka_unit_test(test_promoted_never_evicted),
        cmocka_unit_test(test_promotions_bounded_in_sum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
