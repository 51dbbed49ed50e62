/* Vote request/response codec, versions 0-1 (always flexible). */
#include <string.h>

#include "kq/wire_vote.h"
#include "raft_common.h"
#include "wire_codec.h"

static bool version_ok(int16_t v)
{
    return v >= WIRE_VOTE_MIN_VERSION && v <= WIRE_VOTE_MAX_VERSION;
}

int wire_vote_request_decode(kq_reader *r, int16_t v, kq_arena *arena, wire_vote_request *out)
{
    memset(out, 0, sizeof *out);
    if (!version_ok(v)) {
        kq_reader_fail(r);
        return -1;
    }
    out->cluster_id = wire_read_nullable_string(r, true);
    out->voter_id = v >= 1 ? kq_read_i32(r) : -1;
    int32_t nt = wire_read_array_len(r, true, false);
    out->topics = wire_alloc_array(r, arena, nt, sizeof *out->topics, 1);
    out->topic_count = r->error ? 0 : nt;
    for (int32_t i = 0; i < nt && !r->error; i++) {
        wire_vote_topic *t = &out->topics[i];
        t->topic_name = wire_read_string(r, true);
        int32_t np = wire_read_array_len(r, true, false);
        t->partitions = wire_alloc_array(r, arena, np, sizeof *t->partitions, 1);
        t->partition_count = r->error ? 0 : np;
        for (int32_t j = 0; j < np && !r->error; j++) {
            wire_vote_partition *p = &t->partitions[j];
            p->partition_index = kq_read_i32(r);
            p->candidate_epoch = kq_read_i32(r);
            p->candidate_id = kq_read_i32(r);
            if (v >= 1) {
                p->candidate_directory_id = kq_read_uuid(r);
                p->voter_directory_id = kq_read_uuid(r);
            }
            p->last_offset_epoch = kq_read_i32(r);
            p->last_offset = kq_read_i64(r);
            kq_skip_tagged_fields(r);
        }
        kq_skip_tagged_fields(r);
    }
    kq_skip_tagged_fields(r);
    return r->error ? -1 : 0;
}

void wire_vote_request_encode(kq_writer *w, int16_t v, const wire_vote_request *in)
{
    if (!version_ok(v)) {
        w->error = true;
        return;
    }
    wire_write_nullable_string(w, true, in->cluster_id);
    if (v >= 1)
        kq_write_i32(w, in->voter_id);
    wire_write_array_len(w, true, false, in->topic_count);
    for (int32_t i = 0; i < in->topic_count; i++) {
        const wire_vote_topic *t = &in->topics[i];
        wire_write_string(w, true, t->topic_name);
        wire_write_array_len(w, true, false, t->partition_count);
        for (int32_t j = 0; j < t->partition_count; j++) {
            const wire_vote_partition *p = &t->partitions[j];
            kq_write_i32(w, p->partition_index);
            kq_write_i32(w, p->candidate_epoch);
            kq_write_i32(w, p->candidate_id);
            if (v >= 1) {
                kq_write_uuid(w, p->candidate_directory_id);
                kq_write_uuid(w, p->voter_directory_id);
            }
            kq_write_i32(w, p->last_offset_epoch);
            kq_write_i64(w, p->last_offset);
            kq_write_empty_tagged_fields(w);
        }
        kq_write_empty_tagged_fields(w);
    }
    kq_write_empty_tagged_fields(w);
}

int wire_vote_response_decode(kq_reader *r, int16_t v, kq_arena *arena, wire_vote_response *out)
{
    memset(out, 0, sizeof *out);
    if (!version_ok(v)) {
        kq_reader_fail(r);
        return -1;
    }
    out->error_code = kq_read_i16(r);
    int32_t nt = wire_read_array_len(r, true, false);
    out->topics = wire_alloc_array(r, arena, nt, sizeof *out->topics, 1);
    out->topic_count = r->error ? 0 : nt;
    for (int32_t i = 0; i < nt && !r->error; i++) {
        wire_vote_topic_result *t = &out->topics[i];
        t->topic_name = wire_read_string(r, true);
        int32_t np = wire_read_array_len(r, true, false);
        t->partitions = wire_alloc_array(r, arena, np, sizeof *t->partitions, 1);
        t->partition_count = r->error ? 0 : np;
        for (int32_t j = 0; j < np && !r->error; j++) {
            wire_vote_partition_result *p = &t->partitions[j];
            p->partition_index = kq_read_i32(r);
            p->error_code = kq_read_i16(r);
            p->leader_id = kq_read_i32(r);
            p->leader_epoch = kq_read_i32(r);
            p->vote_granted = kq_read_bool(r);
            kq_skip_tagged_fields(r);
        }
        kq_skip_tagged_fields(r);
    }
    if (v >= 1)
        wire_raft_node_endpoints_tag_read(r, arena, &out->node_endpoints,
                                          &out->node_endpoint_count);
    else
        kq_skip_tagged_fields(r);
    return r->error ? -1 : 0;
}

void wire_vote_response_encode(kq_writer *w, int16_t v, const wire_vote_response *in)
{
    if (!version_ok(v)) {
        w->error = true;
        return;
    }
    kq_write_i16(w, in->error_code);
    wire_write_array_len(w, true, false, in->topic_count);
    for (int32_t i = 0; i < in->topic_count; i++) {
        const wire_vote_topic_result *t = &in->topics[i];
        wire_write_string(w, true, t->topic_name);
        wire_write_array_len(w, true, false, t->partition_count);
        for (int32_t j = 0; j < t->partition_count; j++) {
            const wire_vote_partition_result *p = &t->partitions[j];
            kq_write_i32(w, p->partition_index);
            kq_write_i16(w, p->error_code);
            kq_write_i32(w, p->leader_id);
            kq_write_i32(w, p->leader_epoch);
            kq_write_bool(w, p->vote_granted);
            kq_write_empty_tagged_fields(w);
        }
        kq_write_empty_tagged_fields(w);
    }
    if (v >= 1)
        wire_raft_node_endpoints_tag_write(w, in->node_endpoints, in->node_endpoint_count);
    else
        kq_write_empty_tagged_fields(w);
}
