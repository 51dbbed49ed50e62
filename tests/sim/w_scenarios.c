/* Scenarios: fault schedules for whole servers under client load. Each ends
 * by healing everything, restarting every node and checking liveness, then
 * the final consistency check (w_final.c). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "w_check_internal.h"
#include "w_client.h"
#include "w_scenarios.h"

#define LIVENESS_MS 60000

__attribute__((format(printf, 3, 4))) static void check_fail(w_world *w, enum w_check_id c,
                                                              const char *fmt, ...)
{
    if (!w_check_on(w, c) || w->failed)
        return;
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    w_fail(w, "%s: %s", w_check_names[c], msg);
}
#define liveness_fail(w, ...) check_fail(w, W_CHECK_LIVENESS, __VA_ARGS__)
#define scenario_fail(w, ...) check_fail(w, W_CHECK_SCENARIO, __VA_ARGS__)

static int majority(const w_world *w)
{
    return w->p.voters / 2 + 1;
}

static raft_status status(const w_world *w, int idx)
{
    raft_status st;
    if (!w_node_status(w, idx, &st)) {
        memset(&st, 0, sizeof(st));
        st.epoch = -1;
        st.high_watermark = -1;
        st.role = RAFT_ROLE_UNATTACHED;
    }
    return st;
}

static bool pred_leader(w_world *w, void *ctx)
{
    (void)ctx;
    return w_current_leader(w) >= 0;
}

static bool pred_newer_leader(w_world *w, void *ctx)
{
    int L = w_current_leader(w);
    return L >= 0 && status(w, L).epoch > *(int32_t *)ctx;
}

static bool pred_acked(w_world *w, void *ctx)
{
    return w->check->acked_n >= *(size_t *)ctx;
}

static bool pred_clients_idle(w_world *w, void *ctx)
{
    (void)ctx;
    for (int i = 0; i < w->client_n; i++)
        if (!w_client_idle(w->clients[i]))
            return false;
    return true;
}

/* The leader's HW covers everything ever committed and every live node has
 * flushed up to it. */
static bool pred_caught_up(w_world *w, void *ctx)
{
    (void)ctx;
    int L = w_current_leader(w);
    if (L < 0)
        return false;
    int64_t hw = status(w, L).high_watermark;
    if (hw < 0 || hw < w->check->hw_floor ||
        hw != kq_log_end_offset(exec_log(w->nodes[L].x)))
        return false;
    raft_status ls = status(w, L);
    for (int i = 0; i < w->n; i++) {
        if (!w_node_alive(w, i))
            continue;
        raft_status st = status(w, i);
        /* following this leader, past the divergence check (HW known) */
        if (w_flushed(w, i) < hw || st.epoch != ls.epoch || st.leader_id != w->nodes[L].id ||
            st.high_watermark < hw)
            return false;
    }
    return true;
}

static int wait_leader(w_world *w, const char *what);

static int wait_leader(w_world *w, const char *what)
{
    if (!w_run_until(w, pred_leader, NULL, LIVENESS_MS)) {
        liveness_fail(w, "no leader within %d ms %s", LIVENESS_MS, what);
        return -1;
    }
    return w_current_leader(w);
}

static int wait_newer_leader(w_world *w, int32_t epoch, const char *what)
{
    if (!w_run_until(w, pred_newer_leader, &epoch, LIVENESS_MS)) {
        liveness_fail(w, "no leader newer than epoch %d within %d ms %s", epoch, LIVENESS_MS,
                      what);
        return -1;
    }
    return w_current_leader(w);
}

/* Client load until k more acks=-1 successes. */
static void ack_values(w_world *w, size_t k, const char *what)
{
    size_t target = w->check->acked_n + k;
    if (!w_run_until(w, pred_acked, &target, LIVENESS_MS))
        liveness_fail(w, "%zu acknowledged writes not reached within %d ms %s", k, LIVENESS_MS,
                      what);
}

static void start_all(w_world *w)
{
    for (int i = 0; i < w->n && !w->failed; i++)
        w_node_start(w, i);
}

static void clear_faults(w_world *w)
{
    w_net_heal(w);
    w->loss_ppm = w->dup_ppm = w->tail_ppm = 0;
    for (int i = 0; i < w->n; i++) {
        sim_fs_clear_faults(w->nodes[i].fs);
        w->nodes[i].crash_ppm = 0;
        w->nodes[i].slow_disk = false;
    }
}

static void heal_and_converge(w_world *w)
{
    if (w->failed)
        return;
    w_trace(w, "=== heal and converge");
    clear_faults(w);
    for (int i = 0; i < w->client_n; i++)
        w_client_stop_new(w->clients[i]);
    /* The built-in workload would keep the HW moving: stopped here and in
     * every node started from now on. */
    w->cfg.workload_records_per_s = 0;
    for (int i = 0; i < w->n; i++)
        if (w->nodes[i].running)
            exec_workload_stop(w->nodes[i].x);
    for (int i = 0; i < w->n && !w->failed; i++) {
        if (w->nodes[i].running && w->nodes[i].shutting_down)
            w_node_crash(w, i, W_CRASH_PROCESS_KILL); /* its shutdown ends here */
        if (!w->nodes[i].running && !w_node_start(w, i) && !w->nodes[i].corrupted)
            liveness_fail(w, "node %d refuses to start after healing", i + 1);
    }
    if (wait_leader(w, "after healing") < 0)
        return;
    if (!w_run_until(w, pred_clients_idle, NULL, LIVENESS_MS)) {
        liveness_fail(w, "clients still have requests unanswered %d ms after healing",
                      LIVENESS_MS);
        return;
    }
    if (!w_run_until(w, pred_caught_up, NULL, LIVENESS_MS)) {
        liveness_fail(w, "nodes did not catch up within %d ms after healing", LIVENESS_MS);
        return;
    }
    int L = w_current_leader(w);
    w_check_final(w, L, status(w, L).high_watermark);
}

/* ---- leader failures */

/* Half the time the leader dies at a random action of one of its outputs
 * (within 2 s), otherwise now, by power loss or process kill. */
static void kill_node(w_world *w, int idx)
{
    if (sim_prng_below(&w->rng, 2)) {
        w->nodes[idx].crash_ppm = 30000;
        int64_t until = w->now + 2000;
        while (!w->failed && w->nodes[idx].running && w->now < until)
            w_run_event(w);
        w->nodes[idx].crash_ppm = 0;
    }
    w_node_crash(w, idx, sim_prng_below(&w->rng, 2) ? W_CRASH_POWER_LOSS : W_CRASH_PROCESS_KILL);
}

static void stop_node(w_world *w, int idx, bool graceful)
{
    if (!graceful) {
        kill_node(w, idx);
        return;
    }
    w_node_shutdown(w, idx);
    int64_t until = w->now + 6000;
    while (!w->failed && w->nodes[idx].running && w->now < until)
        w_run_event(w);
    if (w->nodes[idx].running)
        w_node_crash(w, idx, W_CRASH_PROCESS_KILL); /* the shutdown deadline */
}

/* The survivors may die at any action while they elect (between a vote
 * leaving and the quorum state that records it, say), for up to 2 s; then
 * they restart. */
static void crashy_election(w_world *w, int gone, int32_t epoch)
{
    for (int i = 0; i < w->n; i++)
        if (i != gone)
            w->nodes[i].crash_ppm = 100000;
    w_run_until(w, pred_newer_leader, &epoch, 2000);
    for (int i = 0; i < w->n && !w->failed; i++) {
        w->nodes[i].crash_ppm = 0;
        if (i != gone && !w->nodes[i].running)
            w_node_start(w, i);
    }
}

static bool pred_members_stable(w_world *w, void *ctx)
{
    (void)ctx;
    for (int i = 0; i < w->client_n; i++)
        if (!w_client_member_stable(w->clients[i]))
            return false;
    return true;
}

/* Issue 24: group members joined and synced (at most a join's initial
 * delay and a rebalance later), so that the leader fails over stable
 * members (group-membership-kept). Not a liveness check. */
#define MEMBERS_STABLE_WAIT_MS 15000

static void leader_failure(w_world *w, bool graceful, int rounds)
{
    start_all(w);
    if (wait_leader(w, "at start") < 0)
        return;
    ack_values(w, 10, "before the leader fails");
    w_run_until(w, pred_members_stable, NULL, MEMBERS_STABLE_WAIT_MS);
    for (int r = 0; r < rounds && !w->failed; r++) {
        int L = w_current_leader(w);
        if (L < 0)
            return;
        int32_t e = status(w, L).epoch;
        w_run_for(w, sim_prng_range(&w->rng, 0, 300));
        if (r > 0) /* the members back (they kept their ids: issue 24) */
            w_run_until(w, pred_members_stable, NULL, MEMBERS_STABLE_WAIT_MS);
        L = w_current_leader(w);
        if (L < 0)
            continue;
        stop_node(w, L, graceful);
        if (sim_prng_below(&w->rng, 2))
            crashy_election(w, L, e);
        if (w->p.voters - 1 >= majority(w)) {
            if (wait_newer_leader(w, e, "after the leader failed") < 0)
                return;
            ack_values(w, 5, "after the new election");
        }
        w_run_for(w, sim_prng_range(&w->rng, 0, 3000));
        w_node_start(w, L);
    }
    heal_and_converge(w);
}

static void sc_leader_crash(w_world *w)
{
    leader_failure(w, false, 1);
}
static void sc_leader_shutdown(w_world *w)
{
    leader_failure(w, true, 1);
}
static void sc_back_to_back(w_world *w)
{
    leader_failure(w, false, 3);
}

static void sc_initial_election(w_world *w)
{
    start_all(w);
    if (wait_leader(w, "at start") < 0)
        return;
    ack_values(w, 10, "after the first election");
    heal_and_converge(w);
}

/* No faults: the first leader stays (pre-vote, check-quorum quiet). */
static void sc_replication(w_world *w)
{
    w->slow_disks = false; /* a multi-second fsync is a fault too */
    start_all(w);
    int L = wait_leader(w, "at start");
    if (L < 0)
        return;
    w_run_for(w, 3000); /* the election settles */
    L = w_current_leader(w);
    int32_t e = L >= 0 ? status(w, L).epoch : -1;
    ack_values(w, 40, "without faults");
    if (!w->failed && w->check->max_leader_epoch != e)
        scenario_fail(w, "leader changed from epoch %d to %d without any fault", e,
                      w->check->max_leader_epoch);
    heal_and_converge(w);
}

static void sc_all_fail(w_world *w)
{
    start_all(w);
    if (wait_leader(w, "at start") < 0)
        return;
    ack_values(w, 10, "before the power cut");
    w_run_for(w, sim_prng_range(&w->rng, 0, 500));
    bool power = sim_prng_below(&w->rng, 2);
    for (int i = 0; i < w->n; i++)
        w_node_crash(w, i, power ? W_CRASH_POWER_LOSS : W_CRASH_PROCESS_KILL);
    w_run_for(w, sim_prng_range(&w->rng, 0, 2000));
    start_all(w);
    if (wait_leader(w, "after everything restarted") < 0)
        return;
    ack_values(w, 5, "after everything restarted");
    heal_and_converge(w);
}

static void sc_leader_partition(w_world *w)
{
    start_all(w);
    int L = wait_leader(w, "at start");
    if (L < 0)
        return;
    ack_values(w, 10, "before the partition");
    L = w_current_leader(w);
    if (L < 0)
        return;
    int32_t e = status(w, L).epoch;
    bool side[SIM_NODES_MAX] = {false};
    side[L] = true;
    /* Half the time its disk is slow too: the clients' appends it still
     * takes are being flushed when it learns of the new leader and truncates
     * them (a flush racing a truncation). */
    bool slow = sim_prng_below(&w->rng, 2);
    w->nodes[L].slow_disk = slow;
    w_net_partition(w, side);
    if (w->p.voters - 1 >= majority(w) && w->p.voters > 1) {
        if (wait_newer_leader(w, e, "after the leader was cut off") < 0)
            return;
        ack_values(w, 5, "on the majority side");
    }
    w_run_for(w, sim_prng_range(&w->rng, 1000, 5000));
    if (slow) {
        w_net_heal(w);
        w_run_for(w, 6000);
        w->nodes[L].slow_disk = false;
    }
    heal_and_converge(w);
}

static void sc_multi_partition(w_world *w)
{
    start_all(w);
    if (wait_leader(w, "at start") < 0)
        return;
    ack_values(w, 10, "before the split");
    for (int round = 0; round < 3 && !w->failed; round++) {
        bool side[SIM_NODES_MAX];
        for (int i = 0; i < w->n; i++)
            side[i] = sim_prng_below(&w->rng, 2);
        w_net_partition(w, side);
        w_run_for(w, sim_prng_range(&w->rng, 500, 6000));
        w_net_heal(w);
        w_run_for(w, sim_prng_range(&w->rng, 0, 3000));
    }
    heal_and_converge(w);
}

/* A follower cut off (or paused) for several election timeouts comes back
 * with a stale view: with pre-vote and a live leader on a connected majority,
 * the leader stays. */
static void sc_isolated_voter(w_world *w)
{
    w->slow_disks = false; /* only the one voter misbehaves */
    start_all(w);
    int L = wait_leader(w, "at start");
    if (L < 0)
        return;
    w_run_for(w, 3000);
    ack_values(w, 10, "before the isolation");
    L = w_current_leader(w);
    if (L < 0 || w->p.voters < 3)
        return heal_and_converge(w);
    int32_t e = status(w, L).epoch;
    int f = (L + 1 + (int)sim_prng_below(&w->rng, (uint64_t)w->p.voters - 1)) % w->p.voters;
    /* Half the time no new records meanwhile: the voter comes back with a
     * log as long as everyone's, so only leader contact stops its pre-vote. */
    bool quiet = sim_prng_below(&w->rng, 2);
    if (quiet) {
        w->clients_on = false;
        w_run_until(w, pred_clients_idle, NULL, 10000);
    }
    if (sim_prng_below(&w->rng, 2)) {
        bool side[SIM_NODES_MAX] = {false};
        side[f] = true;
        w_net_partition(w, side);
        w_run_for(w, sim_prng_range(&w->rng, 3000, 8000));
        w_net_heal(w);
    } else {
        w_node_pause(w, f, sim_prng_range(&w->rng, 3000, 8000));
        w_run_for(w, 8000);
    }
    if (quiet)
        w_run_for(w, 3000);
    w->clients_on = true;
    ack_values(w, 10, "after the voter came back");
    w_run_for(w, 5000);
    if (!w->failed && w->check->max_leader_epoch != e)
        scenario_fail(w, "node %d came back and the leader changed (epoch %d to %d) though a "
                      "majority stayed connected", f + 1, e, w->check->max_leader_epoch);
    heal_and_converge(w);
}

/* One replica's disk misbehaves: fsync EIO, ENOSPC, short writes, read EIO.
 * The node must stop (nothing acknowledged after) and the rest go on. */
static void sc_storage_faults(w_world *w)
{
    start_all(w);
    if (wait_leader(w, "at start") < 0)
        return;
    ack_values(w, 10, "before the disk fault");
    int victim = sim_prng_below(&w->rng, 2) && w_current_leader(w) >= 0
                     ? w_current_leader(w)
                     : (int)sim_prng_below(&w->rng, (uint64_t)w->n);
    sim_fs *fs = w->nodes[victim].fs;
    w->nodes[victim].disk_faulted = true;
    uint64_t kind = sim_prng_below(&w->rng, 5);
    static const char *const kinds[] = {"fsync EIO", "pwrite ENOSPC", "short pwrite",
                                        "pread EIO", "bit flip"};
    if (kind == 4) {
        /* Only where the rest keeps a majority, or the only copy must refuse. */
        bool rest_has_majority = !w->nodes[victim].voter || w->p.voters - 1 >= majority(w);
        if (w->p.voters != 1 && !rest_has_majority)
            kind = 0;
    }
    w_trace(w, "=== disk fault (%s) armed on node %d", kinds[kind], victim + 1);
    switch (kind) {
    case 0:
        sim_fs_fail_fsync(fs, 1, -EIO);
        break;
    case 1:
        sim_fs_fail_pwrite(fs, 1, -ENOSPC);
        break;
    case 2:
        sim_fs_short_pwrite(fs, 1, &w->rng);
        break;
    case 3:
        sim_fs_fail_pread(fs, 1, -EIO);
        break;
    default:
        w_run_for(w, sim_prng_range(&w->rng, 0, 1000));
        if (!w_bitflip(w, victim))
            return; /* the only voter refused its corrupt log: nothing more to check */
        break;
    }
    w_run_for(w, sim_prng_range(&w->rng, 2000, 6000));
    sim_fs_clear_faults(fs);
    heal_and_converge(w);
}

/* Issue 20 item 6, "disk replacement without loss": the voters that lack
 * the last records (cut off while they were written and acknowledged by
 * the leader and the rest of a majority) plus one of those that have them,
 * whose disk is then replaced by an empty one, are a majority once the
 * leader dies. The new directory must not help elect one of them: every
 * acknowledged record must survive (committed-data, final). */
static void sc_disk_replaced(w_world *w)
{
    w->slow_disks = false;
    start_all(w);
    if (wait_leader(w, "at start") < 0)
        return;
    ack_values(w, 10, "before the disk replacement");
    int L = w_current_leader(w);
    int voters = w->p.voters;
    if (L < 0 || voters < 3)
        return heal_and_converge(w);
    int behind = voters - majority(w); /* cut off: they miss the records */
    int order[SIM_NODES_MAX], k = 0;
    int start = (int)sim_prng_below(&w->rng, (uint64_t)voters);
    for (int i = 0; i < voters; i++)
        if ((start + i) % voters != L)
            order[k++] = (start + i) % voters;
    bool side[SIM_NODES_MAX] = {false};
    for (int i = 0; i < behind; i++)
        side[order[i]] = true;
    int wiped = order[behind];
    w_trace(w, "=== disk replacement: %d voter(s) cut off, node %d to be replaced", behind,
            wiped + 1);
    w_net_partition(w, side);
    /* The 1,000 records (the slowest worlds go on with fewer) */
    size_t target = w->check->acked_n + 1000;
    w_run_until(w, pred_acked, &target, 3 * LIVENESS_MS);
    /* Answers still on their way are checked against the disks when they
     * arrive (acked-durable): let them land before a disk goes. */
    w->clients_on = false;
    w_run_until(w, pred_clients_idle, NULL, 10000);
    w_node_crash(w, L, sim_prng_below(&w->rng, 2) ? W_CRASH_POWER_LOSS : W_CRASH_PROCESS_KILL);
    w_node_replace_disk(w, wiped);
    w_node_start(w, wiped);
    w_net_heal(w);
    w_run_for(w, sim_prng_range(&w->rng, 5000, 15000)); /* an election without the leader */
    w->clients_on = true;
    w_node_start(w, L);
    heal_and_converge(w);
}

static void sc_random(w_world *w)
{
    start_all(w);
    if (wait_leader(w, "at start") < 0)
        return;
    w->loss_ppm = (uint32_t)sim_prng_below(&w->rng, 20000);
    w->dup_ppm = (uint32_t)sim_prng_below(&w->rng, 20000);
    w->tail_ppm = (uint32_t)sim_prng_below(&w->rng, 5000);
    int64_t end = w->now + sim_prng_range(&w->rng, 10000, 30000);
    while (!w->failed && w->now < end) {
        w_run_for(w, sim_prng_range(&w->rng, 100, 2000));
        int i = (int)sim_prng_below(&w->rng, (uint64_t)w->n);
        switch (sim_prng_below(&w->rng, 9)) {
        case 8:
            w_net_reset(w, i, (int)sim_prng_below(&w->rng, (uint64_t)w->n));
            break;
        case 0:
            if (w->nodes[i].running)
                kill_node(w, i);
            else
                w_node_start(w, i);
            break;
        case 1:
            w_node_start(w, i);
            break;
        case 2: {
            bool side[SIM_NODES_MAX];
            for (int k = 0; k < w->n; k++)
                side[k] = sim_prng_below(&w->rng, 2);
            w_net_partition(w, side);
            break;
        }
        case 3:
            w_net_cut_one_way(w, i, (int)sim_prng_below(&w->rng, (uint64_t)w->n));
            break;
        case 4:
        case 5:
            w_net_heal(w);
            break;
        case 6:
            w_node_pause(w, i, sim_prng_range(&w->rng, 500, 5000));
            break;
        default:
            if (w->nodes[i].running)
                w_node_shutdown(w, i);
            break;
        }
    }
    heal_and_converge(w);
}

/* ---- reconfig (KIP-853, issue 20) */

typedef struct reconfig {
    w_client *op;
    int64_t fetch_timeout_ms;
} reconfig;

static bool pred_settled(w_world *w, void *ctx)
{
    (void)w;
    return w_operator_settled(((reconfig *)ctx)->op);
}

/* A running node that is (in) or is not a voter of the set in force now;
 * -1 when there is none. */
static int pick_node(w_world *w, bool in)
{
    const kq_voter_set *set = w_voters_now(w);
    int cand[SIM_NODES_MAX], k = 0;
    for (int i = 0; i < w->n; i++)
        if (set && w_node_alive(w, i) && w_in_set(w, set, i) == in)
            cand[k++] = i;
    return k ? cand[sim_prng_below(&w->rng, (uint64_t)k)] : -1;
}

static int set_count(const w_world *w)
{
    const kq_voter_set *set = w_voters_now(w);
    return set ? set->count : 0;
}

/* Faults while a change is out: a crash (at any action, half the time)
 * with a restart, a partition, a pause, or the leader's crash; then every
 * node runs again and the links heal. */
static void reconfig_faults(w_world *w)
{
    int64_t end = w->now + sim_prng_range(&w->rng, 0, 1500);
    int i = (int)sim_prng_below(&w->rng, (uint64_t)w->n);
    switch (sim_prng_below(&w->rng, 6)) {
    case 0:
        if (w->nodes[i].running)
            kill_node(w, i);
        break;
    case 1: {
        int L = w_current_leader(w);
        if (L >= 0)
            kill_node(w, L);
        break;
    }
    case 2: {
        bool side[SIM_NODES_MAX];
        for (int k = 0; k < w->n; k++)
            side[k] = sim_prng_below(&w->rng, 2);
        w_net_partition(w, side);
        break;
    }
    case 3:
        w_node_pause(w, i, sim_prng_range(&w->rng, 200, 3000));
        break;
    default:
        break; /* none */
    }
    if (w->now < end)
        w_run_for(w, end - w->now);
    w_net_heal(w);
    start_all(w);
}

/* Runs the operator's change to its end (liveness: within the bound). */
static bool reconfig_settle(w_world *w, reconfig *rc, const char *what)
{
    if (w_run_until(w, pred_settled, rc, LIVENESS_MS))
        return true;
    /* A replica that never catches up within the fetch timeout under the
     * load (the built-in workload with the smallest fetch size) is never
     * added, as in Kafka: the operator quiets the load. */
    w_trace(w, "=== reconfig: the %s waits; the load stops", what);
    w->clients_on = false;
    w->cfg.workload_records_per_s = 0;
    for (int i = 0; i < w->n; i++)
        if (w->nodes[i].running)
            exec_workload_stop(w->nodes[i].x);
    /* Catching up a long log with the smallest fetch size takes minutes. */
    bool ok = w_run_until(w, pred_settled, rc, 3 * LIVENESS_MS);
    w->clients_on = true;
    if (!ok)
        liveness_fail(w, "the operator's %s did not settle within %d ms", what, 4 * LIVENESS_MS);
    return ok;
}

static bool reconfig_change(w_world *w, reconfig *rc, w_op_kind kind, int idx, bool faults)
{
    if (!w_operator_change(w, rc->op, kind, w->nodes[idx].id, w->nodes[idx].dir))
        return false;
    if (faults)
        reconfig_faults(w);
    return reconfig_settle(w, rc, kind == W_OP_ADD ? "addition" : "removal");
}

/* Commits never stall in a fault-free window: with records above the
 * leader's HW, the HW moves within the fetch timeout (a voter added
 * before it caught up holds it back while it fetches the backlog). */
static void watch_commits(w_world *w, reconfig *rc, int64_t ms, const char *what)
{
    int64_t until = w->now + ms, since = w->now, hw = -1;
    int32_t epoch = -1;
    while (!w->failed && w->now < until && sim_sched_peek(&w->sched)) {
        if (pred_settled(w, rc) && until > w->now + 3000)
            until = w->now + 3000; /* and a little after */
        w_run_event(w);
        int L = w_current_leader(w);
        raft_status st = L >= 0 ? status(w, L) : (raft_status){.epoch = -1};
        if (L < 0 || st.epoch != epoch || st.high_watermark != hw ||
            st.log_end_offset <= st.high_watermark) {
            epoch = st.epoch;
            hw = L >= 0 ? st.high_watermark : -1;
            since = w->now;
        } else if (w->now - since > rc->fetch_timeout_ms) {
            scenario_fail(w, "leader %d's HW stayed at %lld for %lld ms with its log at %lld, "
                          "no fault, %s", L + 1, (long long)hw, (long long)(w->now - since),
                          (long long)st.log_end_offset, what);
            return;
        }
    }
}

/* A fault-free window: an observer that missed many records (stopped
 * while they were acknowledged) is added to the set right after it
 * starts; the leader waits until it caught up (KIP-853), so commits go on. */
static void reconfig_far_behind(w_world *w, reconfig *rc)
{
    /* Down to one voter first: then the new one is needed to commit. */
    int L = w_current_leader(w), other = pick_node(w, true);
    if (set_count(w) == 2 && L >= 0 && other >= 0 && other != L &&
        !reconfig_change(w, rc, W_OP_REMOVE, other, false))
        return;
    int idx = pick_node(w, false);
    if (idx < 0 || set_count(w) != 1 || w->failed)
        return;
    w_trace(w, "=== reconfig: node %d stops, misses records, comes back and is added", idx + 1);
    w->slow_disks = false;
    w_node_crash(w, idx, W_CRASH_PROCESS_KILL);
    /* As many as the world's clients get acknowledged in a while */
    size_t target = w->check->acked_n + (size_t)sim_prng_range(&w->rng, 300, 1000);
    w_run_until(w, pred_acked, &target, sim_prng_range(&w->rng, 5000, 30000));
    w_node_start(w, idx);
    if (w->failed || !w_operator_change(w, rc->op, W_OP_ADD, w->nodes[idx].id, w->nodes[idx].dir))
        return;
    watch_commits(w, rc, 3 * LIVENESS_MS / 2, "after a far-behind observer was added");
    if (!w->failed && !pred_settled(w, rc))
        reconfig_settle(w, rc, "addition of a far-behind observer");
    w->slow_disks = true;
}

/* A removed voter keeps fetching from the leader while the remaining
 * voters other than the leader are cut off from it: nothing may commit. */
static void reconfig_removed_fetches(w_world *w, reconfig *rc)
{
    int L = w_current_leader(w);
    if (L < 0 || set_count(w) < 3)
        return;
    int gone = pick_node(w, true);
    if (gone < 0 || gone == L || !reconfig_change(w, rc, W_OP_REMOVE, gone, false))
        return;
    L = w_current_leader(w);
    const kq_voter_set *set = w_voters_now(w);
    if (L < 0 || !set)
        return;
    bool side[SIM_NODES_MAX] = {false};
    for (int i = 0; i < w->n; i++)
        side[i] = i != L && i != gone && w_in_set(w, set, i);
    w_trace(w, "=== reconfig: node %d removed keeps fetching; the other voters lag", gone + 1);
    w_net_partition(w, side);
    w_run_for(w, sim_prng_range(&w->rng, 500, 3000));
    w_net_heal(w);
}

/* Two changes, the second sent as soon as the first settled: the leader
 * takes it only once the first is committed (one change at a time). */
static void reconfig_back_to_back(w_world *w, reconfig *rc)
{
    int add = pick_node(w, false), gone = pick_node(w, true);
    if (add >= 0 && !reconfig_change(w, rc, W_OP_ADD, add, false))
        return;
    if (gone >= 0 && gone != add && set_count(w) > 1)
        reconfig_change(w, rc, W_OP_REMOVE, gone, false);
}

/* The replaced voter joins by itself (controller.quorum.auto.join.enable,
 * KIP-1186): it asks the leader to remove its id's old directory, then to
 * add it once caught up. It must be a voter under its new directory within
 * the liveness bound; then it restarts without auto-join (as an operator
 * does before any later removal: an auto-joiner adds itself back). */
static bool pred_joined(w_world *w, void *arg)
{
    int idx = *(const int *)arg;
    const kq_voter_set *set = w_voters_now(w);
    return set && w_in_set(w, set, idx) && w_current_leader(w) >= 0;
}

static void reconfig_auto_join(w_world *w, int idx, kq_uuid old)
{
    w_trace(w, "=== reconfig: node %d joins by itself (auto-join)", idx + 1);
    w->nodes[idx].auto_join = true;
    w_node_start(w, idx);
    bool ok = w_run_until(w, pred_joined, &idx, LIVENESS_MS);
    if (!ok && !w->failed) { /* as reconfig_settle: catching up a long log */
        w_trace(w, "=== reconfig: the auto-join waits; the load stops");
        w->clients_on = false;
        w->cfg.workload_records_per_s = 0;
        for (int i = 0; i < w->n; i++)
            if (w->nodes[i].running)
                exec_workload_stop(w->nodes[i].x);
        /* a long log at the smallest fetch size: minutes (no snapshot) */
        ok = w_run_until(w, pred_joined, &idx, 6 * LIVENESS_MS);
        w->clients_on = true;
    }
    w->nodes[idx].auto_join = false;
    if (w->failed)
        return;
    if (!ok) {
        liveness_fail(w, "node %d's auto-join did not make it a voter within %d ms", idx + 1,
                      7 * LIVENESS_MS);
        return;
    }
    /* what it did stands for two settled changes: its old directory out,
     * the new one in */
    w_check_on_voter_change(w, false, w->nodes[idx].id, old);
    w_check_on_voter_change(w, true, w->nodes[idx].id, w->nodes[idx].dir);
    stop_node(w, idx, false);
    w_node_start(w, idx);
}

/* Disk replacement, the operator's way: stop the node, an empty disk
 * formatted with a new directory id, start it (an observer), remove the
 * old (id, dir), add the new one. Only where the rest keeps a majority. */
static void reconfig_replace_disk(w_world *w, reconfig *rc)
{
    int idx = pick_node(w, true);
    if (idx < 0 || set_count(w) < 3)
        idx = pick_node(w, false);
    if (idx < 0)
        return;
    const kq_voter_set *set = w_voters_now(w);
    bool voter = set && w_in_set(w, set, idx);
    kq_uuid old = w->nodes[idx].dir;
    w_trace(w, "=== reconfig: node %d's disk is replaced (%s)", idx + 1, voter ? "a voter" : "an observer");
    stop_node(w, idx, sim_prng_below(&w->rng, 2));
    w_node_replace_disk(w, idx);
    if (voter && sim_prng_below(&w->rng, 2)) {
        reconfig_auto_join(w, idx, old);
        return;
    }
    w_node_start(w, idx);
    if (!voter || w->failed)
        return;
    if (!w_operator_change(w, rc->op, W_OP_REMOVE, w->nodes[idx].id, old) ||
        !reconfig_settle(w, rc, "removal of a replaced directory"))
        return;
    w_run_for(w, sim_prng_range(&w->rng, 0, 2000));
    reconfig_change(w, rc, W_OP_ADD, idx, sim_prng_below(&w->rng, 2));
}

/* Adds and removes under load (the leader itself too), interleaved with
 * crashes, partitions and pauses, a disk replaced the operator's way, a
 * removed voter that keeps fetching and an add of a far-behind observer;
 * then the usual convergence and final checks, and every settled change
 * holds (w_check_voters.c). */
static void sc_reconfig(w_world *w)
{
    reconfig rc = {.fetch_timeout_ms = w->cfg.fetch_timeout_ms};
    w_format_world(w);
    if (w->client_n >= SIM_CLIENTS_MAX)
        return (void)w_fail(w, "harness: no room for the operator");
    rc.op = w->clients[w->client_n] = w_client_create(w, w->client_n, W_CLIENT_OPERATOR);
    w->client_n++;
    start_all(w);
    if (wait_leader(w, "at start") < 0)
        return;
    ack_values(w, 10, "before the first change");
    int rounds = (int)sim_prng_range(&w->rng, 4, 10);
    for (int r = 0; r < rounds && !w->failed; r++) {
        int L = w_current_leader(w);
        int count = set_count(w);
        bool faults = sim_prng_below(&w->rng, 2);
        switch (sim_prng_below(&w->rng, 10)) {
        case 0:
        case 1: {
            int idx = pick_node(w, false);
            if (idx >= 0)
                reconfig_change(w, &rc, W_OP_ADD, idx, faults);
            break;
        }
        case 2:
        case 3: {
            int idx = pick_node(w, true);
            if (idx >= 0 && count > 1) /* the leader too: see below */
                reconfig_change(w, &rc, W_OP_REMOVE, idx, faults && (idx != L || count > 2));
            break;
        }
        case 4:
            /* The leader itself. Not with faults out of two voters: a
             * leader that resigns (check-quorum) before its Voters record
             * commits, with the other voter lacking it, deadlocks: the
             * other needs its vote and it refuses a shorter log, and it
             * is no voter in its own set (finding, notes). */
            if (L >= 0 && count > 1)
                reconfig_change(w, &rc, W_OP_REMOVE, L, faults && count > 2);
            break;
        case 5:
            reconfig_replace_disk(w, &rc);
            break;
        case 6:
            reconfig_removed_fetches(w, &rc);
            break;
        case 7:
            reconfig_back_to_back(w, &rc);
            break;
        default:
            reconfig_far_behind(w, &rc);
            break;
        }
        if (!w->failed && wait_leader(w, "after a change") >= 0)
            ack_values(w, 5, "after a change");
    }
    heal_and_converge(w);
}

const w_scenario w_scenarios[] = {
    {"initial-election", sc_initial_election},
    {"replication", sc_replication},
    {"leader-crash", sc_leader_crash},
    {"leader-shutdown", sc_leader_shutdown},
    {"all-fail", sc_all_fail},
    {"leader-partition", sc_leader_partition},
    {"multi-partition", sc_multi_partition},
    {"back-to-back", sc_back_to_back},
    {"isolated-voter", sc_isolated_voter},
    {"storage-faults", sc_storage_faults},
    {"disk-replaced", sc_disk_replaced},
    {"random", sc_random},
    {"reconfig", sc_reconfig},
};
const int w_scenario_count = (int)(sizeof(w_scenarios) / sizeof(w_scenarios[0]));

const w_scenario *w_scenario_find(const char *name)
{
    for (int i = 0; i < w_scenario_count; i++)
        if (strcmp(w_scenarios[i].name, name) == 0)
            return &w_scenarios[i];
    return NULL;
}
