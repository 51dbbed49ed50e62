/* Classic groups' membership through the log (issue 24; kq/group_store.h):
 * the coordinator marks what changed (a rebalance begun or completed, the
 * leader's assignments, a static member replaced, a member removed, a group
 * gone) and group_coord_take_changes() turns it into records for one
 * control batch. What is written per state:
 *
 *   Empty                the group record (its members' tombstones)
 *   PreparingRebalance   the group record and the tombstones of members that
 *                        left; members' records stay as last written (they
 *                        rejoin: their new metadata waits for the completion)
 *   CompletingRebalance  the group record and every member's record (the
 *                        chosen protocol's metadata)
 *   Stable               the same, with the assignments
 *
 * The coordinator also keeps what it may have in the store within
 * config.persist_bytes_max (persist_bytes: every member's largest record,
 * written or to be written, and the records of members and groups gone
 * until their tombstones are taken), so that every admitted store fits a
 * snapshot (include/kq/limits.h). */
#include <stdlib.h>
#include <string.h>

#include "group_internal.h"
#include "kq/assert.h"

bool gp_enabled(const group_coord *c) { return c->config.persist_bytes_max > 0; }

static void bump(group_coord *c, ggroup *g)
{
    c->persist_seq++;
    if (g)
        g->persist_seq = c->persist_seq;
}

void gc_mark_dirty(group_coord *c, ggroup *g)
{
    if (!gp_enabled(c))
        return;
    g->persist_dirty = true;
    bump(c, g);
}

void gc_mark_members(group_coord *c, ggroup *g)
{
    if (!gp_enabled(c))
        return;
    for (int i = 0; i < g->member_count; i++)
        g->members[i]->persist_dirty = true;
    gc_mark_dirty(c, g);
}

void gc_mark_changed(group_coord *c) { bump(c, NULL); }

/* A record's cost (kq/group_store.h: group_store_record_cost) for a classic
 * member of g with these strings and byte lengths. */
static uint64_t member_cost(const ggroup *g, size_t id_len, const char *instance,
                            const char *client_id, const char *host, size_t metadata_len,
                            size_t assignment_len)
{
    return KQ_GROUP_STORE_RECORD_FIXED_BYTES + strlen(g->id) + id_len +
           KQ_GROUP_STORE_MEMBER_BODY_FIXED_BYTES + (instance ? strlen(instance) : 0) +
           (client_id ? strlen(client_id) : 0) + (host ? strlen(host) : 0) + metadata_len +
           assignment_len;
}

/* A group record at most (its names at their longest). */
static uint64_t group_estimate(const char *group_id)
{
    return KQ_GROUP_STORE_RECORD_FIXED_BYTES + strlen(group_id) +
           KQ_GROUP_STORE_GROUP_BODY_FIXED_BYTES + 3 * (KQ_GROUP_NAME_BYTES_MAX - 1);
}

static size_t largest_metadata(const gmember *m)
{
    size_t n = 0;
    for (int i = 0; i < m->protocol_count; i++)
        if (m->metadata_len[i] > n)
            n = m->metadata_len[i];
    return n;
}

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

void gp_recharge(group_coord *c, ggroup *g, gmember *m)
{
    if (!gp_enabled(c))
        return;
    uint64_t now = max64(m->persist_written,
                         member_cost(g, strlen(m->id), m->instance_id, m->client_id,
                                     m->client_host, largest_metadata(m), m->assignment_len));
    c->persist_bytes = c->persist_bytes - m->persist_charge + now;
    m->persist_charge = now;
}

uint64_t gp_member_estimate(const ggroup *g, const gmember *m, size_t metadata_len,
                            size_t assignment_len)
{
    return max64(m->persist_written, member_cost(g, strlen(m->id), m->instance_id, m->client_id,
                                                 m->client_host, metadata_len, assignment_len));
}

bool gp_admits(const group_coord *c, const ggroup *g, const gmember *m, const char *member_id,
               const group_join_request *req, size_t metadata_len, size_t assignment_len)
{
    if (!gp_enabled(c))
        return true;
    size_t id_len = member_id && member_id[0] ? strlen(member_id) : KQ_GROUP_NAME_BYTES_MAX - 1;
    uint64_t want =
        req ? member_cost(g, id_len, req->instance_id, req->client_id, req->client_host,
                          metadata_len, assignment_len)
            : member_cost(g, id_len, m->instance_id, m->client_id, m->client_host, metadata_len,
                          assignment_len);
    uint64_t charge = m ? m->persist_charge : 0;
    want = max64(want, m ? m->persist_written : 0);
    return c->persist_bytes - charge + want <= c->config.persist_bytes_max;
}

bool gp_group_room(const group_coord *c, const char *group_id)
{
    return !gp_enabled(c) ||
           c->persist_bytes + group_estimate(group_id) <= c->config.persist_bytes_max;
}

void gp_group_charge(group_coord *c, ggroup *g)
{
    if (!gp_enabled(c))
        return;
    g->persist_charge = group_estimate(g->id);
    c->persist_bytes += g->persist_charge;
}

static bool gone_add(gp_gone **arr, int *count, int *cap, const char *id, uint64_t cost)
{
    if (*count == *cap) {
        int n = *cap ? *cap * 2 : 4;
        gp_gone *p = realloc(*arr, (size_t)n * sizeof(*p));
        if (!p)
            return false; /* the record stays in the store: a rebalance rewrites the group */
        *arr = p;
        *cap = n;
    }
    gc_copy((*arr)[*count].id, id);
    (*arr)[*count].cost = cost;
    (*count)++;
    return true;
}

void gp_member_gone(group_coord *c, ggroup *g, gmember *m)
{
    if (!gp_enabled(c))
        return;
    c->persist_bytes -= m->persist_charge;
    m->persist_charge = 0;
    if (m->persisted && gone_add(&g->gone, &g->gone_count, &g->gone_cap, m->id, m->persist_written))
        c->persist_bytes += m->persist_written;
    gc_mark_dirty(c, g);
}

void gp_record_gone(group_coord *c, ggroup *g, const char *member_id, uint64_t cost)
{
    if (gp_enabled(c) && gone_add(&g->gone, &g->gone_count, &g->gone_cap, member_id, cost))
        c->persist_bytes += cost;
}

void gp_member_renamed(group_coord *c, ggroup *g, gmember *m, const char *old_id)
{
    if (!gp_enabled(c))
        return;
    if (m->persisted &&
        gone_add(&g->gone, &g->gone_count, &g->gone_cap, old_id, m->persist_written))
        c->persist_bytes += m->persist_written;
    m->persisted = false;
    m->persist_written = 0;
    m->persist_dirty = true;
    gp_recharge(c, g, m);
    gc_mark_dirty(c, g);
}

void gp_group_gone(group_coord *c, ggroup *g)
{
    if (!gp_enabled(c))
        return;
    uint64_t cost = g->persist_written;
    for (int i = 0; i < g->gone_count; i++)
        cost += g->gone[i].cost;
    c->persist_bytes -= g->persist_charge + (cost - g->persist_written);
    g->persist_charge = 0;
    if ((g->persisted || g->gone_count > 0) &&
        gone_add(&c->deleted, &c->deleted_count, &c->deleted_cap, g->id, cost))
        c->persist_bytes += cost;
    g->gone_count = 0;
    bump(c, NULL);
}

void gc_mark_deleted(group_coord *c, const char *group_id)
{
    if (gone_add(&c->deleted, &c->deleted_count, &c->deleted_cap, group_id, 0))
        bump(c, NULL);
}

void gp_group_free(group_coord *c, ggroup *g)
{
    (void)c;
    free(g->gone);
    g->gone = NULL;
    g->gone_count = g->gone_cap = 0;
}

void gp_coord_free(group_coord *c)
{
    free(c->deleted);
    c->deleted = NULL;
    c->deleted_count = c->deleted_cap = 0;
}

uint64_t group_coord_change_seq(const group_coord *c) { return c->persist_seq; }

uint64_t group_coord_group_seq(const group_coord *c, const char *group_id)
{
    const ggroup *g = group_id && gc_str_ok(group_id) ? gc_find(c, group_id) : NULL;
    return g ? g->persist_seq : 0;
}
