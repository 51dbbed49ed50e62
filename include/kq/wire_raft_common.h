/* Endpoint structs shared by the KRaft APIs (Vote, BeginQuorumEpoch,
 * EndQuorumEpoch, FetchSnapshot, DescribeQuorum, Add/UpdateRaftVoter), and
 * the response fields AddRaftVoter and RemoveRaftVoter share. */
#ifndef KQ_WIRE_RAFT_COMMON_H
#define KQ_WIRE_RAFT_COMMON_H

#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"

/* NodeEndpoint in the KRaft responses (v1+: the responder's endpoints). */
#define WIRE_RAFT_NODE_ENDPOINT(S) \
    WF(S, I32, node_id, 0, WL)     \
    WF(S, STRING, host, 0, WL)     \
    WF(S, U16, port, 0, WL)

/* LeaderEndpoint in Begin/EndQuorumEpoch requests and Listener in
 * DescribeQuorum nodes. */
#define WIRE_RAFT_LISTENER(S)  \
    WF(S, STRING, name, 0, WL) \
    WF(S, STRING, host, 0, WL) \
    WF(S, U16, port, 0, WL)

/* The response of AddRaftVoter and RemoveRaftVoter (KIP-853): the same
 * fields in both (each API declares its own struct from this list). */
#define WIRE_RAFT_VOTER_CHANGE_RESPONSE(S)            \
    WF(S, I32, throttle_time_ms, 0, WL)               \
    WF(S, I16, error_code, 0, WL)                     \
    WF(S, STRING, error_message, 0, WL, WIRE_NULLABLE(0))

#define WIRE_RAFT_COMMON_STRUCTS(D, DI)                     \
    D(wire_raft_node_endpoint, WIRE_RAFT_NODE_ENDPOINT) \
    D(wire_raft_listener, WIRE_RAFT_LISTENER)
WIRE_DECLARE_STRUCTS(WIRE_RAFT_COMMON_STRUCTS)

#endif
