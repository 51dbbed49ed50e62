/* InitProducerId (key 22) v0-5; flexible from v2. */
#ifndef KQ_WIRE_INIT_PRODUCER_ID_H
#define KQ_WIRE_INIT_PRODUCER_ID_H

#include <stdint.h>

#include "kq/buf.h"

typedef struct wire_init_producer_id_request {
    kq_slice transactional_id; /* nullable */
    int32_t transaction_timeout_ms;
    int64_t producer_id;    /* v3+; default -1 */
    int16_t producer_epoch; /* v3+; default -1 */
} wire_init_producer_id_request;

typedef struct wire_init_producer_id_response {
    int32_t throttle_time_ms;
    int16_t error_code;
    int64_t producer_id;
    int16_t producer_epoch;
} wire_init_producer_id_response;

int wire_init_producer_id_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                         wire_init_producer_id_request *out);
void wire_init_producer_id_request_encode(kq_writer *w, int16_t version,
                                          const wire_init_producer_id_request *in);
int wire_init_producer_id_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                          wire_init_producer_id_response *out);
void wire_init_producer_id_response_encode(kq_writer *w, int16_t version,
                                           const wire_init_producer_id_response *in);

#endif
