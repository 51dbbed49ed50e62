/* Simulated server processes: each one is the real executor (src/exec) with
 * the simulator's seams — its own sim_fs disk, the scheduler's clock and
 * timer, flush jobs that reach the disk and complete after a heavy-tailed
 * latency, w_net for every frame — plus crashes (power loss or process
 * kill, also between two actions of one output), fail-stop and pauses. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/assert.h"
#include "kq/handler.h"
#include "kq/log.h"
#include "kq/meta_properties.h"
#include "kq/snapshot_file.h"
#include "sim.h"
#include "w_check.h"
#include "w_client.h"

static w_node *env_node(void *ctx, w_world **w)
{
    w_node *n = ctx;
    *w = (w_world *)((char *)(n - n->idx) - offsetof(w_world, nodes));
    return n;
}

static int64_t env_now(void *ctx)
{
    w_world *w;
    env_node(ctx, &w);
    return w->now;
}

static bool env_peer_send(void *ctx, int32_t to, int32_t corr, const uint8_t *frame, size_t len,
                          uint64_t tag)
{
    w_world *w;
    w_node *n = env_node(ctx, &w);
    return w_net_peer_send(w, n->idx, to, corr, frame, len, tag);
}

static void env_reply(void *ctx, void *slot, const uint8_t *d, size_t len)
{
    w_world *w;
    w_node *n = env_node(ctx, &w);
    if (n->fatal)
        w_check_on_reply_after_fatal(w, n->idx);
    w_net_reply(w, slot, d, len, false);
}

static void env_reply_none(void *ctx, void *slot)
{
    w_world *w;
    env_node(ctx, &w);
    w_net_reply(w, slot, NULL, 0, false);
}

static void env_reply_close(void *ctx, void *slot, const char *why)
{
    w_world *w;
    env_node(ctx, &w);
    (void)why;
    w_net_reply(w, slot, NULL, 0, true);
}

/* A streamed Fetch answer (issue 19): the pieces are read through the
 * executor as the daemon's transport reads them, in chunks of a random
 * size (smaller than a batch at times: -ENOBUFS and need), then delivered
 * as one frame. A read failure closes the client's connection. */
static void env_reply_stream(void *ctx, void *slot, uint8_t *frame, size_t len,
                             exec_stream_piece *pieces, uint32_t count)
{
    w_world *w;
    w_node *n = env_node(ctx, &w);
    size_t total = len;
    for (uint32_t i = 0; i < count; i++)
        total += (size_t)pieces[i].cur.range.len;
    uint8_t *out = malloc(total);
    KQ_ASSERT(out);
    size_t from = 0, at = 0;
    bool ok = true;
    for (uint32_t i = 0; i < count && ok; i++) {
        memcpy(out + at, frame + from, pieces[i].at - from);
        at += pieces[i].at - from;
        from = pieces[i].at;
        kq_log_cursor *cur = &pieces[i].cur;
        size_t cap = (size_t)sim_prng_range(&w->rng, 1, 8192);
        while (ok && cur->done < cur->range.len) {
            size_t left = (size_t)(cur->range.len - cur->done), need = 0;
            ssize_t r = exec_stream_read(n->x, cur, out + at, cap < left ? cap : left, &need);
            if (r == -ENOBUFS && need > cap && need <= left)
                cap = need;
            else if (r > 0)
                at += (size_t)r;
            else
                ok = false;
        }
    }
    if (ok) {
        memcpy(out + at, frame + from, len - from);
        KQ_ASSERT(at + len - from == total);
        if (n->fatal)
            w_check_on_reply_after_fatal(w, n->idx);
        w_net_reply(w, slot, out + 4, total - 4, false);
    } else {
        w_net_reply(w, slot, NULL, 0, true);
    }
    free(out);
    free(frame);
    free(pieces);
}

static const char *env_slot_peer(void *ctx, void *slot)
{
    (void)ctx;
    (void)slot;
    return "sim-client";
}

/* The simulated servers have a controller listener that their peers use
 * and a client listener that the clients use. */
static uint64_t env_slot_grant(void *ctx, void *slot, uint64_t want)
{
    w_world *w;
    env_node(ctx, &w);
    return w_net_slot_grant(w, slot, want);
}

static void env_slot_conn(void *ctx, void *slot, handler_conn *out)
{
    w_world *w;
    env_node(ctx, &w);
    const w_slot *s = slot;
    /* The operator's client speaks on the controller listener, as an
     * admin tool reaching the controllers directly does (KIP-853). */
    *out = (handler_conn){.quorum_listener = !s->from_client ||
                                             w_client_on_controller(w, s->from)};
}

/* fsync latency: mostly milliseconds, a tail of hundreds, rarely seconds. */
static int64_t flush_latency_ms(w_world *w, const w_node *n)
{
    if (n->slow_disk)
        return sim_prng_range(&w->rng, 1000, 8000);
    uint64_t r = sim_prng_below(&w->rng, 1000);
    if (!w->slow_disks)
        r = 1000;
    if (r < 2)
        return sim_prng_range(&w->rng, 1000, 3000);
    if (r < 20)
        return sim_prng_range(&w->rng, 100, 500);
    return sim_prng_range(&w->rng, w->flush_min_ms, w->flush_max_ms);
}

static void env_flush_start(void *ctx, kq_log_flush_job *job)
{
    w_world *w;
    w_node *n = env_node(ctx, &w);
    KQ_ASSERT(!n->job);
    n->job = job;
    n->job_synced = false;
    n->job_rc = 0;
    int64_t done = w->now + flush_latency_ms(w, n);
    /* The data reaches the disk at some point while the call is out. */
    int64_t sync = sim_prng_range(&w->rng, w->now, done);
    w_trace(w, "node %d flush job to %lld: sync at %lld, done at %lld", n->id,
            (long long)kq_log_flush_job_offset(job), (long long)sync, (long long)done);
    w_schedule(w, sync, W_EV_FLUSH_SYNC, n->idx, n->inc, 0, NULL);
    w_schedule(w, done, W_EV_FLUSH_DONE, n->idx, n->inc, 0, NULL);
}

/* A snapshot job writes its file at some point while it is out (a crash
 * before that leaves no file, after it a durable one nobody published). */
static void env_snapshot_start(void *ctx, struct exec_snapshot_job *job)
{
    w_world *w;
    w_node *n = env_node(ctx, &w);
    KQ_ASSERT(!n->snap_job);
    n->snap_job = job;
    n->snap_ran = false;
    n->snap_rc = 0;
    /* A file write, its fsync, a rename and a directory fsync: slower than
     * a flush, and more often in the tail. */
    int64_t done = w->now + flush_latency_ms(w, n) +
                   (sim_prng_below(&w->rng, 10) == 0 ? sim_prng_range(&w->rng, 100, 1000) : 0);
    int64_t run = sim_prng_range(&w->rng, w->now + (done - w->now) / 2, done);
    w_trace(w, "node %d snapshot job: runs at %lld, done at %lld", n->id, (long long)run,
            (long long)done);
    w_schedule(w, run, W_EV_SNAP_RUN, n->idx, n->inc, 0, NULL);
    w_schedule(w, done, W_EV_SNAP_DONE, n->idx, n->inc, 0, NULL);
}

/* A ListOffsets search (the daemon's thread pool): it reads the log and
 * completes together, after a flush-like latency. */
static void env_search_start(void *ctx, struct exec_search_job *job)
{
    w_world *w;
    w_node *n = env_node(ctx, &w);
    int i = 0;
    while (i < EXEC_TIME_SEARCHES_RUNNING_MAX && n->search_jobs[i])
        i++;
    KQ_ASSERT(i < EXEC_TIME_SEARCHES_RUNNING_MAX); /* the executor's bound */
    n->search_jobs[i] = job;
    int64_t done = w->now + flush_latency_ms(w, n);
    w_trace(w, "node %d search job %d: done at %lld", n->id, i, (long long)done);
    w_schedule(w, done, W_EV_SEARCH_DONE, n->idx, n->inc, i, NULL);
}

static void env_arm_timer(void *ctx, int64_t due_ms)
{
    w_world *w;
    w_node *n = env_node(ctx, &w);
    if (due_ms < w->now)
        due_ms = w->now;
    if (due_ms > w->now + 60000)
        due_ms = w->now + 60000;
    if (due_ms == n->timer_due && n->timer_gen)
        return;
    n->timer_due = due_ms;
    w_schedule(w, due_ms, W_EV_TIMER, n->idx, ++n->timer_gen, 0, NULL);
}

static void env_fatal(void *ctx, const char *what, const char *detail)
{
    w_world *w;
    w_node *n = env_node(ctx, &w);
    w_trace(w, "node %d fatal: %s: %s", n->id, what, detail);
    if (n->snap_fault_rc && strcmp(what, "cannot write a snapshot") == 0)
        w_check_on_snapshot_fatal(w, n->idx, what, n->snap_fault_rc);
    n->fatal = true;
    n->crash_pending = true;
}

static bool env_crash_before_action(void *ctx, const raft_action *a)
{
    w_world *w;
    w_node *n = env_node(ctx, &w);
    w_check_before_action(w, n->idx, a);
    if (n->crash_ppm && sim_prng_chance(&w->rng, n->crash_ppm)) {
        w_trace(w, "node %d dies before a type-%d action", n->id, (int)a->type);
        n->crash_pending = true;
        return true;
    }
    return false;
}

static void env_on_committed(void *ctx, int64_t hw)
{
    w_world *w;
    w_node *n = env_node(ctx, &w);
    w_check_on_committed(w, n->idx, hw);
}

static void env_on_snapshot(void *ctx, raft_snapshot_id id)
{
    w_world *w;
    w_node *n = env_node(ctx, &w);
    w_check_on_snapshot(w, n->idx, id);
}

static void env_on_snapshot_failed(void *ctx, raft_snapshot_id id, int rc)
{
    w_world *w;
    w_node *n = env_node(ctx, &w);
    w_trace(w, "node %d snapshot %lld-%d not written: %s", n->id, (long long)id.end_offset,
            id.epoch, strerror(-rc));
}

static void env_on_shutdown_complete(void *ctx)
{
    w_world *w;
    w_node *n = env_node(ctx, &w);
    n->shutdown_done = true;
}

static exec_env node_env(w_node *n)
{
    return (exec_env){
        .ctx = n,
        .fs = sim_fs_table(n->fs),
        .now_ms = env_now,
        .peer_send = env_peer_send,
        .reply = env_reply,
        .reply_stream = env_reply_stream,
        .reply_none = env_reply_none,
        .reply_close = env_reply_close,
        .slot_peer = env_slot_peer,
        .slot_conn = env_slot_conn,
        .slot_grant = env_slot_grant,
        .flush_start = env_flush_start,
        .snapshot_start = env_snapshot_start,
        .search_start = env_search_start,
        .arm_timer = env_arm_timer,
        .fatal = env_fatal,
        .crash_before_action = env_crash_before_action,
        .on_committed = env_on_committed,
        .on_shutdown_complete = env_on_shutdown_complete,
        .on_snapshot = env_on_snapshot,
        .on_snapshot_failed = env_on_snapshot_failed,
    };
}

bool w_node_start(w_world *w, int idx)
{
    w_node *n = &w->nodes[idx];
    if (n->running)
        return true;
    exec_config c = w->cfg;
    c.node_id = n->id;
    /* A client listener apart from the controller one the peers use: the
     * nodes ask each other for it (DescribeCluster) as the daemon's do. */
    c.client_endpoint.node_id = n->id;
    snprintf(c.client_endpoint.host, sizeof(c.client_endpoint.host), "node%d.client", n->id);
    c.client_endpoint.port = (uint16_t)(19090 + n->id);
    c.discover_client_endpoints = true;
    c.random_seed = sim_prng_next(&w->rng);
    /* The id a directory without one takes (issue 20 item 6): kept in its
     * quorum state from then on, lost with the disk. */
    for (int b = 0; b < 16; b += 8) {
        uint64_t v = sim_prng_next(&w->rng) | 1; /* never all zero */
        memcpy(c.new_directory_id.bytes + b, &v, 8);
    }
    /* The "wall clock" producer ids start from is coarse (a minute): a
     * restart within the minute starts from the same base, as a clock that
     * stepped back would. Ids must not repeat anyway. */
    /* meta.properties' directory.id, as the daemon reads it (node.c). */
    kq_meta_properties meta;
    char why[256];
    if (kq_meta_properties_load(sim_fs_table(n->fs), SIM_LOG_DIR, &meta, why, sizeof why) == 1 &&
        meta.has_directory_id)
        c.directory_id = meta.directory_id;
    if (n->auto_join) { /* it names its own controller endpoint, as w_format.c does */
        c.auto_join = true;
        snprintf(c.controller_listener, sizeof c.controller_listener, "CONTROLLER");
        c.controller_endpoint.node_id = n->id;
        snprintf(c.controller_endpoint.host, sizeof c.controller_endpoint.host, "node%d.sim",
                 n->id);
        c.controller_endpoint.port = (uint16_t)(9090 + n->id);
    }
    c.producer_id_base = ((int64_t)n->id << 40) + w->now / 60000;
    if (n->disk_replaced)
        c.producer_id_base = ((int64_t)n->id << 40) + w->now;
    exec_env env = node_env(n);
    char err[600];
    n->inc++;
    w_net_node_up(w, idx);
    n->fatal = false;
    n->crash_pending = false;
    n->shutting_down = false;
    n->shutdown_done = false;
    n->timer_gen = 0;
    w->current_node = idx;
    n->x = exec_create(&c, &env, err, sizeof(err));
    w->current_node = -1;
    if (!n->x) {
        n->refused = true;
        w_trace(w, "node %d refuses to start: %s", n->id, err);
        w_check_on_refusal(w, idx, err);
        return false;
    }
    n->refused = false;
    n->running = true;
    int64_t end = kq_log_end_offset(exec_log(n->x));
    raft_quorum_state stored = exec_stored_qstate(n->x);
    int64_t repair_end;
    int32_t repair_epoch;
    bool repaired = kq_log_repair(exec_log(n->x), &repair_end, &repair_epoch);
    if (n->restarts > 0)
        w_check_on_restart(w, idx, repaired ? repair_end : n->last_flushed,
                           repaired ? repair_end : end, &stored);
    n->last_flushed = kq_log_flushed_offset(exec_log(n->x));
    w_trace(w, "node %d starts (incarnation %llu), log end %lld", n->id,
            (unsigned long long)n->inc, (long long)end);
    w->current_node = idx;
    exec_start(n->x);
    w->current_node = -1;
    return true;
}

void w_node_crash(w_world *w, int idx, enum w_crash kind)
{
    w_node *n = &w->nodes[idx];
    if (!n->running)
        return;
    n->last_flushed = kq_log_flushed_offset(exec_log(n->x));
    w_trace(w, "node %d %s (flushed %lld)", n->id,
            kind == W_CRASH_POWER_LOSS ? "loses power" : "is killed", (long long)n->last_flushed);
    exec_destroy(n->x, true); /* frees a snapshot job still out */
    n->x = NULL;
    n->job = NULL;
    n->snap_job = NULL;
    memset(n->search_jobs, 0, sizeof(n->search_jobs)); /* freed by exec_destroy */
    n->running = false;
    n->paused = false;
    n->crash_pending = false;
    n->restarts++;
    n->inc++; /* events of the old incarnation are ignored */
    if (kind == W_CRASH_POWER_LOSS)
        sim_fs_power_loss(n->fs, &w->rng);
    else
        sim_fs_process_kill(n->fs);
    w_net_node_down(w, idx);
}

void w_node_replace_disk(w_world *w, int idx)
{
    w_node *n = &w->nodes[idx];
    if (n->running)
        w_node_crash(w, idx, W_CRASH_PROCESS_KILL);
    sim_fs *fresh = sim_fs_create();
    if (!fresh) {
        w_fail(w, "out of memory");
        return;
    }
    sim_fs_destroy(n->fs);
    n->fs = fresh;
    n->lost_dir = n->dir;
    n->lost_flushed = n->last_flushed;
    n->last_flushed = 0;
    n->disk_replaced = true;
    n->corrupted = false;
    n->disk_faulted = false;
    if (w->kraft1) /* as the operator would, with a new directory id */
        w_format_node(w, idx, w_voters_now(w));
    w_trace(w, "node %d's disk is replaced by an empty one", n->id);
    w_check_on_disk_replaced(w, idx);
}

void w_node_reap(w_world *w)
{
    for (int i = 0; i < w->n; i++) {
        w_node *n = &w->nodes[i];
        if (n->running && n->crash_pending)
            w_node_crash(w, i, n->fatal || sim_prng_below(&w->rng, 2) ? W_CRASH_PROCESS_KILL
                                                                       : W_CRASH_POWER_LOSS);
        if (n->running && n->shutdown_done)
            w_node_crash(w, i, W_CRASH_PROCESS_KILL); /* the process exits */
    }
}

void w_node_shutdown(w_world *w, int idx)
{
    w_node *n = &w->nodes[idx];
    if (!n->running || n->shutting_down)
        return;
    n->shutting_down = true;
    w->current_node = idx;
    exec_request_shutdown(n->x);
    w->current_node = -1;
}

void w_node_pause(w_world *w, int idx, int64_t ms)
{
    w_node *n = &w->nodes[idx];
    if (!n->running || n->paused)
        return;
    n->paused = true;
    n->paused_until = w->now + ms;
    w_trace(w, "node %d pauses for %lld ms", n->id, (long long)ms);
    w_schedule(w, n->paused_until, W_EV_RESUME, idx, n->inc, 0, NULL);
}

bool w_node_alive(const w_world *w, int idx)
{
    return w->nodes[idx].running && !w->nodes[idx].crash_pending;
}

bool w_node_status(const w_world *w, int idx, raft_status *st)
{
    if (!w_node_alive(w, idx))
        return false;
    raft_get_status(exec_raft(w->nodes[idx].x), st);
    return true;
}

void w_node_on_event(w_world *w, const sim_event *ev)
{
    w_node *n = &w->nodes[ev->node];
    if (!n->running)
        return;
    w->current_node = ev->node;
    switch ((enum w_ev)ev->type) {
    case W_EV_TIMER:
        if (ev->gen == n->timer_gen)
            exec_on_timer(n->x);
        break;
    case W_EV_FLUSH_SYNC:
        if (ev->gen == n->inc && n->job && !n->job_synced) {
            n->job_rc = kq_log_flush_run(n->job);
            n->job_synced = true;
        }
        break;
    case W_EV_FLUSH_DONE:
        if (ev->gen == n->inc && n->job) {
            KQ_ASSERT(n->job_synced);
            kq_log_flush_job *job = n->job;
            n->job = NULL;
            exec_flush_done(n->x, job, n->job_rc);
        }
        break;
    case W_EV_RESUME:
        if (ev->gen == n->inc)
            n->paused = false;
        break;
    case W_EV_SNAP_RUN:
        if (ev->gen == n->inc && n->snap_job && !n->snap_ran) {
            n->snap_fault_rc = 0;
            if (w->snap_fault_ppm && sim_prng_chance(&w->rng, w->snap_fault_ppm)) {
                /* This job's file alone fails, for want of descriptors at
                 * open or of space at a write (issue 19 item 9). */
                bool at_open = sim_prng_below(&w->rng, 2);
                n->snap_fault_rc = at_open ? -EMFILE : -ENOSPC;
                w_trace(w, "node %d snapshot job: its file fails (%s)", n->id,
                        at_open ? "EMFILE at open" : "ENOSPC at write");
                sim_fs_fail_path(n->fs, KQ_SNAPSHOT_PART_SUFFIX, at_open, n->snap_fault_rc);
            }
            n->snap_rc = exec_snapshot_job_run(n->snap_job);
            if (n->snap_fault_rc)
                sim_fs_fail_path(n->fs, NULL, false, 0);
            n->snap_ran = true;
        }
        break;
    case W_EV_SNAP_DONE:
        if (ev->gen == n->inc && n->snap_job) {
            KQ_ASSERT(n->snap_ran);
            struct exec_snapshot_job *job = n->snap_job;
            n->snap_job = NULL;
            exec_snapshot_done(n->x, job, n->snap_rc);
            n->snap_fault_rc = 0;
        }
        break;
    case W_EV_SEARCH_DONE:
        if (ev->gen == n->inc && n->search_jobs[ev->arg]) {
            struct exec_search_job *job = n->search_jobs[ev->arg];
            n->search_jobs[ev->arg] = NULL;
            exec_search_done(n->x, job, exec_search_job_run(job));
        }
        break;
    default:
        break;
    }
    if (n->running && !n->crash_pending)
        n->last_flushed = kq_log_flushed_offset(exec_log(n->x));
    w->current_node = -1;
}
