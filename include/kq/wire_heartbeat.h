/* Heartbeat (api key 12), versions 0-4; flexible from v4. A member of a
 * classic consumer group tells the coordinator it is alive. */
#ifndef KQ_WIRE_HEARTBEAT_H
#define KQ_WIRE_HEARTBEAT_H

#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"

#define WIRE_HEARTBEAT_MIN_VERSION 0
#define WIRE_HEARTBEAT_MAX_VERSION 4
#define WIRE_HEARTBEAT_FLEX_VERSION 4

#define WIRE_HEARTBEAT_REQUEST(S)             \
    WF(S, STRING, group_id, 0, WL)            \
    WF(S, I32, generation_id, 0, WL)          \
    WF(S, STRING, member_id, 0, WL)           \
    WF(S, STRING, group_instance_id, 3, WL, WIRE_NULLABLE(3))

#define WIRE_HEARTBEAT_RESPONSE(S)       \
    WF(S, I32, throttle_time_ms, 1, WL)  \
    WF(S, I16, error_code, 0, WL)

#define WIRE_HEARTBEAT_STRUCTS(D, DI) \
    D(wire_heartbeat_request, WIRE_HEARTBEAT_REQUEST) \
    D(wire_heartbeat_response, WIRE_HEARTBEAT_RESPONSE)
WIRE_DECLARE_STRUCTS(WIRE_HEARTBEAT_STRUCTS)
WIRE_API_FUNCS(wire_heartbeat)

#endif
