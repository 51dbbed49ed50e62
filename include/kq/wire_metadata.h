/* Metadata (key 3) v0-12; flexible from v9. */
#ifndef KQ_WIRE_METADATA_H
#define KQ_WIRE_METADATA_H

#include <stdbool.h>
#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"

#define WIRE_METADATA_MIN_VERSION 0
#define WIRE_METADATA_MAX_VERSION 12
#define WIRE_METADATA_FLEX_VERSION 9

#define WIRE_METADATA_REQUEST_TOPIC(S) \
    WF(S, UUID, topic_id, 10, WL)      \
    WF(S, STRING, name, 0, WL, WIRE_NULLABLE(10))

/* topic_count -1 (null, v1+) means all topics; in v0 an empty array means
 * all topics (encode writes -1 as an empty array at v0). Use
 * wire_metadata_request_all_topics. */
#define WIRE_METADATA_REQUEST(S)                                                    \
    WAC(S, wire_metadata_request_topic, topics, topic_count, 0, WL, WIRE_NULLABLE(1)) \
    WF(S, BOOL, allow_auto_topic_creation, 4, WL, WIRE_DEFAULT(1))                  \
    WF(S, BOOL, include_cluster_authorized_operations, 8, 10)                       \
    WF(S, BOOL, include_topic_authorized_operations, 8, WL)

#define WIRE_METADATA_BROKER(S)   \
    WF(S, I32, node_id, 0, WL)    \
    WF(S, STRING, host, 0, WL)    \
    WF(S, I32, port, 0, WL)       \
    WF(S, STRING, rack, 1, WL, WIRE_NULLABLE(1))

#define WIRE_METADATA_PARTITION(S)                                                  \
    WF(S, I16, error_code, 0, WL)                                                   \
    WF(S, I32, partition_index, 0, WL)                                              \
    WF(S, I32, leader_id, 0, WL)                                                    \
    WF(S, I32, leader_epoch, 7, WL, WIRE_DEFAULT(-1))                               \
    WAKC(S, I32, replica_nodes, replica_node_count, 0, WL)                          \
    WAKC(S, I32, isr_nodes, isr_node_count, 0, WL)                                  \
    WAKC(S, I32, offline_replicas, offline_replica_count, 5, WL)

#define WIRE_METADATA_TOPIC(S)                                                      \
    WF(S, I16, error_code, 0, WL)                                                   \
    WF(S, STRING, name, 0, WL, WIRE_NULLABLE(12))                                   \
    WF(S, UUID, topic_id, 10, WL)                                                   \
    WF(S, BOOL, is_internal, 1, WL)                                                 \
    WAC(S, wire_metadata_partition, partitions, partition_count, 0, WL)             \
    WF(S, I32, topic_authorized_operations, 8, WL, WIRE_DEFAULT(INT32_MIN))

#define WIRE_METADATA_RESPONSE(S)                                                   \
    WF(S, I32, throttle_time_ms, 3, WL)                                             \
    WAC(S, wire_metadata_broker, brokers, broker_count, 0, WL)                      \
    WF(S, STRING, cluster_id, 2, WL, WIRE_NULLABLE(2))                              \
    WF(S, I32, controller_id, 1, WL, WIRE_DEFAULT(-1))                              \
    WAC(S, wire_metadata_topic, topics, topic_count, 0, WL)                         \
    WF(S, I32, cluster_authorized_operations, 8, 10, WIRE_DEFAULT(INT32_MIN))

#define WIRE_METADATA_STRUCTS(D, DI) \
    D(wire_metadata_request_topic, WIRE_METADATA_REQUEST_TOPIC) \
    D(wire_metadata_request, WIRE_METADATA_REQUEST) \
    D(wire_metadata_broker, WIRE_METADATA_BROKER) \
    D(wire_metadata_partition, WIRE_METADATA_PARTITION) \
    D(wire_metadata_topic, WIRE_METADATA_TOPIC) \
    D(wire_metadata_response, WIRE_METADATA_RESPONSE)
WIRE_DECLARE_STRUCTS(WIRE_METADATA_STRUCTS)
WIRE_API_FUNCS(wire_metadata)

/* True when the request asks for every topic (null array, or empty at v0). */
bool wire_metadata_request_all_topics(const wire_metadata_request *req, int16_t version);

#endif
