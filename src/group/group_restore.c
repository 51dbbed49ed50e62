/* group_coord_restore (kq/group.h, issue 24): a new coordinator loads the
 * groups of the group store (kq/group_store.h), as Kafka's coordinator
 * loads __consumer_offsets: classic groups in their persisted state, every
 * member's session deadline now + its session timeout. Consumer groups
 * (KIP-848) are their module's (gc_restore_consumer_group). */
#include <stdlib.h>
#include <string.h>

#include "group_internal.h"
#include "kq/assert.h"

static int32_t max_rebalance_ms(const ggroup *g)
{
    int32_t t = 0;
    for (int i = 0; i < g->member_count; i++)
        if (g->members[i]->rebalance_timeout_ms > t)
            t = g->members[i]->rebalance_timeout_ms;
    return t;
}

static bool copy_bytes(uint8_t **dst, const uint8_t *src, size_t len)
{
    *dst = malloc(len ? len : 1);
    if (!*dst)
        return false;
    if (len)
        memcpy(*dst, src, len);
    return true;
}

/* One member record of g: false when it cannot be loaded (skipped). */
static bool restore_member(group_coord *c, ggroup *g, const group_store_record *r)
{
    group_store_classic_member v;
    group_store_classic_strings s;
    if (r->type != GROUP_STORE_TYPE_CLASSIC || r->tombstone ||
        group_store_classic_member_read((kq_slice){r->body, (int32_t)r->body_len}, &v, &s) ||
        g->member_count + g->pending_count >= c->config.max_size || !gc_group_room(c, g) ||
        gc_member(g, r->member_id) || gc_static_member(g, v.instance_id))
        return false;
    gmember *m = calloc(1, sizeof(*m));
    if (!m)
        return false;
    gc_copy(m->id, r->member_id);
    gc_copy(m->instance_id, v.instance_id);
    gc_copy(m->client_id, v.client_id);
    gc_copy(m->client_host, v.client_host);
    m->session_timeout_ms = v.session_timeout_ms;
    m->rebalance_timeout_ms = v.rebalance_timeout_ms;
    bool ok = true;
    if (g->protocol_name[0]) { /* its one protocol: the group's */
        gc_copy(m->protocol_names[0], g->protocol_name);
        m->protocol_count = 1;
        ok = copy_bytes(&m->metadata[0], v.metadata, v.metadata_len);
        m->metadata_len[0] = ok ? v.metadata_len : 0;
    }
    ok = ok && copy_bytes(&m->assignment, v.assignment, v.assignment_len);
    m->assignment_len = ok ? v.assignment_len : 0;
    if (!ok || !go_owner_add(&c->owners, m->client_host, 1)) {
        gm_free(m);
        return false;
    }
    gm_account(c, g, m, (int64_t)(m->metadata_len[0] + m->assignment_len));
    m->heartbeat_deadline_ms = c->now_ms + m->session_timeout_ms;
    m->persisted = true;
    m->persist_written = group_store_record_cost(r);
    g->members[g->member_count++] = m;
    gp_recharge(c, g, m);
    return true;
}

/* The state a group is loaded in: a rebalance needs a protocol and the
 * leader among the members; else the members rejoin. */
static void restore_state(group_coord *c, ggroup *g, int8_t state)
{
    g->state = (enum group_state)state;
    if (g->member_count == 0) {
        g->state = GROUP_EMPTY;
        g->leader_id[0] = '\0';
        return;
    }
    if (g->state == GROUP_EMPTY ||
        ((g->state == GROUP_STABLE || g->state == GROUP_COMPLETING_REBALANCE) &&
         (!g->protocol_name[0] || !gc_member(g, g->leader_id))))
        g->state = GROUP_PREPARING_REBALANCE; /* not a state it was written in */
    if (!gc_member(g, g->leader_id))
        gc_copy(g->leader_id, g->members[0]->id);
    if (g->state == GROUP_PREPARING_REBALANCE) {
        g->join_deadline_ms = c->now_ms + max_rebalance_ms(g);
    } else if (g->state == GROUP_COMPLETING_REBALANCE) {
        g->sync_deadline_ms = c->now_ms + max_rebalance_ms(g);
        for (int i = 0; i < g->member_count; i++)
            g->members[i]->pending_sync = true;
    }
}

static bool restore_classic(group_coord *c, const group_store *s, int gi,
                            const group_store_record *gr)
{
    group_store_classic_group v;
    group_store_classic_strings str;
    if (gr->tombstone ||
        group_store_classic_group_read((kq_slice){gr->body, (int32_t)gr->body_len}, &v, &str) ||
        gc_find(c, gr->group_id) || c->group_count >= KQ_GROUPS_MAX)
        return false;
    ggroup *g = gc_create_group(c, gr->group_id); /* charged: gp_group_charge */
    if (!g)
        return false;
    g->generation = v.generation;
    gc_copy(g->protocol_type, v.protocol_type);
    gc_copy(g->protocol_name, v.protocol_name);
    gc_copy(g->leader_id, v.leader_id);
    g->empty_since_ms = v.state_timestamp_ms;
    g->persisted = true;
    g->persist_written = group_store_record_cost(gr);
    bool skipped = false;
    group_store_record mr;
    for (int mi = 0; v.state != GROUP_EMPTY && group_store_member_at(s, gi, mi, &mr); mi++)
        if (!restore_member(c, g, &mr))
            skipped = true;
    /* Records it does not keep (a full group, an Empty group's members)
     * get their tombstones. */
    for (int mi = 0; group_store_member_at(s, gi, mi, &mr); mi++)
        if (!gc_member(g, mr.member_id))
            gp_record_gone(c, g, mr.member_id, group_store_record_cost(&mr));
    restore_state(c, g, v.state);
    if ((int)g->state != v.state || skipped || g->gone_count > 0)
        gc_mark_dirty(c, g); /* written again as loaded */
    return true;
}

int group_coord_restore(group_coord *c, const group_store *s, int64_t now_ms)
{
    gc_begin(c, now_ms);
    int loaded = 0;
    group_store_record gr;
    for (int gi = 0; group_store_group_at(s, gi, &gr); gi++) {
        if (gr.type == GROUP_STORE_TYPE_CLASSIC ? restore_classic(c, s, gi, &gr)
            : gr.type == GROUP_STORE_TYPE_CONSUMER
                ? gc_restore_consumer_group(c, s, gi, now_ms)
                : false)
            loaded++;
    }
    gc_end(c);
    return loaded;
}
