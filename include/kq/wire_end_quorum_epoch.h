/* EndQuorumEpoch (api key 54), versions 0-1; flexible from v1. Fields
 * absent in a version are empty on decode and not written on encode. */
#ifndef KQ_WIRE_END_QUORUM_EPOCH_H
#define KQ_WIRE_END_QUORUM_EPOCH_H

#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_raft_common.h"

#define WIRE_END_QUORUM_EPOCH_MIN_VERSION 0
#define WIRE_END_QUORUM_EPOCH_MAX_VERSION 1

typedef struct wire_end_quorum_epoch_candidate {
    int32_t candidate_id;
    kq_uuid candidate_directory_id;
} wire_end_quorum_epoch_candidate;

typedef struct wire_end_quorum_epoch_partition {
    int32_t partition_index;
    int32_t leader_id;
    int32_t leader_epoch;
    int32_t *preferred_successors; /* v0 only */
    int32_t preferred_successor_count;
    wire_end_quorum_epoch_candidate *preferred_candidates; /* v1+ */
    int32_t preferred_candidate_count;
} wire_end_quorum_epoch_partition;

typedef struct wire_end_quorum_epoch_topic {
    kq_slice topic_name;
    wire_end_quorum_epoch_partition *partitions;
    int32_t partition_count;
} wire_end_quorum_epoch_topic;

typedef struct wire_end_quorum_epoch_request {
    kq_slice cluster_id; /* nullable */
    wire_end_quorum_epoch_topic *topics;
    int32_t topic_count;
    wire_raft_listener *leader_endpoints; /* v1+ */
    int32_t leader_endpoint_count;
} wire_end_quorum_epoch_request;

typedef struct wire_end_quorum_epoch_partition_result {
    int32_t partition_index;
    int16_t error_code;
    int32_t leader_id;
    int32_t leader_epoch;
} wire_end_quorum_epoch_partition_result;

typedef struct wire_end_quorum_epoch_topic_result {
    kq_slice topic_name;
    wire_end_quorum_epoch_partition_result *partitions;
    int32_t partition_count;
} wire_end_quorum_epoch_topic_result;

typedef struct wire_end_quorum_epoch_response {
    int16_t error_code;
    wire_end_quorum_epoch_topic_result *topics;
    int32_t topic_count;
    /* tag 0, v1+; written only when node_endpoint_count > 0 */
    wire_raft_node_endpoint *node_endpoints;
    int32_t node_endpoint_count;
} wire_end_quorum_epoch_response;

/* Body after the header; decoders return 0 or -1 (malformed, truncated or
 * unsupported version). Encoders set w->error for an unsupported version. */
int wire_end_quorum_epoch_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                         wire_end_quorum_epoch_request *out);
void wire_end_quorum_epoch_request_encode(kq_writer *w, int16_t version,
                                          const wire_end_quorum_epoch_request *in);
int wire_end_quorum_epoch_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                          wire_end_quorum_epoch_response *out);
void wire_end_quorum_epoch_response_encode(kq_writer *w, int16_t version,
                                           const wire_end_quorum_epoch_response *in);

#endif
