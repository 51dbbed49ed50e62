/* kq-load: the figures (final summary and --progress lines) as text or one
 * JSON object, including the tool's own CPU use so that a reader can tell
 * whether the client was the limit. */
#ifndef KL_REPORT_H
#define KL_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "options.h"
#include "stats.h"

/* User + system CPU time of the whole process (all threads), in ns. */
uint64_t kl_cpu_used_ns(void);

struct kl_summary {
    uint64_t wanted;            /* records asked for (sent, with --seconds) */
    double elapsed_s;           /* measure start to the last acknowledgement */
    double cpu_pct;             /* CPU time / wall time, % of one core */
};

void kl_report_final(FILE *out, const struct kl_options *o, const struct kl_stats *s,
                     const struct kl_summary *sum);
/* One progress line for the interval of interval_s seconds ending now. */
void kl_report_progress(FILE *out, const struct kl_options *o, const struct kl_stats *s,
                        double interval_s, double cpu_pct);

#endif
