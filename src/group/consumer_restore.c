/* Restoring consumer groups from persisted records (a new coordinator
 * after a failover, issue 24 item 2): the group's epochs, then each member
 * with its assignment, a fresh session (Kafka schedules every member's
 * session timeout on load, and the rebalance timeout of a member asked to
 * revoke). Persisted
 * input is checked: a member that clashes with the group is refused. */
#include <stdlib.h>
#include <string.h>

#include "consumer_internal.h"
#include "kq/assert.h"

ggroup *cg_restore_group(group_coord *c, const char *group_id, int32_t group_epoch,
                         int32_t assignment_epoch)
{
    if (!gc_str_ok(group_id) || !*group_id)
        return NULL;
    ggroup *g = gc_find(c, group_id);
    if (g && (gc_member_count(g) > 0 || g->pending_count > 0))
        return NULL;
    if (g)
        gc_drop_group(c, g);
    g = gc_create_group(c, group_id);
    if (!g || !cg_make_consumer(g)) {
        if (g)
            gc_drop_group(c, g);
        return NULL;
    }
    g->cg->group_epoch = group_epoch;
    g->cg->assignment_epoch = assignment_epoch;
    return g;
}

/* Whether a partition of s is held in g already. */
static bool held(const cgroup *cg, const cset *s)
{
    for (int i = 0; i < s->n; i++)
        if (cpm_epoch(&cg->owned, s->v[i].id, s->v[i].p) != -1)
            return true;
    return false;
}

bool cg_restore_member(group_coord *c, ggroup *g, cmember *m, int64_t now_ms)
{
    cgroup *cg = g->cg;
    bool clash = cg_member(cg, m->id) || cg_static_member(cg, m->instance_id) ||
                 held(cg, &m->assigned) || held(cg, &m->revoking) ||
                 cg->member_count >= c->config.consumer_max_size;
    for (int i = 0; !clash && i < m->assigned.n; i++)
        clash = cs_contains(&m->revoking, m->assigned.v[i].id, m->assigned.v[i].p);
    if (clash || !cg_add_member(c, g, m)) {
        cm_free(m);
        return false;
    }
    m->session_deadline_ms = now_ms + cg_session_timeout_ms(c, m);
    m->rebalance_deadline_ms = INT64_MAX;
    if (m->state == GROUP_MEMBER_UNREVOKED_PARTITIONS && !m->classic) {
        /* Kafka's onLoaded: a full rebalance timeout again */
        m->rebalance_deadline_ms = now_ms + m->rebalance_timeout_ms;
        m->rebalance_epoch = m->member_epoch;
    }
    cs_view(&m->assigned, &c->topics);
    cs_view(&m->target, &c->topics);
    return true;
}

void cg_restore_done(group_coord *c, ggroup *g)
{
    cgroup *cg = g->cg;
    bool ok;
    cg_refresh_meta(c, cg, &ok); /* unchanged topics: what the last epoch saw */
    if (!ok)
        cg->topics_gen = c->topics.gen - 1; /* recomputed at the next heartbeat */
    cg_update_state(c, g);
    cg->dirty = false;
    cg->gone_count = 0;
    cg->gone_lost = false;
    for (int i = 0; i < cg->member_count; i++)
        cg->members[i]->dirty = false;
}
