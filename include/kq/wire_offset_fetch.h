/* OffsetFetch (api key 9), versions 1-10; flexible from v6. A consumer
 * reads a group's committed offsets. Up to v7 a request names one group
 * (group_id, "" on decode after; topics), from v8 it batches groups
 * (groups), and the response follows the same split. Topics are named up
 * to v9 (null after) and identified by id from v10 (zero before). A null
 * topic list (topic_count -1, v2+) asks for every topic. */
#ifndef KQ_WIRE_OFFSET_FETCH_H
#define KQ_WIRE_OFFSET_FETCH_H

#include <stdbool.h>
#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"

#define WIRE_OFFSET_FETCH_MIN_VERSION 1
#define WIRE_OFFSET_FETCH_MAX_VERSION 10
#define WIRE_OFFSET_FETCH_FLEX_VERSION 6

#define WIRE_OFFSET_FETCH_REQUEST_TOPIC(S) \
    WF(S, STRING, name, 0, 9)              \
    WF(S, UUID, topic_id, 10, WL)          \
    WAK(S, I32, partition_indexes, partition_index_count, 0, WL)

#define WIRE_OFFSET_FETCH_REQUEST_GROUP(S)                     \
    WF(S, STRING, group_id, 8, WL)                             \
    WF(S, STRING, member_id, 9, WL, WIRE_NULLABLE(9))          \
    WF(S, I32, member_epoch, 9, WL, WIRE_DEFAULT(-1))          \
    WA(S, wire_offset_fetch_request_topic, topics, topic_count, 8, WL, WIRE_NULLABLE(8))

#define WIRE_OFFSET_FETCH_REQUEST(S)                                                  \
    WF(S, STRING, group_id, 0, 7, WIRE_DEFAULT_EMPTY)                                 \
    WA(S, wire_offset_fetch_request_topic, topics, topic_count, 0, 7, WIRE_NULLABLE(2)) \
    WA(S, wire_offset_fetch_request_group, groups, group_count, 8, WL)                \
    WF(S, BOOL, require_stable, 7, WL)

#define WIRE_OFFSET_FETCH_PARTITION(S)                          \
    WF(S, I32, partition_index, 0, WL)                          \
    WF(S, I64, committed_offset, 0, WL)                         \
    WF(S, I32, committed_leader_epoch, 5, WL, WIRE_DEFAULT(-1)) \
    WF(S, STRING, metadata, 0, WL, WIRE_NULLABLE(0))            \
    WF(S, I16, error_code, 0, WL)

#define WIRE_OFFSET_FETCH_TOPIC(S) \
    WF(S, STRING, name, 0, 9)      \
    WF(S, UUID, topic_id, 10, WL)  \
    WA(S, wire_offset_fetch_partition, partitions, partition_count, 0, WL)

#define WIRE_OFFSET_FETCH_GROUP(S)                                  \
    WF(S, STRING, group_id, 8, WL)                                  \
    WA(S, wire_offset_fetch_topic, topics, topic_count, 8, WL)      \
    WF(S, I16, error_code, 8, WL)

#define WIRE_OFFSET_FETCH_RESPONSE(S)                               \
    WF(S, I32, throttle_time_ms, 3, WL)                             \
    WA(S, wire_offset_fetch_topic, topics, topic_count, 0, 7)       \
    WF(S, I16, error_code, 2, 7)                                    \
    WA(S, wire_offset_fetch_group, groups, group_count, 8, WL)

#define WIRE_OFFSET_FETCH_STRUCTS(D, DI) \
    D(wire_offset_fetch_request_topic, WIRE_OFFSET_FETCH_REQUEST_TOPIC) \
    D(wire_offset_fetch_request_group, WIRE_OFFSET_FETCH_REQUEST_GROUP) \
    D(wire_offset_fetch_request, WIRE_OFFSET_FETCH_REQUEST) \
    D(wire_offset_fetch_partition, WIRE_OFFSET_FETCH_PARTITION) \
    D(wire_offset_fetch_topic, WIRE_OFFSET_FETCH_TOPIC) \
    D(wire_offset_fetch_group, WIRE_OFFSET_FETCH_GROUP) \
    D(wire_offset_fetch_response, WIRE_OFFSET_FETCH_RESPONSE)
WIRE_DECLARE_STRUCTS(WIRE_OFFSET_FETCH_STRUCTS)
WIRE_API_FUNCS(wire_offset_fetch)

#endif
