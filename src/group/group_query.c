/* DescribeGroups, ListGroups and DeleteGroups. */
#include <stdint.h>
#include <string.h>

#include "group_internal.h"

static void summary(const ggroup *g, group_summary *out)
{
    out->group_id = g->id;
    out->state = g->state;
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
    if (!g)
        return KAFKA_GROUP_ID_NOT_FOUND;
    summary(g, out);
    return KAFKA_NONE;
}

/* Metadata of the chosen protocol; the assignment only when Stable (as
 * Kafka's DescribeGroups). */
bool group_member_at(const group_coord *c, const char *group_id, int index,
                     group_member_view *out)
{
    const ggroup *g = group_id && gc_str_ok(group_id) ? gc_find(c, group_id) : NULL;
    if (!g || index < 0 || index >= g->member_count)
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
        if (g->state != GROUP_EMPTY || g->member_count > 0 || g->pending_count > 0)
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
