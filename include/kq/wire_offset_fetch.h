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

#define WIRE_OFFSET_FETCH_REQUEST_TOPIC(S) \
    WF(S, STRING, name, 0, 9)              \
    WF(S, UUID, topic_id, 10, WL)          \
    WAK(S, I32, partition_indexes, partition_index_count, 0, WL)
WIRE_STRUCT(wire_offset_fetch_request_topic, WIRE_OFFSET_FETCH_REQUEST_TOPIC)

#define WIRE_OFFSET_FETCH_REQUEST_GROUP(S)                     \
    WF(S, STRING, group_id, 8, WL)                             \
    WF(S, STRING, member_id, 9, WL, WIRE_NULLABLE(9))          \
    WF(S, I32, member_epoch, 9, WL, WIRE_DEFAULT(-1))          \
    WA(S, wire_offset_fetch_request_topic, topics, topic_count, 8, WL, WIRE_NULLABLE(8))
WIRE_STRUCT(wire_offset_fetch_request_group, WIRE_OFFSET_FETCH_REQUEST_GROUP)

#define WIRE_OFFSET_FETCH_REQUEST(S)                                                  \
    WF(S, STRING, group_id, 0, 7, WIRE_DEFAULT_EMPTY)                                 \
    WA(S, wire_offset_fetch_request_topic, topics, topic_count, 0, 7, WIRE_NULLABLE(2)) \
    WA(S, wire_offset_fetch_request_group, groups, group_count, 8, WL)                \
    WF(S, BOOL, require_stable, 7, WL)
WIRE_STRUCT(wire_offset_fetch_request, WIRE_OFFSET_FETCH_REQUEST)

#define WIRE_OFFSET_FETCH_PARTITION(S)                          \
    WF(S, I32, partition_index, 0, WL)                          \
    WF(S, I64, committed_offset, 0, WL)                         \
    WF(S, I32, committed_leader_epoch, 5, WL, WIRE_DEFAULT(-1)) \
    WF(S, STRING, metadata, 0, WL, WIRE_NULLABLE(0))            \
    WF(S, I16, error_code, 0, WL)
WIRE_STRUCT(wire_offset_fetch_partition, WIRE_OFFSET_FETCH_PARTITION)

#define WIRE_OFFSET_FETCH_TOPIC(S) \
    WF(S, STRING, name, 0, 9)      \
    WF(S, UUID, topic_id, 10, WL)  \
    WA(S, wire_offset_fetch_partition, partitions, partition_count, 0, WL)
WIRE_STRUCT(wire_offset_fetch_topic, WIRE_OFFSET_FETCH_TOPIC)

#define WIRE_OFFSET_FETCH_GROUP(S)                                  \
    WF(S, STRING, group_id, 8, WL)                                  \
    WA(S, wire_offset_fetch_topic, topics, topic_count, 8, WL)      \
    WF(S, I16, error_code, 8, WL)
WIRE_STRUCT(wire_offset_fetch_group, WIRE_OFFSET_FETCH_GROUP)

#define WIRE_OFFSET_FETCH_RESPONSE(S)                               \
    WF(S, I32, throttle_time_ms, 3, WL)                             \
    WA(S, wire_offset_fetch_topic, topics, topic_count, 0, 7)       \
    WF(S, I16, error_code, 2, 7)                                    \
    WA(S, wire_offset_fetch_group, groups, group_count, 8, WL)
WIRE_STRUCT(wire_offset_fetch_response, WIRE_OFFSET_FETCH_RESPONSE)

/* Body after the header; decoders return 0 or -1 (malformed, truncated or
 * unsupported version). Encoders set w->error for an unsupported version. */
int wire_offset_fetch_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                     wire_offset_fetch_request *out);
void wire_offset_fetch_request_encode(kq_writer *w, int16_t version,
                                      const wire_offset_fetch_request *in);
int wire_offset_fetch_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                      wire_offset_fetch_response *out);
void wire_offset_fetch_response_encode(kq_writer *w, int16_t version,
                                       const wire_offset_fetch_response *in);

#endif
