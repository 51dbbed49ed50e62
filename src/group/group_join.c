/* JoinGroup: validation, the MEMBER_ID_REQUIRED step, static members
 * (group.instance.id) and the joins of new and known members. */
#include <stdlib.h>
#include <string.h>

#include "consumer_internal.h"

static enum kafka_error validate(const group_coord *c, const group_join_request *req)
{
    if (gc_empty(req->group_id))
        return KAFKA_INVALID_GROUP_ID;
    if (!gc_str_ok(req->group_id) || !gc_str_ok(req->member_id) || !gc_str_ok(req->instance_id) ||
        !gc_str_ok(req->client_id) || !gc_str_ok(req->client_host) || !gc_str_ok(req->protocol_type))
        return KAFKA_INVALID_REQUEST;
    if (req->session_timeout_ms < c->config.min_session_timeout_ms ||
        req->session_timeout_ms > c->config.max_session_timeout_ms)
        return KAFKA_INVALID_SESSION_TIMEOUT;
    if (req->rebalance_timeout_ms < 0)
        return KAFKA_INVALID_REQUEST;
    if (gc_empty(req->protocol_type) || req->protocol_count <= 0)
        return KAFKA_INCONSISTENT_GROUP_PROTOCOL;
    if (req->protocol_count > KQ_GROUP_PROTOCOLS_MAX)
        return KAFKA_INVALID_REQUEST;
    size_t bytes = 0;
    for (int i = 0; i < req->protocol_count; i++) {
        if (!req->protocols[i].name || !gc_str_ok(req->protocols[i].name))
            return KAFKA_INVALID_REQUEST;
        bytes += req->protocols[i].metadata_len;
        if (bytes > KQ_GROUP_MEMBER_BYTES_MAX)
            return KAFKA_INVALID_REQUEST;
        /* issue 24: the chosen protocol's metadata is persisted */
        if (gp_enabled(c) && req->protocols[i].metadata_len > KQ_GROUP_STORE_METADATA_BYTES_MAX)
            return KAFKA_INVALID_REQUEST;
    }
    return KAFKA_NONE;
}

static void fail(group_coord *c, const group_join_request *req, enum kafka_error error,
                 const char *member_id)
{
    group_answer *a = gc_answer(c, GROUP_ANSWER_JOIN, req->token, error);
    gc_copy(a->member_id, member_id ? member_id : "");
}

static void fail_limit(group_coord *c, const group_join_request *req, enum kafka_error error,
                       const char *member_id, const char *limit)
{
    fail(c, req, error, member_id);
    c->out.answers[c->out.answer_count - 1].limit = limit;
}

static const char *const per_connection_limit =
    "KQ_GROUP_MEMBERS_PER_CONNECTION_MAX (64 members and pending member ids per connection)";

static void await_join(group_coord *c, ggroup *g, gmember *m, const group_join_request *req)
{
    if (m->awaiting_join) { /* a join superseded by this one */
        group_answer *a = gc_answer(c, GROUP_ANSWER_JOIN, m->join_token, KAFKA_REBALANCE_IN_PROGRESS);
        gc_copy(a->member_id, m->id);
    }
    m->awaiting_join = true;
    m->join_token = req->token;
    if (g->state != GROUP_PREPARING_REBALANCE)
        gr_prepare(c, g);
    gr_try_complete_join(c, g);
}

static void add_member(group_coord *c, ggroup *g, const group_join_request *req, const char *id)
{
    if (!gc_owner_room(c, req->client_host)) {
        fail_limit(c, req, KAFKA_GROUP_MAX_SIZE_REACHED, "", per_connection_limit);
        return;
    }
    gmember *m = calloc(1, sizeof(*m));
    const char *limit = NULL;
    enum kafka_error err = m ? gm_set_protocols(c, g, m, req, &limit) : KAFKA_UNKNOWN_SERVER_ERROR;
    if (err == KAFKA_NONE && !go_owner_add(&c->owners, req->client_host, 1))
        err = KAFKA_UNKNOWN_SERVER_ERROR;
    if (err != KAFKA_NONE) {
        if (m) {
            gm_account(c, g, m, -(int64_t)m->bytes);
            gm_free(m);
        }
        fail_limit(c, req, err, "", limit);
        return;
    }
    gc_copy(m->id, id);
    gc_copy(m->instance_id, req->instance_id);
    gc_copy(m->client_id, req->client_id);
    gc_copy(m->client_host, req->client_host);
    gp_recharge(c, g, m); /* with its ids (issue 24) */
    if (g->member_count == 0)
        gc_copy(g->protocol_type, req->protocol_type);
    if (gc_empty(g->leader_id))
        gc_copy(g->leader_id, id);
    g->members[g->member_count++] = m;
    if (g->state == GROUP_PREPARING_REBALANCE && g->initial_delay)
        g->joined_during_delay = true;
    await_join(c, g, m, req);
}

/* A member's connection moves to req's client host (counted per host). */
static bool move_owner(group_coord *c, gmember *m, const group_join_request *req)
{
    const char *host = req->client_host ? req->client_host : "";
    if (strcmp(m->client_host, host) == 0)
        return true;
    if (!gc_owner_room(c, host) || !go_owner_add(&c->owners, host, 1))
        return false;
    go_owner_add(&c->owners, m->client_host, -1);
    gc_copy(m->client_host, host);
    return true;
}

/* Kafka's updateStaticMemberAndRebalance: the new member id replaces the
 * old one, whose pending answers are FENCED_INSTANCE_ID. */
static void replace_static(group_coord *c, ggroup *g, gmember *old, const group_join_request *req,
                           const char *id)
{
    if (!move_owner(c, old, req)) {
        fail_limit(c, req, KAFKA_GROUP_MAX_SIZE_REACHED, "", per_connection_limit);
        return;
    }
    if (old->awaiting_join)
        gc_answer(c, GROUP_ANSWER_JOIN, old->join_token, KAFKA_FENCED_INSTANCE_ID);
    if (old->awaiting_sync)
        gc_answer(c, GROUP_ANSWER_SYNC, old->sync_token, KAFKA_FENCED_INSTANCE_ID);
    old->awaiting_join = old->awaiting_sync = false;
    if (strcmp(g->leader_id, old->id) == 0)
        gc_copy(g->leader_id, id);
    char old_id[KQ_GROUP_NAME_BYTES_MAX];
    gc_copy(old_id, old->id);
    gc_copy(old->id, id);
    gc_copy(old->client_id, req->client_id);
    gp_member_renamed(c, g, old, old_id); /* issue 24: the old id's tombstone */
    bool same = gm_same_protocols(old, req);
    const char *limit = NULL;
    enum kafka_error err = gm_set_protocols(c, g, old, req, &limit);
    if (err != KAFKA_NONE) {
        gc_remove_member(c, g, old);
        fail_limit(c, req, err, "", limit);
        return;
    }
    if (g->state == GROUP_STABLE && same) {
        old->heartbeat_deadline_ms = c->now_ms + old->session_timeout_ms;
        gr_join_answer(c, g, old, req->token);
        return;
    }
    await_join(c, g, old, req);
}

static void join_new(group_coord *c, ggroup *g, const group_join_request *req)
{
    char id[KQ_GROUP_NAME_BYTES_MAX];
    gmember *old = gc_static_member(g, req->instance_id);
    if (!old && g->member_count + g->pending_count >= c->config.max_size) {
        fail(c, req, KAFKA_GROUP_MAX_SIZE_REACHED, "");
        return;
    }
    if (!old && !gc_group_room(c, g)) {
        fail(c, req, KAFKA_COORDINATOR_NOT_AVAILABLE, ""); /* out of memory: retriable */
        return;
    }
    gc_new_member_id(c, req->client_id, id);
    if (old) {
        replace_static(c, g, old, req, id);
    } else if (gc_empty(req->instance_id) && req->require_known_member_id) {
        if (!gc_owner_room(c, req->client_host) || !go_owner_add(&c->owners, req->client_host, 1)) {
            fail_limit(c, req, KAFKA_GROUP_MAX_SIZE_REACHED, "", per_connection_limit);
            return;
        }
        gpending *p = &g->pending[g->pending_count++];
        gc_copy(p->id, id);
        gc_copy(p->client_host, req->client_host);
        p->deadline_ms = c->now_ms + req->session_timeout_ms;
        fail(c, req, KAFKA_MEMBER_ID_REQUIRED, id);
    } else {
        add_member(c, g, req, id);
    }
}

static void join_known(group_coord *c, ggroup *g, const group_join_request *req)
{
    int pi = gc_pending_index(g, req->member_id);
    if (pi >= 0) {
        gc_remove_pending(c, g, pi);
        add_member(c, g, req, req->member_id);
        return;
    }
    gmember *m = gc_member(g, req->member_id);
    gmember *s = gc_static_member(g, req->instance_id);
    if (s && s != m) {
        fail(c, req, KAFKA_FENCED_INSTANCE_ID, req->member_id);
        return;
    }
    if (!m) {
        fail(c, req, KAFKA_UNKNOWN_MEMBER_ID, req->member_id);
        return;
    }
    bool same = gm_same_protocols(m, req);
    bool leader = strcmp(g->leader_id, m->id) == 0;
    if (same && (g->state == GROUP_COMPLETING_REBALANCE || (g->state == GROUP_STABLE && !leader))) {
        m->heartbeat_deadline_ms = c->now_ms + m->session_timeout_ms;
        gr_join_answer(c, g, m, req->token);
        return;
    }
    const char *limit = NULL;
    enum kafka_error err = gm_set_protocols(c, g, m, req, &limit);
    if (err != KAFKA_NONE) {
        fail_limit(c, req, err, m->id, limit);
        return;
    }
    await_join(c, g, m, req);
}

const group_output *group_join(group_coord *c, const group_join_request *req, int64_t now_ms)
{
    gc_begin(c, now_ms);
    enum kafka_error err = validate(c, req);
    ggroup *g = NULL;
    if (err == KAFKA_NONE) {
        g = gc_find(c, req->group_id);
        if (g && g->type == GROUP_TYPE_CONSUMER && cc_join(c, g, req))
            return gc_end(c); /* a consumer group served it (KIP-848 migration) */
        if (!g && !gc_empty(req->member_id))
            err = KAFKA_UNKNOWN_MEMBER_ID;
        else if (!g && (!gp_group_room(c, req->group_id) ||
                        !(g = gc_create_group(c, req->group_id))))
            err = KAFKA_COORDINATOR_NOT_AVAILABLE;
        else if (g->state == GROUP_DEAD)
            err = KAFKA_COORDINATOR_NOT_AVAILABLE;
        else if (!gr_supports(g, req, gc_empty(req->member_id)
                                           ? gc_static_member(g, req->instance_id)
                                           : gc_member(g, req->member_id)))
            err = KAFKA_INCONSISTENT_GROUP_PROTOCOL;
    }
    if (err != KAFKA_NONE)
        fail(c, req, err, gc_str_ok(req->member_id) ? req->member_id : "");
    else if (gc_empty(req->member_id))
        join_new(c, g, req);
    else
        join_known(c, g, req);
    return gc_end(c);
}
