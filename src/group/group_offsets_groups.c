/* The groups of the offsets table (src/group/group_offsets_internal.h):
 * each group with committed entries, its entry count and chain, in an
 * open-addressing map by name that never deletes. */
#include <stdlib.h>
#include <string.h>

#include "group_offsets_internal.h"
#include "kq/assert.h"

#define GO_GROUP_MAP_CAP_MIN 16

go_group *go_group_find(const go_group_map *m, const char *id, uint64_t hash)
{
    if (m->cap == 0)
        return NULL;
    for (size_t i = hash & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        go_group *g = m->slots[i];
        if (!g)
            return NULL;
        if (g->hash == hash && strcmp(g->id, id) == 0)
            return g;
    }
}

static void place(go_group **slots, size_t cap, go_group *g)
{
    size_t i = g->hash & (cap - 1);
    while (slots[i])
        i = (i + 1) & (cap - 1);
    slots[i] = g;
}

static bool grow(go_group_map *m)
{
    size_t cap = m->cap ? 2 * m->cap : GO_GROUP_MAP_CAP_MIN;
    go_group **slots = calloc(cap, sizeof(*slots));
    if (!slots)
        return false;
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i])
            place(slots, cap, m->slots[i]);
    free(m->slots);
    m->slots = slots;
    m->cap = cap;
    return true;
}

go_group *go_group_get(go_group_map *m, const char *id, uint64_t hash)
{
    go_group *g = go_group_find(m, id, hash);
    if (g)
        return g;
    if (2 * (m->count + 1) > m->cap && !grow(m))
        return NULL;
    g = calloc(1, sizeof(*g));
    if (!g)
        return NULL;
    g->id = strdup(id);
    if (!g->id) {
        free(g);
        return NULL;
    }
    g->hash = hash;
    place(m->slots, m->cap, g);
    m->count++;
    return g;
}

void go_group_remove(go_group_map *m, go_group *g)
{
    KQ_ASSERT(g->count == 0 && !g->head && m->cap > 0);
    size_t mask = m->cap - 1, i = g->hash & mask;
    while (m->slots[i] != g) {
        KQ_ASSERT(m->slots[i]);
        i = (i + 1) & mask;
    }
    m->slots[i] = NULL;
    m->count--;
    for (size_t j = (i + 1) & mask; m->slots[j]; j = (j + 1) & mask) {
        size_t home = m->slots[j]->hash & mask;
        bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (stays)
            continue;
        m->slots[i] = m->slots[j];
        m->slots[j] = NULL;
        i = j;
    }
    free(g->id);
    free(g);
}

void go_group_map_free(go_group_map *m)
{
    for (size_t i = 0; i < m->cap; i++) {
        if (m->slots[i]) {
            free(m->slots[i]->id);
            free(m->slots[i]);
        }
    }
    free(m->slots);
    memset(m, 0, sizeof(*m));
}
