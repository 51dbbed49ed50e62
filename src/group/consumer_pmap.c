/* Which partitions the members of one consumer group hold (assigned or
 * pending revocation) and at which member epoch: Kafka's
 * ConsumerGroup.currentPartitionEpoch, which reconciliation reads to give
 * a partition only once its previous owner released it. Open addressing,
 * linear probing at most half full, backward-shift deletion. */
#include <stdlib.h>
#include <string.h>

#include "consumer_internal.h"
#include "kq/assert.h"

static size_t hash(const uint8_t id[16], int32_t p)
{
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < 16; i++)
        h = (h ^ id[i]) * 1099511628211ull;
    h = (h ^ (uint32_t)p) * 1099511628211ull;
    return (size_t)(h ^ (h >> 29));
}

static size_t slot_of(const cpmap *m, const uint8_t id[16], int32_t p)
{
    size_t i = hash(id, p) & (m->cap - 1);
    while (m->slots[i].owners &&
           !(m->slots[i].key.p == p && memcmp(m->slots[i].key.id, id, 16) == 0))
        i = (i + 1) & (m->cap - 1);
    return i;
}

int32_t cpm_epoch(const cpmap *m, const uint8_t id[16], int32_t p)
{
    if (!m->cap)
        return -1;
    const cpslot *s = &m->slots[slot_of(m, id, p)];
    return s->owners ? s->epoch : -1;
}

static bool grow(cpmap *m)
{
    size_t cap = m->cap ? 2 * m->cap : 16;
    cpmap n = {.slots = calloc(cap, sizeof(cpslot)), .cap = cap, .count = m->count};
    if (!n.slots)
        return false;
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i].owners)
            n.slots[slot_of(&n, m->slots[i].key.id, m->slots[i].key.p)] = m->slots[i];
    free(m->slots);
    *m = n;
    return true;
}

static void remove_at(cpmap *m, size_t i)
{
    m->slots[i] = (cpslot){0};
    m->count--;
    for (size_t j = (i + 1) & (m->cap - 1); m->slots[j].owners; j = (j + 1) & (m->cap - 1)) {
        size_t home = hash(m->slots[j].key.id, m->slots[j].key.p) & (m->cap - 1);
        bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (stays)
            continue;
        m->slots[i] = m->slots[j];
        m->slots[j] = (cpslot){0};
        i = j;
    }
}

/* Kafka throws IllegalStateException when a partition is added while still
 * owned; only the double-assignment mutant gets here. */
bool cpm_reserve(cpmap *m, size_t extra)
{
    while (2 * (m->count + extra) > m->cap)
        if (!grow(m))
            return false;
    return true;
}

void cpm_add_set(cpmap *m, const cset *s, int32_t epoch, bool allow_double)
{
    KQ_ASSERT(2 * (m->count + (size_t)s->n) <= m->cap || s->n == 0);
    for (int k = 0; k < s->n; k++) {
        cpslot *slot = &m->slots[slot_of(m, s->v[k].id, s->v[k].p)];
        if (slot->owners) {
            KQ_ASSERT(allow_double);
            slot->owners++;
            slot->epoch = epoch;
            continue;
        }
        slot->key = s->v[k];
        slot->epoch = epoch;
        slot->owners = 1;
        m->count++;
    }
}

void cpm_remove_set(cpmap *m, const cset *s, int32_t epoch)
{
    (void)epoch; /* Kafka checks it; a double-assigned slot holds the last */
    for (int k = 0; k < s->n; k++) {
        KQ_ASSERT(m->cap > 0);
        size_t i = slot_of(m, s->v[k].id, s->v[k].p);
        KQ_ASSERT(m->slots[i].owners > 0);
        if (--m->slots[i].owners == 0)
            remove_at(m, i);
    }
}

void cpm_free(cpmap *m)
{
    free(m->slots);
    memset(m, 0, sizeof(*m));
}
