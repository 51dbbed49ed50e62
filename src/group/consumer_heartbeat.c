/* ConsumerGroupHeartbeat (KIP-848), Kafka's
 * GroupMetadataManager.consumerGroupHeartbeat:
 * 1. find or create the group (an Empty classic group becomes a consumer
 *    group), find or create the member (static members replace a departed
 *    instance), check its epoch;
 * 2. update the member; a changed subscription or changed topic metadata
 *    bumps the group epoch;
 * 3. a group epoch past the assignment epoch computes a new target
 *    assignment;
 * 4. reconcile the member towards its target (consumer_reconcile.c);
 * 5. answer its epoch, the heartbeat interval and, on a full request or a
 *    changed assignment, its assignment. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "consumer_internal.h"
#include "kq/assert.h"

void ch_error(group_coord *c, group_consumer_heartbeat_response *out, enum kafka_error e,
              const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->message, sizeof(c->message), fmt, ap);
    va_end(ap);
    out->error = e;
    out->error_message = c->message;
}

static const char *group_bytes_limit = "consumer group bytes (KQ_GROUP_BYTES_MAX)";
static const char *groups_bytes_limit = "all groups' bytes (KQ_GROUPS_BYTES_MAX)";
static const char *store_bytes_limit = "the group store's bytes (KQ_GROUP_STORE_BYTES_MAX)";
static const char *per_connection_limit =
    "members per connection (KQ_GROUP_MEMBERS_PER_CONNECTION_MAX)";

/* Kafka's throwIfConsumerGroupMemberEpochIsInvalid, with KAFKA-19233: a
 * member may always rejoin with epoch 0. */
static bool epoch_valid(ch_ctx *h, const cmember *m)
{
    int32_t e = h->r->member_epoch;
    if (e == 0 || e == m->member_epoch)
        return true;
    if (e > m->member_epoch || e != m->previous_member_epoch || h->r->owned_count < 0) {
        ch_error(h->c, h->out, KAFKA_FENCED_MEMBER_EPOCH,
                 "The consumer group member has a %s member epoch (%d) than the one known by the "
                 "group coordinator (%d). The member must abandon all its partitions and rejoin.",
                 e > m->member_epoch ? "greater" : "smaller", (int)e, (int)m->member_epoch);
        return false;
    }
    /* The previous epoch, when the answer with the new one was lost: only
     * with owned partitions within the current assignment. */
    for (int i = 0; i < h->r->owned_count; i++)
        for (int j = 0; j < h->r->owned[i].partition_count; j++)
            if (!cs_contains(&m->assigned, h->r->owned[i].topic_id, h->r->owned[i].partitions[j])) {
                ch_error(h->c, h->out, KAFKA_FENCED_MEMBER_EPOCH,
                         "The consumer group member has a smaller member epoch (%d) than the one "
                         "known by the group coordinator (%d). The member must abandon all its "
                         "partitions and rejoin.",
                         (int)e, (int)m->member_epoch);
                return false;
            }
    return true;
}

/* Step 1a: the group (Kafka's getOrMaybeCreateConsumerGroup). */
static bool find_group(ch_ctx *h)
{
    group_coord *c = h->c;
    h->g = gc_find(c, h->r->group_id);
    bool join = h->r->member_epoch == GROUP_CONSUMER_JOIN_EPOCH;
    if (!h->g && !join) {
        ch_error(c, h->out, KAFKA_GROUP_ID_NOT_FOUND, "Consumer group %s not found.",
                 h->r->group_id);
        return false;
    }
    if (h->g && h->g->type == GROUP_TYPE_CLASSIC && !(join && cc_may_upgrade(c, h->g))) {
        ch_error(c, h->out, KAFKA_GROUP_ID_NOT_FOUND, "Group %s is not a consumer group.",
                 h->r->group_id);
        return false;
    }
    /* Kafka's convertToConsumerGroup: before the member is looked up. */
    enum kafka_error e = h->g && h->g->type == GROUP_TYPE_CLASSIC ? cc_upgrade(c, h->g) : KAFKA_NONE;
    if (e != KAFKA_NONE) {
        ch_error(c, h->out, e, e == KAFKA_GROUP_ID_NOT_FOUND
                                   ? "Cannot upgrade the classic group %s to consumer group."
                                   : "The coordinator is out of memory (%s).",
                 h->r->group_id);
        return false;
    }
    const cgroup *cg = cg_of(h->g);
    int32_t max = c->config.consumer_max_size;
    if (cg && cg->member_count >= max &&
        (!*h->r->member_id || !cg_member(cg, h->r->member_id))) {
        ch_error(c, h->out, KAFKA_GROUP_MAX_SIZE_REACHED,
                 "The consumer group has reached its maximum capacity of %d members.", (int)max);
        return false;
    }
    return true;
}

/* Step 1b, a static member (getOrMaybeSubscribeStaticConsumerGroupMember). */
static bool find_static(ch_ctx *h, const cgroup *cg)
{
    const char *inst = h->r->instance_id;
    cmember *s = cg ? cg_static_member(cg, inst) : NULL;
    if (h->r->member_epoch == GROUP_CONSUMER_JOIN_EPOCH) {
        if (!s) {
            h->m = cg ? cg_member(cg, h->member_id) : NULL;
            return true;
        }
        if (!s->classic && s->member_epoch != GROUP_CONSUMER_STATIC_LEAVE_EPOCH) {
            ch_error(h->c, h->out, KAFKA_UNRELEASED_INSTANCE_ID,
                     "Static member %s with instance id %s cannot join the group because the "
                     "instance id is owned by %s member.",
                     h->member_id, inst, s->id);
            return false;
        }
        h->replaced = s;
        return true;
    }
    if (!s) {
        ch_error(h->c, h->out, KAFKA_UNKNOWN_MEMBER_ID, "Instance id %s is unknown.", inst);
        return false;
    }
    if (strcmp(s->id, h->member_id) != 0) {
        ch_error(h->c, h->out, KAFKA_FENCED_INSTANCE_ID,
                 "Static member %s with instance id %s was fenced by member %s.", h->member_id,
                 inst, s->id);
        return false;
    }
    h->m = s;
    return epoch_valid(h, s);
}

/* Step 1b: the member. */
static bool find_member(ch_ctx *h)
{
    const cgroup *cg = cg_of(h->g);
    if (*h->r->member_id)
        gc_copy(h->member_id, h->r->member_id);
    else
        cg_new_member_id(h->c, h->member_id); /* v0 */
    if (h->r->instance_id)
        return find_static(h, cg);
    h->m = cg ? cg_member(cg, h->member_id) : NULL;
    if (!h->m && h->r->member_epoch != GROUP_CONSUMER_JOIN_EPOCH) {
        ch_error(h->c, h->out, KAFKA_UNKNOWN_MEMBER_ID, "Member %s is not a member of group %s.",
                 h->member_id, h->r->group_id);
        return false;
    }
    return !h->m || epoch_valid(h, h->m);
}

/* Our byte bounds for the member as the request leaves it. */
bool ch_budget_ok(ch_ctx *h, const cmember *shape)
{
    group_coord *c = h->c;
    uint64_t before = h->m ? h->m->bytes : h->replaced ? h->replaced->bytes : 0;
    uint64_t after = cm_bytes_with(shape, h->r);
    uint64_t group = h->g ? h->g->bytes : 0;
    if (after > before && group + (after - before) > KQ_GROUP_BYTES_MAX) {
        ch_error(c, h->out, KAFKA_GROUP_MAX_SIZE_REACHED, "The consumer group %s is too large.",
                 h->r->group_id);
        h->out->limit = group_bytes_limit;
        return false;
    }
    if (after > before && c->bytes + (after - before) > KQ_GROUPS_BYTES_MAX) {
        ch_error(c, h->out, KAFKA_COORDINATOR_NOT_AVAILABLE, "The coordinator is full.");
        h->out->limit = groups_bytes_limit;
        return false;
    }
    if (!cp_admits(c, h->r->group_id, h->m ? h->m : h->replaced, h->member_id, h->r)) {
        ch_error(c, h->out, KAFKA_COORDINATOR_NOT_AVAILABLE, "The group store is full.");
        h->out->limit = store_bytes_limit;
        return false;
    }
    if (!h->m && !h->replaced && !gc_owner_room(c, h->r->client_host)) {
        ch_error(c, h->out, KAFKA_GROUP_MAX_SIZE_REACHED, "Too many members for %s.",
                 h->r->client_host ? h->r->client_host : "");
        h->out->limit = per_connection_limit;
        return false;
    }
    return true;
}

/* Step 1c: a new group. */
static bool make_group(ch_ctx *h)
{
    group_coord *c = h->c;
    if (h->g)
        return true;
    h->g = gc_create_group(c, h->r->group_id);
    if (h->g && cg_make_consumer(h->g))
        return true;
    if (h->g)
        gc_drop_group(c, h->g);
    h->g = NULL;
    ch_error(c, h->out, KAFKA_COORDINATOR_NOT_AVAILABLE, "The coordinator is full.");
    return false;
}

/* Step 2a: the member as the request leaves it, in the group. *sub says
 * whether its subscription changed. */
bool ch_place_member(ch_ctx *h, bool *changed, bool *sub)
{
    group_coord *c = h->c;
    cmember *m = h->m;
    bool fresh = m == NULL, ok = true;
    if (fresh)
        m = h->replaced ? cm_clone(h->replaced, h->member_id) : cm_new(h->member_id);
    ok = m && cm_update(m, h->r, changed, sub);
    if (ok && fresh) {
        gc_copy(m->client_host, h->r->client_host);
        if (h->replaced)
            cg_remove_member(c, h->g, h->replaced); /* its assignment moves to m */
        h->replaced = NULL;
        ok = cg_add_member(c, h->g, m);
        *changed = true;
        if (!ok)
            cm_free(m);
    } else if (ok && strcmp(m->client_host, h->r->client_host ? h->r->client_host : "") != 0) {
        ok = go_owner_add(&c->owners, h->r->client_host, 1);
        if (ok) {
            go_owner_add(&c->owners, m->client_host, -1);
            gc_copy(m->client_host, h->r->client_host);
            *changed = true;
        }
    }
    if (!ok) {
        ch_error(c, h->out, KAFKA_COORDINATOR_NOT_AVAILABLE, "The coordinator is out of memory.");
        return false;
    }
    h->m = m;
    cg_account(c, h->g, m);
    return true;
}

/* Step 2b: Kafka bumps the group epoch when the member's subscription or
 * the subscribed topics' metadata changed. */
bool ch_maybe_bump(ch_ctx *h, bool sub, bool *changed)
{
    cgroup *cg = h->g->cg;
    bool bump = sub, ok = true;
    if (bump || cg->topics_gen != h->c->topics.gen)
        bump = cg_refresh_meta(h->c, cg, &ok) || bump;
    if (!ok) {
        ch_error(h->c, h->out, KAFKA_COORDINATOR_NOT_AVAILABLE, "The coordinator is out of memory.");
        return false;
    }
    if (bump) {
        cg->group_epoch++;
        cg->dirty = *changed = true;
    }
    return true;
}

/* Steps 3 and 4: the target at the group epoch, the member's next step. */
bool ch_assign_and_reconcile(ch_ctx *h, const cset *owned, bool *changed)
{
    group_coord *c = h->c;
    cgroup *cg = h->g->cg;
    cmember *m = h->m;
    enum kafka_error err = KAFKA_NONE;
    if (cg->group_epoch > cg->assignment_epoch) {
        if (!cg_compute_target(c, h->g))
            err = KAFKA_COORDINATOR_NOT_AVAILABLE;
        *changed = true;
    }
    cset before = {0};
    bool reconciled = false;
    if (err == KAFKA_NONE && !cs_copy(&before, &m->assigned))
        err = KAFKA_COORDINATOR_NOT_AVAILABLE;
    if (err == KAFKA_NONE)
        err = cm_reconcile(c, h->g, m, owned, &reconciled);
    if (reconciled && !m->classic) { /* Kafka's rebalance timeout */
        bool unrevoked = m->state == GROUP_MEMBER_UNREVOKED_PARTITIONS;
        m->rebalance_deadline_ms = unrevoked ? c->now_ms + m->rebalance_timeout_ms : INT64_MAX;
        m->rebalance_epoch = m->member_epoch;
    }
    h->assigned_changed = !cs_equal(&before, &m->assigned);
    *changed = *changed || reconciled;
    cs_free(&before);
    if (err == KAFKA_FENCED_MEMBER_EPOCH)
        ch_error(c, h->out, err, "The consumer group member is in a unknown state. The member "
                                 "must abandon all its partitions and rejoin.");
    else if (err != KAFKA_NONE)
        ch_error(c, h->out, err, "The coordinator is out of memory.");
    return err == KAFKA_NONE;
}

static void answer(ch_ctx *h)
{
    group_coord *c = h->c;
    const cmember *m = h->m;
    const group_consumer_heartbeat_request *r = h->r;
    gc_copy(c->cg_member_id, m->id);
    h->out->member_id = c->cg_member_id;
    h->out->member_epoch = m->member_epoch;
    h->out->heartbeat_interval_ms = c->config.consumer_heartbeat_interval_ms;
    bool full = r->member_epoch == GROUP_CONSUMER_JOIN_EPOCH ||
                (r->rebalance_timeout_ms != -1 && r->subscribed_topic_count >= 0 &&
                 r->owned_count >= 0);
    if (full || h->assigned_changed) {
        h->out->has_assignment = true;
        h->out->assignment = m->assigned.view;
        h->out->assignment_count = m->assigned.view_n;
    }
}

static void regular(ch_ctx *h)
{
    bool changed = false, sub = false;
    static const cmember blank_member; /* the shape of a new member */
    if (!find_group(h) || !find_member(h))
        return;
    if (!ch_budget_ok(h, h->m ? h->m : h->replaced ? h->replaced : &blank_member))
        return;
    if (!make_group(h) || !ch_place_member(h, &changed, &sub))
        return;
    if (h->m->classic) { /* a classic member switches to the consumer protocol */
        cm_drop_classic(h->m);
        cg_account(h->c, h->g, h->m);
        changed = true;
    }
    if (!ch_maybe_bump(h, sub, &changed))
        return;
    cset owned = {0};
    bool ok = h->r->owned_count < 0 || cs_from_request(&owned, h->r->owned, h->r->owned_count);
    if (!ok)
        ch_error(h->c, h->out, KAFKA_COORDINATOR_NOT_AVAILABLE, "The coordinator is out of memory.");
    ok = ok && ch_assign_and_reconcile(h, h->r->owned_count >= 0 ? &owned : NULL, &changed);
    cs_free(&owned);
    h->m->session_deadline_ms = h->c->now_ms + cg_session_timeout_ms(h->c, h->m);
    cg_update_state(h->c, h->g);
    h->out->changed = changed;
    if (ok)
        answer(h);
}

void group_consumer_heartbeat(group_coord *c, const group_consumer_heartbeat_request *req,
                              int64_t now_ms, group_consumer_heartbeat_response *out)
{
    gc_begin(c, now_ms);
    memset(out, 0, sizeof(*out));
    group_consumer_heartbeat_request r = *req;
    r.member_id = r.member_id ? r.member_id : "";
    ch_ctx h = {.c = c, .r = &r, .out = out};
    if (cv_validate(c, &r, out) == KAFKA_NONE) {
        if (r.member_epoch == GROUP_CONSUMER_LEAVE_EPOCH ||
            r.member_epoch == GROUP_CONSUMER_STATIC_LEAVE_EPOCH)
            cl_leave(c, &r, out);
        else
            regular(&h);
    }
    out->output = gc_end(c);
}
