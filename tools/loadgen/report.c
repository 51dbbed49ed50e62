/* kq-load: text and JSON reports (see report.h). */
#include "report.h"

#include <sys/resource.h>

#define KL_BYTES_PER_MB (1024.0 * 1024.0)

uint64_t kl_cpu_used_ns(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    uint64_t us = (uint64_t)ru.ru_utime.tv_sec * 1000000u + (uint64_t)ru.ru_utime.tv_usec +
                  (uint64_t)ru.ru_stime.tv_sec * 1000000u + (uint64_t)ru.ru_stime.tv_usec;
    return us * 1000u;
}

static double ms_at(const struct kl_hist *h, double percentile)
{
    return (double)kl_hist_percentile_us(h, percentile) / 1000.0;
}

static void final_text(FILE *out, const struct kl_options *o, const struct kl_stats *s,
                       const struct kl_summary *sum, double rps, double mbps)
{
    const struct kl_hist *h = &s->latency;
    fprintf(out,
            "%llu records sent, %llu acked, %llu failed in %.3f s: %.1f records/s "
            "(%.2f MB/s payload), %d connection(s), %zu B records, acks=%d\n",
            (unsigned long long)s->measured.sent, (unsigned long long)s->measured.acked,
            (unsigned long long)s->measured.failed, sum->elapsed_s, rps, mbps, o->connections,
            o->record_bytes, o->acks);
    fprintf(out,
            "latency ms: avg %.3f p50 %.3f p99 %.3f p99.9 %.3f max %.3f; "
            "kq-load CPU %.0f%% of one core\n",
            kl_hist_mean_us(h) / 1000.0, ms_at(h, 50), ms_at(h, 99), ms_at(h, 99.9),
            (double)h->max_us / 1000.0, sum->cpu_pct);
    if (s->warmup.sent)
        fprintf(out, "warm-up (excluded): %llu sent, %llu acked, %llu failed\n",
                (unsigned long long)s->warmup.sent, (unsigned long long)s->warmup.acked,
                (unsigned long long)s->warmup.failed);
}

static void final_json(FILE *out, const struct kl_options *o, const struct kl_stats *s,
                       const struct kl_summary *sum, double rps, double mbps)
{
    const struct kl_hist *h = &s->latency;
    fprintf(out,
            "{\"records_wanted\":%llu,\"records_sent\":%llu,\"records_acked\":%llu,"
            "\"records_failed\":%llu,\"elapsed_s\":%.6f,\"records_per_s\":%.1f,"
            "\"mb_per_s\":%.3f,\"record_size_bytes\":%zu,\"key_size_bytes\":%zu,"
            "\"connections\":%d,\"acks\":%d,\"idempotent\":%s,",
            (unsigned long long)sum->wanted, (unsigned long long)s->measured.sent,
            (unsigned long long)s->measured.acked, (unsigned long long)s->measured.failed,
            sum->elapsed_s, rps, mbps, o->record_bytes, o->key_bytes, o->connections, o->acks,
            o->idempotent ? "true" : "false");
    fprintf(out,
            "\"latency_avg_ms\":%.3f,\"latency_p50_ms\":%.3f,\"latency_p99_ms\":%.3f,"
            "\"latency_p999_ms\":%.3f,\"latency_max_ms\":%.3f,\"cpu_pct\":%.1f,"
            "\"warmup_sent\":%llu,\"warmup_acked\":%llu,\"warmup_failed\":%llu}\n",
            kl_hist_mean_us(h) / 1000.0, ms_at(h, 50), ms_at(h, 99), ms_at(h, 99.9),
            (double)h->max_us / 1000.0, sum->cpu_pct, (unsigned long long)s->warmup.sent,
            (unsigned long long)s->warmup.acked, (unsigned long long)s->warmup.failed);
}

void kl_report_final(FILE *out, const struct kl_options *o, const struct kl_stats *s,
                     const struct kl_summary *sum)
{
    double secs = sum->elapsed_s > 0 ? sum->elapsed_s : 1e-9;
    double rps = (double)s->measured.acked / secs;
    double mbps = rps * (double)o->record_bytes / KL_BYTES_PER_MB;
    if (o->json)
        final_json(out, o, s, sum, rps, mbps);
    else
        final_text(out, o, s, sum, rps, mbps);
    fflush(out);
}

void kl_report_progress(FILE *out, const struct kl_options *o, const struct kl_stats *s,
                        double interval_s, double cpu_pct)
{
    const struct kl_hist *h = &s->interval_latency;
    double rps = interval_s > 0 ? (double)s->interval.acked / interval_s : 0;
    fprintf(out,
            "progress: %llu sent, %llu acked, %llu failed (total acked %llu): %.1f records/s "
            "(%.2f MB/s), latency ms p50 %.3f p99 %.3f p99.9 %.3f max %.3f, CPU %.0f%%\n",
            (unsigned long long)s->interval.sent, (unsigned long long)s->interval.acked,
            (unsigned long long)s->interval.failed, (unsigned long long)s->measured.acked, rps,
            rps * (double)o->record_bytes / KL_BYTES_PER_MB, ms_at(h, 50), ms_at(h, 99),
            ms_at(h, 99.9), (double)h->max_us / 1000.0, cpu_pct);
    fflush(out);
}
