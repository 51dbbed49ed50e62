/* Vote (api key 52), versions 0-2, flexible in all versions. v1 (KIP-853)
 * adds directory ids and the responder's endpoints; v2 (Kafka 4.0, KIP-996)
 * adds PreVote to each partition. */
#ifndef KQ_WIRE_VOTE_H
#define KQ_WIRE_VOTE_H

#include <stdbool.h>
#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"
#include "kq/wire_raft_common.h"

#define WIRE_VOTE_MIN_VERSION 0
#define WIRE_VOTE_MAX_VERSION 2
#define WIRE_VOTE_FLEX_VERSION 0

#define WIRE_VOTE_PARTITION(S)                                                        \
    WF(S, I32, partition_index, 0, WL)                                                \
    WF(S, I32, candidate_epoch, 0, WL, WIRE_KNAME("replica_epoch"))                   \
    WF(S, I32, candidate_id, 0, WL, WIRE_KNAME("replica_id"))                         \
    WF(S, UUID, candidate_directory_id, 1, WL, WIRE_KNAME("replica_directory_id"))    \
    WF(S, UUID, voter_directory_id, 1, WL)                                            \
    WF(S, I32, last_offset_epoch, 0, WL)                                              \
    WF(S, I64, last_offset, 0, WL)                                                    \
    WF(S, BOOL, pre_vote, 2, WL)

#define WIRE_VOTE_TOPIC(S)         \
    WF(S, STRING, topic_name, 0, WL) \
    WA(S, wire_vote_partition, partitions, partition_count, 0, WL)

#define WIRE_VOTE_REQUEST(S)                                \
    WF(S, STRING, cluster_id, 0, WL, WIRE_NULLABLE(0))      \
    WF(S, I32, voter_id, 1, WL, WIRE_DEFAULT(-1))           \
    WA(S, wire_vote_topic, topics, topic_count, 0, WL)

#define WIRE_VOTE_PARTITION_RESULT(S)  \
    WF(S, I32, partition_index, 0, WL) \
    WF(S, I16, error_code, 0, WL)      \
    WF(S, I32, leader_id, 0, WL)       \
    WF(S, I32, leader_epoch, 0, WL)    \
    WF(S, BOOL, vote_granted, 0, WL)

#define WIRE_VOTE_TOPIC_RESULT(S)    \
    WF(S, STRING, topic_name, 0, WL) \
    WA(S, wire_vote_partition_result, partitions, partition_count, 0, WL)

#define WIRE_VOTE_RESPONSE(S)                                        \
    WF(S, I16, error_code, 0, WL)                                    \
    WA(S, wire_vote_topic_result, topics, topic_count, 0, WL)        \
    WA(S, wire_raft_node_endpoint, node_endpoints, node_endpoint_count, 1, WL, WIRE_TAG(0, 1))

#define WIRE_VOTE_STRUCTS(D, DI) \
    D(wire_vote_partition, WIRE_VOTE_PARTITION) \
    D(wire_vote_topic, WIRE_VOTE_TOPIC) \
    D(wire_vote_request, WIRE_VOTE_REQUEST) \
    D(wire_vote_partition_result, WIRE_VOTE_PARTITION_RESULT) \
    D(wire_vote_topic_result, WIRE_VOTE_TOPIC_RESULT) \
    D(wire_vote_response, WIRE_VOTE_RESPONSE)
WIRE_DECLARE_STRUCTS(WIRE_VOTE_STRUCTS)
WIRE_API_FUNCS(wire_vote)

#endif
