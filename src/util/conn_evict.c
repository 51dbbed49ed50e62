/* Eviction index of a connection pool (kq/conn_evict.h): a hash of
 * per-address nodes (open addressing, backward-shift deletion), a max-heap
 * of the nodes by member count, and per node two LRU lists. Pure. */
#include "kq/conn_evict.h"

#include <stdlib.h>

#include "kq/assert.h"
#include "kq/conn_limits.h"

typedef struct kq_evict_ip {
    kq_conn_addr addr;
    uint32_t count;      /* members */
    uint32_t heap_index; /* in kq_conn_evict.heap */
    kq_conn_member *head[KQ_EVICT_LISTS], *tail[KQ_EVICT_LISTS]; /* oldest first */
} kq_evict_ip;

/* ---- the hash of nodes */

static uint32_t ip_hash(const kq_conn_addr *a)
{
    uint32_t h = 2166136261u ^ a->family; /* FNV-1a */
    for (size_t i = 0; i < sizeof a->bytes; i++)
        h = (h ^ a->bytes[i]) * 16777619u;
    return h ^ (h >> 15);
}

static kq_evict_ip *ip_find(const kq_conn_evict *e, const kq_conn_addr *a)
{
    if (e->cap == 0)
        return NULL;
    for (uint32_t i = ip_hash(a) & (e->cap - 1);; i = (i + 1) & (e->cap - 1)) {
        if (!e->table[i] || kq_conn_addr_equal(&e->table[i]->addr, a))
            return e->table[i];
    }
}

static void ip_insert(kq_conn_evict *e, kq_evict_ip *n)
{
    uint32_t i = ip_hash(&n->addr) & (e->cap - 1);
    while (e->table[i])
        i = (i + 1) & (e->cap - 1);
    e->table[i] = n;
    e->used++;
}

/* Keeps the load at most one half. */
static bool ip_table_grow(kq_conn_evict *e)
{
    if ((uint64_t)(e->used + 1) * 2 <= e->cap)
        return true;
    uint32_t cap = e->cap ? e->cap * 2 : 16;
    if (cap > (1u << 30))
        return false;
    kq_evict_ip **table = calloc(cap, sizeof *table);
    if (!table)
        return false;
    kq_evict_ip **old = e->table;
    uint32_t old_cap = e->cap;
    e->table = table;
    e->cap = cap;
    e->used = 0;
    for (uint32_t i = 0; i < old_cap; i++)
        if (old[i])
            ip_insert(e, old[i]);
    free(old);
    return true;
}

static void ip_table_remove(kq_conn_evict *e, kq_evict_ip *n)
{
    uint32_t mask = e->cap - 1, hole = ip_hash(&n->addr) & mask;
    while (e->table[hole] != n) {
        KQ_ASSERT(e->table[hole]);
        hole = (hole + 1) & mask;
    }
    e->table[hole] = NULL;
    e->used--;
    for (uint32_t j = (hole + 1) & mask; e->table[j]; j = (j + 1) & mask) {
        uint32_t home = ip_hash(&e->table[j]->addr) & mask;
        bool stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (stays)
            continue;
        e->table[hole] = e->table[j];
        e->table[j] = NULL;
        hole = j;
    }
}

/* ---- the heap of nodes by count */

static void heap_set(kq_conn_evict *e, uint32_t i, kq_evict_ip *n)
{
    e->heap[i] = n;
    n->heap_index = i;
}

static void heap_up(kq_conn_evict *e, uint32_t i)
{
    kq_evict_ip *n = e->heap[i];
    while (i > 0 && e->heap[(i - 1) / 2]->count < n->count) {
        heap_set(e, i, e->heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    heap_set(e, i, n);
}

static void heap_down(kq_conn_evict *e, uint32_t i)
{
    kq_evict_ip *n = e->heap[i];
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= e->heap_len)
            break;
        if (c + 1 < e->heap_len && e->heap[c + 1]->count > e->heap[c]->count)
            c++;
        if (e->heap[c]->count <= n->count)
            break;
        heap_set(e, i, e->heap[c]);
        i = c;
    }
    heap_set(e, i, n);
}

static bool heap_reserve(kq_conn_evict *e)
{
    if (e->heap_len < e->heap_cap)
        return true;
    uint32_t cap = e->heap_cap ? e->heap_cap * 2 : 16;
    if (cap > (1u << 30))
        return false;
    kq_evict_ip **heap = realloc(e->heap, (size_t)cap * sizeof *heap);
    if (!heap)
        return false;
    e->heap = heap;
    e->heap_cap = cap;
    return true;
}

static void heap_remove(kq_conn_evict *e, kq_evict_ip *n)
{
    uint32_t i = n->heap_index;
    KQ_ASSERT(i < e->heap_len && e->heap[i] == n);
    kq_evict_ip *last = e->heap[--e->heap_len];
    if (last == n)
        return;
    heap_set(e, i, last);
    heap_up(e, i);
    heap_down(e, last->heap_index);
}

/* ---- members */

static void list_unlink(kq_conn_member *m)
{
    kq_evict_ip *n = m->ip;
    if (m->prev)
        m->prev->next = m->next;
    else
        n->head[m->list] = m->next;
    if (m->next)
        m->next->prev = m->prev;
    else
        n->tail[m->list] = m->prev;
    m->prev = m->next = NULL;
}

static void list_append(kq_conn_member *m, uint8_t list)
{
    kq_evict_ip *n = m->ip;
    m->list = list;
    m->next = NULL;
    m->prev = n->tail[list];
    if (m->prev)
        m->prev->next = m;
    else
        n->head[list] = m;
    n->tail[list] = m;
}

bool kq_conn_evict_add(kq_conn_evict *e, const kq_conn_addr *addr, kq_conn_member *m)
{
    KQ_ASSERT(!m->ip);
    kq_evict_ip *n = ip_find(e, addr);
    if (!n) {
        if (!ip_table_grow(e) || !heap_reserve(e) || !(n = calloc(1, sizeof *n)))
            return false;
        n->addr = *addr;
        ip_insert(e, n);
        heap_set(e, e->heap_len++, n);
    }
    KQ_ASSERT(n->count < UINT32_MAX);
    n->count++;
    heap_up(e, n->heap_index);
    m->ip = n;
    list_append(m, KQ_EVICT_FRESH);
    return true;
}

void kq_conn_evict_remove(kq_conn_evict *e, kq_conn_member *m)
{
    kq_evict_ip *n = m->ip;
    KQ_ASSERT(n && n->count > 0);
    list_unlink(m);
    m->ip = NULL;
    if (--n->count > 0) {
        heap_down(e, n->heap_index);
        return;
    }
    KQ_ASSERT(!n->head[KQ_EVICT_FRESH] && !n->head[KQ_EVICT_USED]);
    heap_remove(e, n);
    ip_table_remove(e, n);
    free(n);
}

void kq_conn_evict_touch(kq_conn_member *m, bool used)
{
    if (!m->ip)
        return;
    uint8_t list = used || m->list == KQ_EVICT_USED ? KQ_EVICT_USED : KQ_EVICT_FRESH;
    list_unlink(m);
    list_append(m, list);
}

const kq_conn_addr *kq_conn_evict_member_addr(const kq_conn_member *m)
{
    KQ_ASSERT(m->ip);
    return &m->ip->addr;
}

uint32_t kq_conn_evict_count(const kq_conn_evict *e, const kq_conn_addr *addr)
{
    const kq_evict_ip *n = ip_find(e, addr);
    return n ? n->count : 0;
}

/* The first evictable member of n, within *probes looks. */
static kq_conn_member *ip_victim(const kq_evict_ip *n, kq_conn_evictable_fn evictable,
                                 uint32_t *probes)
{
    for (int l = 0; l < KQ_EVICT_LISTS; l++)
        for (kq_conn_member *m = n->head[l]; m && *probes > 0; m = m->next) {
            --*probes;
            if (evictable(m))
                return m;
        }
    return NULL;
}

kq_conn_member *kq_conn_evict_victim(const kq_conn_evict *e, const kq_conn_addr *addr,
                                     kq_conn_evictable_fn evictable)
{
    if (e->heap_len == 0)
        return NULL;
    uint32_t top = e->heap[0]->count;
    if (kq_conn_evict_count(e, addr) >= top)
        return NULL;
    /* Ties for the most: the heap's top and its children of equal count. */
    uint32_t probes = KQ_CONN_EVICT_PROBES_MAX;
    for (uint32_t i = 0; i < 3 && i < e->heap_len && probes > 0; i++) {
        if (e->heap[i]->count != top)
            continue;
        kq_conn_member *m = ip_victim(e->heap[i], evictable, &probes);
        if (m)
            return m;
    }
    return NULL;
}

void kq_conn_evict_free(kq_conn_evict *e)
{
    for (uint32_t i = 0; i < e->heap_len; i++)
        free(e->heap[i]);
    free(e->heap);
    free(e->table);
    *e = (kq_conn_evict){0};
}
