/* kq-load: --threads T, T drivers (run.h) side by side, each on its own
 * thread with its share of the connections, records and rate, and its own
 * stats; their figures are merged into one report. */
#ifndef KL_THREADS_H
#define KL_THREADS_H

#include "options.h"
#include "report.h"
#include "stats.h"

/* As kl_run, over o->threads threads (kl_run itself when 1). */
int kl_run_threads(const struct kl_options *o, struct kl_stats *stats, struct kl_summary *sum,
                   int *reportable);

#endif
