/* DescribeQuorum request/response codec, versions 0-2 (always flexible). */
#include <string.h>

#include "kq/wire_describe_quorum.h"
#include "raft_common.h"
#include "topic_array.h"
#include "wire_codec.h"

static bool version_ok(int16_t v)
{
    return v >= WIRE_DESCRIBE_QUORUM_MIN_VERSION && v <= WIRE_DESCRIBE_QUORUM_MAX_VERSION;
}

static void read_request_partition(kq_reader *r, const wire_ctx *c, void *part)
{
    (void)c;
    wire_describe_quorum_partition *p = part;
    p->partition_index = kq_read_i32(r);
    kq_skip_tagged_fields(r);
}

static void write_request_partition(kq_writer *w, const wire_ctx *c, const void *part)
{
    (void)c;
    const wire_describe_quorum_partition *p = part;
    kq_write_i32(w, p->partition_index);
    kq_write_empty_tagged_fields(w);
}

static const wire_topics_layout request_topics =
    WIRE_TOPICS_LAYOUT(wire_describe_quorum_topic, topic_name, 1, 1, read_request_partition,
                       write_request_partition);

int wire_describe_quorum_request_decode(kq_reader *r, int16_t v, kq_arena *arena,
                                        wire_describe_quorum_request *out)
{
    memset(out, 0, sizeof *out);
    if (!version_ok(v)) {
        kq_reader_fail(r);
        return -1;
    }
    wire_ctx c = {v, true, arena};
    out->topics = wire_topics_read(r, &c, &request_topics, &out->topic_count);
    kq_skip_tagged_fields(r);
    return r->error ? -1 : 0;
}

void wire_describe_quorum_request_encode(kq_writer *w, int16_t v,
                                         const wire_describe_quorum_request *in)
{
    if (!version_ok(v)) {
        w->error = true;
        return;
    }
    wire_ctx c = {v, true, NULL};
    wire_topics_write(w, &c, &request_topics, in->topics, in->topic_count);
    kq_write_empty_tagged_fields(w);
}

static int32_t read_replicas(kq_reader *r, int16_t v, kq_arena *arena,
                             wire_describe_quorum_replica_state **out)
{
    int32_t n = wire_read_array_len(r, true, false);
    wire_describe_quorum_replica_state *s = wire_alloc_array(r, arena, n, sizeof *s, 1);
    for (int32_t i = 0; i < n && !r->error; i++) {
        s[i].replica_id = kq_read_i32(r);
        if (v >= 2)
            s[i].replica_directory_id = kq_read_uuid(r);
        s[i].log_end_offset = kq_read_i64(r);
        s[i].last_fetch_timestamp = v >= 1 ? kq_read_i64(r) : -1;
        s[i].last_caught_up_timestamp = v >= 1 ? kq_read_i64(r) : -1;
        kq_skip_tagged_fields(r);
    }
    *out = r->error ? NULL : s;
    return r->error ? 0 : n;
}

static void write_replicas(kq_writer *w, int16_t v, const wire_describe_quorum_replica_state *s,
                           int32_t n)
{
    wire_write_array_len(w, true, false, n);
    for (int32_t i = 0; i < n; i++) {
        kq_write_i32(w, s[i].replica_id);
        if (v >= 2)
            kq_write_uuid(w, s[i].replica_directory_id);
        kq_write_i64(w, s[i].log_end_offset);
        if (v >= 1) {
            kq_write_i64(w, s[i].last_fetch_timestamp);
            kq_write_i64(w, s[i].last_caught_up_timestamp);
        }
        kq_write_empty_tagged_fields(w);
    }
}

static void read_partition(kq_reader *r, const wire_ctx *c, void *part)
{
    wire_describe_quorum_partition_data *p = part;
    int16_t v = c->version;
    p->partition_index = kq_read_i32(r);
    p->error_code = kq_read_i16(r);
    p->error_message = v >= 2 ? wire_read_nullable_string(r, true) : WIRE_NULL_SLICE;
    p->leader_id = kq_read_i32(r);
    p->leader_epoch = kq_read_i32(r);
    p->high_watermark = kq_read_i64(r);
    p->current_voter_count = read_replicas(r, v, c->arena, &p->current_voters);
    p->observer_count = read_replicas(r, v, c->arena, &p->observers);
    kq_skip_tagged_fields(r);
}

static void write_partition(kq_writer *w, const wire_ctx *c, const void *part)
{
    const wire_describe_quorum_partition_data *p = part;
    int16_t v = c->version;
    kq_write_i32(w, p->partition_index);
    kq_write_i16(w, p->error_code);
    if (v >= 2)
        wire_write_nullable_string(w, true, p->error_message);
    kq_write_i32(w, p->leader_id);
    kq_write_i32(w, p->leader_epoch);
    kq_write_i64(w, p->high_watermark);
    write_replicas(w, v, p->current_voters, p->current_voter_count);
    write_replicas(w, v, p->observers, p->observer_count);
    kq_write_empty_tagged_fields(w);
}

static const wire_topics_layout response_topics = WIRE_TOPICS_LAYOUT(
    wire_describe_quorum_topic_data, topic_name, 1, 1, read_partition, write_partition);

int wire_describe_quorum_response_decode(kq_reader *r, int16_t v, kq_arena *arena,
                                         wire_describe_quorum_response *out)
{
    memset(out, 0, sizeof *out);
    if (!version_ok(v)) {
        kq_reader_fail(r);
        return -1;
    }
    out->error_code = kq_read_i16(r);
    out->error_message = v >= 2 ? wire_read_nullable_string(r, true) : WIRE_NULL_SLICE;
    wire_ctx c = {v, true, arena};
    out->topics = wire_topics_read(r, &c, &response_topics, &out->topic_count);
    if (v >= 2) {
        int32_t nn = wire_read_array_len(r, true, false);
        out->nodes = wire_alloc_array(r, arena, nn, sizeof *out->nodes, 1);
        out->node_count = r->error ? 0 : nn;
        for (int32_t i = 0; i < nn && !r->error; i++) {
            wire_describe_quorum_node *node = &out->nodes[i];
            node->node_id = kq_read_i32(r);
            node->listener_count = wire_raft_listeners_read(r, arena, &node->listeners);
            kq_skip_tagged_fields(r);
        }
    }
    kq_skip_tagged_fields(r);
    return r->error ? -1 : 0;
}

void wire_describe_quorum_response_encode(kq_writer *w, int16_t v,
                                          const wire_describe_quorum_response *in)
{
    if (!version_ok(v)) {
        w->error = true;
        return;
    }
    kq_write_i16(w, in->error_code);
    if (v >= 2)
        wire_write_nullable_string(w, true, in->error_message);
    wire_ctx c = {v, true, NULL};
    wire_topics_write(w, &c, &response_topics, in->topics, in->topic_count);
    if (v >= 2) {
        wire_write_array_len(w, true, false, in->node_count);
        for (int32_t i = 0; i < in->node_count; i++) {
            kq_write_i32(w, in->nodes[i].node_id);
            wire_raft_listeners_write(w, in->nodes[i].listeners, in->nodes[i].listener_count);
            kq_write_empty_tagged_fields(w);
        }
    }
    kq_write_empty_tagged_fields(w);
}
