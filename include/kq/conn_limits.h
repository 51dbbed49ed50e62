/* Connection admission (issue 19 item 2): Kafka's max.connections,
 * max.connections.per.ip and max.connections.per.ip.overrides as a pure
 * decision module. A pool counts the open connections of the listeners that
 * share it, in total and per address; the daemon gives every client
 * listener one pool and the controller listeners another
 * (KQ_CONTROLLER_CONNECTIONS_MAX), so that client floods cannot take the
 * quorum's connections. A refused connection is accepted and closed at once,
 * as Kafka does. The same per-address table bounds TLS handshakes per
 * address (KQ_TLS_HANDSHAKES_PER_IP_MAX).
 *
 * Addresses are exact (an IPv4 address, or an IPv6 one; an IPv4-mapped IPv6
 * address counts as its IPv4 address). Memory: one table entry per distinct
 * address with an open connection, grown on demand and shrunk never (at most
 * the pool's total limit of entries). */
#ifndef KQ_CONN_LIMITS_H
#define KQ_CONN_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kq/conn_evict.h"
#include "kq/limits.h"

struct sockaddr;

typedef struct kq_conn_addr {
    uint8_t family; /* 4 or 6; 0: unknown (counted as one address) */
    uint8_t bytes[16];
} kq_conn_addr;

/* From a socket address (AF_INET, AF_INET6; anything else: family 0). */
void kq_conn_addr_from_sockaddr(kq_conn_addr *out, const struct sockaddr *sa);
/* An IP literal ("10.0.0.1", "::1", "[::1]"); false when it is none. */
bool kq_conn_addr_parse(kq_conn_addr *out, const char *s, size_t n);
bool kq_conn_addr_equal(const kq_conn_addr *a, const kq_conn_addr *b);

/* max.connections.per.ip.overrides: "host:count,host:count" (hosts are IP
 * literals here; Kafka also resolves host names). */
typedef struct kq_conn_ip_override {
    kq_conn_addr addr;
    uint32_t max;
} kq_conn_ip_override;

/* Open connections per address (also TLS handshakes per address). */
typedef struct kq_addr_count_entry {
    kq_conn_addr addr;
    uint32_t count; /* 0: free slot */
} kq_addr_count_entry;

typedef struct kq_addr_counts {
    kq_addr_count_entry *slots; /* open addressing, linear probing */
    uint32_t cap;               /* a power of two, or 0 */
    uint32_t used;              /* entries with count > 0 */
} kq_addr_counts;

/* The count for addr (0 when none). */
uint32_t kq_addr_counts_get(const kq_addr_counts *t, const kq_conn_addr *addr);
/* Adds one; false (nothing changed) when the table cannot grow (memory). */
bool kq_addr_counts_add(kq_addr_counts *t, const kq_conn_addr *addr);
/* Removes one; the count must be positive (asserted). */
void kq_addr_counts_remove(kq_addr_counts *t, const kq_conn_addr *addr);
void kq_addr_counts_free(kq_addr_counts *t);

typedef enum kq_conn_verdict {
    KQ_CONN_ADMIT = 0,
    KQ_CONN_REFUSE_TOTAL,  /* the pool's max.connections reached */
    KQ_CONN_REFUSE_PER_IP, /* the address's limit reached */
    KQ_CONN_REFUSE_MEMORY, /* the address table could not grow */
} kq_conn_verdict;

typedef struct kq_conn_pool_config {
    uint32_t max_connections;
    uint32_t max_per_ip;
    const kq_conn_ip_override *overrides; /* copied */
    int override_count;
    /* Full: a connection from an address holding fewer than the heaviest
     * one closes one of the heaviest's (kq/conn_evict.h; client pools). */
    bool evict;
    uint32_t mutants; /* enum kq_mutant (kq/mutants.h); the daemon passes 0 */
} kq_conn_pool_config;

typedef struct kq_conn_pool {
    uint32_t max_connections;
    uint32_t max_per_ip;
    kq_conn_ip_override overrides[KQ_CONN_IP_OVERRIDES_MAX];
    int override_count;
    uint32_t open; /* admitted, not yet released */
    kq_addr_counts per_ip;
    /* Refused since start, by reason (the metric). */
    uint64_t refused_total;
    uint64_t refused_per_ip;
    bool evict;
    kq_conn_evict index; /* the members admitted with one */
    uint64_t evicted;    /* closed to make room, since start */
    uint32_t mutants;
} kq_conn_pool;

void kq_conn_pool_init(kq_conn_pool *p, const kq_conn_pool_config *config);
void kq_conn_pool_free(kq_conn_pool *p);
/* The limit for addr: its override, else max_per_ip. */
uint32_t kq_conn_pool_ip_limit(const kq_conn_pool *p, const kq_conn_addr *addr);
/* Admits (counting it) or refuses (counting the refusal) a connection. */
kq_conn_verdict kq_conn_pool_admit(kq_conn_pool *p, const kq_conn_addr *addr);
/* An admitted connection closed (its descriptor is released). */
void kq_conn_pool_release(kq_conn_pool *p, const kq_conn_addr *addr);
/* The same for a connection tracked by m in the eviction index. When the
 * pool evicts and is full, a member that evictable() allows is taken from
 * the heaviest address (if addr has fewer): it is released from the pool
 * here and returned in *evicted for the caller to close (NULL: none). */
kq_conn_verdict kq_conn_pool_admit_member(kq_conn_pool *p, const kq_conn_addr *addr,
                                          kq_conn_member *m, kq_conn_evictable_fn evictable,
                                          kq_conn_member **evicted);
void kq_conn_pool_release_member(kq_conn_pool *p, const kq_conn_addr *addr, kq_conn_member *m);
/* An admitted member is never to be evicted (a connection of a shared
 * listener that proved itself a quorum peer, issue 19): it leaves the
 * eviction index (so it no longer weighs in which address is the heaviest
 * either) but stays counted in the pool and its address; release it with
 * kq_conn_pool_release_member as before. Idempotent. */
void kq_conn_pool_keep_member(kq_conn_pool *p, kq_conn_member *m);

/* The descriptor budget: from RLIMIT_NOFILE (after raising), the client
 * connections left once KQ_FD_RESERVE and the controller slots are taken
 * out (0 when nothing is left), and what max.connections becomes (its
 * configured value, -1 for the default, cut to that). */
uint32_t kq_conn_client_budget(uint64_t nofile, bool controller_reserved);
uint32_t kq_conn_effective_max(int64_t configured, uint32_t budget);

/* max.connections.per.ip as applied: the configured value cut to
 * max_connections, or when unset (negative) a share of it
 * (KQ_MAX_CONNECTIONS_PER_IP_DEFAULT_QUARTERS, at least 1), so that one
 * address never holds every slot (Kafka's is unbounded;
 * docs/deviations.md). */
uint32_t kq_conn_per_ip_effective(int64_t configured, uint32_t max_connections);

/* The two pools of a node, as the daemon sets them up (and the simulator,
 * tests/sim/w_net.c): the client listeners' pool of max_connections (its
 * effective value), max.connections.per.ip as above, the overrides, with
 * eviction; and the controller listeners' pool of
 * KQ_CONTROLLER_CONNECTIONS_MAX, KQ_CONTROLLER_CONNECTIONS_PER_IP_MAX per
 * address, without (the quorum's peers hold one connection each). */
typedef struct kq_conn_pools_config {
    uint32_t max_connections;
    int64_t max_connections_per_ip; /* negative: unset */
    const kq_conn_ip_override *overrides;
    int override_count;
    uint32_t mutants; /* the daemon passes 0 */
} kq_conn_pools_config;
void kq_conn_pools_init(kq_conn_pool *clients, kq_conn_pool *controller,
                        const kq_conn_pools_config *config);
/* The pool of a listener's connections: the controller pool for a
 * controller listener when controller.listener.names names them (its own
 * slots: no client flood takes the quorum's), else the client pool. */
kq_conn_pool *kq_conn_pool_of_listener(kq_conn_pool *clients, kq_conn_pool *controller,
                                       bool controller_listener_named, bool controller_listener);

#endif
