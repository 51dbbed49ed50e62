/* Heartbeat (api key 12), versions 0-4; flexible from v4. A member of a
 * classic consumer group tells the coordinator it is alive. Decoders borrow
 * strings from the input. Fields absent in a version get the default noted
 * beside them on decode and are not written on encode. */
#ifndef KQ_WIRE_HEARTBEAT_H
#define KQ_WIRE_HEARTBEAT_H

#include <stdint.h>

#include "kq/buf.h"

#define WIRE_HEARTBEAT_MIN_VERSION 0
#define WIRE_HEARTBEAT_MAX_VERSION 4

typedef struct wire_heartbeat_request {
    kq_slice group_id;
    int32_t generation_id;
    kq_slice member_id;
    kq_slice group_instance_id; /* v3+, nullable; default null */
} wire_heartbeat_request;

typedef struct wire_heartbeat_response {
    int32_t throttle_time_ms; /* v1+; default 0 */
    int16_t error_code;
} wire_heartbeat_response;

/* Body after the header; decoders return 0 or -1 (malformed, truncated or
 * unsupported version). Encoders set w->error for an unsupported version. */
int wire_heartbeat_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                  wire_heartbeat_request *out);
void wire_heartbeat_request_encode(kq_writer *w, int16_t version,
                                   const wire_heartbeat_request *in);
int wire_heartbeat_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                   wire_heartbeat_response *out);
void wire_heartbeat_response_encode(kq_writer *w, int16_t version,
                                    const wire_heartbeat_response *in);

#endif
