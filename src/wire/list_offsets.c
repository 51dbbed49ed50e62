/* ListOffsets request/response bodies. */
#include <string.h>

#include "kq/wire_list_offsets.h"
#include "topic_array.h"
#include "wire_codec.h"

#define LO_MAX_VERSION 10

static void read_partition(kq_reader *r, const wire_ctx *c, void *part)
{
    wire_list_offsets_partition *p = part;
    int16_t version = c->version;
    p->partition_index = kq_read_i32(r);
    p->current_leader_epoch = version >= 4 ? kq_read_i32(r) : -1;
    p->timestamp = kq_read_i64(r);
    p->max_num_offsets = version == 0 ? kq_read_i32(r) : 1;
    wire_read_tags_flex(r, c->flex);
}

static void write_partition(kq_writer *w, const wire_ctx *c, const void *part)
{
    const wire_list_offsets_partition *p = part;
    kq_write_i32(w, p->partition_index);
    if (c->version >= 4)
        kq_write_i32(w, p->current_leader_epoch);
    kq_write_i64(w, p->timestamp);
    if (c->version == 0)
        kq_write_i32(w, p->max_num_offsets);
    wire_write_tags_flex(w, c->flex);
}

static void read_partition_response(kq_reader *r, const wire_ctx *c, void *part)
{
    wire_list_offsets_partition_response *p = part;
    p->partition_index = kq_read_i32(r);
    p->error_code = kq_read_i16(r);
    p->timestamp = -1;
    p->offset = -1;
    p->leader_epoch = -1;
    if (c->version == 0) {
        int32_t no = wire_read_array_len(r, false, false);
        int64_t *offs = wire_alloc_array(r, c->arena, no, sizeof *offs, 8);
        for (int32_t j = 0; j < no && !r->error; j++)
            offs[j] = kq_read_i64(r);
        p->old_style_offsets = offs;
        p->old_style_offset_count = r->error ? 0 : no;
    } else {
        p->timestamp = kq_read_i64(r);
        p->offset = kq_read_i64(r);
    }
    if (c->version >= 4)
        p->leader_epoch = kq_read_i32(r);
    wire_read_tags_flex(r, c->flex);
}

static void write_partition_response(kq_writer *w, const wire_ctx *c, const void *part)
{
    const wire_list_offsets_partition_response *p = part;
    kq_write_i32(w, p->partition_index);
    kq_write_i16(w, p->error_code);
    if (c->version == 0) {
        int32_t no = p->old_style_offsets ? p->old_style_offset_count : 0;
        wire_write_array_len(w, false, false, no);
        for (int32_t j = 0; j < no; j++)
            kq_write_i64(w, p->old_style_offsets[j]);
    } else {
        kq_write_i64(w, p->timestamp);
        kq_write_i64(w, p->offset);
    }
    if (c->version >= 4)
        kq_write_i32(w, p->leader_epoch);
    wire_write_tags_flex(w, c->flex);
}

static const wire_topics_layout request_topics =
    WIRE_TOPICS_LAYOUT(wire_list_offsets_topic, name, 2, 12, read_partition, write_partition);
static const wire_topics_layout response_topics =
    WIRE_TOPICS_LAYOUT(wire_list_offsets_topic_response, name, 2, 7, read_partition_response,
                       write_partition_response);

int wire_list_offsets_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                     wire_list_offsets_request *out)
{
    memset(out, 0, sizeof *out);
    if (version < 0 || version > LO_MAX_VERSION)
        return -1;
    wire_ctx c = {version, version >= 6, arena};
    out->replica_id = kq_read_i32(r);
    if (version >= 2)
        out->isolation_level = kq_read_i8(r);
    out->topics = wire_topics_read(r, &c, &request_topics, &out->topic_count);
    if (version >= 10)
        out->timeout_ms = kq_read_i32(r);
    wire_read_tags_flex(r, c.flex);
    return r->error ? -1 : 0;
}

void wire_list_offsets_request_encode(kq_writer *w, int16_t version,
                                      const wire_list_offsets_request *in)
{
    wire_ctx c = {version, version >= 6, NULL};
    kq_write_i32(w, in->replica_id);
    if (version >= 2)
        kq_write_i8(w, in->isolation_level);
    wire_topics_write(w, &c, &request_topics, in->topics, in->topic_count);
    if (version >= 10)
        kq_write_i32(w, in->timeout_ms);
    wire_write_tags_flex(w, c.flex);
}

int wire_list_offsets_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                      wire_list_offsets_response *out)
{
    memset(out, 0, sizeof *out);
    if (version < 0 || version > LO_MAX_VERSION)
        return -1;
    wire_ctx c = {version, version >= 6, arena};
    if (version >= 2)
        out->throttle_time_ms = kq_read_i32(r);
    out->topics = wire_topics_read(r, &c, &response_topics, &out->topic_count);
    wire_read_tags_flex(r, c.flex);
    return r->error ? -1 : 0;
}

void wire_list_offsets_response_encode(kq_writer *w, int16_t version,
                                       const wire_list_offsets_response *in)
{
    wire_ctx c = {version, version >= 6, NULL};
    if (version >= 2)
        kq_write_i32(w, in->throttle_time_ms);
    wire_topics_write(w, &c, &response_topics, in->topics, in->topic_count);
    wire_write_tags_flex(w, c.flex);
}
