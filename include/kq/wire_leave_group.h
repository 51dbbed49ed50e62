/* LeaveGroup (api key 13), versions 0-5; flexible from v4. Members leave a
 * classic consumer group: one member id up to v2, a batch of members (with
 * their static instance ids) from v3. Decoders borrow strings from the input
 * and take arrays from the arena. Fields absent in a version get the default
 * noted beside them on decode and are not written on encode. */
#ifndef KQ_WIRE_LEAVE_GROUP_H
#define KQ_WIRE_LEAVE_GROUP_H

#include <stdint.h>

#include "kq/buf.h"

#define WIRE_LEAVE_GROUP_MIN_VERSION 0
#define WIRE_LEAVE_GROUP_MAX_VERSION 5

typedef struct wire_leave_group_member {
    kq_slice member_id;
    kq_slice group_instance_id; /* nullable */
    kq_slice reason;            /* v5+, nullable; default null */
} wire_leave_group_member;

typedef struct wire_leave_group_request {
    kq_slice group_id;
    kq_slice member_id; /* v0-2; default "" */
    wire_leave_group_member *members; /* v3+; default none */
    int32_t member_count;
} wire_leave_group_request;

typedef struct wire_leave_group_member_response {
    kq_slice member_id;
    kq_slice group_instance_id; /* nullable */
    int16_t error_code;
} wire_leave_group_member_response;

typedef struct wire_leave_group_response {
    int32_t throttle_time_ms; /* v1+; default 0 */
    int16_t error_code;
    wire_leave_group_member_response *members; /* v3+; default none */
    int32_t member_count;
} wire_leave_group_response;

/* Body after the header; decoders return 0 or -1 (malformed, truncated or
 * unsupported version). Encoders set w->error for an unsupported version. */
int wire_leave_group_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                    wire_leave_group_request *out);
void wire_leave_group_request_encode(kq_writer *w, int16_t version,
                                     const wire_leave_group_request *in);
int wire_leave_group_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                     wire_leave_group_response *out);
void wire_leave_group_response_encode(kq_writer *w, int16_t version,
                                      const wire_leave_group_response *in);

#endif
