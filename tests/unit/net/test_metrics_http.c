/* The metrics endpoint under slowloris (kq/metrics_http.h): one address holds
 * at most KQ_METRICS_HTTP_CONNS_PER_IP_MAX connections (a new one closes its
 * oldest incomplete one), a full endpoint closes the oldest incomplete one
 * for a newcomer, scrapes from another address are answered throughout, and
 * a request head not complete within KQ_METRICS_HTTP_HEADER_MS is closed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>

#include "kq/limits.h"
#include "kq/metrics_http.h"
#include "net/net_test_util.h"

static size_t render(void *ctx, char *buf, size_t cap)
{
    (void)ctx;
    return (size_t)snprintf(buf, cap, "kq_test 1\n");
}

typedef struct fx {
    uv_loop_t loop;
    metrics_http *http;
    uint16_t port;
} fx;

/* Static: the endpoint has no stop; its loop stays reachable to the end. */
static fx the_fx;

static fx *fx_start(void)
{
    fx *f = &the_fx;
    assert_int_equal(uv_loop_init(&f->loop), 0);
    int probe = nt_bound_socket(&f->port, 1); /* a free port */
    close(probe);
    char err[256];
    f->http = metrics_http_start(&f->loop, &(metrics_http_config){.host = "127.0.0.1",
                                                                   .port = f->port,
                                                                   .render = render},
                                 err, sizeof err);
    assert_non_null(f->http);
    return f;
}

/* A whole scrape from source: 200 and the body. */
static void scrape(fx *f, const char *source)
{
    int fd = nt_connect_from(f->port, source);
    assert_true(fd >= 0);
    const char req[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
    assert_true(nt_send_all(&f->loop, fd, req, sizeof req - 1));
    char buf[512];
    size_t got = 0;
    for (;;) {
        ssize_t n = nt_recv_for(&f->loop, fd, buf + got, sizeof buf - 1 - got, 3000);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    buf[got] = '\0';
    if (!strstr(buf, "200 OK") || !strstr(buf, "kq_test 1"))
        fail_msg("scrape from %s got \"%s\"", source, buf);
    close(fd);
}

static int open_partial(fx *f, const char *source)
{
    int fd = nt_connect_from(f->port, source);
    assert_true(fd >= 0);
    const char part[] = "GET /metrics HTTP/1.1\r\nX-slow: ";
    assert_true(nt_send_all(&f->loop, fd, part, sizeof part - 1));
    return fd;
}

static bool closed_by_server(fx *f, int fd)
{
    nt_pump_ms(&f->loop, 20);
    char c;
    ssize_t n = recv(fd, &c, 1, MSG_DONTWAIT);
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

static void test_slowloris_per_address_and_full(void **state)
{
    (void)state;
    fx *f = fx_start();
    enum { N = 3 * KQ_METRICS_HTTP_CONNS_MAX };
    int slow[N];
    for (int i = 0; i < N; i++) {
        slow[i] = open_partial(f, "127.0.0.2");
        nt_pump_ms(&f->loop, 5);
    }
    nt_pump_ms(&f->loop, 50);
    int open = 0;
    for (int i = 0; i < N; i++)
        open += !closed_by_server(f, slow[i]);
    assert_int_equal(open, KQ_METRICS_HTTP_CONNS_PER_IP_MAX);
    for (int i = N - KQ_METRICS_HTTP_CONNS_PER_IP_MAX; i < N; i++)
        assert_false(closed_by_server(f, slow[i])); /* the newest stay */
    scrape(f, "127.0.0.1");
    /* Many addresses fill every slot; a newcomer still gets in. */
    int spread[KQ_METRICS_HTTP_CONNS_MAX];
    for (int i = 0; i < KQ_METRICS_HTTP_CONNS_MAX; i++) {
        char src[32];
        snprintf(src, sizeof src, "127.0.1.%d", 1 + i);
        spread[i] = open_partial(f, src);
        nt_pump_ms(&f->loop, 5);
    }
    scrape(f, "127.0.0.1");
    assert_true(metrics_http_evicted(f->http) >= N - KQ_METRICS_HTTP_CONNS_PER_IP_MAX + 1);
    /* The heads never complete: closed at the header deadline. */
    nt_pump_ms(&f->loop, KQ_METRICS_HTTP_HEADER_MS + 500);
    for (int i = 0; i < KQ_METRICS_HTTP_CONNS_MAX; i++)
        assert_true(closed_by_server(f, spread[i]));
    for (int i = 0; i < N; i++)
        close(slow[i]);
    for (int i = 0; i < KQ_METRICS_HTTP_CONNS_MAX; i++)
        close(spread[i]);
    scrape(f, "127.0.0.2");
    assert_int_equal(metrics_http_refused(f->http), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slowloris_per_address_and_full),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
