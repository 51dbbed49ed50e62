/* Simulated network: per-link cuts (one-way or both ways), message loss,
 * duplication and random per-message delay (which also reorders). */
#ifndef SIM_NET_H
#define SIM_NET_H

#include <stdbool.h>
#include <stdint.h>

#include "kq/raft.h"
#include "prng.h"

#define SIM_NODES_MAX (RAFT_VOTERS_MAX + RAFT_OBSERVERS_MAX)

typedef struct sim_net {
    int n;
    bool cut[SIM_NODES_MAX][SIM_NODES_MAX]; /* cut[from][to]: from's messages to to are lost */
    uint32_t loss_ppm;
    uint32_t dup_ppm;
    int64_t delay_min_ms, delay_max_ms;
} sim_net;

/* A message in flight. */
typedef struct sim_msg {
    raft_msg m;
    uint8_t *records; /* owned copy of fetch response records */
    int from, to;     /* node indexes */
    uint64_t from_inc, to_inc;
} sim_msg;

void sim_net_init(sim_net *net, int n);
void sim_net_heal(sim_net *net);
/* Both ways between the nodes in side_mask and the rest. */
void sim_net_split(sim_net *net, uint32_t side_mask);
/* Both ways between node and everyone else. */
void sim_net_isolate(sim_net *net, int node);
bool sim_net_blocked(const sim_net *net, int from, int to);
int64_t sim_net_delay(const sim_net *net, sim_prng *rng);

void sim_msg_free(void *msg);
sim_msg *sim_msg_clone(const sim_msg *m);
bool sim_msg_is_request(enum raft_msg_type t);
const char *sim_msg_type_name(enum raft_msg_type t);

#endif
