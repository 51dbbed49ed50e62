/* UpdateRaftVoter (api key 82, KIP-853), version 0, flexible: a voter tells
 * the leader its endpoints and the kraft.version range it supports. The
 * response carries the current leader as tagged field 0. */
#ifndef KQ_WIRE_UPDATE_RAFT_VOTER_H
#define KQ_WIRE_UPDATE_RAFT_VOTER_H

#include <stdbool.h>
#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"
#include "kq/wire_raft_common.h"

#define WIRE_UPDATE_RAFT_VOTER_MIN_VERSION 0
#define WIRE_UPDATE_RAFT_VOTER_MAX_VERSION 0
#define WIRE_UPDATE_RAFT_VOTER_FLEX_VERSION 0

#define WIRE_UPDATE_RAFT_VOTER_KRAFT_VERSION(S)  \
    WF(S, I16, min_supported_version, 0, WL)     \
    WF(S, I16, max_supported_version, 0, WL)

#define WIRE_UPDATE_RAFT_VOTER_REQUEST(S)                                          \
    WF(S, STRING, cluster_id, 0, WL, WIRE_NULLABLE(0))                             \
    WF(S, I32, current_leader_epoch, 0, WL)                                        \
    WF(S, I32, voter_id, 0, WL)                                                    \
    WF(S, UUID, voter_directory_id, 0, WL)                                         \
    WA(S, wire_raft_listener, listeners, listener_count, 0, WL)                    \
    WT(S, wire_update_raft_voter_kraft_version, kraft_version_feature, 0, WL)

#define WIRE_UPDATE_RAFT_VOTER_CURRENT_LEADER(S)   \
    WF(S, I32, leader_id, 0, WL, WIRE_DEFAULT(-1))  \
    WF(S, I32, leader_epoch, 0, WL, WIRE_DEFAULT(-1)) \
    WF(S, STRING, host, 0, WL, WIRE_DEFAULT_EMPTY)  \
    WF(S, I32, port, 0, WL)

#define WIRE_UPDATE_RAFT_VOTER_RESPONSE(S)                                           \
    WF(S, I32, throttle_time_ms, 0, WL)                                              \
    WF(S, I16, error_code, 0, WL)                                                    \
    WTP(S, wire_update_raft_voter_current_leader, current_leader, has_current_leader, 0, \
        WL, WIRE_TAG(0, 0))

#define WIRE_UPDATE_RAFT_VOTER_STRUCTS(D, DI)                                          \
    D(wire_update_raft_voter_kraft_version, WIRE_UPDATE_RAFT_VOTER_KRAFT_VERSION)     \
    D(wire_update_raft_voter_request, WIRE_UPDATE_RAFT_VOTER_REQUEST)                 \
    D(wire_update_raft_voter_current_leader, WIRE_UPDATE_RAFT_VOTER_CURRENT_LEADER)   \
    D(wire_update_raft_voter_response, WIRE_UPDATE_RAFT_VOTER_RESPONSE)
WIRE_DECLARE_STRUCTS(WIRE_UPDATE_RAFT_VOTER_STRUCTS)
WIRE_API_FUNCS(wire_update_raft_voter)

#endif
