/* FindCoordinator (api key 10), versions 0-6; flexible from v3. The
 * Raft leader coordinates every group (src/handler/group_find_coordinator.c).
 * v0-v3
 * carry one key (key_type from v1); v4+ batch keys (coordinator_keys) and
 * answer one coordinator per key. Decoders borrow strings from the input
 * and take arrays from the arena. Fields absent in a version get the
 * default noted beside them on decode and are not written on encode. */
#ifndef KQ_WIRE_FIND_COORDINATOR_H
#define KQ_WIRE_FIND_COORDINATOR_H

#include <stdint.h>

#include "kq/buf.h"

#define WIRE_FIND_COORDINATOR_MIN_VERSION 0
#define WIRE_FIND_COORDINATOR_MAX_VERSION 6

typedef struct wire_find_coordinator_request {
    kq_slice key;     /* the group id; v0-3 ("" on decode otherwise) */
    int8_t key_type;  /* v1+; 0 = group, 1 = transaction, 2 = share */
    kq_slice *coordinator_keys; /* v4+ */
    int32_t coordinator_key_count;
} wire_find_coordinator_request;

typedef struct wire_find_coordinator_coordinator {
    kq_slice key;
    int32_t node_id;
    kq_slice host;
    int32_t port;
    int16_t error_code;
    kq_slice error_message; /* nullable */
} wire_find_coordinator_coordinator;

typedef struct wire_find_coordinator_response {
    /* v0-3 */
    int16_t error_code;
    int32_t node_id;
    kq_slice host;
    int32_t port;
    int32_t throttle_time_ms; /* v1+; 0 otherwise */
    kq_slice error_message;   /* v1-3, nullable; null otherwise */
    wire_find_coordinator_coordinator *coordinators; /* v4+ */
    int32_t coordinator_count;
} wire_find_coordinator_response;

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
