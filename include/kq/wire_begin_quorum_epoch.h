/* BeginQuorumEpoch (api key 53), versions 0-1; flexible from v1. Fields
 * absent in a version get the default noted beside them on decode and are
 * not written on encode. */
#ifndef KQ_WIRE_BEGIN_QUORUM_EPOCH_H
#define KQ_WIRE_BEGIN_QUORUM_EPOCH_H

#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"
#include "kq/wire_raft_common.h"

#define WIRE_BEGIN_QUORUM_EPOCH_MIN_VERSION 0
#define WIRE_BEGIN_QUORUM_EPOCH_MAX_VERSION 1
#define WIRE_BEGIN_QUORUM_EPOCH_FLEX_VERSION 1

#define WIRE_BQE_PARTITION(S)              \
    WF(S, I32, partition_index, 0, WL)         \
    WF(S, UUID, voter_directory_id, 1, WL)     \
    WF(S, I32, leader_id, 0, WL)               \
    WF(S, I32, leader_epoch, 0, WL)

#define WIRE_BQE_TOPIC(S)            \
    WF(S, STRING, topic_name, 0, WL) \
    WA(S, wire_begin_quorum_epoch_partition, partitions, partition_count, 0, WL)

#define WIRE_BQE_REQUEST(S)                                             \
    WF(S, STRING, cluster_id, 0, WL, WIRE_NULLABLE(0))                  \
    WF(S, I32, voter_id, 1, WL, WIRE_DEFAULT(-1))                       \
    WA(S, wire_begin_quorum_epoch_topic, topics, topic_count, 0, WL)    \
    WA(S, wire_raft_listener, leader_endpoints, leader_endpoint_count, 1, WL)

#define WIRE_BQE_PARTITION_RESULT(S)   \
    WF(S, I32, partition_index, 0, WL) \
    WF(S, I16, error_code, 0, WL)      \
    WF(S, I32, leader_id, 0, WL)       \
    WF(S, I32, leader_epoch, 0, WL)

#define WIRE_BQE_TOPIC_RESULT(S)     \
    WF(S, STRING, topic_name, 0, WL) \
    WA(S, wire_begin_quorum_epoch_partition_result, partitions, partition_count, 0, WL)

#define WIRE_BQE_RESPONSE(S)                                                \
    WF(S, I16, error_code, 0, WL)                                           \
    WA(S, wire_begin_quorum_epoch_topic_result, topics, topic_count, 0, WL) \
    WA(S, wire_raft_node_endpoint, node_endpoints, node_endpoint_count, 1, WL, WIRE_TAG(0, 1))

#define WIRE_BEGIN_QUORUM_EPOCH_STRUCTS(D, DI) \
    D(wire_begin_quorum_epoch_partition, WIRE_BQE_PARTITION) \
    D(wire_begin_quorum_epoch_topic, WIRE_BQE_TOPIC) \
    D(wire_begin_quorum_epoch_request, WIRE_BQE_REQUEST) \
    D(wire_begin_quorum_epoch_partition_result, WIRE_BQE_PARTITION_RESULT) \
    D(wire_begin_quorum_epoch_topic_result, WIRE_BQE_TOPIC_RESULT) \
    D(wire_begin_quorum_epoch_response, WIRE_BQE_RESPONSE)
WIRE_DECLARE_STRUCTS(WIRE_BEGIN_QUORUM_EPOCH_STRUCTS)
WIRE_API_FUNCS(wire_begin_quorum_epoch)

#endif
