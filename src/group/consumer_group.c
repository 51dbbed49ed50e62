/* A KIP-848 consumer group's members: lookup, adding and removing them
 * with their bytes, client-host counts and held partitions, the group
 * state (ConsumerGroup.maybeUpdateGroupState), member ids and the
 * preferred assignor. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consumer_internal.h"
#include "kq/assert.h"
#include "kq/mutants.h"

cgroup *cg_of(const ggroup *g) { return g && g->type == GROUP_TYPE_CONSUMER ? g->cg : NULL; }

cgroup *cg_new(void) { return calloc(1, sizeof(cgroup)); }

cmember *cm_new(const char *member_id)
{
    cmember *m = calloc(1, sizeof(*m));
    if (!m)
        return NULL;
    gc_copy(m->id, member_id);
    m->assignor = -1;
    m->state = GROUP_MEMBER_STABLE;
    m->rebalance_deadline_ms = INT64_MAX;
    return m;
}

static void classic_free(cclassic *k)
{
    if (!k)
        return;
    for (int i = 0; i < k->protocol_count; i++)
        free(k->metadata[i]);
    free(k->assignment);
    free(k);
}

void cm_drop_classic(cmember *m)
{
    classic_free(m->classic);
    m->classic = NULL;
    m->dirty = true;
}

void cm_free(cmember *m)
{
    if (!m)
        return;
    for (int i = 0; i < m->topic_count; i++)
        free(m->topics[i]);
    free(m->topics);
    cs_free(&m->assigned);
    cs_free(&m->revoking);
    cs_free(&m->target);
    classic_free(m->classic);
    free(m);
}

uint64_t cm_bytes(const cmember *m)
{
    uint64_t b = KQ_GROUP_CONSUMER_MEMBER_FIXED_BYTES;
    for (int i = 0; i < m->topic_count; i++)
        b += strlen(m->topics[i]) + 1 + sizeof(char *);
    b += cs_bytes(&m->assigned) + cs_bytes(&m->revoking) + cs_bytes(&m->target);
    if (m->classic) {
        b += sizeof(cclassic) + m->classic->assignment_len;
        for (int i = 0; i < m->classic->protocol_count; i++)
            b += m->classic->metadata_len[i];
    }
    return b;
}

void cg_account(group_coord *c, ggroup *g, cmember *m)
{
    uint64_t now = cm_bytes(m);
    g->bytes = g->bytes - m->bytes + now;
    c->bytes = c->bytes - m->bytes + now;
    m->bytes = now;
    cp_recharge(c, g, m);
}

cmember *cg_member(const cgroup *cg, const char *member_id)
{
    for (int i = 0; member_id && i < cg->member_count; i++)
        if (strcmp(cg->members[i]->id, member_id) == 0)
            return cg->members[i];
    return NULL;
}

cmember *cg_static_member(const cgroup *cg, const char *instance_id)
{
    if (gc_empty(instance_id))
        return NULL;
    for (int i = 0; i < cg->member_count; i++)
        if (strcmp(cg->members[i]->instance_id, instance_id) == 0)
            return cg->members[i];
    return NULL;
}

static bool mutant_double(const group_coord *c)
{
    return (c->config.mutants & KQ_MUTANT_DOUBLE_ASSIGNMENT) != 0;
}

bool cg_add_member(group_coord *c, ggroup *g, cmember *m)
{
    cgroup *cg = g->cg;
    if (cg->member_count == cg->member_cap) {
        int cap = cg->member_cap ? 2 * cg->member_cap : 4;
        cmember **v = realloc(cg->members, (size_t)cap * sizeof(*v));
        if (!v)
            return false;
        cg->members = v;
        cg->member_cap = cap;
    }
    if (!cpm_reserve(&cg->owned, (size_t)(m->assigned.n + m->revoking.n)) ||
        !go_owner_add(&c->owners, m->client_host, 1))
        return false;
    cpm_add_set(&cg->owned, &m->assigned, m->member_epoch, mutant_double(c));
    cpm_add_set(&cg->owned, &m->revoking, m->member_epoch, mutant_double(c));
    cg->members[cg->member_count++] = m;
    m->bytes = 0;
    cg_account(c, g, m);
    m->dirty = true;
    cg->dirty = true;
    return true;
}

/* Remembers a removed member's id for its tombstone (out of memory: the
 * take of changes then rewrites the whole group, see consumer_restore.c). */
static void note_gone(cgroup *cg, const char *id)
{
    if (cg->gone_count == cg->gone_cap) {
        int cap = cg->gone_cap ? 2 * cg->gone_cap : 4;
        char (*v)[KQ_GROUP_NAME_BYTES_MAX] = realloc(cg->gone, (size_t)cap * sizeof(*v));
        if (!v) {
            cg->gone_lost = true;
            return;
        }
        cg->gone = v;
        cg->gone_cap = cap;
    }
    gc_copy(cg->gone[cg->gone_count++], id);
}

void cg_remove_member(group_coord *c, ggroup *g, cmember *m)
{
    cgroup *cg = g->cg;
    int at = -1;
    for (int i = 0; i < cg->member_count; i++)
        if (cg->members[i] == m)
            at = i;
    KQ_ASSERT(at >= 0);
    cpm_remove_set(&cg->owned, &m->assigned, m->member_epoch);
    cpm_remove_set(&cg->owned, &m->revoking, m->member_epoch);
    go_owner_add(&c->owners, m->client_host, -1);
    g->bytes -= m->bytes;
    c->bytes -= m->bytes;
    cp_release(c, m);
    memmove(&cg->members[at], &cg->members[at + 1],
            (size_t)(cg->member_count - at - 1) * sizeof(cmember *));
    cg->member_count--;
    cg->dirty = true;
    note_gone(cg, m->id);
    cm_free(m);
}

bool cm_reconciled_to(const cmember *m, int32_t epoch)
{
    return m->state == GROUP_MEMBER_STABLE && m->member_epoch == epoch;
}

void cg_update_state(group_coord *c, ggroup *g)
{
    cgroup *cg = g->cg;
    enum group_consumer_state before = cg->state, s = GROUP_CONSUMER_STABLE;
    if (cg->member_count == 0)
        s = GROUP_CONSUMER_EMPTY;
    else if (cg->group_epoch > cg->assignment_epoch)
        s = GROUP_CONSUMER_ASSIGNING;
    else
        for (int i = 0; i < cg->member_count; i++)
            if (!cm_reconciled_to(cg->members[i], cg->assignment_epoch))
                s = GROUP_CONSUMER_RECONCILING;
    cg->state = s;
    /* The classic view of the state: Empty or not (group_summary). */
    g->state = s == GROUP_CONSUMER_EMPTY ? GROUP_EMPTY : GROUP_STABLE;
    if (s == GROUP_CONSUMER_EMPTY && before != GROUP_CONSUMER_EMPTY)
        g->empty_since_ms = c->now_ms;
}

bool cg_set_assignment(group_coord *c, cgroup *cg, cmember *m, const cset *assigned,
                       const cset *revoking, enum group_member_state state, int32_t epoch,
                       int32_t previous_epoch)
{
    cset a = {0}, r = {0};
    if (!cs_copy(&a, assigned) || !cs_copy(&r, revoking) ||
        !cpm_reserve(&cg->owned, (size_t)(a.n + r.n))) {
        cs_free(&a);
        cs_free(&r);
        return false;
    }
    cpm_remove_set(&cg->owned, &m->assigned, m->member_epoch);
    cpm_remove_set(&cg->owned, &m->revoking, m->member_epoch);
    cpm_add_set(&cg->owned, &a, epoch, mutant_double(c));
    cpm_add_set(&cg->owned, &r, epoch, mutant_double(c));
    cs_free(&m->assigned);
    cs_free(&m->revoking);
    m->assigned = a;
    m->revoking = r;
    cs_view(&m->assigned, &c->topics);
    m->previous_member_epoch = previous_epoch;
    m->member_epoch = epoch;
    m->state = state;
    m->dirty = true;
    cg->dirty = true;
    return true;
}

/* Kafka: Uuid.randomUuid().toString(), 22 base64url characters. */
void cg_new_member_id(group_coord *c, char *out)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    uint64_t bits[2];
    for (int half = 0; half < 2; half++) {
        c->rng ^= c->rng << 13;
        c->rng ^= c->rng >> 7;
        c->rng ^= c->rng << 17;
        bits[half] = c->rng;
    }
    for (int i = 0; i < 22; i++) {
        int bit = i * 6;
        uint64_t w = bits[bit / 64 % 2];
        out[i] = b64[(w >> (bit % 64)) & 63];
    }
    out[22] = '\0';
}

enum group_assignor cg_preferred_assignor(const group_coord *c, const cgroup *cg)
{
    int count[GROUP_ASSIGNORS_MAX] = {0};
    for (int i = 0; i < cg->member_count; i++)
        if (cg->members[i]->assignor >= 0)
            count[cg->members[i]->assignor]++;
    const group_config *k = &c->config;
    enum group_assignor best = k->consumer_assignors[0];
    int best_count = 0;
    for (int i = 0; i < k->consumer_assignor_count; i++)
        if (count[k->consumer_assignors[i]] > best_count) {
            best = k->consumer_assignors[i];
            best_count = count[best];
        }
    return best;
}

int32_t cg_session_timeout_ms(const group_coord *c, const cmember *m)
{
    return m->classic ? m->classic->session_timeout_ms : c->config.consumer_session_timeout_ms;
}

void cg_free(group_coord *c, ggroup *g)
{
    cgroup *cg = g->cg;
    if (!cg)
        return;
    while (cg->member_count)
        cg_remove_member(c, g, cg->members[cg->member_count - 1]);
    free(cg->members);
    free(cg->gone);
    free(cg->meta);
    cpm_free(&cg->owned);
    free(cg);
    g->cg = NULL;
}

bool cg_make_consumer(ggroup *g)
{
    KQ_ASSERT(g->type == GROUP_TYPE_CLASSIC && g->member_count == 0 && g->pending_count == 0);
    cgroup *cg = cg_new();
    if (!cg)
        return false;
    g->type = GROUP_TYPE_CONSUMER;
    g->cg = cg;
    g->state = GROUP_EMPTY;
    gc_copy(g->protocol_type, "consumer");
    g->protocol_name[0] = g->leader_id[0] = '\0';
    g->generation = 0;
    cg->dirty = true;
    return true;
}
