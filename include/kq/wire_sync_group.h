/* SyncGroup (api key 14), versions 0-5; flexible from v4. After a JoinGroup
 * round the leader of a classic consumer group sends every member's
 * assignment; each member gets its own back. Decoders borrow strings and
 * assignment bytes from the input and take arrays from the arena. Fields
 * absent in a version get the default noted beside them on decode and are
 * not written on encode. */
#ifndef KQ_WIRE_SYNC_GROUP_H
#define KQ_WIRE_SYNC_GROUP_H

#include <stdint.h>

#include "kq/buf.h"

#define WIRE_SYNC_GROUP_MIN_VERSION 0
#define WIRE_SYNC_GROUP_MAX_VERSION 5

typedef struct wire_sync_group_assignment {
    kq_slice member_id;
    kq_slice assignment; /* never null on decode; null is written as empty */
} wire_sync_group_assignment;

typedef struct wire_sync_group_request {
    kq_slice group_id;
    int32_t generation_id;
    kq_slice member_id;
    kq_slice group_instance_id; /* v3+, nullable; default null */
    kq_slice protocol_type;     /* v5+, nullable; default null */
    kq_slice protocol_name;     /* v5+, nullable; default null */
    wire_sync_group_assignment *assignments;
    int32_t assignment_count;
} wire_sync_group_request;

typedef struct wire_sync_group_response {
    int32_t throttle_time_ms; /* v1+; default 0 */
    int16_t error_code;
    kq_slice protocol_type;   /* v5+, nullable; default null */
    kq_slice protocol_name;   /* v5+, nullable; default null */
    kq_slice assignment;      /* never null on decode; null is written as empty */
} wire_sync_group_response;

/* Body after the header; decoders return 0 or -1 (malformed, truncated or
 * unsupported version). Encoders set w->error for an unsupported version. */
int wire_sync_group_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                   wire_sync_group_request *out);
void wire_sync_group_request_encode(kq_writer *w, int16_t version,
                                    const wire_sync_group_request *in);
int wire_sync_group_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                    wire_sync_group_response *out);
void wire_sync_group_response_encode(kq_writer *w, int16_t version,
                                     const wire_sync_group_response *in);

#endif
