/* kq-load: command-line parsing (see options.h and kl_options_usage). */
#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

enum {
    OPT_BOOTSTRAP = 256, OPT_TOPIC, OPT_PARTITION, OPT_RECORDS, OPT_SECONDS,
    OPT_RECORD_SIZE, OPT_RATE, OPT_CONNECTIONS, OPT_THREADS, OPT_ACKS, OPT_IDEMPOTENT,
    OPT_KEY_SIZE, OPT_COMPRESSION, OPT_LINGER, OPT_BATCH, OPT_WARMUP, OPT_JSON,
    OPT_PROGRESS, OPT_CONSUME, OPT_ACK_LOG, OPT_HELP
};

static const struct option long_opts[] = {
    {"bootstrap", required_argument, NULL, OPT_BOOTSTRAP},
    {"topic", required_argument, NULL, OPT_TOPIC},
    {"partition", required_argument, NULL, OPT_PARTITION},
    {"records", required_argument, NULL, OPT_RECORDS},
    {"seconds", required_argument, NULL, OPT_SECONDS},
    {"record-size", required_argument, NULL, OPT_RECORD_SIZE},
    {"rate", required_argument, NULL, OPT_RATE},
    {"connections", required_argument, NULL, OPT_CONNECTIONS},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"acks", required_argument, NULL, OPT_ACKS},
    {"idempotent", no_argument, NULL, OPT_IDEMPOTENT},
    {"key-size", required_argument, NULL, OPT_KEY_SIZE},
    {"compression", required_argument, NULL, OPT_COMPRESSION},
    {"linger-ms", required_argument, NULL, OPT_LINGER},
    {"batch-size", required_argument, NULL, OPT_BATCH},
    {"warmup-seconds", required_argument, NULL, OPT_WARMUP},
    {"json", no_argument, NULL, OPT_JSON},
    {"progress", no_argument, NULL, OPT_PROGRESS},
    {"consume", no_argument, NULL, OPT_CONSUME},
    {"ack-log", required_argument, NULL, OPT_ACK_LOG},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

void kl_options_usage(FILE *out)
{
    fputs("usage: kq-load --bootstrap HOST:PORT[,...] [--topic __cluster_metadata]\n"
          "         [--partition 0] [--records N | --seconds S] [--record-size BYTES]\n"
          "         [--rate RECORDS_PER_S|-1] [--connections C] [--threads T]\n"
          "         [--acks -1|1|0]\n"
          "         [--idempotent] [--key-size BYTES]\n"
          "         [--compression none|gzip|snappy|lz4|zstd] [--linger-ms MS]\n"
          "         [--batch-size BYTES] [--warmup-seconds S] [-X key=value ...]\n"
          "         [--progress] [--json] [--ack-log FILE]\n"
          "       kq-load --consume --bootstrap HOST:PORT [--topic T] [--partition P]\n"
          "         [--records N | --seconds S] [-X key=value ...] [--json]\n"
          "Defaults: --records 100000 --record-size 100 --rate -1 --connections 1\n"
          "--acks -1 --threads 1; other producer settings are librdkafka's defaults.\n"
          "--threads T splits the connections (at least T), the records and the\n"
          "rate over T driver threads; figures are for all of them together.\n"
          "--consume reads the partition from its first offset with one librdkafka\n"
          "consumer (assigned, no group) until N records or S seconds have been read.\n"
          "--ack-log FILE writes \"<CLOCK_MONOTONIC us> <offset>\" per acknowledged\n"
          "record, at its delivery report (needs --threads 1).\n",
          out);
}

static int parse_num(const char *name, const char *s, double lo, double hi, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end != '\0' || v < lo || v > hi) {
        fprintf(stderr, "kq-load: --%s: bad value '%s'\n", name, s);
        return -1;
    }
    *out = v;
    return 0;
}

static void set_defaults(struct kl_options *o)
{
    memset(o, 0, sizeof(*o));
    o->topic = "__cluster_metadata";
    o->record_bytes = 100;
    o->rate_per_s = -1;
    o->connections = 1;
    o->threads = 1;
    o->acks = -1;
    o->linger_ms = -1;
    o->batch_bytes = -1;
}

static int validate(struct kl_options *o, bool records_given)
{
    if (!o->bootstrap) {
        fputs("kq-load: --bootstrap is required\n", stderr);
        return -1;
    }
    if (records_given && o->seconds > 0) {
        fputs("kq-load: give --records or --seconds, not both\n", stderr);
        return -1;
    }
    if (!records_given && o->seconds <= 0)
        o->records = 100000;
    if (o->rate_per_s == 0) {
        fputs("kq-load: --rate must be positive or -1 (unlimited)\n", stderr);
        return -1;
    }
    if (o->rate_per_s < 0)
        o->rate_per_s = -1;
    if (o->threads > o->connections)
        o->connections = o->threads; /* every thread drives at least one */
    if (o->threads > 1 && o->ack_log) {
        fputs("kq-load: --ack-log needs --threads 1\n", stderr);
        return -1;
    }
    if (o->threads > 1 && o->progress) {
        fputs("kq-load: --progress needs --threads 1\n", stderr);
        return -1;
    }
    return 0;
}

/* Applies one option; returns 0, or -1 on a bad value. */
static int apply(struct kl_options *o, int c, const char *arg, bool *records_given)
{
    double v = 0;
    switch (c) {
    case OPT_BOOTSTRAP: o->bootstrap = arg; return 0;
    case OPT_TOPIC: o->topic = arg; return 0;
    case OPT_COMPRESSION: o->compression = arg; return 0;
    case OPT_IDEMPOTENT: o->idempotent = true; return 0;
    case OPT_JSON: o->json = true; return 0;
    case OPT_PROGRESS: o->progress = true; return 0;
    case OPT_CONSUME: o->consume = true; return 0;
    case OPT_ACK_LOG: o->ack_log = arg; return 0;
    case 'X':
        if (o->extra_count == KL_MAX_EXTRA_PROPS || !strchr(arg, '=')) {
            fprintf(stderr, "kq-load: -X %s: expected key=value (at most %d)\n", arg,
                    KL_MAX_EXTRA_PROPS);
            return -1;
        }
        o->extra_props[o->extra_count++] = arg;
        return 0;
    default: break;
    }
    const char *name = NULL;
    for (const struct option *lo = long_opts; lo->name; lo++)
        if (lo->val == c)
            name = lo->name;
    switch (c) {
    case OPT_PARTITION: if (parse_num(name, arg, 0, INT32_MAX, &v)) return -1; o->partition = (int32_t)v; break;
    case OPT_RECORDS: if (parse_num(name, arg, 1, 1e15, &v)) return -1; o->records = (uint64_t)v; *records_given = true; break;
    case OPT_SECONDS: if (parse_num(name, arg, 0.001, 1e7, &v)) return -1; o->seconds = v; break;
    case OPT_RECORD_SIZE: if (parse_num(name, arg, 0, 1e9, &v)) return -1; o->record_bytes = (size_t)v; break;
    case OPT_RATE: if (parse_num(name, arg, -1, 1e12, &v)) return -1; o->rate_per_s = v; break;
    case OPT_CONNECTIONS: if (parse_num(name, arg, 1, 1024, &v)) return -1; o->connections = (int)v; break;
    case OPT_THREADS: if (parse_num(name, arg, 1, KL_THREADS_MAX, &v)) return -1; o->threads = (int)v; break;
    case OPT_ACKS: if (parse_num(name, arg, -1, 1, &v)) return -1; o->acks = (int)v; break;
    case OPT_KEY_SIZE: if (parse_num(name, arg, 0, 1e6, &v)) return -1; o->key_bytes = (size_t)v; break;
    case OPT_LINGER: if (parse_num(name, arg, 0, 9e5, &v)) return -1; o->linger_ms = (int)v; break;
    case OPT_BATCH: if (parse_num(name, arg, 1, 2e9, &v)) return -1; o->batch_bytes = (int)v; break;
    case OPT_WARMUP: if (parse_num(name, arg, 0, 1e6, &v)) return -1; o->warmup_seconds = v; break;
    default: return -1;
    }
    return 0;
}

int kl_options_parse(int argc, char **argv, struct kl_options *o)
{
    set_defaults(o);
    bool records_given = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "X:h", long_opts, NULL)) != -1) {
        if (c == 'h' || c == OPT_HELP) {
            kl_options_usage(stdout);
            return 1;
        }
        if (c == '?' || apply(o, c, optarg, &records_given) != 0) {
            kl_options_usage(stderr);
            return -1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "kq-load: unexpected argument '%s'\n", argv[optind]);
        return -1;
    }
    return validate(o, records_given);
}
