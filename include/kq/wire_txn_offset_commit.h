/* TxnOffsetCommit (api key 28), versions 0-6; flexible from v3. A
 * transactional producer commits a group's offsets inside its transaction.
 * Topics are named up to v5 (null after) and identified by id from v6
 * (KIP-1319; zero before), as in OffsetCommit v10. Kafka 4.4.0 brokers
 * advertise v0-6. */
#ifndef KQ_WIRE_TXN_OFFSET_COMMIT_H
#define KQ_WIRE_TXN_OFFSET_COMMIT_H

#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"

#define WIRE_TXN_OFFSET_COMMIT_MIN_VERSION 0
#define WIRE_TXN_OFFSET_COMMIT_MAX_VERSION 6
#define WIRE_TXN_OFFSET_COMMIT_FLEX_VERSION 3

#define WIRE_TXN_OFFSET_COMMIT_PARTITION(S)                     \
    WF(S, I32, partition_index, 0, WL)                          \
    WF(S, I64, committed_offset, 0, WL)                         \
    WF(S, I32, committed_leader_epoch, 2, WL, WIRE_DEFAULT(-1)) \
    WF(S, STRING, committed_metadata, 0, WL, WIRE_NULLABLE(0))

#define WIRE_TXN_OFFSET_COMMIT_TOPIC(S) \
    WF(S, STRING, name, 0, 5)           \
    WF(S, UUID, topic_id, 6, WL)        \
    WA(S, wire_txn_offset_commit_partition, partitions, partition_count, 0, WL)

#define WIRE_TXN_OFFSET_COMMIT_REQUEST(S)                              \
    WF(S, STRING, transactional_id, 0, WL)                             \
    WF(S, STRING, group_id, 0, WL)                                     \
    WF(S, I64, producer_id, 0, WL)                                     \
    WF(S, I16, producer_epoch, 0, WL)                                  \
    WF(S, I32, generation_id_or_member_epoch, 3, WL, WIRE_DEFAULT(-1)) \
    WF(S, STRING, member_id, 3, WL, WIRE_DEFAULT_EMPTY)                \
    WF(S, STRING, group_instance_id, 3, WL, WIRE_NULLABLE(3))          \
    WA(S, wire_txn_offset_commit_topic, topics, topic_count, 0, WL)

#define WIRE_TXN_OFFSET_COMMIT_PARTITION_RESPONSE(S) \
    WF(S, I32, partition_index, 0, WL)               \
    WF(S, I16, error_code, 0, WL)

#define WIRE_TXN_OFFSET_COMMIT_TOPIC_RESPONSE(S) \
    WF(S, STRING, name, 0, 5)                    \
    WF(S, UUID, topic_id, 6, WL)                 \
    WA(S, wire_txn_offset_commit_partition_response, partitions, partition_count, 0, WL)

#define WIRE_TXN_OFFSET_COMMIT_RESPONSE(S) \
    WF(S, I32, throttle_time_ms, 0, WL)    \
    WA(S, wire_txn_offset_commit_topic_response, topics, topic_count, 0, WL)

#define WIRE_TXN_OFFSET_COMMIT_STRUCTS(D, DI) \
    D(wire_txn_offset_commit_partition, WIRE_TXN_OFFSET_COMMIT_PARTITION) \
    D(wire_txn_offset_commit_topic, WIRE_TXN_OFFSET_COMMIT_TOPIC) \
    D(wire_txn_offset_commit_request, WIRE_TXN_OFFSET_COMMIT_REQUEST) \
    D(wire_txn_offset_commit_partition_response, WIRE_TXN_OFFSET_COMMIT_PARTITION_RESPONSE) \
    D(wire_txn_offset_commit_topic_response, WIRE_TXN_OFFSET_COMMIT_TOPIC_RESPONSE) \
    D(wire_txn_offset_commit_response, WIRE_TXN_OFFSET_COMMIT_RESPONSE)
WIRE_DECLARE_STRUCTS(WIRE_TXN_OFFSET_COMMIT_STRUCTS)
WIRE_API_FUNCS(wire_txn_offset_commit)

#endif
