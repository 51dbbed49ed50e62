/* The simulated world: nodes running the Raft core, their disks and quorum
 * state stores, the network, the client, and the event loop driving them. */
#ifndef SIM_H
#define SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "invariants.h"
#include "kq/raft.h"
#include "prng.h"
#include "scheduler.h"
#include "sim_log.h"
#include "sim_net.h"

typedef struct sim_flush {
    int64_t offset;   /* what the core asked to cover */
    int target_n;     /* log entries covered (shrinks if truncated meanwhile) */
} sim_flush;

typedef struct sim_node {
    int idx;
    int32_t id;
    bool voter;
    bool running;
    uint64_t inc;       /* incarnation: bumped at every stop */
    raft *r;
    raft_quorum_state qstate; /* the durable quorum-state store */
    bool qstate_stored;
    sim_log log;
    sim_flush *flushes; /* FIFO of flushes in progress */
    int flush_n, flush_cap;
    int64_t flush_free_at; /* flushes complete in order */
    uint64_t wake_gen;
    int64_t wake_at;
    bool shutting_down;
    int restarts;
} sim_node;

typedef struct sim_token {
    int req_node;
    uint64_t req_inc;
} sim_token;

typedef struct sim_params {
    uint64_t seed;
    int voters;
    int observers;
    uint32_t mutants;
    uint32_t checks; /* enabled checks: bit (1u << enum sim_check) */
    bool verbose;
    bool lenient_leader_hw; /* tolerate a new leader showing its stale follower HW */
} sim_params;

typedef struct sim_world {
    sim_params p;
    int n;
    sim_prng rng;
    sim_sched sched;
    sim_net net;
    int64_t now;
    sim_node nodes[SIM_NODES_MAX];
    raft_config cfg; /* template: node_id and random_seed set per node */
    raft_output out;
    sim_token *tokens;
    size_t token_n, token_cap;
    int64_t flush_min_ms, flush_max_ms;
    uint32_t send_failed_ppm;
    /* client */
    bool client_on;
    uint64_t client_gen;
    int64_t client_min_ms, client_max_ms;
    uint64_t next_value;
    /* accounting */
    uint64_t events;
    int64_t same_ms_events;
    int64_t last_event_ms;
    sim_inv inv;
    bool failed;
    char fail_msg[768];
} sim_world;

bool sim_world_init(sim_world *w, const sim_params *p);
void sim_world_free(sim_world *w);
bool sim_fail(sim_world *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sim_trace(sim_world *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Node lifecycle (sim_node.c). */
bool sim_node_start(sim_world *w, int idx);
void sim_node_stop(sim_world *w, int idx); /* crash: unflushed bytes are lost */
bool sim_node_shutdown(sim_world *w, int idx, int64_t timeout_ms); /* graceful */
bool sim_node_step(sim_world *w, int idx, raft_event *ev);
bool sim_node_status(sim_world *w, int idx, raft_status *st);

/* Event loop (sim_world.c). */
bool sim_run_event(sim_world *w);
/* Runs events up to now + ms. Returns false once an invariant failed. */
bool sim_run_for(sim_world *w, int64_t ms);
/* Runs until pred holds (checked after every event) or ms passed. */
bool sim_run_until(sim_world *w, bool (*pred)(sim_world *w, void *ctx), void *ctx, int64_t ms);
void sim_client_set(sim_world *w, bool on);
/* Appends one client batch set to node idx now; returns false if it refused. */
bool sim_client_append(sim_world *w, int idx);
/* Running node that leads the highest epoch any node has led, or -1. */
int sim_current_leader(sim_world *w);
bool sim_schedule(sim_world *w, int64_t at, enum sim_ev_type type, int node, uint64_t gen,
                  int64_t arg, void *ptr);

#endif
