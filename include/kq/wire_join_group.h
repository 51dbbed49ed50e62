/* JoinGroup (api key 11), versions 0-9; flexible from v6. A member of a
 * classic consumer group joins (or rejoins) it, offering the assignment
 * protocols it speaks with their metadata; the coordinator answers with the
 * generation, the chosen protocol and, to the leader, every member's
 * metadata. Metadata bytes are never null on decode; null is written as
 * empty. protocol_name is nullable from v7; before, a null is written as "". */
#ifndef KQ_WIRE_JOIN_GROUP_H
#define KQ_WIRE_JOIN_GROUP_H

#include <stdbool.h>
#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"

#define WIRE_JOIN_GROUP_MIN_VERSION 0
#define WIRE_JOIN_GROUP_MAX_VERSION 9
#define WIRE_JOIN_GROUP_FLEX_VERSION 6

#define WIRE_JOIN_GROUP_PROTOCOL(S) \
    WF(S, STRING, name, 0, WL)      \
    WF(S, BYTES, metadata, 0, WL)

#define WIRE_JOIN_GROUP_REQUEST(S)                                 \
    WF(S, STRING, group_id, 0, WL)                                 \
    WF(S, I32, session_timeout_ms, 0, WL)                          \
    WF(S, I32, rebalance_timeout_ms, 1, WL, WIRE_DEFAULT(-1))      \
    WF(S, STRING, member_id, 0, WL)                                \
    WF(S, STRING, group_instance_id, 5, WL, WIRE_NULLABLE(5))      \
    WF(S, STRING, protocol_type, 0, WL)                            \
    WA(S, wire_join_group_protocol, protocols, protocol_count, 0, WL) \
    WF(S, STRING, reason, 8, WL, WIRE_NULLABLE(8))

#define WIRE_JOIN_GROUP_MEMBER(S)                              \
    WF(S, STRING, member_id, 0, WL)                            \
    WF(S, STRING, group_instance_id, 5, WL, WIRE_NULLABLE(5))  \
    WF(S, BYTES, metadata, 0, WL)

#define WIRE_JOIN_GROUP_RESPONSE(S)                            \
    WF(S, I32, throttle_time_ms, 2, WL)                        \
    WF(S, I16, error_code, 0, WL)                              \
    WF(S, I32, generation_id, 0, WL, WIRE_DEFAULT(-1))         \
    WF(S, STRING, protocol_type, 7, WL, WIRE_NULLABLE(7))      \
    WF(S, STRING, protocol_name, 0, WL, WIRE_NULLABLE(7))      \
    WF(S, STRING, leader, 0, WL)                               \
    WF(S, BOOL, skip_assignment, 9, WL)                        \
    WF(S, STRING, member_id, 0, WL)                            \
    WA(S, wire_join_group_member, members, member_count, 0, WL)

#define WIRE_JOIN_GROUP_STRUCTS(D, DI) \
    D(wire_join_group_protocol, WIRE_JOIN_GROUP_PROTOCOL) \
    D(wire_join_group_request, WIRE_JOIN_GROUP_REQUEST) \
    D(wire_join_group_member, WIRE_JOIN_GROUP_MEMBER) \
    D(wire_join_group_response, WIRE_JOIN_GROUP_RESPONSE)
WIRE_DECLARE_STRUCTS(WIRE_JOIN_GROUP_STRUCTS)
WIRE_API_FUNCS(wire_join_group)

#endif
