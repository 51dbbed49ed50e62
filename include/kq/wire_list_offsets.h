/* ListOffsets (key 2) v0-10; flexible from v6. v0's MaxNumOffsets and
 * OldStyleOffsets are gone from Kafka's current definitions (v1+); kept
 * here as Kafka 2.x defined them. */
#ifndef KQ_WIRE_LIST_OFFSETS_H
#define KQ_WIRE_LIST_OFFSETS_H

#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"

#define WIRE_LIST_OFFSETS_MIN_VERSION 0
#define WIRE_LIST_OFFSETS_MAX_VERSION 10
#define WIRE_LIST_OFFSETS_FLEX_VERSION 6

#define WIRE_LIST_OFFSETS_PARTITION(S)                                              \
    WF(S, I32, partition_index, 0, WL)                                              \
    WF(S, I32, current_leader_epoch, 4, WL, WIRE_DEFAULT(-1))                       \
    WF(S, I64, timestamp, 0, WL) /* -2 earliest, -1 latest, ... */                  \
    WF(S, I32, max_num_offsets, 0, 0, WIRE_DEFAULT(1))

#define WIRE_LIST_OFFSETS_TOPIC(S) \
    WF(S, STRING, name, 0, WL)     \
    WAC(S, wire_list_offsets_partition, partitions, partition_count, 0, WL)

#define WIRE_LIST_OFFSETS_REQUEST(S)                                 \
    WF(S, I32, replica_id, 0, WL)                                    \
    WF(S, I8, isolation_level, 2, WL)                                \
    WAC(S, wire_list_offsets_topic, topics, topic_count, 0, WL)      \
    WF(S, I32, timeout_ms, 10, WL)

#define WIRE_LIST_OFFSETS_PARTITION_RESPONSE(S)                                     \
    WF(S, I32, partition_index, 0, WL)                                              \
    WF(S, I16, error_code, 0, WL)                                                   \
    WAKC(S, I64, old_style_offsets, old_style_offset_count, 0, 0)                   \
    WF(S, I64, timestamp, 1, WL, WIRE_DEFAULT(-1))                                  \
    WF(S, I64, offset, 1, WL, WIRE_DEFAULT(-1))                                     \
    WF(S, I32, leader_epoch, 4, WL, WIRE_DEFAULT(-1))

#define WIRE_LIST_OFFSETS_TOPIC_RESPONSE(S) \
    WF(S, STRING, name, 0, WL)              \
    WAC(S, wire_list_offsets_partition_response, partitions, partition_count, 0, WL)

#define WIRE_LIST_OFFSETS_RESPONSE(S)  \
    WF(S, I32, throttle_time_ms, 2, WL) \
    WAC(S, wire_list_offsets_topic_response, topics, topic_count, 0, WL)

#define WIRE_LIST_OFFSETS_STRUCTS(D, DI) \
    D(wire_list_offsets_partition, WIRE_LIST_OFFSETS_PARTITION) \
    D(wire_list_offsets_topic, WIRE_LIST_OFFSETS_TOPIC) \
    D(wire_list_offsets_request, WIRE_LIST_OFFSETS_REQUEST) \
    D(wire_list_offsets_partition_response, WIRE_LIST_OFFSETS_PARTITION_RESPONSE) \
    D(wire_list_offsets_topic_response, WIRE_LIST_OFFSETS_TOPIC_RESPONSE) \
    D(wire_list_offsets_response, WIRE_LIST_OFFSETS_RESPONSE)
WIRE_DECLARE_STRUCTS(WIRE_LIST_OFFSETS_STRUCTS)
WIRE_API_FUNCS(wire_list_offsets)

#endif
