/* Vote request/response codec, versions 0-2 (always flexible). */
#include <string.h>

#include "kq/wire_vote.h"
#include "raft_common.h"
#include "topic_array.h"
#include "wire_codec.h"

static bool version_ok(int16_t v)
{
    return v >= WIRE_VOTE_MIN_VERSION && v <= WIRE_VOTE_MAX_VERSION;
}

static void read_partition(kq_reader *r, const wire_ctx *c, void *part)
{
    wire_vote_partition *p = part;
    p->partition_index = kq_read_i32(r);
    p->candidate_epoch = kq_read_i32(r);
    p->candidate_id = kq_read_i32(r);
    if (c->version >= 1) {
        p->candidate_directory_id = kq_read_uuid(r);
        p->voter_directory_id = kq_read_uuid(r);
    }
    p->last_offset_epoch = kq_read_i32(r);
    p->last_offset = kq_read_i64(r);
    p->pre_vote = c->version >= 2 ? kq_read_bool(r) : false;
    kq_skip_tagged_fields(r);
}

static void write_partition(kq_writer *w, const wire_ctx *c, const void *part)
{
    const wire_vote_partition *p = part;
    kq_write_i32(w, p->partition_index);
    kq_write_i32(w, p->candidate_epoch);
    kq_write_i32(w, p->candidate_id);
    if (c->version >= 1) {
        kq_write_uuid(w, p->candidate_directory_id);
        kq_write_uuid(w, p->voter_directory_id);
    }
    kq_write_i32(w, p->last_offset_epoch);
    kq_write_i64(w, p->last_offset);
    if (c->version >= 2)
        kq_write_bool(w, p->pre_vote);
    kq_write_empty_tagged_fields(w);
}

static void read_result(kq_reader *r, const wire_ctx *c, void *part)
{
    (void)c;
    wire_vote_partition_result *p = part;
    wire_raft_leader_result_read(r, &p->partition_index, &p->error_code, &p->leader_id,
                                 &p->leader_epoch);
    p->vote_granted = kq_read_bool(r);
    kq_skip_tagged_fields(r);
}

static void write_result(kq_writer *w, const wire_ctx *c, const void *part)
{
    (void)c;
    const wire_vote_partition_result *p = part;
    wire_raft_leader_result_write(w, p->partition_index, p->error_code, p->leader_id,
                                  p->leader_epoch);
    kq_write_bool(w, p->vote_granted);
    kq_write_empty_tagged_fields(w);
}

static const wire_topics_layout request_topics =
    WIRE_TOPICS_LAYOUT(wire_vote_topic, topic_name, 1, 1, read_partition, write_partition);
static const wire_topics_layout response_topics =
    WIRE_TOPICS_LAYOUT(wire_vote_topic_result, topic_name, 1, 1, read_result, write_result);

int wire_vote_request_decode(kq_reader *r, int16_t v, kq_arena *arena, wire_vote_request *out)
{
    memset(out, 0, sizeof *out);
    if (!version_ok(v)) {
        kq_reader_fail(r);
        return -1;
    }
    wire_ctx c = {v, true, arena};
    out->cluster_id = wire_read_nullable_string(r, true);
    out->voter_id = v >= 1 ? kq_read_i32(r) : -1;
    out->topics = wire_topics_read(r, &c, &request_topics, &out->topic_count);
    kq_skip_tagged_fields(r);
    return r->error ? -1 : 0;
}

void wire_vote_request_encode(kq_writer *w, int16_t v, const wire_vote_request *in)
{
    if (!version_ok(v)) {
        w->error = true;
        return;
    }
    wire_ctx c = {v, true, NULL};
    wire_write_nullable_string(w, true, in->cluster_id);
    if (v >= 1)
        kq_write_i32(w, in->voter_id);
    wire_topics_write(w, &c, &request_topics, in->topics, in->topic_count);
    kq_write_empty_tagged_fields(w);
}

int wire_vote_response_decode(kq_reader *r, int16_t v, kq_arena *arena, wire_vote_response *out)
{
    memset(out, 0, sizeof *out);
    if (!version_ok(v)) {
        kq_reader_fail(r);
        return -1;
    }
    wire_ctx c = {v, true, arena};
    out->error_code = kq_read_i16(r);
    out->topics = wire_topics_read(r, &c, &response_topics, &out->topic_count);
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
    wire_ctx c = {v, true, NULL};
    kq_write_i16(w, in->error_code);
    wire_topics_write(w, &c, &response_topics, in->topics, in->topic_count);
    if (v >= 1)
        wire_raft_node_endpoints_tag_write(w, in->node_endpoints, in->node_endpoint_count);
    else
        kq_write_empty_tagged_fields(w);
}
