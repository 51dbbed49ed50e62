/* The topics consumer groups are assigned from (the caller's metadata,
 * group_consumer_set_topics) and each group's subscription metadata: the
 * subscribed topics that exist, with their ids and partition counts
 * (Kafka's ConsumerGroup.computeSubscriptionMetadata). A change of it bumps
 * the group epoch. */
#include <stdlib.h>
#include <string.h>

#include "consumer_internal.h"
#include "kq/assert.h"

const ctopic *ct_by_name(const ctopics *t, const char *name)
{
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->v[i].name, name) == 0)
            return &t->v[i];
    return NULL;
}

const ctopic *ct_by_id(const ctopics *t, const uint8_t id[16])
{
    for (int i = 0; i < t->n; i++)
        if (memcmp(t->v[i].id, id, 16) == 0)
            return &t->v[i];
    return NULL;
}

static bool topics_valid(const group_topic *topics, int n)
{
    if (n < 0 || n > KQ_GROUP_CONSUMER_TOPICS_MAX || (n > 0 && !topics))
        return false;
    int64_t partitions = 0;
    for (int i = 0; i < n; i++) {
        if (!topics[i].name || strlen(topics[i].name) >= KQ_TOPIC_NAME_BYTES_MAX ||
            topics[i].partition_count < 0)
            return false;
        partitions += topics[i].partition_count;
    }
    return partitions <= KQ_GROUP_CONSUMER_PARTITIONS_MAX;
}

bool group_consumer_set_topics(group_coord *c, const group_topic *topics, int n)
{
    if (!topics_valid(topics, n))
        return false;
    ctopic *v = calloc((size_t)(n ? n : 1), sizeof(*v));
    if (!v)
        return false;
    for (int i = 0; i < n; i++) {
        memcpy(v[i].name, topics[i].name, strlen(topics[i].name) + 1);
        memcpy(v[i].id, topics[i].id, 16);
        v[i].partitions = topics[i].partition_count;
    }
    free(c->topics.v);
    c->topics.v = v;
    c->topics.n = n;
    c->topics.gen++;
    cg_views_rebuild(c);
    return true;
}

/* Topic names in views point into the table: rebuild them all. */
bool cg_views_rebuild(group_coord *c)
{
    for (int i = 0; i < c->group_count; i++) {
        cgroup *cg = cg_of(c->groups[i]);
        for (int j = 0; cg && j < cg->member_count; j++) {
            cs_view(&cg->members[j]->assigned, &c->topics);
            cs_view(&cg->members[j]->target, &c->topics);
        }
    }
    return true;
}

static int meta_cmp(const void *a, const void *b)
{
    return strcmp(((const cmeta *)a)->name, ((const cmeta *)b)->name);
}

static bool meta_has(const cmeta *v, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(v[i].name, name) == 0)
            return true;
    return false;
}

static bool meta_equal(const cmeta *a, int an, const cmeta *b, int bn)
{
    if (an != bn)
        return false;
    for (int i = 0; i < an; i++)
        if (strcmp(a[i].name, b[i].name) != 0 || memcmp(a[i].id, b[i].id, 16) != 0 ||
            a[i].partitions != b[i].partitions)
            return false;
    return true;
}

bool cg_refresh_meta(group_coord *c, cgroup *cg, bool *ok)
{
    int cap = c->topics.n;
    cmeta *v = calloc((size_t)(cap ? cap : 1), sizeof(*v));
    *ok = v != NULL;
    if (!v)
        return false;
    int n = 0;
    for (int i = 0; i < cg->member_count; i++)
        for (int j = 0; j < cg->members[i]->topic_count; j++) {
            const char *name = cg->members[i]->topics[j];
            const ctopic *t = ct_by_name(&c->topics, name);
            if (!t || meta_has(v, n, name))
                continue;
            KQ_ASSERT(n < cap);
            memcpy(v[n].name, t->name, sizeof(v[n].name));
            memcpy(v[n].id, t->id, 16);
            v[n++].partitions = t->partitions;
        }
    qsort(v, (size_t)n, sizeof(*v), meta_cmp);
    bool changed = !meta_equal(v, n, cg->meta, cg->meta_count);
    free(cg->meta);
    cg->meta = v;
    cg->meta_count = n;
    cg->topics_gen = c->topics.gen;
    if (changed)
        cg->dirty = true;
    return changed;
}

static int id_cmp(const void *a, const void *b) { return memcmp(a, b, 16); }

int cg_member_topic_ids(const cgroup *cg, const cmember *m, uint8_t (*ids)[16], int max)
{
    int n = 0;
    for (int j = 0; j < m->topic_count; j++)
        for (int i = 0; i < cg->meta_count; i++)
            if (strcmp(cg->meta[i].name, m->topics[j]) == 0 && n < max)
                memcpy(ids[n++], cg->meta[i].id, 16);
    qsort(ids, (size_t)n, 16, id_cmp);
    return n;
}
