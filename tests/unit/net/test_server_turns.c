/* Frames per connection per loop turn (NET_FRAMES_PER_TURN_MAX, issue 19):
 * a client pipelining a thousand requests in one write has them handled a
 * few per turn, all of them in order, and a connection closed while its
 * frames wait for the next turn is freed cleanly (ASan). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>

#include "kq/limits.h"
#include "kq/net.h"
#include "net/net_test_util.h"

#define PIPELINED 1000

typedef struct fx {
    uv_loop_t loop;
    net_server *server;
    uint16_t port;
    int frames;
} fx;

/* Echoes each frame at once (the handlers answer most requests within the
 * callback, which is what let one turn run a whole pipeline). */
static void on_frame(void *ctx, net_slot *slot, uint8_t *frame, size_t len)
{
    fx *f = ctx;
    f->frames++;
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

static fx *fx_start(void)
{
    fx *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    assert_int_equal(uv_loop_init(&f->loop), 0);
    net_server_config cfg = {
        .host = "127.0.0.1", .port = 0, .frame_bytes_max = 1024, .on_frame = on_frame, .ctx = f};
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
    free(f);
}

static bool connections_are(fx *f, uint32_t n)
{
    uint64_t end = nt_now_ms() + NT_WAIT_MS;
    for (;;) {
        net_server_stats st;
        net_server_get_stats(f->server, &st);
        if (st.connections == n)
            return true;
        if (nt_now_ms() >= end)
            return false;
        nt_turn(&f->loop);
    }
}

/* A connected client the server has accepted. */
static int client(fx *f)
{
    int fd = nt_connect(f->port);
    assert_true(fd >= 0);
    assert_true(connections_are(f, 1));
    return fd;
}

/* PIPELINED frames in one write: frame i is its 4-byte size and i. */
static void send_pipeline(int fd)
{
    static uint8_t all[PIPELINED * 8];
    for (uint32_t i = 0; i < PIPELINED; i++) {
        nt_put32(all + i * 8, 4);
        nt_put32(all + i * 8 + 4, i);
    }
    size_t off = 0;
    while (off < sizeof(all)) {
        ssize_t n = send(fd, all + off, sizeof(all) - off, MSG_NOSIGNAL);
        assert_true(n > 0);
        off += (size_t)n;
    }
}

static void test_pipeline_spread_over_turns(void **state)
{
    (void)state;
    fx *f = fx_start();
    int fd = client(f);
    send_pipeline(fd);
    /* One loop turn reads in the poll phase and resumes the deferred in the
     * check phase: at most two turns' worth of frames. */
    int turns = 0, most = 0;
    uint64_t end = nt_now_ms() + NT_WAIT_MS;
    while (f->frames < PIPELINED && nt_now_ms() < end) {
        int before = f->frames;
        uv_run(&f->loop, UV_RUN_NOWAIT);
        int got = f->frames - before;
        most = got > most ? got : most;
        turns += got > 0;
    }
    assert_int_equal(f->frames, PIPELINED);
    assert_true(most <= 2 * NET_FRAMES_PER_TURN_MAX);
    assert_true(turns >= PIPELINED / (2 * NET_FRAMES_PER_TURN_MAX));

    static uint8_t back[PIPELINED * 8];
    assert_int_equal(nt_recv_exact(&f->loop, fd, back, sizeof(back)), sizeof(back));
    for (uint32_t i = 0; i < PIPELINED; i++) { /* every answer, in request order */
        assert_int_equal(nt_get32(back + i * 8), 4);
        assert_int_equal(nt_get32(back + i * 8 + 4), i);
    }
    close(fd);
    fx_stop(f);
}

/* Closed by the client while its frames wait for the next turn: the
 * connection leaves the deferred list and is freed. */
static void test_close_while_deferred(void **state)
{
    (void)state;
    fx *f = fx_start();
    int fd = client(f);
    send_pipeline(fd);
    uint64_t end = nt_now_ms() + NT_WAIT_MS;
    while (f->frames == 0 && nt_now_ms() < end)
        uv_run(&f->loop, UV_RUN_NOWAIT);
    assert_true(f->frames > 0 && f->frames < PIPELINED);
    struct linger lg = {.l_onoff = 1, .l_linger = 0}; /* a reset: no EOF after the frames */
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
    close(fd);
    assert_true(connections_are(f, 0));
    assert_true(f->frames < PIPELINED);
    fx_stop(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pipeline_spread_over_turns),
        cmocka_unit_test(test_close_while_deferred),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
