/* LeaveGroup's description (include/kq/wire_leave_group.h) made into descriptors. */
#include "kq/wire.h"
#include "kq/wire_leave_group.h"
#include "wire_desc_gen.h"

WIRE_DESC(wire_leave_group_member, WIRE_LEAVE_GROUP_MEMBER)
WIRE_DESC(wire_leave_group_request, WIRE_LEAVE_GROUP_REQUEST)
WIRE_DESC(wire_leave_group_member_response, WIRE_LEAVE_GROUP_MEMBER_RESPONSE)
WIRE_DESC(wire_leave_group_response, WIRE_LEAVE_GROUP_RESPONSE)
WIRE_MSG(wire_leave_group_request, WIRE_API_LEAVE_GROUP, false, 0, 5, 4)
WIRE_MSG(wire_leave_group_response, WIRE_API_LEAVE_GROUP, true, 0, 5, 4)
