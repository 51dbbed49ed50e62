/* DescribeGroups (api key 15), versions 0-6; flexible from v5. Describes
 * groups by id: state, protocol and members with their metadata and
 * assignment bytes (never null on decode; null is written as empty). */
#ifndef KQ_WIRE_DESCRIBE_GROUPS_H
#define KQ_WIRE_DESCRIBE_GROUPS_H

#include <stdbool.h>
#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"

#define WIRE_DESCRIBE_GROUPS_MIN_VERSION 0
#define WIRE_DESCRIBE_GROUPS_MAX_VERSION 6
#define WIRE_DESCRIBE_GROUPS_FLEX_VERSION 5

#define WIRE_DESCRIBE_GROUPS_REQUEST(S)          \
    WAK(S, STRING, groups, group_count, 0, WL)   \
    WF(S, BOOL, include_authorized_operations, 3, WL)

#define WIRE_DESCRIBE_GROUPS_MEMBER(S)                         \
    WF(S, STRING, member_id, 0, WL)                            \
    WF(S, STRING, group_instance_id, 4, WL, WIRE_NULLABLE(4))  \
    WF(S, STRING, client_id, 0, WL)                            \
    WF(S, STRING, client_host, 0, WL)                          \
    WF(S, BYTES, member_metadata, 0, WL)                       \
    WF(S, BYTES, member_assignment, 0, WL)

#define WIRE_DESCRIBE_GROUPS_GROUP(S)                                 \
    WF(S, I16, error_code, 0, WL)                                     \
    WF(S, STRING, error_message, 6, WL, WIRE_NULLABLE(6))             \
    WF(S, STRING, group_id, 0, WL)                                    \
    WF(S, STRING, group_state, 0, WL)                                 \
    WF(S, STRING, protocol_type, 0, WL)                               \
    WF(S, STRING, protocol_data, 0, WL)                               \
    WA(S, wire_describe_groups_member, members, member_count, 0, WL)  \
    WF(S, I32, authorized_operations, 3, WL, WIRE_DEFAULT(INT32_MIN))

#define WIRE_DESCRIBE_GROUPS_RESPONSE(S)  \
    WF(S, I32, throttle_time_ms, 1, WL)   \
    WA(S, wire_describe_groups_group, groups, group_count, 0, WL)

#define WIRE_DESCRIBE_GROUPS_STRUCTS(D, DI) \
    D(wire_describe_groups_request, WIRE_DESCRIBE_GROUPS_REQUEST) \
    D(wire_describe_groups_member, WIRE_DESCRIBE_GROUPS_MEMBER) \
    D(wire_describe_groups_group, WIRE_DESCRIBE_GROUPS_GROUP) \
    D(wire_describe_groups_response, WIRE_DESCRIBE_GROUPS_RESPONSE)
WIRE_DECLARE_STRUCTS(WIRE_DESCRIBE_GROUPS_STRUCTS)
WIRE_API_FUNCS(wire_describe_groups)

#endif
