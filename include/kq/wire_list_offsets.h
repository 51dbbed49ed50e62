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

#define WIRE_LIST_OFFSETS_PARTITION(S)                                              \
    WF(S, I32, partition_index, 0, WL)                                              \
    WF(S, I32, current_leader_epoch, 4, WL, WIRE_DEFAULT(-1))                       \
    WF(S, I64, timestamp, 0, WL) /* -2 earliest, -1 latest, ... */                  \
    WF(S, I32, max_num_offsets, 0, 0, WIRE_DEFAULT(1))
WIRE_STRUCT(wire_list_offsets_partition, WIRE_LIST_OFFSETS_PARTITION)

#define WIRE_LIST_OFFSETS_TOPIC(S) \
    WF(S, STRING, name, 0, WL)     \
    WAC(S, wire_list_offsets_partition, partitions, partition_count, 0, WL)
WIRE_STRUCT(wire_list_offsets_topic, WIRE_LIST_OFFSETS_TOPIC)

#define WIRE_LIST_OFFSETS_REQUEST(S)                                 \
    WF(S, I32, replica_id, 0, WL)                                    \
    WF(S, I8, isolation_level, 2, WL)                                \
    WAC(S, wire_list_offsets_topic, topics, topic_count, 0, WL)      \
    WF(S, I32, timeout_ms, 10, WL)
WIRE_STRUCT(wire_list_offsets_request, WIRE_LIST_OFFSETS_REQUEST)

#define WIRE_LIST_OFFSETS_PARTITION_RESPONSE(S)                                     \
    WF(S, I32, partition_index, 0, WL)                                              \
    WF(S, I16, error_code, 0, WL)                                                   \
    WAKC(S, I64, old_style_offsets, old_style_offset_count, 0, 0)                   \
    WF(S, I64, timestamp, 1, WL, WIRE_DEFAULT(-1))                                  \
    WF(S, I64, offset, 1, WL, WIRE_DEFAULT(-1))                                     \
    WF(S, I32, leader_epoch, 4, WL, WIRE_DEFAULT(-1))
WIRE_STRUCT(wire_list_offsets_partition_response, WIRE_LIST_OFFSETS_PARTITION_RESPONSE)

#define WIRE_LIST_OFFSETS_TOPIC_RESPONSE(S) \
    WF(S, STRING, name, 0, WL)              \
    WAC(S, wire_list_offsets_partition_response, partitions, partition_count, 0, WL)
WIRE_STRUCT(wire_list_offsets_topic_response, WIRE_LIST_OFFSETS_TOPIC_RESPONSE)

#define WIRE_LIST_OFFSETS_RESPONSE(S)  \
    WF(S, I32, throttle_time_ms, 2, WL) \
    WAC(S, wire_list_offsets_topic_response, topics, topic_count, 0, WL)
WIRE_STRUCT(wire_list_offsets_response, WIRE_LIST_OFFSETS_RESPONSE)

/* Body after the header; decoders return 0 or -1 (malformed, truncated or
 * unsupported version). Encoders set w->error for an unsupported version. */
int wire_list_offsets_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                     wire_list_offsets_request *out);
void wire_list_offsets_request_encode(kq_writer *w, int16_t version,
                                      const wire_list_offsets_request *in);
int wire_list_offsets_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                      wire_list_offsets_response *out);
void wire_list_offsets_response_encode(kq_writer *w, int16_t version,
                                       const wire_list_offsets_response *in);

#endif
