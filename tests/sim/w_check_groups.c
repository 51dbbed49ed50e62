/* Checks on consumer-group offsets (issue 12), from what the offset
 * committers (w_client_group.c) sent, were acknowledged and read back. Each
 * client commits for its own group, one commit at a time, each offset
 * higher than the one before, so the group's offset in log order only rises:
 *   offsets-durable: an OffsetFetch answered NONE that was sent after a
 *     commit of v was acknowledged returns >= v (also the final one, to the
 *     leader after convergence);
 *   offsets-not-invented: every offset read is -1, one the client sent, or
 *     (issue 24: a committed offset in a run of control batches is answered
 *     the run's end) a batch boundary of the committed record, at most its
 *     end, with only control batches between it and an offset sent below
 *     it: a consumer resuming there skips only control batches;
 *   offsets-monotonic: an OffsetFetch sent after another was answered NONE
 *     never returns less than it, unless (issue 24) the other returned the
 *     end of a run of control batches and this one the latest commit sent
 *     below that end, inside the run (an equivalent position).
 * In worlds whose offsets expire (issue 19), -1 is allowed in place of a
 * floor v only once offsets.retention.minutes has passed since v was sent:
 * the commit expired is v or a later one, committed no earlier than sent;
 * and once a deletion of the client's (issue 24) may have followed v's
 * commit (one not answered before v was sent). deleted-stays-deleted is
 * w_check_deleted.c's. Issue 24: or since an earlier offset u was sent
 * with only control batches in [u, v): a commit of v may be answered
 * without an append when u's commit stands for it, and expiry then counts
 * from u's commit. */
#include <stdlib.h>

#include "kq/assert.h"
#include "kq/kafka_errors.h"
#include "w_check_internal.h"
#include "w_client.h"

#define WG_FINAL_ATTEMPTS 20
#define WG_FENCED_MEMBER_EPOCH 110 /* Kafka's FENCED_MEMBER_EPOCH (KIP-848) */
#define WG_FINAL_WAIT_MS 10000
#define WG_FINAL_BACKOFF_MS 500

w_group_offsets *w_check_group_of(w_world *w, int client)
{
    KQ_ASSERT(client >= 0 && client < SIM_CLIENTS_MAX);
    w_group_offsets *g = &w->check->groups[client];
    if (!g->used) {
        g->used = true;
        g->acked_max = -1;
        g->fetched_max = -1;
        g->deleted_sent_ms = INT64_MIN;
        g->log_deleted_at = -1;
    }
    return g;
}

#define group_of w_check_group_of

int64_t w_check_sent_index(const w_group_offsets *g, int64_t offset)
{
    size_t lo = 0, hi = g->sent_n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->sent[mid] == offset)
            return (int64_t)mid;
        if (g->sent[mid] < offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static bool was_sent(const w_group_offsets *g, int64_t offset)
{
    return w_check_sent_index(g, offset) >= 0;
}

int64_t w_check_committed_end(const w_world *w)
{
    return w->check->committed_end;
}

bool w_check_control_only(const w_world *w, int64_t from, int64_t to, bool boundary)
{
    const struct w_check *c = w->check;
    if (from < 0 || from >= to || to > c->committed_end)
        return false;
    size_t lo = 0, hi = c->committed_n; /* the last batch with base <= from */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->committed[mid].base <= from)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || c->committed[lo - 1].last < from)
        return false;
    int64_t next = c->committed[lo - 1].base;
    for (size_t i = lo - 1; i < c->committed_n && next < to; i++) {
        const w_batch *b = &c->committed[i];
        if (b->base != next || !b->control)
            return false; /* a gap in the record, or data */
        next = b->last + 1;
    }
    return next == to || (!boundary && next > to);
}

/* Whether offset is the end of a run of control batches after an offset
 * the client sent below it. */
static bool run_end_after_sent(const w_world *w, const w_group_offsets *g, int64_t offset)
{
    size_t lo = 0, hi = g->sent_n; /* the largest sent below offset */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->sent[mid] < offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && w_check_control_only(w, g->sent[lo - 1], offset, true);
}

/* Issue 24: whether offset, below fetched (a run's end answered for an
 * earlier commit), is the latest commit sent below fetched, itself in that
 * run: a client that committed inside the run after reading its end (or
 * after a deletion) is answered what it committed, a position equivalent
 * to the run's end (only control batches between). An offset sent before
 * the one fetched stands for is still a step back. */
static bool later_in_run(const w_world *w, const w_group_offsets *g, int64_t offset,
                         int64_t fetched)
{
    if (was_sent(g, fetched) || !was_sent(g, offset))
        return false;
    size_t lo = 0, hi = g->sent_n; /* the largest sent below fetched */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->sent[mid] < fetched)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && g->sent[lo - 1] == offset &&
           w_check_control_only(w, offset, fetched, true);
}

void w_check_groups_free(struct w_check *c)
{
    for (int i = 0; i < SIM_CLIENTS_MAX; i++) {
        free(c->groups[i].sent);
        free(c->groups[i].sent_ms);
        free(c->groups[i].answered_ms);
        free(c->groups[i].log_pos);
        free(c->groups[i].deletes);
    }
}

/* Whether -1 may stand for floor (an offset sent, or -1) now. */
static bool may_have_expired(const w_world *w, const w_group_offsets *g, int64_t floor)
{
    int64_t retention = w->cfg.group.offsets_retention_ms;
    if (floor < 0 || w_check_deleted_may_have(w, g, floor))
        return true;
    if (w->cfg.group.max_size <= 0 || retention <= 0)
        return false;
    size_t lo = 0, hi = g->sent_n; /* the largest sent at or below floor */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->sent[mid] <= floor)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 ||
        (g->sent[lo - 1] != floor && !w_check_control_only(w, g->sent[lo - 1], floor, true)))
        return false; /* not one sent nor a run's end (offsets-not-invented's to report) */
    lo--;
    /* Issue 24: floor may be the end of the run its commit lies in, and an
     * earlier commit may stand for it (answered without an append). */
    while (lo > 0 && w_check_control_only(w, g->sent[lo - 1], floor, false))
        lo--;
    return w->now - retention >= g->sent_ms[lo];
}

void w_check_on_offset_commit_sent(w_world *w, int client, int64_t value)
{
    w_group_offsets *g = group_of(w, client);
    if (g->sent_n > 0 && value <= g->sent[g->sent_n - 1]) {
        w_fail(w, "client %d: offset %lld sent after %lld (the harness's own order)", client,
               (long long)value, (long long)g->sent[g->sent_n - 1]);
        return;
    }
    if (g->sent_n == g->sent_cap) {
        g->sent_cap = g->sent_cap ? g->sent_cap * 2 : 64;
        g->sent = realloc(g->sent, g->sent_cap * sizeof(*g->sent));
        g->sent_ms = realloc(g->sent_ms, g->sent_cap * sizeof(*g->sent_ms));
        g->answered_ms = realloc(g->answered_ms, g->sent_cap * sizeof(*g->answered_ms));
        g->log_pos = realloc(g->log_pos, g->sent_cap * sizeof(*g->log_pos));
        KQ_ASSERT(g->sent && g->sent_ms && g->answered_ms && g->log_pos);
    }
    g->answered_ms[g->sent_n] = INT64_MAX;
    g->log_pos[g->sent_n] = -1;
    g->sent_ms[g->sent_n] = w->now;
    g->sent[g->sent_n++] = value;
}

void w_check_on_offset_commit_acked(w_world *w, int client, int64_t value)
{
    w_group_offsets *g = group_of(w, client);
    if (value > g->acked_max)
        g->acked_max = value;
}

w_offsets_floor w_check_on_offset_fetch_sent(w_world *w, int client)
{
    const w_group_offsets *g = group_of(w, client);
    return (w_offsets_floor){.acked = g->acked_max, .fetched = g->fetched_max,
                             .deleted_sent_ms = g->deleted_sent_ms,
                             .deleted_at = g->log_deleted_at};
}

void w_check_on_offset_fetched(w_world *w, int client, const w_offsets_floor *floor,
                               int64_t offset, int node, bool final)
{
    w_group_offsets *g = group_of(w, client);
    const char *what = final ? "the final OffsetFetch" : "an OffsetFetch";
    w_check_deleted_on_fetched(w, client, floor, offset, node, final);
    if (w->failed)
        return;
    if (w_check_on(w, W_INV_OFFSETS_NOT_INVENTED) && offset != -1 && !was_sent(g, offset) &&
        !run_end_after_sent(w, g, offset))
        w_inv_fail(w, W_INV_OFFSETS_NOT_INVENTED,
                   "client %d: %s answered by node %d returned offset %lld, never sent nor the "
                   "end of a run of control batches (committed up to %lld) after one sent",
                   client, what, node + 1, (long long)offset,
                   (long long)w->check->committed_end);
    else if (w_check_on(w, W_INV_OFFSETS_DURABLE) && offset < floor->acked &&
             !(offset == -1 && may_have_expired(w, g, floor->acked)))
        w_inv_fail(w, W_INV_OFFSETS_DURABLE,
                   "client %d: %s answered by node %d returned offset %lld; a commit of %lld "
                   "was acknowledged before it was sent", client, what, node + 1,
                   (long long)offset, (long long)floor->acked);
    else if (w_check_on(w, W_INV_OFFSETS_MONOTONIC) && offset < floor->fetched &&
             !(offset == -1 && may_have_expired(w, g, floor->fetched)) &&
             !later_in_run(w, g, offset, floor->fetched))
        w_inv_fail(w, W_INV_OFFSETS_MONOTONIC,
                   "client %d: %s answered by node %d returned offset %lld; one answered "
                   "before it was sent returned %lld", client, what, node + 1,
                   (long long)offset, (long long)floor->fetched);
    if (offset > g->fetched_max)
        g->fetched_max = offset;
}

/* group-membership-kept (issue 24): the coordinator keeps a member it
 * answered NONE (a JoinGroup, SyncGroup or Heartbeat) at least its session
 * timeout (and, if shorter, its rebalance timeout: a rebalance it missed
 * removes it then) from when that request was sent, across failovers: an
 * UNKNOWN_MEMBER_ID for its member id, or ILLEGAL_GENERATION /
 * FENCED_MEMBER_EPOCH for the generation it had, received earlier is a
 * member forgotten. The send time of the good request and the receive time
 * of the bad answer: network delay only makes the check lenient. */
void w_check_on_member_answer(w_world *w, int client, int64_t sent_ms, uint32_t inc,
                              int32_t generation, int16_t error, int32_t session_timeout_ms,
                              int32_t rebalance_timeout_ms)
{
    w_group_offsets *g = group_of(w, client);
    if (error == KAFKA_NONE) {
        /* The latest request sent wins (answers may overtake each other). */
        if (inc != 0 && (inc != g->member_inc || sent_ms >= g->member_good_sent_ms)) {
            g->member_inc = inc;
            g->member_generation = generation;
            g->member_good_sent_ms = sent_ms;
        }
        return;
    }
    bool forgotten = inc != 0 && inc == g->member_inc &&
                     (error == KAFKA_UNKNOWN_MEMBER_ID ||
                      ((error == KAFKA_ILLEGAL_GENERATION || error == WG_FENCED_MEMBER_EPOCH) &&
                       generation == g->member_generation));
    if (!forgotten)
        return;
    int64_t keep = session_timeout_ms < rebalance_timeout_ms ? session_timeout_ms
                                                              : rebalance_timeout_ms;
    if (w_check_on(w, W_INV_GROUP_MEMBERSHIP_KEPT) && w->now < g->member_good_sent_ms + keep)
        w_inv_fail(w, W_INV_GROUP_MEMBERSHIP_KEPT,
                   "client %d: answered %s for generation %d %lld ms after its last request "
                   "answered NONE was sent (session timeout %d ms): the member was forgotten",
                   client, error == KAFKA_UNKNOWN_MEMBER_ID ? "UNKNOWN_MEMBER_ID"
                           : error == KAFKA_ILLEGAL_GENERATION ? "ILLEGAL_GENERATION"
                                                               : "FENCED_MEMBER_EPOCH",
                   generation, (long long)(w->now - g->member_good_sent_ms), session_timeout_ms);
    g->member_inc = 0; /* it starts over */
}

static bool pred_final_done(w_world *w, void *ctx)
{
    (void)w;
    return !w_client_group_final_pending(ctx);
}

/* One client's final OffsetFetch, retried (to the leader of the moment)
 * until answered NONE. */
static void final_fetch(w_world *w, w_client *c, int leader)
{
    for (int i = 0; i < WG_FINAL_ATTEMPTS && !w->failed; i++) {
        if (leader < 0 || !w_client_group_final_fetch(w, c, leader))
            return;
        w_run_until(w, pred_final_done, c, WG_FINAL_WAIT_MS);
        if (w_client_group_final_answered(c) || w->failed)
            return;
        w_run_for(w, WG_FINAL_BACKOFF_MS);
        leader = w_current_leader(w);
    }
    if (!w->failed && w_check_on(w, W_CHECK_LIVENESS))
        w_fail(w, "liveness: no final OffsetFetch answered NONE in %d attempts (leader %d)",
               WG_FINAL_ATTEMPTS, leader + 1);
}

static bool pred_leader(w_world *w, void *ctx)
{
    (void)ctx;
    return w_current_leader(w) >= 0;
}

/* Issue 24: before the final OffsetFetches every running node restarts
 * (killed, then started: its offsets table is rebuilt from its latest
 * snapshot and its log, as after any crash), so that what a rebuild makes
 * is what the final answers are checked on (a deletion or an expiry that
 * a rebuild undid shows there: deleted-stays-deleted). The new leader. */
static int restart_all(w_world *w, int leader)
{
    bool any = false;
    for (int i = 0; i < w->client_n; i++)
        any = any || w->check->groups[i].used;
    if (!any)
        return leader;
    w_trace(w, "=== every node restarts before the final OffsetFetches");
    for (int i = 0; i < w->n && !w->failed; i++) {
        if (!w->nodes[i].running || w->nodes[i].corrupted)
            continue;
        w_node_crash(w, i, W_CRASH_PROCESS_KILL);
        if (!w_node_start(w, i) && w_check_on(w, W_CHECK_LIVENESS))
            w_fail(w, "liveness: node %d refuses to start before the final OffsetFetches", i + 1);
    }
    if (!w->failed && !w_run_until(w, pred_leader, NULL, WG_FINAL_WAIT_MS) &&
        w_check_on(w, W_CHECK_LIVENESS))
        w_fail(w, "liveness: no leader %d ms after every node restarted", WG_FINAL_WAIT_MS);
    return w_current_leader(w);
}

bool w_check_final_offsets(w_world *w, int leader)
{
    leader = restart_all(w, leader);
    for (int i = 0; i < w->client_n && !w->failed; i++)
        final_fetch(w, w->clients[i], leader);
    return !w->failed;
}

void w_check_on_consumer_group_lost(w_world *w, int client, int node, const char *op,
                                    int64_t last_ok_sent_ms, int64_t session_timeout_ms)
{
    if (w_check_on(w, W_INV_GROUP_MEMBERSHIP_KEPT))
        w_inv_fail(w, W_INV_GROUP_MEMBERSHIP_KEPT,
                   "client %d: %s answered GROUP_ID_NOT_FOUND by node %d %lld ms after its last "
                   "heartbeat answered NONE was sent (session timeout %lld ms): the coordinator "
                   "forgot its group", client, op, node + 1,
                   (long long)(w->now - last_ok_sent_ms), (long long)session_timeout_ms);
}
