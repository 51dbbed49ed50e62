/* kq-wire-bench: nanoseconds per request of the hot wire codecs (issue 21
 * item 4: the figures before and after the table-driven codec). It uses only
 * the per-API entry points that both codecs provide: Produce and Fetch
 * request decode, Fetch response encode. Each case runs for --run-ms after a
 * warm-up, --runs times; the table shows the median with min and max.
 *   kq-wire-bench [--run-ms N] [--runs N] [--warmup-ms N] [substring]
 * Records are borrowed by the decoders, so their size barely matters there;
 * the Fetch response copies them into the answer as the daemon's
 * non-streamed path does. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kq/buf.h"
#include "kq/wire_fetch.h"
#include "kq/wire_produce.h"

#define PARTS_MAX 10
#define RUNS_MAX 15
#define PRODUCE_RECORDS_BYTES 4096
#define FETCH_RECORDS_BYTES 16384

typedef struct bench_case {
    const char *name;
    int16_t version;
    int partitions;
    int (*setup)(struct bench_case *c);
    uint64_t (*run)(struct bench_case *c); /* one request; returns a checksum */
    kq_writer in;                          /* encoded request (decode cases) */
    wire_fetch_response resp;              /* encode cases */
    kq_arena arena;
    kq_writer out;
} bench_case;

static uint8_t records_bytes[FETCH_RECORDS_BYTES];
static wire_produce_partition produce_parts[PARTS_MAX];
static wire_fetch_partition fetch_parts[PARTS_MAX];
static wire_fetch_partition_data fetch_data[PARTS_MAX];
static const kq_uuid topic_id = {{0x5a, 0x11, 0x3c, 0x42, 0x9e, 0x01, 0x47, 0x7d, 0x8b, 0x23,
                                  0xc4, 0x6e, 0x90, 0x12, 0xab, 0xcd}};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int setup_produce(bench_case *c)
{
    for (int i = 0; i < c->partitions; i++)
        produce_parts[i] = (wire_produce_partition){
            .index = i, .records = {records_bytes, PRODUCE_RECORDS_BYTES}};
    wire_produce_topic topic = {kq_slice_cstr("bench-topic"), produce_parts, c->partitions};
    wire_produce_request req = {.transactional_id = {NULL, -1}, .acks = -1,
                                .timeout_ms = 30000, .topics = &topic, .topic_count = 1};
    wire_produce_request_encode(&c->in, c->version, &req);
    return c->in.error ? -1 : 0;
}

static uint64_t run_produce(bench_case *c)
{
    kq_reader r;
    kq_reader_init(&r, c->in.data, c->in.len);
    kq_arena_reset(&c->arena);
    wire_produce_request req;
    if (wire_produce_request_decode(&r, c->version, &c->arena, &req) != 0)
        abort();
    return (uint64_t)req.topics[0].partitions[req.topics[0].partition_count - 1].records.len;
}

/* v17 follower fetch of __cluster_metadata-0, or a v13 consumer's. */
static int setup_fetch_request(bench_case *c)
{
    bool replica = c->version >= 15;
    for (int i = 0; i < c->partitions; i++) {
        fetch_parts[i] = (wire_fetch_partition){
            .partition = i, .current_leader_epoch = 7, .fetch_offset = 123456 + i,
            .last_fetched_epoch = 7, .log_start_offset = -1, .partition_max_bytes = 1048576};
        if (replica)
            fetch_parts[i].replica_directory_id = topic_id;
    }
    wire_fetch_topic topic = {.topic = {NULL, -1}, .partitions = fetch_parts,
                              .partition_count = c->partitions};
    topic.topic_id = replica ? WIRE_METADATA_TOPIC_ID : topic_id;
    wire_fetch_request req = {
        .cluster_id = replica ? kq_slice_cstr("MkU3OEVBNTcwNTJENDM2Qg") : (kq_slice){NULL, -1},
        .replica_id = replica ? 2 : -1, .replica_epoch = replica ? 5 : -1,
        .max_wait_ms = 500, .min_bytes = 1, .max_bytes = 52428800,
        .session_id = 0, .session_epoch = -1, .topics = &topic, .topic_count = 1,
        .rack_id = kq_slice_cstr("")};
    wire_fetch_request_encode(&c->in, c->version, &req);
    return c->in.error ? -1 : 0;
}

static uint64_t run_fetch_request(bench_case *c)
{
    kq_reader r;
    kq_reader_init(&r, c->in.data, c->in.len);
    kq_arena_reset(&c->arena);
    wire_fetch_request req;
    if (wire_fetch_request_decode(&r, c->version, &c->arena, &req) != 0)
        abort();
    return (uint64_t)req.topics[0].partitions[req.topics[0].partition_count - 1].fetch_offset;
}

static int setup_fetch_response(bench_case *c)
{
    static wire_fetch_topic_response topic;
    for (int i = 0; i < c->partitions; i++)
        fetch_data[i] = (wire_fetch_partition_data){
            .partition_index = i, .high_watermark = 1000000 + i, .last_stable_offset = 1000000 + i,
            .log_start_offset = 0, .aborted_transaction_count = -1, .preferred_read_replica = -1,
            .records = {records_bytes, FETCH_RECORDS_BYTES}};
    topic = (wire_fetch_topic_response){.topic = {NULL, -1}, .topic_id = topic_id,
                                        .partitions = fetch_data, .partition_count = c->partitions};
    c->resp = (wire_fetch_response){.responses = &topic, .response_count = 1};
    return 0;
}

static uint64_t run_fetch_response(bench_case *c)
{
    kq_writer_reset(&c->out);
    wire_fetch_response_encode(&c->out, c->version, &c->resp);
    if (c->out.error)
        abort();
    return c->out.len + c->out.data[c->out.len - 1];
}

#define CASE(NAME, VERSION, PARTS, KIND) \
    {.name = NAME, .version = VERSION, .partitions = PARTS, .setup = setup_##KIND, .run = run_##KIND}

static bench_case cases[] = {
    CASE("produce-req-decode v9  1x1", 9, 1, produce),
    CASE("produce-req-decode v9  1x10", 9, 10, produce),
    CASE("produce-req-decode v12 1x1", 12, 1, produce),
    CASE("produce-req-decode v12 1x10", 12, 10, produce),
    CASE("fetch-req-decode v17 replica 1p", 17, 1, fetch_request),
    CASE("fetch-req-decode v13 consumer 10p", 13, 10, fetch_request),
    CASE("fetch-resp-encode v16 1p x16KiB", 16, 1, fetch_response),
    CASE("fetch-resp-encode v16 10p x16KiB", 16, 10, fetch_response),
};

static volatile uint64_t sink;

/* ns per request over at least run_ns of wall time. */
static double measure(bench_case *c, uint64_t run_ns)
{
    uint64_t n = 0, sum = 0, t0 = now_ns(), t;
    do {
        for (int i = 0; i < 64; i++)
            sum += c->run(c);
        n += 64;
        t = now_ns();
    } while (t - t0 < run_ns);
    sink += sum;
    return (double)(t - t0) / (double)n;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static long arg_long(const char *s, long lo, long hi)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < lo || v > hi) {
        fprintf(stderr, "kq-wire-bench: bad number '%s' (%ld..%ld)\n", s, lo, hi);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    long run_ms = 300, warmup_ms = 100, runs = 3;
    const char *filter = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--run-ms") == 0 && i + 1 < argc)
            run_ms = arg_long(argv[++i], 1, 60000);
        else if (strcmp(argv[i], "--warmup-ms") == 0 && i + 1 < argc)
            warmup_ms = arg_long(argv[++i], 0, 60000);
        else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
            runs = arg_long(argv[++i], 1, RUNS_MAX);
        else if (argv[i][0] != '-' && !filter)
            filter = argv[i];
        else {
            fprintf(stderr, "usage: kq-wire-bench [--run-ms N] [--runs N] [--warmup-ms N] "
                            "[case substring]\n");
            return 2;
        }
    }
    memset(records_bytes, 0xa5, sizeof records_bytes);
    printf("%-36s %10s %10s %10s %8s\n", "case", "median ns", "min ns", "max ns", "bytes");
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        bench_case *c = &cases[k];
        if (filter && !strstr(c->name, filter))
            continue;
        kq_writer_init(&c->in, 0);
        kq_writer_init(&c->out, 0);
        kq_arena_init(&c->arena, 0);
        if (c->setup(c) != 0) {
            fprintf(stderr, "kq-wire-bench: %s: setup failed\n", c->name);
            return 1;
        }
        measure(c, (uint64_t)warmup_ms * 1000000u);
        double ns[RUNS_MAX];
        for (long i = 0; i < runs; i++)
            ns[i] = measure(c, (uint64_t)run_ms * 1000000u);
        qsort(ns, (size_t)runs, sizeof ns[0], cmp_double);
        size_t bytes = c->in.len ? c->in.len : c->out.len;
        printf("%-36s %10.1f %10.1f %10.1f %8zu\n", c->name, ns[runs / 2], ns[0], ns[runs - 1],
               bytes);
        fflush(stdout);
        kq_writer_free(&c->in);
        kq_writer_free(&c->out);
        kq_arena_free(&c->arena);
    }
    return 0;
}
