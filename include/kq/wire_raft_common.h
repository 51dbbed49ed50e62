/* Endpoint structs shared by the KRaft APIs (Vote, BeginQuorumEpoch,
 * EndQuorumEpoch, DescribeQuorum). */
#ifndef KQ_WIRE_RAFT_COMMON_H
#define KQ_WIRE_RAFT_COMMON_H

#include <stdint.h>

#include "kq/buf.h"

/* NodeEndpoint in Vote/BeginQuorumEpoch/EndQuorumEpoch responses. */
typedef struct wire_raft_node_endpoint {
    int32_t node_id;
    kq_slice host;
    uint16_t port;
} wire_raft_node_endpoint;

/* LeaderEndpoint in Begin/EndQuorumEpoch requests and Listener in
 * DescribeQuorum nodes. */
typedef struct wire_raft_listener {
    kq_slice name;
    kq_slice host;
    uint16_t port;
} wire_raft_listener;

#endif
