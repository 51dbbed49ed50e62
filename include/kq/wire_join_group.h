/* JoinGroup (api key 11), versions 0-9; flexible from v6. A member of a
 * classic consumer group joins (or rejoins) it, offering the assignment
 * protocols it speaks with their metadata; the coordinator answers with the
 * generation, the chosen protocol and, to the leader, every member's
 * metadata. Metadata bytes are never null on decode; null is written as
 * empty. protocol_name is nullable from v7; before, a null is written as "". */
#ifndef KQ_WIRE_JOIN_GROUP_H
#define KQ_WIRE_JOIN_GROUP_H

#include <stdbool.h>
#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"

#define WIRE_JOIN_GROUP_MIN_VERSION 0
#define WIRE_JOIN_GROUP_MAX_VERSION 9

#define WIRE_JOIN_GROUP_PROTOCOL(S) \
    WF(S, STRING, name, 0, WL)      \
    WF(S, BYTES, metadata, 0, WL)
WIRE_STRUCT(wire_join_group_protocol, WIRE_JOIN_GROUP_PROTOCOL)

#define WIRE_JOIN_GROUP_REQUEST(S)                                 \
    WF(S, STRING, group_id, 0, WL)                                 \
    WF(S, I32, session_timeout_ms, 0, WL)                          \
    WF(S, I32, rebalance_timeout_ms, 1, WL, WIRE_DEFAULT(-1))      \
    WF(S, STRING, member_id, 0, WL)                                \
    WF(S, STRING, group_instance_id, 5, WL, WIRE_NULLABLE(5))      \
    WF(S, STRING, protocol_type, 0, WL)                            \
    WA(S, wire_join_group_protocol, protocols, protocol_count, 0, WL) \
    WF(S, STRING, reason, 8, WL, WIRE_NULLABLE(8))
WIRE_STRUCT(wire_join_group_request, WIRE_JOIN_GROUP_REQUEST)

#define WIRE_JOIN_GROUP_MEMBER(S)                              \
    WF(S, STRING, member_id, 0, WL)                            \
    WF(S, STRING, group_instance_id, 5, WL, WIRE_NULLABLE(5))  \
    WF(S, BYTES, metadata, 0, WL)
WIRE_STRUCT(wire_join_group_member, WIRE_JOIN_GROUP_MEMBER)

#define WIRE_JOIN_GROUP_RESPONSE(S)                            \
    WF(S, I32, throttle_time_ms, 2, WL)                        \
    WF(S, I16, error_code, 0, WL)                              \
    WF(S, I32, generation_id, 0, WL, WIRE_DEFAULT(-1))         \
    WF(S, STRING, protocol_type, 7, WL, WIRE_NULLABLE(7))      \
    WF(S, STRING, protocol_name, 0, WL, WIRE_NULLABLE(7))      \
    WF(S, STRING, leader, 0, WL)                               \
    WF(S, BOOL, skip_assignment, 9, WL)                        \
    WF(S, STRING, member_id, 0, WL)                            \
    WA(S, wire_join_group_member, members, member_count, 0, WL)
WIRE_STRUCT(wire_join_group_response, WIRE_JOIN_GROUP_RESPONSE)

/* Body after the header; decoders return 0 or -1 (malformed, truncated or
 * unsupported version). Encoders set w->error for an unsupported version. */
int wire_join_group_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                   wire_join_group_request *out);
void wire_join_group_request_encode(kq_writer *w, int16_t version,
                                    const wire_join_group_request *in);
int wire_join_group_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                    wire_join_group_response *out);
void wire_join_group_response_encode(kq_writer *w, int16_t version,
                                     const wire_join_group_response *in);

#endif
