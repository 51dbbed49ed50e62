/* Vote (api key 52), versions 0-2, flexible in all versions. Fields absent
 * in a version get the default noted beside them on decode and are not
 * written on encode. v2 (Kafka 4.0, KIP-996) adds PreVote to each partition
 * after LastOffset; the response is unchanged from v1. */
#ifndef KQ_WIRE_VOTE_H
#define KQ_WIRE_VOTE_H

#include <stdbool.h>
#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_raft_common.h"

#define WIRE_VOTE_MIN_VERSION 0
#define WIRE_VOTE_MAX_VERSION 2

typedef struct wire_vote_partition {
    int32_t partition_index;
    int32_t candidate_epoch;
    int32_t candidate_id;
    kq_uuid candidate_directory_id; /* v1+, else zero */
    kq_uuid voter_directory_id;     /* v1+, else zero */
    int32_t last_offset_epoch;
    int64_t last_offset;
    bool pre_vote; /* v2+, else false */
} wire_vote_partition;

typedef struct wire_vote_topic {
    kq_slice topic_name;
    wire_vote_partition *partitions;
    int32_t partition_count;
} wire_vote_topic;

typedef struct wire_vote_request {
    kq_slice cluster_id; /* nullable */
    int32_t voter_id;    /* v1+, default -1 */
    wire_vote_topic *topics;
    int32_t topic_count;
} wire_vote_request;

typedef struct wire_vote_partition_result {
    int32_t partition_index;
    int16_t error_code;
    int32_t leader_id;
    int32_t leader_epoch;
    bool vote_granted;
} wire_vote_partition_result;

typedef struct wire_vote_topic_result {
    kq_slice topic_name;
    wire_vote_partition_result *partitions;
    int32_t partition_count;
} wire_vote_topic_result;

typedef struct wire_vote_response {
    int16_t error_code;
    wire_vote_topic_result *topics;
    int32_t topic_count;
    /* tag 0, v1+; written only when node_endpoint_count > 0 */
    wire_raft_node_endpoint *node_endpoints;
    int32_t node_endpoint_count;
} wire_vote_response;

/* Body after the header; decoders return 0 or -1 (malformed, truncated or
 * unsupported version). Encoders set w->error for an unsupported version. */
int wire_vote_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                             wire_vote_request *out);
void wire_vote_request_encode(kq_writer *w, int16_t version, const wire_vote_request *in);
int wire_vote_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                              wire_vote_response *out);
void wire_vote_response_encode(kq_writer *w, int16_t version, const wire_vote_response *in);

#endif
