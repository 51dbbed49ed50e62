/* DescribeQuorum (api key 55), versions 0-2, flexible in all versions.
 * Fields absent in a version get the default noted beside them on decode and
 * are not written on encode. */
#ifndef KQ_WIRE_DESCRIBE_QUORUM_H
#define KQ_WIRE_DESCRIBE_QUORUM_H

#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"
#include "kq/wire_raft_common.h"

#define WIRE_DESCRIBE_QUORUM_MIN_VERSION 0
#define WIRE_DESCRIBE_QUORUM_MAX_VERSION 2
#define WIRE_DESCRIBE_QUORUM_FLEX_VERSION 0

#define WIRE_DQ_PARTITION(S) WF(S, I32, partition_index, 0, WL)

#define WIRE_DQ_TOPIC(S)             \
    WF(S, STRING, topic_name, 0, WL) \
    WA(S, wire_describe_quorum_partition, partitions, partition_count, 0, WL)

#define WIRE_DQ_REQUEST(S) WA(S, wire_describe_quorum_topic, topics, topic_count, 0, WL)

#define WIRE_DQ_REPLICA_STATE(S)                                   \
    WF(S, I32, replica_id, 0, WL)                                  \
    WF(S, UUID, replica_directory_id, 2, WL)                       \
    WF(S, I64, log_end_offset, 0, WL)                              \
    WF(S, I64, last_fetch_timestamp, 1, WL, WIRE_DEFAULT(-1))      \
    WF(S, I64, last_caught_up_timestamp, 1, WL, WIRE_DEFAULT(-1))

#define WIRE_DQ_PARTITION_DATA(S)                                                        \
    WF(S, I32, partition_index, 0, WL)                                                   \
    WF(S, I16, error_code, 0, WL)                                                        \
    WF(S, STRING, error_message, 2, WL, WIRE_NULLABLE(2))                                \
    WF(S, I32, leader_id, 0, WL)                                                         \
    WF(S, I32, leader_epoch, 0, WL)                                                      \
    WF(S, I64, high_watermark, 0, WL)                                                    \
    WA(S, wire_describe_quorum_replica_state, current_voters, current_voter_count, 0, WL) \
    WA(S, wire_describe_quorum_replica_state, observers, observer_count, 0, WL)

#define WIRE_DQ_TOPIC_DATA(S)        \
    WF(S, STRING, topic_name, 0, WL) \
    WA(S, wire_describe_quorum_partition_data, partitions, partition_count, 0, WL)

#define WIRE_DQ_NODE(S)            \
    WF(S, I32, node_id, 2, WL)     \
    WA(S, wire_raft_listener, listeners, listener_count, 2, WL)

#define WIRE_DQ_RESPONSE(S)                                              \
    WF(S, I16, error_code, 0, WL)                                        \
    WF(S, STRING, error_message, 2, WL, WIRE_NULLABLE(2))                \
    WA(S, wire_describe_quorum_topic_data, topics, topic_count, 0, WL)   \
    WA(S, wire_describe_quorum_node, nodes, node_count, 2, WL)

#define WIRE_DESCRIBE_QUORUM_STRUCTS(D, DI) \
    D(wire_describe_quorum_partition, WIRE_DQ_PARTITION) \
    D(wire_describe_quorum_topic, WIRE_DQ_TOPIC) \
    D(wire_describe_quorum_request, WIRE_DQ_REQUEST) \
    D(wire_describe_quorum_replica_state, WIRE_DQ_REPLICA_STATE) \
    D(wire_describe_quorum_partition_data, WIRE_DQ_PARTITION_DATA) \
    D(wire_describe_quorum_topic_data, WIRE_DQ_TOPIC_DATA) \
    D(wire_describe_quorum_node, WIRE_DQ_NODE) \
    D(wire_describe_quorum_response, WIRE_DQ_RESPONSE)
WIRE_DECLARE_STRUCTS(WIRE_DESCRIBE_QUORUM_STRUCTS)
WIRE_API_FUNCS(wire_describe_quorum)

#endif
