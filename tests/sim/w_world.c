/* The world: set-up, the event loop (one event at a time, checks after each)
 * and the few queries scenarios share. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/log_line.h"
#include "kq/mutants.h"
#include "sim.h"
#include "w_check.h"
#include "w_client.h"

#define W_BUSY_LOOP_EVENTS 200000 /* events in one simulated millisecond */

bool w_fail(w_world *w, const char *fmt, ...)
{
    if (!w->failed) {
        w->failed = true;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(w->fail_msg, sizeof(w->fail_msg), fmt, ap);
        va_end(ap);
        if (w->p.verbose)
            fprintf(stderr, "[%8lld] FAIL %s\n", (long long)w->now, w->fail_msg);
    }
    return false;
}

void w_trace(w_world *w, const char *fmt, ...)
{
    if (!w->p.verbose)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "[%8lld] ", (long long)w->now);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* The servers' own log lines, prefixed with time and node, under -v. */
static void w_log_sink(void *ctx, const char *line)
{
    w_world *w = ctx;
    if (w->p.verbose)
        fprintf(stderr, "[%8lld] n%d| %s\n", (long long)w->now,
                w->current_node >= 0 ? w->nodes[w->current_node].id : 0, line);
}

/* Rate-limited log lines (LOG_LINE_LIMITED) count simulated time. */
static uint64_t w_log_clock(void *ctx)
{
    const w_world *w = ctx;
    return w->now > 0 ? (uint64_t)w->now : 0;
}

static void w_msg_free(void *p)
{
    w_msg *m = p;
    free(m->bytes);
    free(m);
}

bool w_schedule(w_world *w, int64_t at, enum w_ev type, int node, uint64_t gen, int64_t arg,
                void *ptr)
{
    sim_event ev = {.at_ms = at, .type = (int)type, .node = node, .gen = gen,
                    .arg = arg, .ptr = ptr};
    if (!sim_sched_push(&w->sched, &ev))
        return w_fail(w, "out of memory");
    return true;
}

static void w_config(w_world *w)
{
    exec_config *c = &w->cfg;
    memset(c, 0, sizeof(*c));
    for (int i = 0; i < w->p.voters; i++) {
        c->voters[i].node_id = i + 1;
        snprintf(c->voters[i].host, sizeof(c->voters[i].host), "node%d.sim", i + 1);
        c->voters[i].port = (uint16_t)(9090 + i + 1);
    }
    c->voter_count = w->p.voters;
    c->cluster_id = "sim-cluster";
    c->log_dir = SIM_LOG_DIR;
    c->segment_bytes = (uint64_t)sim_prng_range(&w->rng, 2048, 65536); /* many rolls */
    c->frame_bytes_max = 8 << 20;
    c->election_timeout_ms = 1000;
    c->fetch_timeout_ms = 2000;
    c->election_backoff_max_ms = 1000;
    c->request_timeout_ms = 2000;
    c->retry_backoff_ms = 20;
    c->fetch_max_bytes = (uint32_t)sim_prng_range(&w->rng, 256, 16384);
    c->fetch_stream_min_bytes = (uint32_t)sim_prng_range(&w->rng, 1, 4096); /* issue 19 */
    /* A quarter of the worlds run the built-in workload beside the clients
     * (TestRaftServer's --throughput, 8-byte values the checks can tell
     * apart from the clients'); it stops before the final convergence. */
    if (sim_prng_range(&w->rng, 0, 3) == 0) {
        /* Within what the smallest fetch size (256 B) replicates per flush
         * round trip of the simulated disks: more is a backlog that grows
         * for ever, in the daemon as here. */
        c->workload_records_per_s = (uint32_t)sim_prng_range(&w->rng, 10, 100);
        c->workload_record_bytes = 8;
    }
    /* A quarter of the worlds linger before the leader's fsync. */
    c->append_linger_ms = sim_prng_range(&w->rng, 0, 3) == 0
                              ? (uint32_t)sim_prng_range(&w->rng, 1, 30)
                              : 0;
    /* Half the worlds snapshot often and keep a small log (issue 11):
     * nodes fall below the log start and catch up through FetchSnapshot in
     * small chunks, so transfers are cut at every chunk. */
    if (sim_prng_range(&w->rng, 0, 1) == 0) {
        c->segment_bytes = (uint64_t)sim_prng_range(&w->rng, 512, 4096);
        c->snapshot_bytes_between = (uint64_t)sim_prng_range(&w->rng, 256, 4096);
        c->snapshot_interval_ms = (uint64_t)sim_prng_range(&w->rng, 200, 5000);
        c->retention_bytes = sim_prng_range(&w->rng, 1024, 8192);
        c->retention_ms = sim_prng_range(&w->rng, 0, 1) ? sim_prng_range(&w->rng, 500, 10000) : -1;
        c->fetch_snapshot_max_bytes = (uint32_t)sim_prng_range(&w->rng, 64, 4096);
        /* A third of them fail some snapshot files (issue 19 item 9). */
        if (sim_prng_range(&w->rng, 0, 2) == 0)
            w->snap_fault_ppm = (uint32_t)sim_prng_range(&w->rng, 100000, 500000);
    } else {
        c->retention_bytes = -1; /* Kafka's 100 MiB is never reached here */
    }
    /* A quarter of the worlds expire committed offsets within the run
     * (issue 19): offsets.retention.minutes as a few hundred ms, checked
     * often; the offsets checks allow an expiry only that long after the
     * commit expired (w_check_groups.c). */
    if (sim_prng_range(&w->rng, 0, 3) == 0) {
        c->group = group_config_default();
        c->group.offsets_retention_ms = sim_prng_range(&w->rng, 200, 3000);
        c->group.offsets_retention_check_interval_ms = sim_prng_range(&w->rng, 20, 500);
    }
    c->raft_mutants = w->p.raft_mutants;
    c->mutants = w->p.mutants;
}

bool w_world_init(w_world *w, const w_params *p)
{
    memset(w, 0, sizeof(*w));
    w->p = *p;
    w->n = p->voters + p->observers;
    w->current_node = -1;
    sim_prng_seed(&w->rng, p->seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull);
    sim_sched_init(&w->sched, w_msg_free);
    log_line_set_sink(w_log_sink, w);
    log_line_set_clock(w_log_clock, w);
    w_config(w);
    w->flush_min_ms = sim_prng_range(&w->rng, 0, 5);
    w->flush_max_ms = w->flush_min_ms + sim_prng_range(&w->rng, 0, 40);
    w->slow_disks = true;
    w->check = w_check_create();
    if (!w->check)
        return w_fail(w, "out of memory");
    for (int i = 0; i < w->n; i++) {
        w_node *nd = &w->nodes[i];
        nd->idx = i;
        nd->id = i + 1;
        nd->voter = i < p->voters;
        nd->fs = sim_fs_create();
        if (!nd->fs)
            return w_fail(w, "out of memory");
    }
    return true;
}

void w_world_free(w_world *w)
{
    for (int i = 0; i < w->n; i++) {
        w_node *n = &w->nodes[i];
        if (n->x)
            exec_destroy(n->x, true);
        w_net_node_down(w, i);
        free(n->slots);
        free(n->deferred);
        sim_fs_destroy(n->fs);
    }
    for (int i = 0; i < w->client_n; i++)
        w_client_destroy(w->clients[i]);
    sim_sched_free(&w->sched);
    w_check_destroy(w->check);
    free(w->reqs);
    log_line_set_sink(NULL, NULL);
    log_line_set_clock(NULL, NULL);
}

int w_current_leader(const w_world *w)
{
    int best = -1;
    int32_t best_epoch = -1;
    for (int i = 0; i < w->n; i++) {
        raft_status st;
        if (w_node_status(w, i, &st) && st.role == RAFT_ROLE_LEADER && st.epoch > best_epoch) {
            best = i;
            best_epoch = st.epoch;
        }
    }
    return best;
}

/* Events for a paused node wait until it resumes. */
static bool w_deferred(w_world *w, const sim_event *ev)
{
    enum w_ev t = (enum w_ev)ev->type;
    if (t == W_EV_CLIENT || t == W_EV_RESUME || ev->node < 0 || ev->node >= w->n)
        return false;
    w_node *n = &w->nodes[ev->node];
    if (!n->running || !n->paused)
        return false;
    sim_event later = *ev;
    later.at_ms = n->paused_until;
    sim_sched_push(&w->sched, &later);
    return true;
}

static void w_dispatch(w_world *w, sim_event *ev)
{
    switch ((enum w_ev)ev->type) {
    case W_EV_TIMER:
    case W_EV_FLUSH_SYNC:
    case W_EV_FLUSH_DONE:
    case W_EV_RESUME:
    case W_EV_SNAP_RUN:
    case W_EV_SNAP_DONE:
    case W_EV_SEARCH_DONE:
        w_node_on_event(w, ev);
        break;
    case W_EV_REQUEST:
    case W_EV_RESPONSE:
    case W_EV_REQ_TIMEOUT:
        w_net_on_event(w, ev);
        break;
    case W_EV_CLIENT:
        w_client_on_event(w, ev->node);
        break;
    }
}

bool w_run_event(w_world *w)
{
    sim_event ev;
    if (w->failed || !sim_sched_pop(&w->sched, &ev))
        return false;
    if (ev.at_ms > w->now)
        w->now = ev.at_ms;
    if (w->now == w->last_event_ms) {
        if (++w->same_ms_events > W_BUSY_LOOP_EVENTS)
            return w_fail(w, "busy loop: %d events at t=%lld", W_BUSY_LOOP_EVENTS,
                          (long long)w->now);
    } else {
        w->last_event_ms = w->now;
        w->same_ms_events = 0;
    }
    if (w_deferred(w, &ev))
        return true; /* payload moved with the event */
    w->events++;
    w_dispatch(w, &ev);
    if (ev.ptr)
        w_msg_free(ev.ptr);
    w_node_reap(w);
    w_check_after_event(w);
    return !w->failed;
}

bool w_run_for(w_world *w, int64_t ms)
{
    int64_t until = w->now + ms;
    while (!w->failed) {
        const sim_event *next = sim_sched_peek(&w->sched);
        if (!next || next->at_ms > until)
            break;
        w_run_event(w);
    }
    if (!w->failed && w->now < until)
        w->now = until;
    return !w->failed;
}

bool w_run_until(w_world *w, bool (*pred)(w_world *w, void *ctx), void *ctx, int64_t ms)
{
    int64_t until = w->now + ms;
    while (!w->failed && !pred(w, ctx)) {
        const sim_event *next = sim_sched_peek(&w->sched);
        if (!next || next->at_ms > until) {
            if (w->now < until)
                w->now = until;
            return pred(w, ctx);
        }
        w_run_event(w);
    }
    return !w->failed && pred(w, ctx);
}
