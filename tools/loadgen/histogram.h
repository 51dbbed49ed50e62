/* kq-load: a fixed-size log-linear latency histogram (HdrHistogram-style).
 * Values are microseconds: 1 us buckets below 1 ms, then buckets 1% wide
 * (relative) up to 60 s; larger values land in the last bucket, while the
 * exact minimum and maximum are kept. Memory is fixed (about 17 KB). */
#ifndef KL_HISTOGRAM_H
#define KL_HISTOGRAM_H

#include <stdint.h>

#define KL_HIST_LINEAR_US 1000u        /* 1 us buckets for [0, 1000) us */
#define KL_HIST_MAX_US 60000000u       /* log buckets reach 60 s */
#define KL_HIST_LOG_BUCKETS 1107u      /* ceil(ln(60000) / ln(1.01)) + 1 */
#define KL_HIST_BUCKETS (KL_HIST_LINEAR_US + KL_HIST_LOG_BUCKETS)

struct kl_hist {
    uint64_t counts[KL_HIST_BUCKETS];
    uint64_t total_count;
    uint64_t sum_us;
    uint64_t min_us;
    uint64_t max_us;
};

void kl_hist_reset(struct kl_hist *h);
/* Adds src's values into dst. */
void kl_hist_merge(struct kl_hist *dst, const struct kl_hist *src);
void kl_hist_record_us(struct kl_hist *h, uint64_t value_us);
/* The value at percentile (0..100]: the highest value of the bucket holding
 * that rank, clamped to [min, max]; 0 when the histogram is empty. */
uint64_t kl_hist_percentile_us(const struct kl_hist *h, double percentile);
double kl_hist_mean_us(const struct kl_hist *h);
/* Bucket index of a value and the highest value that bucket holds. */
unsigned kl_hist_bucket_of(uint64_t value_us);
uint64_t kl_hist_bucket_high_us(unsigned bucket);

#endif
