/* Codecs for the endpoint arrays shared by the KRaft APIs. These only exist
 * in flexible versions, so they always use compact encodings. */
#ifndef KQ_WIRE_RAFT_COMMON_PRIV_H
#define KQ_WIRE_RAFT_COMMON_PRIV_H

#include "kq/buf.h"
#include "kq/wire_raft_common.h"

/* Each returns the element count and sets *out (NULL/0 on error). */
int32_t wire_raft_node_endpoints_read(kq_reader *r, kq_arena *arena,
                                      wire_raft_node_endpoint **out);
void wire_raft_node_endpoints_write(kq_writer *w, const wire_raft_node_endpoint *v, int32_t n);
int32_t wire_raft_listeners_read(kq_reader *r, kq_arena *arena, wire_raft_listener **out);
void wire_raft_listeners_write(kq_writer *w, const wire_raft_listener *v, int32_t n);

/* Top-level tagged section holding only NodeEndpoints as tag 0 (written only
 * when n > 0). */
void wire_raft_node_endpoints_tag_read(kq_reader *r, kq_arena *arena,
                                       wire_raft_node_endpoint **out, int32_t *n);
void wire_raft_node_endpoints_tag_write(kq_writer *w, const wire_raft_node_endpoint *v,
                                        int32_t n);

/* PartitionIndex, ErrorCode, LeaderId, LeaderEpoch: how every KRaft
 * response partition starts (tagged fields are left to the caller). */
void wire_raft_leader_result_read(kq_reader *r, int32_t *partition_index, int16_t *error_code,
                                  int32_t *leader_id, int32_t *leader_epoch);
void wire_raft_leader_result_write(kq_writer *w, int32_t partition_index, int16_t error_code,
                                   int32_t leader_id, int32_t leader_epoch);

#endif
