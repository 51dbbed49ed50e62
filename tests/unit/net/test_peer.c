#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>

#include "kq/net.h"
#include "net/net_test_util.h"

#define MAX_RESP 256

typedef struct fx {
    uv_loop_t loop;
    net_peer *peer;
    int lfd; /* the fake server's socket */
    uint16_t port;
    int responses;
    void *ctx[MAX_RESP];
    uint8_t *frame[MAX_RESP]; /* NULL: the request failed */
    size_t len[MAX_RESP];
    uint64_t at_ms[MAX_RESP];
} fx;

static void on_response(void *ctx, net_peer *peer, void *request_ctx, const uint8_t *frame,
                        size_t len)
{
    fx *f = ctx;
    assert_ptr_equal(peer, f->peer);
    assert_true(f->responses < MAX_RESP);
    int i = f->responses++;
    f->ctx[i] = request_ctx;
    f->len[i] = len;
    f->at_ms[i] = nt_now_ms();
    f->frame[i] = NULL;
    if (frame) {
        f->frame[i] = malloc(len ? len : 1);
        assert_non_null(f->frame[i]);
        memcpy(f->frame[i], frame, len);
    } else {
        assert_int_equal(len, 0);
    }
}

/* backlog < 0: the port is bound but nothing listens (connect is refused). */
static fx *fx_start(int backlog, uint32_t request_timeout_ms, uint32_t retry_backoff_ms)
{
    fx *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    assert_int_equal(uv_loop_init(&f->loop), 0);
    f->lfd = nt_bound_socket(&f->port, backlog);
    assert_true(f->lfd >= 0);
    net_peer_config cfg = {
        .node_id = 2,
        .host = "127.0.0.1",
        .port = f->port,
        .request_timeout_ms = request_timeout_ms,
        .retry_backoff_ms = retry_backoff_ms,
        .frame_bytes_max = 1 << 20,
        .on_response = on_response,
        .ctx = f,
    };
    f->peer = net_peer_create(&f->loop, &cfg);
    assert_non_null(f->peer);
    assert_int_equal(net_peer_node_id(f->peer), 2);
    return f;
}

static void fx_stop(fx *f)
{
    net_peer_destroy(f->peer);
    assert_int_equal(nt_loop_finish(&f->loop), 0); /* every handle closed */
    close(f->lfd);
    for (int i = 0; i < f->responses; i++)
        free(f->frame[i]);
    free(f);
}

typedef struct resp_cond {
    fx *f;
    int n;
} resp_cond;

static bool have_responses(void *arg)
{
    resp_cond *c = arg;
    return c->f->responses >= c->n;
}

static bool wait_responses(fx *f, int n, uint64_t max_ms)
{
    resp_cond c = {f, n};
    return nt_pump_until(&f->loop, have_responses, &c, max_ms);
}

/* A request frame: correlation id in bytes 0..3 (as the peer sees a frame,
 * it does not care) followed by a tag. */
static size_t make_request(uint8_t *buf, int32_t corr, const char *tag)
{
    nt_put32(buf, (uint32_t)corr);
    size_t n = strlen(tag);
    memcpy(buf + 4, tag, n);
    return 4 + n;
}

/* The fake server reads one size-prefixed request and checks its bytes. */
static void server_expect_request(fx *f, int fd, const uint8_t *req, size_t len)
{
    uint8_t hdr[4];
    assert_int_equal(nt_recv_exact(&f->loop, fd, hdr, 4), 4);
    assert_int_equal(nt_get32(hdr), len);
    uint8_t buf[256];
    assert_true(len <= sizeof(buf));
    assert_int_equal(nt_recv_exact(&f->loop, fd, buf, len), len);
    assert_memory_equal(buf, req, len);
}

static void server_respond(fx *f, int fd, int32_t corr, const char *body)
{
    uint8_t buf[256];
    size_t n = strlen(body);
    nt_put32(buf, (uint32_t)(4 + n));
    nt_put32(buf + 4, (uint32_t)corr);
    memcpy(buf + 8, body, n);
    assert_true(nt_send_all(&f->loop, fd, buf, 8 + n));
}

static void expect_ok(fx *f, int i, void *ctx, int32_t corr, const char *body)
{
    assert_ptr_equal(f->ctx[i], ctx);
    assert_non_null(f->frame[i]);
    size_t n = strlen(body);
    assert_int_equal(f->len[i], 4 + n);
    assert_int_equal(nt_get32(f->frame[i]), (uint32_t)corr);
    assert_memory_equal(f->frame[i] + 4, body, n);
}

static void expect_failed(fx *f, int i, void *ctx)
{
    assert_ptr_equal(f->ctx[i], ctx);
    assert_null(f->frame[i]);
    assert_int_equal(f->len[i], 0);
}

static int A, B, C; /* request contexts */

static void test_request_response(void **state)
{
    (void)state;
    fx *f = fx_start(16, 5000, 100);
    uint8_t req[64];
    size_t n = make_request(req, 77, "metadata please");
    assert_true(net_peer_send(f->peer, 77, req, n, &A));
    int fd = nt_accept(&f->loop, f->lfd, 0);
    assert_true(fd >= 0);
    server_expect_request(f, fd, req, n);
    assert_int_equal(f->responses, 0);
    server_respond(f, fd, 77, "here you go");
    assert_true(wait_responses(f, 1, 0));
    expect_ok(f, 0, &A, 77, "here you go");
    nt_pump_ms(&f->loop, 30);
    assert_int_equal(f->responses, 1);
    close(fd);
    fx_stop(f);
}

static void test_pipelined_in_order(void **state)
{
    (void)state;
    fx *f = fx_start(16, 5000, 100);
    uint8_t r1[64], r2[64];
    size_t n1 = make_request(r1, 1, "first");
    size_t n2 = make_request(r2, 2, "second");
    assert_true(net_peer_send(f->peer, 1, r1, n1, &A));
    assert_true(net_peer_send(f->peer, 2, r2, n2, &B));
    int fd = nt_accept(&f->loop, f->lfd, 0);
    assert_true(fd >= 0);
    /* both arrive before any answer: pipelined on one connection */
    server_expect_request(f, fd, r1, n1);
    server_expect_request(f, fd, r2, n2);
    server_respond(f, fd, 1, "one");
    assert_true(wait_responses(f, 1, 0));
    expect_ok(f, 0, &A, 1, "one");
    /* a third request on the live connection, then both answers in one go */
    uint8_t r3[64];
    size_t n3 = make_request(r3, 3, "third");
    assert_true(net_peer_send(f->peer, 3, r3, n3, &C));
    server_expect_request(f, fd, r3, n3);
    server_respond(f, fd, 2, "two");
    server_respond(f, fd, 3, "three");
    assert_true(wait_responses(f, 3, 0));
    expect_ok(f, 1, &B, 2, "two");
    expect_ok(f, 2, &C, 3, "three");
    close(fd);
    fx_stop(f);
}

/* More requests queued before the connection exists than one gathered write
 * carries: all of them must still go out. */
static void test_many_queued_before_connect_all_sent(void **state)
{
    (void)state;
    fx *f = fx_start(16, 5000, 100);
    enum { N = 150 };
    static int ctxs[N];
    uint8_t req[N][16];
    size_t len[N];
    for (int i = 0; i < N; i++) {
        char tag[8];
        snprintf(tag, sizeof(tag), "r%d", i);
        len[i] = make_request(req[i], 1000 + i, tag);
        assert_true(net_peer_send(f->peer, 1000 + i, req[i], len[i], &ctxs[i]));
    }
    int fd = nt_accept(&f->loop, f->lfd, 0);
    assert_true(fd >= 0);
    for (int i = 0; i < N; i++)
        server_expect_request(f, fd, req[i], len[i]);
    for (int i = 0; i < N; i++)
        server_respond(f, fd, 1000 + i, "ok");
    assert_true(wait_responses(f, N, 0));
    for (int i = 0; i < N; i++)
        expect_ok(f, i, &ctxs[i], 1000 + i, "ok");
    close(fd);
    fx_stop(f);
}

static void test_wrong_correlation_fails_all_then_reconnects(void **state)
{
    (void)state;
    fx *f = fx_start(16, 5000, 100);
    uint8_t r1[64], r2[64];
    size_t n1 = make_request(r1, 5, "a");
    size_t n2 = make_request(r2, 6, "b");
    assert_true(net_peer_send(f->peer, 5, r1, n1, &A));
    assert_true(net_peer_send(f->peer, 6, r2, n2, &B));
    int fd = nt_accept(&f->loop, f->lfd, 0);
    assert_true(fd >= 0);
    server_expect_request(f, fd, r1, n1);
    server_expect_request(f, fd, r2, n2);
    server_respond(f, fd, 6, "out of order"); /* 5 was expected first */
    assert_true(wait_responses(f, 2, 0));
    expect_failed(f, 0, &A);
    expect_failed(f, 1, &B);
    assert_true(nt_wait_eof(&f->loop, fd)); /* the connection was dropped */
    close(fd);

    /* after the backoff a new request opens a new connection */
    nt_pump_ms(&f->loop, 150);
    uint8_t r3[64];
    size_t n3 = make_request(r3, 7, "again");
    assert_true(net_peer_send(f->peer, 7, r3, n3, &C));
    fd = nt_accept(&f->loop, f->lfd, 0);
    assert_true(fd >= 0);
    server_expect_request(f, fd, r3, n3);
    server_respond(f, fd, 7, "fine");
    assert_true(wait_responses(f, 3, 0));
    expect_ok(f, 2, &C, 7, "fine");
    close(fd);
    fx_stop(f);
}

static void test_no_server_fails_then_reconnects_after_backoff(void **state)
{
    (void)state;
    const uint32_t timeout_ms = 1000, backoff_ms = 300;
    fx *f = fx_start(-1, timeout_ms, backoff_ms); /* bound, not listening */
    uint8_t req[64];
    size_t n = make_request(req, 9, "anyone?");
    nt_turn(&f->loop); /* deadlines count from the loop's clock: refresh it */
    uint64_t t0 = nt_now_ms();
    assert_true(net_peer_send(f->peer, 9, req, n, &A));
    assert_true(wait_responses(f, 1, timeout_ms + 1000));
    expect_failed(f, 0, &A);
    uint64_t failed_at = f->at_ms[0];
    assert_true(failed_at - t0 <= timeout_ms + 1000);

    /* the server appears; keep asking until a request gets through */
    assert_int_equal(listen(f->lfd, 16), 0);
    int fd = -1;
    int sent = 0;
    uint64_t end = nt_now_ms() + backoff_ms + 3000;
    while (fd < 0 && nt_now_ms() < end) {
        if (f->responses == 1 + sent && /* none outstanding */ net_peer_send(f->peer, 10, req, n, &B))
            sent++;
        fd = accept(f->lfd, NULL, NULL);
        if (fd < 0)
            nt_pump_ms(&f->loop, 5);
    }
    assert_true(fd >= 0);
    uint64_t connected_at = nt_now_ms();
    /* not before the retry backoff elapsed (some slack for timer rounding) */
    assert_true(connected_at - failed_at + 20 >= backoff_ms);
    nt_set_nonblocking(fd);
    assert_int_equal(sent, 1);
    uint8_t r2[64];
    size_t n2 = make_request(r2, 9, "anyone?");
    server_expect_request(f, fd, r2, n2);
    server_respond(f, fd, 10, "yes");
    assert_true(wait_responses(f, 2, 0));
    expect_ok(f, 1, &B, 10, "yes");
    close(fd);
    fx_stop(f);
}

/* A listener whose accept queue is full drops SYNs: connect hangs until the
 * peer's connect timeout (request_timeout_ms). */
static void test_connect_timeout(void **state)
{
    (void)state;
    const uint32_t timeout_ms = 400;
    fx *f = fx_start(0, timeout_ms, 100);
    int fillers[4];
    for (int i = 0; i < 4; i++) {
        fillers[i] = socket(AF_INET, SOCK_STREAM, 0);
        assert_true(fillers[i] >= 0);
        nt_set_nonblocking(fillers[i]);
        struct sockaddr_in a = nt_addr(f->port);
        connect(fillers[i], (struct sockaddr *)&a, sizeof(a));
    }
    usleep(20000);
    nt_turn(&f->loop); /* deadlines count from the loop's clock: refresh it */
    uint8_t req[64];
    size_t n = make_request(req, 1, "hello?");
    uint64_t t0 = nt_now_ms();
    assert_true(net_peer_send(f->peer, 1, req, n, &A));
    assert_true(wait_responses(f, 1, timeout_ms + 1500));
    expect_failed(f, 0, &A);
    uint64_t took = f->at_ms[0] - t0;
    assert_true(took + 20 >= timeout_ms);
    assert_true(took <= timeout_ms + 1000);
    for (int i = 0; i < 4; i++)
        close(fillers[i]);
    fx_stop(f);
}

static void test_server_never_answers(void **state)
{
    (void)state;
    const uint32_t timeout_ms = 300;
    fx *f = fx_start(16, timeout_ms, 100);
    uint8_t req[64];
    size_t n = make_request(req, 4, "hello?");
    nt_turn(&f->loop);
    uint64_t t0 = nt_now_ms();
    assert_true(net_peer_send(f->peer, 4, req, n, &A));
    int fd = nt_accept(&f->loop, f->lfd, 0);
    assert_true(fd >= 0);
    server_expect_request(f, fd, req, n);
    assert_int_equal(f->responses, 0);
    assert_true(wait_responses(f, 1, timeout_ms + 1500));
    expect_failed(f, 0, &A);
    uint64_t took = f->at_ms[0] - t0;
    assert_true(took + 20 >= timeout_ms);
    assert_true(took <= timeout_ms + 1000);
    assert_true(nt_wait_eof(&f->loop, fd)); /* and the connection is dropped */
    close(fd);
    fx_stop(f);
}

static void garbage_case(const uint8_t *garbage, size_t glen)
{
    fx *f = fx_start(16, 5000, 100);
    uint8_t r1[64], r2[64];
    size_t n1 = make_request(r1, 1, "a");
    size_t n2 = make_request(r2, 2, "b");
    assert_true(net_peer_send(f->peer, 1, r1, n1, &A));
    assert_true(net_peer_send(f->peer, 2, r2, n2, &B));
    int fd = nt_accept(&f->loop, f->lfd, 0);
    assert_true(fd >= 0);
    server_expect_request(f, fd, r1, n1);
    server_expect_request(f, fd, r2, n2);
    assert_true(nt_send_all(&f->loop, fd, garbage, glen));
    assert_true(wait_responses(f, 2, 0));
    expect_failed(f, 0, &A);
    expect_failed(f, 1, &B);
    assert_true(nt_wait_eof(&f->loop, fd));
    close(fd);
    fx_stop(f);
}

static void test_garbage_oversized_size(void **state)
{
    (void)state;
    const uint8_t g[] = {0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 1, 'x'};
    garbage_case(g, sizeof(g));
}

static void test_garbage_negative_size(void **state)
{
    (void)state;
    const uint8_t g[] = {0x80, 0, 0, 0, 0, 0, 0, 1};
    garbage_case(g, sizeof(g));
}

static void test_garbage_too_short_for_correlation(void **state)
{
    (void)state;
    const uint8_t g[] = {0, 0, 0, 2, 0, 0};
    garbage_case(g, sizeof(g));
}

/* Destroying a peer mid-connect or with a connection up frees everything
 * (ASan) and calls nothing back. */
static void test_destroy_while_busy(void **state)
{
    (void)state;
    for (int phase = 0; phase < 3; phase++) {
        fx *f = fx_start(16, 5000, 100);
        uint8_t req[64];
        size_t n = make_request(req, 1, "x");
        assert_true(net_peer_send(f->peer, 1, req, n, &A));
        int fd = -1;
        if (phase == 1)
            nt_turn(&f->loop);
        if (phase == 2) {
            fd = nt_accept(&f->loop, f->lfd, 0);
            assert_true(fd >= 0);
            server_expect_request(f, fd, req, n);
        }
        int responses = f->responses;
        net_peer_destroy(f->peer);
        assert_int_equal(nt_loop_finish(&f->loop), 0);
        assert_int_equal(f->responses, responses);
        assert_int_equal(responses, 0);
        if (fd >= 0)
            close(fd);
        close(f->lfd);
        free(f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_request_response),
        cmocka_unit_test(test_pipelined_in_order),
        cmocka_unit_test(test_many_queued_before_connect_all_sent),
        cmocka_unit_test(test_wrong_correlation_fails_all_then_reconnects),
        cmocka_unit_test(test_no_server_fails_then_reconnects_after_backoff),
        cmocka_unit_test(test_connect_timeout),
        cmocka_unit_test(test_server_never_answers),
        cmocka_unit_test(test_garbage_oversized_size),
        cmocka_unit_test(test_garbage_negative_size),
        cmocka_unit_test(test_garbage_too_short_for_correlation),
        cmocka_unit_test(test_destroy_while_busy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
