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
#define WIRE_APIS(X)                                                                        \
    X(PRODUCE, 0, "Produce", wire_produce, 0, handle_produce)                               \
    X(FETCH, 1, "Fetch", wire_fetch, 4, handle_fetch_request)                               \
    X(LIST_OFFSETS, 2, "ListOffsets", wire_list_offsets, 0, handle_list_offsets)            \
    X(FIND_COORDINATOR, 10, "FindCoordinator", wire_find_coordinator, 0,                    \
      handle_find_coordinator)                                                              \
    X(METADATA, 3, "Metadata", wire_metadata, 0, handle_metadata)                           \
    X(API_VERSIONS, 18, "ApiVersions", wire_api_versions, 0, handle_api_versions)           \
    X(INIT_PRODUCER_ID, 22, "InitProducerId", wire_init_producer_id, 0,                     \
      handle_init_producer_id)                                                              \
    X(VOTE, 52, "Vote", wire_vote, 0, handle_raft_request)                                  \
    X(BEGIN_QUORUM_EPOCH, 53, "BeginQuorumEpoch", wire_begin_quorum_epoch, 0,               \
      handle_raft_request)                                                                  \
    X(END_QUORUM_EPOCH, 54, "EndQuorumEpoch", wire_end_quorum_epoch, 0, handle_raft_request) \
    X(DESCRIBE_QUORUM, 55, "DescribeQuorum", wire_describe_quorum, 0, handle_describe_quorum) \
    X(DESCRIBE_CLUSTER, 60, "DescribeCluster", wire_describe_cluster, 0,                    \
      handle_describe_cluster)                                                              \
    X(SASL_HANDSHAKE, 17, "SaslHandshake", wire_sasl_handshake, 0, handle_sasl_handshake)   \
    X(SASL_AUTHENTICATE, 36, "SaslAuthenticate", wire_sasl_authenticate, 0,                 \
      handle_sasl_authenticate)                                                             \
    X(FETCH_SNAPSHOT, 59, "FetchSnapshot", wire_fetch_snapshot, 0, handle_fetch_snapshot)   \
    X(OFFSET_COMMIT, 8, "OffsetCommit", wire_offset_commit, 2, handle_offset_commit)        \
    X(OFFSET_FETCH, 9, "OffsetFetch", wire_offset_fetch, 1, handle_offset_fetch)            \
    X(JOIN_GROUP, 11, "JoinGroup", wire_join_group, 0, handle_join_group)                   \
    X(HEARTBEAT, 12, "Heartbeat", wire_heartbeat, 0, handle_heartbeat)                      \
    X(LEAVE_GROUP, 13, "LeaveGroup", wire_leave_group, 0, handle_leave_group)               \
    X(SYNC_GROUP, 14, "SyncGroup", wire_sync_group, 0, handle_sync_group)                   \
    X(DESCRIBE_GROUPS, 15, "DescribeGroups", wire_describe_groups, 0, handle_describe_groups) \
    X(LIST_GROUPS, 16, "ListGroups", wire_list_groups, 0, handle_list_groups)               \
    X(ADD_RAFT_VOTER, 80, "AddRaftVoter", wire_add_raft_voter, 0, handle_add_raft_voter)    \
    X(REMOVE_RAFT_VOTER, 81, "RemoveRaftVoter", wire_remove_raft_voter, 0,                  \
      handle_remove_raft_voter)                                                             \
    X(UPDATE_RAFT_VOTER, 82, "UpdateRaftVoter", wire_update_raft_voter, 0,                  \
      handle_update_raft_voter)                                                             \
    X(UPDATE_FEATURES, 57, "UpdateFeatures", wire_update_features, 0, handle_update_features) \
    X(ADD_PARTITIONS_TO_TXN, 24, "AddPartitionsToTxn", wire_add_partitions_to_txn, 0,       \
      handle_add_partitions_to_txn)                                                         \
    X(ADD_OFFSETS_TO_TXN, 25, "AddOffsetsToTxn", wire_add_offsets_to_txn, 0,                \
      handle_add_offsets_to_txn)                                                            \
    X(END_TXN, 26, "EndTxn", wire_end_txn, 0, handle_end_txn)                               \
    X(TXN_OFFSET_COMMIT, 28, "TxnOffsetCommit", wire_txn_offset_commit, 0,                  \
      handle_txn_offset_commit)                                                             \
    X(DESCRIBE_TRANSACTIONS, 65, "DescribeTransactions", wire_describe_transactions, 0,     \
      handle_describe_transactions)                                                         \
    X(LIST_TRANSACTIONS, 66, "ListTransactions", wire_list_transactions, 0,                 \
      handle_list_transactions)                                                             \
    X(DELETE_GROUPS, 42, "DeleteGroups", wire_delete_groups, 0, handle_delete_groups)       \
    X(OFFSET_DELETE, 47, "OffsetDelete", wire_offset_delete, 0, handle_offset_delete)       \
    X(CONSUMER_GROUP_HEARTBEAT, 68, "ConsumerGroupHeartbeat", wire_consumer_group_heartbeat, \
      0, handle_consumer_group_heartbeat)                                                   \
    X(CONSUMER_GROUP_DESCRIBE, 69, "ConsumerGroupDescribe", wire_consumer_group_describe, 0, \
      handle_consumer_group_describe)

/* Encoders that also write versions their decoder refuses, X(N, response,
 * min, max): the tests' clients send Produce v0-2 and v13 and Metadata v13 to
 * check that the server refuses them. */
#define WIRE_ENCODE_WIDER(X) X(PRODUCE, false, 0, 13) X(METADATA, false, 0, 13)

/* Structs several APIs share (their STRUCTS lists). */
#define WIRE_SHARED_STRUCTS(X) X(API_RANGE) X(RAFT_COMMON)

#endif
