/* FindCoordinator (api key 10), versions 0-6; flexible from v3. The
 * Raft leader coordinates every group (src/handler/group_find_coordinator.c).
 * v0-v3 carry one key (key_type from v1; key is "" on decode after); v4+
 * batch keys (coordinator_keys) and answer one coordinator per key. */
#ifndef KQ_WIRE_FIND_COORDINATOR_H
#define KQ_WIRE_FIND_COORDINATOR_H

#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"

#define WIRE_FIND_COORDINATOR_MIN_VERSION 0
#define WIRE_FIND_COORDINATOR_MAX_VERSION 6
#define WIRE_FIND_COORDINATOR_FLEX_VERSION 3

/* key_type: 0 = group, 1 = transaction, 2 = share. */
#define WIRE_FIND_COORDINATOR_REQUEST(S)                    \
    WF(S, STRING, key, 0, 3, WIRE_DEFAULT_EMPTY)            \
    WF(S, I8, key_type, 1, WL)                              \
    WAK(S, STRING, coordinator_keys, coordinator_key_count, 4, WL)

#define WIRE_FIND_COORDINATOR_COORDINATOR(S)   \
    WF(S, STRING, key, 4, WL)                  \
    WF(S, I32, node_id, 4, WL)                 \
    WF(S, STRING, host, 4, WL)                 \
    WF(S, I32, port, 4, WL)                    \
    WF(S, I16, error_code, 4, WL)              \
    WF(S, STRING, error_message, 4, WL, WIRE_NULLABLE(4))

/* The response's C order (v0-3's single coordinator first; tests build it
 * positionally) differs from its wire order: declared in C order by WH/WHA,
 * put on the wire in Kafka's order by WO. */
#define WIRE_FIND_COORDINATOR_RESPONSE_WIRE(S)                  \
    WF(S, I32, throttle_time_ms, 1, WL)                         \
    WF(S, I16, error_code, 0, 3)                                \
    WF(S, STRING, error_message, 1, 3, WIRE_NULLABLE(1))        \
    WF(S, I32, node_id, 0, 3)                                   \
    WF(S, STRING, host, 0, 3, WIRE_DEFAULT_EMPTY)               \
    WF(S, I32, port, 0, 3)                                      \
    WA(S, wire_find_coordinator_coordinator, coordinators, coordinator_count, 4, WL)

#define WIRE_FIND_COORDINATOR_RESPONSE(S)                                       \
    WH(S, I16, error_code)                                                      \
    WH(S, I32, node_id)                                                         \
    WH(S, STRING, host)                                                         \
    WH(S, I32, port)                                                            \
    WH(S, I32, throttle_time_ms)                                                \
    WH(S, STRING, error_message)                                                \
    WHA(S, wire_find_coordinator_coordinator, coordinators, coordinator_count)  \
    WO(S, WIRE_FIND_COORDINATOR_RESPONSE_WIRE)

#define WIRE_FIND_COORDINATOR_STRUCTS(D, DI) \
    D(wire_find_coordinator_request, WIRE_FIND_COORDINATOR_REQUEST) \
    D(wire_find_coordinator_coordinator, WIRE_FIND_COORDINATOR_COORDINATOR) \
    D(wire_find_coordinator_response, WIRE_FIND_COORDINATOR_RESPONSE)
WIRE_DECLARE_STRUCTS(WIRE_FIND_COORDINATOR_STRUCTS)
WIRE_API_FUNCS(wire_find_coordinator)

#endif
