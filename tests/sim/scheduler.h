/* Deterministic event queue: a binary min-heap ordered by (time, insertion
 * sequence), so events at the same simulated millisecond run in the order
 * they were scheduled. */
#ifndef SIM_SCHEDULER_H
#define SIM_SCHEDULER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sim_ev_type {
    SIM_EV_WAKE = 1,     /* node tick at its wake_at_ms */
    SIM_EV_DELIVER,      /* a message arrives (ptr: sim_msg) */
    SIM_EV_SEND_FAILED,  /* tell node that its request to arg could not be sent */
    SIM_EV_FLUSH_DONE,   /* node's oldest pending flush completes */
    SIM_EV_CLIENT,       /* the client appends to the leader */
    SIM_EV_STOP,         /* stop a node (end of graceful shutdown, or its timeout) */
};

typedef struct sim_event {
    int64_t at_ms;
    uint64_t seq;
    int type;     /* the simulator's own event kinds */
    int node;     /* node index */
    uint64_t gen; /* node incarnation or wake generation the event belongs to */
    int64_t arg;
    void *ptr;    /* owned payload (SIM_EV_DELIVER) */
} sim_event;

typedef struct sim_sched {
    sim_event *heap;
    size_t n, cap;
    uint64_t next_seq;
    void (*free_ptr)(void *ptr);
} sim_sched;

void sim_sched_init(sim_sched *s, void (*free_ptr)(void *ptr));
/* Frees the queue and any payloads still in it. */
void sim_sched_free(sim_sched *s);
/* Returns false only when out of memory (payload then not owned). */
bool sim_sched_push(sim_sched *s, const sim_event *ev);
/* Earliest event, or NULL when empty. */
const sim_event *sim_sched_peek(const sim_sched *s);
bool sim_sched_pop(sim_sched *s, sim_event *out);

#endif
