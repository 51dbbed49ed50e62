/* A classic consumer's JoinGroup to a non-empty consumer group (KIP-848
 * online migration, Kafka's classicGroupJoinToConsumerGroup): the member
 * is served by the consumer group logic with the subscription of its
 * ConsumerProtocolSubscription, answered at once with its member epoch as
 * the generation and no leader (so it sends SyncGroup with no assignments
 * and gets its own from the consumer group). */
#include <stdlib.h>
#include <string.h>

#include "consumer_internal.h"
#include "kq/assert.h"

static void join_answer(group_coord *c, const group_join_request *req, enum kafka_error e,
                        const char *member_id, const char *limit)
{
    group_answer *a = gc_answer(c, GROUP_ANSWER_JOIN, req->token, e);
    gc_copy(a->member_id, member_id && gc_str_ok(member_id) ? member_id : "");
    a->limit = limit;
}

/* ConsumerGroup.supportsClassicProtocols: the consumer protocol type and,
 * for a group with classic members, a protocol every one of them names. */
static bool supports(const cgroup *cg, const group_join_request *req)
{
    if (strcmp(req->protocol_type, "consumer") != 0)
        return false;
    int classic = 0;
    for (int i = 0; i < cg->member_count; i++)
        classic += cg->members[i]->classic != NULL;
    for (int p = 0; p < req->protocol_count; p++) {
        int have = 0;
        for (int i = 0; i < cg->member_count; i++) {
            const cclassic *k = cg->members[i]->classic;
            for (int j = 0; k && j < k->protocol_count; j++)
                have += strcmp(k->protocol_names[j], req->protocols[p].name) == 0;
        }
        if (have == classic)
            return true;
    }
    return false;
}

static bool protocols_fit(const group_join_request *req)
{
    size_t bytes = 0;
    for (int i = 0; i < req->protocol_count; i++)
        bytes += strlen(req->protocols[i].name) + 2 + req->protocols[i].metadata_len + 4;
    return req->protocol_count <= KQ_GROUP_PROTOCOLS_MAX &&
           bytes <= KQ_GROUP_CONSUMER_CLASSIC_PROTOCOLS_BYTES_MAX;
}

/* The member the join names (h->m / h->replaced), or an error. */
static enum kafka_error find_member(ch_ctx *h, const group_join_request *req, bool unknown)
{
    const cgroup *cg = h->g->cg;
    if (gc_empty(req->instance_id)) { /* Kafka creates a dynamic member whatever its id */
        h->m = cg_member(cg, h->member_id);
        return KAFKA_NONE;
    }
    cmember *s = cg_static_member(cg, req->instance_id);
    if (unknown) { /* a classic member replaces a static member at once */
        h->replaced = s;
        h->m = s ? NULL : cg_member(cg, h->member_id);
        return KAFKA_NONE;
    }
    if (!s)
        return KAFKA_UNKNOWN_MEMBER_ID;
    if (strcmp(s->id, h->member_id) != 0)
        return KAFKA_FENCED_INSTANCE_ID;
    h->m = s;
    return KAFKA_NONE;
}

/* The classic part of the member: session timeout and protocols. */
static bool set_classic(group_coord *c, ggroup *g, cmember *m, const group_join_request *req,
                        bool *changed)
{
    cclassic *k = m->classic;
    if (!k && !(k = m->classic = calloc(1, sizeof(*k))))
        return false;
    if (!k->protocol_count)
        k->join_deadline_ms = k->sync_deadline_ms = INT64_MAX;
    cclassic fresh = {.session_timeout_ms = req->session_timeout_ms,
                      .protocol_count = req->protocol_count};
    for (int i = 0; i < req->protocol_count; i++) {
        const group_protocol *p = &req->protocols[i];
        gc_copy(fresh.protocol_names[i], p->name);
        fresh.metadata[i] = malloc(p->metadata_len ? p->metadata_len : 1);
        if (!fresh.metadata[i]) {
            for (int j = 0; j < i; j++)
                free(fresh.metadata[j]);
            return false;
        }
        if (p->metadata_len)
            memcpy(fresh.metadata[i], p->metadata, p->metadata_len);
        fresh.metadata_len[i] = p->metadata_len;
        *changed = *changed || i >= k->protocol_count ||
                   strcmp(k->protocol_names[i], p->name) != 0 ||
                   k->metadata_len[i] != p->metadata_len ||
                   (p->metadata_len && memcmp(k->metadata[i], p->metadata, p->metadata_len));
    }
    *changed = *changed || k->protocol_count != req->protocol_count ||
               k->session_timeout_ms != req->session_timeout_ms;
    for (int i = 0; i < k->protocol_count; i++)
        free(k->metadata[i]);
    fresh.assignment = k->assignment;
    fresh.assignment_len = k->assignment_len;
    fresh.join_deadline_ms = k->join_deadline_ms;
    fresh.sync_deadline_ms = k->sync_deadline_ms;
    *k = fresh;
    cg_account(c, g, m);
    return true;
}

/* The join as a heartbeat request: the subscription's topics and rack, the
 * join's rebalance timeout; no assignor (Kafka's maybeUpdateServerAssignorName
 * with none). */
static group_consumer_heartbeat_request as_heartbeat(const group_join_request *req,
                                                     const cc_subscription *sub,
                                                     const char **names)
{
    for (int i = 0; i < sub->topic_count; i++)
        names[i] = sub->topics[i];
    group_consumer_heartbeat_request r = {
        .group_id = req->group_id, .member_epoch = -1,
        .instance_id = gc_empty(req->instance_id) ? NULL : req->instance_id,
        .rack_id = sub->rack[0] ? sub->rack : NULL,
        .rebalance_timeout_ms = req->rebalance_timeout_ms,
        .subscribed_topic_names = names, .subscribed_topic_count = sub->topic_count,
        .owned_count = -1, .client_id = req->client_id, .client_host = req->client_host,
    };
    return r;
}

/* Kafka's checks before the member is touched; NONE or the error. */
static enum kafka_error precheck(ch_ctx *h, const group_join_request *req, bool unknown)
{
    const cgroup *cg = h->g->cg;
    if (cg->member_count >= h->c->config.consumer_max_size &&
        (unknown || !cg_member(cg, h->member_id)))
        return KAFKA_GROUP_MAX_SIZE_REACHED;
    if (!supports(cg, req))
        return KAFKA_INCONSISTENT_GROUP_PROTOCOL;
    if (!protocols_fit(req))
        return KAFKA_INVALID_REQUEST;
    return KAFKA_NONE;
}

/* Steps 1-4 of the heartbeat for the joining member; false with the error
 * in *err. */
static bool update(ch_ctx *h, const group_join_request *req, const cc_subscription *sub,
                   enum kafka_error *err, const char **limit)
{
    static const cmember blank_member;
    bool changed = false, subs = false;
    bool ok = ch_budget_ok(h, h->m ? h->m : h->replaced ? h->replaced : &blank_member) &&
              ch_place_member(h, &changed, &subs);
    if (ok && !set_classic(h->c, h->g, h->m, req, &changed))
        ch_error(h->c, h->out, KAFKA_COORDINATOR_NOT_AVAILABLE, "out of memory");
    ok = ok && h->out->error == KAFKA_NONE && ch_maybe_bump(h, subs, &changed) &&
         ch_assign_and_reconcile(h, &sub->owned, &changed);
    *err = h->out->error;
    *limit = h->out->limit;
    return ok;
}

void cc_join_member(group_coord *c, ggroup *g, const group_join_request *req)
{
    bool unknown = gc_empty(req->member_id);
    group_consumer_heartbeat_response out = {0};
    ch_ctx h = {.c = c, .out = &out, .g = g};
    if (unknown)
        cg_new_member_id(c, h.member_id);
    else
        gc_copy(h.member_id, req->member_id);
    enum kafka_error e = precheck(&h, req, unknown);
    if (e == KAFKA_NONE && unknown && gc_empty(req->instance_id) && req->require_known_member_id) {
        join_answer(c, req, KAFKA_MEMBER_ID_REQUIRED, h.member_id, NULL);
        return;
    }
    cc_subscription *sub = e == KAFKA_NONE ? calloc(1, sizeof(*sub)) : NULL;
    if (e == KAFKA_NONE && !sub)
        e = KAFKA_COORDINATOR_NOT_AVAILABLE;
    else if (e == KAFKA_NONE &&
             !cc_decode_subscription(req->protocols[0].metadata, req->protocols[0].metadata_len,
                                     &c->topics, sub))
        e = KAFKA_UNKNOWN_SERVER_ERROR; /* Kafka: malformed embedded protocol */
    if (e == KAFKA_NONE)
        e = find_member(&h, req, unknown);
    const char *names[KQ_GROUP_CONSUMER_SUBSCRIBED_TOPICS_MAX];
    group_consumer_heartbeat_request r;
    const char *limit = NULL;
    if (e == KAFKA_NONE) {
        r = as_heartbeat(req, sub, names);
        h.r = &r;
        bool down = h.replaced && cc_may_downgrade_replaced(c, g, h.replaced);
        if (update(&h, req, sub, &e, &limit)) {
            cc_joined(c, g, h.m, req);
            if (down) /* the last consumer-protocol member was replaced */
                cc_downgrade(c, g, NULL);
        }
    }
    if (e != KAFKA_NONE)
        join_answer(c, req, e, req->member_id, limit);
    if (sub)
        cs_free(&sub->owned);
    free(sub);
}
