/* Produce (key 0) v3-12; flexible from v9; v12 has the v11 layout. */
#ifndef KQ_WIRE_PRODUCE_H
#define KQ_WIRE_PRODUCE_H

#include <stdint.h>

#include "kq/buf.h"

typedef struct wire_produce_partition {
    int32_t index;
    kq_slice records; /* nullable; borrowed record batches */
} wire_produce_partition;

typedef struct wire_produce_topic {
    kq_slice name;
    const wire_produce_partition *partitions;
    int32_t partition_count;
} wire_produce_topic;

typedef struct wire_produce_request {
    kq_slice transactional_id; /* nullable */
    int16_t acks;
    int32_t timeout_ms;
    const wire_produce_topic *topics;
    int32_t topic_count;
} wire_produce_request;

typedef struct wire_produce_record_error {
    int32_t batch_index;
    kq_slice message; /* nullable */
} wire_produce_record_error;

typedef struct wire_produce_partition_response {
    int32_t index;
    int16_t error_code;
    int64_t base_offset;
    int64_t log_append_time_ms; /* -1 for CreateTime */
    int64_t log_start_offset;   /* v5+; default -1 */
    const wire_produce_record_error *record_errors; /* v8+; default empty */
    int32_t record_error_count;
    kq_slice error_message; /* v8+; nullable; default null */
    /* v10+ tagged field 0 CurrentLeader: encoded only when
     * current_leader_id >= 0; both default to -1 on decode. */
    int32_t current_leader_id;
    int32_t current_leader_epoch;
} wire_produce_partition_response;

typedef struct wire_produce_topic_response {
    kq_slice name;
    const wire_produce_partition_response *partitions;
    int32_t partition_count;
} wire_produce_topic_response;

typedef struct wire_produce_node_endpoint {
    int32_t node_id;
    kq_slice host;
    int32_t port;
    kq_slice rack; /* nullable */
} wire_produce_node_endpoint;

typedef struct wire_produce_response {
    const wire_produce_topic_response *topics;
    int32_t topic_count;
    int32_t throttle_time_ms;
    /* v10+ top-level tagged field 0; encoded only when the count > 0 */
    const wire_produce_node_endpoint *node_endpoints;
    int32_t node_endpoint_count;
} wire_produce_response;

int wire_produce_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                wire_produce_request *out);
void wire_produce_request_encode(kq_writer *w, int16_t version, const wire_produce_request *in);
int wire_produce_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                 wire_produce_response *out);
void wire_produce_response_encode(kq_writer *w, int16_t version,
                                  const wire_produce_response *in);

#endif
