/* LeaveGroup (a batch of members by member id or group.instance.id) and the
 * timer tick. */
#include <string.h>

#include "consumer_internal.h"

static enum kafka_error leave_one(group_coord *c, ggroup *g, const group_leave_member *lm,
                                  bool *removed)
{
    if (!gc_str_ok(lm->member_id) || !gc_str_ok(lm->instance_id))
        return KAFKA_UNKNOWN_MEMBER_ID;
    gmember *m;
    if (gc_empty(lm->member_id)) {
        m = gc_static_member(g, lm->instance_id);
    } else {
        int pi = gc_pending_index(g, lm->member_id);
        if (pi >= 0) {
            gc_remove_pending(c, g, pi);
            *removed = true;
            return KAFKA_NONE;
        }
        m = gc_member(g, lm->member_id);
        gmember *s = gc_static_member(g, lm->instance_id);
        if (s && s != m)
            return KAFKA_FENCED_INSTANCE_ID;
    }
    if (!m)
        return KAFKA_UNKNOWN_MEMBER_ID;
    gc_remove_member(c, g, m);
    *removed = true;
    return KAFKA_NONE;
}

enum kafka_error group_leave(group_coord *c, const char *group_id, group_leave_member *members,
                             int member_count, int64_t now_ms, const group_output **out)
{
    gc_begin(c, now_ms);
    ggroup *g = group_id && gc_str_ok(group_id) ? gc_find(c, group_id) : NULL;
    if (g && g->type == GROUP_TYPE_CONSUMER) {
        enum kafka_error err = cc_leave(c, g, members, member_count);
        *out = gc_end(c);
        return err;
    }
    if (!g || g->state == GROUP_DEAD) {
        for (int i = 0; i < member_count; i++)
            members[i].error = KAFKA_UNKNOWN_MEMBER_ID;
        *out = gc_end(c);
        return g ? KAFKA_COORDINATOR_NOT_AVAILABLE : KAFKA_UNKNOWN_MEMBER_ID;
    }
    bool removed = false;
    for (int i = 0; i < member_count; i++)
        members[i].error = leave_one(c, g, &members[i], &removed);
    if (removed && (g->state == GROUP_STABLE || g->state == GROUP_COMPLETING_REBALANCE))
        gr_prepare(c, g);
    gr_try_complete_join(c, g);
    *out = gc_end(c);
    return KAFKA_NONE;
}

const group_output *group_tick(group_coord *c, int64_t now_ms)
{
    gc_begin(c, now_ms);
    bool full = false;
    for (int i = 0; i < c->group_count; i++) {
        /* A group answers each member at most twice (its join and its sync). */
        if (KQ_GROUP_ANSWERS_MAX - c->out.answer_count < 2 * gc_member_count(c->groups[i]) + 2) {
            full = true; /* the rest at the next tick, at once */
            break;
        }
        if (c->groups[i]->type == GROUP_TYPE_CONSUMER)
            cg_tick(c, c->groups[i]);
        else
            gr_tick_group(c, c->groups[i]);
    }
    const group_output *out = gc_end(c);
    if (full)
        c->out.wake_at_ms = now_ms;
    return out;
}
