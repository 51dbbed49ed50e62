/* DescribeTransactions (api key 65), version 0; flexible from v0 (KIP-664:
 * kafka-transactions.sh describe). One state per transactional id asked. */
#ifndef KQ_WIRE_DESCRIBE_TRANSACTIONS_H
#define KQ_WIRE_DESCRIBE_TRANSACTIONS_H

#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"

#define WIRE_DESCRIBE_TRANSACTIONS_MIN_VERSION 0
#define WIRE_DESCRIBE_TRANSACTIONS_MAX_VERSION 0
#define WIRE_DESCRIBE_TRANSACTIONS_FLEX_VERSION 0

#define WIRE_DESCRIBE_TRANSACTIONS_REQUEST(S) \
    WAK(S, STRING, transactional_ids, transactional_id_count, 0, WL)

#define WIRE_DESCRIBE_TRANSACTIONS_TOPIC(S) \
    WF(S, STRING, topic, 0, WL)             \
    WAK(S, I32, partitions, partition_count, 0, WL)

#define WIRE_DESCRIBE_TRANSACTIONS_STATE(S)       \
    WF(S, I16, error_code, 0, WL)                 \
    WF(S, STRING, transactional_id, 0, WL)        \
    WF(S, STRING, transaction_state, 0, WL)       \
    WF(S, I32, transaction_timeout_ms, 0, WL)     \
    WF(S, I64, transaction_start_time_ms, 0, WL)  \
    WF(S, I64, producer_id, 0, WL)                \
    WF(S, I16, producer_epoch, 0, WL)             \
    WA(S, wire_describe_transactions_topic, topics, topic_count, 0, WL)

#define WIRE_DESCRIBE_TRANSACTIONS_RESPONSE(S) \
    WF(S, I32, throttle_time_ms, 0, WL)        \
    WA(S, wire_describe_transactions_state, transaction_states, state_count, 0, WL)

#define WIRE_DESCRIBE_TRANSACTIONS_STRUCTS(D, DI) \
    D(wire_describe_transactions_request, WIRE_DESCRIBE_TRANSACTIONS_REQUEST) \
    D(wire_describe_transactions_topic, WIRE_DESCRIBE_TRANSACTIONS_TOPIC) \
    D(wire_describe_transactions_state, WIRE_DESCRIBE_TRANSACTIONS_STATE) \
    D(wire_describe_transactions_response, WIRE_DESCRIBE_TRANSACTIONS_RESPONSE)
WIRE_DECLARE_STRUCTS(WIRE_DESCRIBE_TRANSACTIONS_STRUCTS)
WIRE_API_FUNCS(wire_describe_transactions)

#endif
