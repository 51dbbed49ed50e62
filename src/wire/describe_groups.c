/* DescribeGroups' description (include/kq/wire_describe_groups.h) made into
 * descriptors. */
#include "kq/wire.h"
#include "kq/wire_describe_groups.h"
#include "wire_desc_gen.h"

WIRE_DESC(wire_describe_groups_request, WIRE_DESCRIBE_GROUPS_REQUEST)
WIRE_DESC(wire_describe_groups_member, WIRE_DESCRIBE_GROUPS_MEMBER)
WIRE_DESC(wire_describe_groups_group, WIRE_DESCRIBE_GROUPS_GROUP)
WIRE_DESC(wire_describe_groups_response, WIRE_DESCRIBE_GROUPS_RESPONSE)
WIRE_MSG(wire_describe_groups_request, WIRE_API_DESCRIBE_GROUPS, false, 0, 6, 5)
WIRE_MSG(wire_describe_groups_response, WIRE_API_DESCRIBE_GROUPS, true, 0, 6, 5)
