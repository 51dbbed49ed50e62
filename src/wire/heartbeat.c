/* Heartbeat's description (include/kq/wire_heartbeat.h) made into descriptors. */
#include "kq/wire.h"
#include "kq/wire_heartbeat.h"
#include "wire_desc_gen.h"

WIRE_DESC(wire_heartbeat_request, WIRE_HEARTBEAT_REQUEST)
WIRE_DESC(wire_heartbeat_response, WIRE_HEARTBEAT_RESPONSE)
WIRE_MSG(wire_heartbeat_request, WIRE_API_HEARTBEAT, false, 0, 4, 4)
WIRE_MSG(wire_heartbeat_response, WIRE_API_HEARTBEAT, true, 0, 4, 4)
