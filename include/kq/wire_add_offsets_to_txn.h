/* AddOffsetsToTxn (api key 25), versions 0-4; flexible from v3. A
 * transactional producer adds a group's offset commits to its transaction. */
#ifndef KQ_WIRE_ADD_OFFSETS_TO_TXN_H
#define KQ_WIRE_ADD_OFFSETS_TO_TXN_H

#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"

#define WIRE_ADD_OFFSETS_TO_TXN_MIN_VERSION 0
#define WIRE_ADD_OFFSETS_TO_TXN_MAX_VERSION 4
#define WIRE_ADD_OFFSETS_TO_TXN_FLEX_VERSION 3

#define WIRE_ADD_OFFSETS_TO_TXN_REQUEST(S) \
    WF(S, STRING, transactional_id, 0, WL) \
    WF(S, I64, producer_id, 0, WL)         \
    WF(S, I16, producer_epoch, 0, WL)      \
    WF(S, STRING, group_id, 0, WL)

#define WIRE_ADD_OFFSETS_TO_TXN_RESPONSE(S) \
    WF(S, I32, throttle_time_ms, 0, WL)     \
    WF(S, I16, error_code, 0, WL)

#define WIRE_ADD_OFFSETS_TO_TXN_STRUCTS(D, DI) \
    D(wire_add_offsets_to_txn_request, WIRE_ADD_OFFSETS_TO_TXN_REQUEST) \
    D(wire_add_offsets_to_txn_response, WIRE_ADD_OFFSETS_TO_TXN_RESPONSE)
WIRE_DECLARE_STRUCTS(WIRE_ADD_OFFSETS_TO_TXN_STRUCTS)
WIRE_API_FUNCS(wire_add_offsets_to_txn)

#endif
