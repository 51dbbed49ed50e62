/* InitProducerId (key 22) v0-5; flexible from v2. */
#ifndef KQ_WIRE_INIT_PRODUCER_ID_H
#define KQ_WIRE_INIT_PRODUCER_ID_H

#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"

#define WIRE_INIT_PRODUCER_ID_MIN_VERSION 0
#define WIRE_INIT_PRODUCER_ID_MAX_VERSION 5
#define WIRE_INIT_PRODUCER_ID_FLEX_VERSION 2

#define WIRE_INIT_PRODUCER_ID_REQUEST(S)                         \
    WF(S, STRING, transactional_id, 0, WL, WIRE_NULLABLE(0))     \
    WF(S, I32, transaction_timeout_ms, 0, WL)                    \
    WF(S, I64, producer_id, 3, WL, WIRE_DEFAULT(-1))             \
    WF(S, I16, producer_epoch, 3, WL, WIRE_DEFAULT(-1))

#define WIRE_INIT_PRODUCER_ID_RESPONSE(S)             \
    WF(S, I32, throttle_time_ms, 0, WL)               \
    WF(S, I16, error_code, 0, WL)                     \
    WF(S, I64, producer_id, 0, WL, WIRE_DEFAULT(-1))  \
    WF(S, I16, producer_epoch, 0, WL)

#define WIRE_INIT_PRODUCER_ID_STRUCTS(D, DI) \
    D(wire_init_producer_id_request, WIRE_INIT_PRODUCER_ID_REQUEST) \
    D(wire_init_producer_id_response, WIRE_INIT_PRODUCER_ID_RESPONSE)
WIRE_DECLARE_STRUCTS(WIRE_INIT_PRODUCER_ID_STRUCTS)
WIRE_API_FUNCS(wire_init_producer_id)

#endif
