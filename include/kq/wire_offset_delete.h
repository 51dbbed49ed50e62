/* OffsetDelete (api key 47), version 0; never flexible. Deletes one
 * group's committed offsets for the named topic partitions
 * (kafka-consumer-groups.sh --delete-offsets): a top-level error, or one
 * error per partition. */
#ifndef KQ_WIRE_OFFSET_DELETE_H
#define KQ_WIRE_OFFSET_DELETE_H

#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"

#define WIRE_OFFSET_DELETE_MIN_VERSION 0
#define WIRE_OFFSET_DELETE_MAX_VERSION 0
#define WIRE_OFFSET_DELETE_FLEX_VERSION WL

#define WIRE_OFFSET_DELETE_PARTITION(S) \
    WF(S, I32, partition_index, 0, WL)

#define WIRE_OFFSET_DELETE_TOPIC(S)   \
    WF(S, STRING, name, 0, WL)        \
    WA(S, wire_offset_delete_partition, partitions, partition_count, 0, WL)

#define WIRE_OFFSET_DELETE_REQUEST(S) \
    WF(S, STRING, group_id, 0, WL)    \
    WA(S, wire_offset_delete_topic, topics, topic_count, 0, WL)

#define WIRE_OFFSET_DELETE_PARTITION_RESPONSE(S) \
    WF(S, I32, partition_index, 0, WL)           \
    WF(S, I16, error_code, 0, WL)

#define WIRE_OFFSET_DELETE_TOPIC_RESPONSE(S) \
    WF(S, STRING, name, 0, WL)               \
    WA(S, wire_offset_delete_partition_response, partitions, partition_count, 0, WL)

#define WIRE_OFFSET_DELETE_RESPONSE(S)   \
    WF(S, I16, error_code, 0, WL)        \
    WF(S, I32, throttle_time_ms, 0, WL)  \
    WA(S, wire_offset_delete_topic_response, topics, topic_count, 0, WL)

#define WIRE_OFFSET_DELETE_STRUCTS(D, DI) \
    D(wire_offset_delete_partition, WIRE_OFFSET_DELETE_PARTITION) \
    D(wire_offset_delete_topic, WIRE_OFFSET_DELETE_TOPIC) \
    D(wire_offset_delete_request, WIRE_OFFSET_DELETE_REQUEST) \
    D(wire_offset_delete_partition_response, WIRE_OFFSET_DELETE_PARTITION_RESPONSE) \
    D(wire_offset_delete_topic_response, WIRE_OFFSET_DELETE_TOPIC_RESPONSE) \
    D(wire_offset_delete_response, WIRE_OFFSET_DELETE_RESPONSE)
WIRE_DECLARE_STRUCTS(WIRE_OFFSET_DELETE_STRUCTS)
WIRE_API_FUNCS(wire_offset_delete)

#endif
