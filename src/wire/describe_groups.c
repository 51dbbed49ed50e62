/* DescribeGroups request/response codec, versions 0-6 (flexible from v5). */
#include <string.h>

#include "kq/wire_describe_groups.h"
#include "wire_codec.h"

/* Least bytes on the wire, in the compact encoding (the classic one needs
 * more): a member (four strings, two bytes, tags) and a group (error code,
 * four strings, members, tags). */
#define DG_MEMBER_MIN_WIRE 7
#define DG_GROUP_MIN_WIRE 8

static bool version_ok(int16_t v)
{
    return v >= WIRE_DESCRIBE_GROUPS_MIN_VERSION && v <= WIRE_DESCRIBE_GROUPS_MAX_VERSION;
}

int wire_describe_groups_request_decode(kq_reader *r, int16_t v, kq_arena *arena,
                                        wire_describe_groups_request *out)
{
    memset(out, 0, sizeof *out);
    if (!version_ok(v)) {
        kq_reader_fail(r);
        return -1;
    }
    bool flex = v >= 5;
    out->groups = wire_read_string_array(r, arena, flex, &out->group_count);
    if (v >= 3)
        out->include_authorized_operations = kq_read_bool(r);
    wire_read_tags_flex(r, flex);
    return r->error ? -1 : 0;
}

void wire_describe_groups_request_encode(kq_writer *w, int16_t v,
                                         const wire_describe_groups_request *in)
{
    if (!version_ok(v)) {
        w->error = true;
        return;
    }
    bool flex = v >= 5;
    wire_write_string_array(w, flex, in->groups, in->group_count);
    if (v >= 3)
        kq_write_bool(w, in->include_authorized_operations);
    wire_write_tags_flex(w, flex);
}

/* Bytes that are not nullable: a null on the wire fails the reader. */
static kq_slice read_bytes(kq_reader *r, bool flex)
{
    kq_slice s = wire_read_nullable_bytes(r, flex);
    if (!r->error && s.len < 0)
        kq_reader_fail(r);
    return s;
}

static void write_bytes(kq_writer *w, bool flex, kq_slice s)
{
    if (wire_slice_is_null(s))
        s = (kq_slice){(const uint8_t *)"", 0};
    wire_write_nullable_bytes(w, flex, s);
}

static void read_member(kq_reader *r, int16_t v, bool flex, wire_describe_groups_member *m)
{
    m->member_id = wire_read_string(r, flex);
    m->group_instance_id = WIRE_NULL_SLICE;
    if (v >= 4)
        m->group_instance_id = wire_read_nullable_string(r, flex);
    m->client_id = wire_read_string(r, flex);
    m->client_host = wire_read_string(r, flex);
    m->member_metadata = read_bytes(r, flex);
    m->member_assignment = read_bytes(r, flex);
    wire_read_tags_flex(r, flex);
}

static void write_member(kq_writer *w, int16_t v, bool flex, const wire_describe_groups_member *m)
{
    wire_write_string(w, flex, m->member_id);
    if (v >= 4)
        wire_write_nullable_string(w, flex, m->group_instance_id);
    wire_write_string(w, flex, m->client_id);
    wire_write_string(w, flex, m->client_host);
    write_bytes(w, flex, m->member_metadata);
    write_bytes(w, flex, m->member_assignment);
    wire_write_tags_flex(w, flex);
}

static void read_group(kq_reader *r, int16_t v, kq_arena *arena, wire_describe_groups_group *g)
{
    bool flex = v >= 5;
    g->error_code = kq_read_i16(r);
    g->error_message = WIRE_NULL_SLICE;
    if (v >= 6)
        g->error_message = wire_read_nullable_string(r, flex);
    g->group_id = wire_read_string(r, flex);
    g->group_state = wire_read_string(r, flex);
    g->protocol_type = wire_read_string(r, flex);
    g->protocol_data = wire_read_string(r, flex);
    int32_t n = wire_read_array_len(r, flex, false);
    g->members = wire_alloc_array(r, arena, n, sizeof *g->members, DG_MEMBER_MIN_WIRE);
    for (int32_t i = 0; i < n && !r->error; i++)
        read_member(r, v, flex, &g->members[i]);
    g->member_count = r->error ? 0 : n;
    g->authorized_operations = INT32_MIN;
    if (v >= 3)
        g->authorized_operations = kq_read_i32(r);
    wire_read_tags_flex(r, flex);
}

static void write_group(kq_writer *w, int16_t v, const wire_describe_groups_group *g)
{
    bool flex = v >= 5;
    kq_write_i16(w, g->error_code);
    if (v >= 6)
        wire_write_nullable_string(w, flex, g->error_message);
    wire_write_string(w, flex, g->group_id);
    wire_write_string(w, flex, g->group_state);
    wire_write_string(w, flex, g->protocol_type);
    wire_write_string(w, flex, g->protocol_data);
    int32_t n = g->members ? g->member_count : 0;
    wire_write_array_len(w, flex, false, n);
    for (int32_t i = 0; i < n; i++)
        write_member(w, v, flex, &g->members[i]);
    if (v >= 3)
        kq_write_i32(w, g->authorized_operations);
    wire_write_tags_flex(w, flex);
}

int wire_describe_groups_response_decode(kq_reader *r, int16_t v, kq_arena *arena,
                                         wire_describe_groups_response *out)
{
    memset(out, 0, sizeof *out);
    if (!version_ok(v)) {
        kq_reader_fail(r);
        return -1;
    }
    bool flex = v >= 5;
    if (v >= 1)
        out->throttle_time_ms = kq_read_i32(r);
    int32_t n = wire_read_array_len(r, flex, false);
    out->groups = wire_alloc_array(r, arena, n, sizeof *out->groups, DG_GROUP_MIN_WIRE);
    for (int32_t i = 0; i < n && !r->error; i++)
        read_group(r, v, arena, &out->groups[i]);
    out->group_count = r->error ? 0 : n;
    wire_read_tags_flex(r, flex);
    return r->error ? -1 : 0;
}

void wire_describe_groups_response_encode(kq_writer *w, int16_t v,
                                          const wire_describe_groups_response *in)
{
    if (!version_ok(v)) {
        w->error = true;
        return;
    }
    bool flex = v >= 5;
    if (v >= 1)
        kq_write_i32(w, in->throttle_time_ms);
    int32_t n = in->groups ? in->group_count : 0;
    wire_write_array_len(w, flex, false, n);
    for (int32_t i = 0; i < n; i++)
        write_group(w, v, &in->groups[i]);
    wire_write_tags_flex(w, flex);
}
