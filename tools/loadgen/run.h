/* kq-load: the driver. One thread feeds every producer instance round-robin
 * (at the paced rate, or as fast as their queues take records, polling and
 * retrying on RD_KAFKA_RESP_ERR__QUEUE_FULL) and serves their delivery
 * reports: the optional warm-up phase, a drain, then the measured phase and
 * a final drain. librdkafka's own threads do the network I/O. */
#ifndef KL_RUN_H
#define KL_RUN_H

#include "options.h"
#include "report.h"
#include "stats.h"

/* Fills stats and sum. Returns 0, or -1 when the producers could not be set
 * up (nothing to report) or a produce() call failed outright (sum filled). */
int kl_run(const struct kl_options *o, struct kl_stats *stats, struct kl_summary *sum,
           int *reportable);

#endif
