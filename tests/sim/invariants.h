/* Safety invariants, checked after every simulated event, plus the final
 * consistency check after the cluster has converged. */
#ifndef SIM_INVARIANTS_H
#define SIM_INVARIANTS_H

#include <stdbool.h>
#include <stdint.h>

#include "sim_net.h"

struct sim_world;

/* Named checks, selectable with --only-invariant / --skip-invariant. The
 * per-event ones run after every event (or at the action they guard); the
 * end-of-run ones are liveness waits, scenario expectations and the final
 * consistency check after convergence. Harness sanity (out of memory, bad
 * batches, non-contiguous appends, message addressing, busy loops) is always
 * on. A failure reads "invariant NAME: ..." ("liveness: ...", "final: ...",
 * "scenario: ..." for the end-of-run ones). */
enum sim_check {
    SIM_INV_MONOTONIC_HW,
    SIM_INV_MONOTONIC_EPOCH,
    SIM_INV_MAJORITY_DURABLE,
    SIM_INV_SINGLE_LEADER,
    SIM_INV_LEADER_IS_VOTER,
    SIM_INV_NO_TRUNCATE_BELOW_HW,
    SIM_INV_NO_TRUNCATE_COMMITTED,
    SIM_INV_COMMITTED_DATA,
    SIM_INV_COMMITTED_VALUE,
    SIM_INV_HW_IN_LOG,
    SIM_INV_SERVE_DURABLE,
    SIM_INV_LEADER_ONLY_APPEND,
    SIM_INV_PER_EVENT_COUNT, /* end-of-run checks follow */
    SIM_CHECK_LIVENESS = SIM_INV_PER_EVENT_COUNT,
    SIM_CHECK_SCENARIO,
    SIM_CHECK_FINAL,
    SIM_CHECK_COUNT
};
#define SIM_CHECKS_ALL ((1u << SIM_CHECK_COUNT) - 1)
#define SIM_CHECKS_PER_EVENT ((1u << SIM_INV_PER_EVENT_COUNT) - 1)

extern const char *const sim_check_names[SIM_CHECK_COUNT];
/* Index of a check name, or -1. */
int sim_check_find(const char *name);
/* Whether check c is enabled for this run; counts it as evaluated if so. */
bool sim_check_on(struct sim_world *w, enum sim_check c);
/* Whether check c is enabled, without counting it. */
bool sim_check_enabled(const struct sim_world *w, enum sim_check c);

typedef struct sim_committed_batch {
    int64_t base, last;
    uint64_t chain;
} sim_committed_batch;

typedef struct sim_committed_value {
    int64_t offset;
    uint64_t value;
} sim_committed_value;

/* A client append a leader accepted and has not yet reported committed. */
typedef struct sim_pending_append {
    int node;
    uint64_t inc;
    int32_t epoch;
    int64_t base;
    int32_t count;
    uint64_t first_value;
} sim_pending_append;

typedef struct sim_inv {
    uint64_t checks;
    int64_t hw_floor;         /* max HW any leader has had (monotonic HW) */
    int32_t max_leader_epoch; /* highest epoch anyone led */
    int32_t *epoch_leader;    /* epoch -> leader id (at most one per epoch) */
    size_t epoch_leader_cap;
    int32_t node_epoch[SIM_NODES_MAX];   /* per node, across restarts */
    int32_t leader_hw_epoch[SIM_NODES_MAX];
    int64_t leader_hw[SIM_NODES_MAX];    /* per node and leader epoch */
    int64_t leader_hw_start[SIM_NODES_MAX]; /* HW it carried into its leader epoch */
    sim_committed_batch *committed;      /* the committed prefix, batch by batch */
    int committed_n, committed_cap;
    sim_committed_value *values;         /* values a leader reported committed */
    size_t values_n, values_cap;
    sim_pending_append *pending;
    size_t pending_n, pending_cap;
} sim_inv;

void sim_inv_init(sim_inv *inv);
void sim_inv_free(sim_inv *inv);
/* After every event: epochs, single leader, HW monotonic, HW majority-durable. */
bool sim_inv_check(struct sim_world *w);
/* A leader's core reported a new high watermark. */
bool sim_inv_on_leader_hw(struct sim_world *w, int node, int64_t hw);
/* Before a TRUNCATE: never below the node's HW, never into committed data. */
bool sim_inv_on_truncate(struct sim_world *w, int node, int64_t hw_before, int64_t offset);
bool sim_inv_add_pending(struct sim_world *w, const sim_pending_append *p);
/* After convergence: identical committed prefixes holding every committed value. */
bool sim_inv_final(struct sim_world *w, int64_t final_hw);

#endif
