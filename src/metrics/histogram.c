/* Fixed-bucket histograms (kq/metrics.h) and the bounds the server uses. */
#include <math.h>

#include "kq/metrics.h"

const double kq_metrics_latency_bounds_s[] = {
    0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
    0.025,   0.05,   0.1,     0.25,   0.5,   1.0,    2.5,   5.0,  10.0,
};
const int kq_metrics_latency_bound_count =
    (int)(sizeof kq_metrics_latency_bounds_s / sizeof kq_metrics_latency_bounds_s[0]);

const double kq_metrics_size_bounds_bytes[] = {
    512.0,       1024.0,      4096.0,       16384.0,      65536.0,
    262144.0,    1048576.0,   4194304.0,    16777216.0,   67108864.0,
};
const int kq_metrics_size_bound_count =
    (int)(sizeof kq_metrics_size_bounds_bytes / sizeof kq_metrics_size_bounds_bytes[0]);

_Static_assert(sizeof kq_metrics_latency_bounds_s / sizeof(double) <= KQ_METRICS_BUCKETS_MAX,
               "the latency bounds fit a histogram");
_Static_assert(sizeof kq_metrics_size_bounds_bytes / sizeof(double) <= KQ_METRICS_BUCKETS_MAX,
               "the size bounds fit a histogram");

void kq_histogram_init(kq_histogram *h, const double *bounds, int bound_count)
{
    *h = (kq_histogram){.bounds = bounds};
    if (bound_count < 0)
        bound_count = 0;
    h->bound_count = bound_count > KQ_METRICS_BUCKETS_MAX ? KQ_METRICS_BUCKETS_MAX : bound_count;
}

/* Binary search: the first bound >= value (bound_count when none). */
static int bucket_of(const kq_histogram *h, double value)
{
    int lo = 0, hi = h->bound_count;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (value <= h->bounds[mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

void kq_histogram_observe(kq_histogram *h, double value)
{
    if (isnan(value))
        return;
    h->counts[bucket_of(h, value)]++;
    h->sum += value;
    h->count++;
}

uint64_t kq_histogram_cumulative(const kq_histogram *h, int i)
{
    if (i > h->bound_count)
        i = h->bound_count;
    uint64_t total = 0;
    for (int b = 0; b <= i; b++)
        total += h->counts[b];
    return total;
}
