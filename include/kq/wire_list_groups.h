/* ListGroups (api key 16), versions 0-5; flexible from v3. Lists the
 * groups a broker coordinates, optionally filtered by state (v4+) and type
 * (v5+); an empty filter matches every state or type. */
#ifndef KQ_WIRE_LIST_GROUPS_H
#define KQ_WIRE_LIST_GROUPS_H

#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"

#define WIRE_LIST_GROUPS_MIN_VERSION 0
#define WIRE_LIST_GROUPS_MAX_VERSION 5
#define WIRE_LIST_GROUPS_FLEX_VERSION 3

#define WIRE_LIST_GROUPS_REQUEST(S)                              \
    WAK(S, STRING, states_filter, states_filter_count, 4, WL)    \
    WAK(S, STRING, types_filter, types_filter_count, 5, WL)

#define WIRE_LIST_GROUPS_GROUP(S)                          \
    WF(S, STRING, group_id, 0, WL)                         \
    WF(S, STRING, protocol_type, 0, WL)                    \
    WF(S, STRING, group_state, 4, WL, WIRE_DEFAULT_EMPTY)  \
    WF(S, STRING, group_type, 5, WL, WIRE_DEFAULT_EMPTY)

#define WIRE_LIST_GROUPS_RESPONSE(S)      \
    WF(S, I32, throttle_time_ms, 1, WL)   \
    WF(S, I16, error_code, 0, WL)         \
    WA(S, wire_list_groups_group, groups, group_count, 0, WL)

#define WIRE_LIST_GROUPS_STRUCTS(D, DI) \
    D(wire_list_groups_request, WIRE_LIST_GROUPS_REQUEST) \
    D(wire_list_groups_group, WIRE_LIST_GROUPS_GROUP) \
    D(wire_list_groups_response, WIRE_LIST_GROUPS_RESPONSE)
WIRE_DECLARE_STRUCTS(WIRE_LIST_GROUPS_STRUCTS)
WIRE_API_FUNCS(wire_list_groups)

#endif
