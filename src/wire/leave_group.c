/* LeaveGroup request/response codec, versions 0-5 (flexible from v4). */
#include <string.h>

#include "kq/wire_leave_group.h"
#include "wire_codec.h"

/* Least bytes of a member on the wire: two compact strings (the classic
 * encoding's int16 lengths take more). A response member adds its error. */
#define LG_MEMBER_MIN_WIRE 2
#define LG_MEMBER_RESPONSE_MIN_WIRE 4

static bool version_ok(int16_t v)
{
    return v >= WIRE_LEAVE_GROUP_MIN_VERSION && v <= WIRE_LEAVE_GROUP_MAX_VERSION;
}

/* ---- request ---- */

static void read_members(kq_reader *r, int16_t v, kq_arena *arena,
                         wire_leave_group_request *out)
{
    bool flex = v >= 4;
    int32_t n = wire_read_array_len(r, flex, false);
    wire_leave_group_member *m = wire_alloc_array(r, arena, n, sizeof *m, LG_MEMBER_MIN_WIRE);
    for (int32_t i = 0; i < n && !r->error; i++) {
        m[i].member_id = wire_read_string(r, flex);
        m[i].group_instance_id = wire_read_nullable_string(r, flex);
        m[i].reason = v >= 5 ? wire_read_nullable_string(r, flex) : WIRE_NULL_SLICE;
        wire_read_tags_flex(r, flex);
    }
    out->members = r->error ? NULL : m;
    out->member_count = r->error ? 0 : n;
}

int wire_leave_group_request_decode(kq_reader *r, int16_t v, kq_arena *arena,
                                    wire_leave_group_request *out)
{
    memset(out, 0, sizeof *out);
    out->member_id = kq_slice_cstr("");
    if (!version_ok(v)) {
        kq_reader_fail(r);
        return -1;
    }
    bool flex = v >= 4;
    out->group_id = wire_read_string(r, flex);
    if (v <= 2)
        out->member_id = wire_read_string(r, flex);
    else
        read_members(r, v, arena, out);
    wire_read_tags_flex(r, flex);
    return r->error ? -1 : 0;
}

void wire_leave_group_request_encode(kq_writer *w, int16_t v,
                                     const wire_leave_group_request *in)
{
    if (!version_ok(v)) {
        w->error = true;
        return;
    }
    bool flex = v >= 4;
    wire_write_string(w, flex, in->group_id);
    if (v <= 2) {
        wire_write_string(w, flex, in->member_id);
    } else {
        int32_t n = in->members ? in->member_count : 0;
        wire_write_array_len(w, flex, false, n);
        for (int32_t i = 0; i < n; i++) {
            const wire_leave_group_member *m = &in->members[i];
            wire_write_string(w, flex, m->member_id);
            wire_write_nullable_string(w, flex, m->group_instance_id);
            if (v >= 5)
                wire_write_nullable_string(w, flex, m->reason);
            wire_write_tags_flex(w, flex);
        }
    }
    wire_write_tags_flex(w, flex);
}

/* ---- response ---- */

static void read_member_responses(kq_reader *r, bool flex, kq_arena *arena,
                                  wire_leave_group_response *out)
{
    int32_t n = wire_read_array_len(r, flex, false);
    wire_leave_group_member_response *m =
        wire_alloc_array(r, arena, n, sizeof *m, LG_MEMBER_RESPONSE_MIN_WIRE);
    for (int32_t i = 0; i < n && !r->error; i++) {
        m[i].member_id = wire_read_string(r, flex);
        m[i].group_instance_id = wire_read_nullable_string(r, flex);
        m[i].error_code = kq_read_i16(r);
        wire_read_tags_flex(r, flex);
    }
    out->members = r->error ? NULL : m;
    out->member_count = r->error ? 0 : n;
}

int wire_leave_group_response_decode(kq_reader *r, int16_t v, kq_arena *arena,
                                     wire_leave_group_response *out)
{
    memset(out, 0, sizeof *out);
    if (!version_ok(v)) {
        kq_reader_fail(r);
        return -1;
    }
    bool flex = v >= 4;
    if (v >= 1)
        out->throttle_time_ms = kq_read_i32(r);
    out->error_code = kq_read_i16(r);
    if (v >= 3)
        read_member_responses(r, flex, arena, out);
    wire_read_tags_flex(r, flex);
    return r->error ? -1 : 0;
}

void wire_leave_group_response_encode(kq_writer *w, int16_t v,
                                      const wire_leave_group_response *in)
{
    if (!version_ok(v)) {
        w->error = true;
        return;
    }
    bool flex = v >= 4;
    if (v >= 1)
        kq_write_i32(w, in->throttle_time_ms);
    kq_write_i16(w, in->error_code);
    if (v >= 3) {
        int32_t n = in->members ? in->member_count : 0;
        wire_write_array_len(w, flex, false, n);
        for (int32_t i = 0; i < n; i++) {
            wire_write_string(w, flex, in->members[i].member_id);
            wire_write_nullable_string(w, flex, in->members[i].group_instance_id);
            kq_write_i16(w, in->members[i].error_code);
            wire_write_tags_flex(w, flex);
        }
    }
    wire_write_tags_flex(w, flex);
}
