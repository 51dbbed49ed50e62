/* The downgrade of a consumer group to a classic group (KIP-848 online
 * migration; Kafka's validateOnlineDowngradeWithFencedMember and
 * validateOnlineDowngradeWithReplacedMemberId, convertToClassicGroup /
 * ClassicGroup.fromConsumerGroup): when the last member using the consumer
 * protocol leaves or is fenced and classic members remain, or is replaced
 * by a classic static member, the group becomes a classic group, Stable at
 * the group epoch, each member's target assignment its assignment (encoded
 * as ConsumerProtocolAssignment of the chosen protocol's version); a
 * rebalance starts when a member left. */
#include <stdlib.h>
#include <string.h>

#include "consumer_internal.h"
#include "kq/assert.h"

/* Kafka's allMembersUseClassicProtocolExcept(m) and the policy. */
static bool only_classic_besides(const group_coord *c, const cgroup *cg, const cmember *m)
{
    enum group_migration_policy p = c->config.consumer_migration_policy;
    if (m->classic)
        return false;
    for (int i = 0; i < cg->member_count; i++)
        if (cg->members[i] != m && !cg->members[i]->classic)
            return false;
    return p == GROUP_MIGRATION_BIDIRECTIONAL || p == GROUP_MIGRATION_DOWNGRADE;
}

bool cc_may_downgrade(const group_coord *c, const ggroup *g, const cmember *leaving)
{
    const cgroup *cg = g->cg;
    return cg->member_count > 1 && cg->member_count - 1 <= c->config.max_size &&
           only_classic_besides(c, cg, leaving);
}

bool cc_may_downgrade_replaced(const group_coord *c, const ggroup *g, const cmember *replaced)
{
    return g->cg->member_count <= c->config.max_size && only_classic_besides(c, g->cg, replaced);
}

/* A classic member with m's identity and protocols (no assignment yet). */
static gmember *to_gmember(const cmember *m)
{
    gmember *gm = calloc(1, sizeof(*gm));
    if (!gm)
        return NULL;
    gc_copy(gm->id, m->id);
    gc_copy(gm->instance_id, m->instance_id);
    gc_copy(gm->client_id, m->client_id);
    gc_copy(gm->client_host, m->client_host);
    gm->session_timeout_ms = m->classic->session_timeout_ms;
    gm->rebalance_timeout_ms = m->rebalance_timeout_ms;
    for (int i = 0; i < m->classic->protocol_count; i++, gm->protocol_count++) {
        size_t n = m->classic->metadata_len[i];
        gc_copy(gm->protocol_names[i], m->classic->protocol_names[i]);
        if (!(gm->metadata[i] = malloc(n ? n : 1))) {
            gm_free(gm);
            return NULL;
        }
        memcpy(gm->metadata[i], m->classic->metadata[i], n);
        gm->metadata_len[i] = n;
    }
    return gm;
}

/* The members (all but leaving) with their assignments, in tmp. */
static bool build(group_coord *c, const cgroup *cg, const cmember *leaving, ggroup *tmp)
{
    tmp->members = calloc((size_t)cg->member_count, sizeof(gmember *));
    if (!tmp->members)
        return false;
    for (int i = 0; i < cg->member_count; i++)
        if (cg->members[i] != leaving &&
            (!cg->members[i]->classic ||
             !(tmp->members[tmp->member_count++] = to_gmember(cg->members[i]))))
            return false;
    gr_select_protocol(tmp);
    int at = 0;
    for (int i = 0; i < cg->member_count; i++) {
        if (cg->members[i] == leaving)
            continue;
        gmember *gm = tmp->members[at++];
        int p = gm_protocol_index(gm, tmp->protocol_name);
        int16_t version = p >= 0 ? cc_metadata_version(gm->metadata[p], gm->metadata_len[p]) : 0;
        kq_writer w;
        kq_writer_init(&w, KQ_GROUP_MEMBER_BYTES_MAX);
        bool ok = cc_encode_assignment(&cg->members[i]->target, &c->topics, version, &w);
        gm->assignment = kq_writer_take(&w, &gm->assignment_len);
        kq_writer_free(&w);
        if (!ok || !gm->assignment)
            return false;
    }
    return true;
}

static void free_tmp(ggroup *tmp)
{
    for (int i = 0; i < tmp->member_count; i++)
        if (tmp->members[i])
            gm_free(tmp->members[i]);
    free(tmp->members);
}

static uint64_t gm_size(const gmember *m)
{
    uint64_t b = m->assignment_len;
    for (int i = 0; i < m->protocol_count; i++)
        b += m->metadata_len[i];
    return b;
}

void cc_downgrade(group_coord *c, ggroup *g, cmember *leaving)
{
    ggroup tmp = {0};
    int32_t epoch = g->cg->group_epoch;
    if (!build(c, g->cg, leaving, &tmp)) { /* out of memory: stays a consumer group */
        free_tmp(&tmp);
        if (leaving) {
            cg_remove_member(c, g, leaving);
            g->cg->group_epoch++;
            cg_update_state(c, g);
        }
        return;
    }
    cg_free(c, g);
    g->type = GROUP_TYPE_CLASSIC;
    g->state = GROUP_STABLE;
    g->generation = epoch;
    gc_copy(g->protocol_type, "consumer");
    gc_copy(g->protocol_name, tmp.protocol_name);
    for (int i = 0; i < tmp.member_count; i++) {
        gmember *gm = tmp.members[i];
        if (!gc_group_room(c, g) || !go_owner_add(&c->owners, gm->client_host, 1))
            continue; /* out of memory: that member is dropped (freed below) */
        gm->heartbeat_deadline_ms = c->now_ms + gm->session_timeout_ms;
        g->members[g->member_count++] = gm;
        tmp.members[i] = NULL;
        gm_account(c, g, gm, (int64_t)gm_size(gm));
        gp_recharge(c, g, gm); /* issue 24: its record's charge */
    }
    free_tmp(&tmp);
    gc_copy(g->leader_id, g->member_count ? g->members[0]->id : "");
    if (!g->member_count)
        g->state = GROUP_EMPTY;
    else if (leaving) /* a member left: a rebalance (Kafka's prepareRebalance) */
        gr_prepare(c, g);
    /* else a static member was replaced: Stable, every member keeps its
     * assignment */
}
