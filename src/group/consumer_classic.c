/* The classic protocol's requests to a consumer group (KIP-848 online
 * migration; Kafka's classicGroupJoin/Sync/Heartbeat/LeaveToConsumerGroup):
 * - JoinGroup: an Empty consumer group becomes a classic one (Kafka deletes
 *   and recreates it); otherwise consumer_classic_join.c;
 * - SyncGroup: the member's current assignment as ConsumerProtocolAssignment,
 *   unless a new epoch waits for it (REBALANCE_IN_PROGRESS);
 * - Heartbeat: REBALANCE_IN_PROGRESS when the member must rejoin to
 *   progress (a newer group epoch, partitions to revoke, or released
 *   partitions to take);
 * - LeaveGroup: removes classic members, bumps the group epoch once.
 * A classic member that was told to rejoin has its rebalance timeout to do
 * so (join timeout), and one that joined has it to sync (sync timeout). */
#include <stdlib.h>
#include <string.h>

#include "consumer_internal.h"
#include "kq/assert.h"

static void to_classic_empty(group_coord *c, ggroup *g)
{
    KQ_ASSERT(g->type == GROUP_TYPE_CONSUMER && g->cg->member_count == 0);
    cg_free(c, g);
    g->type = GROUP_TYPE_CLASSIC;
    g->state = GROUP_EMPTY;
    g->protocol_type[0] = g->protocol_name[0] = g->leader_id[0] = '\0';
    g->generation = 0;
}

bool cc_join(group_coord *c, ggroup *g, const group_join_request *req)
{
    if (g->cg->member_count == 0) {
        to_classic_empty(c, g);
        return false;
    }
    cc_join_member(c, g, req);
    return true;
}

void cc_joined(group_coord *c, ggroup *g, cmember *m, const group_join_request *req)
{
    cclassic *k = m->classic;
    k->join_deadline_ms = INT64_MAX;
    k->sync_deadline_ms = c->now_ms + req->rebalance_timeout_ms;
    m->session_deadline_ms = c->now_ms + k->session_timeout_ms;
    cg_update_state(c, g);
    group_answer *a = gc_answer(c, GROUP_ANSWER_JOIN, req->token, KAFKA_NONE);
    a->generation = m->member_epoch;
    gc_copy(a->member_id, m->id);
    gc_copy(a->protocol_type, "consumer");
    gc_copy(a->protocol_name, k->protocol_names[0]);
}

/* Kafka's validateConsumerGroupMember plus throwIfMemberDoesNotUseClassicProtocol. */
static enum kafka_error classic_member(const cgroup *cg, const char *member_id,
                                       const char *instance_id, cmember **out)
{
    *out = NULL;
    if (!gc_str_ok(member_id) || !gc_str_ok(instance_id))
        return KAFKA_UNKNOWN_MEMBER_ID;
    cmember *m;
    if (gc_empty(instance_id)) {
        m = cg_member(cg, member_id ? member_id : "");
    } else {
        m = cg_static_member(cg, instance_id);
        if (m && strcmp(m->id, member_id ? member_id : "") != 0)
            return KAFKA_FENCED_INSTANCE_ID;
    }
    if (!m || !m->classic)
        return KAFKA_UNKNOWN_MEMBER_ID;
    *out = m;
    return KAFKA_NONE;
}

static void rejoin_later(group_coord *c, cmember *m)
{
    if (m->classic->join_deadline_ms == INT64_MAX) /* Kafka: scheduleIfAbsent */
        m->classic->join_deadline_ms = c->now_ms + m->rebalance_timeout_ms;
}

static enum kafka_error sync_checks(group_coord *c, const cgroup *cg,
                                    const group_sync_request *req, cmember **m)
{
    if (cg->member_count == 0)
        return KAFKA_UNKNOWN_MEMBER_ID;
    enum kafka_error e = classic_member(cg, req->member_id, req->instance_id, m);
    if (e != KAFKA_NONE)
        return e;
    if (req->generation != (*m)->member_epoch)
        return KAFKA_ILLEGAL_GENERATION;
    if ((req->protocol_type && strcmp(req->protocol_type, "consumer") != 0) ||
        (req->protocol_name && strcmp(req->protocol_name, (*m)->classic->protocol_names[0]) != 0))
        return KAFKA_INCONSISTENT_GROUP_PROTOCOL;
    /* Kafka's throwIfRebalanceInProgress */
    if (cg->group_epoch > (*m)->member_epoch &&
        (*m)->state != GROUP_MEMBER_UNREVOKED_PARTITIONS) {
        rejoin_later(c, *m);
        return KAFKA_REBALANCE_IN_PROGRESS;
    }
    return KAFKA_NONE;
}

void cc_sync(group_coord *c, ggroup *g, const group_sync_request *req)
{
    cmember *m;
    enum kafka_error e = sync_checks(c, g->cg, req, &m);
    kq_writer w;
    kq_writer_init(&w, KQ_GROUP_MEMBER_BYTES_MAX);
    if (e == KAFKA_NONE) {
        cclassic *k = m->classic;
        int16_t version = cc_metadata_version(k->metadata[0], k->metadata_len[0]);
        if (!cc_encode_assignment(&m->assigned, &c->topics, version, &w)) {
            e = KAFKA_COORDINATOR_NOT_AVAILABLE;
        } else {
            free(k->assignment);
            k->assignment = kq_writer_take(&w, &k->assignment_len);
            cg_account(c, g, m);
            k->sync_deadline_ms = INT64_MAX;
            m->session_deadline_ms = c->now_ms + k->session_timeout_ms;
        }
    }
    kq_writer_free(&w);
    group_answer *a = gc_answer(c, GROUP_ANSWER_SYNC, req->token, e);
    if (e != KAFKA_NONE)
        return;
    a->generation = m->member_epoch;
    gc_copy(a->member_id, m->id);
    gc_copy(a->protocol_type, req->protocol_type);
    gc_copy(a->protocol_name, req->protocol_name);
    a->assignment = m->classic->assignment;
    a->assignment_len = m->classic->assignment_len;
}

/* ConsumerGroup.waitingOnUnreleasedPartition: a target partition it lacks
 * is still held by another member. */
static bool waiting_on_unreleased(const cgroup *cg, const cmember *m)
{
    if (m->state != GROUP_MEMBER_UNRELEASED_PARTITIONS)
        return false;
    for (int i = 0; i < m->target.n; i++) {
        const cpart *x = &m->target.v[i];
        if (!cs_contains(&m->assigned, x->id, x->p) && cpm_epoch(&cg->owned, x->id, x->p) != -1)
            return true;
    }
    return false;
}

enum kafka_error cc_heartbeat(group_coord *c, ggroup *g, const char *member_id,
                              const char *instance_id, int32_t generation)
{
    cmember *m;
    enum kafka_error e = classic_member(g->cg, member_id, instance_id, &m);
    if (e != KAFKA_NONE)
        return e;
    if (generation != m->member_epoch)
        return KAFKA_ILLEGAL_GENERATION;
    m->session_deadline_ms = c->now_ms + m->classic->session_timeout_ms;
    if (m->member_epoch < g->cg->group_epoch || m->state == GROUP_MEMBER_UNREVOKED_PARTITIONS ||
        (m->state == GROUP_MEMBER_UNRELEASED_PARTITIONS && !waiting_on_unreleased(g->cg, m))) {
        rejoin_later(c, m);
        return KAFKA_REBALANCE_IN_PROGRESS;
    }
    return KAFKA_NONE;
}

/* One member of a LeaveGroup (by member id, or by instance id with or
 * without the member id). */
static enum kafka_error leave_one(group_coord *c, ggroup *g, group_leave_member *lm)
{
    const cgroup *cg = g->cg;
    cmember *m;
    if (gc_empty(lm->instance_id)) {
        enum kafka_error e = classic_member(cg, lm->member_id, NULL, &m);
        if (e == KAFKA_NONE)
            cg_remove_member(c, g, m);
        return e;
    }
    m = gc_str_ok(lm->instance_id) ? cg_static_member(cg, lm->instance_id) : NULL;
    if (!m)
        return KAFKA_UNKNOWN_MEMBER_ID;
    if (!gc_empty(lm->member_id) && strcmp(lm->member_id, m->id) != 0)
        return KAFKA_FENCED_INSTANCE_ID;
    if (!m->classic)
        return KAFKA_UNKNOWN_MEMBER_ID;
    cg_remove_member(c, g, m);
    return KAFKA_NONE;
}

enum kafka_error cc_leave(group_coord *c, ggroup *g, group_leave_member *members, int count)
{
    bool removed = false;
    for (int i = 0; i < count; i++) {
        members[i].error = leave_one(c, g, &members[i]);
        removed |= members[i].error == KAFKA_NONE;
    }
    if (removed) {
        bool ok;
        cg_refresh_meta(c, g->cg, &ok);
        g->cg->group_epoch++;
        g->cg->dirty = true;
        cg_update_state(c, g);
    }
    return KAFKA_NONE;
}
