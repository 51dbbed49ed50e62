/* ConsumerGroupDescribe (Kafka's ConsumerGroup.asDescribedGroup), the
 * state names, and the simulator's exclusivity check. */
#include <stdio.h>
#include <string.h>

#include "consumer_internal.h"
#include "kq/assert.h"

const char *group_consumer_state_name(enum group_consumer_state s)
{
    switch (s) {
    case GROUP_CONSUMER_EMPTY: return "Empty";
    case GROUP_CONSUMER_ASSIGNING: return "Assigning";
    case GROUP_CONSUMER_RECONCILING: return "Reconciling";
    case GROUP_CONSUMER_STABLE: return "Stable";
    case GROUP_CONSUMER_DEAD: return "Dead";
    }
    return "Unknown";
}

const char *group_member_state_name(enum group_member_state s)
{
    switch (s) {
    case GROUP_MEMBER_STABLE: return "stable";
    case GROUP_MEMBER_UNREVOKED_PARTITIONS: return "unrevoked_partitions";
    case GROUP_MEMBER_UNRELEASED_PARTITIONS: return "unreleased_partitions";
    case GROUP_MEMBER_UNKNOWN: return "unknown";
    }
    return "unknown";
}

static const ggroup *find(const group_coord *c, const char *group_id)
{
    return group_id && gc_str_ok(group_id) ? gc_find(c, group_id) : NULL;
}

enum kafka_error group_consumer_describe(const group_coord *c, const char *group_id,
                                         group_consumer_summary *out, const char **message)
{
    const ggroup *g = find(c, group_id);
    memset(out, 0, sizeof(*out));
    *message = NULL;
    if (!g || g->type != GROUP_TYPE_CONSUMER) {
        *message = g ? "Group is not a consumer group." : "Group not found.";
        return KAFKA_GROUP_ID_NOT_FOUND;
    }
    const cgroup *cg = g->cg;
    out->group_id = g->id;
    out->state = cg->state;
    out->group_epoch = cg->group_epoch;
    out->assignment_epoch = cg->assignment_epoch;
    out->assignor_name = group_assignor_name(cg_preferred_assignor(c, cg));
    out->member_count = cg->member_count;
    return KAFKA_NONE;
}

bool group_consumer_member_at(const group_coord *c, const char *group_id, int index,
                              group_consumer_member_view *out)
{
    const ggroup *g = find(c, group_id);
    const cgroup *cg = cg_of(g);
    if (!cg || index < 0 || index >= cg->member_count)
        return false;
    const cmember *m = cg->members[index];
    memset(out, 0, sizeof(*out));
    out->member_id = m->id;
    out->instance_id = m->instance_id[0] ? m->instance_id : NULL;
    out->rack_id = m->rack_id[0] ? m->rack_id : NULL;
    out->member_epoch = m->member_epoch;
    out->client_id = m->client_id;
    out->client_host = m->client_host;
    out->subscribed_topic_names = (const char *const *)m->topics;
    out->subscribed_topic_count = m->topic_count;
    out->assignment = m->assigned.view;
    out->assignment_count = m->assigned.view_n;
    out->target_assignment = m->target.view;
    out->target_assignment_count = m->target.view_n;
    out->member_type = m->classic ? 0 : 1;
    out->state = m->state;
    return true;
}

bool group_consumer_subscribes_to(const group_coord *c, const char *group_id, const char *topic)
{
    const cgroup *cg = cg_of(find(c, group_id));
    for (int i = 0; cg && topic && i < cg->member_count; i++)
        for (int j = 0; j < cg->members[i]->topic_count; j++)
            if (strcmp(cg->members[i]->topics[j], topic) == 0)
                return true;
    return false;
}

/* Whether member i and a later member of cg hold one partition; the
 * partition in why. */
static bool clash(const cgroup *cg, int i, char *why, size_t len)
{
    const cmember *a = cg->members[i];
    const cset *as[2] = {&a->assigned, &a->revoking};
    for (int j = i + 1; j < cg->member_count; j++) {
        const cmember *b = cg->members[j];
        for (int s = 0; s < 2; s++)
            for (int k = 0; k < as[s]->n; k++) {
                const cpart *x = &as[s]->v[k];
                if (!cs_contains(&b->assigned, x->id, x->p) &&
                    !cs_contains(&b->revoking, x->id, x->p))
                    continue;
                snprintf(why, len, "partition %02x%02x..-%d held by members %s and %s",
                         x->id[0], x->id[1], (int)x->p, a->id, b->id);
                return true;
            }
    }
    return false;
}

bool group_consumer_check_exclusive(const group_coord *c, char *why, size_t why_len)
{
    for (int g = 0; g < c->group_count; g++) {
        const cgroup *cg = cg_of(c->groups[g]);
        for (int i = 0; cg && i < cg->member_count; i++)
            if (clash(cg, i, why, why_len)) {
                size_t n = strlen(why);
                snprintf(why + n, why_len > n ? why_len - n : 0, " of group %s",
                         c->groups[g]->id);
                return false;
            }
    }
    if (why_len)
        why[0] = '\0';
    return true;
}
