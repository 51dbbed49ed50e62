/* AddPartitionsToTxn (api key 24), versions 0-5; flexible from v3. A
 * transactional producer names the partitions it is about to write to.
 * v0-3 carry one transaction (the v3_and_below_* fields, a client's form);
 * v4+ batch transactions with VerifyOnly (KIP-890, a broker's form) and add
 * a top-level error code to the answer. */
#ifndef KQ_WIRE_ADD_PARTITIONS_TO_TXN_H
#define KQ_WIRE_ADD_PARTITIONS_TO_TXN_H

#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"

#define WIRE_ADD_PARTITIONS_TO_TXN_MIN_VERSION 0
#define WIRE_ADD_PARTITIONS_TO_TXN_MAX_VERSION 5
#define WIRE_ADD_PARTITIONS_TO_TXN_FLEX_VERSION 3

#define WIRE_ADD_PARTITIONS_TO_TXN_TOPIC(S) \
    WF(S, STRING, name, 0, WL)              \
    WAK(S, I32, partitions, partition_count, 0, WL)

#define WIRE_ADD_PARTITIONS_TO_TXN_TRANSACTION(S) \
    WF(S, STRING, transactional_id, 4, WL)        \
    WF(S, I64, producer_id, 4, WL)                \
    WF(S, I16, producer_epoch, 4, WL)             \
    WF(S, BOOL, verify_only, 4, WL)               \
    WA(S, wire_add_partitions_to_txn_topic, topics, topic_count, 4, WL)

#define WIRE_ADD_PARTITIONS_TO_TXN_REQUEST(S)                                          \
    WA(S, wire_add_partitions_to_txn_transaction, transactions, transaction_count, 4, WL) \
    WF(S, STRING, v3_and_below_transactional_id, 0, 3)                                  \
    WF(S, I64, v3_and_below_producer_id, 0, 3)                                          \
    WF(S, I16, v3_and_below_producer_epoch, 0, 3)                                       \
    WA(S, wire_add_partitions_to_txn_topic, v3_and_below_topics, v3_and_below_topic_count, \
       0, 3)

#define WIRE_ADD_PARTITIONS_TO_TXN_PARTITION_RESULT(S) \
    WF(S, I32, partition_index, 0, WL)                 \
    WF(S, I16, partition_error_code, 0, WL)

#define WIRE_ADD_PARTITIONS_TO_TXN_TOPIC_RESULT(S) \
    WF(S, STRING, name, 0, WL)                     \
    WA(S, wire_add_partitions_to_txn_partition_result, results_by_partition, \
       partition_count, 0, WL)

#define WIRE_ADD_PARTITIONS_TO_TXN_RESULT(S) \
    WF(S, STRING, transactional_id, 4, WL)   \
    WA(S, wire_add_partitions_to_txn_topic_result, topic_results, topic_count, 4, WL)

#define WIRE_ADD_PARTITIONS_TO_TXN_RESPONSE(S)                                             \
    WF(S, I32, throttle_time_ms, 0, WL)                                                    \
    WF(S, I16, error_code, 4, WL)                                                          \
    WA(S, wire_add_partitions_to_txn_result, results_by_transaction, result_count, 4, WL)  \
    WA(S, wire_add_partitions_to_txn_topic_result, results_by_topic_v3_and_below,          \
       v3_and_below_topic_count, 0, 3)

#define WIRE_ADD_PARTITIONS_TO_TXN_STRUCTS(D, DI) \
    D(wire_add_partitions_to_txn_topic, WIRE_ADD_PARTITIONS_TO_TXN_TOPIC) \
    D(wire_add_partitions_to_txn_transaction, WIRE_ADD_PARTITIONS_TO_TXN_TRANSACTION) \
    D(wire_add_partitions_to_txn_request, WIRE_ADD_PARTITIONS_TO_TXN_REQUEST) \
    D(wire_add_partitions_to_txn_partition_result, WIRE_ADD_PARTITIONS_TO_TXN_PARTITION_RESULT) \
    D(wire_add_partitions_to_txn_topic_result, WIRE_ADD_PARTITIONS_TO_TXN_TOPIC_RESULT) \
    D(wire_add_partitions_to_txn_result, WIRE_ADD_PARTITIONS_TO_TXN_RESULT) \
    D(wire_add_partitions_to_txn_response, WIRE_ADD_PARTITIONS_TO_TXN_RESPONSE)
WIRE_DECLARE_STRUCTS(WIRE_ADD_PARTITIONS_TO_TXN_STRUCTS)
WIRE_API_FUNCS(wire_add_partitions_to_txn)

#endif
