/* Metric primitives and their Prometheus text exposition (format 0.0.4),
 * pure: no I/O, no clock, no allocation; every time is passed in.
 *  - kq_histogram: fixed upper bounds, Prometheus's cumulative buckets on
 *    output (_bucket{le=...}, _sum, _count);
 *  - kq_window: Kafka's sampled stat (metrics.num.samples samples of
 *    metrics.sample.window.ms each) giving a rate, an average and a max
 *    over the last samples (docs/metrics.md states the rules);
 *  - kq_mtext: writing families and samples into a bounded buffer, label
 *    values and help text escaped as the format asks.
 * Counters and gauges are plain integers or doubles of their owner. */
#ifndef KQ_METRICS_H
#define KQ_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kq/limits.h"

/* ---- histograms */

typedef struct kq_histogram {
    const double *bounds; /* ascending upper bounds, borrowed (static) */
    int bound_count;      /* at most KQ_METRICS_BUCKETS_MAX */
    uint64_t counts[KQ_METRICS_BUCKETS_MAX + 1]; /* per bucket; last: above every bound */
    double sum;
    uint64_t count;
} kq_histogram;

/* bounds must be ascending; bound_count is clamped to the maximum. */
void kq_histogram_init(kq_histogram *h, const double *bounds, int bound_count);
/* A NaN is not counted. */
void kq_histogram_observe(kq_histogram *h, double value);
/* Cumulative count of observations <= bounds[i] (i == bound_count: all). */
uint64_t kq_histogram_cumulative(const kq_histogram *h, int i);

/* Bounds shared by the server's histograms. */
extern const double kq_metrics_latency_bounds_s[];  /* 50 us .. 10 s */
extern const int kq_metrics_latency_bound_count;
extern const double kq_metrics_size_bounds_bytes[]; /* 512 B .. 64 MiB */
extern const int kq_metrics_size_bound_count;

/* ---- windowed rate / average / max */

typedef struct kq_window_sample {
    int64_t start_ms;
    uint64_t count;
    double sum;
    double max;
} kq_window_sample;

typedef struct kq_window {
    kq_window_sample samples[KQ_METRICS_WINDOW_SAMPLES];
    int current;
    int64_t window_ms;
} kq_window;

void kq_window_init(kq_window *w, int64_t window_ms, int64_t now_ms);
void kq_window_record(kq_window *w, double value, int64_t now_ms);
/* Sum of the values recorded in the live samples per second of the time
 * they span (at least (samples - 1) windows, as Kafka's Rate). */
double kq_window_rate_per_s(const kq_window *w, int64_t now_ms);
/* Over the live samples; NaN when nothing was recorded in them. */
double kq_window_avg(const kq_window *w, int64_t now_ms);
double kq_window_max(const kq_window *w, int64_t now_ms);

/* ---- text exposition */

typedef struct kq_mtext {
    char *buf;
    size_t cap;
    size_t len;        /* bytes written, always < cap (NUL-terminated) */
    bool truncated;    /* something did not fit: the body is incomplete */
} kq_mtext;

typedef struct kq_mlabel {
    const char *name;  /* [a-zA-Z_][a-zA-Z0-9_]*, not escaped */
    const char *value; /* any bytes; escaped on output */
} kq_mlabel;

void kq_mtext_init(kq_mtext *t, char *buf, size_t cap);
/* "# HELP name help" (help escaped) and "# TYPE name type". */
void kq_mtext_family(kq_mtext *t, const char *name, const char *type, const char *help);
/* "name{labels} value": NaN, +Inf and -Inf spelled as the format does;
 * integral values below 2^53 without an exponent. */
void kq_mtext_sample(kq_mtext *t, const char *name, const kq_mlabel *labels, int label_count,
                     double value);
/* name_bucket{labels,le=...} (cumulative, +Inf last), name_sum, name_count. */
void kq_mtext_histogram(kq_mtext *t, const char *name, const kq_mlabel *labels, int label_count,
                        const kq_histogram *h);
/* The escaped form of a label value (\\, \", \n) into out; false (and a
 * cut, terminated form) when it does not fit. */
bool kq_mtext_escape_label(const char *value, char *out, size_t cap);

#endif
