/* The world: setup, the event loop and the client. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/record.h"
#include "sim.h"

bool sim_fail(sim_world *w, const char *fmt, ...)
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

void sim_trace(sim_world *w, const char *fmt, ...)
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

bool sim_schedule(sim_world *w, int64_t at, enum sim_ev_type type, int node, uint64_t gen,
                  int64_t arg, void *ptr)
{
    sim_event ev = {.at_ms = at, .type = type, .node = node, .gen = gen, .arg = arg, .ptr = ptr};
    if (!sim_sched_push(&w->sched, &ev))
        return sim_fail(w, "out of memory");
    return true;
}

bool sim_world_init(sim_world *w, const sim_params *p)
{
    memset(w, 0, sizeof(*w));
    w->p = *p;
    w->n = p->voters + p->observers;
    sim_prng_seed(&w->rng, p->seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull);
    sim_sched_init(&w->sched, sim_msg_free);
    sim_net_init(&w->net, w->n);
    sim_inv_init(&w->inv);
    raft_config *c = &w->cfg;
    for (int i = 0; i < p->voters; i++)
        c->voter_ids[i] = i + 1;
    c->voter_count = p->voters;
    c->election_timeout_ms = 1000;
    c->fetch_timeout_ms = 2000;
    c->election_backoff_max_ms = 1000;
    c->request_timeout_ms = 2000;
    c->retry_backoff_ms = 20;
    c->fetch_max_wait_ms = 500;
    c->fetch_max_bytes = (uint32_t)sim_prng_range(&w->rng, 256, 16384);
    c->mutants = p->mutants;
    w->flush_min_ms = sim_prng_range(&w->rng, 0, 5);
    w->flush_max_ms = w->flush_min_ms + sim_prng_range(&w->rng, 0, 40);
    w->net.delay_min_ms = sim_prng_range(&w->rng, 1, 5);
    w->net.delay_max_ms = w->net.delay_min_ms + sim_prng_range(&w->rng, 0, 60);
    w->send_failed_ppm = 500000;
    w->client_min_ms = sim_prng_range(&w->rng, 5, 100);
    w->client_max_ms = w->client_min_ms + sim_prng_range(&w->rng, 0, 300);
    w->next_value = 1;
    for (int i = 0; i < w->n; i++) {
        sim_node *nd = &w->nodes[i];
        nd->idx = i;
        nd->id = i + 1;
        nd->voter = i < p->voters;
        sim_log_init(&nd->log);
    }
    return true;
}

void sim_world_free(sim_world *w)
{
    for (int i = 0; i < w->n; i++) {
        sim_node *nd = &w->nodes[i];
        if (nd->r)
            raft_destroy(nd->r);
        sim_log_free(&nd->log);
        free(nd->flushes);
    }
    sim_sched_free(&w->sched);
    sim_inv_free(&w->inv);
    free(w->tokens);
}

int sim_current_leader(sim_world *w)
{
    int best = -1;
    int32_t best_epoch = -1;
    for (int i = 0; i < w->n; i++) {
        raft_status st;
        if (!sim_node_status(w, i, &st))
            continue;
        if (st.role == RAFT_ROLE_LEADER && st.epoch > best_epoch) {
            best = i;
            best_epoch = st.epoch;
        }
    }
    if (best < 0)
        return -1;
    /* A newer epoch the leader can hear of means it is (being) deposed. Nodes
     * cut off from it do not count: without pre-vote a partitioned minority
     * keeps raising its epoch while the majority's leader serves on. */
    for (int i = 0; i < w->n; i++) {
        raft_status st;
        if (!sim_node_status(w, i, &st) || st.epoch <= best_epoch)
            continue;
        if (!sim_net_blocked(&w->net, i, best) || !sim_net_blocked(&w->net, best, i))
            return -1;
    }
    return best;
}

bool sim_client_append(sim_world *w, int idx)
{
    kq_writer wr;
    kq_writer_init(&wr, 0);
    int batches = (int)sim_prng_range(&w->rng, 1, 3);
    uint64_t first = w->next_value;
    int32_t count = 0;
    for (int b = 0; b < batches; b++) {
        int nrec = (int)sim_prng_range(&w->rng, 1, 3);
        uint8_t vals[3][8];
        record recs[3];
        memset(recs, 0, sizeof(recs));
        for (int r = 0; r < nrec; r++) {
            uint64_t v = w->next_value++;
            for (int k = 0; k < 8; k++)
                vals[r][k] = (uint8_t)(v >> (56 - 8 * k));
            recs[r].key.ptr = NULL;
            recs[r].key.len = -1;
            recs[r].value.ptr = vals[r];
            recs[r].value.len = 8;
            recs[r].timestamp = w->now;
        }
        record_batch_builder_args a = {
            .base_offset = 0, .partition_leader_epoch = -1, .attributes = 0,
            .base_timestamp = w->now, .producer_id = -1, .producer_epoch = -1,
            .base_sequence = -1, .records = recs, .record_count = nrec,
        };
        if (!record_batch_build(&wr, &a)) {
            kq_writer_free(&wr);
            return sim_fail(w, "record_batch_build failed");
        }
        count += nrec;
    }
    raft_status before;
    raft_get_status(w->nodes[idx].r, &before);
    raft_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.type = RAFT_EVENT_CLIENT_APPEND;
    ev.now_ms = w->now;
    ev.append.records = wr.data;
    ev.append.len = wr.len;
    ev.append.offset_count = count;
    bool ok = sim_node_step(w, idx, &ev);
    kq_writer_free(&wr);
    if (!ok)
        return false;
    if (w->out.append_error != 0) {
        sim_trace(w, "client: node %d refused append (error %d)", w->nodes[idx].id,
                  w->out.append_error);
        return true;
    }
    if (sim_check_on(w, SIM_INV_LEADER_ONLY_APPEND) && before.role != RAFT_ROLE_LEADER)
        return sim_fail(w, "invariant leader-only-append: node %d (%s) accepted a client append",
                        w->nodes[idx].id, raft_role_name(before.role));
    sim_pending_append p = {.node = idx, .inc = w->nodes[idx].inc, .epoch = before.epoch,
                            .base = w->out.append_base_offset, .count = count, .first_value = first};
    sim_trace(w, "client: node %d appended values %llu..%llu at %lld", w->nodes[idx].id,
              (unsigned long long)first, (unsigned long long)(first + (uint64_t)count - 1),
              (long long)p.base);
    return sim_inv_add_pending(w, &p);
}

static int client_target(sim_world *w)
{
    uint64_t roll = sim_prng_below(&w->rng, 100);
    if (roll < 10) {
        /* any running node: a stale leader or a non-leader must refuse */
        int idx = (int)sim_prng_below(&w->rng, (uint64_t)w->n);
        return w->nodes[idx].running ? idx : -1;
    }
    return sim_current_leader(w);
}

/* Delay to the next client append: a quarter of them come in a burst, within
 * a disk flush time, so appends also land while a flush is in progress. */
static int64_t client_delay(sim_world *w)
{
    if (sim_prng_below(&w->rng, 4) == 0)
        return sim_prng_range(&w->rng, 0, w->flush_max_ms);
    return sim_prng_range(&w->rng, w->client_min_ms, w->client_max_ms);
}

void sim_client_set(sim_world *w, bool on)
{
    w->client_on = on;
    w->client_gen++;
    if (on)
        sim_schedule(w, w->now + client_delay(w),
                     SIM_EV_CLIENT, -1, w->client_gen, 0, NULL);
}

static bool dispatch(sim_world *w, sim_event *ev, bool *acted)
{
    raft_event e;
    *acted = false;
    switch (ev->type) {
    case SIM_EV_WAKE: {
        sim_node *nd = &w->nodes[ev->node];
        if (!nd->running || ev->gen != nd->wake_gen)
            return true;
        memset(&e, 0, sizeof(e));
        e.type = RAFT_EVENT_TICK;
        e.now_ms = w->now;
        *acted = true;
        return sim_node_step(w, ev->node, &e);
    }
    case SIM_EV_DELIVER: {
        sim_msg *m = ev->ptr;
        sim_node *to = &w->nodes[m->to];
        bool req = sim_msg_is_request(m->m.type);
        bool ok = true;
        if (!to->running || to->inc != m->to_inc) {
            if (req && w->nodes[m->from].running && w->nodes[m->from].inc == m->from_inc &&
                sim_prng_chance(&w->rng, w->send_failed_ppm)) {
                int64_t arg = ((int64_t)m->m.type << 32) | (uint32_t)m->m.to;
                ok = sim_schedule(w, w->now + sim_net_delay(&w->net, &w->rng),
                                  SIM_EV_SEND_FAILED, m->from, m->from_inc, arg, NULL);
            }
        } else if (sim_net_blocked(&w->net, m->from, m->to)) {
            sim_trace(w, "  cut %s %d->%d", sim_msg_type_name(m->m.type), m->m.from, m->m.to);
        } else {
            memset(&e, 0, sizeof(e));
            e.type = RAFT_EVENT_RECEIVE;
            e.now_ms = w->now;
            e.msg = m->m;
            if (m->m.type == RAFT_MSG_FETCH_RESPONSE)
                e.msg.u.fetch_response.records = m->records;
            sim_trace(w, "deliver %s %d->%d", sim_msg_type_name(m->m.type), m->m.from, m->m.to);
            *acted = true;
            ok = sim_node_step(w, m->to, &e);
        }
        sim_msg_free(m);
        return ok;
    }
    case SIM_EV_SEND_FAILED: {
        sim_node *nd = &w->nodes[ev->node];
        if (!nd->running || nd->inc != ev->gen)
            return true;
        memset(&e, 0, sizeof(e));
        e.type = RAFT_EVENT_SEND_FAILED;
        e.now_ms = w->now;
        e.msg.type = (enum raft_msg_type)(ev->arg >> 32);
        e.msg.to = (int32_t)(uint32_t)(ev->arg & 0xffffffff);
        e.msg.from = nd->id;
        sim_trace(w, "send failed %s %d->%d", sim_msg_type_name(e.msg.type), nd->id, e.msg.to);
        *acted = true;
        return sim_node_step(w, ev->node, &e);
    }
    case SIM_EV_FLUSH_DONE: {
        sim_node *nd = &w->nodes[ev->node];
        if (!nd->running || nd->inc != ev->gen || nd->flush_n == 0)
            return true;
        sim_flush f = nd->flushes[0];
        memmove(nd->flushes, nd->flushes + 1, (size_t)(nd->flush_n - 1) * sizeof(*nd->flushes));
        nd->flush_n--;
        int target = f.target_n < nd->log.n ? f.target_n : nd->log.n;
        if (target > nd->log.durable_n)
            nd->log.durable_n = target;
        int64_t covered = sim_log_end_of(&nd->log, target);
        int64_t off = f.offset < covered ? f.offset : covered;
        memset(&e, 0, sizeof(e));
        e.type = RAFT_EVENT_FLUSHED;
        e.now_ms = w->now;
        e.flushed_offset = off;
        sim_trace(w, "node %d flushed to %lld", nd->id, (long long)off);
        *acted = true;
        return sim_node_step(w, ev->node, &e);
    }
    case SIM_EV_CLIENT: {
        if (!w->client_on || ev->gen != w->client_gen)
            return true;
        sim_schedule(w, w->now + client_delay(w),
                     SIM_EV_CLIENT, -1, w->client_gen, 0, NULL);
        int idx = client_target(w);
        if (idx < 0)
            return true;
        *acted = true;
        return sim_client_append(w, idx);
    }
    case SIM_EV_STOP: {
        sim_node *nd = &w->nodes[ev->node];
        if (!nd->running || nd->inc != ev->gen)
            return true;
        *acted = true;
        sim_node_stop(w, ev->node);
        return true;
    }
    }
    return true;
}

bool sim_run_event(sim_world *w)
{
    sim_event ev;
    if (w->failed || !sim_sched_pop(&w->sched, &ev))
        return false;
    if (ev.at_ms < w->now) {
        if (ev.ptr)
            sim_msg_free(ev.ptr);
        return sim_fail(w, "scheduler went back in time");
    }
    if (ev.at_ms == w->last_event_ms) {
        if (++w->same_ms_events > 200000)
            return sim_fail(w, "busy-loop: simulated time stopped at %lld ms (200000 events in one ms)",
                            (long long)ev.at_ms);
    } else {
        w->same_ms_events = 0;
        w->last_event_ms = ev.at_ms;
    }
    w->now = ev.at_ms;
    bool acted;
    if (!dispatch(w, &ev, &acted))
        return false;
    if (acted) {
        w->events++;
        if (!sim_inv_check(w))
            return false;
    }
    return !w->failed;
}

bool sim_run_for(sim_world *w, int64_t ms)
{
    int64_t end = w->now + ms;
    for (;;) {
        if (w->failed)
            return false;
        const sim_event *ev = sim_sched_peek(&w->sched);
        if (!ev || ev->at_ms > end)
            break;
        if (!sim_run_event(w))
            return !w->failed;
    }
    w->now = end;
    return !w->failed;
}

bool sim_run_until(sim_world *w, bool (*pred)(sim_world *w, void *ctx), void *ctx, int64_t ms)
{
    int64_t end = w->now + ms;
    while (!w->failed) {
        if (pred(w, ctx))
            return true;
        const sim_event *ev = sim_sched_peek(&w->sched);
        if (!ev || ev->at_ms > end)
            break;
        sim_run_event(w);
    }
    if (w->failed)
        return false;
    w->now = end > w->now ? end : w->now;
    return pred(w, ctx);
}
