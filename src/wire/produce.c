/* Produce request/response bodies (v3-12). */
#include <string.h>

#include "kq/wire_produce.h"
#include "topic_array.h"
#include "wire_codec.h"

#define PRODUCE_MIN_VERSION 3
#define PRODUCE_MAX_VERSION 12
#define PRODUCE_TAG_CURRENT_LEADER 0
#define PRODUCE_TAG_NODE_ENDPOINTS 0

static bool version_ok(int16_t version)
{
    return version >= PRODUCE_MIN_VERSION && version <= PRODUCE_MAX_VERSION;
}

static void read_partition(kq_reader *r, const wire_ctx *c, void *part)
{
    wire_produce_partition *p = part;
    p->index = kq_read_i32(r);
    p->records = wire_read_nullable_bytes(r, c->flex);
    wire_read_tags_flex(r, c->flex);
}

static void write_partition(kq_writer *w, const wire_ctx *c, const void *part)
{
    const wire_produce_partition *p = part;
    kq_write_i32(w, p->index);
    wire_write_nullable_bytes(w, c->flex, p->records);
    wire_write_tags_flex(w, c->flex);
}

static const wire_topics_layout request_topics =
    WIRE_TOPICS_LAYOUT(wire_produce_topic, name, 2, 5, read_partition, write_partition);

int wire_produce_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                wire_produce_request *out)
{
    memset(out, 0, sizeof *out);
    out->transactional_id = WIRE_NULL_SLICE;
    if (!version_ok(version))
        return -1;
    bool flex = version >= 9;
    out->transactional_id = wire_read_nullable_string(r, flex);
    out->acks = kq_read_i16(r);
    out->timeout_ms = kq_read_i32(r);
    wire_ctx c = {version, flex, arena};
    out->topics = wire_topics_read(r, &c, &request_topics, &out->topic_count);
    wire_read_tags_flex(r, flex);
    return r->error ? -1 : 0;
}

void wire_produce_request_encode(kq_writer *w, int16_t version, const wire_produce_request *in)
{
    bool flex = version >= 9;
    wire_write_nullable_string(w, flex, in->transactional_id);
    kq_write_i16(w, in->acks);
    kq_write_i32(w, in->timeout_ms);
    wire_ctx c = {version, flex, NULL};
    wire_topics_write(w, &c, &request_topics, in->topics, in->topic_count);
    wire_write_tags_flex(w, flex);
}

/* Tagged fields of a partition response: tag 0 is CurrentLeader (v10+). */
static void read_partition_tags(kq_reader *r, int16_t version,
                                wire_produce_partition_response *p)
{
    uint32_t n = wire_tags_begin(r);
    for (uint32_t i = 0; i < n && !r->error; i++) {
        uint32_t tag;
        kq_reader sub;
        if (!wire_tag_next(r, &tag, &sub))
            break;
        if (version >= 10 && tag == PRODUCE_TAG_CURRENT_LEADER) {
            p->current_leader_id = kq_read_i32(&sub);
            p->current_leader_epoch = kq_read_i32(&sub);
            kq_skip_tagged_fields(&sub);
        }
        wire_tag_end(r, &sub);
    }
}

static void read_node_endpoints(kq_reader *sub, kq_arena *arena, wire_produce_response *out)
{
    int32_t n = wire_read_array_len(sub, true, false);
    /* node id, host, port, rack, tags: at least 11 bytes */
    wire_produce_node_endpoint *eps = wire_alloc_array(sub, arena, n, sizeof *eps, 11);
    for (int32_t i = 0; i < n && !sub->error; i++) {
        eps[i].node_id = kq_read_i32(sub);
        eps[i].host = wire_read_string(sub, true);
        eps[i].port = kq_read_i32(sub);
        eps[i].rack = wire_read_nullable_string(sub, true);
        kq_skip_tagged_fields(sub);
    }
    out->node_endpoints = eps;
    out->node_endpoint_count = sub->error ? 0 : n;
}

static void read_partition_response(kq_reader *r, const wire_ctx *c, void *part)
{
    wire_produce_partition_response *p = part;
    int16_t version = c->version;
    bool flex = c->flex;
    kq_arena *arena = c->arena;
    p->index = kq_read_i32(r);
    p->error_code = kq_read_i16(r);
    p->base_offset = kq_read_i64(r);
    p->log_append_time_ms = kq_read_i64(r);
    p->log_start_offset = version >= 5 ? kq_read_i64(r) : -1;
    p->error_message = WIRE_NULL_SLICE;
    p->current_leader_id = -1;
    p->current_leader_epoch = -1;
    if (version >= 8) {
        int32_t ne = wire_read_array_len(r, flex, false);
        wire_produce_record_error *errs = wire_alloc_array(r, arena, ne, sizeof *errs, 5);
        for (int32_t i = 0; i < ne && !r->error; i++) {
            errs[i].batch_index = kq_read_i32(r);
            errs[i].message = wire_read_nullable_string(r, flex);
            wire_read_tags_flex(r, flex);
        }
        p->record_errors = errs;
        p->record_error_count = r->error ? 0 : ne;
        p->error_message = wire_read_nullable_string(r, flex);
    }
    if (flex)
        read_partition_tags(r, version, p);
}

static void write_partition_response(kq_writer *w, const wire_ctx *c, const void *part)
{
    const wire_produce_partition_response *p = part;
    int16_t version = c->version;
    bool flex = c->flex;
    kq_write_i32(w, p->index);
    kq_write_i16(w, p->error_code);
    kq_write_i64(w, p->base_offset);
    kq_write_i64(w, p->log_append_time_ms);
    if (version >= 5)
        kq_write_i64(w, p->log_start_offset);
    if (version >= 8) {
        int32_t ne = p->record_errors ? p->record_error_count : 0;
        wire_write_array_len(w, flex, false, ne);
        for (int32_t i = 0; i < ne; i++) {
            kq_write_i32(w, p->record_errors[i].batch_index);
            wire_write_nullable_string(w, flex, p->record_errors[i].message);
            wire_write_tags_flex(w, flex);
        }
        wire_write_nullable_string(w, flex, p->error_message);
    }
    if (!flex)
        return;
    if (version >= 10 && p->current_leader_id >= 0) {
        kq_writer tag;
        kq_write_uvarint(w, 1);
        wire_tag_open(w, &tag);
        kq_write_i32(&tag, p->current_leader_id);
        kq_write_i32(&tag, p->current_leader_epoch);
        kq_write_empty_tagged_fields(&tag);
        wire_tag_close(w, PRODUCE_TAG_CURRENT_LEADER, &tag);
    } else {
        kq_write_empty_tagged_fields(w);
    }
}

/* index, error, base offset, append time: 22 bytes at least per partition */
static const wire_topics_layout response_topics =
    WIRE_TOPICS_LAYOUT(wire_produce_topic_response, name, 2, 22, read_partition_response,
                       write_partition_response);

int wire_produce_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                 wire_produce_response *out)
{
    memset(out, 0, sizeof *out);
    if (!version_ok(version))
        return -1;
    bool flex = version >= 9;
    wire_ctx c = {version, flex, arena};
    out->topics = wire_topics_read(r, &c, &response_topics, &out->topic_count);
    out->throttle_time_ms = kq_read_i32(r);
    if (flex) {
        uint32_t n = wire_tags_begin(r);
        for (uint32_t i = 0; i < n && !r->error; i++) {
            uint32_t tag;
            kq_reader sub;
            if (!wire_tag_next(r, &tag, &sub))
                break;
            if (version >= 10 && tag == PRODUCE_TAG_NODE_ENDPOINTS)
                read_node_endpoints(&sub, arena, out);
            wire_tag_end(r, &sub);
        }
    }
    return r->error ? -1 : 0;
}

void wire_produce_response_encode(kq_writer *w, int16_t version,
                                  const wire_produce_response *in)
{
    bool flex = version >= 9;
    wire_ctx c = {version, flex, NULL};
    wire_topics_write(w, &c, &response_topics, in->topics, in->topic_count);
    kq_write_i32(w, in->throttle_time_ms);
    if (!flex)
        return;
    int32_t ne = in->node_endpoints ? in->node_endpoint_count : 0;
    if (version >= 10 && ne > 0) {
        kq_writer tag;
        kq_write_uvarint(w, 1);
        wire_tag_open(w, &tag);
        kq_write_compact_array_len(&tag, ne);
        for (int32_t i = 0; i < ne; i++) {
            const wire_produce_node_endpoint *e = &in->node_endpoints[i];
            kq_write_i32(&tag, e->node_id);
            wire_write_string(&tag, true, e->host);
            kq_write_i32(&tag, e->port);
            wire_write_nullable_string(&tag, true, e->rack);
            kq_write_empty_tagged_fields(&tag);
        }
        wire_tag_close(w, PRODUCE_TAG_NODE_ENDPOINTS, &tag);
    } else {
        kq_write_empty_tagged_fields(w);
    }
}
