/* The peers part of the executor (exec_peer.c, exec_endpoints.c): the core's
 * requests and their answers, relays to the leader, the peers' client
 * listeners. Its state: kq_exec.peers. */
#ifndef KQ_EXEC_PEER_H
#define KQ_EXEC_PEER_H

#include "exec_state.h"

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
