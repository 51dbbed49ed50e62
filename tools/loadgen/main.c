/* kq-load: a native Kafka load generator on librdkafka (issue 10).
 * Produces fixed-size records to one partition through --connections
 * producer instances, at a fixed or unlimited rate, and reports throughput,
 * produce()-to-delivery-report latency percentiles and its own CPU use.
 * Exit status 0 only when every record was acknowledged (acks != 0) or at
 * least none failed (acks == 0). --consume measures reading instead
 * (consume.c). */
#include <stdio.h>
#include <stdlib.h>

#include "consume.h"
#include "options.h"
#include "report.h"
#include "stats.h"
#include "threads.h"

/* Exit status for the figures: 0, or 1 with the reason on stderr. */
static int verdict(const struct kl_options *o, const struct kl_stats *s,
                   const struct kl_summary *sum)
{
    uint64_t failed = s->measured.failed + s->warmup.failed;
    if (failed > 0) {
        fprintf(stderr, "kq-load: %llu record(s) failed\n", (unsigned long long)failed);
        return 1;
    }
    if (o->acks != 0 && s->measured.acked < sum->wanted) {
        fprintf(stderr, "kq-load: only %llu of %llu records acknowledged\n",
                (unsigned long long)s->measured.acked, (unsigned long long)sum->wanted);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct kl_options o;
    int prc = kl_options_parse(argc, argv, &o);
    if (prc != 0)
        return prc > 0 ? 0 : 2;
    if (o.consume)
        return kl_consume(&o, stdout);
    struct kl_stats *stats = malloc(sizeof(*stats));
    if (!stats) {
        fputs("kq-load: out of memory\n", stderr);
        return 1;
    }
    kl_stats_init(stats);
    struct kl_summary sum = {0};
    int reportable = 0;
    int rc = kl_run_threads(&o, stats, &sum, &reportable);
    int status = 1;
    if (reportable) {
        kl_report_final(stdout, &o, stats, &sum);
        status = verdict(&o, stats, &sum);
        if (rc != 0)
            status = 1;
    }
    free(stats);
    return status;
}
