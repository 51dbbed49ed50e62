/* EndQuorumEpoch request/response codec, versions 0-1 (flexible v1). */
#include <string.h>

#include "kq/wire_end_quorum_epoch.h"
#include "raft_common.h"
#include "wire_codec.h"

static bool version_ok(int16_t v)
{
    return v >= WIRE_END_QUORUM_EPOCH_MIN_VERSION && v <= WIRE_END_QUORUM_EPOCH_MAX_VERSION;
}

static void read_partition(kq_reader *r, int16_t v, kq_arena *arena,
                           wire_end_quorum_epoch_partition *p)
{
    bool flex = v >= 1;
    p->partition_index = kq_read_i32(r);
    p->leader_id = kq_read_i32(r);
    p->leader_epoch = kq_read_i32(r);
    if (v == 0) {
        p->preferred_successors =
            wire_read_i32_array(r, arena, false, &p->preferred_successor_count);
    } else {
        int32_t n = wire_read_array_len(r, true, false);
        p->preferred_candidates = wire_alloc_array(r, arena, n, sizeof *p->preferred_candidates, 1);
        p->preferred_candidate_count = r->error ? 0 : n;
        for (int32_t i = 0; i < n && !r->error; i++) {
            p->preferred_candidates[i].candidate_id = kq_read_i32(r);
            p->preferred_candidates[i].candidate_directory_id = kq_read_uuid(r);
            kq_skip_tagged_fields(r);
        }
    }
    wire_read_tags_flex(r, flex);
}

int wire_end_quorum_epoch_request_decode(kq_reader *r, int16_t v, kq_arena *arena,
                                         wire_end_quorum_epoch_request *out)
{
    memset(out, 0, sizeof *out);
    if (!version_ok(v)) {
        kq_reader_fail(r);
        return -1;
    }
    bool flex = v >= 1;
    out->cluster_id = wire_read_nullable_string(r, flex);
    int32_t nt = wire_read_array_len(r, flex, false);
    out->topics = wire_alloc_array(r, arena, nt, sizeof *out->topics, 1);
    out->topic_count = r->error ? 0 : nt;
    for (int32_t i = 0; i < nt && !r->error; i++) {
        wire_end_quorum_epoch_topic *t = &out->topics[i];
        t->topic_name = wire_read_string(r, flex);
        int32_t np = wire_read_array_len(r, flex, false);
        t->partitions = wire_alloc_array(r, arena, np, sizeof *t->partitions, 1);
        t->partition_count = r->error ? 0 : np;
        for (int32_t j = 0; j < np && !r->error; j++)
            read_partition(r, v, arena, &t->partitions[j]);
        wire_read_tags_flex(r, flex);
    }
    if (v >= 1)
        out->leader_endpoint_count =
            wire_raft_listeners_read(r, arena, &out->leader_endpoints);
    wire_read_tags_flex(r, flex);
    return r->error ? -1 : 0;
}

void wire_end_quorum_epoch_request_encode(kq_writer *w, int16_t v,
                                          const wire_end_quorum_epoch_request *in)
{
    if (!version_ok(v)) {
        w->error = true;
        return;
    }
    bool flex = v >= 1;
    wire_write_nullable_string(w, flex, in->cluster_id);
    wire_write_array_len(w, flex, false, in->topic_count);
    for (int32_t i = 0; i < in->topic_count; i++) {
        const wire_end_quorum_epoch_topic *t = &in->topics[i];
        wire_write_string(w, flex, t->topic_name);
        wire_write_array_len(w, flex, false, t->partition_count);
        for (int32_t j = 0; j < t->partition_count; j++) {
            const wire_end_quorum_epoch_partition *p = &t->partitions[j];
            kq_write_i32(w, p->partition_index);
            kq_write_i32(w, p->leader_id);
            kq_write_i32(w, p->leader_epoch);
            if (v == 0) {
                wire_write_i32_array(w, false, p->preferred_successors,
                                        p->preferred_successor_count);
            } else {
                wire_write_array_len(w, true, false, p->preferred_candidate_count);
                for (int32_t k = 0; k < p->preferred_candidate_count; k++) {
                    kq_write_i32(w, p->preferred_candidates[k].candidate_id);
                    kq_write_uuid(w, p->preferred_candidates[k].candidate_directory_id);
                    kq_write_empty_tagged_fields(w);
                }
            }
            wire_write_tags_flex(w, flex);
        }
        wire_write_tags_flex(w, flex);
    }
    if (v >= 1)
        wire_raft_listeners_write(w, in->leader_endpoints, in->leader_endpoint_count);
    wire_write_tags_flex(w, flex);
}

int wire_end_quorum_epoch_response_decode(kq_reader *r, int16_t v, kq_arena *arena,
                                          wire_end_quorum_epoch_response *out)
{
    memset(out, 0, sizeof *out);
    if (!version_ok(v)) {
        kq_reader_fail(r);
        return -1;
    }
    bool flex = v >= 1;
    out->error_code = kq_read_i16(r);
    int32_t nt = wire_read_array_len(r, flex, false);
    out->topics = wire_alloc_array(r, arena, nt, sizeof *out->topics, 1);
    out->topic_count = r->error ? 0 : nt;
    for (int32_t i = 0; i < nt && !r->error; i++) {
        wire_end_quorum_epoch_topic_result *t = &out->topics[i];
        t->topic_name = wire_read_string(r, flex);
        int32_t np = wire_read_array_len(r, flex, false);
        t->partitions = wire_alloc_array(r, arena, np, sizeof *t->partitions, 1);
        t->partition_count = r->error ? 0 : np;
        for (int32_t j = 0; j < np && !r->error; j++) {
            wire_end_quorum_epoch_partition_result *p = &t->partitions[j];
            p->partition_index = kq_read_i32(r);
            p->error_code = kq_read_i16(r);
            p->leader_id = kq_read_i32(r);
            p->leader_epoch = kq_read_i32(r);
            wire_read_tags_flex(r, flex);
        }
        wire_read_tags_flex(r, flex);
    }
    if (flex)
        wire_raft_node_endpoints_tag_read(r, arena, &out->node_endpoints,
                                          &out->node_endpoint_count);
    return r->error ? -1 : 0;
}

void wire_end_quorum_epoch_response_encode(kq_writer *w, int16_t v,
                                           const wire_end_quorum_epoch_response *in)
{
    if (!version_ok(v)) {
        w->error = true;
        return;
    }
    bool flex = v >= 1;
    kq_write_i16(w, in->error_code);
    wire_write_array_len(w, flex, false, in->topic_count);
    for (int32_t i = 0; i < in->topic_count; i++) {
        const wire_end_quorum_epoch_topic_result *t = &in->topics[i];
        wire_write_string(w, flex, t->topic_name);
        wire_write_array_len(w, flex, false, t->partition_count);
        for (int32_t j = 0; j < t->partition_count; j++) {
            const wire_end_quorum_epoch_partition_result *p = &t->partitions[j];
            kq_write_i32(w, p->partition_index);
            kq_write_i16(w, p->error_code);
            kq_write_i32(w, p->leader_id);
            kq_write_i32(w, p->leader_epoch);
            wire_write_tags_flex(w, flex);
        }
        wire_write_tags_flex(w, flex);
    }
    if (flex)
        wire_raft_node_endpoints_tag_write(w, in->node_endpoints, in->node_endpoint_count);
}
