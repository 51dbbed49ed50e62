/* Converting groups between the classic and the consumer protocol (KIP-848
 * online migration, group.consumer.migration.policy; Kafka's
 * validateOnlineUpgrade / convertToConsumerGroup and
 * validateOnlineDowngradeWithFencedMember / convertToClassicGroup).
 * - Upgrade: a ConsumerGroupHeartbeat joining a classic group of protocol
 *   type "consumer": every classic member becomes a consumer group member
 *   using the classic protocol, Stable at the generation, its assignment
 *   (decoded from its ConsumerProtocolAssignment) as current and target.
 *   Waiting joins and syncs are answered REBALANCE_IN_PROGRESS.
 * - Downgrade: the last consumer-protocol member leaves (or is fenced) and
 *   only classic members remain
 * (consumer_downgrade.c). Empty groups change type whatever the policy. */
#include <stdlib.h>
#include <string.h>

#include "consumer_internal.h"
#include "kq/assert.h"

static bool upgrade_enabled(const group_coord *c)
{
    enum group_migration_policy p = c->config.consumer_migration_policy;
    return p == GROUP_MIGRATION_BIDIRECTIONAL || p == GROUP_MIGRATION_UPGRADE;
}

static bool classic_empty(const ggroup *g)
{
    return g->type == GROUP_TYPE_CLASSIC && g->state == GROUP_EMPTY && g->member_count == 0 &&
           g->pending_count == 0;
}

/* Ours beyond Kafka's: a protocol must have been chosen (the members'
 * metadata of it is what is converted). */
bool cc_may_upgrade(const group_coord *c, const ggroup *g)
{
    if (classic_empty(g))
        return true;
    return upgrade_enabled(c) && strcmp(g->protocol_type, "consumer") == 0 &&
           g->protocol_name[0] != '\0' && g->member_count <= c->config.consumer_max_size;
}

/* One classic member as a consumer group member (NULL: malformed). */
static cmember *from_classic(group_coord *c, const ggroup *g, const gmember *gm,
                             cc_subscription *sub)
{
    int p = gm_protocol_index(gm, g->protocol_name);
    cmember *m = cm_new(gm->id);
    bool ok = m && p >= 0 &&
              cc_decode_subscription(gm->metadata[p], gm->metadata_len[p], &c->topics, sub) &&
              cc_decode_assignment(gm->assignment, gm->assignment_len, &c->topics, &m->assigned) &&
              cs_copy(&m->target, &m->assigned) && (m->classic = calloc(1, sizeof(cclassic)));
    const char *names[KQ_GROUP_CONSUMER_SUBSCRIBED_TOPICS_MAX];
    group_consumer_heartbeat_request r = {
        .instance_id = gm->instance_id[0] ? gm->instance_id : NULL,
        .rack_id = ok && sub->rack[0] ? sub->rack : NULL,
        .rebalance_timeout_ms = gm->rebalance_timeout_ms, .subscribed_topic_names = names,
        .subscribed_topic_count = ok ? sub->topic_count : 0, .owned_count = -1,
        .client_id = gm->client_id,
    };
    for (int i = 0; ok && i < sub->topic_count; i++)
        names[i] = sub->topics[i];
    bool changed, subs;
    ok = ok && cm_update(m, &r, &changed, &subs);
    for (int i = 0; ok && i < gm->protocol_count; i++) {
        cclassic *k = m->classic;
        gc_copy(k->protocol_names[i], gm->protocol_names[i]);
        ok = (k->metadata[i] = malloc(gm->metadata_len[i] + 1)) != NULL;
        if (ok && gm->metadata_len[i])
            memcpy(k->metadata[i], gm->metadata[i], gm->metadata_len[i]);
        k->metadata_len[i] = gm->metadata_len[i];
        k->protocol_count += ok;
    }
    if (!ok) {
        cm_free(m);
        return NULL;
    }
    gc_copy(m->client_host, gm->client_host);
    m->member_epoch = m->previous_member_epoch = g->generation;
    m->classic->session_timeout_ms = gm->session_timeout_ms;
    m->classic->join_deadline_ms = m->classic->sync_deadline_ms = INT64_MAX;
    return m;
}

/* Every member converted, no partition in two assignments (a classic
 * leader's assignment is a client's word). */
static enum kafka_error convert_members(group_coord *c, const ggroup *g, cmember **out)
{
    cc_subscription *sub = calloc(1, sizeof(*sub));
    enum kafka_error e = sub ? KAFKA_NONE : KAFKA_COORDINATOR_NOT_AVAILABLE;
    for (int i = 0; e == KAFKA_NONE && i < g->member_count; i++) {
        out[i] = from_classic(c, g, g->members[i], sub);
        e = out[i] ? KAFKA_NONE : KAFKA_GROUP_ID_NOT_FOUND;
        for (int j = 0; e == KAFKA_NONE && j < i; j++)
            for (int k = 0; k < out[i]->assigned.n; k++)
                if (cs_contains(&out[j]->assigned, out[i]->assigned.v[k].id,
                                out[i]->assigned.v[k].p))
                    e = KAFKA_GROUP_ID_NOT_FOUND;
    }
    if (sub)
        cs_free(&sub->owned);
    free(sub);
    return e;
}

/* The classic members go: waiting joins and syncs are answered. */
static void drop_classic(group_coord *c, ggroup *g)
{
    while (g->pending_count)
        gc_remove_pending(c, g, g->pending_count - 1);
    for (int i = 0; i < g->member_count; i++) {
        gmember *m = g->members[i];
        if (m->awaiting_join)
            gc_copy(gc_answer(c, GROUP_ANSWER_JOIN, m->join_token, KAFKA_REBALANCE_IN_PROGRESS)
                        ->member_id,
                    m->id);
        if (m->awaiting_sync)
            gc_answer(c, GROUP_ANSWER_SYNC, m->sync_token, KAFKA_REBALANCE_IN_PROGRESS);
        gm_account(c, g, m, -(int64_t)m->bytes);
        go_owner_add(&c->owners, m->client_host, -1);
        gm_free(m);
    }
    g->member_count = 0;
}

enum kafka_error cc_upgrade(group_coord *c, ggroup *g)
{
    if (classic_empty(g)) {
        if (!cg_make_consumer(g))
            return KAFKA_COORDINATOR_NOT_AVAILABLE;
        cp_classic_gone(c, g); /* its pending classic tombstones: the group's */
        return KAFKA_NONE;
    }
    int n = g->member_count;
    cmember **ms = calloc((size_t)n, sizeof(*ms));
    enum kafka_error e = ms ? convert_members(c, g, ms) : KAFKA_COORDINATOR_NOT_AVAILABLE;
    int32_t generation = g->generation;
    if (e == KAFKA_NONE) {
        cp_classic_gone(c, g);
        drop_classic(c, g);
        g->state = GROUP_EMPTY;
        e = cg_make_consumer(g) ? KAFKA_NONE : KAFKA_COORDINATOR_NOT_AVAILABLE;
    }
    for (int i = 0; i < n; i++) {
        if (e == KAFKA_NONE && cg_add_member(c, g, ms[i])) {
            ms[i]->session_deadline_ms = c->now_ms + ms[i]->classic->session_timeout_ms;
            cs_view(&ms[i]->assigned, &c->topics);
            cs_view(&ms[i]->target, &c->topics);
            cg_account(c, g, ms[i]);
        } else {
            cm_free(ms[i]); /* out of memory midway: that member is lost */
        }
    }
    free(ms);
    if (g->type == GROUP_TYPE_CONSUMER) {
        g->cg->group_epoch = g->cg->assignment_epoch = generation;
        cg_update_state(c, g);
    }
    return e;
}
