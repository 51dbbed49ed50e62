/* The target assignment of a consumer group at its group epoch (Kafka's
 * TargetAssignmentBuilder): every member with the topic ids it subscribes
 * to and its previous target, given to the group's preferred assignor. */
#include <stdlib.h>
#include <string.h>

#include "consumer_internal.h"
#include "kq/assert.h"

/* Kafka's SubscriptionType: HOMOGENEOUS when every member subscribes to
 * the same topic names. */
static bool same_names(const cmember *a, const cmember *b)
{
    if (a->topic_count != b->topic_count)
        return false;
    for (int i = 0; i < a->topic_count; i++)
        if (strcmp(a->topics[i], b->topics[i]) != 0)
            return false;
    return true;
}

static void free_input(cassign *a)
{
    for (int i = 0; a->members && i < a->member_count; i++) {
        free(a->members[i].ids);
        cs_free(&a->members[i].next);
    }
    free(a->members);
}

static bool build_input(const cgroup *cg, cassign *a)
{
    memset(a, 0, sizeof(*a));
    a->meta = cg->meta;
    a->meta_count = cg->meta_count;
    a->homogeneous = true;
    a->members = calloc((size_t)(cg->member_count ? cg->member_count : 1), sizeof(*a->members));
    if (!a->members)
        return false;
    a->member_count = cg->member_count;
    for (int i = 0; i < cg->member_count; i++) {
        cassign_member *am = &a->members[i];
        am->m = cg->members[i];
        am->previous = &cg->members[i]->target;
        am->ids = malloc((size_t)(cg->meta_count ? cg->meta_count : 1) * 16);
        if (!am->ids)
            return false;
        am->id_count = cg_member_topic_ids(cg, am->m, am->ids, cg->meta_count);
        a->homogeneous = a->homogeneous && same_names(cg->members[0], am->m);
    }
    return true;
}

bool cg_compute_target(group_coord *c, ggroup *g)
{
    cgroup *cg = g->cg;
    cassign a;
    bool ok = build_input(cg, &a);
    if (ok)
        ok = cg_preferred_assignor(c, cg) == GROUP_ASSIGNOR_RANGE ? ca_range(&a) : ca_uniform(&a);
    if (!ok) {
        free_input(&a);
        return false;
    }
    for (int i = 0; i < cg->member_count; i++) {
        cmember *m = cg->members[i];
        if (!cs_equal(&m->target, &a.members[i].next))
            m->dirty = true;
        cset old = m->target;
        m->target = a.members[i].next;
        a.members[i].next = old;
        cs_view(&m->target, &c->topics);
        cg_account(c, g, m);
    }
    free_input(&a);
    cg->assignment_epoch = cg->group_epoch;
    cg->dirty = true;
    return true;
}
