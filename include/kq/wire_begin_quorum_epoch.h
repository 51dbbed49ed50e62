/* BeginQuorumEpoch (api key 53), versions 0-1; flexible from v1. Fields
 * absent in a version get the default noted beside them on decode and are
 * not written on encode. */
#ifndef KQ_WIRE_BEGIN_QUORUM_EPOCH_H
#define KQ_WIRE_BEGIN_QUORUM_EPOCH_H

#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_raft_common.h"

#define WIRE_BEGIN_QUORUM_EPOCH_MIN_VERSION 0
#define WIRE_BEGIN_QUORUM_EPOCH_MAX_VERSION 1

typedef struct wire_begin_quorum_epoch_partition {
    int32_t partition_index;
    kq_uuid voter_directory_id; /* v1+, else zero */
    int32_t leader_id;
    int32_t leader_epoch;
} wire_begin_quorum_epoch_partition;

typedef struct wire_begin_quorum_epoch_topic {
    kq_slice topic_name;
    wire_begin_quorum_epoch_partition *partitions;
    int32_t partition_count;
} wire_begin_quorum_epoch_topic;

typedef struct wire_begin_quorum_epoch_request {
    kq_slice cluster_id; /* nullable */
    int32_t voter_id;    /* v1+, default -1 */
    wire_begin_quorum_epoch_topic *topics;
    int32_t topic_count;
    wire_raft_listener *leader_endpoints; /* v1+ */
    int32_t leader_endpoint_count;
} wire_begin_quorum_epoch_request;

typedef struct wire_begin_quorum_epoch_partition_result {
    int32_t partition_index;
    int16_t error_code;
    int32_t leader_id;
    int32_t leader_epoch;
} wire_begin_quorum_epoch_partition_result;

typedef struct wire_begin_quorum_epoch_topic_result {
    kq_slice topic_name;
    wire_begin_quorum_epoch_partition_result *partitions;
    int32_t partition_count;
} wire_begin_quorum_epoch_topic_result;

typedef struct wire_begin_quorum_epoch_response {
    int16_t error_code;
    wire_begin_quorum_epoch_topic_result *topics;
    int32_t topic_count;
    /* tag 0, v1+; written only when node_endpoint_count > 0 */
    wire_raft_node_endpoint *node_endpoints;
    int32_t node_endpoint_count;
} wire_begin_quorum_epoch_response;

/* Body after the header; decoders return 0 or -1 (malformed, truncated or
 * unsupported version). Encoders set w->error for an unsupported version. */
int wire_begin_quorum_epoch_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                           wire_begin_quorum_epoch_request *out);
void wire_begin_quorum_epoch_request_encode(kq_writer *w, int16_t version,
                                            const wire_begin_quorum_epoch_request *in);
int wire_begin_quorum_epoch_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                            wire_begin_quorum_epoch_response *out);
void wire_begin_quorum_epoch_response_encode(kq_writer *w, int16_t version,
                                             const wire_begin_quorum_epoch_response *in);

#endif
