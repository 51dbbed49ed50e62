/* SyncGroup (api key 14), versions 0-5; flexible from v4. After a JoinGroup
 * round the leader of a classic consumer group sends every member's
 * assignment; each member gets its own back. Assignment bytes are never
 * null on decode; null is written as empty. */
#ifndef KQ_WIRE_SYNC_GROUP_H
#define KQ_WIRE_SYNC_GROUP_H

#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"

#define WIRE_SYNC_GROUP_MIN_VERSION 0
#define WIRE_SYNC_GROUP_MAX_VERSION 5
#define WIRE_SYNC_GROUP_FLEX_VERSION 4

#define WIRE_SYNC_GROUP_ASSIGNMENT(S)  \
    WF(S, STRING, member_id, 0, WL)    \
    WF(S, BYTES, assignment, 0, WL)

#define WIRE_SYNC_GROUP_REQUEST(S)                                  \
    WF(S, STRING, group_id, 0, WL)                                  \
    WF(S, I32, generation_id, 0, WL)                                \
    WF(S, STRING, member_id, 0, WL)                                 \
    WF(S, STRING, group_instance_id, 3, WL, WIRE_NULLABLE(3))       \
    WF(S, STRING, protocol_type, 5, WL, WIRE_NULLABLE(5))           \
    WF(S, STRING, protocol_name, 5, WL, WIRE_NULLABLE(5))           \
    WA(S, wire_sync_group_assignment, assignments, assignment_count, 0, WL)

#define WIRE_SYNC_GROUP_RESPONSE(S)                           \
    WF(S, I32, throttle_time_ms, 1, WL)                       \
    WF(S, I16, error_code, 0, WL)                             \
    WF(S, STRING, protocol_type, 5, WL, WIRE_NULLABLE(5))     \
    WF(S, STRING, protocol_name, 5, WL, WIRE_NULLABLE(5))     \
    WF(S, BYTES, assignment, 0, WL)

#define WIRE_SYNC_GROUP_STRUCTS(D, DI) \
    D(wire_sync_group_assignment, WIRE_SYNC_GROUP_ASSIGNMENT) \
    D(wire_sync_group_request, WIRE_SYNC_GROUP_REQUEST) \
    D(wire_sync_group_response, WIRE_SYNC_GROUP_RESPONSE)
WIRE_DECLARE_STRUCTS(WIRE_SYNC_GROUP_STRUCTS)
WIRE_API_FUNCS(wire_sync_group)

#endif
