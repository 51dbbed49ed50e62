/* ListOffsets (key 2) v0-10; flexible from v6. */
#ifndef KQ_WIRE_LIST_OFFSETS_H
#define KQ_WIRE_LIST_OFFSETS_H

#include <stdint.h>

#include "kq/buf.h"

typedef struct wire_list_offsets_partition {
    int32_t partition_index;
    int32_t current_leader_epoch; /* v4+; default -1 */
    int64_t timestamp;            /* -2 earliest, -1 latest, ... */
    int32_t max_num_offsets;      /* v0 only; default 1 */
} wire_list_offsets_partition;

typedef struct wire_list_offsets_topic {
    kq_slice name;
    const wire_list_offsets_partition *partitions;
    int32_t partition_count;
} wire_list_offsets_topic;

typedef struct wire_list_offsets_request {
    int32_t replica_id;
    int8_t isolation_level; /* v2+; default 0 */
    const wire_list_offsets_topic *topics;
    int32_t topic_count;
    int32_t timeout_ms; /* v10+; default 0 */
} wire_list_offsets_request;

typedef struct wire_list_offsets_partition_response {
    int32_t partition_index;
    int16_t error_code;
    const int64_t *old_style_offsets; /* v0 only; default empty */
    int32_t old_style_offset_count;
    int64_t timestamp;    /* v1+; default -1 */
    int64_t offset;       /* v1+; default -1 */
    int32_t leader_epoch; /* v4+; default -1 */
} wire_list_offsets_partition_response;

typedef struct wire_list_offsets_topic_response {
    kq_slice name;
    const wire_list_offsets_partition_response *partitions;
    int32_t partition_count;
} wire_list_offsets_topic_response;

typedef struct wire_list_offsets_response {
    int32_t throttle_time_ms; /* v2+; default 0 */
    const wire_list_offsets_topic_response *topics;
    int32_t topic_count;
} wire_list_offsets_response;

int wire_list_offsets_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                     wire_list_offsets_request *out);
void wire_list_offsets_request_encode(kq_writer *w, int16_t version,
                                      const wire_list_offsets_request *in);
int wire_list_offsets_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                      wire_list_offsets_response *out);
void wire_list_offsets_response_encode(kq_writer *w, int16_t version,
                                       const wire_list_offsets_response *in);

#endif
