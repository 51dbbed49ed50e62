/* OffsetCommit request/response codec, versions 2-10 (flexible from v8). */
#include <string.h>

#include "kq/wire_offset_commit.h"
#include "topic_array.h"
#include "wire_codec.h"

/* Least bytes on the wire (compact encoding, the smaller): a topic (name,
 * partitions, tags), a request partition (index, offset, metadata) and a
 * response partition (index, error code). */
#define OC_TOPIC_MIN_WIRE 3
#define OC_REQUEST_PART_MIN_WIRE 13
#define OC_RESPONSE_PART_MIN_WIRE 6

static bool version_ok(int16_t v)
{
    return v >= WIRE_OFFSET_COMMIT_MIN_VERSION && v <= WIRE_OFFSET_COMMIT_MAX_VERSION;
}

/* A topic's name up to v9 (compact from v8), its id from v10. */
static void read_topic_ref(kq_reader *r, int16_t v, kq_slice *name, kq_uuid *id)
{
    wire_read_topic_ref(r, v >= 8, v >= 10, name, id);
}

static void write_topic_ref(kq_writer *w, int16_t v, kq_slice name, kq_uuid id)
{
    wire_write_topic_ref(w, v >= 8, v >= 10, name, id);
}

static void read_partition(kq_reader *r, const wire_ctx *c, void *part)
{
    wire_offset_commit_partition *p = part;
    p->partition_index = kq_read_i32(r);
    p->committed_offset = kq_read_i64(r);
    p->committed_leader_epoch = c->version >= 6 ? kq_read_i32(r) : -1;
    p->committed_metadata = wire_read_nullable_string(r, c->flex);
    wire_read_tags_flex(r, c->flex);
}

static void write_partition(kq_writer *w, const wire_ctx *c, const void *part)
{
    const wire_offset_commit_partition *p = part;
    kq_write_i32(w, p->partition_index);
    kq_write_i64(w, p->committed_offset);
    if (c->version >= 6)
        kq_write_i32(w, p->committed_leader_epoch);
    wire_write_nullable_string(w, c->flex, p->committed_metadata);
    wire_write_tags_flex(w, c->flex);
}

static const wire_topics_layout request_topics = WIRE_TOPICS_LAYOUT_REF(
    wire_offset_commit_topic, name, topic_id, OC_TOPIC_MIN_WIRE, OC_REQUEST_PART_MIN_WIRE,
    read_partition, write_partition, read_topic_ref, write_topic_ref);

int wire_offset_commit_request_decode(kq_reader *r, int16_t v, kq_arena *arena,
                                      wire_offset_commit_request *out)
{
    memset(out, 0, sizeof *out);
    out->group_instance_id = WIRE_NULL_SLICE;
    out->retention_time_ms = -1;
    if (!version_ok(v)) {
        kq_reader_fail(r);
        return -1;
    }
    wire_ctx c = {v, v >= 8, arena};
    out->group_id = wire_read_string(r, c.flex);
    out->generation_id_or_member_epoch = kq_read_i32(r);
    out->member_id = wire_read_string(r, c.flex);
    if (v >= 7)
        out->group_instance_id = wire_read_nullable_string(r, c.flex);
    if (v <= 4)
        out->retention_time_ms = kq_read_i64(r);
    out->topics = wire_topics_read(r, &c, &request_topics, &out->topic_count);
    wire_read_tags_flex(r, c.flex);
    return r->error ? -1 : 0;
}

void wire_offset_commit_request_encode(kq_writer *w, int16_t v,
                                       const wire_offset_commit_request *in)
{
    if (!version_ok(v)) {
        w->error = true;
        return;
    }
    wire_ctx c = {v, v >= 8, NULL};
    wire_write_string(w, c.flex, in->group_id);
    kq_write_i32(w, in->generation_id_or_member_epoch);
    wire_write_string(w, c.flex, in->member_id);
    if (v >= 7)
        wire_write_nullable_string(w, c.flex, in->group_instance_id);
    if (v <= 4)
        kq_write_i64(w, in->retention_time_ms);
    wire_topics_write(w, &c, &request_topics, in->topics, in->topic_count);
    wire_write_tags_flex(w, c.flex);
}

static void read_partition_response(kq_reader *r, const wire_ctx *c, void *part)
{
    wire_offset_commit_partition_response *p = part;
    p->partition_index = kq_read_i32(r);
    p->error_code = kq_read_i16(r);
    wire_read_tags_flex(r, c->flex);
}

static void write_partition_response(kq_writer *w, const wire_ctx *c, const void *part)
{
    const wire_offset_commit_partition_response *p = part;
    kq_write_i32(w, p->partition_index);
    kq_write_i16(w, p->error_code);
    wire_write_tags_flex(w, c->flex);
}

static const wire_topics_layout response_topics = WIRE_TOPICS_LAYOUT_REF(
    wire_offset_commit_topic_response, name, topic_id, OC_TOPIC_MIN_WIRE,
    OC_RESPONSE_PART_MIN_WIRE, read_partition_response, write_partition_response,
    read_topic_ref, write_topic_ref);

int wire_offset_commit_response_decode(kq_reader *r, int16_t v, kq_arena *arena,
                                       wire_offset_commit_response *out)
{
    memset(out, 0, sizeof *out);
    if (!version_ok(v)) {
        kq_reader_fail(r);
        return -1;
    }
    wire_ctx c = {v, v >= 8, arena};
    if (v >= 3)
        out->throttle_time_ms = kq_read_i32(r);
    out->topics = wire_topics_read(r, &c, &response_topics, &out->topic_count);
    wire_read_tags_flex(r, c.flex);
    return r->error ? -1 : 0;
}

void wire_offset_commit_response_encode(kq_writer *w, int16_t v,
                                        const wire_offset_commit_response *in)
{
    if (!version_ok(v)) {
        w->error = true;
        return;
    }
    wire_ctx c = {v, v >= 8, NULL};
    if (v >= 3)
        kq_write_i32(w, in->throttle_time_ms);
    wire_topics_write(w, &c, &response_topics, in->topics, in->topic_count);
    wire_write_tags_flex(w, c.flex);
}
