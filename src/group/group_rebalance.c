/* Rebalances of one group: preparing one, completing the join phase (with
 * protocol selection), timeouts.
 *
 * Transition table (Kafka's GroupMetadata states):
 *
 *   from                 on                                           to
 *   Empty                JoinGroup of a new/pending member            PreparingRebalance
 *                        (join waits group.initial.rebalance.delay.ms,
 *                        extended while members keep joining, at most
 *                        the rebalance timeout)
 *   PreparingRebalance   every member (and no pending id) rejoined,   CompletingRebalance
 *                        or the join deadline: members that did not    (Empty if none left;
 *                        rejoin are removed; generation + 1           generation + 1)
 *   CompletingRebalance  SyncGroup of the leader                      Stable
 *   CompletingRebalance  join with changed protocols / new member /   PreparingRebalance
 *                        leave / session expiry                       (syncs answered
 *                                                                     REBALANCE_IN_PROGRESS)
 *   Stable               join of the leader / changed protocols /     PreparingRebalance
 *                        new member / leave / session expiry /
 *                        no SyncGroup within the rebalance timeout
 *                        after the join (also from CompletingRebalance)
 *   Stable               static member rejoins with a new member id,  Stable (old id fenced,
 *                        protocols unchanged                          current generation)
 *   Empty                DeleteGroups                                 Dead (freed)
 */
#include <string.h>

#include "group_internal.h"
#include "kq/assert.h"

static bool all_support(const ggroup *g, const char *name, const gmember *skip)
{
    for (int i = 0; i < g->member_count; i++)
        if (g->members[i] != skip && gm_protocol_index(g->members[i], name) < 0)
            return false;
    return true;
}

/* Kafka's supportsProtocols, leaving out the joining member's own old
 * protocols (skip: it is replacing them). */
bool gr_supports(const ggroup *g, const group_join_request *req, const gmember *skip)
{
    if (g->member_count == 0 || (g->member_count == 1 && g->members[0] == skip))
        return true;
    if (strcmp(g->protocol_type, req->protocol_type) != 0)
        return false;
    for (int i = 0; i < req->protocol_count; i++)
        if (all_support(g, req->protocols[i].name, skip))
            return true;
    return false;
}

/* Kafka's selectProtocol: among the protocols every member supports, each
 * member votes for the first of its own list; the most votes win (ties: the
 * first candidate in the first member's order). */
void gr_select_protocol(ggroup *g)
{
    KQ_ASSERT(g->member_count > 0);
    const gmember *first = g->members[0];
    int votes[KQ_GROUP_PROTOCOLS_MAX] = { 0 };
    for (int i = 0; i < g->member_count; i++) {
        const gmember *m = g->members[i];
        for (int p = 0; p < m->protocol_count; p++) {
            int at = gm_protocol_index(first, m->protocol_names[p]);
            if (at >= 0 && all_support(g, m->protocol_names[p], NULL)) {
                votes[at]++;
                break;
            }
        }
    }
    int best = -1;
    for (int p = 0; p < first->protocol_count; p++)
        if (votes[p] > 0 && (best < 0 || votes[p] > votes[best]))
            best = p;
    KQ_ASSERT(best >= 0); /* joins are refused unless a common protocol exists */
    gc_copy(g->protocol_name, first->protocol_names[best]);
}

static int32_t max_rebalance_timeout_ms(const ggroup *g)
{
    int32_t t = 0;
    for (int i = 0; i < g->member_count; i++)
        if (g->members[i]->rebalance_timeout_ms > t)
            t = g->members[i]->rebalance_timeout_ms;
    return t;
}

void gr_prepare(group_coord *c, ggroup *g)
{
    KQ_ASSERT(g->state != GROUP_PREPARING_REBALANCE && g->state != GROUP_DEAD);
    if (g->state == GROUP_COMPLETING_REBALANCE) {
        for (int i = 0; i < g->member_count; i++) {
            gmember *m = g->members[i];
            if (m->awaiting_sync)
                gc_answer(c, GROUP_ANSWER_SYNC, m->sync_token, KAFKA_REBALANCE_IN_PROGRESS);
            m->awaiting_sync = false;
            m->assignment_len = 0;
        }
    }
    for (int i = 0; i < g->member_count; i++)
        g->members[i]->pending_sync = false;
    int32_t rebalance_ms = max_rebalance_timeout_ms(g);
    int32_t delay_ms = c->config.initial_rebalance_delay_ms;
    g->initial_delay = g->state == GROUP_EMPTY && delay_ms > 0;
    g->joined_during_delay = false;
    if (g->initial_delay) {
        g->join_deadline_ms = c->now_ms + delay_ms;
        g->initial_remaining_ms = rebalance_ms > delay_ms ? rebalance_ms - delay_ms : 0;
    } else {
        g->join_deadline_ms = c->now_ms + rebalance_ms;
    }
    g->state = GROUP_PREPARING_REBALANCE;
    gc_mark_dirty(c, g); /* issue 24 */
}

void gr_join_answer(group_coord *c, const ggroup *g, const gmember *m, uint64_t token)
{
    group_answer *a = gc_answer(c, GROUP_ANSWER_JOIN, token, KAFKA_NONE);
    a->generation = g->generation;
    gc_copy(a->member_id, m->id);
    gc_copy(a->leader_id, g->leader_id);
    gc_copy(a->protocol_type, g->protocol_type);
    gc_copy(a->protocol_name, g->protocol_name);
    a->is_leader = strcmp(g->leader_id, m->id) == 0;
}

void gr_complete_join(group_coord *c, ggroup *g)
{
    KQ_ASSERT(g->state == GROUP_PREPARING_REBALANCE);
    for (int i = g->member_count - 1; i >= 0; i--)
        if (!g->members[i]->awaiting_join)
            gc_remove_member(c, g, g->members[i]);
    g->generation++;
    g->initial_delay = false;
    gc_mark_members(c, g); /* issue 24: a new generation */
    if (g->member_count == 0) {
        g->state = GROUP_EMPTY;
        g->empty_since_ms = c->now_ms;
        g->protocol_name[0] = '\0';
        return;
    }
    gr_select_protocol(g);
    g->state = GROUP_COMPLETING_REBALANCE;
    g->sync_deadline_ms = c->now_ms + max_rebalance_timeout_ms(g);
    if (!gc_member(g, g->leader_id))
        gc_copy(g->leader_id, g->members[0]->id);
    for (int i = 0; i < g->member_count; i++) {
        gmember *m = g->members[i];
        gr_join_answer(c, g, m, m->join_token);
        m->awaiting_join = false;
        m->pending_sync = true;
        m->heartbeat_deadline_ms = c->now_ms + m->session_timeout_ms;
    }
}

void gr_try_complete_join(group_coord *c, ggroup *g)
{
    if (g->state != GROUP_PREPARING_REBALANCE || g->initial_delay || g->pending_count > 0)
        return;
    for (int i = 0; i < g->member_count; i++)
        if (!g->members[i]->awaiting_join)
            return;
    gr_complete_join(c, g);
}

static void join_deadline(group_coord *c, ggroup *g)
{
    if (g->initial_delay && g->joined_during_delay && g->initial_remaining_ms > 0) {
        int32_t delay_ms = c->config.initial_rebalance_delay_ms;
        if (delay_ms > g->initial_remaining_ms)
            delay_ms = g->initial_remaining_ms;
        g->initial_remaining_ms -= delay_ms;
        g->join_deadline_ms = c->now_ms + delay_ms;
        g->joined_during_delay = false;
        return;
    }
    gr_complete_join(c, g);
}

/* Kafka's pending-sync timeout: members that got this generation's join
 * answer but sent no SyncGroup within the rebalance timeout are removed. */
static bool sync_expired(group_coord *c, ggroup *g)
{
    if ((g->state != GROUP_COMPLETING_REBALANCE && g->state != GROUP_STABLE) ||
        g->sync_deadline_ms > c->now_ms)
        return false;
    bool removed = false;
    for (int i = g->member_count - 1; i >= 0; i--)
        if (g->members[i]->pending_sync) {
            gc_remove_member(c, g, g->members[i]);
            removed = true;
        }
    return removed;
}

/* Session timeouts of members and pending member ids, the sync deadline,
 * then the join deadline. */
void gr_tick_group(group_coord *c, ggroup *g)
{
    bool removed = false;
    for (int i = g->pending_count - 1; i >= 0; i--)
        if (g->pending[i].deadline_ms <= c->now_ms) {
            gc_remove_pending(c, g, i);
            removed = true;
        }
    for (int i = g->member_count - 1; i >= 0; i--) {
        gmember *m = g->members[i];
        if (!m->awaiting_join && m->heartbeat_deadline_ms <= c->now_ms) {
            gc_remove_member(c, g, m);
            removed = true;
        }
    }
    if (sync_expired(c, g))
        removed = true;
    if (removed && (g->state == GROUP_STABLE || g->state == GROUP_COMPLETING_REBALANCE))
        gr_prepare(c, g);
    if (g->state == GROUP_PREPARING_REBALANCE && g->join_deadline_ms <= c->now_ms)
        join_deadline(c, g);
    gr_try_complete_join(c, g);
}
