/* Heartbeat request/response codec, versions 0-4 (flexible from v4). */
#include <string.h>

#include "kq/wire_heartbeat.h"
#include "wire_codec.h"

static bool version_ok(int16_t v)
{
    return v >= WIRE_HEARTBEAT_MIN_VERSION && v <= WIRE_HEARTBEAT_MAX_VERSION;
}

int wire_heartbeat_request_decode(kq_reader *r, int16_t v, kq_arena *arena,
                                  wire_heartbeat_request *out)
{
    (void)arena;
    memset(out, 0, sizeof *out);
    out->group_instance_id = WIRE_NULL_SLICE;
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
    wire_read_tags_flex(r, flex);
    return r->error ? -1 : 0;
}

void wire_heartbeat_request_encode(kq_writer *w, int16_t v, const wire_heartbeat_request *in)
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
    wire_write_tags_flex(w, flex);
}

int wire_heartbeat_response_decode(kq_reader *r, int16_t v, kq_arena *arena,
                                   wire_heartbeat_response *out)
{
    (void)arena;
    memset(out, 0, sizeof *out);
    if (!version_ok(v)) {
        kq_reader_fail(r);
        return -1;
    }
    if (v >= 1)
        out->throttle_time_ms = kq_read_i32(r);
    out->error_code = kq_read_i16(r);
    wire_read_tags_flex(r, v >= 4);
    return r->error ? -1 : 0;
}

void wire_heartbeat_response_encode(kq_writer *w, int16_t v, const wire_heartbeat_response *in)
{
    if (!version_ok(v)) {
        w->error = true;
        return;
    }
    if (v >= 1)
        kq_write_i32(w, in->throttle_time_ms);
    kq_write_i16(w, in->error_code);
    wire_write_tags_flex(w, v >= 4);
}
