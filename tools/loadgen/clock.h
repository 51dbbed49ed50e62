/* kq-load: the monotonic clock every timestamp of the tool comes from. */
#ifndef KL_CLOCK_H
#define KL_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t kl_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Sleeps for duration_ns (no-op when 0). */
static inline void kl_sleep_ns(uint64_t duration_ns)
{
    if (duration_ns == 0)
        return;
    struct timespec ts = {(time_t)(duration_ns / 1000000000ull),
                          (long)(duration_ns % 1000000000ull)};
    nanosleep(&ts, NULL);
}

#endif
