/* Endpoint structs shared by the KRaft APIs (Vote, BeginQuorumEpoch,
 * EndQuorumEpoch, DescribeQuorum). */
#ifndef KQ_WIRE_RAFT_COMMON_H
#define KQ_WIRE_RAFT_COMMON_H

#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"

/* NodeEndpoint in Vote/BeginQuorumEpoch/EndQuorumEpoch responses (v1+). */
#define WIRE_RAFT_NODE_ENDPOINT(S) \
    WF(S, I32, node_id, 1, WL)     \
    WF(S, STRING, host, 1, WL)     \
    WF(S, U16, port, 1, WL)
WIRE_STRUCT(wire_raft_node_endpoint, WIRE_RAFT_NODE_ENDPOINT)

/* LeaderEndpoint in Begin/EndQuorumEpoch requests and Listener in
 * DescribeQuorum nodes. */
typedef struct wire_raft_listener {
    kq_slice name;
    kq_slice host;
    uint16_t port;
} wire_raft_listener;

#endif
