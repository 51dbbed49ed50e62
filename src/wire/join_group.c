/* JoinGroup request/response codec, versions 0-9 (flexible from v6). */
#include <string.h>

#include "group_codec.h"
#include "kq/wire_join_group.h"
#include "wire_codec.h"

/* Least bytes of a protocol / member on the wire: a compact string and
 * compact bytes (plus a nullable instance id for a member); the classic
 * encoding's fixed-size lengths take more. */
#define JG_PROTOCOL_MIN_WIRE 2
#define JG_MEMBER_MIN_WIRE 2

static bool version_ok(int16_t v)
{
    return v >= WIRE_JOIN_GROUP_MIN_VERSION && v <= WIRE_JOIN_GROUP_MAX_VERSION;
}

/* ---- request ---- */

static void read_protocols(kq_reader *r, bool flex, kq_arena *arena,
                           wire_join_group_request *out)
{
    int32_t n = wire_read_array_len(r, flex, false);
    wire_join_group_protocol *p = wire_alloc_array(r, arena, n, sizeof *p, JG_PROTOCOL_MIN_WIRE);
    for (int32_t i = 0; i < n && !r->error; i++) {
        p[i].name = wire_read_string(r, flex);
        p[i].metadata = wire_group_read_bytes(r, flex);
        wire_read_tags_flex(r, flex);
    }
    out->protocols = r->error ? NULL : p;
    out->protocol_count = r->error ? 0 : n;
}

static void write_protocols(kq_writer *w, bool flex, const wire_join_group_request *in)
{
    int32_t n = in->protocols ? in->protocol_count : 0;
    wire_write_array_len(w, flex, false, n);
    for (int32_t i = 0; i < n; i++) {
        wire_write_string(w, flex, in->protocols[i].name);
        wire_group_write_bytes(w, flex, in->protocols[i].metadata);
        wire_write_tags_flex(w, flex);
    }
}

int wire_join_group_request_decode(kq_reader *r, int16_t v, kq_arena *arena,
                                   wire_join_group_request *out)
{
    memset(out, 0, sizeof *out);
    out->rebalance_timeout_ms = -1;
    out->group_instance_id = WIRE_NULL_SLICE;
    out->reason = WIRE_NULL_SLICE;
    if (!version_ok(v)) {
        kq_reader_fail(r);
        return -1;
    }
    bool flex = v >= 6;
    out->group_id = wire_read_string(r, flex);
    out->session_timeout_ms = kq_read_i32(r);
    if (v >= 1)
        out->rebalance_timeout_ms = kq_read_i32(r);
    out->member_id = wire_read_string(r, flex);
    if (v >= 5)
        out->group_instance_id = wire_read_nullable_string(r, flex);
    out->protocol_type = wire_read_string(r, flex);
    read_protocols(r, flex, arena, out);
    if (v >= 8)
        out->reason = wire_read_nullable_string(r, flex);
    wire_read_tags_flex(r, flex);
    return r->error ? -1 : 0;
}

void wire_join_group_request_encode(kq_writer *w, int16_t v, const wire_join_group_request *in)
{
    if (!version_ok(v)) {
        w->error = true;
        return;
    }
    bool flex = v >= 6;
    wire_write_string(w, flex, in->group_id);
    kq_write_i32(w, in->session_timeout_ms);
    if (v >= 1)
        kq_write_i32(w, in->rebalance_timeout_ms);
    wire_write_string(w, flex, in->member_id);
    if (v >= 5)
        wire_write_nullable_string(w, flex, in->group_instance_id);
    wire_write_string(w, flex, in->protocol_type);
    write_protocols(w, flex, in);
    if (v >= 8)
        wire_write_nullable_string(w, flex, in->reason);
    wire_write_tags_flex(w, flex);
}

/* ---- response ---- */

static void read_members(kq_reader *r, int16_t v, kq_arena *arena,
                         wire_join_group_response *out)
{
    bool flex = v >= 6;
    int32_t n = wire_read_array_len(r, flex, false);
    wire_join_group_member *m = wire_alloc_array(r, arena, n, sizeof *m, JG_MEMBER_MIN_WIRE);
    for (int32_t i = 0; i < n && !r->error; i++) {
        m[i].member_id = wire_read_string(r, flex);
        m[i].group_instance_id = v >= 5 ? wire_read_nullable_string(r, flex) : WIRE_NULL_SLICE;
        m[i].metadata = wire_group_read_bytes(r, flex);
        wire_read_tags_flex(r, flex);
    }
    out->members = r->error ? NULL : m;
    out->member_count = r->error ? 0 : n;
}

static void write_members(kq_writer *w, int16_t v, const wire_join_group_response *in)
{
    bool flex = v >= 6;
    int32_t n = in->members ? in->member_count : 0;
    wire_write_array_len(w, flex, false, n);
    for (int32_t i = 0; i < n; i++) {
        const wire_join_group_member *m = &in->members[i];
        wire_write_string(w, flex, m->member_id);
        if (v >= 5)
            wire_write_nullable_string(w, flex, m->group_instance_id);
        wire_group_write_bytes(w, flex, m->metadata);
        wire_write_tags_flex(w, flex);
    }
}

int wire_join_group_response_decode(kq_reader *r, int16_t v, kq_arena *arena,
                                    wire_join_group_response *out)
{
    memset(out, 0, sizeof *out);
    out->generation_id = -1;
    out->protocol_type = WIRE_NULL_SLICE;
    if (!version_ok(v)) {
        kq_reader_fail(r);
        return -1;
    }
    bool flex = v >= 6;
    if (v >= 2)
        out->throttle_time_ms = kq_read_i32(r);
    out->error_code = kq_read_i16(r);
    out->generation_id = kq_read_i32(r);
    if (v >= 7) {
        out->protocol_type = wire_read_nullable_string(r, flex);
        out->protocol_name = wire_read_nullable_string(r, flex);
    } else {
        out->protocol_name = wire_read_string(r, flex);
    }
    out->leader = wire_read_string(r, flex);
    if (v >= 9)
        out->skip_assignment = kq_read_bool(r);
    out->member_id = wire_read_string(r, flex);
    read_members(r, v, arena, out);
    wire_read_tags_flex(r, flex);
    return r->error ? -1 : 0;
}

void wire_join_group_response_encode(kq_writer *w, int16_t v,
                                     const wire_join_group_response *in)
{
    if (!version_ok(v)) {
        w->error = true;
        return;
    }
    bool flex = v >= 6;
    if (v >= 2)
        kq_write_i32(w, in->throttle_time_ms);
    kq_write_i16(w, in->error_code);
    kq_write_i32(w, in->generation_id);
    if (v >= 7) {
        wire_write_nullable_string(w, flex, in->protocol_type);
        wire_write_nullable_string(w, flex, in->protocol_name);
    } else {
        wire_write_string(w, flex, in->protocol_name);
    }
    wire_write_string(w, flex, in->leader);
    if (v >= 9)
        kq_write_bool(w, in->skip_assignment);
    wire_write_string(w, flex, in->member_id);
    write_members(w, v, in);
    wire_write_tags_flex(w, flex);
}
