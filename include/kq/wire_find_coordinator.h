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

/* key_type: 0 = group, 1 = transaction, 2 = share. */
#define WIRE_FIND_COORDINATOR_REQUEST(S)                    \
    WF(S, STRING, key, 0, 3, WIRE_DEFAULT_EMPTY)            \
    WF(S, I8, key_type, 1, WL)                              \
    WAK(S, STRING, coordinator_keys, coordinator_key_count, 4, WL)
WIRE_STRUCT(wire_find_coordinator_request, WIRE_FIND_COORDINATOR_REQUEST)

#define WIRE_FIND_COORDINATOR_COORDINATOR(S)   \
    WF(S, STRING, key, 4, WL)                  \
    WF(S, I32, node_id, 4, WL)                 \
    WF(S, STRING, host, 4, WL)                 \
    WF(S, I32, port, 4, WL)                    \
    WF(S, I16, error_code, 4, WL)              \
    WF(S, STRING, error_message, 4, WL, WIRE_NULLABLE(4))
WIRE_STRUCT(wire_find_coordinator_coordinator, WIRE_FIND_COORDINATOR_COORDINATOR)

/* The response's C order (v0-3's single coordinator first) differs from its
 * wire order: the struct is declared in C order, described in wire order. */
#define WIRE_FIND_COORDINATOR_RESPONSE_C(S)  \
    WH(S, I16, error_code)                   \
    WH(S, I32, node_id)                      \
    WH(S, STRING, host)                      \
    WH(S, I32, port)                         \
    WH(S, I32, throttle_time_ms)             \
    WH(S, STRING, error_message)             \
    WHA(S, wire_find_coordinator_coordinator, coordinators, coordinator_count)
WIRE_STRUCT(wire_find_coordinator_response, WIRE_FIND_COORDINATOR_RESPONSE_C)

#define WIRE_FIND_COORDINATOR_RESPONSE(S)                       \
    WF(S, I32, throttle_time_ms, 1, WL)                         \
    WF(S, I16, error_code, 0, 3)                                \
    WF(S, STRING, error_message, 1, 3, WIRE_NULLABLE(1))        \
    WF(S, I32, node_id, 0, 3)                                   \
    WF(S, STRING, host, 0, 3, WIRE_DEFAULT_EMPTY)               \
    WF(S, I32, port, 0, 3)                                      \
    WA(S, wire_find_coordinator_coordinator, coordinators, coordinator_count, 4, WL)

/* Body after the header; decoders return 0 or -1 (malformed, truncated or
 * unsupported version). Encoders set w->error for an unsupported version. */
int wire_find_coordinator_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                         wire_find_coordinator_request *out);
void wire_find_coordinator_request_encode(kq_writer *w, int16_t version,
                                          const wire_find_coordinator_request *in);
int wire_find_coordinator_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                          wire_find_coordinator_response *out);
void wire_find_coordinator_response_encode(kq_writer *w, int16_t version,
                                           const wire_find_coordinator_response *in);

#endif
