/* Connection admission and per-address counts (kq/conn_limits.h): pure,
 * no libuv. */
#include "kq/conn_limits.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "kq/assert.h"
#include "kq/mutants.h"

void kq_conn_addr_from_sockaddr(kq_conn_addr *out, const struct sockaddr *sa)
{
    memset(out, 0, sizeof *out);
    if (!sa)
        return;
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)sa;
        out->family = 4;
        memcpy(out->bytes, &a->sin_addr, 4);
    } else if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)sa;
        if (IN6_IS_ADDR_V4MAPPED(&a->sin6_addr)) {
            out->family = 4;
            memcpy(out->bytes, (const uint8_t *)&a->sin6_addr + 12, 4);
        } else {
            out->family = 6;
            memcpy(out->bytes, &a->sin6_addr, 16);
        }
    }
}

bool kq_conn_addr_parse(kq_conn_addr *out, const char *s, size_t n)
{
    char buf[64];
    if (n >= 2 && s[0] == '[' && s[n - 1] == ']') {
        s++;
        n -= 2;
    }
    if (n == 0 || n >= sizeof buf)
        return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    memset(out, 0, sizeof *out);
    struct in_addr a4;
    struct in6_addr a6;
    if (inet_pton(AF_INET, buf, &a4) == 1) {
        out->family = 4;
        memcpy(out->bytes, &a4, 4);
        return true;
    }
    if (inet_pton(AF_INET6, buf, &a6) == 1) {
        /* Not through a struct sockaddr: reading sa_family of a
         * sockaddr_in6 object breaks strict aliasing (-O2 read garbage). */
        if (IN6_IS_ADDR_V4MAPPED(&a6)) {
            out->family = 4;
            memcpy(out->bytes, (const uint8_t *)&a6 + 12, 4);
        } else {
            out->family = 6;
            memcpy(out->bytes, &a6, 16);
        }
        return true;
    }
    return false;
}

bool kq_conn_addr_equal(const kq_conn_addr *a, const kq_conn_addr *b)
{
    return a->family == b->family && memcmp(a->bytes, b->bytes, sizeof a->bytes) == 0;
}

/* ---- per-address counts: open addressing, deletion by backward shift */

static uint32_t addr_hash(const kq_conn_addr *a)
{
    uint32_t h = 2166136261u ^ a->family; /* FNV-1a */
    for (size_t i = 0; i < sizeof a->bytes; i++)
        h = (h ^ a->bytes[i]) * 16777619u;
    return h ^ (h >> 15);
}

static kq_addr_count_entry *addr_find(const kq_addr_counts *t, const kq_conn_addr *a)
{
    if (t->cap == 0)
        return NULL;
    for (uint32_t i = addr_hash(a) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
        kq_addr_count_entry *e = &t->slots[i];
        if (e->count == 0)
            return NULL;
        if (kq_conn_addr_equal(&e->addr, a))
            return e;
    }
}

static void addr_insert(kq_addr_counts *t, const kq_conn_addr *a, uint32_t count)
{
    uint32_t i = addr_hash(a) & (t->cap - 1);
    while (t->slots[i].count != 0)
        i = (i + 1) & (t->cap - 1);
    t->slots[i] = (kq_addr_count_entry){.addr = *a, .count = count};
    t->used++;
}

/* Keeps the load at most one half. */
static bool addr_grow(kq_addr_counts *t)
{
    if ((uint64_t)(t->used + 1) * 2 <= t->cap)
        return true;
    uint32_t cap = t->cap ? t->cap * 2 : 16;
    if (cap == 0 || cap > (1u << 30))
        return false;
    kq_addr_count_entry *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return false;
    kq_addr_counts old = *t;
    *t = (kq_addr_counts){.slots = slots, .cap = cap};
    for (uint32_t i = 0; i < old.cap; i++)
        if (old.slots[i].count)
            addr_insert(t, &old.slots[i].addr, old.slots[i].count);
    free(old.slots);
    return true;
}

uint32_t kq_addr_counts_get(const kq_addr_counts *t, const kq_conn_addr *addr)
{
    const kq_addr_count_entry *e = addr_find(t, addr);
    return e ? e->count : 0;
}

bool kq_addr_counts_add(kq_addr_counts *t, const kq_conn_addr *addr)
{
    kq_addr_count_entry *e = addr_find(t, addr);
    if (e) {
        KQ_ASSERT(e->count < UINT32_MAX);
        e->count++;
        return true;
    }
    if (!addr_grow(t))
        return false;
    addr_insert(t, addr, 1);
    return true;
}

void kq_addr_counts_remove(kq_addr_counts *t, const kq_conn_addr *addr)
{
    kq_addr_count_entry *e = addr_find(t, addr);
    KQ_ASSERT(e && e->count > 0);
    if (--e->count > 0)
        return;
    t->used--;
    /* Backward shift: move later entries of the run into the hole. */
    uint32_t mask = t->cap - 1, hole = (uint32_t)(e - t->slots);
    for (uint32_t j = (hole + 1) & mask; t->slots[j].count != 0; j = (j + 1) & mask) {
        uint32_t home = addr_hash(&t->slots[j].addr) & mask;
        /* j's entry may fill the hole when its home is not in (hole, j] */
        bool stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (stays)
            continue;
        t->slots[hole] = t->slots[j];
        t->slots[j].count = 0;
        hole = j;
    }
}

void kq_addr_counts_free(kq_addr_counts *t)
{
    free(t->slots);
    *t = (kq_addr_counts){0};
}

/* ---- pools */

void kq_conn_pool_init(kq_conn_pool *p, const kq_conn_pool_config *config)
{
    memset(p, 0, sizeof *p);
    p->max_connections = config->max_connections;
    p->max_per_ip = config->max_per_ip;
    KQ_ASSERT(config->override_count >= 0 && config->override_count <= KQ_CONN_IP_OVERRIDES_MAX);
    p->override_count = config->override_count;
    p->evict = config->evict;
    p->mutants = config->mutants;
    if (config->override_count)
        memcpy(p->overrides, config->overrides,
               (size_t)config->override_count * sizeof p->overrides[0]);
}

void kq_conn_pool_free(kq_conn_pool *p)
{
    kq_addr_counts_free(&p->per_ip);
    kq_conn_evict_free(&p->index);
}

uint32_t kq_conn_pool_ip_limit(const kq_conn_pool *p, const kq_conn_addr *addr)
{
    for (int i = 0; i < p->override_count; i++)
        if (kq_conn_addr_equal(&p->overrides[i].addr, addr))
            return p->overrides[i].max;
    return p->max_per_ip;
}

kq_conn_verdict kq_conn_pool_admit(kq_conn_pool *p, const kq_conn_addr *addr)
{
    return kq_conn_pool_admit_member(p, addr, NULL, NULL, NULL);
}

/* Full: a victim from the heaviest address, released here; NULL: none. */
static kq_conn_member *pool_evict(kq_conn_pool *p, const kq_conn_addr *addr,
                                  kq_conn_evictable_fn evictable)
{
    if (!p->evict || !evictable || (p->mutants & KQ_MUTANT_CONN_NO_EVICT) ||
        kq_addr_counts_get(&p->per_ip, addr) >= kq_conn_pool_ip_limit(p, addr))
        return NULL;
    kq_conn_member *v = kq_conn_evict_victim(&p->index, addr, evictable);
    if (!v)
        return NULL;
    kq_conn_addr victim_addr = *kq_conn_evict_member_addr(v);
    KQ_ASSERT(!kq_conn_addr_equal(&victim_addr, addr));
    kq_conn_pool_release_member(p, &victim_addr, v);
    p->evicted++;
    return v;
}

kq_conn_verdict kq_conn_pool_admit_member(kq_conn_pool *p, const kq_conn_addr *addr,
                                          kq_conn_member *m, kq_conn_evictable_fn evictable,
                                          kq_conn_member **evicted)
{
    if (evicted)
        *evicted = NULL;
    if (p->open >= p->max_connections) {
        kq_conn_member *v = m && evicted ? pool_evict(p, addr, evictable) : NULL;
        if (!v) {
            p->refused_total++;
            return KQ_CONN_REFUSE_TOTAL;
        }
        *evicted = v;
    }
    if (kq_addr_counts_get(&p->per_ip, addr) >= kq_conn_pool_ip_limit(p, addr)) {
        p->refused_per_ip++;
        return KQ_CONN_REFUSE_PER_IP;
    }
    if (!kq_addr_counts_add(&p->per_ip, addr)) {
        p->refused_total++;
        return KQ_CONN_REFUSE_MEMORY;
    }
    if (m && !kq_conn_evict_add(&p->index, addr, m)) {
        kq_addr_counts_remove(&p->per_ip, addr);
        p->refused_total++;
        return KQ_CONN_REFUSE_MEMORY;
    }
    p->open++;
    return KQ_CONN_ADMIT;
}

void kq_conn_pool_release(kq_conn_pool *p, const kq_conn_addr *addr)
{
    kq_conn_pool_release_member(p, addr, NULL);
}

void kq_conn_pool_release_member(kq_conn_pool *p, const kq_conn_addr *addr, kq_conn_member *m)
{
    KQ_ASSERT(p->open > 0);
    p->open--;
    kq_addr_counts_remove(&p->per_ip, addr);
    if (m && m->ip)
        kq_conn_evict_remove(&p->index, m);
}

void kq_conn_pool_keep_member(kq_conn_pool *p, kq_conn_member *m)
{
    if (m->ip)
        kq_conn_evict_remove(&p->index, m);
}

uint32_t kq_conn_client_budget(uint64_t nofile, bool controller_reserved)
{
    uint64_t taken = KQ_FD_RESERVE + (controller_reserved ? KQ_CONTROLLER_CONNECTIONS_MAX : 0);
    if (nofile <= taken)
        return 0;
    uint64_t left = nofile - taken;
    return left > KQ_MAX_CONNECTIONS_LIMIT ? KQ_MAX_CONNECTIONS_LIMIT : (uint32_t)left;
}

uint32_t kq_conn_effective_max(int64_t configured, uint32_t budget)
{
    if (configured < 0 || (uint64_t)configured > budget)
        return budget;
    return (uint32_t)configured;
}

uint32_t kq_conn_per_ip_effective(int64_t configured, uint32_t max_connections)
{
    if (configured >= 0)
        return (uint64_t)configured > max_connections ? max_connections : (uint32_t)configured;
    uint32_t share =
        (uint32_t)((uint64_t)max_connections * KQ_MAX_CONNECTIONS_PER_IP_DEFAULT_QUARTERS / 4);
    return share ? share : 1;
}

kq_conn_pool *kq_conn_pool_of_listener(kq_conn_pool *clients, kq_conn_pool *controller,
                                       bool controller_listener_named, bool controller_listener)
{
    if (controller->mutants & KQ_MUTANT_CONN_PEERS_IN_CLIENT_POOL)
        return clients;
    return controller_listener_named && controller_listener ? controller : clients;
}

void kq_conn_pools_init(kq_conn_pool *clients, kq_conn_pool *controller,
                        const kq_conn_pools_config *config)
{
    kq_conn_pool_init(clients,
                      &(kq_conn_pool_config){
                          .max_connections = config->max_connections,
                          .max_per_ip = kq_conn_per_ip_effective(config->max_connections_per_ip,
                                                                 config->max_connections),
                          .overrides = config->overrides,
                          .override_count = config->override_count,
                          .evict = true,
                          .mutants = config->mutants,
                      });
    kq_conn_pool_init(controller, &(kq_conn_pool_config){
                                      .max_connections = KQ_CONTROLLER_CONNECTIONS_MAX,
                                      .max_per_ip = KQ_CONTROLLER_CONNECTIONS_PER_IP_MAX,
                                      .mutants = config->mutants,
                                  });
}
