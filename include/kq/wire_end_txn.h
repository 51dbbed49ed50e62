/* EndTxn (api key 26), versions 0-5; flexible from v3. A transactional
 * producer commits or aborts; from v5 the answer carries the producer id and
 * epoch, bumped on every transaction (KIP-890 part 2). */
#ifndef KQ_WIRE_END_TXN_H
#define KQ_WIRE_END_TXN_H

#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"

#define WIRE_END_TXN_MIN_VERSION 0
#define WIRE_END_TXN_MAX_VERSION 5
#define WIRE_END_TXN_FLEX_VERSION 3

#define WIRE_END_TXN_REQUEST(S)            \
    WF(S, STRING, transactional_id, 0, WL) \
    WF(S, I64, producer_id, 0, WL)         \
    WF(S, I16, producer_epoch, 0, WL)      \
    WF(S, BOOL, committed, 0, WL)

#define WIRE_END_TXN_RESPONSE(S)                     \
    WF(S, I32, throttle_time_ms, 0, WL)              \
    WF(S, I16, error_code, 0, WL)                    \
    WF(S, I64, producer_id, 5, WL, WIRE_DEFAULT(-1)) \
    WF(S, I16, producer_epoch, 5, WL, WIRE_DEFAULT(-1))

#define WIRE_END_TXN_STRUCTS(D, DI) \
    D(wire_end_txn_request, WIRE_END_TXN_REQUEST) \
    D(wire_end_txn_response, WIRE_END_TXN_RESPONSE)
WIRE_DECLARE_STRUCTS(WIRE_END_TXN_STRUCTS)
WIRE_API_FUNCS(wire_end_txn)

#endif
