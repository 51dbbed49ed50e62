/* FindCoordinator's description (include/kq/wire_find_coordinator.h) made
 * into descriptors. */
#include "kq/wire.h"
#include "kq/wire_find_coordinator.h"
#include "wire_desc_gen.h"

WIRE_DESC(wire_find_coordinator_request, WIRE_FIND_COORDINATOR_REQUEST)
WIRE_DESC(wire_find_coordinator_coordinator, WIRE_FIND_COORDINATOR_COORDINATOR)
WIRE_DESC(wire_find_coordinator_response, WIRE_FIND_COORDINATOR_RESPONSE)
WIRE_MSG(wire_find_coordinator_request, WIRE_API_FIND_COORDINATOR, false, 0, 6, 3)
WIRE_MSG(wire_find_coordinator_response, WIRE_API_FIND_COORDINATOR, true, 0, 6, 3)
