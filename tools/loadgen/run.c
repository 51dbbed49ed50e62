/* kq-load: the single-threaded driver (see run.h). */
#include "run.h"

#include <stdlib.h>

#include "clock.h"
#include "pacer.h"
#include "payload.h"
#include "producers.h"

#define KL_CHUNK_RECORDS 1024u           /* produce() calls between polls */
#define KL_SEND_CLOCK_EVERY 16           /* sends per clock read (~5 us) */
#define KL_IDLE_MAX_NS 1000000ull        /* longest sleep while paced: 1 ms */
#define KL_PROGRESS_NS 5000000000ull     /* --progress interval: 5 s */
#define KL_DRAIN_TIMEOUT_NS 120000000000ull

struct kl_run {
    const struct kl_options *o;
    struct kl_producers prod;
    struct kl_stats *stats;
    struct kl_payload payload;
    struct kl_pacer pacer;
    uint64_t next_seq;
    uint64_t *remaining;     /* per producer, in this phase */
    uint64_t quota_left;     /* sum of remaining */
    int next_producer;
    uint64_t progress_ns;    /* last progress line */
    uint64_t progress_cpu_ns;
};

static void set_quota(struct kl_run *r, uint64_t records)
{
    int n = r->prod.count;
    r->quota_left = records;
    for (int i = 0; i < n; i++) {
        if (records == UINT64_MAX)
            r->remaining[i] = UINT64_MAX;
        else
            r->remaining[i] = records / (uint64_t)n + ((uint64_t)i < records % (uint64_t)n);
    }
}

/* Up to count records round-robin over the producers that still have quota
 * and room; *full_at is set to one whose queue was full. Returns the number
 * sent, or -1 on a produce() error. */
static long send_chunk(struct kl_run *r, uint64_t count, int *full_at)
{
    long sent = 0;
    int misses = 0, n = r->prod.count;
    uint64_t sent_ns = 0;
    while ((uint64_t)sent < count && misses < n && r->quota_left > 0) {
        int i = r->next_producer;
        r->next_producer = (i + 1) % n;
        if (r->remaining[i] == 0) {
            misses++;
            continue;
        }
        if (sent % KL_SEND_CLOCK_EVERY == 0)
            sent_ns = kl_now_ns();
        kl_payload_set_seq(&r->payload, r->next_seq);
        enum kl_send_result res = kl_producers_send(&r->prod, i, &r->payload, sent_ns);
        if (res == KL_SEND_ERROR)
            return -1;
        if (res == KL_QUEUE_FULL) {
            misses++;
            *full_at = i;
            continue;
        }
        misses = 0;
        r->next_seq++;
        r->remaining[i]--;
        r->quota_left--;
        sent++;
    }
    return sent;
}

static void maybe_progress(struct kl_run *r, uint64_t now_ns)
{
    if (!r->o->progress || r->stats->measure_start_ns == UINT64_MAX ||
        now_ns - r->progress_ns < KL_PROGRESS_NS)
        return;
    uint64_t cpu_ns = kl_cpu_used_ns();
    double wall_ns = (double)(now_ns - r->progress_ns);
    double cpu_pct = 100.0 * (double)(cpu_ns - r->progress_cpu_ns) / wall_ns;
    kl_report_progress(r->o->json ? stderr : stdout, r->o, r->stats, wall_ns / 1e9, cpu_pct);
    kl_stats_reset_interval(r->stats);
    r->progress_ns = now_ns;
    r->progress_cpu_ns = cpu_ns;
}

/* Nothing was sent or served: wait for a token or for room in a queue. */
static void idle(struct kl_run *r, uint64_t due, int full_at, uint64_t now_ns,
                 uint64_t deadline_ns)
{
    if (due > 0 && full_at >= 0) {
        kl_producers_poll(&r->prod, full_at, 1);
        return;
    }
    uint64_t until_ns = kl_pacer_next_due_ns(&r->pacer, now_ns);
    if (until_ns > now_ns + KL_IDLE_MAX_NS)
        until_ns = now_ns + KL_IDLE_MAX_NS;
    if (until_ns > deadline_ns)
        until_ns = deadline_ns;
    if (until_ns <= now_ns)
        return;
    /* With records in flight, wait in rd_kafka_poll() (whole ms, rounded
     * up; it returns as soon as a report is served) rather than sleeping:
     * a report that arrives during a sleep would be timed only when the
     * sleep ends, adding up to 1 ms to every latency at low rates. The
     * pacer makes up for a late wake-up. */
    if (kl_producers_in_flight(&r->prod) > 0) {
        int ms = (int)((until_ns - now_ns + 999999u) / 1000000u);
        kl_producers_poll(&r->prod, 0, ms);
        return;
    }
    kl_sleep_ns(until_ns - now_ns);
}

/* Sends at the configured rate until deadline_ns or until the quota is used
 * up. Returns 0, or -1 on a produce() error. */
static int send_phase(struct kl_run *r, uint64_t deadline_ns)
{
    kl_pacer_start(&r->pacer, r->o->rate_per_s, kl_now_ns());
    for (;;) {
        uint64_t now_ns = kl_now_ns();
        if (now_ns >= deadline_ns || r->quota_left == 0)
            return 0;
        uint64_t due = kl_pacer_due(&r->pacer, now_ns);
        uint64_t chunk = due < KL_CHUNK_RECORDS ? due : KL_CHUNK_RECORDS;
        int full_at = -1;
        long sent = chunk ? send_chunk(r, chunk, &full_at) : 0;
        if (sent < 0)
            return -1;
        kl_pacer_take(&r->pacer, (uint64_t)sent);
        int served = kl_producers_poll(&r->prod, -1, 0);
        if (sent == 0 && served == 0)
            idle(r, due, full_at, now_ns, deadline_ns);
        maybe_progress(r, now_ns);
    }
}

/* Serves delivery reports until nothing is in flight; after the drain
 * timeout whatever is left is purged (and counted as failed). */
static void drain(struct kl_run *r)
{
    uint64_t start_ns = kl_now_ns();
    while (kl_producers_in_flight(&r->prod) > 0) {
        uint64_t now_ns = kl_now_ns();
        if (now_ns - start_ns > KL_DRAIN_TIMEOUT_NS) {
            fprintf(stderr, "kq-load: %ld records still in flight after %llu s; purging\n",
                    kl_producers_in_flight(&r->prod),
                    (unsigned long long)(KL_DRAIN_TIMEOUT_NS / 1000000000ull));
            kl_producers_purge(&r->prod);
            start_ns = now_ns; /* purged reports arrive on the next polls */
        }
        kl_producers_poll(&r->prod, 0, 1);
        maybe_progress(r, now_ns);
    }
}

static void summarize(struct kl_run *r, uint64_t start_ns, uint64_t start_cpu_ns,
                      struct kl_summary *sum)
{
    uint64_t end_ns = kl_now_ns();
    const struct kl_stats *s = r->stats;
    uint64_t last_ns = s->measured.acked ? s->last_delivery_ns : end_ns;
    sum->wanted = r->o->records ? r->o->records : s->measured.sent;
    sum->elapsed_s = (double)(last_ns - start_ns) / 1e9;
    sum->cpu_pct = 100.0 * (double)(kl_cpu_used_ns() - start_cpu_ns) /
                   (double)(end_ns > start_ns ? end_ns - start_ns : 1);
}

/* Warm-up (if asked), measured phase, drains. Returns 0 or -1. */
static int run_phases(struct kl_run *r, struct kl_summary *sum)
{
    const struct kl_options *o = r->o;
    int rc = 0;
    if (o->warmup_seconds > 0) {
        set_quota(r, UINT64_MAX);
        rc = send_phase(r, kl_now_ns() + (uint64_t)(o->warmup_seconds * 1e9));
        drain(r);
    }
    uint64_t start_ns = kl_now_ns(), start_cpu_ns = kl_cpu_used_ns();
    kl_stats_begin_measuring(r->stats, start_ns);
    r->progress_ns = start_ns;
    r->progress_cpu_ns = start_cpu_ns;
    if (rc == 0) {
        set_quota(r, o->records ? o->records : UINT64_MAX);
        uint64_t deadline_ns = o->seconds > 0 ? start_ns + (uint64_t)(o->seconds * 1e9)
                                              : UINT64_MAX;
        rc = send_phase(r, deadline_ns);
    }
    drain(r);
    summarize(r, start_ns, start_cpu_ns, sum);
    return rc;
}

int kl_run(const struct kl_options *o, struct kl_stats *stats, struct kl_summary *sum,
           int *reportable)
{
    struct kl_run r = {.o = o, .stats = stats};
    *reportable = 0;
    if (kl_payload_init(&r.payload, o->record_bytes, o->key_bytes) != 0) {
        fputs("kq-load: out of memory\n", stderr);
        return -1;
    }
    r.remaining = calloc((size_t)o->connections, sizeof(*r.remaining));
    int rc = -1;
    if (r.remaining && kl_producers_open(&r.prod, o, stats) == 0) {
        rc = run_phases(&r, sum);
        *reportable = 1;
        kl_producers_close(&r.prod);
    }
    free(r.remaining);
    kl_payload_free(&r.payload);
    return rc;
}
