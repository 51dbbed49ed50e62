/* DescribeGroups, ListGroups and DeleteGroups. */
#include <stdint.h>
#include <string.h>

#include "consumer_internal.h"

static void summary(const ggroup *g, group_summary *out)
{
    out->group_id = g->id;
    out->state = g->state;
    out->type = g->type;
    out->state_name = g->type == GROUP_TYPE_CONSUMER ? group_consumer_state_name(g->cg->state)
                                                     : group_state_name(g->state);
    if (g->type == GROUP_TYPE_CONSUMER) {
        out->protocol_type = "consumer";
        out->protocol_name = "";
        out->generation = g->cg->group_epoch;
        out->member_count = g->cg->member_count;
        out->leader_id = "";
        return;
    }
    out->protocol_type = g->protocol_type;
    bool chosen = g->state == GROUP_COMPLETING_REBALANCE || g->state == GROUP_STABLE;
    out->protocol_name = chosen ? g->protocol_name : "";
    out->generation = g->generation;
    out->member_count = g->member_count;
    out->leader_id = g->leader_id;
}

enum kafka_error group_describe(const group_coord *c, const char *group_id, group_summary *out)
{
    const ggroup *g = group_id && gc_str_ok(group_id) ? gc_find(c, group_id) : NULL;
    if (!g || g->type == GROUP_TYPE_CONSUMER)
        return KAFKA_GROUP_ID_NOT_FOUND; /* Kafka's describeGroups reads classic groups */
    summary(g, out);
    return KAFKA_NONE;
}

/* Metadata of the chosen protocol; the assignment only when Stable (as
 * Kafka's DescribeGroups). */
bool group_member_at(const group_coord *c, const char *group_id, int index,
                     group_member_view *out)
{
    const ggroup *g = group_id && gc_str_ok(group_id) ? gc_find(c, group_id) : NULL;
    if (!g || g->type == GROUP_TYPE_CONSUMER || index < 0 || index >= g->member_count)
        return false;
    const gmember *m = g->members[index];
    memset(out, 0, sizeof(*out));
    out->member_id = m->id;
    out->instance_id = m->instance_id[0] ? m->instance_id : NULL;
    out->client_id = m->client_id;
    out->client_host = m->client_host;
    int p = g->protocol_name[0] ? gm_protocol_index(m, g->protocol_name) : -1;
    if (p >= 0) {
        out->metadata = m->metadata[p];
        out->metadata_len = m->metadata_len[p];
    }
    if (g->state == GROUP_STABLE) {
        out->assignment = m->assignment;
        out->assignment_len = m->assignment_len;
    }
    return true;
}

int group_count(const group_coord *c) { return c->group_count; }

bool group_type_of(const group_coord *c, const char *group_id, enum group_type *type)
{
    const ggroup *g = group_id && gc_str_ok(group_id) ? gc_find(c, group_id) : NULL;
    if (g)
        *type = g->type;
    return g != NULL;
}

bool group_at(const group_coord *c, int index, group_summary *out)
{
    if (index < 0 || index >= c->group_count)
        return false;
    summary(c->groups[index], out);
    return true;
}

enum kafka_error group_delete(group_coord *c, const char *group_id)
{
    for (int i = 0; i < c->group_count; i++) {
        ggroup *g = c->groups[i];
        if (!group_id || strcmp(g->id, group_id) != 0)
            continue;
        if (g->state != GROUP_EMPTY || gc_member_count(g) > 0 || g->pending_count > 0)
            return KAFKA_NON_EMPTY_GROUP;
        g->state = GROUP_DEAD;
        c->groups[i] = c->groups[--c->group_count];
        gp_group_gone(c, g); /* its tombstone (issue 24) */
        gc_free_group(c, g);
        return KAFKA_NONE;
    }
    return KAFKA_GROUP_ID_NOT_FOUND;
}

uint64_t group_bytes(const group_coord *c) { return c->bytes; }

uint64_t group_bytes_of(const group_coord *c, const char *group_id)
{
    const ggroup *g = group_id && gc_str_ok(group_id) ? gc_find(c, group_id) : NULL;
    return g ? g->bytes : 0;
}
