/* FindCoordinator (key 10) v0 only: advertised so that librdkafka enables
 * lz4; there is no group coordinator, so the answer is always an error. */
#ifndef KQ_WIRE_FIND_COORDINATOR_H
#define KQ_WIRE_FIND_COORDINATOR_H

#include <stdint.h>

#include "kq/buf.h"

typedef struct wire_find_coordinator_request {
    kq_slice key; /* the group id */
} wire_find_coordinator_request;

typedef struct wire_find_coordinator_response {
    int16_t error_code;
    int32_t node_id;
    kq_slice host;
    int32_t port;
} wire_find_coordinator_response;

int wire_find_coordinator_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                         wire_find_coordinator_request *out);
void wire_find_coordinator_request_encode(kq_writer *w, int16_t version,
                                          const wire_find_coordinator_request *in);
int wire_find_coordinator_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                          wire_find_coordinator_response *out);
void wire_find_coordinator_response_encode(kq_writer *w, int16_t version,
                                           const wire_find_coordinator_response *in);

#endif
