/* RemoveRaftVoter (api key 81, KIP-853), version 0, flexible: asks the
 * leader to remove a voter, named by id and directory id, from the voter
 * set. */
#ifndef KQ_WIRE_REMOVE_RAFT_VOTER_H
#define KQ_WIRE_REMOVE_RAFT_VOTER_H

#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"
#include "kq/wire_raft_common.h"

#define WIRE_REMOVE_RAFT_VOTER_MIN_VERSION 0
#define WIRE_REMOVE_RAFT_VOTER_MAX_VERSION 0
#define WIRE_REMOVE_RAFT_VOTER_FLEX_VERSION 0

#define WIRE_REMOVE_RAFT_VOTER_REQUEST(S)                 \
    WF(S, STRING, cluster_id, 0, WL, WIRE_NULLABLE(0))    \
    WF(S, I32, voter_id, 0, WL)                           \
    WF(S, UUID, voter_directory_id, 0, WL)

#define WIRE_REMOVE_RAFT_VOTER_STRUCTS(D, DI)                         \
    D(wire_remove_raft_voter_request, WIRE_REMOVE_RAFT_VOTER_REQUEST) \
    D(wire_remove_raft_voter_response, WIRE_RAFT_VOTER_CHANGE_RESPONSE)
WIRE_DECLARE_STRUCTS(WIRE_REMOVE_RAFT_VOTER_STRUCTS)
WIRE_API_FUNCS(wire_remove_raft_voter)

#endif
