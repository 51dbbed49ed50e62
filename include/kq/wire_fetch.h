/* Fetch (api key 1), versions 4-17; flexible from v12. Decoders borrow
 * strings, bytes and records from the input and take arrays from the arena.
 * Fields absent in a version get the default noted beside them on decode and
 * are not written on encode. */
#ifndef KQ_WIRE_FETCH_H
#define KQ_WIRE_FETCH_H

#include <stdbool.h>
#include <stdint.h>

#include "kq/buf.h"

#define WIRE_FETCH_MIN_VERSION 4
#define WIRE_FETCH_MAX_VERSION 17

#define WIRE_METADATA_TOPIC_NAME "__cluster_metadata"
/* Uuid(0, 1): fifteen zero bytes then 0x01. */
extern const kq_uuid WIRE_METADATA_TOPIC_ID;

typedef struct wire_fetch_partition {
    int32_t partition;
    int32_t current_leader_epoch; /* v9+, default -1 */
    int64_t fetch_offset;
    int32_t last_fetched_epoch;   /* v12+, default -1 */
    int64_t log_start_offset;     /* v5+, default -1 */
    int32_t partition_max_bytes;
    kq_uuid replica_directory_id; /* tag 0, v17+; all-zero = unset */
} wire_fetch_partition;

typedef struct wire_fetch_topic {
    kq_slice topic;   /* v4-12, else null */
    kq_uuid topic_id; /* v13+, else zero */
    wire_fetch_partition *partitions;
    int32_t partition_count;
} wire_fetch_topic;

typedef struct wire_fetch_forgotten_topic {
    kq_slice topic;   /* v7-12, else null */
    kq_uuid topic_id; /* v13+, else zero */
    int32_t *partitions;
    int32_t partition_count;
} wire_fetch_forgotten_topic;

typedef struct wire_fetch_request {
    kq_slice cluster_id;   /* tag 0, v12+, nullable; null = unset */
    /* A plain field up to v14; from v15 inside ReplicaState (tag 1), which is
     * written only when replica_id or replica_epoch differs from -1. */
    int32_t replica_id;    /* default -1 */
    int64_t replica_epoch; /* v15+, default -1 */
    int32_t max_wait_ms;
    int32_t min_bytes;
    int32_t max_bytes;      /* v3+, default 0x7fffffff */
    int8_t isolation_level; /* v4+, default 0 */
    int32_t session_id;     /* v7+, default 0 */
    int32_t session_epoch;  /* v7+, default -1 */
    wire_fetch_topic *topics;
    int32_t topic_count;
    wire_fetch_forgotten_topic *forgotten_topics; /* v7+ */
    int32_t forgotten_topic_count;
    kq_slice rack_id; /* v11+, default "" */
} wire_fetch_request;

typedef struct wire_fetch_epoch_end_offset {
    int32_t epoch;      /* default -1 */
    int64_t end_offset; /* default -1 */
} wire_fetch_epoch_end_offset;

typedef struct wire_fetch_leader_id_and_epoch {
    int32_t leader_id;    /* default -1 */
    int32_t leader_epoch; /* default -1 */
} wire_fetch_leader_id_and_epoch;

typedef struct wire_fetch_snapshot_id {
    int64_t end_offset; /* default -1 */
    int32_t epoch;      /* default -1 */
} wire_fetch_snapshot_id;

typedef struct wire_fetch_aborted_transaction {
    int64_t producer_id;
    int64_t first_offset;
} wire_fetch_aborted_transaction;

typedef struct wire_fetch_partition_data {
    int32_t partition_index;
    int16_t error_code;
    int64_t high_watermark;
    int64_t last_stable_offset; /* v4+, default -1 */
    int64_t log_start_offset;   /* v5+, default -1 */
    /* Tagged (v12+): written only when the has_ flag is set; on decode the
     * flag says whether the tag was present (values default -1 otherwise). */
    bool has_diverging_epoch; /* tag 0 */
    wire_fetch_epoch_end_offset diverging_epoch;
    bool has_current_leader; /* tag 1 */
    wire_fetch_leader_id_and_epoch current_leader;
    bool has_snapshot_id; /* tag 2 */
    wire_fetch_snapshot_id snapshot_id;
    wire_fetch_aborted_transaction *aborted_transactions; /* v4+, nullable */
    int32_t aborted_transaction_count;                   /* -1 = null */
    int32_t preferred_read_replica;                      /* v11+, default -1 */
    kq_slice records; /* nullable; written as-is */
    /* Encode only: when set, records.len bytes are left out of the output
     * (its length prefix is written) and *records_external_at receives the
     * output position where they belong: a streamed answer (issue 19) sends
     * them from the log there. records.ptr is not read. */
    size_t *records_external_at;
} wire_fetch_partition_data;

typedef struct wire_fetch_topic_response {
    kq_slice topic;   /* v4-12, else null */
    kq_uuid topic_id; /* v13+, else zero */
    wire_fetch_partition_data *partitions;
    int32_t partition_count;
} wire_fetch_topic_response;

typedef struct wire_fetch_node_endpoint {
    int32_t node_id;
    kq_slice host;
    int32_t port;
    kq_slice rack; /* nullable */
} wire_fetch_node_endpoint;

typedef struct wire_fetch_response {
    int32_t throttle_time_ms; /* v1+ */
    int16_t error_code;       /* v7+, default 0 */
    int32_t session_id;       /* v7+, default 0 */
    wire_fetch_topic_response *responses;
    int32_t response_count;
    /* tag 0, v16+; written only when node_endpoint_count > 0 */
    wire_fetch_node_endpoint *node_endpoints;
    int32_t node_endpoint_count;
} wire_fetch_response;

/* Decoders parse the body after the request/response header and return 0, or
 * -1 on malformed or truncated input or an unsupported version. Encoders set
 * w->error for an unsupported version. */
int wire_fetch_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                              wire_fetch_request *out);
void wire_fetch_request_encode(kq_writer *w, int16_t version, const wire_fetch_request *in);
int wire_fetch_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                               wire_fetch_response *out);
void wire_fetch_response_encode(kq_writer *w, int16_t version, const wire_fetch_response *in);

#endif
