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

#endif
