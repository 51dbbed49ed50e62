/* Memory a client can pin, on real sockets: the per-connection write queue
 * (a client that pipelines and never reads pauses its own connection), the
 * server-wide budget of request bytes being read (partial frames on many
 * connections), and connections.max.idle.ms. */
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

#define SLOTS_KEPT 256

typedef struct fx {
    uv_loop_t loop;
    net_server *server;
    uint16_t port;
    bool echo; /* respond to each frame at once with its own bytes */
    int frames;
    net_slot *slot[SLOTS_KEPT];
    size_t len[SLOTS_KEPT];
} fx;

static void on_frame(void *ctx, net_slot *slot, uint8_t *frame, size_t len)
{
    fx *f = ctx;
    int i = f->frames++;
    if (i < SLOTS_KEPT) {
        f->slot[i] = slot;
        f->len[i] = len;
    }
    if (f->echo)
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

static fx *fx_start(const net_server_config *base, bool echo)
{
    fx *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    assert_int_equal(uv_loop_init(&f->loop), 0);
    f->echo = echo;
    net_server_config cfg = *base;
    cfg.host = "127.0.0.1";
    cfg.port = 0;
    cfg.on_frame = on_frame;
    cfg.ctx = f;
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

static net_server_stats fx_stats(fx *f)
{
    net_server_stats st;
    net_server_get_stats(f->server, &st);
    return st;
}

/* A client with small kernel buffers, so that the server's own queue (not
 * the kernel) is what fills when the client stops reading. */
static int connect_small(uint16_t port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    int small = 16 * 1024;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
    struct sockaddr_in a = nt_addr(port);
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    nt_set_nonblocking(fd);
    return fd;
}

typedef struct cond_arg {
    fx *f;
    int n;
} cond_arg;

static bool have_frames(void *arg)
{
    cond_arg *c = arg;
    return c->f->frames >= c->n;
}

static bool wait_frames(fx *f, int n)
{
    cond_arg c = {f, n};
    return nt_pump_until(&f->loop, have_frames, &c, 0);
}

/* ---- A virtual stream of pipelined frames: frame i is a 4-byte size,
 * the 4-byte index, then a pattern. An echo server sends the same bytes
 * back, so replies are checked against the same generator. */

typedef struct stream {
    size_t frame_bytes; /* body size */
    size_t frames;
    size_t sent;
    size_t received;
} stream;

static size_t stream_total(const stream *s)
{
    return s->frames * (s->frame_bytes + 4);
}

static uint8_t stream_byte(const stream *s, size_t off)
{
    size_t i = off / (s->frame_bytes + 4), r = off % (s->frame_bytes + 4);
    if (r < 4)
        return (uint8_t)(s->frame_bytes >> (8 * (3 - r)));
    if (r < 8)
        return (uint8_t)(i >> (8 * (7 - r)));
    return (uint8_t)(i * 13 + r);
}

/* Sends what the socket takes, until done or no progress for idle_ms. */
static void stream_send(fx *f, int fd, stream *s, uint64_t idle_ms)
{
    uint8_t chunk[8192];
    uint64_t last = nt_now_ms();
    while (s->sent < stream_total(s) && nt_now_ms() - last < idle_ms) {
        size_t n = stream_total(s) - s->sent;
        if (n > sizeof(chunk))
            n = sizeof(chunk);
        for (size_t k = 0; k < n; k++)
            chunk[k] = stream_byte(s, s->sent + k);
        ssize_t w = send(fd, chunk, n, MSG_NOSIGNAL);
        if (w > 0) {
            s->sent += (size_t)w;
            last = nt_now_ms();
        } else {
            assert_true(errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR);
            nt_turn(&f->loop);
        }
    }
}

/* Reads whatever arrived and checks it against the stream. */
static void stream_recv(fx *f, int fd, stream *s)
{
    uint8_t chunk[8192];
    for (;;) {
        ssize_t n = recv(fd, chunk, sizeof(chunk), 0);
        if (n <= 0) {
            assert_true(n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
            nt_turn(&f->loop);
            return;
        }
        for (ssize_t k = 0; k < n; k++)
            if (chunk[k] != stream_byte(s, s->received + (size_t)k))
                fail_msg("echo differs at byte %zu", s->received + (size_t)k);
        s->received += (size_t)n;
    }
}

/* A client pipelines ~41 MB of 16 KiB requests and reads nothing: the server
 * stops reading it once its write queue reaches the limit, with the queue
 * never more than the limit plus one response; once the client reads,
 * everything arrives, in order. */
static void test_unread_responses_pause_reading(void **state)
{
    (void)state;
    const uint64_t limit = 256 * 1024;
    net_server_config cfg = {.frame_bytes_max = 65536, .write_queue_bytes_max = limit};
    fx *f = fx_start(&cfg, true);
    int fd = connect_small(f->port);
    stream s = {.frame_bytes = 16384, .frames = 2500};
    stream_send(f, fd, &s, 500);
    assert_true(s.sent < stream_total(&s)); /* the server stopped reading */
    int frames = f->frames;
    net_server_stats st = fx_stats(f);
    assert_int_equal(st.conns_paused_backlog, 1);
    assert_true(st.write_queued_bytes >= limit);
    assert_true(st.write_queued_bytes_conn_peak <= limit + s.frame_bytes + 4);
    nt_pump_ms(&f->loop, 200);
    assert_int_equal(f->frames, frames);
    assert_true(frames < (int)s.frames);
    print_message("paused after %d of %zu frames, %zu bytes sent, queue %llu (peak %llu)\n",
                  frames, s.frames, s.sent, (unsigned long long)st.write_queued_bytes,
                  (unsigned long long)st.write_queued_bytes_conn_peak);

    uint64_t end = nt_now_ms() + 30000;
    while (s.received < stream_total(&s) && nt_now_ms() < end) {
        stream_recv(f, fd, &s);
        stream_send(f, fd, &s, 1);
    }
    assert_int_equal(s.received, stream_total(&s));
    assert_int_equal(f->frames, (int)s.frames);
    st = fx_stats(f);
    assert_true(st.write_queued_bytes_conn_peak <= limit + s.frame_bytes + 4);
    assert_int_equal(st.conns_paused_backlog, 0);
    close(fd);
    fx_stop(f);
}

static void send_small_frames(fx *f, int fd, int n)
{
    for (int i = 0; i < n; i++) {
        uint8_t b[8];
        nt_put32(b, 4);
        memcpy(b + 4, "abcd", 4);
        assert_true(nt_send_all(&f->loop, fd, b, sizeof(b)));
    }
}

/* Responses completed but held behind an unfinished earlier one count in the
 * queue: reading pauses before anything was handed to the kernel. */
static void test_completed_unsent_responses_count(void **state)
{
    (void)state;
    const uint64_t limit = 256 * 1024;
    net_server_config cfg = {.frame_bytes_max = 1024, .write_queue_bytes_max = limit};
    fx *f = fx_start(&cfg, false);
    int fd = nt_connect(f->port);
    assert_true(fd >= 0);
    send_small_frames(f, fd, 6);
    assert_true(wait_frames(f, 6));
    size_t big_len = 64 * 1024;
    uint8_t *big = calloc(1, big_len);
    assert_non_null(big);
    for (int i = 1; i <= 5; i++)
        net_slot_respond(f->slot[i], big, big_len);
    nt_pump_ms(&f->loop, 20);
    net_server_stats st = fx_stats(f);
    assert_int_equal(st.write_queued_bytes, 5 * (big_len + 4));
    send_small_frames(f, fd, 3);
    nt_pump_ms(&f->loop, 100);
    assert_int_equal(f->frames, 6);
    assert_int_equal(fx_stats(f).conns_paused_backlog, 1);

    net_slot_respond(f->slot[0], (const uint8_t *)"zero", 4);
    uint8_t *back = malloc(8 + 5 * (big_len + 4));
    assert_non_null(back);
    size_t want = 8 + 5 * (big_len + 4);
    assert_int_equal(nt_recv_exact(&f->loop, fd, back, want), want);
    assert_true(wait_frames(f, 9)); /* drained: the three waiting frames are read */
    assert_int_equal(fx_stats(f).conns_paused_backlog, 0);
    for (int i = 6; i < 9; i++)
        net_slot_respond(f->slot[i], (const uint8_t *)"late", 4);
    assert_int_equal(nt_recv_exact(&f->loop, fd, back, 24), 24);
    assert_memory_equal(back + 4, "late", 4);
    free(back);
    free(big);
    close(fd);
    fx_stop(f);
}

/* ---- The server-wide budget of request bytes being read. */

#define BIG_FRAME_BYTES (1024 * 1024)

/* Sends the size prefix of a BIG_FRAME_BYTES frame and body bytes
 * [from, to) of it (each byte is its offset mod 251). */
static void send_big_part(fx *f, int fd, size_t from, size_t to)
{
    if (from == 0) {
        uint8_t hdr[4];
        nt_put32(hdr, BIG_FRAME_BYTES);
        assert_true(nt_send_all(&f->loop, fd, hdr, 4));
    }
    uint8_t chunk[8192];
    while (from < to) {
        size_t n = to - from < sizeof(chunk) ? to - from : sizeof(chunk);
        for (size_t k = 0; k < n; k++)
            chunk[k] = (uint8_t)((from + k) % 251);
        assert_true(nt_send_all(&f->loop, fd, chunk, n));
        from += n;
    }
}

typedef struct stat_cond {
    fx *f;
    uint64_t buffered_min;
    uint32_t waiting;
} stat_cond;

static bool stats_reached(void *arg)
{
    stat_cond *c = arg;
    net_server_stats st = fx_stats(c->f);
    return st.request_bytes_buffered >= c->buffered_min && st.conns_waiting_memory == c->waiting;
}

static bool wait_stats(fx *f, uint64_t buffered_min, uint32_t waiting)
{
    stat_cond c = {f, buffered_min, waiting};
    return nt_pump_until(&f->loop, stats_reached, &c, 0);
}

/* Issue 19 item 5: connections that announce big frames and send one byte
 * reserve one read step each, not the frame: with room for one big frame
 * only, four of them leave the budget to a fifth connection's request. */
static void test_announced_sizes_reserve_nothing(void **state)
{
    (void)state;
    enum { CONNS = 4 };
    const uint64_t cap = BIG_FRAME_BYTES + 4 + 2 * KQ_NET_READ_CHUNK_BYTES;
    net_server_config cfg = {.frame_bytes_max = 2 * BIG_FRAME_BYTES, .request_bytes_max = cap};
    fx *f = fx_start(&cfg, true);
    int fd[CONNS];
    for (int i = 0; i < CONNS; i++) {
        fd[i] = nt_connect(f->port);
        assert_true(fd[i] >= 0);
        send_big_part(f, fd[i], 0, 1);
    }
    assert_true(wait_stats(f, CONNS * KQ_NET_READ_CHUNK_BYTES, 0));
    nt_pump_ms(&f->loop, 50);
    net_server_stats st = fx_stats(f);
    assert_true(st.request_bytes_buffered <= CONNS * 2 * KQ_NET_READ_CHUNK_BYTES);
    assert_int_equal(st.conns_waiting_memory, 0);
    int c = nt_connect(f->port);
    assert_true(c >= 0);
    send_small_frames(f, c, 1);
    assert_true(wait_frames(f, 1));
    uint8_t echo[8];
    assert_int_equal(nt_recv_exact(&f->loop, c, echo, 8), 8);
    assert_memory_equal(echo + 4, "abcd", 4);
    /* The big frames still complete, one after the other if need be. */
    for (int i = 0; i < CONNS; i++)
        send_big_part(f, fd[i], 1, BIG_FRAME_BYTES);
    assert_true(wait_frames(f, 1 + CONNS));
    for (int i = 1; i <= CONNS; i++)
        assert_int_equal(f->len[i], BIG_FRAME_BYTES);
    assert_true(fx_stats(f).request_bytes_buffered_peak <= cap + BIG_FRAME_BYTES + 4);
    for (int i = 0; i < CONNS; i++)
        close(fd[i]);
    close(c);
    fx_stop(f);
}

/* Twelve connections each send a quarter of a big frame: the buffers grow
 * with what arrived, stay within the budget (plus at most one frame while
 * every other holder waits), and every frame gets through. */
static void test_many_partial_frames_stay_under_budget(void **state)
{
    (void)state;
    enum { CONNS = 12 };
    const uint64_t cap = 2 * (BIG_FRAME_BYTES + 4) + CONNS * KQ_NET_READ_CHUNK_BYTES;
    net_server_config cfg = {.frame_bytes_max = BIG_FRAME_BYTES, .request_bytes_max = cap};
    fx *f = fx_start(&cfg, false);
    int fd[CONNS];
    for (int i = 0; i < CONNS; i++) {
        fd[i] = nt_connect(f->port);
        assert_true(fd[i] >= 0);
        send_big_part(f, fd[i], 0, BIG_FRAME_BYTES / 4);
    }
    nt_pump_ms(&f->loop, 100);
    net_server_stats st = fx_stats(f);
    assert_true(st.request_bytes_buffered_peak <= cap + BIG_FRAME_BYTES + 4);
    assert_int_equal(f->frames, 0);
    for (int i = 0; i < CONNS; i++)
        send_big_part(f, fd[i], BIG_FRAME_BYTES / 4, BIG_FRAME_BYTES);
    assert_true(wait_frames(f, CONNS));
    for (int i = 0; i < CONNS; i++) {
        assert_int_equal(f->len[i], BIG_FRAME_BYTES);
        net_slot_skip(f->slot[i]);
    }
    nt_pump_ms(&f->loop, 20);
    st = fx_stats(f);
    assert_true(st.request_bytes_buffered_peak <= cap + BIG_FRAME_BYTES + 4);
    assert_int_equal(st.request_bytes_buffered, 0); /* every buffer freed once empty */
    assert_int_equal(st.conns_waiting_memory, 0);
    for (int i = 0; i < CONNS; i++)
        close(fd[i]);
    fx_stop(f);
}

/* A frame larger than the whole budget is still admitted when nothing else
 * is buffered: the budget never deadlocks a single request. */
static void test_one_frame_admitted_beyond_budget_when_alone(void **state)
{
    (void)state;
    net_server_config cfg = {.frame_bytes_max = BIG_FRAME_BYTES,
                             .request_bytes_max = BIG_FRAME_BYTES / 2};
    fx *f = fx_start(&cfg, true);
    int fd = nt_connect(f->port);
    assert_true(fd >= 0);
    send_big_part(f, fd, 0, BIG_FRAME_BYTES);
    assert_true(wait_frames(f, 1));
    uint8_t *back = malloc(BIG_FRAME_BYTES + 4);
    assert_non_null(back);
    assert_int_equal(nt_recv_exact(&f->loop, fd, back, BIG_FRAME_BYTES + 4), BIG_FRAME_BYTES + 4);
    free(back);
    close(fd);
    fx_stop(f);
}

/* ---- connections.max.idle.ms */

static bool peer_closed(int fd)
{
    uint8_t b[64];
    ssize_t n = recv(fd, b, sizeof(b), 0);
    return n == 0 || (n < 0 && errno == ECONNRESET);
}

/* An idle connection closes after the idle time; a busy one, one with a
 * request being handled, and one receiving its responses stay open; one
 * whose client stopped reading a response closes too, freeing it. */
static void test_idle_connections_close(void **state)
{
    (void)state;
    net_server_config cfg = {.frame_bytes_max = 1024, .idle_ms = 150};
    fx *f = fx_start(&cfg, false);
    int idle = nt_connect(f->port), pending = nt_connect(f->port), busy = nt_connect(f->port);
    int stuck = connect_small(f->port);
    assert_true(idle >= 0 && pending >= 0 && busy >= 0);
    send_small_frames(f, pending, 1);
    assert_true(wait_frames(f, 1));
    send_small_frames(f, stuck, 1);
    assert_true(wait_frames(f, 2));
    size_t big_len = 16u << 20; /* far more than the socket buffers hold */
    uint8_t *big = calloc(1, big_len);
    assert_non_null(big);
    net_slot_respond(f->slot[1], big, big_len);
    free(big);
    uint64_t start = nt_now_ms(), last_sent = 0;
    bool idle_closed = false;
    while (nt_now_ms() - start < 600) {
        if (nt_now_ms() - last_sent >= 40) {
            send_small_frames(f, busy, 1); /* answered below: never idle */
            last_sent = nt_now_ms();
        }
        for (int i = 2; i < f->frames && i < SLOTS_KEPT; i++)
            if (f->slot[i]) {
                net_slot_skip(f->slot[i]);
                f->slot[i] = NULL;
            }
        if (!idle_closed && peer_closed(idle))
            idle_closed = true;
        nt_turn(&f->loop);
    }
    assert_true(idle_closed);
    assert_false(peer_closed(pending));
    assert_false(peer_closed(busy));
    net_server_stats st = fx_stats(f);
    assert_int_equal(st.conns_closed_idle, 2); /* idle and stuck */
    assert_int_equal(st.connections, 2);
    assert_int_equal(st.write_queued_bytes, 0); /* the stuck response was dropped */

    net_slot_respond(f->slot[0], (const uint8_t *)"done", 4);
    uint8_t b[8];
    assert_int_equal(nt_recv_exact(&f->loop, pending, b, 8), 8);
    assert_true(nt_wait_eof(&f->loop, pending)); /* idle once answered */
    close(idle);
    close(pending);
    close(busy);
    close(stuck);
    fx_stop(f);
}

/* ---- issue 19: the server-wide response budget, the SASL receive bound */

/* Three connections pipeline echo frames and never read: together their
 * queued answers stay within the shared budget (far below their own bounds),
 * the heaviest stop being read, a fresh connection is still answered, and
 * once they read everything arrives. */
static void test_shared_response_budget(void **state)
{
    (void)state;
    enum { CONNS = 3 };
    kq_budget budget;
    kq_budget_init(&budget, 1u << 20, 0, 0);
    net_server_config cfg = {.frame_bytes_max = 65536, .write_queue_bytes_max = 64u << 20,
                             .budget = &budget};
    fx *f = fx_start(&cfg, true);
    int fd[CONNS];
    stream s[CONNS];
    for (int i = 0; i < CONNS; i++) {
        fd[i] = connect_small(f->port);
        s[i] = (stream){.frame_bytes = 16384, .frames = 400};
        stream_send(f, fd[i], &s[i], 300);
        assert_true(s[i].sent < stream_total(&s[i]));
    }
    net_server_stats st = fx_stats(f);
    assert_true(st.conns_paused_budget >= 1);
    assert_true(budget.peak <= budget.bytes_max);
    assert_true(kq_budget_used(&budget) <= kq_budget_class_max(&budget, KQ_BUDGET_CLIENT));
    print_message("budget: %llu held (peak %llu of %llu), %u paused on it\n",
                  (unsigned long long)kq_budget_used(&budget), (unsigned long long)budget.peak,
                  (unsigned long long)budget.bytes_max, st.conns_paused_budget);
    int fresh = nt_connect(f->port);
    assert_true(fresh >= 0);
    send_small_frames(f, fresh, 1);
    uint8_t echo[8];
    assert_int_equal(nt_recv_exact(&f->loop, fresh, echo, 8), 8);
    assert_memory_equal(echo + 4, "abcd", 4);
    close(fresh);
    uint64_t end = nt_now_ms() + 30000;
    bool all = false;
    while (!all && nt_now_ms() < end) {
        all = true;
        for (int i = 0; i < CONNS; i++) {
            stream_recv(f, fd[i], &s[i]);
            stream_send(f, fd[i], &s[i], 1);
            all = all && s[i].received == stream_total(&s[i]);
        }
    }
    assert_true(all);
    assert_true(budget.peak <= budget.bytes_max);
    for (int i = 0; i < CONNS; i++)
        close(fd[i]);
    fx_stop(f);
    assert_int_equal(kq_budget_used(&budget), 0);
    assert_int_equal(budget.conns[KQ_BUDGET_CLIENT], 0);
}

/* sasl.server.max.receive.size: before net_slot_authenticated a frame past
 * it closes the connection; after, frames up to frame_bytes_max pass. */
static void test_sasl_receive_bound(void **state)
{
    (void)state;
    net_server_config cfg = {.frame_bytes_max = 65536, .unauthenticated_frame_bytes_max = 1024};
    fx *f = fx_start(&cfg, false);
    static uint8_t big[4 + 2048];
    nt_put32(big, 2048);
    int a = nt_connect(f->port);
    assert_true(a >= 0);
    assert_true(nt_send_all(&f->loop, a, big, sizeof(big)));
    uint64_t end = nt_now_ms() + 5000;
    while (fx_stats(f).connections > 0 && nt_now_ms() < end)
        nt_pump_ms(&f->loop, 10);
    assert_int_equal(fx_stats(f).connections, 0);
    assert_int_equal(f->frames, 0);
    close(a);
    int b = nt_connect(f->port);
    assert_true(b >= 0);
    send_small_frames(f, b, 1);
    assert_true(wait_frames(f, 1));
    net_slot_authenticated(f->slot[0]);
    net_slot_skip(f->slot[0]);
    assert_true(nt_send_all(&f->loop, b, big, sizeof(big)));
    assert_true(wait_frames(f, 2));
    assert_int_equal(f->len[1], 2048);
    net_slot_skip(f->slot[1]);
    close(b);
    fx_stop(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unread_responses_pause_reading),
        cmocka_unit_test(test_completed_unsent_responses_count),
        cmocka_unit_test(test_announced_sizes_reserve_nothing),
        cmocka_unit_test(test_many_partial_frames_stay_under_budget),
        cmocka_unit_test(test_one_frame_admitted_beyond_budget_when_alone),
        cmocka_unit_test(test_idle_connections_close),
        cmocka_unit_test(test_shared_response_budget),
        cmocka_unit_test(test_sasl_receive_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
