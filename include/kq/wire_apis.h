/* Every API we speak, once. A row names the API (N: WIRE_API_<N>, and the
 * description in include/kq/wire_<api>.h, whose WIRE_<N>_STRUCTS list and
 * WIRE_<N>_{MIN,MAX,FLEX}_VERSION give its fields and versions), its key,
 * its name, the prefix of its request/response structs and functions, the
 * lowest version ApiVersions advertises (below the lowest we decode only
 * where a client needs it, see src/wire/api_table.c) and its handler.
 * The key enum (kq/wire.h), the API table and ApiVersions, the registry of
 * descriptions (src/wire/wire_msgs.c) and the handler dispatch all expand
 * this one list. Rows are in ApiVersions order; add new ones at the end
 * (fuzz seeds select APIs by position). */
#ifndef KQ_WIRE_APIS_H
#define KQ_WIRE_APIS_H

/* X(N, key, name, prefix, advertised_min, handler) */
#define WIRE_APIS(X)                                                                       \
    X(VOTE, 52, "Vote", wire_vote, 0, handle_raft_request)                                 \
    X(BEGIN_QUORUM_EPOCH, 53, "BeginQuorumEpoch", wire_begin_quorum_epoch, 0,              \
      handle_raft_request)                                                                 \
    X(END_QUORUM_EPOCH, 54, "EndQuorumEpoch", wire_end_quorum_epoch, 0, handle_raft_request) \
    X(DESCRIBE_QUORUM, 55, "DescribeQuorum", wire_describe_quorum, 0, handle_describe_quorum) \
    X(DESCRIBE_CLUSTER, 60, "DescribeCluster", wire_describe_cluster, 0,                   \
      handle_describe_cluster)

/* Structs several APIs share (their STRUCTS lists). */
#define WIRE_SHARED_STRUCTS(X) X(RAFT_COMMON)

#endif
