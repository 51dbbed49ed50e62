/* InitProducerId (key 22) v0-5; flexible from v2. */
#ifndef KQ_WIRE_INIT_PRODUCER_ID_H
#define KQ_WIRE_INIT_PRODUCER_ID_H

#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"

#define WIRE_INIT_PRODUCER_ID_MIN_VERSION 0
#define WIRE_INIT_PRODUCER_ID_MAX_VERSION 5

#define WIRE_INIT_PRODUCER_ID_REQUEST(S)                         \
    WF(S, STRING, transactional_id, 0, WL, WIRE_NULLABLE(0))     \
    WF(S, I32, transaction_timeout_ms, 0, WL)                    \
    WF(S, I64, producer_id, 3, WL, WIRE_DEFAULT(-1))             \
    WF(S, I16, producer_epoch, 3, WL, WIRE_DEFAULT(-1))
WIRE_STRUCT(wire_init_producer_id_request, WIRE_INIT_PRODUCER_ID_REQUEST)

#define WIRE_INIT_PRODUCER_ID_RESPONSE(S)             \
    WF(S, I32, throttle_time_ms, 0, WL)               \
    WF(S, I16, error_code, 0, WL)                     \
    WF(S, I64, producer_id, 0, WL, WIRE_DEFAULT(-1))  \
    WF(S, I16, producer_epoch, 0, WL)
WIRE_STRUCT(wire_init_producer_id_response, WIRE_INIT_PRODUCER_ID_RESPONSE)

/* Body after the header; decoders return 0 or -1 (malformed, truncated or
 * unsupported version). Encoders set w->error for an unsupported version. */
int wire_init_producer_id_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                         wire_init_producer_id_request *out);
void wire_init_producer_id_request_encode(kq_writer *w, int16_t version,
                                          const wire_init_producer_id_request *in);
int wire_init_producer_id_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                          wire_init_producer_id_response *out);
void wire_init_producer_id_response_encode(kq_writer *w, int16_t version,
                                           const wire_init_producer_id_response *in);

#endif
