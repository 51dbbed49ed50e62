/* kq-load --consume: consumer throughput (issue 19's fetch figures). One
 * librdkafka consumer assigned to one partition from its first offset reads
 * until --records records or --seconds have passed, and reports records/s
 * and MB/s of record values and keys over the time from the first record to
 * the last one. */
#ifndef KL_CONSUME_H
#define KL_CONSUME_H

#include <stdio.h>

#include "options.h"

/* Runs the consumer and prints the figures (JSON with --json). Returns the
 * exit status: 0 when the records wanted were read (or --seconds passed
 * with at least one record), 1 otherwise (reason on stderr). */
int kl_consume(const struct kl_options *o, FILE *out);

#endif
