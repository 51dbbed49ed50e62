/* FetchSnapshot (api key 59, KIP-630), versions 0-1; flexible from v0. A
 * follower below the leader's log start fetches the leader's snapshot in
 * chunks with it. Decoders borrow strings and the chunk bytes from the input
 * and take arrays from the arena. Fields absent in a version get the default
 * noted beside them on decode and are not written on encode. */
#ifndef KQ_WIRE_FETCH_SNAPSHOT_H
#define KQ_WIRE_FETCH_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_fetch.h"
#include "kq/wire_desc.h"
#include "kq/wire_raft_common.h"

#define WIRE_FETCH_SNAPSHOT_MIN_VERSION 0
#define WIRE_FETCH_SNAPSHOT_MAX_VERSION 1

#define WIRE_FETCH_SNAPSHOT_FLEX_VERSION 0

/* FetchSnapshot's own SnapshotId and LeaderIdAndEpoch: Kafka defaults their
 * fields to 0 here (Fetch's, in kq/wire_fetch.h, to -1). */
#define WIRE_FS_SNAPSHOT_ID(S)       \
    WF(S, I64, end_offset, 0, WL)    \
    WF(S, I32, epoch, 0, WL)

#define WIRE_FS_LEADER(S)            \
    WF(S, I32, leader_id, 0, WL)     \
    WF(S, I32, leader_epoch, 0, WL)

/* replica_directory_id: tag 0, v1+; all-zero = unset */
#define WIRE_FS_PARTITION(S)                                                \
    WF(S, I32, partition, 0, WL)                                            \
    WF(S, I32, current_leader_epoch, 0, WL)                                 \
    WT(S, wire_fetch_snapshot_snapshot_id, snapshot_id, 0, WL)                       \
    WF(S, I64, position, 0, WL) /* byte position in the snapshot */         \
    WF(S, UUID, replica_directory_id, 1, WL, WIRE_TAG(0, 1))

#define WIRE_FS_TOPIC(S)       \
    WF(S, STRING, name, 0, WL) \
    WA(S, wire_fetch_snapshot_partition, partitions, partition_count, 0, WL)

/* cluster_id: tag 0; null = unset (not written) */
#define WIRE_FS_REQUEST(S)                                                  \
    WF(S, STRING, cluster_id, 0, WL, WIRE_NULLABLE(0), WIRE_TAG(0, 0))      \
    WF(S, I32, replica_id, 0, WL, WIRE_DEFAULT(-1))                         \
    WF(S, I32, max_bytes, 0, WL, WIRE_DEFAULT(INT32_MAX))                   \
    WA(S, wire_fetch_snapshot_topic, topics, topic_count, 0, WL)

/* current_leader: tag 0, with has_current_leader; size: of the whole
 * snapshot; position: where the chunk (unaligned_records) starts. */
#define WIRE_FS_PARTITION_DATA(S)                                                         \
    WF(S, I32, index, 0, WL)                                                              \
    WF(S, I16, error_code, 0, WL)                                                         \
    WT(S, wire_fetch_snapshot_snapshot_id, snapshot_id, 0, WL)                                     \
    WTP(S, wire_fetch_snapshot_leader, current_leader, has_current_leader, 0, WL,     \
        WIRE_TAG(0, 0))                                                                   \
    WF(S, I64, size, 0, WL)                                                               \
    WF(S, I64, position, 0, WL)                                                           \
    WF(S, RECORDS, unaligned_records, 0, WL)

#define WIRE_FS_TOPIC_RESPONSE(S) \
    WF(S, STRING, name, 0, WL)    \
    WA(S, wire_fetch_snapshot_partition_data, partitions, partition_count, 0, WL)

#define WIRE_FS_RESPONSE(S)                                                  \
    WF(S, I32, throttle_time_ms, 0, WL)                                      \
    WF(S, I16, error_code, 0, WL)                                            \
    WA(S, wire_fetch_snapshot_topic_response, topics, topic_count, 0, WL)    \
    WA(S, wire_raft_node_endpoint, node_endpoints, node_endpoint_count, 1, WL, WIRE_TAG(0, 1))

#define WIRE_FETCH_SNAPSHOT_STRUCTS(D, DI)                              \
    D(wire_fetch_snapshot_snapshot_id, WIRE_FS_SNAPSHOT_ID)             \
    D(wire_fetch_snapshot_leader, WIRE_FS_LEADER)                       \
    D(wire_fetch_snapshot_partition, WIRE_FS_PARTITION)                 \
    D(wire_fetch_snapshot_topic, WIRE_FS_TOPIC)                         \
    D(wire_fetch_snapshot_request, WIRE_FS_REQUEST)                     \
    D(wire_fetch_snapshot_partition_data, WIRE_FS_PARTITION_DATA)       \
    D(wire_fetch_snapshot_topic_response, WIRE_FS_TOPIC_RESPONSE)       \
    D(wire_fetch_snapshot_response, WIRE_FS_RESPONSE)
WIRE_DECLARE_STRUCTS(WIRE_FETCH_SNAPSHOT_STRUCTS)
WIRE_API_FUNCS(wire_fetch_snapshot)

#endif
