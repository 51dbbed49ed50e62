/* The peers part of the executor (exec_peer.c, exec_endpoints.c): the core's
 * requests and their answers, relays to the leader, the peers' client
 * listeners. Its state: kq_exec.peers. */
#ifndef KQ_EXEC_PEER_H
#define KQ_EXEC_PEER_H

#include "exec_state.h"

/* A client request relayed to the leader (DescribeQuorum), waiting. */
typedef struct exec_relay {
    bool in_use;
    uint32_t generation;
    void *slot;
    handler_forward f; /* frame freed once sent */
} exec_relay;

/* One node we talk to (KIP-853): a configured voter or a voter of the set
 * in force. Everything per node lives here and is reset when a slot is
 * reused; the generation tells a late endpoint answer from a former
 * occupant (its tag carries it). */
typedef struct exec_peer_slot {
    bool in_use;
    bool configured;      /* exec_config.voters: kept for the process's life */
    uint32_t generation;
    exec_endpoint endpoint; /* port 0: none known (a static voter not configured) */
    /* Events carrying out one output raised, stepped right after it: a set
     * (bit per message type), so it is bounded. */
    uint32_t send_failed;
    /* The last line naming each error code this peer answered with, or
     * naming an answer we could not use (code 0: malformed). */
    struct {
        bool used;
        int16_t code;
        int64_t logged_ms;
    } error_logged[EXEC_PEER_ERROR_CODES_MAX];
    /* Asking the peer for its client listeners (exec_endpoints.c): [0] its
     * client endpoint; [1 + k] its endpoint on listener
     * cfg.client_listeners[k] (issue 19). */
    bool endpoint_inflight[1 + KQ_CONFIG_LISTENERS_MAX];
    int64_t endpoint_due_ms[1 + KQ_CONFIG_LISTENERS_MAX];
} exec_peer_slot;

/* The part's state (kq_exec.peers), touched only by its files. */
typedef struct exec_peers {
    int32_t next_correlation_id;
    /* The peer table: the configured voters first, in their order, then
     * voters of the set in force as they appear (exec_peers_follow). */
    exec_peer_slot slots[EXEC_PEERS_MAX];
    uint32_t slot_generation;
    /* Send failures to nodes without a slot (limits.h). */
    struct {
        int32_t node_id;
        uint32_t types;
    } unknown_failed[EXEC_PEERS_UNKNOWN_FAILED_MAX];
    exec_relay forwards[EXEC_FORWARDS_MAX];
    uint32_t forward_generation;
    /* The last leader followed (0: none yet, ids start at 0 so stored +1):
     * kept while leaderless, as the core asks it when its set names no
     * other node (KIP-853). */
    int32_t last_leader_plus1;
} exec_peers;

/* The table holds cfg's voters. NULL: out of memory. Destroy takes NULL. */
exec_peers *exec_peers_create(const exec_config *cfg);
void exec_peers_destroy(exec_peers *p);
/* Takes one send failure the last output raised, lowest slot and message
 * type first: false when none is left. */
bool exec_peers_take_send_failed(exec_peers *p, int32_t *node_id, enum raft_msg_type *type);
/* The table follows the voter set in force and the leader (at start and
 * after a step whose output says voters_changed or role_changed): a voter
 * without a slot gets one, a voter whose endpoint changed has it replaced
 * (its relays in flight are answered as failed and its endpoint requests
 * forgotten: a replaced channel answers none), a slot of a node neither
 * configured, a voter nor leader_id is freed. env->peer_endpoint hears of
 * every new or changed endpoint, and of every freed node (host NULL).
 * Returns whether the table changed (the handlers' node list follows it:
 * exec_peers_nodes). */
bool exec_peers_follow(kq_exec *x, const kq_voter_set *set, int32_t leader_id);
/* The leader the quorum state named at start: kept as the last leader. */
void exec_peers_hint_leader(exec_peers *p, int32_t leader_id, int32_t self);
/* A leader's endpoint a Fetch answer named (KIP-853: a leader outside
 * this node's voter set): taken if the node has no slot. True if the
 * table changed. It is dropped by the next follow unless it is the leader
 * or a voter by then. */
bool exec_peers_learn(kq_exec *x, const handler_endpoint *e);
/* The nodes with an endpoint, in slot order, into out (EXEC_PEERS_MAX). */
int exec_peers_nodes(const exec_peers *p, handler_endpoint *out);
/* The nodes in the table, with or without an endpoint. */
int exec_peers_count(const exec_peers *p);

/* exec_peer.c */
void exec_send(kq_exec *x, const raft_msg *msg);
/* node_id's slot in the table, or -1. */
int exec_peer_index(const exec_peers *p, int32_t node_id);
void exec_forward(kq_exec *x, void *slot, handler_forward *f);
void exec_forward_response(kq_exec *x, uint64_t tag, const uint8_t *frame, size_t len);
bool exec_tag_is_forward(uint64_t tag);
/* A peer's answer to the core's request (tag) as the event to step: a
 * RECEIVE, or SEND_FAILED for a failed or malformed answer. */
void exec_raft_response(kq_exec *x, int32_t node_id, uint64_t tag, const uint8_t *frame,
                        size_t len, raft_event *ev, bool *peers_changed);

/* exec_endpoints.c */
void exec_ask_endpoints(kq_exec *x);
bool exec_tag_is_endpoint(uint64_t tag);
void exec_endpoint_response(kq_exec *x, int32_t node_id, uint64_t tag, const uint8_t *frame,
                            size_t len);
int64_t exec_endpoint_due(const kq_exec *x);

#endif
