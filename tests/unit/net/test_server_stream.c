/* Streamed responses (net_slot_respond_stream, issue 19): the bytes on the
 * wire are the frame with every piece in place; a connection holds at most
 * KQ_FETCH_STREAM_CHUNKS_IN_FLIGHT_MAX chunks however much it has not read;
 * a read failure of the source closes only that connection; a connection
 * closed mid-stream releases the source exactly once (ASan: nothing leaks). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "kq/limits.h"
#include "kq/net.h"
#include "net/net_test_util.h"

typedef struct fx {
    uv_loop_t loop;
    net_server *server;
    uint16_t port;
    net_slot *slot;
    int frames;
} fx;

/* A source over memory: each piece is made of units of unit bytes (a
 * "batch": a read never splits one; -ENOBUFS when cap is smaller), failing
 * with -ESTALE once fail_after bytes were read (0: never). */
typedef struct src {
    const uint8_t *data[4];
    uint64_t len[4];
    uint64_t done[4];
    size_t unit;
    uint64_t fail_after, read_total;
    int releases;
    int reads;
} src;

static ssize_t src_read(void *ctx, uint32_t piece, uint8_t *buf, size_t cap, size_t *need)
{
    src *s = ctx;
    s->reads++;
    if (s->fail_after && s->read_total >= s->fail_after)
        return -ESTALE;
    uint64_t left = s->len[piece] - s->done[piece];
    size_t n = 0;
    while (n + s->unit <= cap && n < left)
        n += left - n < s->unit ? (size_t)(left - n) : s->unit;
    if (n == 0 && left > 0) {
        if (left <= cap) {
            n = (size_t)left;
        } else {
            *need = s->unit;
            return -ENOBUFS;
        }
    }
    memcpy(buf, s->data[piece] + s->done[piece], n);
    s->done[piece] += n;
    s->read_total += n;
    return (ssize_t)n;
}

static void src_release(void *ctx)
{
    ((src *)ctx)->releases++;
}

static void on_frame(void *ctx, net_slot *slot, uint8_t *frame, size_t len)
{
    (void)frame;
    (void)len;
    fx *f = ctx;
    f->slot = slot;
    f->frames++;
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
    net_server_config cfg = {.host = "127.0.0.1", .port = 0, .frame_bytes_max = 1024,
                             .on_frame = on_frame, .ctx = f};
    char err[256] = "";
    f->server = net_server_start(&f->loop, &cfg, err, sizeof(err));
    assert_non_null(f->server);
    uv_walk(&f->loop, find_listener, &f->port);
    return f;
}

static void fx_stop(fx *f)
{
    net_server_stop(f->server);
    assert_int_equal(nt_loop_finish(&f->loop), 0);
    free(f);
}

static bool have_frame(void *arg)
{
    return ((fx *)arg)->frames > 0;
}

/* Connects, sends one request and waits for its slot. */
static int ask(fx *f)
{
    int fd = nt_connect(f->port);
    assert_true(fd >= 0);
    uint8_t req[8];
    nt_put32(req, 4);
    nt_put32(req + 4, 42);
    assert_true(nt_send_all(&f->loop, fd, req, sizeof(req)));
    assert_true(nt_pump_until(&f->loop, have_frame, f, 0));
    return fd;
}

/* A response of three frame parts around two pieces (sizes a and b):
 * frame = prefix, "head", [piece 0], "mid", [piece 1], "tail". *want gets
 * the whole response. */
static void respond(fx *f, src *s, uint8_t *p0, uint64_t a, uint8_t *p1, uint64_t b,
                    uint8_t **want, size_t *want_len)
{
    const char head[] = "head", mid[] = "mid", tail[] = "tail";
    size_t len = 4 + 4 + 3 + 4;
    uint8_t *frame = malloc(len);
    assert_non_null(frame);
    uint64_t total = len - 4 + a + b;
    nt_put32(frame, (uint32_t)total);
    memcpy(frame + 4, head, 4);
    memcpy(frame + 8, mid, 3);
    memcpy(frame + 11, tail, 4);
    *want_len = (size_t)total + 4;
    *want = malloc(*want_len);
    assert_non_null(*want);
    uint8_t *w = *want;
    memcpy(w, frame, 8);
    memcpy(w + 8, p0, a);
    memcpy(w + 8 + a, mid, 3);
    memcpy(w + 11 + a, p1, b);
    memcpy(w + 11 + a + b, tail, 4);
    s->data[0] = p0;
    s->len[0] = a;
    s->data[1] = p1;
    s->len[1] = b;
    net_stream_piece pieces[2] = {{.at = 8, .len = a}, {.at = 11, .len = b}};
    net_stream_source source = {.ctx = s, .read = src_read, .release = src_release};
    net_slot_respond_stream(f->slot, frame, len, pieces, 2, source);
}

static uint8_t *pattern(size_t n, uint8_t seed)
{
    uint8_t *p = malloc(n);
    assert_non_null(p);
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(i * 31 + seed);
    return p;
}

static void test_stream_bytes_identical_and_bounded(void **state)
{
    (void)state;
    fx *f = fx_start();
    int fd = ask(f);
    size_t a = 5u << 20, b = 3u << 20;
    uint8_t *p0 = pattern(a, 1), *p1 = pattern(b, 7);
    src s = {.unit = KQ_FETCH_STREAM_CHUNK_BYTES + 4096}; /* larger than a chunk: need */
    uint8_t *want;
    size_t want_len;
    respond(f, &s, p0, a, p1, b, &want, &want_len);
    /* Not reading: the server holds a few chunks, not the response. */
    nt_pump_ms(&f->loop, 100);
    net_server_stats st;
    net_server_get_stats(f->server, &st);
    assert_true(st.write_queued_bytes <=
                (uint64_t)KQ_FETCH_STREAM_CHUNKS_IN_FLIGHT_MAX * s.unit + 64);
    assert_true(s.read_total < a); /* the socket buffers hold little of it */
    uint8_t *got = malloc(want_len);
    assert_non_null(got);
    assert_int_equal(nt_recv_exact(&f->loop, fd, got, want_len), want_len);
    assert_memory_equal(got, want, want_len);
    nt_pump_ms(&f->loop, 20);
    assert_int_equal(s.releases, 1);
    net_server_get_stats(f->server, &st);
    assert_int_equal(st.write_queued_bytes, 0);
    free(got);
    free(want);
    free(p0);
    free(p1);
    close(fd);
    fx_stop(f);
}

static void test_stale_source_closes_connection(void **state)
{
    (void)state;
    fx *f = fx_start();
    int fd = ask(f);
    size_t a = 2u << 20, b = 1000;
    uint8_t *p0 = pattern(a, 3), *p1 = pattern(b, 9);
    src s = {.unit = 1000, .fail_after = 1u << 20};
    uint8_t *want;
    size_t want_len;
    respond(f, &s, p0, a, p1, b, &want, &want_len);
    uint8_t *got = malloc(want_len);
    assert_non_null(got);
    size_t n = nt_recv_exact(&f->loop, fd, got, want_len);
    assert_true(n < want_len); /* cut: the connection closed */
    assert_memory_equal(got, want, n); /* what came is what belongs there */
    nt_pump_ms(&f->loop, 20);
    assert_int_equal(s.releases, 1);
    free(got);
    free(want);
    free(p0);
    free(p1);
    close(fd);
    fx_stop(f);
}

static void test_close_mid_stream_releases_once(void **state)
{
    (void)state;
    fx *f = fx_start();
    int fd = ask(f);
    size_t a = 4u << 20, b = 4u << 20;
    uint8_t *p0 = pattern(a, 5), *p1 = pattern(b, 6);
    src s = {.unit = 777};
    uint8_t *want;
    size_t want_len;
    respond(f, &s, p0, a, p1, b, &want, &want_len);
    uint8_t *got = malloc(1u << 20);
    assert_non_null(got);
    assert_int_equal(nt_recv_exact(&f->loop, fd, got, 1u << 20), 1u << 20);
    assert_memory_equal(got, want, 1u << 20);
    close(fd);
    nt_pump_ms(&f->loop, 100);
    assert_int_equal(s.releases, 1);
    free(got);
    free(want);
    free(p0);
    free(p1);
    fx_stop(f);
}

/* Stopping the server with a stream in progress releases it. */
static void test_stop_mid_stream(void **state)
{
    (void)state;
    fx *f = fx_start();
    int fd = ask(f);
    size_t a = 4u << 20;
    uint8_t *p0 = pattern(a, 5), *p1 = pattern(10, 6);
    src s = {.unit = 4096};
    uint8_t *want;
    size_t want_len;
    respond(f, &s, p0, a, p1, 10, &want, &want_len);
    nt_pump_ms(&f->loop, 20);
    fx_stop(f);
    assert_int_equal(s.releases, 1);
    free(want);
    free(p0);
    free(p1);
    close(fd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stream_bytes_identical_and_bounded),
        cmocka_unit_test(test_stale_source_closes_connection),
        cmocka_unit_test(test_close_mid_stream_releases_once),
        cmocka_unit_test(test_stop_mid_stream),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
