/* What the listeners of one node share (net_shared, issue 19), on real
 * sockets: one request memory budget (queued.max.request.bytes, Kafka's is
 * per broker) whose waiters are woken across listeners, and the client
 * frames dispatched per loop turn (KQ_NET_CLIENT_FRAMES_PER_TURN_MAX over
 * every client listener) that never holds the controller listener. */
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

enum { LISTENERS_MAX = 3, CONNS_MAX = 128, BIG_FRAME_BYTES = 1024 * 1024 };

typedef struct fx {
    uv_loop_t loop;
    net_shared *shared;
    net_server *server[LISTENERS_MAX];
    uint16_t port[LISTENERS_MAX];
    int listeners;
    int frames[LISTENERS_MAX]; /* dispatched per listener (tag) */
    size_t last_len[LISTENERS_MAX];
    uint32_t next[CONNS_MAX];  /* pipelines: the index each connection sends next */
    bool out_of_order;
} fx;

/* Frames of 8 bytes are pipelines (connection, index): checked in order;
 * every frame is completed at once without an answer. */
static void on_frame(void *ctx, net_slot *slot, uint8_t *frame, size_t len)
{
    fx *f = ctx;
    uint32_t tag = net_slot_listener_tag(slot);
    f->frames[tag]++;
    f->last_len[tag] = len;
    if (len == 8) {
        uint32_t k = nt_get32(frame), i = nt_get32(frame + 4);
        if (k >= CONNS_MAX || f->next[k] != i)
            f->out_of_order = true;
        else
            f->next[k]++;
    }
    net_slot_skip(slot);
}

typedef struct port_find {
    const fx *f;
    uint16_t port;
} port_find;

/* The port of the listener not yet known (before any connection). */
static void find_listener(uv_handle_t *h, void *arg)
{
    port_find *p = arg;
    struct sockaddr_in a;
    int alen = sizeof(a);
    if (h->type != UV_TCP || uv_tcp_getsockname((uv_tcp_t *)h, (struct sockaddr *)&a, &alen) != 0)
        return;
    for (int i = 0; i < p->f->listeners; i++)
        if (p->f->port[i] == ntohs(a.sin_port))
            return;
    p->port = ntohs(a.sin_port);
}

static void fx_listen(fx *f, enum kq_budget_class cls, int32_t frame_bytes_max)
{
    net_server_config cfg = {.host = "127.0.0.1", .frame_bytes_max = frame_bytes_max,
                             .shared = f->shared, .budget_class = cls, .on_frame = on_frame,
                             .ctx = f, .tag = (uint32_t)f->listeners};
    char err[256] = "";
    net_server *s = net_server_start(&f->loop, &cfg, err, sizeof(err));
    assert_non_null(s);
    port_find p = {f, 0};
    uv_walk(&f->loop, find_listener, &p);
    assert_true(p.port != 0);
    f->server[f->listeners] = s;
    f->port[f->listeners++] = p.port;
}

static fx *fx_start(uint64_t request_bytes_max)
{
    fx *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    assert_int_equal(uv_loop_init(&f->loop), 0);
    f->shared = net_shared_create(request_bytes_max);
    assert_non_null(f->shared);
    return f;
}

static void fx_stop(fx *f)
{
    for (int i = 0; i < f->listeners; i++)
        net_server_stop(f->server[i]);
    assert_int_equal(nt_loop_finish(&f->loop), 0);
    net_shared_destroy(f->shared);
    free(f);
}

typedef struct count_cond {
    fx *f;
    int listener;
    uint32_t n;
    bool waiting; /* else: connections */
} count_cond;

static bool count_reached(void *arg)
{
    count_cond *c = arg;
    net_server_stats st;
    net_server_get_stats(c->f->server[c->listener], &st);
    return (c->waiting ? st.conns_waiting_memory : st.connections) == c->n;
}

static bool wait_count(fx *f, int listener, uint32_t n, bool waiting)
{
    count_cond c = {f, listener, n, waiting};
    return nt_pump_until(&f->loop, count_reached, &c, 0);
}

static bool holds_big_frame(void *arg)
{
    net_server_stats st;
    net_server_get_stats(((fx *)arg)->server[0], &st);
    return st.request_bytes_buffered == BIG_FRAME_BYTES + 4;
}

/* The bytes [from, to) of a BIG_FRAME_BYTES frame (its size first). */
static void send_big_part(fx *f, int fd, size_t from, size_t to)
{
    static uint8_t chunk[8192];
    if (from == 0) {
        uint8_t hdr[4];
        nt_put32(hdr, BIG_FRAME_BYTES);
        assert_true(nt_send_all(&f->loop, fd, hdr, 4));
    }
    while (from < to) {
        size_t n = to - from < sizeof(chunk) ? to - from : sizeof(chunk);
        assert_true(nt_send_all(&f->loop, fd, chunk, n));
        from += n;
    }
}

/* A big frame being read on listener A holds the budget: a connection of
 * listener B that must grow past its first read step waits (it would not
 * with a budget per listener), and is woken when A's frame is through. */
static void test_listeners_share_request_budget(void **state)
{
    (void)state;
    /* A's frame and B's first read step, not B's next (which would eat
     * into the share kept for first reads: see server_read.c). */
    const uint64_t cap = BIG_FRAME_BYTES + 4 + KQ_NET_READ_CHUNK_BYTES + KQ_NET_READ_CHUNK_BYTES / 2;
    fx *f = fx_start(cap);
    fx_listen(f, KQ_BUDGET_CLIENT, BIG_FRAME_BYTES);
    fx_listen(f, KQ_BUDGET_CLIENT, BIG_FRAME_BYTES);
    int a = nt_connect(f->port[0]), b = nt_connect(f->port[1]);
    assert_true(a >= 0 && b >= 0);
    assert_true(wait_count(f, 0, 1, false) && wait_count(f, 1, 1, false));
    send_big_part(f, a, 0, BIG_FRAME_BYTES - 1); /* all but its last byte */
    assert_true(nt_pump_until(&f->loop, holds_big_frame, f, 0)); /* A's buffer spans its frame */
    send_big_part(f, b, 0, 2 * KQ_NET_READ_CHUNK_BYTES);
    assert_true(wait_count(f, 1, 1, true));
    net_shared_stats st;
    net_shared_get_stats(f->shared, &st);
    assert_int_equal(st.conns_waiting_memory, 1);
    assert_true(st.request_waits >= 1);
    assert_true(st.request_bytes <= cap);
    assert_int_equal(f->frames[0] + f->frames[1], 0);

    send_big_part(f, a, BIG_FRAME_BYTES - 1, BIG_FRAME_BYTES); /* A's frame is through */
    send_big_part(f, b, 2 * KQ_NET_READ_CHUNK_BYTES, BIG_FRAME_BYTES);
    count_cond done = {f, 1, 0, true};
    assert_true(nt_pump_until(&f->loop, count_reached, &done, 0));
    uint64_t end = nt_now_ms() + NT_WAIT_MS;
    while (f->frames[1] == 0 && nt_now_ms() < end)
        nt_turn(&f->loop);
    assert_int_equal(f->frames[0], 1);
    assert_int_equal(f->frames[1], 1);
    assert_int_equal(f->last_len[1], BIG_FRAME_BYTES);
    net_shared_get_stats(f->shared, &st);
    assert_true(st.request_bytes_peak <= cap + BIG_FRAME_BYTES + 4);
    close(a);
    close(b);
    fx_stop(f);
}

enum { CLIENTS = 96, PIPELINED = 16 };

/* Connection k's pipeline: PIPELINED frames (k, i) in one write. */
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

/* CLIENTS connections on two client listeners pipeline more frames than
 * eight turns of the total hold: a frame on the controller listener is
 * dispatched in the first loop turn, each turn dispatches at most its
 * share of client frames (a poll phase and a check phase: two turns of
 * the bound), and every client frame is dispatched once, in order. */
static void test_client_frames_per_turn_spare_the_quorum(void **state)
{
    (void)state;
    fx *f = fx_start(0);
    fx_listen(f, KQ_BUDGET_CLIENT, 1024);
    fx_listen(f, KQ_BUDGET_CLIENT, 1024);
    fx_listen(f, KQ_BUDGET_QUORUM, 1024);
    int fd[CLIENTS];
    for (int k = 0; k < CLIENTS; k++) {
        fd[k] = nt_connect(f->port[k % 2]);
        assert_true(fd[k] >= 0);
    }
    int voter = nt_connect(f->port[2]);
    assert_true(voter >= 0);
    assert_true(wait_count(f, 0, CLIENTS / 2, false) && wait_count(f, 1, CLIENTS / 2, false) &&
                wait_count(f, 2, 1, false));
    for (int k = 0; k < CLIENTS; k++)
        send_pipeline(fd[k], (uint32_t)k);
    uint8_t fetch[8] = {0, 0, 0, 4, 'v', 'o', 't', 'e'};
    assert_int_equal(send(voter, fetch, sizeof fetch, MSG_NOSIGNAL), (ssize_t)sizeof fetch);

    int runs = 0, voter_run = 0, client = 0;
    uint64_t end = nt_now_ms() + NT_WAIT_MS;
    while (client < CLIENTS * PIPELINED && nt_now_ms() < end) {
        int before = client;
        uv_run(&f->loop, UV_RUN_NOWAIT);
        runs++;
        client = f->frames[0] + f->frames[1];
        assert_true(client - before <= 2 * KQ_NET_CLIENT_FRAMES_PER_TURN_MAX);
        if (!voter_run && f->frames[2] > 0)
            voter_run = runs;
    }
    assert_int_equal(voter_run, 1);
    assert_int_equal(f->frames[2], 1);
    assert_int_equal(client, CLIENTS * PIPELINED);
    assert_false(f->out_of_order);
    for (int k = 0; k < CLIENTS; k++)
        assert_int_equal(f->next[k], PIPELINED);
    net_shared_stats st;
    net_shared_get_stats(f->shared, &st);
    assert_true(st.client_turns_full > 0);
    for (int k = 0; k < CLIENTS; k++)
        close(fd[k]);
    close(voter);
    fx_stop(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_listeners_share_request_budget),
        cmocka_unit_test(test_client_frames_per_turn_spare_the_quorum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
