/* FetchSnapshot (api key 59, KIP-630), versions 0-1; flexible from v0. A
 * follower below the leader's log start fetches the leader's snapshot in
 * chunks with it. Decoders borrow strings and the chunk bytes from the input
 * and take arrays from the arena. Fields absent in a version get the default
 * noted beside them on decode and are not written on encode. */
#ifndef KQ_WIRE_FETCH_SNAPSHOT_H
#define KQ_WIRE_FETCH_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_fetch.h"
#include "kq/wire_raft_common.h"

#define WIRE_FETCH_SNAPSHOT_MIN_VERSION 0
#define WIRE_FETCH_SNAPSHOT_MAX_VERSION 1

typedef struct wire_fetch_snapshot_partition {
    int32_t partition;
    int32_t current_leader_epoch;
    wire_fetch_snapshot_id snapshot_id;
    int64_t position;             /* byte position in the snapshot */
    kq_uuid replica_directory_id; /* tag 0, v1+; all-zero = unset */
} wire_fetch_snapshot_partition;

typedef struct wire_fetch_snapshot_topic {
    kq_slice name;
    wire_fetch_snapshot_partition *partitions;
    int32_t partition_count;
} wire_fetch_snapshot_topic;

typedef struct wire_fetch_snapshot_request {
    kq_slice cluster_id; /* tag 0, nullable; null = unset (not written) */
    int32_t replica_id;
    int32_t max_bytes;
    wire_fetch_snapshot_topic *topics;
    int32_t topic_count;
} wire_fetch_snapshot_request;

typedef struct wire_fetch_snapshot_partition_data {
    int32_t index;
    int16_t error_code;
    wire_fetch_snapshot_id snapshot_id;
    /* tag 0: written only when the flag is set; on decode the flag says
     * whether the tag was present (values -1 otherwise). */
    bool has_current_leader;
    wire_fetch_leader_id_and_epoch current_leader;
    int64_t size;     /* of the whole snapshot */
    int64_t position; /* where the chunk starts */
    kq_slice unaligned_records; /* the chunk; never null on decode */
} wire_fetch_snapshot_partition_data;

typedef struct wire_fetch_snapshot_topic_response {
    kq_slice name;
    wire_fetch_snapshot_partition_data *partitions;
    int32_t partition_count;
} wire_fetch_snapshot_topic_response;

typedef struct wire_fetch_snapshot_response {
    int32_t throttle_time_ms;
    int16_t error_code;
    wire_fetch_snapshot_topic_response *topics;
    int32_t topic_count;
    /* tag 0, v1+; written only when node_endpoint_count > 0 */
    wire_raft_node_endpoint *node_endpoints;
    int32_t node_endpoint_count;
} wire_fetch_snapshot_response;

/* Body after the header; decoders return 0 or -1 (malformed, truncated or
 * unsupported version). Encoders set w->error for an unsupported version. */
int wire_fetch_snapshot_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                       wire_fetch_snapshot_request *out);
void wire_fetch_snapshot_request_encode(kq_writer *w, int16_t version,
                                        const wire_fetch_snapshot_request *in);
int wire_fetch_snapshot_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                        wire_fetch_snapshot_response *out);
void wire_fetch_snapshot_response_encode(kq_writer *w, int16_t version,
                                         const wire_fetch_snapshot_response *in);

#endif
