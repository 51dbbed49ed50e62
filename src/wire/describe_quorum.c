/* DescribeQuorum request/response codec, versions 0-2 (always flexible). */
#include <string.h>

#include "kq/wire_describe_quorum.h"
#include "raft_common.h"
#include "wire_codec.h"

static bool version_ok(int16_t v)
{
    return v >= WIRE_DESCRIBE_QUORUM_MIN_VERSION && v <= WIRE_DESCRIBE_QUORUM_MAX_VERSION;
}

int wire_describe_quorum_request_decode(kq_reader *r, int16_t v, kq_arena *arena,
                                        wire_describe_quorum_request *out)
{
    memset(out, 0, sizeof *out);
    if (!version_ok(v)) {
        kq_reader_fail(r);
        return -1;
    }
    int32_t nt = wire_read_array_len(r, true, false);
    out->topics = wire_alloc_array(r, arena, nt, sizeof *out->topics, 1);
    out->topic_count = r->error ? 0 : nt;
    for (int32_t i = 0; i < nt && !r->error; i++) {
        wire_describe_quorum_topic *t = &out->topics[i];
        t->topic_name = wire_read_string(r, true);
        int32_t np = wire_read_array_len(r, true, false);
        t->partitions = wire_alloc_array(r, arena, np, sizeof *t->partitions, 1);
        t->partition_count = r->error ? 0 : np;
        for (int32_t j = 0; j < np && !r->error; j++) {
            t->partitions[j].partition_index = kq_read_i32(r);
            kq_skip_tagged_fields(r);
        }
        kq_skip_tagged_fields(r);
    }
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
    wire_write_array_len(w, true, false, in->topic_count);
    for (int32_t i = 0; i < in->topic_count; i++) {
        const wire_describe_quorum_topic *t = &in->topics[i];
        wire_write_string(w, true, t->topic_name);
        wire_write_array_len(w, true, false, t->partition_count);
        for (int32_t j = 0; j < t->partition_count; j++) {
            kq_write_i32(w, t->partitions[j].partition_index);
            kq_write_empty_tagged_fields(w);
        }
        kq_write_empty_tagged_fields(w);
    }
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

static void read_partition(kq_reader *r, int16_t v, kq_arena *arena,
                           wire_describe_quorum_partition_data *p)
{
    p->partition_index = kq_read_i32(r);
    p->error_code = kq_read_i16(r);
    p->error_message = v >= 2 ? wire_read_nullable_string(r, true) : WIRE_NULL_SLICE;
    p->leader_id = kq_read_i32(r);
    p->leader_epoch = kq_read_i32(r);
    p->high_watermark = kq_read_i64(r);
    p->current_voter_count = read_replicas(r, v, arena, &p->current_voters);
    p->observer_count = read_replicas(r, v, arena, &p->observers);
    kq_skip_tagged_fields(r);
}

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
    int32_t nt = wire_read_array_len(r, true, false);
    out->topics = wire_alloc_array(r, arena, nt, sizeof *out->topics, 1);
    out->topic_count = r->error ? 0 : nt;
    for (int32_t i = 0; i < nt && !r->error; i++) {
        wire_describe_quorum_topic_data *t = &out->topics[i];
        t->topic_name = wire_read_string(r, true);
        int32_t np = wire_read_array_len(r, true, false);
        t->partitions = wire_alloc_array(r, arena, np, sizeof *t->partitions, 1);
        t->partition_count = r->error ? 0 : np;
        for (int32_t j = 0; j < np && !r->error; j++)
            read_partition(r, v, arena, &t->partitions[j]);
        kq_skip_tagged_fields(r);
    }
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
    wire_write_array_len(w, true, false, in->topic_count);
    for (int32_t i = 0; i < in->topic_count; i++) {
        const wire_describe_quorum_topic_data *t = &in->topics[i];
        wire_write_string(w, true, t->topic_name);
        wire_write_array_len(w, true, false, t->partition_count);
        for (int32_t j = 0; j < t->partition_count; j++) {
            const wire_describe_quorum_partition_data *p = &t->partitions[j];
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
        kq_write_empty_tagged_fields(w);
    }
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
