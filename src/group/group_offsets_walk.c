/* Walks of the offsets table (include/kq/group_offsets.h): one group in
 * topic then partition order, every group, and the view at the log end
 * (committed entries overridden by the newest pending commit per key, in
 * key order; aborted transactional commits held as pending are skipped). */
#include <stdlib.h>
#include <string.h>

#include "group_offsets_internal.h"
#include "kq/assert.h"

bool group_offsets_has_group(const group_offsets *o, const char *group_id)
{
    if (!group_id)
        return false;
    const go_group *g = go_group_find(&o->groups, group_id, go_string_hash(group_id));
    return g && g->count > 0;
}

int group_offsets_foreach_group_id(const group_offsets *o,
                                   int (*cb)(void *ctx, const char *group_id), void *ctx)
{
    for (size_t i = 0; i < o->groups.cap; i++) {
        const go_group *g = o->groups.slots[i];
        if (!g || g->count == 0)
            continue;
        int rc = cb(ctx, g->id);
        if (rc)
            return rc;
    }
    return 0;
}

static int cmp_topic_partition(const void *a, const void *b)
{
    const go_entry *x = *(const go_entry *const *)a, *y = *(const go_entry *const *)b;
    int c = strcmp(x->e.topic, y->e.topic);
    if (c)
        return c;
    return (x->e.partition > y->e.partition) - (x->e.partition < y->e.partition);
}

int group_offsets_foreach_group(const group_offsets *o, const char *group_id,
                                group_offsets_cb cb, void *ctx)
{
    if (!group_id)
        return 0;
    const go_group *g = go_group_find(&o->groups, group_id, go_string_hash(group_id));
    if (!g || g->count == 0)
        return 0;
    const go_entry **list = malloc(sizeof(*list) * (size_t)g->count);
    KQ_ASSERT(list); /* a read with no error to report: as the table's own memory */
    int n = 0;
    for (const go_entry *x = g->head; x; x = x->next_in_group) {
        KQ_ASSERT(n < g->count);
        list[n++] = x;
    }
    KQ_ASSERT(n == g->count);
    qsort(list, (size_t)n, sizeof(*list), cmp_topic_partition);
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++)
        rc = cb(ctx, &list[i]->e);
    free(list);
    return rc;
}

static bool same_key(const go_entry *x, const char *group_id, const char *topic,
                     int32_t partition)
{
    return x->e.partition == partition && strcmp(x->e.topic, topic) == 0 &&
           strcmp(x->e.group_id, group_id) == 0;
}

/* The pending records replayed in log order onto the committed value. */
bool group_offsets_get_at_end(const group_offsets *o, const char *group_id, const char *topic,
                              int32_t partition, group_offset *out)
{
    if (!group_id || !topic)
        return false;
    const go_entry *cur = go_map_find(&o->committed, group_id, topic, partition,
                                      go_key_hash(group_id, topic, partition));
    for (size_t i = o->pending_head; i < o->pending_len; i++) {
        const go_entry *x = o->pending[i];
        if (x->aborted || !same_key(x, group_id, topic, partition))
            continue;
        if (!x->tombstone)
            cur = x;
        else if (cur && go_tombstone_matches(x, cur))
            cur = NULL;
    }
    if (cur && out)
        *out = cur->e;
    return cur != NULL;
}

/* Each key's state after the pending records, replayed in log order, in a
 * temporary map (not owning): its newest commit, or a tombstone that
 * applies (the key is gone at the end). */
static go_map end_of_pending(const group_offsets *o)
{
    go_map m;
    memset(&m, 0, sizeof(m));
    for (size_t i = o->pending_head; i < o->pending_len; i++) {
        go_entry *x = o->pending[i];
        if (x->aborted)
            continue;
        go_entry **slot = go_map_slot(&m, x->e.group_id, x->e.topic, x->e.partition, x->hash);
        if (x->tombstone) {
            const go_entry *cur = slot ? *slot
                                       : go_map_find(&o->committed, x->e.group_id, x->e.topic,
                                                     x->e.partition, x->hash);
            if (!cur || cur->tombstone || !go_tombstone_matches(x, cur))
                continue;
        }
        if (slot) {
            *slot = x;
            continue;
        }
        bool inserted = go_map_insert(&m, x);
        KQ_ASSERT(inserted);
    }
    return m;
}

static int cmp_key(const void *a, const void *b)
{
    const go_entry *x = *(const go_entry *const *)a, *y = *(const go_entry *const *)b;
    int c = strcmp(x->e.group_id, y->e.group_id);
    return c ? c : cmp_topic_partition(a, b);
}

typedef struct at_end_cb {
    group_offsets_cb plain;
    group_offsets_run_cb runs;
    void *ctx;
} at_end_cb;

static int at_end_call(const group_offsets *o, const at_end_cb *c, const go_entry *x)
{
    if (c->plain)
        return c->plain(c->ctx, &x->e);
    /* Committed, or the newest pending commit of its key. */
    bool pending = go_map_find(&o->committed, x->e.group_id, x->e.topic, x->e.partition,
                               x->hash) != x;
    return c->runs(c->ctx, &x->e, go_run_answer_at_end(o, x, pending));
}

/* In (group, topic, partition) order, so that equal states give equal
 * snapshot files whatever the history of the maps. */
static int walk_at_end(const group_offsets *o, const at_end_cb *c)
{
    go_map newest = end_of_pending(o);
    size_t cap = o->committed.count + newest.count;
    const go_entry **list = malloc(sizeof(*list) * (cap ? cap : 1));
    KQ_ASSERT(list); /* no error to report: as the table's own memory */
    size_t n = 0;
    for (size_t i = 0; i < o->committed.cap; i++) {
        const go_entry *x = o->committed.slots[i];
        if (!x)
            continue;
        const go_entry *p = go_map_find(&newest, x->e.group_id, x->e.topic, x->e.partition,
                                        x->hash);
        if (!p || !p->tombstone)
            list[n++] = p ? p : x;
    }
    for (size_t i = 0; i < newest.cap; i++) {
        const go_entry *p = newest.slots[i];
        if (p && !p->tombstone &&
            !go_map_find(&o->committed, p->e.group_id, p->e.topic, p->e.partition, p->hash))
            list[n++] = p;
    }
    KQ_ASSERT(n <= cap);
    go_map_free(&newest, false);
    qsort(list, n, sizeof(*list), cmp_key);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = at_end_call(o, c, list[i]);
    free(list);
    return rc;
}

/* ---- the keys a deletion removes (issue 24) */

typedef struct key_list {
    const go_entry **items;
    size_t n, cap;
} key_list;

static bool key_add(key_list *l, const go_entry *x)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        const go_entry **p = realloc(l->items, cap * sizeof(*p));
        if (!p)
            return false;
        l->items = p;
        l->cap = cap;
    }
    l->items[l->n++] = x;
    return true;
}

/* The group's candidates: its committed entries, its pending commits and
 * its live stashed commits (duplicates and dead keys included). */
static void key_candidates(const group_offsets *o, const char *group_id, key_list *l)
{
    const go_group *g = go_group_find(&o->groups, group_id, go_string_hash(group_id));
    bool ok = true;
    for (const go_entry *x = g ? g->head : NULL; x && ok; x = x->next_in_group)
        ok = key_add(l, x);
    for (size_t i = o->pending_head; i < o->pending_len && ok; i++) {
        const go_entry *x = o->pending[i];
        if (!x->aborted && !x->tombstone && strcmp(x->e.group_id, group_id) == 0)
            ok = key_add(l, x);
    }
    for (size_t i = 0; i < o->txn_count && ok; i++)
        for (size_t j = 0; j < o->txns[i].len && ok; j++) {
            const go_entry *x = o->txns[i].items[j];
            if (x->killed_at < 0 && strcmp(x->e.group_id, group_id) == 0)
                ok = key_add(l, x);
        }
    KQ_ASSERT(ok); /* a read with no error to report: as the table's own memory */
}

int group_offsets_foreach_key_at_end(const group_offsets *o, const char *group_id,
                                     group_offsets_cb cb, void *ctx)
{
    if (!group_id)
        return 0;
    key_list l = {0};
    key_candidates(o, group_id, &l);
    if (l.n > 1)
        qsort(l.items, l.n, sizeof(*l.items), cmp_topic_partition);
    int rc = 0;
    for (size_t i = 0; i < l.n && rc == 0; i++) {
        const group_offset *e = &l.items[i]->e;
        if (i > 0 && cmp_topic_partition(&l.items[i - 1], &l.items[i]) == 0)
            continue;
        if (group_offsets_get_at_end(o, group_id, e->topic, e->partition, NULL) ||
            group_offsets_txn_pending(o, group_id, e->topic, e->partition))
            rc = cb(ctx, e);
    }
    free(l.items);
    return rc;
}

int group_offsets_foreach_at_end(const group_offsets *o, group_offsets_cb cb, void *ctx)
{
    at_end_cb c = { .plain = cb, .ctx = ctx };
    return walk_at_end(o, &c);
}

int group_offsets_foreach_at_end_runs(const group_offsets *o, group_offsets_run_cb cb,
                                      void *ctx)
{
    at_end_cb c = { .runs = cb, .ctx = ctx };
    return walk_at_end(o, &c);
}
