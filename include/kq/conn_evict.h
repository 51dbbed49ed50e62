/* Eviction index of a connection pool (issue 19 item 2): when a client
 * pool is full, a connection from an address holding fewer connections than
 * the heaviest address is admitted by closing one connection of the
 * heaviest address, so that a flood from one address cannot lock out the
 * others. The index finds that victim in O(log n): a max-heap of addresses
 * by connection count, and per address two lists, least recently active
 * first: connections that never completed a request ("fresh", evicted
 * first) and the others. Pure (no libuv); members are embedded in the
 * caller's connections, nodes are allocated per address with a connection
 * and freed with its last one. */
#ifndef KQ_CONN_EVICT_H
#define KQ_CONN_EVICT_H

#include <stdbool.h>
#include <stdint.h>

typedef struct kq_conn_addr kq_conn_addr; /* kq/conn_limits.h */
struct kq_evict_ip;                        /* one address (conn_evict.c) */

typedef struct kq_conn_member {
    struct kq_conn_member *prev, *next; /* in its address's list */
    struct kq_evict_ip *ip;             /* NULL: not in the index */
    uint8_t list;                       /* KQ_EVICT_FRESH or KQ_EVICT_USED */
} kq_conn_member;

enum { KQ_EVICT_FRESH = 0, KQ_EVICT_USED = 1, KQ_EVICT_LISTS = 2 };

typedef struct kq_conn_evict {
    struct kq_evict_ip **table; /* open addressing by address, NULL: free */
    uint32_t cap;               /* a power of two, or 0 */
    uint32_t used;
    struct kq_evict_ip **heap; /* max-heap by count */
    uint32_t heap_len, heap_cap;
} kq_conn_evict;

/* Whether a member may be closed now (no request being handled, no
 * response pending). */
typedef bool (*kq_conn_evictable_fn)(kq_conn_member *m);

/* Adds a fresh member for addr; false (nothing changed) out of memory. */
bool kq_conn_evict_add(kq_conn_evict *e, const kq_conn_addr *addr, kq_conn_member *m);
/* Removes a member (it must be in the index). */
void kq_conn_evict_remove(kq_conn_evict *e, kq_conn_member *m);
/* Activity: m becomes its address's most recently active member; used
 * moves it to the used list for good. */
void kq_conn_evict_touch(kq_conn_member *m, bool used);
/* The address of a member in the index. */
const kq_conn_addr *kq_conn_evict_member_addr(const kq_conn_member *m);
/* Members of addr in the index. */
uint32_t kq_conn_evict_count(const kq_conn_evict *e, const kq_conn_addr *addr);
/* The member to close so that addr gets a slot: from an address with the
 * most members, if addr has fewer; fresh before used, least recently
 * active first, at most KQ_CONN_EVICT_PROBES_MAX members looked at.
 * NULL: none. */
kq_conn_member *kq_conn_evict_victim(const kq_conn_evict *e, const kq_conn_addr *addr,
                                     kq_conn_evictable_fn evictable);
void kq_conn_evict_free(kq_conn_evict *e);

#endif
