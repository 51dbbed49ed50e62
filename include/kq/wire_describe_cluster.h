/* DescribeCluster (api key 60), versions 0-1, flexible in all versions.
 * Fields absent in a version get the default noted beside them on decode and
 * are not written on encode. */
#ifndef KQ_WIRE_DESCRIBE_CLUSTER_H
#define KQ_WIRE_DESCRIBE_CLUSTER_H

#include <stdbool.h>
#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"

#define WIRE_DESCRIBE_CLUSTER_MIN_VERSION 0
#define WIRE_DESCRIBE_CLUSTER_MAX_VERSION 1
#define WIRE_DESCRIBE_CLUSTER_FLEX_VERSION 0

#define WIRE_DC_REQUEST(S)                                     \
    WF(S, BOOL, include_cluster_authorized_operations, 0, WL)  \
    WF(S, I8, endpoint_type, 1, WL, WIRE_DEFAULT(1))

#define WIRE_DC_BROKER(S)          \
    WF(S, I32, broker_id, 0, WL)   \
    WF(S, STRING, host, 0, WL)     \
    WF(S, I32, port, 0, WL)        \
    WF(S, STRING, rack, 0, WL, WIRE_NULLABLE(0))

#define WIRE_DC_RESPONSE(S)                                                     \
    WF(S, I32, throttle_time_ms, 0, WL)                                         \
    WF(S, I16, error_code, 0, WL)                                               \
    WF(S, STRING, error_message, 0, WL, WIRE_NULLABLE(0))                       \
    WF(S, I8, endpoint_type, 1, WL, WIRE_DEFAULT(1))                            \
    WF(S, STRING, cluster_id, 0, WL)                                            \
    WF(S, I32, controller_id, 0, WL, WIRE_DEFAULT(-1))                          \
    WA(S, wire_describe_cluster_broker, brokers, broker_count, 0, WL)           \
    WF(S, I32, cluster_authorized_operations, 0, WL, WIRE_DEFAULT(INT32_MIN))

#define WIRE_DESCRIBE_CLUSTER_STRUCTS(D, DI) \
    D(wire_describe_cluster_request, WIRE_DC_REQUEST) \
    D(wire_describe_cluster_broker, WIRE_DC_BROKER) \
    D(wire_describe_cluster_response, WIRE_DC_RESPONSE)
WIRE_DECLARE_STRUCTS(WIRE_DESCRIBE_CLUSTER_STRUCTS)
WIRE_API_FUNCS(wire_describe_cluster)

#endif
