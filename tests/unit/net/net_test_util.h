/* Shared helpers for the net tests: a bounded pump of a real uv loop and
 * non-blocking POSIX client/server sockets on 127.0.0.1 in the same thread. */
#ifndef KQ_NET_TEST_UTIL_H
#define KQ_NET_TEST_UTIL_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#define NT_WAIT_MS 5000 /* every wait gives up (and the test fails) after this */

static inline uint64_t nt_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* One non-blocking loop turn, then a short nap so waits do not spin hot. */
static inline void nt_turn(uv_loop_t *loop)
{
    uv_run(loop, UV_RUN_NOWAIT);
    usleep(500);
}

static inline void nt_pump_ms(uv_loop_t *loop, uint64_t ms)
{
    uint64_t end = nt_now_ms() + ms;
    while (nt_now_ms() < end)
        nt_turn(loop);
}

/* Pumps until cond(arg) holds; false after NT_WAIT_MS (or max_ms if nonzero). */
static inline bool nt_pump_until(uv_loop_t *loop, bool (*cond)(void *), void *arg, uint64_t max_ms)
{
    uint64_t end = nt_now_ms() + (max_ms ? max_ms : NT_WAIT_MS);
    for (;;) {
        if (cond(arg))
            return true;
        if (nt_now_ms() >= end)
            return false;
        nt_turn(loop);
    }
}

/* Pumps until every handle closed; returns uv_loop_close's result. */
static inline int nt_loop_finish(uv_loop_t *loop)
{
    uint64_t end = nt_now_ms() + NT_WAIT_MS;
    while (uv_loop_alive(loop) && nt_now_ms() < end)
        nt_turn(loop);
    return uv_loop_close(loop);
}

static inline void nt_set_nonblocking(int fd)
{
    int fl = fcntl(fd, F_GETFL, 0);
    fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static inline struct sockaddr_in nt_addr(uint16_t port)
{
    struct sockaddr_in a;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
}

/* A TCP socket bound to an ephemeral port of 127.0.0.1 (listening when
 * backlog >= 0); *port receives the port. */
static inline int nt_bound_socket(uint16_t *port, int backlog)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in a = nt_addr(0);
    socklen_t alen = sizeof(a);
    if (bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &alen) != 0 ||
        (backlog >= 0 && listen(fd, backlog) != 0)) {
        close(fd);
        return -1;
    }
    nt_set_nonblocking(fd);
    *port = ntohs(a.sin_port);
    return fd;
}

/* Blocking connect to a listening port (the kernel completes it without an
 * accept), then non-blocking. */
static inline int nt_connect(uint16_t port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in a = nt_addr(port);
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        close(fd);
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    nt_set_nonblocking(fd);
    return fd;
}

/* The same from a chosen loopback source address ("127.0.0.2"). */
static inline int nt_connect_from(uint16_t port, const char *source)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in src = {.sin_family = AF_INET};
    inet_pton(AF_INET, source, &src.sin_addr);
    struct sockaddr_in a = nt_addr(port);
    if (bind(fd, (struct sockaddr *)&src, sizeof(src)) != 0 ||
        connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        close(fd);
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    nt_set_nonblocking(fd);
    return fd;
}

/* Accepts one connection on a non-blocking listener while pumping loop. */
static inline int nt_accept(uv_loop_t *loop, int lfd, uint64_t max_ms)
{
    uint64_t end = nt_now_ms() + (max_ms ? max_ms : NT_WAIT_MS);
    while (nt_now_ms() < end) {
        int fd = accept(lfd, NULL, NULL);
        if (fd >= 0) {
            nt_set_nonblocking(fd);
            return fd;
        }
        nt_turn(loop);
    }
    return -1;
}

static inline bool nt_send_all(uv_loop_t *loop, int fd, const void *data, size_t len)
{
    const uint8_t *p = data;
    uint64_t end = nt_now_ms() + NT_WAIT_MS;
    while (len > 0) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n > 0) {
            p += n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            return false;
        if (nt_now_ms() >= end)
            return false;
        nt_turn(loop);
    }
    return true;
}

/* Receives exactly len bytes; returns how many arrived before EOF, error or
 * the deadline. */
static inline size_t nt_recv_exact(uv_loop_t *loop, int fd, void *buf, size_t len)
{
    uint8_t *p = buf;
    size_t got = 0;
    uint64_t end = nt_now_ms() + NT_WAIT_MS;
    while (got < len) {
        ssize_t n = recv(fd, p + got, len - got, 0);
        if (n > 0) {
            got += (size_t)n;
            continue;
        }
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
            break;
        if (nt_now_ms() >= end)
            break;
        nt_turn(loop);
    }
    return got;
}

/* Pumps for ms and reports how many bytes arrived meanwhile (read and
 * discarded into buf up to cap). -1 when the peer closed with nothing read. */
static inline ssize_t nt_recv_for(uv_loop_t *loop, int fd, void *buf, size_t cap, uint64_t ms)
{
    uint64_t end = nt_now_ms() + ms;
    size_t got = 0;
    for (;;) {
        ssize_t n = recv(fd, (uint8_t *)buf + got, cap - got, 0);
        if (n > 0) {
            got += (size_t)n;
            if (got == cap)
                return (ssize_t)got;
            continue;
        }
        if (n == 0)
            return got ? (ssize_t)got : -1;
        if (nt_now_ms() >= end)
            return (ssize_t)got;
        nt_turn(loop);
    }
}

/* True once the other side closed (recv returns 0 or a reset); stray bytes
 * before the close count as failure. */
static inline bool nt_wait_eof(uv_loop_t *loop, int fd)
{
    uint64_t end = nt_now_ms() + NT_WAIT_MS;
    uint8_t b[256];
    while (nt_now_ms() < end) {
        ssize_t n = recv(fd, b, sizeof(b), 0);
        if (n == 0)
            return true;
        if (n > 0)
            return false;
        if (errno == ECONNRESET)
            return true;
        nt_turn(loop);
    }
    return false;
}

static inline void nt_put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static inline uint32_t nt_get32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

#endif
