#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "scenarios.h"

#define LIVENESS_MS 60000

/* End-of-run failures, unless that check is skipped (--skip-invariant). */
__attribute__((format(printf, 3, 4))) static void check_fail(sim_world *w, enum sim_check c,
                                                              const char *fmt, ...)
{
    if (!sim_check_enabled(w, c))
        return;
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    sim_fail(w, "%s: %s", sim_check_names[c], msg);
}
#define liveness_fail(w, ...) check_fail(w, SIM_CHECK_LIVENESS, __VA_ARGS__)
#define scenario_fail(w, ...) check_fail(w, SIM_CHECK_SCENARIO, __VA_ARGS__)

static int majority(sim_world *w)
{
    return w->p.voters / 2 + 1;
}

static int32_t status_epoch(sim_world *w, int idx)
{
    raft_status st;
    return sim_node_status(w, idx, &st) ? st.epoch : -1;
}

static int64_t status_hw(sim_world *w, int idx)
{
    raft_status st;
    return sim_node_status(w, idx, &st) ? st.high_watermark : -1;
}

static bool pred_leader(sim_world *w, void *ctx)
{
    (void)ctx;
    return sim_current_leader(w) >= 0;
}

/* A leader every running node follows. */
static bool pred_leader_known(sim_world *w, void *ctx)
{
    (void)ctx;
    int L = sim_current_leader(w);
    if (L < 0)
        return false;
    raft_status ls;
    sim_node_status(w, L, &ls);
    for (int i = 0; i < w->n; i++) {
        raft_status st;
        if (sim_node_status(w, i, &st) && (st.leader_id != w->nodes[L].id || st.epoch != ls.epoch))
            return false;
    }
    return true;
}

/* A leader newer than epoch *ctx. */
static bool pred_newer_leader(sim_world *w, void *ctx)
{
    int L = sim_current_leader(w);
    return L >= 0 && status_epoch(w, L) > *(int32_t *)ctx;
}

/* A crash point: the current leader holds appended-but-unflushed data (a
 * crash loses it). Taken at once if the leader's HW already covers some of
 * it (the most damaging moment; correct code never gets there), otherwise at
 * a quarter of such events, so it falls anywhere in that window. */
static bool pred_leader_unflushed(sim_world *w, void *ctx)
{
    (void)ctx;
    int L = sim_current_leader(w);
    if (L < 0 || w->nodes[L].log.n == w->nodes[L].log.durable_n)
        return false;
    return status_hw(w, L) > sim_log_durable_end(&w->nodes[L].log) ||
           sim_prng_below(&w->rng, 4) == 0;
}

static bool pred_values(sim_world *w, void *ctx)
{
    return w->inv.values_n >= *(size_t *)ctx;
}

static bool pred_stopped(sim_world *w, void *ctx)
{
    return !w->nodes[*(int *)ctx].running;
}

static bool pred_caught_up(sim_world *w, void *ctx)
{
    (void)ctx;
    int L = sim_current_leader(w);
    if (L < 0)
        return false;
    int64_t hw = status_hw(w, L);
    if (hw < 0 || hw < w->inv.hw_floor)
        return false;
    const sim_log *ll = &w->nodes[L].log;
    for (int i = 0; i < w->n; i++) {
        const sim_log *l = &w->nodes[i].log;
        if (!w->nodes[i].running || sim_log_durable_end(l) < hw ||
            !sim_log_prefix_equal(l, l->durable_n, ll, ll->n, hw))
            return false;
    }
    return true;
}

static void start_all(sim_world *w)
{
    for (int i = 0; i < w->n && !w->failed; i++)
        sim_node_start(w, i);
}

static int wait_leader(sim_world *w, const char *what)
{
    if (!sim_run_until(w, pred_leader, NULL, LIVENESS_MS)) {
        liveness_fail(w, "no leader within %d ms %s", LIVENESS_MS, what);
        return -1;
    }
    return sim_current_leader(w);
}

static int wait_newer_leader(sim_world *w, int32_t epoch, const char *what)
{
    if (!sim_run_until(w, pred_newer_leader, &epoch, LIVENESS_MS)) {
        liveness_fail(w, "no leader newer than epoch %d within %d ms %s", epoch, LIVENESS_MS,
                 what);
        return -1;
    }
    return sim_current_leader(w);
}

/* Client appends until k more values are committed. */
static void commit_values(sim_world *w, size_t k, const char *what)
{
    size_t target = w->inv.values_n + k;
    bool was_on = w->client_on;
    if (!was_on)
        sim_client_set(w, true);
    if (!sim_run_until(w, pred_values, &target, LIVENESS_MS))
        liveness_fail(w, "%zu values not committed within %d ms %s", k, LIVENESS_MS, what);
    if (!was_on)
        sim_client_set(w, false);
}

/* Runs on until the leader holds unflushed data (at most ms): half the time,
 * so crashes hit both an idle and a busy disk. */
static void maybe_await_unflushed(sim_world *w, int64_t ms)
{
    if (sim_prng_below(&w->rng, 2))
        sim_run_until(w, pred_leader_unflushed, NULL, ms);
}

static void heal_and_converge(sim_world *w)
{
    if (w->failed)
        return;
    sim_trace(w, "=== heal and converge");
    sim_net_heal(&w->net);
    w->net.loss_ppm = 0;
    w->net.dup_ppm = 0;
    sim_client_set(w, false);
    for (int i = 0; i < w->n && !w->failed; i++) {
        if (w->nodes[i].running && w->nodes[i].shutting_down)
            sim_node_stop(w, i);
        if (!w->nodes[i].running)
            sim_node_start(w, i);
    }
    if (wait_leader(w, "after healing") < 0)
        return;
    commit_values(w, 1, "after healing");
    if (w->failed)
        return;
    if (!sim_run_until(w, pred_caught_up, NULL, LIVENESS_MS)) {
        if (!w->failed)
            liveness_fail(w, "nodes did not catch up with the leader within %d ms after healing",
                     LIVENESS_MS);
        return;
    }
    int L = sim_current_leader(w);
    sim_inv_final(w, status_hw(w, L));
}

static void sc_initial_election(sim_world *w)
{
    start_all(w);
    if (!sim_run_until(w, pred_leader_known, NULL, LIVENESS_MS)) {
        liveness_fail(w, "nodes do not agree on a leader within %d ms", LIVENESS_MS);
        return;
    }
    commit_values(w, 10, "after the first election");
    heal_and_converge(w);
}

static void sc_replication(sim_world *w)
{
    start_all(w);
    int L = wait_leader(w, "at start");
    if (L < 0)
        return;
    int32_t e = status_epoch(w, L);
    commit_values(w, 50, "without faults");
    if (!w->failed && w->inv.max_leader_epoch != e)
        scenario_fail(w, "leader changed from epoch %d to %d without any fault", e,
                 w->inv.max_leader_epoch);
    heal_and_converge(w);
}

static void crash_or_shutdown(sim_world *w, int idx, bool graceful)
{
    if (!graceful) {
        sim_node_stop(w, idx);
        return;
    }
    sim_node_shutdown(w, idx, 5000);
    sim_run_until(w, pred_stopped, &idx, 6000);
    if (!w->failed && w->nodes[idx].running)
        liveness_fail(w, "graceful shutdown of node %d did not stop it", w->nodes[idx].id);
}

static void leader_failure(sim_world *w, bool graceful)
{
    start_all(w);
    int L = wait_leader(w, "at start");
    if (L < 0)
        return;
    commit_values(w, 10, "before the leader fails");
    L = sim_current_leader(w);
    if (L < 0 || w->failed)
        return;
    int32_t e = status_epoch(w, L);
    sim_client_set(w, true);
    sim_run_for(w, sim_prng_range(&w->rng, 0, 200));
    maybe_await_unflushed(w, 2000);
    L = sim_current_leader(w);
    if (L < 0 || w->failed)
        return;
    crash_or_shutdown(w, L, graceful);
    if (w->p.voters - 1 >= majority(w)) {
        if (wait_newer_leader(w, e, "after the leader failed") < 0)
            return;
        commit_values(w, 10, "after the new election");
    }
    sim_run_for(w, sim_prng_range(&w->rng, 0, 3000));
    sim_node_start(w, L);
    heal_and_converge(w);
}

static void sc_leader_crash(sim_world *w)
{
    leader_failure(w, false);
}

static void sc_leader_shutdown(sim_world *w)
{
    leader_failure(w, true);
}

static void sc_all_fail(sim_world *w)
{
    start_all(w);
    if (wait_leader(w, "at start") < 0)
        return;
    sim_client_set(w, true);
    commit_values(w, 10, "before all fail");
    /* Half the time a power cut: the leader first, while it holds unflushed
     * data, then everyone at the same instant; otherwise one by one. */
    bool at_once = sim_prng_below(&w->rng, 2);
    if (at_once) {
        sim_run_until(w, pred_leader_unflushed, NULL, 2000);
        int L = sim_current_leader(w);
        if (L >= 0)
            sim_node_stop(w, L);
    }
    for (int i = 0; i < w->n && !w->failed; i++) {
        if (!at_once)
            sim_run_for(w, sim_prng_range(&w->rng, 0, 50));
        sim_node_stop(w, (int)((i + w->p.seed) % (uint64_t)w->n));
    }
    sim_run_for(w, sim_prng_range(&w->rng, 0, 5000));
    for (int i = 0; i < w->n && !w->failed; i++) {
        sim_node_start(w, i);
        sim_run_for(w, sim_prng_range(&w->rng, 0, 300));
    }
    if (wait_leader(w, "after all nodes failed") < 0)
        return;
    commit_values(w, 10, "after recovery");
    heal_and_converge(w);
}

static void sc_leader_partition(sim_world *w)
{
    start_all(w);
    int L = wait_leader(w, "at start");
    if (L < 0)
        return;
    sim_client_set(w, true);
    commit_values(w, 10, "before the partition");
    L = sim_current_leader(w);
    if (L < 0 || w->failed)
        return;
    int32_t e = status_epoch(w, L);
    sim_net_isolate(&w->net, L);
    sim_trace(w, "=== isolate leader %d", w->nodes[L].id);
    if (w->p.voters - 1 >= majority(w)) {
        if (wait_newer_leader(w, e, "after the leader was partitioned away") < 0)
            return;
        commit_values(w, 10, "on the majority side");
    } else {
        sim_run_for(w, sim_prng_range(&w->rng, 1000, 5000));
    }
    heal_and_converge(w);
}

static void sc_multi_partition(sim_world *w)
{
    start_all(w);
    if (wait_leader(w, "at start") < 0)
        return;
    sim_client_set(w, true);
    commit_values(w, 10, "before the partition");
    /* Random majority of voters; observers scattered. */
    uint32_t mask = 0;
    int voters_in = 0;
    int order[SIM_NODES_MAX];
    for (int i = 0; i < w->p.voters; i++)
        order[i] = i;
    for (int i = w->p.voters - 1; i > 0; i--) {
        int j = (int)sim_prng_below(&w->rng, (uint64_t)i + 1);
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int i = 0; i < majority(w); i++, voters_in++)
        mask |= 1u << order[i];
    for (int i = w->p.voters; i < w->n; i++)
        if (sim_prng_below(&w->rng, 2))
            mask |= 1u << i;
    sim_net_split(&w->net, mask);
    sim_trace(w, "=== split majority mask %#x", mask);
    /* Pre-vote (KIP-996): cut off from a majority, the minority side never
     * gets enough pre-votes to stand, so no epoch there rises above the
     * highest one it already knew (messages in flight across the cut are
     * dropped at delivery). */
    int32_t minority_epoch = -1;
    for (int i = 0; i < w->n; i++)
        if (!((mask >> i) & 1u) && status_epoch(w, i) > minority_epoch)
            minority_epoch = status_epoch(w, i);
    int32_t e = w->inv.max_leader_epoch;
    int L = sim_current_leader(w);
    if (L < 0 || !((mask >> L) & 1u)) {
        if (wait_newer_leader(w, e, "on the majority side") < 0)
            return;
    }
    commit_values(w, 10, "on the majority side");
    L = sim_current_leader(w);
    if (w->failed || L < 0)
        return;
    if (!((mask >> L) & 1u)) {
        scenario_fail(w, "leader %d is on the minority side", w->nodes[L].id);
        return;
    }
    int64_t hw = status_hw(w, L);
    for (int i = 0; i < w->n; i++) {
        if ((mask >> i) & 1u)
            continue;
        int64_t mhw = status_hw(w, i);
        if (w->nodes[i].running && mhw >= hw)
            scenario_fail(w, "minority node %d has HW %lld, not below the majority's %lld",
                     w->nodes[i].id, (long long)mhw, (long long)hw);
        int32_t me = status_epoch(w, i);
        if (me > minority_epoch)
            scenario_fail(w, "minority node %d raised its epoch to %d while partitioned "
                             "(the minority side knew %d)",
                          w->nodes[i].id, me, minority_epoch);
    }
    heal_and_converge(w);
}

static void sc_back_to_back(sim_world *w)
{
    start_all(w);
    int L1 = wait_leader(w, "at start");
    if (L1 < 0)
        return;
    sim_client_set(w, true);
    commit_values(w, 5, "at start");
    maybe_await_unflushed(w, 2000);
    L1 = sim_current_leader(w);
    if (L1 < 0 || w->failed)
        return;
    int32_t e1 = status_epoch(w, L1);
    sim_node_stop(w, L1);
    if (w->p.voters - 1 >= majority(w)) {
        int L2 = wait_newer_leader(w, e1, "after the first leader failed");
        if (L2 < 0)
            return;
        sim_node_start(w, L1);
        sim_run_for(w, sim_prng_range(&w->rng, 0, 100));
        maybe_await_unflushed(w, 2000);
        L2 = sim_current_leader(w);
        if (L2 < 0 || w->failed) {
            heal_and_converge(w);
            return;
        }
        int32_t e2 = status_epoch(w, L2);
        sim_node_stop(w, L2);
        if (wait_newer_leader(w, e2, "after the second leader failed") < 0)
            return;
        commit_values(w, 5, "after two failures");
    } else {
        sim_run_for(w, sim_prng_range(&w->rng, 0, 2000));
    }
    heal_and_converge(w);
}

static int random_node(sim_world *w, bool running)
{
    int cand[SIM_NODES_MAX], n = 0;
    for (int i = 0; i < w->n; i++)
        if (w->nodes[i].running == running && !w->nodes[i].shutting_down)
            cand[n++] = i;
    return n ? cand[sim_prng_below(&w->rng, (uint64_t)n)] : -1;
}

static void sc_random(sim_world *w)
{
    start_all(w);
    sim_client_set(w, true);
    w->net.loss_ppm = (uint32_t)sim_prng_range(&w->rng, 0, 50000);
    w->net.dup_ppm = (uint32_t)sim_prng_range(&w->rng, 0, 50000);
    int64_t end = w->now + sim_prng_range(&w->rng, 10000, 40000);
    while (w->now < end && !w->failed) {
        sim_run_for(w, sim_prng_range(&w->rng, 50, 3000));
        if (w->failed)
            break;
        uint64_t roll = sim_prng_below(&w->rng, 100);
        int idx;
        if (roll < 20) {
            idx = sim_current_leader(w);
            if (idx < 0 || sim_prng_below(&w->rng, 2)) {
                idx = random_node(w, true);
            } else {
                maybe_await_unflushed(w, 1000);
                idx = sim_current_leader(w);
            }
            if (idx >= 0) {
                sim_trace(w, "=== crash node %d", w->nodes[idx].id);
                sim_node_stop(w, idx);
            }
        } else if (roll < 42) {
            idx = random_node(w, false);
            if (idx >= 0)
                sim_node_start(w, idx);
        } else if (roll < 50) {
            idx = sim_current_leader(w);
            if (idx < 0 || sim_prng_below(&w->rng, 2))
                idx = random_node(w, true);
            if (idx >= 0)
                sim_node_shutdown(w, idx, sim_prng_range(&w->rng, 500, 5000));
        } else if (roll < 62) {
            uint32_t all = (w->n >= 32) ? 0xffffffffu : ((1u << w->n) - 1);
            uint32_t mask = (uint32_t)sim_prng_below(&w->rng, (uint64_t)all + 1);
            sim_trace(w, "=== split %#x", mask);
            sim_net_split(&w->net, mask);
        } else if (roll < 70) {
            int a = (int)sim_prng_below(&w->rng, (uint64_t)w->n);
            int b = (int)sim_prng_below(&w->rng, (uint64_t)w->n);
            sim_trace(w, "=== cut %d -> %d", a + 1, b + 1);
            w->net.cut[a][b] = true;
        } else if (roll < 86) {
            sim_trace(w, "=== heal");
            sim_net_heal(&w->net);
        } else if (roll < 92) {
            w->net.loss_ppm = (uint32_t)sim_prng_range(&w->rng, 0, 100000);
            w->net.dup_ppm = (uint32_t)sim_prng_range(&w->rng, 0, 50000);
        }
    }
    heal_and_converge(w);
}

const sim_scenario sim_scenarios[] = {
    {"initial-election", sc_initial_election},
    {"replication", sc_replication},
    {"leader-crash", sc_leader_crash},
    {"leader-shutdown", sc_leader_shutdown},
    {"all-fail", sc_all_fail},
    {"leader-partition", sc_leader_partition},
    {"multi-partition", sc_multi_partition},
    {"back-to-back", sc_back_to_back},
    {"random", sc_random},
};
const int sim_scenario_count = (int)(sizeof(sim_scenarios) / sizeof(sim_scenarios[0]));

const sim_scenario *sim_scenario_find(const char *name)
{
    for (int i = 0; i < sim_scenario_count; i++)
        if (strcmp(sim_scenarios[i].name, name) == 0)
            return &sim_scenarios[i];
    return NULL;
}
