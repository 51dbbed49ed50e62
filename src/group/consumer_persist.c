/* KIP-848 consumer groups in the group store's byte budget (issue 24;
 * group_persist.c keeps config.persist_bytes_max for the classic side):
 * every consumer group member is charged its record's cost, its sets
 * counted as large as the topics allow, so that the store the coordinator
 * may write stays within KQ_GROUP_STORE_BYTES_MAX (a snapshot holds it); a
 * join past the budget is refused. */
#include <string.h>

#include "consumer_internal.h"

/* A partition set's encoded bytes: as it is, or as large as the
 * coordinator's topics allow when that is more (so that a member's charge
 * does not grow with its assignment). */
static uint64_t set_bound(const group_coord *c, const cset *s)
{
    uint64_t all = 0, now = 4 * (uint64_t)s->n;
    for (int i = 0; i < c->topics.n; i++)
        all += 18 + 4 * (uint64_t)c->topics.v[i].partitions;
    for (int i = 0; i < s->n; i++)
        if (i == 0 || memcmp(s->v[i - 1].id, s->v[i].id, 16) != 0)
            now += 18;
    return 2 + (all > now ? all : now);
}

/* consumer_codec.c's member body at most, with names bytes of subscription
 * (each name's length + 2). */
static uint64_t body_bound(const group_coord *c, const cmember *m, uint64_t names)
{
    uint64_t b = 24 + strlen(m->instance_id) + strlen(m->rack_id) + strlen(m->client_id) +
                 strlen(m->client_host) + 2 + names + set_bound(c, &m->assigned) +
                 set_bound(c, &m->revoking) + set_bound(c, &m->target) + 1;
    if (m->classic) {
        b += 6;
        for (int i = 0; i < m->classic->protocol_count; i++)
            b += strlen(m->classic->protocol_names[i]) + 6 + m->classic->metadata_len[i];
    }
    return b;
}

static uint64_t names_bytes(const cmember *m)
{
    uint64_t n = 0;
    for (int i = 0; i < m->topic_count; i++)
        n += strlen(m->topics[i]) + 2;
    return n;
}

static uint64_t cost(const group_coord *c, const char *group_id, const cmember *m,
                     const char *member_id, uint64_t names)
{
    return KQ_GROUP_STORE_RECORD_FIXED_BYTES + strlen(group_id) + strlen(member_id) +
           body_bound(c, m, names);
}

void cp_recharge(group_coord *c, ggroup *g, cmember *m)
{
    if (!gp_enabled(c))
        return;
    uint64_t now = cost(c, g->id, m, m->id, names_bytes(m));
    c->persist_bytes = c->persist_bytes - m->persist_charge + now;
    m->persist_charge = now;
}

void cp_release(group_coord *c, cmember *m)
{
    if (!gp_enabled(c))
        return;
    c->persist_bytes -= m->persist_charge;
    m->persist_charge = 0;
}

bool cp_admits(const group_coord *c, const char *group_id, const cmember *shape,
               const char *member_id, const group_consumer_heartbeat_request *r)
{
    if (!gp_enabled(c))
        return true;
    static const cmember blank;
    const cmember *m = shape ? shape : &blank;
    uint64_t names = names_bytes(m), strings = 0;
    if (r->subscribed_topic_count >= 0) {
        names = 0;
        for (int i = 0; i < r->subscribed_topic_count; i++)
            names += strlen(r->subscribed_topic_names[i]) + 2;
    }
    if (!shape) /* a new member: the request's strings */
        strings = (r->instance_id ? strlen(r->instance_id) : 0) +
                  (r->rack_id ? strlen(r->rack_id) : 0) +
                  (r->client_id ? strlen(r->client_id) : 0) +
                  (r->client_host ? strlen(r->client_host) : 0);
    uint64_t want = cost(c, group_id, m, member_id, names) + strings;
    return c->persist_bytes - m->persist_charge + want <= c->config.persist_bytes_max;
}

/* A classic group becoming a consumer group: its classic records go with
 * the group tombstone of the consumer group's first take
 * (group_persist_consumer.c), so the charges of its classic members and of
 * its pending classic tombstones are released. */
void cp_classic_gone(group_coord *c, ggroup *g)
{
    if (!gp_enabled(c))
        return;
    for (int i = 0; i < g->member_count; i++) {
        c->persist_bytes -= g->members[i]->persist_charge;
        g->members[i]->persist_charge = 0;
    }
    for (int i = 0; i < g->gone_count; i++)
        c->persist_bytes -= g->gone[i].cost;
    g->gone_count = 0;
}
