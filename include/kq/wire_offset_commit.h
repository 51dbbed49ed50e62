/* OffsetCommit (api key 8), versions 2-10; flexible from v8. A consumer
 * commits offsets for a group; topics are named up to v9 (null after) and
 * identified by id from v10 (zero before). */
#ifndef KQ_WIRE_OFFSET_COMMIT_H
#define KQ_WIRE_OFFSET_COMMIT_H

#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"

#define WIRE_OFFSET_COMMIT_MIN_VERSION 2
#define WIRE_OFFSET_COMMIT_MAX_VERSION 10
#define WIRE_OFFSET_COMMIT_FLEX_VERSION 8

#define WIRE_OFFSET_COMMIT_PARTITION(S)                             \
    WF(S, I32, partition_index, 0, WL)                              \
    WF(S, I64, committed_offset, 0, WL)                             \
    WF(S, I32, committed_leader_epoch, 6, WL, WIRE_DEFAULT(-1))     \
    WF(S, STRING, committed_metadata, 0, WL, WIRE_NULLABLE(0))

#define WIRE_OFFSET_COMMIT_TOPIC(S)  \
    WF(S, STRING, name, 0, 9)        \
    WF(S, UUID, topic_id, 10, WL)    \
    WA(S, wire_offset_commit_partition, partitions, partition_count, 0, WL)

#define WIRE_OFFSET_COMMIT_REQUEST(S)                                   \
    WF(S, STRING, group_id, 0, WL)                                      \
    WF(S, I32, generation_id_or_member_epoch, 1, WL, WIRE_DEFAULT(-1))  \
    WF(S, STRING, member_id, 1, WL)                                     \
    WF(S, STRING, group_instance_id, 7, WL, WIRE_NULLABLE(7))           \
    WF(S, I64, retention_time_ms, 2, 4, WIRE_DEFAULT(-1))               \
    WA(S, wire_offset_commit_topic, topics, topic_count, 0, WL)

#define WIRE_OFFSET_COMMIT_PARTITION_RESPONSE(S) \
    WF(S, I32, partition_index, 0, WL)           \
    WF(S, I16, error_code, 0, WL)

#define WIRE_OFFSET_COMMIT_TOPIC_RESPONSE(S) \
    WF(S, STRING, name, 0, 9)                \
    WF(S, UUID, topic_id, 10, WL)            \
    WA(S, wire_offset_commit_partition_response, partitions, partition_count, 0, WL)

#define WIRE_OFFSET_COMMIT_RESPONSE(S)   \
    WF(S, I32, throttle_time_ms, 3, WL)  \
    WA(S, wire_offset_commit_topic_response, topics, topic_count, 0, WL)

#define WIRE_OFFSET_COMMIT_STRUCTS(D, DI) \
    D(wire_offset_commit_partition, WIRE_OFFSET_COMMIT_PARTITION) \
    D(wire_offset_commit_topic, WIRE_OFFSET_COMMIT_TOPIC) \
    D(wire_offset_commit_request, WIRE_OFFSET_COMMIT_REQUEST) \
    D(wire_offset_commit_partition_response, WIRE_OFFSET_COMMIT_PARTITION_RESPONSE) \
    D(wire_offset_commit_topic_response, WIRE_OFFSET_COMMIT_TOPIC_RESPONSE) \
    D(wire_offset_commit_response, WIRE_OFFSET_COMMIT_RESPONSE)
WIRE_DECLARE_STRUCTS(WIRE_OFFSET_COMMIT_STRUCTS)
WIRE_API_FUNCS(wire_offset_commit)

#endif
