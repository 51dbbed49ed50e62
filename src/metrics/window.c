/* Kafka's sampled stats (org.apache.kafka.common.metrics.stats.SampledStat
 * semantics, written anew): KQ_METRICS_WINDOW_SAMPLES samples, each covering
 * window_ms from its start. Recording into a sample older than window_ms
 * moves to the next sample (reset); a sample whose start is older than
 * samples * window_ms is no longer counted. The rate divides the live
 * samples' sum by the time from the oldest live sample's start to now, but
 * by no less than (samples - 1) windows, as Kafka's Rate does, so that a
 * fresh window does not report a burst as a huge rate. */
#include <math.h>

#include "kq/metrics.h"

void kq_window_init(kq_window *w, int64_t window_ms, int64_t now_ms)
{
    *w = (kq_window){.window_ms = window_ms > 0 ? window_ms : 1};
    for (int i = 0; i < KQ_METRICS_WINDOW_SAMPLES; i++)
        w->samples[i].start_ms = now_ms;
}

static void sample_reset(kq_window_sample *s, int64_t now_ms)
{
    *s = (kq_window_sample){.start_ms = now_ms};
}

void kq_window_record(kq_window *w, double value, int64_t now_ms)
{
    kq_window_sample *s = &w->samples[w->current];
    if (now_ms - s->start_ms >= w->window_ms) {
        w->current = (w->current + 1) % KQ_METRICS_WINDOW_SAMPLES;
        s = &w->samples[w->current];
        sample_reset(s, now_ms);
    }
    if (s->count == 0 || value > s->max)
        s->max = value;
    s->sum += value;
    s->count++;
}

static bool sample_live(const kq_window *w, const kq_window_sample *s, int64_t now_ms)
{
    return now_ms - s->start_ms < w->window_ms * KQ_METRICS_WINDOW_SAMPLES;
}

double kq_window_rate_per_s(const kq_window *w, int64_t now_ms)
{
    double sum = 0;
    int64_t oldest_ms = now_ms;
    for (int i = 0; i < KQ_METRICS_WINDOW_SAMPLES; i++) {
        const kq_window_sample *s = &w->samples[i];
        if (!sample_live(w, s, now_ms))
            continue;
        sum += s->sum;
        if (s->start_ms < oldest_ms)
            oldest_ms = s->start_ms;
    }
    int64_t elapsed_ms = now_ms - oldest_ms;
    int64_t floor_ms = w->window_ms * (KQ_METRICS_WINDOW_SAMPLES - 1);
    if (elapsed_ms < floor_ms)
        elapsed_ms = floor_ms;
    return sum / ((double)elapsed_ms / 1000.0);
}

double kq_window_avg(const kq_window *w, int64_t now_ms)
{
    double sum = 0;
    uint64_t count = 0;
    for (int i = 0; i < KQ_METRICS_WINDOW_SAMPLES; i++) {
        const kq_window_sample *s = &w->samples[i];
        if (sample_live(w, s, now_ms)) {
            sum += s->sum;
            count += s->count;
        }
    }
    return count ? sum / (double)count : NAN;
}

double kq_window_max(const kq_window *w, int64_t now_ms)
{
    double max = NAN;
    for (int i = 0; i < KQ_METRICS_WINDOW_SAMPLES; i++) {
        const kq_window_sample *s = &w->samples[i];
        if (sample_live(w, s, now_ms) && s->count > 0 && (isnan(max) || s->max > max))
            max = s->max;
    }
    return max;
}
