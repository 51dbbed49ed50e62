/* OffsetFetch (api key 9), versions 1-10; flexible from v6. A consumer
 * reads a group's committed offsets. Up to v7 a request names one group
 * (group_id, topics); from v8 it batches groups (groups), and the response
 * follows the same split. Topics are named up to v9 and identified by id
 * from v10. A null topic list (topic_count -1, v2+) asks for every topic.
 * Decoders borrow strings from the input and take arrays from the arena.
 * Fields absent in a version get the default noted beside them on decode
 * and are not written on encode. */
#ifndef KQ_WIRE_OFFSET_FETCH_H
#define KQ_WIRE_OFFSET_FETCH_H

#include <stdbool.h>
#include <stdint.h>

#include "kq/buf.h"

#define WIRE_OFFSET_FETCH_MIN_VERSION 1
#define WIRE_OFFSET_FETCH_MAX_VERSION 10

typedef struct wire_offset_fetch_request_topic {
    kq_slice name;    /* v1-9; null otherwise */
    kq_uuid topic_id; /* v10+; zero otherwise */
    int32_t *partition_indexes;
    int32_t partition_index_count;
} wire_offset_fetch_request_topic;

typedef struct wire_offset_fetch_request_group {
    kq_slice group_id;
    kq_slice member_id;   /* v9+, nullable; null otherwise */
    int32_t member_epoch; /* v9+; -1 otherwise */
    wire_offset_fetch_request_topic *topics;
    int32_t topic_count; /* -1: null (every topic) */
} wire_offset_fetch_request_group;

typedef struct wire_offset_fetch_request {
    /* v1-7 ("" and 0 otherwise); topic_count -1 is null, v2-7 */
    kq_slice group_id;
    wire_offset_fetch_request_topic *topics;
    int32_t topic_count;
    /* v8+ */
    wire_offset_fetch_request_group *groups;
    int32_t group_count;
    bool require_stable; /* v7+; false otherwise */
} wire_offset_fetch_request;

typedef struct wire_offset_fetch_partition {
    int32_t partition_index;
    int64_t committed_offset;
    int32_t committed_leader_epoch; /* v5+; -1 otherwise */
    kq_slice metadata;              /* nullable */
    int16_t error_code;
} wire_offset_fetch_partition;

typedef struct wire_offset_fetch_topic {
    kq_slice name;    /* v1-9; null otherwise */
    kq_uuid topic_id; /* v10+; zero otherwise */
    wire_offset_fetch_partition *partitions;
    int32_t partition_count;
} wire_offset_fetch_topic;

typedef struct wire_offset_fetch_group {
    kq_slice group_id;
    wire_offset_fetch_topic *topics;
    int32_t topic_count;
    int16_t error_code;
} wire_offset_fetch_group;

typedef struct wire_offset_fetch_response {
    int32_t throttle_time_ms; /* v3+; 0 otherwise */
    /* v1-7 (error_code from v2; 0 otherwise) */
    wire_offset_fetch_topic *topics;
    int32_t topic_count;
    int16_t error_code;
    /* v8+ */
    wire_offset_fetch_group *groups;
    int32_t group_count;
} wire_offset_fetch_response;

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
