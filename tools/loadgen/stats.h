/* kq-load: what was sent and acknowledged, per phase (warm-up or measured),
 * with the latency histograms of the measured phase (the whole phase and
 * the current progress interval). A record belongs to the measured phase
 * when it was produced at or after measure_start_ns. Single-threaded: only
 * the driver thread (in produce() and in the delivery reports served by
 * rd_kafka_poll()) touches it. */
#ifndef KL_STATS_H
#define KL_STATS_H

#include <stdint.h>

#include "histogram.h"

#define KL_MAX_SHOWN_ERRORS 5

struct kl_counts {
    uint64_t sent;
    uint64_t acked;
    uint64_t failed;
};

struct kl_stats {
    uint64_t measure_start_ns;   /* UINT64_MAX while warming up */
    struct kl_counts warmup;
    struct kl_counts measured;
    struct kl_counts interval;   /* measured, since the last progress line */
    uint64_t last_delivery_ns;   /* of a measured record */
    unsigned errors_shown;
    struct kl_hist latency;      /* measured phase, produce() to report */
    struct kl_hist interval_latency;
};

void kl_stats_init(struct kl_stats *s);
void kl_stats_begin_measuring(struct kl_stats *s, uint64_t now_ns);
void kl_stats_on_sent(struct kl_stats *s, uint64_t sent_ns);
/* err == 0: acknowledged; otherwise failed, and the first few errors are
 * printed on stderr with errstr. */
void kl_stats_on_delivery(struct kl_stats *s, uint64_t sent_ns, uint64_t now_ns, int err,
                          const char *errstr);
void kl_stats_reset_interval(struct kl_stats *s);
/* Adds src (another thread's stats) into dst. */
void kl_stats_merge(struct kl_stats *dst, const struct kl_stats *src);

#endif
