/* ListGroups (api key 16), versions 0-5; flexible from v3. Lists the
 * groups a broker coordinates, optionally filtered by state (v4+) and type
 * (v5+). Decoders borrow strings from the input and take arrays from the
 * arena. Fields absent in a version get the default noted beside them on
 * decode and are not written on encode. */
#ifndef KQ_WIRE_LIST_GROUPS_H
#define KQ_WIRE_LIST_GROUPS_H

#include <stdint.h>

#include "kq/buf.h"

#define WIRE_LIST_GROUPS_MIN_VERSION 0
#define WIRE_LIST_GROUPS_MAX_VERSION 5

typedef struct wire_list_groups_request {
    kq_slice *states_filter; /* v4+; empty = every state */
    int32_t states_filter_count;
    kq_slice *types_filter; /* v5+; empty = every type */
    int32_t types_filter_count;
} wire_list_groups_request;

typedef struct wire_list_groups_group {
    kq_slice group_id;
    kq_slice protocol_type;
    kq_slice group_state; /* v4+; "" otherwise */
    kq_slice group_type;  /* v5+; "" otherwise */
} wire_list_groups_group;

typedef struct wire_list_groups_response {
    int32_t throttle_time_ms; /* v1+; 0 otherwise */
    int16_t error_code;
    wire_list_groups_group *groups;
    int32_t group_count;
} wire_list_groups_response;

/* Body after the header; decoders return 0 or -1 (malformed, truncated or
 * unsupported version). Encoders set w->error for an unsupported version. */
int wire_list_groups_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                    wire_list_groups_request *out);
void wire_list_groups_request_encode(kq_writer *w, int16_t version,
                                     const wire_list_groups_request *in);
int wire_list_groups_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                     wire_list_groups_response *out);
void wire_list_groups_response_encode(kq_writer *w, int16_t version,
                                      const wire_list_groups_response *in);

#endif
