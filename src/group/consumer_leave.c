/* Members leaving a consumer group (Kafka's consumerGroupLeave,
 * consumerGroupStaticMemberGroupLeave, consumerGroupFenceMember): epoch -1
 * removes the member and bumps the group epoch; a static member's -2 keeps
 * it (epoch -2, its assignment kept for its next instance) until its
 * session times out. */
#include <string.h>

#include "consumer_internal.h"
#include "kq/assert.h"

void cg_fence(group_coord *c, ggroup *g, cmember *m)
{
    if (cc_may_downgrade(c, g, m)) {
        cc_downgrade(c, g, m);
        return;
    }
    cgroup *cg = g->cg;
    cg_remove_member(c, g, m);
    bool ok;
    cg_refresh_meta(c, cg, &ok); /* without the member (out of memory: at the next bump) */
    cg->group_epoch++;
    cg->dirty = true;
    cg_update_state(c, g);
}

/* Kafka's consumerGroupStaticMemberGroupLeave: epoch -2, nothing pending
 * revocation, the assignment kept. */
static bool static_leave(group_coord *c, ggroup *g, cmember *m)
{
    cset none = {0};
    if (!cg_set_assignment(c, g->cg, m, &m->assigned, &none, m->state,
                           GROUP_CONSUMER_STATIC_LEAVE_EPOCH, m->previous_member_epoch))
        return false;
    m->rebalance_deadline_ms = INT64_MAX;
    cg_account(c, g, m);
    cg_update_state(c, g);
    return true;
}

/* The member a leave names, or NULL with the error set. */
static cmember *leaver(group_coord *c, const cgroup *cg, const group_consumer_heartbeat_request *r,
                       group_consumer_heartbeat_response *out)
{
    if (!r->instance_id) {
        cmember *m = cg_member(cg, r->member_id);
        if (!m)
            ch_error(c, out, KAFKA_UNKNOWN_MEMBER_ID, "Member %s is not a member of group %s.",
                     r->member_id, r->group_id);
        return m;
    }
    cmember *m = cg_static_member(cg, r->instance_id);
    if (!m) {
        ch_error(c, out, KAFKA_UNKNOWN_MEMBER_ID, "Instance id %s is unknown.", r->instance_id);
    } else if (strcmp(m->id, r->member_id) != 0) {
        ch_error(c, out, KAFKA_FENCED_INSTANCE_ID,
                 "Static member %s with instance id %s was fenced by member %s.", r->member_id,
                 r->instance_id, m->id);
        m = NULL;
    }
    return m;
}

void cl_leave(group_coord *c, const group_consumer_heartbeat_request *r,
              group_consumer_heartbeat_response *out)
{
    ggroup *g = gc_find(c, r->group_id);
    if (!g || g->type != GROUP_TYPE_CONSUMER) {
        ch_error(c, out, KAFKA_GROUP_ID_NOT_FOUND,
                 g ? "Group %s is not a consumer group." : "Group %s not found.", r->group_id);
        return;
    }
    cmember *m = leaver(c, g->cg, r, out);
    if (!m)
        return;
    gc_copy(c->cg_member_id, r->member_id);
    out->member_id = c->cg_member_id;
    out->member_epoch = r->member_epoch;
    out->changed = true;
    if (r->instance_id && r->member_epoch == GROUP_CONSUMER_STATIC_LEAVE_EPOCH) {
        if (!static_leave(c, g, m)) {
            ch_error(c, out, KAFKA_COORDINATOR_NOT_AVAILABLE, "The coordinator is out of memory.");
            out->changed = false;
        }
        return;
    }
    cg_fence(c, g, m);
}
