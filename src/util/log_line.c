#include "kq/log_line.h"

#include <stdarg.h>
#include <stdio.h>
#include <sys/time.h>
#include <time.h>

void log_line(const char *fmt, ...)
{
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
