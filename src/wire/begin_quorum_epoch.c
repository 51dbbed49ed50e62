/* BeginQuorumEpoch request/response codec, versions 0-1 (flexible v1). */
#include <string.h>

#include "kq/wire_begin_quorum_epoch.h"
#include "raft_common.h"
#include "topic_array.h"
#include "wire_codec.h"

static bool version_ok(int16_t v)
{
    return v >= WIRE_BEGIN_QUORUM_EPOCH_MIN_VERSION && v <= WIRE_BEGIN_QUORUM_EPOCH_MAX_VERSION;
}

static void read_partition(kq_reader *r, const wire_ctx *c, void *part)
{
    wire_begin_quorum_epoch_partition *p = part;
    p->partition_index = kq_read_i32(r);
    if (c->version >= 1)
        p->voter_directory_id = kq_read_uuid(r);
    p->leader_id = kq_read_i32(r);
    p->leader_epoch = kq_read_i32(r);
    wire_read_tags_flex(r, c->flex);
}

static void write_partition(kq_writer *w, const wire_ctx *c, const void *part)
{
    const wire_begin_quorum_epoch_partition *p = part;
    kq_write_i32(w, p->partition_index);
    if (c->version >= 1)
        kq_write_uuid(w, p->voter_directory_id);
    kq_write_i32(w, p->leader_id);
    kq_write_i32(w, p->leader_epoch);
    wire_write_tags_flex(w, c->flex);
}

static void read_result(kq_reader *r, const wire_ctx *c, void *part)
{
    wire_begin_quorum_epoch_partition_result *p = part;
    wire_raft_leader_result_read(r, &p->partition_index, &p->error_code, &p->leader_id,
                                 &p->leader_epoch);
    wire_read_tags_flex(r, c->flex);
}

static void write_result(kq_writer *w, const wire_ctx *c, const void *part)
{
    const wire_begin_quorum_epoch_partition_result *p = part;
    wire_raft_leader_result_write(w, p->partition_index, p->error_code, p->leader_id,
                                  p->leader_epoch);
    wire_write_tags_flex(w, c->flex);
}

static const wire_topics_layout request_topics = WIRE_TOPICS_LAYOUT(
    wire_begin_quorum_epoch_topic, topic_name, 1, 1, read_partition, write_partition);
static const wire_topics_layout response_topics = WIRE_TOPICS_LAYOUT(
    wire_begin_quorum_epoch_topic_result, topic_name, 1, 1, read_result, write_result);

int wire_begin_quorum_epoch_request_decode(kq_reader *r, int16_t v, kq_arena *arena,
                                           wire_begin_quorum_epoch_request *out)
{
    memset(out, 0, sizeof *out);
    if (!version_ok(v)) {
        kq_reader_fail(r);
        return -1;
    }
    wire_ctx c = {v, v >= 1, arena};
    out->cluster_id = wire_read_nullable_string(r, c.flex);
    out->voter_id = v >= 1 ? kq_read_i32(r) : -1;
    out->topics = wire_topics_read(r, &c, &request_topics, &out->topic_count);
    if (v >= 1)
        out->leader_endpoint_count =
            wire_raft_listeners_read(r, arena, &out->leader_endpoints);
    wire_read_tags_flex(r, c.flex);
    return r->error ? -1 : 0;
}

void wire_begin_quorum_epoch_request_encode(kq_writer *w, int16_t v,
                                            const wire_begin_quorum_epoch_request *in)
{
    if (!version_ok(v)) {
        w->error = true;
        return;
    }
    wire_ctx c = {v, v >= 1, NULL};
    wire_write_nullable_string(w, c.flex, in->cluster_id);
    if (v >= 1)
        kq_write_i32(w, in->voter_id);
    wire_topics_write(w, &c, &request_topics, in->topics, in->topic_count);
    if (v >= 1)
        wire_raft_listeners_write(w, in->leader_endpoints, in->leader_endpoint_count);
    wire_write_tags_flex(w, c.flex);
}

int wire_begin_quorum_epoch_response_decode(kq_reader *r, int16_t v, kq_arena *arena,
                                            wire_begin_quorum_epoch_response *out)
{
    memset(out, 0, sizeof *out);
    if (!version_ok(v)) {
        kq_reader_fail(r);
        return -1;
    }
    wire_ctx c = {v, v >= 1, arena};
    out->error_code = kq_read_i16(r);
    out->topics = wire_topics_read(r, &c, &response_topics, &out->topic_count);
    if (c.flex)
        wire_raft_node_endpoints_tag_read(r, arena, &out->node_endpoints,
                                          &out->node_endpoint_count);
    return r->error ? -1 : 0;
}

void wire_begin_quorum_epoch_response_encode(kq_writer *w, int16_t v,
                                             const wire_begin_quorum_epoch_response *in)
{
    if (!version_ok(v)) {
        w->error = true;
        return;
    }
    wire_ctx c = {v, v >= 1, NULL};
    kq_write_i16(w, in->error_code);
    wire_topics_write(w, &c, &response_topics, in->topics, in->topic_count);
    if (c.flex)
        wire_raft_node_endpoints_tag_write(w, in->node_endpoints, in->node_endpoint_count);
}
