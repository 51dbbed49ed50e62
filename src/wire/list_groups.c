/* ListGroups' description (include/kq/wire_list_groups.h) made into descriptors. */
#include "kq/wire.h"
#include "kq/wire_list_groups.h"
#include "wire_desc_gen.h"

WIRE_DESC(wire_list_groups_request, WIRE_LIST_GROUPS_REQUEST)
WIRE_DESC(wire_list_groups_group, WIRE_LIST_GROUPS_GROUP)
WIRE_DESC(wire_list_groups_response, WIRE_LIST_GROUPS_RESPONSE)
WIRE_MSG(wire_list_groups_request, WIRE_API_LIST_GROUPS, false, 0, 5, 3)
WIRE_MSG(wire_list_groups_response, WIRE_API_LIST_GROUPS, true, 0, 5, 3)
