/* How many members and pending member ids each client host (the
 * connection's "address:port") holds in all groups, so that one connection
 * cannot take every group slot (issue 19): an open-addressing map by host,
 * linear probing at most half full, backward-shift deletion. */
#include <stdlib.h>
#include <string.h>

#include "group_internal.h"
#include "kq/assert.h"

#define GOWNERS_CAP_MIN 16

static size_t host_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return (size_t)h;
}

static size_t find_slot(const gowners *o, const char *host)
{
    size_t i = host_hash(host) & (o->cap - 1);
    while (o->slots[i].host && strcmp(o->slots[i].host, host) != 0)
        i = (i + 1) & (o->cap - 1);
    return i;
}

int go_owner_count(const gowners *o, const char *host)
{
    if (o->cap == 0)
        return 0;
    const gowner *w = &o->slots[find_slot(o, host ? host : "")];
    return w->host ? w->count : 0;
}

static bool grow(gowners *o)
{
    size_t cap = o->cap ? 2 * o->cap : GOWNERS_CAP_MIN;
    gowners n = {.slots = calloc(cap, sizeof(gowner)), .cap = cap, .count = o->count};
    if (!n.slots)
        return false;
    for (size_t i = 0; i < o->cap; i++)
        if (o->slots[i].host)
            n.slots[find_slot(&n, o->slots[i].host)] = o->slots[i];
    free(o->slots);
    *o = n;
    return true;
}

/* Backward-shift deletion: no tombstones, lookups stay short. */
static void remove_at(gowners *o, size_t i)
{
    free(o->slots[i].host);
    o->slots[i] = (gowner){0};
    o->count--;
    for (size_t j = (i + 1) & (o->cap - 1); o->slots[j].host; j = (j + 1) & (o->cap - 1)) {
        size_t home = host_hash(o->slots[j].host) & (o->cap - 1);
        /* j's entry may move to the hole i unless its home lies in (i, j]. */
        bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (stays)
            continue;
        o->slots[i] = o->slots[j];
        o->slots[j] = (gowner){0};
        i = j;
    }
}

bool go_owner_add(gowners *o, const char *host, int delta)
{
    host = host ? host : "";
    if (delta > 0 && 2 * (o->count + 1) > o->cap && !grow(o))
        return false;
    KQ_ASSERT(o->cap > 0);
    size_t i = find_slot(o, host);
    gowner *w = &o->slots[i];
    if (!w->host) {
        KQ_ASSERT(delta > 0); /* a host leaves only what it holds */
        w->host = strdup(host);
        if (!w->host)
            return false;
        o->count++;
    }
    w->count += delta;
    KQ_ASSERT(w->count >= 0);
    if (w->count == 0)
        remove_at(o, i);
    return true;
}

void go_owners_free(gowners *o)
{
    for (size_t i = 0; i < o->cap; i++)
        free(o->slots[i].host);
    free(o->slots);
    *o = (gowners){0};
}

bool gc_owner_room(const group_coord *c, const char *host)
{
    int max = c->config.members_per_connection_max;
    return max <= 0 || go_owner_count(&c->owners, host) < max;
}
