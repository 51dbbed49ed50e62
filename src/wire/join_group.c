/* JoinGroup's description (include/kq/wire_join_group.h) made into descriptors. */
#include "kq/wire.h"
#include "kq/wire_join_group.h"
#include "wire_desc_gen.h"

WIRE_DESC(wire_join_group_protocol, WIRE_JOIN_GROUP_PROTOCOL)
WIRE_DESC(wire_join_group_request, WIRE_JOIN_GROUP_REQUEST)
WIRE_DESC(wire_join_group_member, WIRE_JOIN_GROUP_MEMBER)
WIRE_DESC(wire_join_group_response, WIRE_JOIN_GROUP_RESPONSE)
WIRE_MSG(wire_join_group_request, WIRE_API_JOIN_GROUP, false, 0, 9, 6)
WIRE_MSG(wire_join_group_response, WIRE_API_JOIN_GROUP, true, 0, 9, 6)
