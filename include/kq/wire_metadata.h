/* Metadata (key 3) v0-12; flexible from v9. */
#ifndef KQ_WIRE_METADATA_H
#define KQ_WIRE_METADATA_H

#include <stdbool.h>
#include <stdint.h>

#include "kq/buf.h"

typedef struct wire_metadata_request_topic {
    kq_uuid topic_id; /* v10+; default zero */
    kq_slice name;    /* nullable from v10 */
} wire_metadata_request_topic;

typedef struct wire_metadata_request {
    /* topic_count -1 (null, v1+) means all topics; in v0 an empty array
     * means all topics (encode writes -1 as an empty array at v0). Use
     * wire_metadata_request_all_topics. */
    const wire_metadata_request_topic *topics;
    int32_t topic_count;
    bool allow_auto_topic_creation;            /* v4+; default true */
    bool include_cluster_authorized_operations; /* v8-10; default false */
    bool include_topic_authorized_operations;   /* v8+; default false */
} wire_metadata_request;

/* True when the request asks for every topic (null array, or empty at v0). */
bool wire_metadata_request_all_topics(const wire_metadata_request *req, int16_t version);

typedef struct wire_metadata_broker {
    int32_t node_id;
    kq_slice host;
    int32_t port;
    kq_slice rack; /* v1+; nullable; default null */
} wire_metadata_broker;

typedef struct wire_metadata_partition {
    int16_t error_code;
    int32_t partition_index;
    int32_t leader_id;
    int32_t leader_epoch; /* v7+; default -1 */
    const int32_t *replica_nodes;
    int32_t replica_node_count;
    const int32_t *isr_nodes;
    int32_t isr_node_count;
    const int32_t *offline_replicas; /* v5+; default empty */
    int32_t offline_replica_count;
} wire_metadata_partition;

typedef struct wire_metadata_topic {
    int16_t error_code;
    kq_slice name;     /* nullable from v12 */
    kq_uuid topic_id;  /* v10+; default zero */
    bool is_internal;  /* v1+; default false */
    const wire_metadata_partition *partitions;
    int32_t partition_count;
    int32_t topic_authorized_operations; /* v8+; default INT32_MIN */
} wire_metadata_topic;

typedef struct wire_metadata_response {
    int32_t throttle_time_ms; /* v3+; default 0 */
    const wire_metadata_broker *brokers;
    int32_t broker_count;
    kq_slice cluster_id;   /* v2+; nullable; default null */
    int32_t controller_id; /* v1+; default -1 */
    const wire_metadata_topic *topics;
    int32_t topic_count;
    int32_t cluster_authorized_operations; /* v8-10; default INT32_MIN */
} wire_metadata_response;

int wire_metadata_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                 wire_metadata_request *out);
void wire_metadata_request_encode(kq_writer *w, int16_t version, const wire_metadata_request *in);
int wire_metadata_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                  wire_metadata_response *out);
void wire_metadata_response_encode(kq_writer *w, int16_t version,
                                   const wire_metadata_response *in);

#endif
