/* SyncGroup's description (include/kq/wire_sync_group.h) made into descriptors. */
#include "kq/wire.h"
#include "kq/wire_sync_group.h"
#include "wire_desc_gen.h"

WIRE_DESC(wire_sync_group_assignment, WIRE_SYNC_GROUP_ASSIGNMENT)
WIRE_DESC(wire_sync_group_request, WIRE_SYNC_GROUP_REQUEST)
WIRE_DESC(wire_sync_group_response, WIRE_SYNC_GROUP_RESPONSE)
WIRE_MSG(wire_sync_group_request, WIRE_API_SYNC_GROUP, false, 0, 5, 4)
WIRE_MSG(wire_sync_group_response, WIRE_API_SYNC_GROUP, true, 0, 5, 4)
