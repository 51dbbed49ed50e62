/* DeleteGroups (api key 42), versions 0-3; flexible from v2. Deletes
 * consumer groups by id (kafka-consumer-groups.sh --delete); each result
 * names its group and error, v3 adds a nullable per-group message. */
#ifndef KQ_WIRE_DELETE_GROUPS_H
#define KQ_WIRE_DELETE_GROUPS_H

#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"

#define WIRE_DELETE_GROUPS_MIN_VERSION 0
#define WIRE_DELETE_GROUPS_MAX_VERSION 3
#define WIRE_DELETE_GROUPS_FLEX_VERSION 2

#define WIRE_DELETE_GROUPS_REQUEST(S) \
    WAK(S, STRING, groups_names, group_count, 0, WL)

#define WIRE_DELETE_GROUPS_RESULT(S)                          \
    WF(S, STRING, group_id, 0, WL)                            \
    WF(S, I16, error_code, 0, WL)                             \
    WF(S, STRING, error_message, 3, WL, WIRE_NULLABLE(3))

#define WIRE_DELETE_GROUPS_RESPONSE(S)   \
    WF(S, I32, throttle_time_ms, 0, WL)  \
    WA(S, wire_delete_groups_result, results, result_count, 0, WL)

#define WIRE_DELETE_GROUPS_STRUCTS(D, DI) \
    D(wire_delete_groups_request, WIRE_DELETE_GROUPS_REQUEST) \
    D(wire_delete_groups_result, WIRE_DELETE_GROUPS_RESULT) \
    D(wire_delete_groups_response, WIRE_DELETE_GROUPS_RESPONSE)
WIRE_DECLARE_STRUCTS(WIRE_DELETE_GROUPS_STRUCTS)
WIRE_API_FUNCS(wire_delete_groups)

#endif
