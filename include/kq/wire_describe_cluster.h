/* DescribeCluster (api key 60), versions 0-1, flexible in all versions.
 * Fields absent in a version get the default noted beside them on decode and
 * are not written on encode. */
#ifndef KQ_WIRE_DESCRIBE_CLUSTER_H
#define KQ_WIRE_DESCRIBE_CLUSTER_H

#include <stdbool.h>
#include <stdint.h>

#include "kq/buf.h"

#define WIRE_DESCRIBE_CLUSTER_MIN_VERSION 0
#define WIRE_DESCRIBE_CLUSTER_MAX_VERSION 1

typedef struct wire_describe_cluster_request {
    bool include_cluster_authorized_operations;
    int8_t endpoint_type; /* v1+, default 1 (brokers) */
} wire_describe_cluster_request;

typedef struct wire_describe_cluster_broker {
    int32_t broker_id;
    kq_slice host;
    int32_t port;
    kq_slice rack; /* nullable */
} wire_describe_cluster_broker;

typedef struct wire_describe_cluster_response {
    int32_t throttle_time_ms;
    int16_t error_code;
    kq_slice error_message; /* nullable */
    int8_t endpoint_type;   /* v1+, default 1 */
    kq_slice cluster_id;
    int32_t controller_id;
    wire_describe_cluster_broker *brokers;
    int32_t broker_count;
    int32_t cluster_authorized_operations;
} wire_describe_cluster_response;

/* Body after the header; decoders return 0 or -1 (malformed, truncated or
 * unsupported version). Encoders set w->error for an unsupported version. */
int wire_describe_cluster_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                         wire_describe_cluster_request *out);
void wire_describe_cluster_request_encode(kq_writer *w, int16_t version,
                                          const wire_describe_cluster_request *in);
int wire_describe_cluster_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                          wire_describe_cluster_response *out);
void wire_describe_cluster_response_encode(kq_writer *w, int16_t version,
                                           const wire_describe_cluster_response *in);

#endif
