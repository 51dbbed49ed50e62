/* JoinGroup (api key 11), versions 0-9; flexible from v6. A member of a
 * classic consumer group joins (or rejoins) it, offering the assignment
 * protocols it speaks with their metadata; the coordinator answers with the
 * generation, the chosen protocol and, to the leader, every member's
 * metadata. Decoders borrow strings and metadata bytes from the input and
 * take arrays from the arena. Fields absent in a version get the default
 * noted beside them on decode and are not written on encode. */
#ifndef KQ_WIRE_JOIN_GROUP_H
#define KQ_WIRE_JOIN_GROUP_H

#include <stdbool.h>
#include <stdint.h>

#include "kq/buf.h"

#define WIRE_JOIN_GROUP_MIN_VERSION 0
#define WIRE_JOIN_GROUP_MAX_VERSION 9

typedef struct wire_join_group_protocol {
    kq_slice name;
    kq_slice metadata; /* never null on decode; null is written as empty */
} wire_join_group_protocol;

typedef struct wire_join_group_request {
    kq_slice group_id;
    int32_t session_timeout_ms;
    int32_t rebalance_timeout_ms; /* v1+; default -1 */
    kq_slice member_id;
    kq_slice group_instance_id;   /* v5+, nullable; default null */
    kq_slice protocol_type;
    wire_join_group_protocol *protocols;
    int32_t protocol_count;
    kq_slice reason;              /* v8+, nullable; default null */
} wire_join_group_request;

typedef struct wire_join_group_member {
    kq_slice member_id;
    kq_slice group_instance_id; /* v5+, nullable; default null */
    kq_slice metadata;          /* never null on decode; null is written as empty */
} wire_join_group_member;

typedef struct wire_join_group_response {
    int32_t throttle_time_ms; /* v2+; default 0 */
    int16_t error_code;
    int32_t generation_id;
    kq_slice protocol_type;   /* v7+, nullable; default null */
    /* Nullable from v7; before v7 a null is written as "" (and never
     * decoded). */
    kq_slice protocol_name;
    kq_slice leader;
    bool skip_assignment;     /* v9+; default false */
    kq_slice member_id;
    wire_join_group_member *members;
    int32_t member_count;
} wire_join_group_response;

/* Body after the header; decoders return 0 or -1 (malformed, truncated or
 * unsupported version). Encoders set w->error for an unsupported version. */
int wire_join_group_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                   wire_join_group_request *out);
void wire_join_group_request_encode(kq_writer *w, int16_t version,
                                    const wire_join_group_request *in);
int wire_join_group_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                    wire_join_group_response *out);
void wire_join_group_response_encode(kq_writer *w, int16_t version,
                                     const wire_join_group_response *in);

#endif
