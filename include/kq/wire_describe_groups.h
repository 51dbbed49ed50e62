/* DescribeGroups (api key 15), versions 0-6; flexible from v5. Describes
 * groups by id: state, protocol and members with their metadata and
 * assignment bytes. Decoders borrow strings and bytes from the input and
 * take arrays from the arena. Fields absent in a version get the default
 * noted beside them on decode and are not written on encode. */
#ifndef KQ_WIRE_DESCRIBE_GROUPS_H
#define KQ_WIRE_DESCRIBE_GROUPS_H

#include <stdbool.h>
#include <stdint.h>

#include "kq/buf.h"

#define WIRE_DESCRIBE_GROUPS_MIN_VERSION 0
#define WIRE_DESCRIBE_GROUPS_MAX_VERSION 6

typedef struct wire_describe_groups_request {
    kq_slice *groups;
    int32_t group_count;
    bool include_authorized_operations; /* v3+; false otherwise */
} wire_describe_groups_request;

typedef struct wire_describe_groups_member {
    kq_slice member_id;
    kq_slice group_instance_id; /* v4+, nullable; null otherwise */
    kq_slice client_id;
    kq_slice client_host;
    kq_slice member_metadata;   /* never null on decode */
    kq_slice member_assignment; /* never null on decode */
} wire_describe_groups_member;

typedef struct wire_describe_groups_group {
    int16_t error_code;
    kq_slice error_message; /* v6+, nullable; null otherwise */
    kq_slice group_id;
    kq_slice group_state;
    kq_slice protocol_type;
    kq_slice protocol_data;
    wire_describe_groups_member *members;
    int32_t member_count;
    int32_t authorized_operations; /* v3+; INT32_MIN otherwise */
} wire_describe_groups_group;

typedef struct wire_describe_groups_response {
    int32_t throttle_time_ms; /* v1+; 0 otherwise */
    wire_describe_groups_group *groups;
    int32_t group_count;
} wire_describe_groups_response;

/* Body after the header; decoders return 0 or -1 (malformed, truncated or
 * unsupported version). Encoders set w->error for an unsupported version. */
int wire_describe_groups_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                        wire_describe_groups_request *out);
void wire_describe_groups_request_encode(kq_writer *w, int16_t version,
                                         const wire_describe_groups_request *in);
int wire_describe_groups_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                         wire_describe_groups_response *out);
void wire_describe_groups_response_encode(kq_writer *w, int16_t version,
                                          const wire_describe_groups_response *in);

#endif
