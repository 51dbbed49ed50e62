#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>

#include "kq/net.h"
#include "net/net_test_util.h"

#define MAX_FRAMES 512

typedef struct fx {
    uv_loop_t loop;
    net_server *server;
    uint16_t port;
    bool echo; /* respond to each frame at once with its own bytes */
    bool close_on_x; /* close the slot at once when the frame starts with 'x' */
    int frames;
    net_slot *slot[MAX_FRAMES];
    uint8_t *data[MAX_FRAMES];
    size_t len[MAX_FRAMES];
} fx;

static void on_frame(void *ctx, net_slot *slot, uint8_t *frame, size_t len)
{
    fx *f = ctx;
    assert_true(f->frames < MAX_FRAMES);
    int i = f->frames++;
    f->slot[i] = slot;
    f->len[i] = len;
    f->data[i] = malloc(len ? len : 1);
    assert_non_null(f->data[i]);
    memcpy(f->data[i], frame, len);
    memset(frame, 0xEE, len); /* the callee may scribble on the frame */
    if (f->close_on_x && len > 0 && f->data[i][0] == 'x')
        net_slot_close(slot, "bad frame");
    else if (f->echo)
        net_slot_respond(slot, f->data[i], len);
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

static fx *fx_start(int32_t frame_bytes_max, bool echo)
{
    fx *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    assert_int_equal(uv_loop_init(&f->loop), 0);
    f->echo = echo;
    net_server_config cfg = {
        .host = "127.0.0.1",
        .port = 0,
        .frame_bytes_max = frame_bytes_max,
        .on_frame = on_frame,
        .ctx = f,
    };
    char err[256] = "";
    f->server = net_server_start(&f->loop, &cfg, err, sizeof(err));
    assert_non_null(f->server);
    /* port 0 binds an ephemeral port; the listener is the loop's only TCP handle */
    uv_walk(&f->loop, find_listener, &f->port);
    assert_true(f->port != 0);
    return f;
}

static void fx_stop(fx *f)
{
    net_server_stop(f->server);
    assert_int_equal(nt_loop_finish(&f->loop), 0);
    for (int i = 0; i < f->frames; i++)
        free(f->data[i]);
    free(f);
}

typedef struct frames_cond {
    fx *f;
    int n;
} frames_cond;

static bool have_frames(void *arg)
{
    frames_cond *c = arg;
    return c->f->frames >= c->n;
}

static bool wait_frames(fx *f, int n)
{
    frames_cond c = {f, n};
    return nt_pump_until(&f->loop, have_frames, &c, 0);
}

/* Sends one size-prefixed frame. */
static bool send_frame(fx *f, int fd, const void *data, size_t len)
{
    uint8_t *b = malloc(len + 4);
    assert_non_null(b);
    nt_put32(b, (uint32_t)len);
    memcpy(b + 4, data, len);
    bool ok = nt_send_all(&f->loop, fd, b, len + 4);
    free(b);
    return ok;
}

/* Reads one size-prefixed response and checks it equals want. */
static void expect_response(fx *f, int fd, const void *want, size_t len)
{
    uint8_t hdr[4];
    assert_int_equal(nt_recv_exact(&f->loop, fd, hdr, 4), 4);
    assert_int_equal(nt_get32(hdr), len);
    uint8_t *b = malloc(len + 1);
    assert_non_null(b);
    assert_int_equal(nt_recv_exact(&f->loop, fd, b, len), len);
    assert_memory_equal(b, want, len);
    free(b);
}

static void expect_silence(fx *f, int fd, uint64_t ms)
{
    uint8_t b[64];
    assert_int_equal(nt_recv_for(&f->loop, fd, b, sizeof(b), ms), 0);
}

static void test_one_frame(void **state)
{
    (void)state;
    fx *f = fx_start(1024, false);
    int fd = nt_connect(f->port);
    assert_true(fd >= 0);
    const uint8_t req[] = {0, 18, 0, 4, 0, 0, 0, 42, 'h', 'e', 'l', 'l', 'o'};
    assert_true(send_frame(f, fd, req, sizeof(req)));
    assert_true(wait_frames(f, 1));
    assert_int_equal(f->len[0], sizeof(req));
    assert_memory_equal(f->data[0], req, sizeof(req));
    assert_false(net_slot_orphaned(f->slot[0]));
    assert_non_null(strstr(net_slot_peer(f->slot[0]), "127.0.0.1:"));

    const uint8_t resp[] = {0, 0, 0, 42, 'w', 'o', 'r', 'l', 'd', '!'};
    net_slot_respond(f->slot[0], resp, sizeof(resp));
    uint8_t got[4 + sizeof(resp)];
    assert_int_equal(nt_recv_exact(&f->loop, fd, got, sizeof(got)), sizeof(got));
    assert_int_equal(nt_get32(got), sizeof(resp));
    assert_memory_equal(got + 4, resp, sizeof(resp));
    expect_silence(f, fd, 50);
    assert_int_equal(f->frames, 1);
    close(fd);
    fx_stop(f);
}

static void test_out_of_order_completion_in_request_order(void **state)
{
    (void)state;
    fx *f = fx_start(1024, false);
    int fd = nt_connect(f->port);
    assert_true(fd >= 0);
    char req[16];
    for (int i = 0; i < 5; i++) {
        int n = snprintf(req, sizeof(req), "req-%d", i);
        assert_true(send_frame(f, fd, req, (size_t)n));
    }
    assert_true(wait_frames(f, 5));
    for (int i = 0; i < 5; i++) {
        int n = snprintf(req, sizeof(req), "req-%d", i);
        assert_int_equal(f->len[i], n);
        assert_memory_equal(f->data[i], req, (size_t)n);
    }
    /* 3 then 1 complete first: nothing may leave before 0 */
    net_slot_respond(f->slot[3], (const uint8_t *)"resp-3", 6);
    net_slot_respond(f->slot[1], (const uint8_t *)"resp-1", 6);
    expect_silence(f, fd, 100);
    net_slot_respond(f->slot[0], (const uint8_t *)"resp-0", 6);
    expect_response(f, fd, "resp-0", 6);
    expect_response(f, fd, "resp-1", 6);
    expect_silence(f, fd, 50); /* 3 still waits for 2 */
    net_slot_respond(f->slot[4], (const uint8_t *)"resp-4", 6);
    net_slot_respond(f->slot[2], (const uint8_t *)"resp-2", 6);
    expect_response(f, fd, "resp-2", 6);
    expect_response(f, fd, "resp-3", 6);
    expect_response(f, fd, "resp-4", 6);
    expect_silence(f, fd, 50);
    close(fd);
    fx_stop(f);
}

static void test_frame_split_byte_by_byte(void **state)
{
    (void)state;
    fx *f = fx_start(4096, true);
    int fd = nt_connect(f->port);
    assert_true(fd >= 0);
    uint8_t frame[4 + 300];
    nt_put32(frame, 300);
    for (int i = 0; i < 300; i++)
        frame[4 + i] = (uint8_t)(i * 7 + 1);
    for (size_t i = 0; i < sizeof(frame); i++) {
        assert_true(nt_send_all(&f->loop, fd, frame + i, 1));
        nt_turn(&f->loop);
        nt_turn(&f->loop);
        if (i + 1 < sizeof(frame))
            assert_int_equal(f->frames, 0);
    }
    assert_true(wait_frames(f, 1));
    assert_int_equal(f->len[0], 300);
    assert_memory_equal(f->data[0], frame + 4, 300);
    expect_response(f, fd, frame + 4, 300);
    close(fd);
    fx_stop(f);
}

static void test_many_frames_in_one_write(void **state)
{
    (void)state;
    fx *f = fx_start(4096, true);
    int fd = nt_connect(f->port);
    assert_true(fd >= 0);
    uint8_t buf[8192];
    size_t pos = 0;
    size_t sizes[10] = {1, 0, 17, 1000, 4, 3, 250, 0, 2048, 9};
    for (int i = 0; i < 10; i++) {
        nt_put32(buf + pos, (uint32_t)sizes[i]);
        pos += 4;
        for (size_t k = 0; k < sizes[i]; k++)
            buf[pos + k] = (uint8_t)(i * 31 + k);
        pos += sizes[i];
    }
    assert_true(nt_send_all(&f->loop, fd, buf, pos));
    assert_true(wait_frames(f, 10));
    pos = 0;
    for (int i = 0; i < 10; i++) {
        pos += 4;
        assert_int_equal(f->len[i], sizes[i]);
        if (sizes[i])
            assert_memory_equal(f->data[i], buf + pos, sizes[i]);
        pos += sizes[i];
    }
    /* the echoes come back in order, byte for byte what was sent */
    uint8_t *back = malloc(pos);
    assert_non_null(back);
    assert_int_equal(nt_recv_exact(&f->loop, fd, back, pos), pos);
    assert_memory_equal(back, buf, pos);
    free(back);
    assert_int_equal(f->frames, 10);
    close(fd);
    fx_stop(f);
}

static void test_oversized_frame_closes_only_its_connection(void **state)
{
    (void)state;
    fx *f = fx_start(1024, true);
    int good = nt_connect(f->port);
    int bad = nt_connect(f->port);
    assert_true(good >= 0 && bad >= 0);
    uint8_t hdr[4];
    nt_put32(hdr, 1025);
    assert_true(nt_send_all(&f->loop, bad, hdr, 4));
    assert_true(nt_wait_eof(&f->loop, bad));
    assert_int_equal(f->frames, 0);

    /* exactly frame_bytes_max is fine, on the surviving connection */
    uint8_t *big = malloc(1024);
    assert_non_null(big);
    memset(big, 'x', 1024);
    assert_true(send_frame(f, good, big, 1024));
    expect_response(f, good, big, 1024);
    assert_int_equal(f->frames, 1);
    free(big);
    close(good);
    close(bad);
    fx_stop(f);
}

static void test_negative_size_closes(void **state)
{
    (void)state;
    fx *f = fx_start(1024, true);
    int fd = nt_connect(f->port);
    assert_true(fd >= 0);
    const uint8_t hdr[] = {0xff, 0xff, 0xff, 0xfe, 1, 2, 3};
    assert_true(nt_send_all(&f->loop, fd, hdr, sizeof(hdr)));
    assert_true(nt_wait_eof(&f->loop, fd));
    assert_int_equal(f->frames, 0);
    close(fd);
    fx_stop(f);
}

static void test_slot_close_sends_earlier_then_closes(void **state)
{
    (void)state;
    fx *f = fx_start(1024, false);
    int fd = nt_connect(f->port);
    assert_true(fd >= 0);
    for (int i = 0; i < 3; i++)
        assert_true(send_frame(f, fd, "abcd", 4));
    assert_true(wait_frames(f, 3));
    net_slot_close(f->slot[1], "test says so");
    expect_silence(f, fd, 50); /* slot 0 not done yet: nothing, no close */
    net_slot_respond(f->slot[0], (const uint8_t *)"first", 5);
    net_slot_respond(f->slot[2], (const uint8_t *)"third", 5);
    expect_response(f, fd, "first", 5);
    assert_true(nt_wait_eof(&f->loop, fd)); /* "third" must not follow */
    close(fd);
    fx_stop(f);
}

/* net_conn_close_user (a SASL handshake evicted): a connection with an
 * answer pending closes once it left, dispatching no frame sent after; an
 * idle one closes at once, without a frame of its own. */
static void test_close_by_user_cell(void **state)
{
    (void)state;
    fx *f = fx_start(1024, false);
    int busy = nt_connect(f->port), idle = nt_connect(f->port);
    assert_true(busy >= 0 && idle >= 0);
    assert_true(send_frame(f, busy, "abcd", 4));
    assert_true(wait_frames(f, 1));
    assert_true(send_frame(f, idle, "efgh", 4));
    assert_true(wait_frames(f, 2));
    net_slot_skip(f->slot[1]);
    void **idle_cell = net_slot_conn_user(f->slot[1]);
    nt_pump_ms(&f->loop, 20); /* the idle one's slot is gone */
    net_conn_close_user(net_slot_conn_user(f->slot[0]), "evicted");
    assert_true(send_frame(f, busy, "late", 4));
    expect_silence(f, busy, 50);
    net_slot_respond(f->slot[0], (const uint8_t *)"first", 5);
    expect_response(f, busy, "first", 5);
    assert_true(nt_wait_eof(&f->loop, busy));
    assert_int_equal(f->frames, 2); /* "late" never dispatched */
    net_conn_close_user(idle_cell, "expired");
    assert_true(nt_wait_eof(&f->loop, idle));
    close(busy);
    close(idle);
    fx_stop(f);
}

/* A slot after the closing one completes while the earlier (large) response
 * is still being written: it must not leave either. */
static void test_slot_close_nothing_after_while_write_in_flight(void **state)
{
    (void)state;
    fx *f = fx_start(1024, false);
    int fd = nt_connect(f->port);
    assert_true(fd >= 0);
    for (int i = 0; i < 3; i++)
        assert_true(send_frame(f, fd, "abcd", 4));
    assert_true(wait_frames(f, 3));
    size_t big_len = 16u << 20; /* far more than the socket buffers hold */
    uint8_t *big = malloc(big_len);
    assert_non_null(big);
    for (size_t i = 0; i < big_len; i++)
        big[i] = (uint8_t)(i % 251);
    net_slot_respond(f->slot[0], big, big_len);
    net_slot_close(f->slot[1], "bad request");
    nt_pump_ms(&f->loop, 50); /* the write starts and stalls: the client is not reading */
    net_slot_respond(f->slot[2], (const uint8_t *)"third", 5);
    nt_pump_ms(&f->loop, 50);
    expect_response(f, fd, big, big_len);
    assert_true(nt_wait_eof(&f->loop, fd));
    free(big);
    close(fd);
    fx_stop(f);
}

/* Frames pipelined behind one the callee rejects at once (malformed,
 * unsupported) are never handed over: a Produce there would be appended
 * without its client ever hearing of it. */
static void test_no_frames_dispatched_after_a_closed_slot(void **state)
{
    (void)state;
    fx *f = fx_start(1024, true);
    f->close_on_x = true;
    int fd = nt_connect(f->port);
    assert_true(fd >= 0);
    uint8_t b[3 * 8];
    const char *frames[3] = {"good", "xbad", "late"};
    for (int i = 0; i < 3; i++) {
        nt_put32(b + 8 * i, 4);
        memcpy(b + 8 * i + 4, frames[i], 4);
    }
    assert_true(nt_send_all(&f->loop, fd, b, sizeof(b))); /* one write: one read */
    expect_response(f, fd, "good", 4);
    assert_true(nt_wait_eof(&f->loop, fd));
    assert_int_equal(f->frames, 2);
    /* and none after it in a later read either */
    close(fd);
    fd = nt_connect(f->port);
    assert_true(fd >= 0);
    assert_true(send_frame(f, fd, "xbad", 4));
    assert_true(wait_frames(f, 3));
    send_frame(f, fd, "late", 4); /* may fail if the close already arrived */
    assert_true(nt_wait_eof(&f->loop, fd));
    nt_pump_ms(&f->loop, 20);
    assert_int_equal(f->frames, 3);
    close(fd);
    fx_stop(f);
}

static void test_slot_skip_sends_nothing(void **state)
{
    (void)state;
    fx *f = fx_start(1024, false);
    int fd = nt_connect(f->port);
    assert_true(fd >= 0);
    for (int i = 0; i < 4; i++)
        assert_true(send_frame(f, fd, "abcd", 4));
    assert_true(wait_frames(f, 4));
    net_slot_skip(f->slot[1]);
    net_slot_respond(f->slot[2], (const uint8_t *)"two", 3);
    net_slot_respond(f->slot[0], (const uint8_t *)"zero", 4);
    expect_response(f, fd, "zero", 4);
    expect_response(f, fd, "two", 3);
    net_slot_skip(f->slot[3]);
    expect_silence(f, fd, 50);
    /* the connection keeps working after skips */
    assert_true(send_frame(f, fd, "more", 4));
    assert_true(wait_frames(f, 5));
    net_slot_respond(f->slot[4], (const uint8_t *)"five", 4);
    expect_response(f, fd, "five", 4);
    expect_silence(f, fd, 50);
    close(fd);
    fx_stop(f);
}

static void test_backpressure_pauses_and_resumes(void **state)
{
    (void)state;
    fx *f = fx_start(1024, false);
    int fd = nt_connect(f->port);
    assert_true(fd >= 0);
    const int total = NET_SLOTS_PER_CONN + 60;
    uint8_t *buf = malloc((size_t)total * 8);
    assert_non_null(buf);
    for (int i = 0; i < total; i++) {
        nt_put32(buf + i * 8, 4);
        nt_put32(buf + i * 8 + 4, (uint32_t)i);
    }
    assert_true(nt_send_all(&f->loop, fd, buf, (size_t)total * 8));
    assert_true(wait_frames(f, NET_SLOTS_PER_CONN));
    nt_pump_ms(&f->loop, 100);
    assert_int_equal(f->frames, NET_SLOTS_PER_CONN); /* reading paused at the limit */

    /* completing out of order at the tail frees nothing: still paused */
    net_slot_respond(f->slot[5], f->data[5], 4);
    nt_pump_ms(&f->loop, 50);
    assert_int_equal(f->frames, NET_SLOTS_PER_CONN);

    int answered = 0;
    while (answered < total) {
        if (answered == 5) {
            answered++;
            continue;
        }
        assert_true(wait_frames(f, answered + 1));
        net_slot_respond(f->slot[answered], f->data[answered], f->len[answered]);
        answered++;
    }
    assert_int_equal(f->frames, total);
    for (int i = 0; i < total; i++)
        assert_int_equal(nt_get32(f->data[i]), i);
    uint8_t *back = malloc((size_t)total * 8);
    assert_non_null(back);
    assert_int_equal(nt_recv_exact(&f->loop, fd, back, (size_t)total * 8), (size_t)total * 8);
    assert_memory_equal(back, buf, (size_t)total * 8);
    free(back);
    free(buf);
    close(fd);
    fx_stop(f);
}

static bool slot0_orphaned(void *arg)
{
    return net_slot_orphaned(((fx *)arg)->slot[0]);
}

static void test_disconnect_with_outstanding_slots(void **state)
{
    (void)state;
    fx *f = fx_start(1024, false);
    int fd = nt_connect(f->port);
    assert_true(fd >= 0);
    for (int i = 0; i < 4; i++)
        assert_true(send_frame(f, fd, "abcd", 4));
    assert_true(wait_frames(f, 4));
    net_slot_respond(f->slot[1], (const uint8_t *)"held", 4); /* done but waiting on 0 */
    nt_pump_ms(&f->loop, 20);
    assert_false(net_slot_orphaned(f->slot[0]));
    close(fd);
    assert_true(nt_pump_until(&f->loop, slot0_orphaned, f, 0));
    assert_true(net_slot_orphaned(f->slot[2]));
    nt_pump_ms(&f->loop, 20); /* the handle closes while slots are outstanding */
    net_slot_respond(f->slot[0], (const uint8_t *)"late", 4);
    net_slot_close(f->slot[2], "late close");
    assert_true(net_slot_orphaned(f->slot[3]));
    net_slot_skip(f->slot[3]);
    nt_pump_ms(&f->loop, 20);
    fx_stop(f); /* ASan: the connection must be freed by now */
}

/* Stopping the server closes live connections and frees everything. */
static void test_stop_with_open_connection(void **state)
{
    (void)state;
    fx *f = fx_start(1024, true);
    int fd = nt_connect(f->port);
    assert_true(fd >= 0);
    assert_true(send_frame(f, fd, "ping", 4));
    expect_response(f, fd, "ping", 4);
    assert_true(send_frame(f, fd, "pong", 4)); /* in the server's buffer or parsed */
    fx_stop(f);
    uint8_t b[64];
    ssize_t n;
    do
        n = recv(fd, b, sizeof(b), 0);
    while (n > 0);
    assert_true(n == 0 || errno == ECONNRESET);
    close(fd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_frame),
        cmocka_unit_test(test_out_of_order_completion_in_request_order),
        cmocka_unit_test(test_frame_split_byte_by_byte),
        cmocka_unit_test(test_many_frames_in_one_write),
        cmocka_unit_test(test_oversized_frame_closes_only_its_connection),
        cmocka_unit_test(test_negative_size_closes),
        cmocka_unit_test(test_slot_close_sends_earlier_then_closes),
        cmocka_unit_test(test_slot_close_nothing_after_while_write_in_flight),
        cmocka_unit_test(test_no_frames_dispatched_after_a_closed_slot),
        cmocka_unit_test(test_slot_skip_sends_nothing),
        cmocka_unit_test(test_close_by_user_cell),
        cmocka_unit_test(test_backpressure_pauses_and_resumes),
        cmocka_unit_test(test_disconnect_with_outstanding_slots),
        cmocka_unit_test(test_stop_with_open_connection),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
