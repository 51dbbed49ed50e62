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

/* The part's state (kq_exec.peers), touched only by its files. */
typedef struct exec_peers {
    int32_t next_correlation_id;
    /* Events carrying out one output raised, stepped right after it: a set
     * (bit per message type, per voter index), so it is bounded. */
    uint32_t send_failed[EXEC_VOTERS_MAX];
    exec_relay forwards[EXEC_FORWARDS_MAX];
    uint32_t forward_generation;
    int64_t peer_error_logged_ms[EXEC_VOTERS_MAX];
    /* Asking the peers for their client listeners (exec_endpoints.c). */
    /* [voter][0]: its client endpoint; [voter][1 + k]: its endpoint on
     * listener cfg.client_listeners[k] (issue 19). */
    bool endpoint_inflight[EXEC_VOTERS_MAX][1 + KQ_CONFIG_LISTENERS_MAX];
    int64_t endpoint_due_ms[EXEC_VOTERS_MAX][1 + KQ_CONFIG_LISTENERS_MAX];
} exec_peers;

/* NULL: out of memory. Destroy takes NULL. */
exec_peers *exec_peers_create(void);
void exec_peers_destroy(exec_peers *p);
/* Takes one send failure the last output raised, lowest voter index
 * (below voter_count) and message type first: false when none is left. */
bool exec_peers_take_send_failed(exec_peers *p, int voter_count, int *voter,
                                 enum raft_msg_type *type);

/* exec_peer.c */
void exec_send(kq_exec *x, const raft_msg *msg);
int exec_voter_index(const kq_exec *x, int32_t node_id);
void exec_forward(kq_exec *x, void *slot, handler_forward *f);
void exec_forward_response(kq_exec *x, uint64_t tag, const uint8_t *frame, size_t len);
bool exec_tag_is_forward(uint64_t tag);
/* A peer's answer to the core's request (tag) as the event to step: a
 * RECEIVE, or SEND_FAILED for a failed or malformed answer. */
void exec_raft_response(kq_exec *x, int32_t node_id, uint64_t tag, const uint8_t *frame,
                        size_t len, raft_event *ev);

/* exec_endpoints.c */
void exec_ask_endpoints(kq_exec *x);
bool exec_tag_is_endpoint(uint64_t tag);
void exec_endpoint_response(kq_exec *x, int32_t node_id, uint64_t tag, const uint8_t *frame,
                            size_t len);
int64_t exec_endpoint_due(const kq_exec *x);

#endif
