/* ListTransactions (api key 66), versions 0-2; flexible from v0 (KIP-664:
 * kafka-transactions.sh list). v1 adds a minimum duration filter (KIP-994),
 * v2 a transactional id pattern (KIP-1152). */
#ifndef KQ_WIRE_LIST_TRANSACTIONS_H
#define KQ_WIRE_LIST_TRANSACTIONS_H

#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"

#define WIRE_LIST_TRANSACTIONS_MIN_VERSION 0
#define WIRE_LIST_TRANSACTIONS_MAX_VERSION 2
#define WIRE_LIST_TRANSACTIONS_FLEX_VERSION 0

#define WIRE_LIST_TRANSACTIONS_REQUEST(S)                                    \
    WAK(S, STRING, state_filters, state_filter_count, 0, WL)                 \
    WAK(S, I64, producer_id_filters, producer_id_filter_count, 0, WL)        \
    WF(S, I64, duration_filter, 1, WL, WIRE_DEFAULT(-1))                     \
    WF(S, STRING, transactional_id_pattern, 2, WL, WIRE_NULLABLE(2))

#define WIRE_LIST_TRANSACTIONS_STATE(S)    \
    WF(S, STRING, transactional_id, 0, WL) \
    WF(S, I64, producer_id, 0, WL)         \
    WF(S, STRING, transaction_state, 0, WL)

#define WIRE_LIST_TRANSACTIONS_RESPONSE(S)                                   \
    WF(S, I32, throttle_time_ms, 0, WL)                                      \
    WF(S, I16, error_code, 0, WL)                                            \
    WAK(S, STRING, unknown_state_filters, unknown_state_filter_count, 0, WL) \
    WA(S, wire_list_transactions_state, transaction_states, state_count, 0, WL)

#define WIRE_LIST_TRANSACTIONS_STRUCTS(D, DI) \
    D(wire_list_transactions_request, WIRE_LIST_TRANSACTIONS_REQUEST) \
    D(wire_list_transactions_state, WIRE_LIST_TRANSACTIONS_STATE) \
    D(wire_list_transactions_response, WIRE_LIST_TRANSACTIONS_RESPONSE)
WIRE_DECLARE_STRUCTS(WIRE_LIST_TRANSACTIONS_STRUCTS)
WIRE_API_FUNCS(wire_list_transactions)

#endif
