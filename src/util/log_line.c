#include "kq/log_line.h"

#include <stdarg.h>
#include <stdio.h>
#include <sys/time.h>
#include <time.h>

static log_line_sink sink_fn;
static void *sink_ctx;

void log_line_set_sink(log_line_sink sink, void *ctx)
{
    sink_fn = sink;
    sink_ctx = ctx;
}

void log_line(const char *fmt, ...)
{
    if (sink_fn) {
        char line[1024];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(line, sizeof(line), fmt, ap);
        va_end(ap);
        sink_fn(sink_ctx, line);
        return;
    }
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    localtime_r(&tv.tv_sec, &tm);
    char stamp[32];
    strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &tm);
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "[%s,%03d] %s\n", stamp, (int)(tv.tv_usec / 1000), msg);
}
