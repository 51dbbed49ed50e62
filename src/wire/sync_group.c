/* SyncGroup request/response codec, versions 0-5 (flexible from v4). */
#include <string.h>

#include "group_codec.h"
#include "kq/wire_sync_group.h"
#include "wire_codec.h"

/* Least bytes of one assignment on the wire: two compact lengths (or an
 * int16 and an int32 length in the classic encoding, more than that). */
#define SG_ASSIGNMENT_MIN_WIRE 2

static bool version_ok(int16_t v)
{
    return v >= WIRE_SYNC_GROUP_MIN_VERSION && v <= WIRE_SYNC_GROUP_MAX_VERSION;
}

/* ---- request ---- */

static void read_assignments(kq_reader *r, bool flex, kq_arena *arena,
                             wire_sync_group_request *out)
{
    int32_t n = wire_read_array_len(r, flex, false);
    wire_sync_group_assignment *a =
        wire_alloc_array(r, arena, n, sizeof *a, SG_ASSIGNMENT_MIN_WIRE);
    for (int32_t i = 0; i < n && !r->error; i++) {
        a[i].member_id = wire_read_string(r, flex);
        a[i].assignment = wire_group_read_bytes(r, flex);
        wire_read_tags_flex(r, flex);
    }
    out->assignments = r->error ? NULL : a;
    out->assignment_count = r->error ? 0 : n;
}

int wire_sync_group_request_decode(kq_reader *r, int16_t v, kq_arena *arena,
                                   wire_sync_group_request *out)
{
    memset(out, 0, sizeof *out);
    out->group_instance_id = WIRE_NULL_SLICE;
    out->protocol_type = WIRE_NULL_SLICE;
    out->protocol_name = WIRE_NULL_SLICE;
    if (!version_ok(v)) {
        kq_reader_fail(r);
        return -1;
    }
    bool flex = v >= 4;
    out->group_id = wire_read_string(r, flex);
    out->generation_id = kq_read_i32(r);
    out->member_id = wire_read_string(r, flex);
    if (v >= 3)
        out->group_instance_id = wire_read_nullable_string(r, flex);
    if (v >= 5) {
        out->protocol_type = wire_read_nullable_string(r, flex);
        out->protocol_name = wire_read_nullable_string(r, flex);
    }
    read_assignments(r, flex, arena, out);
    wire_read_tags_flex(r, flex);
    return r->error ? -1 : 0;
}

void wire_sync_group_request_encode(kq_writer *w, int16_t v, const wire_sync_group_request *in)
{
    if (!version_ok(v)) {
        w->error = true;
        return;
    }
    bool flex = v >= 4;
    wire_write_string(w, flex, in->group_id);
    kq_write_i32(w, in->generation_id);
    wire_write_string(w, flex, in->member_id);
    if (v >= 3)
        wire_write_nullable_string(w, flex, in->group_instance_id);
    if (v >= 5) {
        wire_write_nullable_string(w, flex, in->protocol_type);
        wire_write_nullable_string(w, flex, in->protocol_name);
    }
    int32_t n = in->assignments ? in->assignment_count : 0;
    wire_write_array_len(w, flex, false, n);
    for (int32_t i = 0; i < n; i++) {
        wire_write_string(w, flex, in->assignments[i].member_id);
        wire_group_write_bytes(w, flex, in->assignments[i].assignment);
        wire_write_tags_flex(w, flex);
    }
    wire_write_tags_flex(w, flex);
}

/* ---- response ---- */

int wire_sync_group_response_decode(kq_reader *r, int16_t v, kq_arena *arena,
                                    wire_sync_group_response *out)
{
    (void)arena;
    memset(out, 0, sizeof *out);
    out->protocol_type = WIRE_NULL_SLICE;
    out->protocol_name = WIRE_NULL_SLICE;
    if (!version_ok(v)) {
        kq_reader_fail(r);
        return -1;
    }
    bool flex = v >= 4;
    if (v >= 1)
        out->throttle_time_ms = kq_read_i32(r);
    out->error_code = kq_read_i16(r);
    if (v >= 5) {
        out->protocol_type = wire_read_nullable_string(r, flex);
        out->protocol_name = wire_read_nullable_string(r, flex);
    }
    out->assignment = wire_group_read_bytes(r, flex);
    wire_read_tags_flex(r, flex);
    return r->error ? -1 : 0;
}

void wire_sync_group_response_encode(kq_writer *w, int16_t v,
                                     const wire_sync_group_response *in)
{
    if (!version_ok(v)) {
        w->error = true;
        return;
    }
    bool flex = v >= 4;
    if (v >= 1)
        kq_write_i32(w, in->throttle_time_ms);
    kq_write_i16(w, in->error_code);
    if (v >= 5) {
        wire_write_nullable_string(w, flex, in->protocol_type);
        wire_write_nullable_string(w, flex, in->protocol_name);
    }
    wire_group_write_bytes(w, flex, in->assignment);
    wire_write_tags_flex(w, flex);
}
