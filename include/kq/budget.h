/* The server-wide response memory budget (issue 19 items 3-5): a pure
 * decision module, events in, decisions out, no I/O. The transport (src/net
 * in the daemon, the simulated network in tests/sim) charges it with every
 * response byte completed and not yet taken by the kernel, and asks it two
 * questions:
 *  - may this connection's next request be read (kq_budget_may_read)?
 *  - how many bytes of log data may this connection's Fetch answer hold
 *    (kq_budget_grant)?
 * Two classes share one budget: the quorum's connections (the controller
 * listener) may use all of it, client connections all but a reserved share
 * (1/KQ_RESPONSE_QUORUM_SHARE_DIV; issue 19 item 4, the quorum first).
 *
 * Bound: Fetch data is granted only while the class stays below its limit
 * less KQ_RESPONSE_HEADROOM_BYTES; past that point only light connections
 * (holding less than headroom / KQ_RESPONSE_LIGHT_CONN_DIV: a fresh
 * ApiVersions) are read, and none at the limit, so the heavy connections
 * stop first and no answer is dropped or reordered. Each connection is also
 * held to its own bound (the per-connection write queue). */
#ifndef KQ_BUDGET_H
#define KQ_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

enum kq_budget_class {
    KQ_BUDGET_CLIENT = 0,
    KQ_BUDGET_QUORUM = 1,
    KQ_BUDGET_CLASSES
};

typedef struct kq_budget {
    uint64_t bytes_max;      /* queued.max.response.bytes, both classes */
    uint64_t quorum_bytes;   /* the share clients cannot take */
    uint64_t headroom_bytes; /* kept free of Fetch data */
    uint64_t conn_bytes_max; /* one connection's bound (its write queue) */
    uint32_t mutants;        /* enum kq_mutant (simulator only) */
    uint64_t used[KQ_BUDGET_CLASSES];
    uint32_t conns[KQ_BUDGET_CLASSES]; /* connections charged to the class */
    uint64_t peak;            /* the most used[] summed ever held */
    uint64_t released;        /* bytes released ever: waiters compare it */
    uint64_t reads_refused;   /* kq_budget_may_read answers false for the budget */
    uint64_t grants_cut;      /* Fetch grants below what was asked */
} kq_budget;

/* bytes_max 0: KQ_QUEUED_RESPONSE_BYTES_DEFAULT; conn_bytes_max 0:
 * KQ_CONN_WRITE_QUEUE_BYTES_MAX. The reserve and the headroom are derived
 * (and shrink with a small budget so that clients always keep some room). */
void kq_budget_init(kq_budget *b, uint64_t bytes_max, uint64_t conn_bytes_max, uint32_t mutants);

void kq_budget_conn_open(kq_budget *b, enum kq_budget_class cls);
void kq_budget_conn_close(kq_budget *b, enum kq_budget_class cls);
void kq_budget_charge(kq_budget *b, enum kq_budget_class cls, uint64_t bytes);
void kq_budget_release(kq_budget *b, enum kq_budget_class cls, uint64_t bytes);
/* A connection open in class from, holding conn_bytes charged to it, moves
 * to class to with them (a connection of a shared listener that proved
 * itself a quorum peer: issue 19). The sum held does not change. */
void kq_budget_conn_move(kq_budget *b, enum kq_budget_class from, enum kq_budget_class to,
                         uint64_t conn_bytes);

/* The most the class's connections may hold together. */
uint64_t kq_budget_class_max(const kq_budget *b, enum kq_budget_class cls);
/* Bytes the class may still take before its limit (0 when at or past it). */
uint64_t kq_budget_room(const kq_budget *b, enum kq_budget_class cls);
uint64_t kq_budget_used(const kq_budget *b);

/* May a connection of cls holding conn_bytes of responses read its next
 * request? False past its own bound, at the class's limit, and within the
 * headroom unless it is light. */
bool kq_budget_may_read(kq_budget *b, enum kq_budget_class cls, uint64_t conn_bytes);
/* How many of want bytes of log data a Fetch answer of that connection may
 * hold: want, or less (0 included) when its own bound or the class's room
 * less the headroom is smaller. */
uint64_t kq_budget_grant(kq_budget *b, enum kq_budget_class cls, uint64_t conn_bytes,
                         uint64_t want);

#endif
