/* The maps of the offsets table (src/group/group_offsets_internal.h):
 * FNV-1a hashes, owned entries, linear probing at most half full. */
#include <stdlib.h>
#include <string.h>

#include "group_offsets_internal.h"
#include "kq/assert.h"

#define GO_MAP_CAP_MIN 16
#define FNV_OFFSET_BASIS 1469598103934665603ull
#define FNV_PRIME 1099511628211ull

static uint64_t fnv_bytes(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * FNV_PRIME;
    return h;
}

uint64_t go_string_hash(const char *s)
{
    return fnv_bytes(FNV_OFFSET_BASIS, s, strlen(s) + 1);
}

uint64_t go_key_hash(const char *group_id, const char *topic, int32_t partition)
{
    uint64_t h = fnv_bytes(FNV_OFFSET_BASIS, group_id, strlen(group_id) + 1);
    h = fnv_bytes(h, topic, strlen(topic) + 1);
    uint8_t p[4] = { (uint8_t)((uint32_t)partition >> 24), (uint8_t)((uint32_t)partition >> 16),
                     (uint8_t)((uint32_t)partition >> 8), (uint8_t)partition };
    return fnv_bytes(h, p, sizeof(p));
}

static char *dup_or_null(const char *s, bool *ok)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    if (!d)
        *ok = false;
    return d;
}

go_entry *go_entry_new(const group_offset *e)
{
    go_entry *x = calloc(1, sizeof(*x));
    if (!x)
        return NULL;
    bool ok = true;
    x->e = *e;
    x->e.group_id = dup_or_null(e->group_id, &ok);
    x->e.topic = dup_or_null(e->topic, &ok);
    x->e.metadata = dup_or_null(e->metadata, &ok);
    x->hash = go_key_hash(e->group_id, e->topic, e->partition);
    x->txn_pid = -1;
    x->record_offset = -1;
    x->killed_at = -1;
    if (ok)
        x->cost = group_offsets_entry_bytes(&x->e);
    if (!ok) {
        go_entry_free(x);
        return NULL;
    }
    return x;
}

void go_entry_free(go_entry *x)
{
    if (!x)
        return;
    free((char *)x->e.group_id);
    free((char *)x->e.topic);
    free((char *)x->e.metadata);
    free(x);
}

static bool same_key(const go_entry *x, const char *group_id, const char *topic,
                     int32_t partition)
{
    return x->e.partition == partition && strcmp(x->e.topic, topic) == 0 &&
           strcmp(x->e.group_id, group_id) == 0;
}

go_entry **go_map_slot(const go_map *m, const char *group_id, const char *topic,
                       int32_t partition, uint64_t hash)
{
    if (m->cap == 0)
        return NULL;
    for (size_t i = hash & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        go_entry *x = m->slots[i];
        if (!x)
            return NULL;
        if (x->hash == hash && same_key(x, group_id, topic, partition))
            return &m->slots[i];
    }
}

go_entry *go_map_find(const go_map *m, const char *group_id, const char *topic,
                      int32_t partition, uint64_t hash)
{
    go_entry **slot = go_map_slot(m, group_id, topic, partition, hash);
    return slot ? *slot : NULL;
}

/* Backward-shift deletion (linear probing keeps no tombstones): entries
 * after the hole move into it unless their home lies in (hole, j]. */
void go_map_remove(go_map *m, const go_entry *x)
{
    go_entry **slot = go_map_slot(m, x->e.group_id, x->e.topic, x->e.partition, x->hash);
    KQ_ASSERT(slot && *slot == x);
    size_t mask = m->cap - 1, i = (size_t)(slot - m->slots);
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
}

static void place(go_entry **slots, size_t cap, go_entry *x)
{
    size_t i = x->hash & (cap - 1);
    while (slots[i])
        i = (i + 1) & (cap - 1);
    slots[i] = x;
}

bool go_map_reserve(go_map *m, size_t n)
{
    if (2 * (m->count + n) <= m->cap)
        return true;
    size_t cap = m->cap ? m->cap : GO_MAP_CAP_MIN;
    while (2 * (m->count + n) > cap) {
        if (cap > SIZE_MAX / 4 / sizeof(*m->slots))
            return false;
        cap *= 2;
    }
    go_entry **slots = calloc(cap, sizeof(*slots));
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

bool go_map_insert(go_map *m, go_entry *x)
{
    if (2 * (m->count + 1) > m->cap) {
        size_t cap = m->cap ? 2 * m->cap : GO_MAP_CAP_MIN;
        go_entry **slots = calloc(cap, sizeof(*slots));
        if (!slots)
            return false;
        for (size_t i = 0; i < m->cap; i++)
            if (m->slots[i])
                place(slots, cap, m->slots[i]);
        free(m->slots);
        m->slots = slots;
        m->cap = cap;
    }
    place(m->slots, m->cap, x);
    m->count++;
    return true;
}

void go_map_free(go_map *m, bool owned)
{
    for (size_t i = 0; owned && i < m->cap; i++)
        go_entry_free(m->slots[i]);
    free(m->slots);
    memset(m, 0, sizeof(*m));
}
