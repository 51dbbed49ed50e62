/* ConsumerGroupHeartbeat (api key 68), versions 0-1; flexible in all. The
 * member of a KIP-848 consumer group joins (epoch 0), heartbeats with its
 * epoch and owned partitions, and leaves (epoch -1, -2 for a static member
 * that will come back); the coordinator answers with the member's epoch, the
 * heartbeat interval and, when it changed, the partitions the member may use.
 * v1 (KIP-848's 4.0 release) adds the subscribed regex; in v1 the member
 * chooses its own id. Null request fields mean "unchanged since the last
 * heartbeat". Kafka 4.4.0 brokers advertise v0-1. */
#ifndef KQ_WIRE_CONSUMER_GROUP_HEARTBEAT_H
#define KQ_WIRE_CONSUMER_GROUP_HEARTBEAT_H

#include <stdbool.h>
#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"

#define WIRE_CONSUMER_GROUP_HEARTBEAT_MIN_VERSION 0
#define WIRE_CONSUMER_GROUP_HEARTBEAT_MAX_VERSION 1
#define WIRE_CONSUMER_GROUP_HEARTBEAT_FLEX_VERSION 0

/* A topic's partitions, the topic by id (request and response alike). */
#define WIRE_CGH_TOPIC_PARTITIONS(S) \
    WF(S, UUID, topic_id, 0, WL)     \
    WAK(S, I32, partitions, partition_count, 0, WL)

#define WIRE_CGH_REQUEST(S)                                                       \
    WF(S, STRING, group_id, 0, WL)                                                \
    WF(S, STRING, member_id, 0, WL)                                               \
    WF(S, I32, member_epoch, 0, WL)                                               \
    WF(S, STRING, instance_id, 0, WL, WIRE_NULLABLE(0))                           \
    WF(S, STRING, rack_id, 0, WL, WIRE_NULLABLE(0))                               \
    WF(S, I32, rebalance_timeout_ms, 0, WL, WIRE_DEFAULT(-1))                     \
    WAK(S, STRING, subscribed_topic_names, subscribed_topic_count, 0, WL,         \
        WIRE_NULLABLE(0))                                                         \
    WF(S, STRING, subscribed_topic_regex, 1, WL, WIRE_NULLABLE(1))                \
    WF(S, STRING, server_assignor, 0, WL, WIRE_NULLABLE(0))                       \
    WA(S, wire_cgh_topic_partitions, topic_partitions, topic_count, 0, WL,        \
       WIRE_NULLABLE(0))

/* The member's assignment: null (has_assignment false) when unchanged. */
#define WIRE_CGH_ASSIGNMENT(S) \
    WA(S, wire_cgh_topic_partitions, topic_partitions, topic_count, 0, WL)

#define WIRE_CGH_RESPONSE(S)                                                      \
    WF(S, I32, throttle_time_ms, 0, WL)                                           \
    WF(S, I16, error_code, 0, WL)                                                 \
    WF(S, STRING, error_message, 0, WL, WIRE_NULLABLE(0))                         \
    WF(S, STRING, member_id, 0, WL, WIRE_NULLABLE(0))                             \
    WF(S, I32, member_epoch, 0, WL)                                               \
    WF(S, I32, heartbeat_interval_ms, 0, WL)                                      \
    WTP(S, wire_cgh_assignment, assignment, has_assignment, 0, WL, WIRE_NULLABLE(0))

#define WIRE_CONSUMER_GROUP_HEARTBEAT_STRUCTS(D, DI)                    \
    D(wire_cgh_topic_partitions, WIRE_CGH_TOPIC_PARTITIONS)             \
    D(wire_consumer_group_heartbeat_request, WIRE_CGH_REQUEST)          \
    D(wire_cgh_assignment, WIRE_CGH_ASSIGNMENT)                         \
    D(wire_consumer_group_heartbeat_response, WIRE_CGH_RESPONSE)
WIRE_DECLARE_STRUCTS(WIRE_CONSUMER_GROUP_HEARTBEAT_STRUCTS)
WIRE_API_FUNCS(wire_consumer_group_heartbeat)

#endif
