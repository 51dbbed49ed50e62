/* AddRaftVoter (api key 80, KIP-853), versions 0-1, flexible in all
 * versions: asks the leader to add a replica (id, directory id, endpoints)
 * to the voter set. v1 (KIP-1186) adds AckWhenCommitted: answer once the new
 * set is committed (true, the default) or once the leader wrote it. The
 * response (the same in both versions) is RemoveRaftVoter's too. */
#ifndef KQ_WIRE_ADD_RAFT_VOTER_H
#define KQ_WIRE_ADD_RAFT_VOTER_H

#include <stdbool.h>
#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"
#include "kq/wire_raft_common.h"

#define WIRE_ADD_RAFT_VOTER_MIN_VERSION 0
#define WIRE_ADD_RAFT_VOTER_MAX_VERSION 1
#define WIRE_ADD_RAFT_VOTER_FLEX_VERSION 0

#define WIRE_ADD_RAFT_VOTER_REQUEST(S)                                    \
    WF(S, STRING, cluster_id, 0, WL, WIRE_NULLABLE(0))                    \
    WF(S, I32, timeout_ms, 0, WL)                                         \
    WF(S, I32, voter_id, 0, WL)                                           \
    WF(S, UUID, voter_directory_id, 0, WL)                                \
    WA(S, wire_raft_listener, listeners, listener_count, 0, WL)           \
    WF(S, BOOL, ack_when_committed, 1, WL, WIRE_DEFAULT(true))

#define WIRE_ADD_RAFT_VOTER_STRUCTS(D, DI)                      \
    D(wire_add_raft_voter_request, WIRE_ADD_RAFT_VOTER_REQUEST) \
    D(wire_add_raft_voter_response, WIRE_RAFT_VOTER_CHANGE_RESPONSE)
WIRE_DECLARE_STRUCTS(WIRE_ADD_RAFT_VOTER_STRUCTS)
WIRE_API_FUNCS(wire_add_raft_voter)

#endif
