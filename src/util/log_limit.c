/* Rate-limited log lines (kq/log_line.h, LOG_LINE_LIMITED). */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "kq/limits.h"
#include "kq/log_line.h"

static uint64_t (*clock_fn)(void *ctx);
static void *clock_ctx;
static uint64_t suppressed_total;

void log_line_set_clock(uint64_t (*now_ms)(void *ctx), void *ctx)
{
    clock_fn = now_ms;
    clock_ctx = ctx;
}

uint64_t log_line_suppressed_total(void)
{
    return suppressed_total;
}

static uint64_t monotonic_ms(void)
{
    if (clock_fn)
        return clock_fn(clock_ctx);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

bool kq_log_limit_allow(kq_log_limit *l, uint64_t now_ms, uint64_t *suppressed)
{
    if (!l->started || now_ms < l->window_start_ms ||
        now_ms - l->window_start_ms >= KQ_LOG_LIMITED_WINDOW_MS) {
        l->started = true;
        l->window_start_ms = now_ms;
        l->in_window = 0;
    }
    if (l->in_window >= KQ_LOG_LIMITED_LINES_PER_WINDOW) {
        l->suppressed++;
        return false;
    }
    l->in_window++;
    *suppressed = l->suppressed;
    l->suppressed = 0;
    return true;
}

void log_line_limited(kq_log_limit *l, const char *fmt, ...)
{
    uint64_t dropped = 0;
    if (!kq_log_limit_allow(l, monotonic_ms(), &dropped)) {
        suppressed_total++;
        return;
    }
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (dropped)
        log_line("%s (%llu similar lines suppressed before this one)", msg,
                 (unsigned long long)dropped);
    else
        log_line("%s", msg);
}
