/* OffsetFetch request/response codec, versions 1-10 (flexible from v6). */
#include <string.h>

#include "kq/wire_offset_fetch.h"
#include "topic_array.h"
#include "wire_codec.h"

/* Least bytes on the wire (compact encoding, the smaller): a topic (name,
 * array, tags), a request group (group id, member epoch absent, topics,
 * tags), a response partition (index, offset, metadata, error code) and a
 * response group (group id, topics, error code, tags). */
#define OF_TOPIC_MIN_WIRE 3
#define OF_REQUEST_GROUP_MIN_WIRE 3
#define OF_PART_MIN_WIRE 15
#define OF_RESPONSE_GROUP_MIN_WIRE 5

static bool version_ok(int16_t v)
{
    return v >= WIRE_OFFSET_FETCH_MIN_VERSION && v <= WIRE_OFFSET_FETCH_MAX_VERSION;
}

/* A topic's name up to v9 (compact from v6), its id from v10. */
static void read_topic_ref(kq_reader *r, int16_t v, kq_slice *name, kq_uuid *id)
{
    wire_read_topic_ref(r, v >= 6, v >= 10, name, id);
}

static void write_topic_ref(kq_writer *w, int16_t v, kq_slice name, kq_uuid id)
{
    wire_write_topic_ref(w, v >= 6, v >= 10, name, id);
}

/* ---- request ---- */

/* A nullable topic list (a count of -1 is null); v1's is not nullable. */
static wire_offset_fetch_request_topic *read_request_topics(kq_reader *r, int16_t v,
                                                            kq_arena *arena, int32_t *count)
{
    bool flex = v >= 6;
    int32_t n = wire_read_array_len(r, flex, v >= 2);
    wire_offset_fetch_request_topic *ts =
        wire_alloc_array(r, arena, n, sizeof *ts, OF_TOPIC_MIN_WIRE);
    for (int32_t i = 0; i < n && !r->error; i++) {
        wire_offset_fetch_request_topic *t = &ts[i];
        read_topic_ref(r, v, &t->name, &t->topic_id);
        t->partition_indexes =
            wire_read_i32_array(r, arena, flex, &t->partition_index_count);
        wire_read_tags_flex(r, flex);
    }
    *count = r->error ? 0 : n;
    return r->error ? NULL : ts;
}

static void write_request_topics(kq_writer *w, int16_t v,
                                 const wire_offset_fetch_request_topic *ts, int32_t n)
{
    bool flex = v >= 6;
    if (!ts && n > 0)
        n = 0;
    wire_write_array_len(w, flex, v >= 2, n);
    for (int32_t i = 0; i < n; i++) {
        write_topic_ref(w, v, ts[i].name, ts[i].topic_id);
        wire_write_i32_array(w, flex, ts[i].partition_indexes, ts[i].partition_index_count);
        wire_write_tags_flex(w, flex);
    }
}

static void read_request_group(kq_reader *r, int16_t v, kq_arena *arena,
                               wire_offset_fetch_request_group *g)
{
    g->group_id = wire_read_string(r, true);
    g->member_id = WIRE_NULL_SLICE;
    g->member_epoch = -1;
    if (v >= 9) {
        g->member_id = wire_read_nullable_string(r, true);
        g->member_epoch = kq_read_i32(r);
    }
    g->topics = read_request_topics(r, v, arena, &g->topic_count);
    wire_read_tags_flex(r, true);
}

static void write_request_group(kq_writer *w, int16_t v, const wire_offset_fetch_request_group *g)
{
    wire_write_string(w, true, g->group_id);
    if (v >= 9) {
        wire_write_nullable_string(w, true, g->member_id);
        kq_write_i32(w, g->member_epoch);
    }
    write_request_topics(w, v, g->topics, g->topic_count);
    wire_write_tags_flex(w, true);
}

int wire_offset_fetch_request_decode(kq_reader *r, int16_t v, kq_arena *arena,
                                     wire_offset_fetch_request *out)
{
    memset(out, 0, sizeof *out);
    out->group_id = kq_slice_cstr("");
    if (!version_ok(v)) {
        kq_reader_fail(r);
        return -1;
    }
    bool flex = v >= 6;
    if (v <= 7) {
        out->group_id = wire_read_string(r, flex);
        out->topics = read_request_topics(r, v, arena, &out->topic_count);
    } else {
        int32_t n = wire_read_array_len(r, true, false);
        out->groups = wire_alloc_array(r, arena, n, sizeof *out->groups,
                                       OF_REQUEST_GROUP_MIN_WIRE);
        for (int32_t i = 0; i < n && !r->error; i++)
            read_request_group(r, v, arena, &out->groups[i]);
        out->group_count = r->error ? 0 : n;
    }
    if (v >= 7)
        out->require_stable = kq_read_bool(r);
    wire_read_tags_flex(r, flex);
    return r->error ? -1 : 0;
}

void wire_offset_fetch_request_encode(kq_writer *w, int16_t v,
                                      const wire_offset_fetch_request *in)
{
    if (!version_ok(v)) {
        w->error = true;
        return;
    }
    bool flex = v >= 6;
    if (v <= 7) {
        wire_write_string(w, flex, in->group_id);
        write_request_topics(w, v, in->topics, in->topic_count);
    } else {
        int32_t n = in->groups ? in->group_count : 0;
        wire_write_array_len(w, true, false, n);
        for (int32_t i = 0; i < n; i++)
            write_request_group(w, v, &in->groups[i]);
    }
    if (v >= 7)
        kq_write_bool(w, in->require_stable);
    wire_write_tags_flex(w, flex);
}

/* ---- response ---- */

static void read_partition(kq_reader *r, const wire_ctx *c, void *part)
{
    wire_offset_fetch_partition *p = part;
    p->partition_index = kq_read_i32(r);
    p->committed_offset = kq_read_i64(r);
    p->committed_leader_epoch = c->version >= 5 ? kq_read_i32(r) : -1;
    p->metadata = wire_read_nullable_string(r, c->flex);
    p->error_code = kq_read_i16(r);
    wire_read_tags_flex(r, c->flex);
}

static void write_partition(kq_writer *w, const wire_ctx *c, const void *part)
{
    const wire_offset_fetch_partition *p = part;
    kq_write_i32(w, p->partition_index);
    kq_write_i64(w, p->committed_offset);
    if (c->version >= 5)
        kq_write_i32(w, p->committed_leader_epoch);
    wire_write_nullable_string(w, c->flex, p->metadata);
    kq_write_i16(w, p->error_code);
    wire_write_tags_flex(w, c->flex);
}

static const wire_topics_layout response_topics = WIRE_TOPICS_LAYOUT_REF(
    wire_offset_fetch_topic, name, topic_id, OF_TOPIC_MIN_WIRE, OF_PART_MIN_WIRE,
    read_partition, write_partition, read_topic_ref, write_topic_ref);

static void read_response_groups(kq_reader *r, const wire_ctx *c, wire_offset_fetch_response *out)
{
    int32_t n = wire_read_array_len(r, true, false);
    out->groups = wire_alloc_array(r, c->arena, n, sizeof *out->groups,
                                   OF_RESPONSE_GROUP_MIN_WIRE);
    for (int32_t i = 0; i < n && !r->error; i++) {
        wire_offset_fetch_group *g = &out->groups[i];
        g->group_id = wire_read_string(r, true);
        g->topics = wire_topics_read(r, c, &response_topics, &g->topic_count);
        g->error_code = kq_read_i16(r);
        wire_read_tags_flex(r, true);
    }
    out->group_count = r->error ? 0 : n;
}

int wire_offset_fetch_response_decode(kq_reader *r, int16_t v, kq_arena *arena,
                                      wire_offset_fetch_response *out)
{
    memset(out, 0, sizeof *out);
    if (!version_ok(v)) {
        kq_reader_fail(r);
        return -1;
    }
    wire_ctx c = {v, v >= 6, arena};
    if (v >= 3)
        out->throttle_time_ms = kq_read_i32(r);
    if (v <= 7) {
        out->topics = wire_topics_read(r, &c, &response_topics, &out->topic_count);
        if (v >= 2)
            out->error_code = kq_read_i16(r);
    } else {
        read_response_groups(r, &c, out);
    }
    wire_read_tags_flex(r, c.flex);
    return r->error ? -1 : 0;
}

void wire_offset_fetch_response_encode(kq_writer *w, int16_t v,
                                       const wire_offset_fetch_response *in)
{
    if (!version_ok(v)) {
        w->error = true;
        return;
    }
    wire_ctx c = {v, v >= 6, NULL};
    if (v >= 3)
        kq_write_i32(w, in->throttle_time_ms);
    if (v <= 7) {
        wire_topics_write(w, &c, &response_topics, in->topics, in->topic_count);
        if (v >= 2)
            kq_write_i16(w, in->error_code);
    } else {
        int32_t n = in->groups ? in->group_count : 0;
        wire_write_array_len(w, true, false, n);
        for (int32_t i = 0; i < n; i++) {
            const wire_offset_fetch_group *g = &in->groups[i];
            wire_write_string(w, true, g->group_id);
            wire_topics_write(w, &c, &response_topics, g->topics, g->topic_count);
            kq_write_i16(w, g->error_code);
            wire_write_tags_flex(w, true);
        }
    }
    wire_write_tags_flex(w, c.flex);
}
