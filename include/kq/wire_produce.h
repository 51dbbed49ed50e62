/* Produce (key 0) v3-12; flexible from v9; v12 has the v11 layout. */
#ifndef KQ_WIRE_PRODUCE_H
#define KQ_WIRE_PRODUCE_H

#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"

#define WIRE_PRODUCE_MIN_VERSION 3
#define WIRE_PRODUCE_MAX_VERSION 12
#define WIRE_PRODUCE_FLEX_VERSION 9

#define WIRE_PRODUCE_PARTITION(S)     \
    WF(S, I32, index, 0, WL)          \
    WF(S, RECORDS, records, 0, WL, WIRE_NULLABLE(0)) /* borrowed record batches */

#define WIRE_PRODUCE_TOPIC(S)    \
    WF(S, STRING, name, 0, 12)   \
    WAC(S, wire_produce_partition, partitions, partition_count, 0, WL,                \
       WIRE_KNAME("partition_data"))

#define WIRE_PRODUCE_REQUEST(S)                                                      \
    WF(S, STRING, transactional_id, 3, WL, WIRE_NULLABLE(3))                         \
    WF(S, I16, acks, 0, WL)                                                          \
    WF(S, I32, timeout_ms, 0, WL)                                                    \
    WAC(S, wire_produce_topic, topics, topic_count, 0, WL, WIRE_KNAME("topic_data"))

#define WIRE_PRODUCE_RECORD_ERROR(S) \
    WF(S, I32, batch_index, 8, WL)   \
    WF(S, STRING, message, 8, WL, WIRE_NULLABLE(8), WIRE_KNAME("batch_index_error_message"))

/* CurrentLeader (tag 0, v10+), a struct whose fields live flat in the
 * partition response: written only when either differs from -1. */
#define WIRE_PRODUCE_CURRENT_LEADER(S)                                              \
    WF(S, I32, current_leader_id, 10, WL, WIRE_DEFAULT(-1), WIRE_KNAME("leader_id")) \
    WF(S, I32, current_leader_epoch, 10, WL, WIRE_DEFAULT(-1), WIRE_KNAME("leader_epoch"))

#define WIRE_PRODUCE_PARTITION_RESPONSE(S)                                          \
    WF(S, I32, index, 0, WL)                                                        \
    WF(S, I16, error_code, 0, WL)                                                   \
    WF(S, I64, base_offset, 0, WL)                                                  \
    WF(S, I64, log_append_time_ms, 2, WL, WIRE_DEFAULT(-1)) /* -1 for CreateTime */  \
    WF(S, I64, log_start_offset, 5, WL, WIRE_DEFAULT(-1))                           \
    WAC(S, wire_produce_record_error, record_errors, record_error_count, 8, WL)      \
    WF(S, STRING, error_message, 8, WL, WIRE_NULLABLE(8))                           \
    WH(S, I32, current_leader_id)                                                   \
    WH(S, I32, current_leader_epoch)                                                \
    WI(S, current_leader, 10, WL, WIRE_TAG(0, 10))

#define WIRE_PRODUCE_TOPIC_RESPONSE(S) \
    WF(S, STRING, name, 0, 12)         \
    WAC(S, wire_produce_partition_response, partitions, partition_count, 0, WL,      \
       WIRE_KNAME("partition_responses"))

#define WIRE_PRODUCE_NODE_ENDPOINT(S) \
    WF(S, I32, node_id, 10, WL)       \
    WF(S, STRING, host, 10, WL)       \
    WF(S, I32, port, 10, WL)          \
    WF(S, STRING, rack, 10, WL, WIRE_NULLABLE(10))

#define WIRE_PRODUCE_RESPONSE(S)                                                    \
    WAC(S, wire_produce_topic_response, topics, topic_count, 0, WL,                  \
       WIRE_KNAME("responses"))                                                     \
    WF(S, I32, throttle_time_ms, 1, WL)                                             \
    WAC(S, wire_produce_node_endpoint, node_endpoints, node_endpoint_count, 10, WL,  \
       WIRE_TAG(0, 10))

#define WIRE_PRODUCE_STRUCTS(D, DI) \
    D(wire_produce_partition, WIRE_PRODUCE_PARTITION) \
    D(wire_produce_topic, WIRE_PRODUCE_TOPIC) \
    D(wire_produce_request, WIRE_PRODUCE_REQUEST) \
    D(wire_produce_record_error, WIRE_PRODUCE_RECORD_ERROR) \
    DI(wire_produce_partition_response, WIRE_PRODUCE_CURRENT_LEADER, current_leader) \
    D(wire_produce_partition_response, WIRE_PRODUCE_PARTITION_RESPONSE) \
    D(wire_produce_topic_response, WIRE_PRODUCE_TOPIC_RESPONSE) \
    D(wire_produce_node_endpoint, WIRE_PRODUCE_NODE_ENDPOINT) \
    D(wire_produce_response, WIRE_PRODUCE_RESPONSE)
WIRE_DECLARE_STRUCTS(WIRE_PRODUCE_STRUCTS)
WIRE_API_FUNCS(wire_produce)

#endif
