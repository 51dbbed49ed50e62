/* ConsumerGroupDescribe (api key 69), versions 0-1; flexible in all.
 * Describes KIP-848 consumer groups by id: state, group and assignment
 * epochs, the assignor, and each member with its subscription, current and
 * target assignments (topics by id and name). v1 adds each member's type
 * (0 classic, 1 consumer; KIP-1099). Kafka 4.4.0 brokers advertise v0-1. */
#ifndef KQ_WIRE_CONSUMER_GROUP_DESCRIBE_H
#define KQ_WIRE_CONSUMER_GROUP_DESCRIBE_H

#include <stdbool.h>
#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"

#define WIRE_CONSUMER_GROUP_DESCRIBE_MIN_VERSION 0
#define WIRE_CONSUMER_GROUP_DESCRIBE_MAX_VERSION 1
#define WIRE_CONSUMER_GROUP_DESCRIBE_FLEX_VERSION 0

#define WIRE_CGD_REQUEST(S)                            \
    WAK(S, STRING, group_ids, group_count, 0, WL)      \
    WF(S, BOOL, include_authorized_operations, 0, WL)

#define WIRE_CGD_TOPIC_PARTITIONS(S)  \
    WF(S, UUID, topic_id, 0, WL)      \
    WF(S, STRING, topic_name, 0, WL)  \
    WAK(S, I32, partitions, partition_count, 0, WL)

#define WIRE_CGD_ASSIGNMENT(S) \
    WA(S, wire_cgd_topic_partitions, topic_partitions, topic_count, 0, WL)

#define WIRE_CGD_MEMBER(S)                                                  \
    WF(S, STRING, member_id, 0, WL)                                         \
    WF(S, STRING, instance_id, 0, WL, WIRE_NULLABLE(0))                     \
    WF(S, STRING, rack_id, 0, WL, WIRE_NULLABLE(0))                         \
    WF(S, I32, member_epoch, 0, WL)                                         \
    WF(S, STRING, client_id, 0, WL)                                         \
    WF(S, STRING, client_host, 0, WL)                                       \
    WAK(S, STRING, subscribed_topic_names, subscribed_topic_count, 0, WL)   \
    WF(S, STRING, subscribed_topic_regex, 0, WL, WIRE_NULLABLE(0))          \
    WT(S, wire_cgd_assignment, assignment, 0, WL)                           \
    WT(S, wire_cgd_assignment, target_assignment, 0, WL)                    \
    WF(S, I8, member_type, 1, WL, WIRE_DEFAULT(-1))

#define WIRE_CGD_GROUP(S)                                                \
    WF(S, I16, error_code, 0, WL)                                        \
    WF(S, STRING, error_message, 0, WL, WIRE_NULLABLE(0))                \
    WF(S, STRING, group_id, 0, WL)                                       \
    WF(S, STRING, group_state, 0, WL)                                    \
    WF(S, I32, group_epoch, 0, WL)                                       \
    WF(S, I32, assignment_epoch, 0, WL)                                  \
    WF(S, STRING, assignor_name, 0, WL)                                  \
    WA(S, wire_cgd_member, members, member_count, 0, WL)                 \
    WF(S, I32, authorized_operations, 0, WL, WIRE_DEFAULT(INT32_MIN))

#define WIRE_CGD_RESPONSE(S)            \
    WF(S, I32, throttle_time_ms, 0, WL) \
    WA(S, wire_cgd_group, groups, group_count, 0, WL)

#define WIRE_CONSUMER_GROUP_DESCRIBE_STRUCTS(D, DI)            \
    D(wire_consumer_group_describe_request, WIRE_CGD_REQUEST)  \
    D(wire_cgd_topic_partitions, WIRE_CGD_TOPIC_PARTITIONS)    \
    D(wire_cgd_assignment, WIRE_CGD_ASSIGNMENT)                \
    D(wire_cgd_member, WIRE_CGD_MEMBER)                        \
    D(wire_cgd_group, WIRE_CGD_GROUP)                          \
    D(wire_consumer_group_describe_response, WIRE_CGD_RESPONSE)
WIRE_DECLARE_STRUCTS(WIRE_CONSUMER_GROUP_DESCRIBE_STRUCTS)
WIRE_API_FUNCS(wire_consumer_group_describe)

#endif
