/* kq-load: command-line options (parsing, defaults, validation). */
#ifndef KL_OPTIONS_H
#define KL_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define KL_MAX_EXTRA_PROPS 64
#define KL_THREADS_MAX 64 /* --threads: driver threads, each with its producers */

struct kl_options {
    const char *bootstrap;
    const char *topic;
    int32_t partition;
    uint64_t records;        /* 0 when --seconds is used */
    double seconds;          /* 0 when --records is used */
    size_t record_bytes;
    double rate_per_s;       /* < 0: unlimited */
    int connections;         /* producer instances, over all threads */
    int threads;             /* driver threads sharing them (1 default) */
    uint64_t first_seq;      /* a thread's first value sequence number */
    int acks;                /* -1, 0 or 1 */
    bool idempotent;
    size_t key_bytes;
    const char *compression; /* NULL: librdkafka's default */
    int linger_ms;           /* < 0: librdkafka's default */
    int batch_bytes;         /* < 0: librdkafka's default */
    double warmup_seconds;
    const char *extra_props[KL_MAX_EXTRA_PROPS]; /* "key=value" (-X) */
    int extra_count;
    bool json;
    bool progress;
    bool consume;            /* --consume: read the partition instead (consume.c) */
    const char *ack_log;     /* --ack-log FILE: one line per acknowledged record */
};

/* Returns 0 on success, 1 when --help was printed, -1 on a usage error
 * (already reported on stderr). */
int kl_options_parse(int argc, char **argv, struct kl_options *o);
void kl_options_usage(FILE *out);

#endif
