/* OffsetCommit (api key 8), versions 2-10; flexible from v8. A consumer
 * commits offsets for a group; topics are named up to v9 and identified by
 * id from v10. Decoders borrow strings from the input and take arrays from
 * the arena. Fields absent in a version get the default noted beside them
 * on decode and are not written on encode. */
#ifndef KQ_WIRE_OFFSET_COMMIT_H
#define KQ_WIRE_OFFSET_COMMIT_H

#include <stdint.h>

#include "kq/buf.h"

#define WIRE_OFFSET_COMMIT_MIN_VERSION 2
#define WIRE_OFFSET_COMMIT_MAX_VERSION 10

typedef struct wire_offset_commit_partition {
    int32_t partition_index;
    int64_t committed_offset;
    int32_t committed_leader_epoch; /* v6+; -1 otherwise */
    kq_slice committed_metadata;    /* nullable */
} wire_offset_commit_partition;

typedef struct wire_offset_commit_topic {
    kq_slice name;    /* v2-9; null otherwise */
    kq_uuid topic_id; /* v10+; zero otherwise */
    wire_offset_commit_partition *partitions;
    int32_t partition_count;
} wire_offset_commit_topic;

typedef struct wire_offset_commit_request {
    kq_slice group_id;
    int32_t generation_id_or_member_epoch;
    kq_slice member_id;
    kq_slice group_instance_id; /* v7+, nullable; null otherwise */
    int64_t retention_time_ms;  /* v2-4; -1 otherwise */
    wire_offset_commit_topic *topics;
    int32_t topic_count;
} wire_offset_commit_request;

typedef struct wire_offset_commit_partition_response {
    int32_t partition_index;
    int16_t error_code;
} wire_offset_commit_partition_response;

typedef struct wire_offset_commit_topic_response {
    kq_slice name;    /* v2-9; null otherwise */
    kq_uuid topic_id; /* v10+; zero otherwise */
    wire_offset_commit_partition_response *partitions;
    int32_t partition_count;
} wire_offset_commit_topic_response;

typedef struct wire_offset_commit_response {
    int32_t throttle_time_ms; /* v3+; 0 otherwise */
    wire_offset_commit_topic_response *topics;
    int32_t topic_count;
} wire_offset_commit_response;

/* Body after the header; decoders return 0 or -1 (malformed, truncated or
 * unsupported version). Encoders set w->error for an unsupported version. */
int wire_offset_commit_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                      wire_offset_commit_request *out);
void wire_offset_commit_request_encode(kq_writer *w, int16_t version,
                                       const wire_offset_commit_request *in);
int wire_offset_commit_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                       wire_offset_commit_response *out);
void wire_offset_commit_response_encode(kq_writer *w, int16_t version,
                                        const wire_offset_commit_response *in);

#endif
