/* Fetch (api key 1), versions 4-18; flexible from v12. Decoders borrow
 * strings, bytes and records from the input and take arrays from the arena. */
#ifndef KQ_WIRE_FETCH_H
#define KQ_WIRE_FETCH_H

#include <stdbool.h>
#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"

#define WIRE_FETCH_MIN_VERSION 4
#define WIRE_FETCH_MAX_VERSION 18
#define WIRE_FETCH_FLEX_VERSION 12

#define WIRE_METADATA_TOPIC_NAME "__cluster_metadata"
/* Uuid(0, 1): fifteen zero bytes then 0x01. */
extern const kq_uuid WIRE_METADATA_TOPIC_ID;

#define WIRE_FETCH_PARTITION(S)                                                     \
    WF(S, I32, partition, 0, WL)                                                    \
    WF(S, I32, current_leader_epoch, 9, WL, WIRE_DEFAULT(-1))                       \
    WF(S, I64, fetch_offset, 0, WL)                                                 \
    WF(S, I32, last_fetched_epoch, 12, WL, WIRE_DEFAULT(-1))                        \
    WF(S, I64, log_start_offset, 5, WL, WIRE_DEFAULT(-1))                           \
    WF(S, I32, partition_max_bytes, 0, WL)                                          \
    WF(S, UUID, replica_directory_id, 17, WL, WIRE_TAG(0, 17)) /* zero = unset */ \
    WFP(S, I64, high_watermark, has_high_watermark, 18, WL, WIRE_TAG(1, 18),        \
        WIRE_DEFAULT(INT64_MAX))

/* high_watermark (KIP-1166, v18+): the fetching replica's high watermark, -1
 * when it knows none; INT64_MAX (the default, also when absent or below v18)
 * when it does not take part. Written only when has_high_watermark is set, so
 * a zeroed partition (a consumer's) leaves it off. */

/* Topics are named up to v12 and identified by topic id from v13. */
#define WIRE_FETCH_TOPIC(S)          \
    WF(S, STRING, topic, 0, 12)      \
    WF(S, UUID, topic_id, 13, WL)    \
    WA(S, wire_fetch_partition, partitions, partition_count, 0, WL)

#define WIRE_FETCH_FORGOTTEN_TOPIC(S) \
    WF(S, STRING, topic, 7, 12)       \
    WF(S, UUID, topic_id, 13, WL)     \
    WAK(S, I32, partitions, partition_count, 7, WL)

/* ReplicaState (tag 1, v15+): its fields live flat in the request, where
 * replica_id is also the plain field of v0-14. Written only when either
 * differs from -1. */
#define WIRE_FETCH_REPLICA_STATE(S)                       \
    WF(S, I32, replica_id, 15, WL, WIRE_DEFAULT(-1))      \
    WF(S, I64, replica_epoch, 15, WL, WIRE_DEFAULT(-1))

#define WIRE_FETCH_REQUEST(S)                                                       \
    WF(S, STRING, cluster_id, 12, WL, WIRE_NULLABLE(12), WIRE_TAG(0, 12))           \
    WF(S, I32, replica_id, 0, 14, WIRE_DEFAULT(-1))                                 \
    WH(S, I64, replica_epoch)                                                       \
    WI(S, replica_state, 15, WL, WIRE_TAG(1, 15))                                   \
    WF(S, I32, max_wait_ms, 0, WL)                                                  \
    WF(S, I32, min_bytes, 0, WL)                                                    \
    WF(S, I32, max_bytes, 3, WL, WIRE_DEFAULT(0x7fffffff))                          \
    WF(S, I8, isolation_level, 4, WL)                                               \
    WF(S, I32, session_id, 7, WL)                                                   \
    WF(S, I32, session_epoch, 7, WL, WIRE_DEFAULT(-1))                              \
    WA(S, wire_fetch_topic, topics, topic_count, 0, WL)                             \
    WA(S, wire_fetch_forgotten_topic, forgotten_topics, forgotten_topic_count, 7, WL, \
       WIRE_KNAME("forgotten_topics_data"))                                         \
    WF(S, STRING, rack_id, 11, WL, WIRE_DEFAULT_EMPTY)

#define WIRE_FETCH_EPOCH_END_OFFSET(S)                  \
    WF(S, I32, epoch, 12, WL, WIRE_DEFAULT(-1))         \
    WF(S, I64, end_offset, 12, WL, WIRE_DEFAULT(-1))

#define WIRE_FETCH_LEADER_ID_AND_EPOCH(S)               \
    WF(S, I32, leader_id, 0, WL, WIRE_DEFAULT(-1))      \
    WF(S, I32, leader_epoch, 0, WL, WIRE_DEFAULT(-1))

#define WIRE_FETCH_SNAPSHOT_ID(S)                       \
    WF(S, I64, end_offset, 0, WL, WIRE_DEFAULT(-1))     \
    WF(S, I32, epoch, 0, WL, WIRE_DEFAULT(-1))

#define WIRE_FETCH_ABORTED_TRANSACTION(S) \
    WF(S, I64, producer_id, 4, WL)        \
    WF(S, I64, first_offset, 4, WL)

/* The tagged structs (v12+) are written only when their has_ flag is set;
 * on decode the flag says whether the tag was present. records: when
 * records_external_at is set (encode only), records.len bytes are left out
 * of the output (its length prefix is written) and *records_external_at
 * receives the output position where they belong: a streamed answer
 * (issue 19) sends them from the log there; records.ptr is not read. */
#define WIRE_FETCH_PARTITION_DATA(S)                                                \
    WF(S, I32, partition_index, 0, WL)                                              \
    WF(S, I16, error_code, 0, WL)                                                   \
    WF(S, I64, high_watermark, 0, WL)                                               \
    WF(S, I64, last_stable_offset, 4, WL, WIRE_DEFAULT(-1))                         \
    WF(S, I64, log_start_offset, 5, WL, WIRE_DEFAULT(-1))                           \
    WTP(S, wire_fetch_epoch_end_offset, diverging_epoch, has_diverging_epoch, 12, WL, \
        WIRE_TAG(0, 12))                                                            \
    WTP(S, wire_fetch_leader_id_and_epoch, current_leader, has_current_leader, 12, WL, \
        WIRE_TAG(1, 12))                                                            \
    WTP(S, wire_fetch_snapshot_id, snapshot_id, has_snapshot_id, 12, WL, WIRE_TAG(2, 12)) \
    WA(S, wire_fetch_aborted_transaction, aborted_transactions, aborted_transaction_count, \
       4, WL, WIRE_NULLABLE(4)) /* null: count -1 */                                \
    WF(S, I32, preferred_read_replica, 11, WL, WIRE_DEFAULT(-1))                    \
    WF(S, RECORDS_EXT, records, 0, WL, WIRE_NULLABLE(0))

#define WIRE_FETCH_TOPIC_RESPONSE(S) \
    WF(S, STRING, topic, 0, 12)      \
    WF(S, UUID, topic_id, 13, WL)    \
    WA(S, wire_fetch_partition_data, partitions, partition_count, 0, WL)

#define WIRE_FETCH_NODE_ENDPOINT(S) \
    WF(S, I32, node_id, 16, WL)     \
    WF(S, STRING, host, 16, WL)     \
    WF(S, I32, port, 16, WL)        \
    WF(S, STRING, rack, 16, WL, WIRE_NULLABLE(16))

#define WIRE_FETCH_RESPONSE(S)                                                      \
    WF(S, I32, throttle_time_ms, 1, WL)                                             \
    WF(S, I16, error_code, 7, WL)                                                   \
    WF(S, I32, session_id, 7, WL)                                                   \
    WA(S, wire_fetch_topic_response, responses, response_count, 0, WL)              \
    WA(S, wire_fetch_node_endpoint, node_endpoints, node_endpoint_count, 16, WL,    \
       WIRE_TAG(0, 16))

/* Decoders parse the body after the request/response header and return 0, or
 * -1 on malformed or truncated input or an unsupported version. Encoders set
 * w->error for an unsupported version. */
#define WIRE_FETCH_STRUCTS(D, DI) \
    D(wire_fetch_partition, WIRE_FETCH_PARTITION) \
    D(wire_fetch_topic, WIRE_FETCH_TOPIC) \
    D(wire_fetch_forgotten_topic, WIRE_FETCH_FORGOTTEN_TOPIC) \
    DI(wire_fetch_request, WIRE_FETCH_REPLICA_STATE, replica_state) \
    D(wire_fetch_request, WIRE_FETCH_REQUEST) \
    D(wire_fetch_epoch_end_offset, WIRE_FETCH_EPOCH_END_OFFSET) \
    D(wire_fetch_leader_id_and_epoch, WIRE_FETCH_LEADER_ID_AND_EPOCH) \
    D(wire_fetch_snapshot_id, WIRE_FETCH_SNAPSHOT_ID) \
    D(wire_fetch_aborted_transaction, WIRE_FETCH_ABORTED_TRANSACTION) \
    D(wire_fetch_partition_data, WIRE_FETCH_PARTITION_DATA) \
    D(wire_fetch_topic_response, WIRE_FETCH_TOPIC_RESPONSE) \
    D(wire_fetch_node_endpoint, WIRE_FETCH_NODE_ENDPOINT) \
    D(wire_fetch_response, WIRE_FETCH_RESPONSE)
WIRE_DECLARE_STRUCTS(WIRE_FETCH_STRUCTS)
WIRE_API_FUNCS(wire_fetch)

#endif
