/* kq-load: several drivers on their own threads (see threads.h). */
#include "threads.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "run.h"

/* Values stay unique across threads: thread i numbers from i << 48. */
#define KL_THREAD_SEQ_SHIFT 48

struct kl_thread {
    pthread_t tid;
    struct kl_options o;
    struct kl_stats *stats;
    struct kl_summary sum;
    int reportable;
    int rc;
};

static void *thread_main(void *arg)
{
    struct kl_thread *t = arg;
    t->rc = kl_run(&t->o, t->stats, &t->sum, &t->reportable);
    return NULL;
}

/* Thread i's share of n (the first n % k get one more). */
static uint64_t share(uint64_t n, int k, int i)
{
    return n / (uint64_t)k + ((uint64_t)i < n % (uint64_t)k);
}

static void split_options(const struct kl_options *o, int i, struct kl_options *out)
{
    int k = o->threads;
    *out = *o;
    out->threads = 1;
    out->connections = (int)share((uint64_t)o->connections, k, i);
    if (o->records)
        out->records = share(o->records, k, i);
    if (o->rate_per_s > 0)
        out->rate_per_s = o->rate_per_s / k;
    out->first_seq = (uint64_t)i << KL_THREAD_SEQ_SHIFT;
}

/* Joins every started thread and merges what they measured. */
static int join_all(struct kl_thread *ts, int started, struct kl_stats *stats,
                    struct kl_summary *sum, int *reportable)
{
    int rc = 0;
    *reportable = started > 0;
    for (int i = 0; i < started; i++) {
        pthread_join(ts[i].tid, NULL);
        kl_stats_merge(stats, ts[i].stats);
        sum->wanted += ts[i].sum.wanted;
        if (ts[i].sum.elapsed_s > sum->elapsed_s)
            sum->elapsed_s = ts[i].sum.elapsed_s;
        /* each thread read the whole process's CPU over its own run */
        if (ts[i].sum.cpu_pct > sum->cpu_pct)
            sum->cpu_pct = ts[i].sum.cpu_pct;
        *reportable = *reportable && ts[i].reportable;
        if (ts[i].rc != 0)
            rc = -1;
    }
    return rc;
}

int kl_run_threads(const struct kl_options *o, struct kl_stats *stats, struct kl_summary *sum,
                   int *reportable)
{
    if (o->threads <= 1)
        return kl_run(o, stats, sum, reportable);
    struct kl_thread *ts = calloc((size_t)o->threads, sizeof(*ts));
    int started = 0, rc = 0;
    for (int i = 0; ts && i < o->threads; i++) {
        split_options(o, i, &ts[i].o);
        ts[i].stats = malloc(sizeof(*ts[i].stats));
        if (!ts[i].stats)
            break;
        kl_stats_init(ts[i].stats); /* here: the histogram tables are built once */
        if (pthread_create(&ts[i].tid, NULL, thread_main, &ts[i]) != 0) {
            free(ts[i].stats);
            break;
        }
        started++;
    }
    if (!ts || started < o->threads) {
        fputs("kq-load: cannot start the driver threads\n", stderr);
        rc = -1;
    }
    if (ts && join_all(ts, started, stats, sum, reportable) != 0)
        rc = -1;
    for (int i = 0; ts && i < started; i++)
        free(ts[i].stats);
    free(ts);
    return rc;
}
