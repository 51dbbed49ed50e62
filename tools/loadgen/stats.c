/* kq-load: per-phase counters and latency histograms (see stats.h). */
#include "stats.h"

#include <stdio.h>
#include <string.h>

void kl_stats_init(struct kl_stats *s)
{
    memset(s, 0, sizeof(*s));
    s->measure_start_ns = UINT64_MAX;
    kl_hist_reset(&s->latency);
    kl_hist_reset(&s->interval_latency);
}

void kl_stats_begin_measuring(struct kl_stats *s, uint64_t now_ns)
{
    s->measure_start_ns = now_ns;
    s->last_delivery_ns = now_ns;
    kl_stats_reset_interval(s);
}

void kl_stats_on_sent(struct kl_stats *s, uint64_t sent_ns)
{
    if (sent_ns >= s->measure_start_ns) {
        s->measured.sent++;
        s->interval.sent++;
    } else {
        s->warmup.sent++;
    }
}

void kl_stats_on_delivery(struct kl_stats *s, uint64_t sent_ns, uint64_t now_ns, int err,
                          const char *errstr)
{
    int measured = sent_ns >= s->measure_start_ns;
    if (err) {
        if (s->errors_shown < KL_MAX_SHOWN_ERRORS) {
            fprintf(stderr, "kq-load: delivery failed%s: %s\n", measured ? "" : " (warm-up)",
                    errstr);
            if (++s->errors_shown == KL_MAX_SHOWN_ERRORS)
                fputs("kq-load: (further delivery errors are only counted)\n", stderr);
        }
        if (measured) {
            s->measured.failed++;
            s->interval.failed++;
        } else {
            s->warmup.failed++;
        }
        return;
    }
    if (!measured) {
        s->warmup.acked++;
        return;
    }
    uint64_t latency_us = now_ns > sent_ns ? (now_ns - sent_ns) / 1000u : 0;
    s->measured.acked++;
    s->interval.acked++;
    s->last_delivery_ns = now_ns;
    kl_hist_record_us(&s->latency, latency_us);
    kl_hist_record_us(&s->interval_latency, latency_us);
}

void kl_stats_reset_interval(struct kl_stats *s)
{
    memset(&s->interval, 0, sizeof(s->interval));
    kl_hist_reset(&s->interval_latency);
}

static void add_counts(struct kl_counts *dst, const struct kl_counts *src)
{
    dst->sent += src->sent;
    dst->acked += src->acked;
    dst->failed += src->failed;
}

void kl_stats_merge(struct kl_stats *dst, const struct kl_stats *src)
{
    if (src->measure_start_ns < dst->measure_start_ns)
        dst->measure_start_ns = src->measure_start_ns;
    add_counts(&dst->warmup, &src->warmup);
    add_counts(&dst->measured, &src->measured);
    add_counts(&dst->interval, &src->interval);
    if (src->last_delivery_ns > dst->last_delivery_ns)
        dst->last_delivery_ns = src->last_delivery_ns;
    dst->errors_shown += src->errors_shown;
    kl_hist_merge(&dst->latency, &src->latency);
    kl_hist_merge(&dst->interval_latency, &src->interval_latency);
}
