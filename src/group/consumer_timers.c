/* A consumer group's timers, run by group_tick(): a member whose session
 * expired (no heartbeat for group.consumer.session.timeout.ms, or a classic
 * member's own session timeout) is fenced; a member still at the epoch at
 * which it was asked to revoke partitions when its rebalance timeout ends is
 * fenced (Kafka's scheduleConsumerGroupRebalanceTimeout); a classic member
 * that does not rejoin or sync in time is fenced (join and sync timeouts). */
#include <stdint.h>

#include "consumer_internal.h"

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

static bool expired(const group_coord *c, cmember *m)
{
    int64_t now = c->now_ms;
    if (m->session_deadline_ms <= now)
        return true;
    if (m->rebalance_deadline_ms <= now) {
        if (m->member_epoch == m->rebalance_epoch)
            return true;
        m->rebalance_deadline_ms = INT64_MAX; /* it left that epoch in time */
    }
    return m->classic &&
           (m->classic->join_deadline_ms <= now || m->classic->sync_deadline_ms <= now);
}

void cg_tick(group_coord *c, ggroup *g)
{
    for (int i = 0; g->type == GROUP_TYPE_CONSUMER && i < g->cg->member_count;) {
        cmember *m = g->cg->members[i];
        if (expired(c, m)) {
            cg_fence(c, g, m); /* may turn g into a classic group */
            i = 0;
            continue;
        }
        i++;
    }
}

int64_t cg_wake_at(const ggroup *g)
{
    int64_t wake = INT64_MAX;
    for (int i = 0; g->type == GROUP_TYPE_CONSUMER && i < g->cg->member_count; i++) {
        const cmember *m = g->cg->members[i];
        wake = min64(wake, min64(m->session_deadline_ms, m->rebalance_deadline_ms));
        if (m->classic)
            wake = min64(wake, min64(m->classic->join_deadline_ms, m->classic->sync_deadline_ms));
    }
    return wake;
}
