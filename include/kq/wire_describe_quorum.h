/* DescribeQuorum (api key 55), versions 0-2, flexible in all versions.
 * Fields absent in a version get the default noted beside them on decode and
 * are not written on encode. */
#ifndef KQ_WIRE_DESCRIBE_QUORUM_H
#define KQ_WIRE_DESCRIBE_QUORUM_H

#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_raft_common.h"

#define WIRE_DESCRIBE_QUORUM_MIN_VERSION 0
#define WIRE_DESCRIBE_QUORUM_MAX_VERSION 2

typedef struct wire_describe_quorum_partition {
    int32_t partition_index;
} wire_describe_quorum_partition;

typedef struct wire_describe_quorum_topic {
    kq_slice topic_name;
    wire_describe_quorum_partition *partitions;
    int32_t partition_count;
} wire_describe_quorum_topic;

typedef struct wire_describe_quorum_request {
    wire_describe_quorum_topic *topics;
    int32_t topic_count;
} wire_describe_quorum_request;

typedef struct wire_describe_quorum_replica_state {
    int32_t replica_id;
    kq_uuid replica_directory_id;     /* v2+, else zero */
    int64_t log_end_offset;
    int64_t last_fetch_timestamp;     /* v1+, default -1 */
    int64_t last_caught_up_timestamp; /* v1+, default -1 */
} wire_describe_quorum_replica_state;

typedef struct wire_describe_quorum_partition_data {
    int32_t partition_index;
    int16_t error_code;
    kq_slice error_message; /* v2+, nullable; null when absent */
    int32_t leader_id;
    int32_t leader_epoch;
    int64_t high_watermark;
    wire_describe_quorum_replica_state *current_voters;
    int32_t current_voter_count;
    wire_describe_quorum_replica_state *observers;
    int32_t observer_count;
} wire_describe_quorum_partition_data;

typedef struct wire_describe_quorum_topic_data {
    kq_slice topic_name;
    wire_describe_quorum_partition_data *partitions;
    int32_t partition_count;
} wire_describe_quorum_topic_data;

typedef struct wire_describe_quorum_node {
    int32_t node_id;
    wire_raft_listener *listeners;
    int32_t listener_count;
} wire_describe_quorum_node;

typedef struct wire_describe_quorum_response {
    int16_t error_code;
    kq_slice error_message; /* v2+, nullable; null when absent */
    wire_describe_quorum_topic_data *topics;
    int32_t topic_count;
    wire_describe_quorum_node *nodes; /* v2+ */
    int32_t node_count;
} wire_describe_quorum_response;

/* Body after the header; decoders return 0 or -1 (malformed, truncated or
 * unsupported version). Encoders set w->error for an unsupported version. */
int wire_describe_quorum_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                        wire_describe_quorum_request *out);
void wire_describe_quorum_request_encode(kq_writer *w, int16_t version,
                                         const wire_describe_quorum_request *in);
int wire_describe_quorum_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                         wire_describe_quorum_response *out);
void wire_describe_quorum_response_encode(kq_writer *w, int16_t version,
                                          const wire_describe_quorum_response *in);

#endif
