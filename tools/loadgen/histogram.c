/* kq-load: log-linear latency histogram (see histogram.h). */
#include "histogram.h"

#include <math.h>
#include <string.h>

#define KL_HIST_RATIO 1.01

/* Lowest value of each log bucket, computed once: recording then costs a
 * binary search instead of a log() and pow() per value. */
static uint64_t log_low_us[KL_HIST_LOG_BUCKETS];

static void init_log_table(void)
{
    if (log_low_us[0] != 0)
        return;
    for (unsigned k = 0; k < KL_HIST_LOG_BUCKETS; k++)
        log_low_us[k] = (uint64_t)ceil((double)KL_HIST_LINEAR_US * pow(KL_HIST_RATIO, k));
}

unsigned kl_hist_bucket_of(uint64_t value_us)
{
    if (value_us < KL_HIST_LINEAR_US)
        return (unsigned)value_us;
    init_log_table();
    unsigned lo = 0, hi = KL_HIST_LOG_BUCKETS - 1; /* log_low_us[lo] <= value */
    while (lo < hi) {
        unsigned mid = (lo + hi + 1) / 2;
        if (log_low_us[mid] <= value_us)
            lo = mid;
        else
            hi = mid - 1;
    }
    return KL_HIST_LINEAR_US + lo;
}

uint64_t kl_hist_bucket_high_us(unsigned bucket)
{
    if (bucket < KL_HIST_LINEAR_US)
        return bucket;
    unsigned k = bucket - KL_HIST_LINEAR_US;
    if (k >= KL_HIST_LOG_BUCKETS - 1)
        return UINT64_MAX;
    init_log_table();
    return log_low_us[k + 1] - 1;
}

void kl_hist_reset(struct kl_hist *h)
{
    memset(h, 0, sizeof(*h));
    h->min_us = UINT64_MAX;
    init_log_table();
}

void kl_hist_merge(struct kl_hist *dst, const struct kl_hist *src)
{
    for (unsigned i = 0; i < KL_HIST_BUCKETS; i++)
        dst->counts[i] += src->counts[i];
    dst->total_count += src->total_count;
    dst->sum_us += src->sum_us;
    if (src->min_us < dst->min_us)
        dst->min_us = src->min_us;
    if (src->max_us > dst->max_us)
        dst->max_us = src->max_us;
}

void kl_hist_record_us(struct kl_hist *h, uint64_t value_us)
{
    h->counts[kl_hist_bucket_of(value_us)]++;
    h->total_count++;
    h->sum_us += value_us;
    if (value_us < h->min_us)
        h->min_us = value_us;
    if (value_us > h->max_us)
        h->max_us = value_us;
}

uint64_t kl_hist_percentile_us(const struct kl_hist *h, double percentile)
{
    if (h->total_count == 0)
        return 0;
    /* The small slack keeps e.g. 99.9% of 1000 at rank 999 despite rounding. */
    double want = ceil(percentile * (double)h->total_count / 100.0 - 1e-9);
    uint64_t rank = want < 1.0 ? 1 : (uint64_t)want;
    if (rank > h->total_count)
        rank = h->total_count;
    uint64_t seen = 0;
    unsigned b = 0;
    for (; b < KL_HIST_BUCKETS; b++) {
        seen += h->counts[b];
        if (seen >= rank)
            break;
    }
    uint64_t v = kl_hist_bucket_high_us(b);
    if (v > h->max_us)
        v = h->max_us;
    if (v < h->min_us)
        v = h->min_us;
    return v;
}

double kl_hist_mean_us(const struct kl_hist *h)
{
    return h->total_count ? (double)h->sum_us / (double)h->total_count : 0.0;
}
