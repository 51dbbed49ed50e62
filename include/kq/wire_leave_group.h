/* LeaveGroup (api key 13), versions 0-5; flexible from v4. Members leave a
 * classic consumer group: one member id up to v2 ("" on decode after), a
 * batch of members (with their static instance ids) from v3. */
#ifndef KQ_WIRE_LEAVE_GROUP_H
#define KQ_WIRE_LEAVE_GROUP_H

#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"

#define WIRE_LEAVE_GROUP_MIN_VERSION 0
#define WIRE_LEAVE_GROUP_MAX_VERSION 5
#define WIRE_LEAVE_GROUP_FLEX_VERSION 4

#define WIRE_LEAVE_GROUP_MEMBER(S)                             \
    WF(S, STRING, member_id, 3, WL)                            \
    WF(S, STRING, group_instance_id, 3, WL, WIRE_NULLABLE(3))  \
    WF(S, STRING, reason, 5, WL, WIRE_NULLABLE(5))

#define WIRE_LEAVE_GROUP_REQUEST(S)                           \
    WF(S, STRING, group_id, 0, WL)                            \
    WF(S, STRING, member_id, 0, 2, WIRE_DEFAULT_EMPTY)        \
    WA(S, wire_leave_group_member, members, member_count, 3, WL)

#define WIRE_LEAVE_GROUP_MEMBER_RESPONSE(S)                    \
    WF(S, STRING, member_id, 3, WL)                            \
    WF(S, STRING, group_instance_id, 3, WL, WIRE_NULLABLE(3))  \
    WF(S, I16, error_code, 3, WL)

#define WIRE_LEAVE_GROUP_RESPONSE(S)      \
    WF(S, I32, throttle_time_ms, 1, WL)   \
    WF(S, I16, error_code, 0, WL)         \
    WA(S, wire_leave_group_member_response, members, member_count, 3, WL)

#define WIRE_LEAVE_GROUP_STRUCTS(D, DI) \
    D(wire_leave_group_member, WIRE_LEAVE_GROUP_MEMBER) \
    D(wire_leave_group_request, WIRE_LEAVE_GROUP_REQUEST) \
    D(wire_leave_group_member_response, WIRE_LEAVE_GROUP_MEMBER_RESPONSE) \
    D(wire_leave_group_response, WIRE_LEAVE_GROUP_RESPONSE)
WIRE_DECLARE_STRUCTS(WIRE_LEAVE_GROUP_STRUCTS)
WIRE_API_FUNCS(wire_leave_group)

#endif
