/* SyncGroup and Heartbeat, and the member checks they share with
 * OffsetCommit (Kafka's validateCurrentMember). */
#include <stdlib.h>
#include <string.h>

#include "consumer_internal.h"

/* UNKNOWN_MEMBER_ID / FENCED_INSTANCE_ID / ILLEGAL_GENERATION, or NONE with
 * *out set. */
static enum kafka_error current_member(const ggroup *g, const char *member_id,
                                       const char *instance_id, int32_t generation,
                                       gmember **out)
{
    *out = NULL;
    if (!g || gc_empty(member_id) || !gc_str_ok(member_id) || !gc_str_ok(instance_id))
        return KAFKA_UNKNOWN_MEMBER_ID;
    gmember *s = gc_static_member(g, instance_id);
    gmember *m = gc_member(g, member_id);
    if (s && s != m)
        return KAFKA_FENCED_INSTANCE_ID;
    if (!m)
        return KAFKA_UNKNOWN_MEMBER_ID;
    if (generation != g->generation)
        return KAFKA_ILLEGAL_GENERATION;
    *out = m;
    return KAFKA_NONE;
}

static void sync_answer(group_coord *c, const ggroup *g, const gmember *m, uint64_t token)
{
    group_answer *a = gc_answer(c, GROUP_ANSWER_SYNC, token, KAFKA_NONE);
    a->generation = g->generation;
    gc_copy(a->member_id, m->id);
    gc_copy(a->protocol_type, g->protocol_type);
    gc_copy(a->protocol_name, g->protocol_name);
    a->assignment = m->assignment;
    a->assignment_len = m->assignment_len;
}

static enum kafka_error set_assignment(group_coord *c, ggroup *g, gmember *m,
                                       const uint8_t *data, size_t len)
{
    uint8_t *copy = malloc(len ? len : 1);
    if (!copy)
        return KAFKA_UNKNOWN_SERVER_ERROR;
    if (len)
        memcpy(copy, data, len);
    gm_account(c, g, m, -(int64_t)m->assignment_len);
    free(m->assignment);
    m->assignment = copy;
    m->assignment_len = len;
    gm_account(c, g, m, (int64_t)len);
    return KAFKA_NONE;
}

/* The assignment the leader gives m (NULL, 0: none). */
static const group_assignment *assignment_for(const group_sync_request *req, const gmember *m)
{
    const group_assignment *found = NULL;
    for (int j = 0; j < req->assignment_count; j++) {
        const group_assignment *a = &req->assignments[j];
        if (a->member_id && strcmp(a->member_id, m->id) == 0)
            found = a; /* the last one named, as before */
    }
    return found;
}

/* Whether the group store's budget holds the group's members with the new
 * assignments (issue 24: each member's largest metadata counted). */
static enum kafka_error persist_budget(const group_coord *c, const ggroup *g,
                                       const group_sync_request *req, const char **limit)
{
    if (!gp_enabled(c))
        return KAFKA_NONE;
    uint64_t freed = 0, want = 0;
    for (int i = 0; i < g->member_count; i++) {
        const gmember *m = g->members[i];
        const group_assignment *a = assignment_for(req, m);
        size_t meta = 0;
        for (int p = 0; p < m->protocol_count; p++)
            meta = m->metadata_len[p] > meta ? m->metadata_len[p] : meta;
        freed += m->persist_charge;
        want += gp_member_estimate(g, m, meta, a ? a->assignment_len : 0);
    }
    if (c->persist_bytes - freed + want <= c->config.persist_bytes_max)
        return KAFKA_NONE;
    *limit = "KQ_GROUP_STORE_BYTES_MAX (8 MiB of group membership in the log and snapshots)";
    return KAFKA_COORDINATOR_NOT_AVAILABLE;
}

/* Whether the group's and the total byte budgets hold the new assignments. */
static enum kafka_error assignment_budget(const group_coord *c, const ggroup *g,
                                          const group_sync_request *req, const char **limit)
{
    uint64_t old = 0, want = 0;
    for (int i = 0; i < g->member_count; i++) {
        const group_assignment *a = assignment_for(req, g->members[i]);
        old += g->members[i]->assignment_len;
        want += a ? a->assignment_len : 0;
    }
    if (want <= old)
        return KAFKA_NONE;
    if (g->bytes + (want - old) > KQ_GROUP_BYTES_MAX) {
        *limit = "KQ_GROUP_BYTES_MAX (16 MiB of member metadata and assignments per group)";
        return KAFKA_GROUP_MAX_SIZE_REACHED;
    }
    if (c->bytes + (want - old) > KQ_GROUPS_BYTES_MAX) {
        *limit = "KQ_GROUPS_BYTES_MAX (256 MiB of member metadata and assignments in all groups)";
        return KAFKA_COORDINATOR_NOT_AVAILABLE;
    }
    return persist_budget(c, g, req, limit);
}

/* The leader's assignments (members it does not name get none), then every
 * waiting member is answered and the group is Stable. */
static enum kafka_error leader_sync(group_coord *c, ggroup *g, const group_sync_request *req,
                                   const char **limit)
{
    for (int i = 0; i < req->assignment_count; i++)
        if (req->assignments[i].assignment_len > KQ_GROUP_MEMBER_BYTES_MAX ||
            (gp_enabled(c) &&
             req->assignments[i].assignment_len > KQ_GROUP_STORE_ASSIGNMENT_BYTES_MAX)) {
            *limit = "KQ_GROUP_STORE_ASSIGNMENT_BYTES_MAX (3 KiB of one persisted assignment)";
            return KAFKA_INVALID_REQUEST;
        }
    enum kafka_error err = assignment_budget(c, g, req, limit);
    if (err != KAFKA_NONE)
        return err;
    for (int i = 0; i < g->member_count; i++) {
        gmember *m = g->members[i];
        const group_assignment *a = assignment_for(req, m);
        if (set_assignment(c, g, m, a ? a->assignment : NULL, a ? a->assignment_len : 0) !=
            KAFKA_NONE)
            return KAFKA_UNKNOWN_SERVER_ERROR;
        gp_recharge(c, g, m);
    }
    g->state = GROUP_STABLE;
    gc_mark_members(c, g); /* issue 24: the assignments */
    for (int i = 0; i < g->member_count; i++) {
        gmember *m = g->members[i];
        if (m->awaiting_sync)
            sync_answer(c, g, m, m->sync_token);
        m->awaiting_sync = false;
    }
    return KAFKA_NONE;
}

static enum kafka_error sync_checks(const ggroup *g, const group_sync_request *req, gmember **m)
{
    enum kafka_error err = current_member(g, req->member_id, req->instance_id, req->generation, m);
    if (err != KAFKA_NONE)
        return err;
    if ((req->protocol_type && strcmp(req->protocol_type, g->protocol_type) != 0) ||
        (req->protocol_name && strcmp(req->protocol_name, g->protocol_name) != 0))
        return KAFKA_INCONSISTENT_GROUP_PROTOCOL;
    if (g->state == GROUP_PREPARING_REBALANCE)
        return KAFKA_REBALANCE_IN_PROGRESS;
    if (g->state != GROUP_COMPLETING_REBALANCE && g->state != GROUP_STABLE)
        return KAFKA_UNKNOWN_MEMBER_ID;
    return KAFKA_NONE;
}

const group_output *group_sync(group_coord *c, const group_sync_request *req, int64_t now_ms)
{
    gc_begin(c, now_ms);
    ggroup *g = gc_str_ok(req->group_id) && req->group_id ? gc_find(c, req->group_id) : NULL;
    gmember *m = NULL;
    const char *limit = NULL;
    if (g && g->type == GROUP_TYPE_CONSUMER) {
        cc_sync(c, g, req);
        return gc_end(c);
    }
    enum kafka_error err = sync_checks(g, req, &m);
    if (err == KAFKA_NONE) {
        m->heartbeat_deadline_ms = now_ms + m->session_timeout_ms;
        m->pending_sync = false;
        if (g->state == GROUP_STABLE) {
            sync_answer(c, g, m, req->token);
            return gc_end(c);
        }
        if (m->awaiting_sync) /* superseded */
            gc_answer(c, GROUP_ANSWER_SYNC, m->sync_token, KAFKA_REBALANCE_IN_PROGRESS);
        m->awaiting_sync = true;
        m->sync_token = req->token;
        if (strcmp(m->id, g->leader_id) == 0)
            err = leader_sync(c, g, req, &limit);
        if (err != KAFKA_NONE)
            m->awaiting_sync = false;
    }
    if (err != KAFKA_NONE)
        gc_answer(c, GROUP_ANSWER_SYNC, req->token, err)->limit = limit;
    return gc_end(c);
}

enum kafka_error group_heartbeat(group_coord *c, const char *group_id, const char *member_id,
                                 const char *instance_id, int32_t generation, int64_t now_ms)
{
    ggroup *g = group_id && gc_str_ok(group_id) ? gc_find(c, group_id) : NULL;
    gmember *m = NULL;
    if (g && g->type == GROUP_TYPE_CONSUMER) {
        c->now_ms = now_ms;
        return cc_heartbeat(c, g, member_id, instance_id, generation);
    }
    if (g && g->state == GROUP_EMPTY)
        return KAFKA_UNKNOWN_MEMBER_ID;
    if (g && g->state == GROUP_DEAD)
        return KAFKA_COORDINATOR_NOT_AVAILABLE;
    enum kafka_error err = current_member(g, member_id, instance_id, generation, &m);
    if (err != KAFKA_NONE)
        return err;
    m->heartbeat_deadline_ms = now_ms + m->session_timeout_ms;
    return g->state == GROUP_PREPARING_REBALANCE ? KAFKA_REBALANCE_IN_PROGRESS : KAFKA_NONE;
}

enum kafka_error group_validate_offset_commit(const group_coord *c, const char *group_id,
                                              const char *member_id, const char *instance_id,
                                              int32_t generation, bool *group_exists)
{
    ggroup *g = group_id && gc_str_ok(group_id) ? gc_find(c, group_id) : NULL;
    *group_exists = g != NULL;
    if (g && g->type == GROUP_TYPE_CONSUMER)
        return cc_validate_commit_latest(g, member_id, generation);
    if (!g)
        return generation < 0 && gc_empty(member_id) ? KAFKA_NONE : KAFKA_ILLEGAL_GENERATION;
    if (g->state == GROUP_DEAD)
        return KAFKA_COORDINATOR_NOT_AVAILABLE;
    if (generation < 0 && g->state == GROUP_EMPTY)
        return KAFKA_NONE;
    gmember *m = NULL;
    enum kafka_error err = current_member(g, member_id, instance_id, generation, &m);
    if (err != KAFKA_NONE)
        return err;
    return g->state == GROUP_COMPLETING_REBALANCE ? KAFKA_REBALANCE_IN_PROGRESS : KAFKA_NONE;
}
