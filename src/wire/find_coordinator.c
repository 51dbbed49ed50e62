/* FindCoordinator request/response codec, versions 0-6 (flexible from v3). */
#include <string.h>

#include "kq/wire_find_coordinator.h"
#include "wire_codec.h"

/* Least bytes of one coordinator on the wire (flexible): key, node id,
 * host, port, error code, error message, tags. */
#define FC_COORDINATOR_MIN_WIRE 15

static bool version_ok(int16_t v)
{
    return v >= WIRE_FIND_COORDINATOR_MIN_VERSION && v <= WIRE_FIND_COORDINATOR_MAX_VERSION;
}

int wire_find_coordinator_request_decode(kq_reader *r, int16_t v, kq_arena *arena,
                                         wire_find_coordinator_request *out)
{
    memset(out, 0, sizeof *out);
    out->key = kq_slice_cstr("");
    if (!version_ok(v)) {
        kq_reader_fail(r);
        return -1;
    }
    bool flex = v >= 3;
    if (v <= 3)
        out->key = wire_read_string(r, flex);
    if (v >= 1)
        out->key_type = kq_read_i8(r);
    if (v >= 4)
        out->coordinator_keys =
            wire_read_string_array(r, arena, flex, &out->coordinator_key_count);
    wire_read_tags_flex(r, flex);
    return r->error ? -1 : 0;
}

void wire_find_coordinator_request_encode(kq_writer *w, int16_t v,
                                          const wire_find_coordinator_request *in)
{
    if (!version_ok(v)) {
        w->error = true;
        return;
    }
    bool flex = v >= 3;
    if (v <= 3)
        wire_write_string(w, flex, in->key);
    if (v >= 1)
        kq_write_i8(w, in->key_type);
    if (v >= 4)
        wire_write_string_array(w, flex, in->coordinator_keys, in->coordinator_key_count);
    wire_write_tags_flex(w, flex);
}

static wire_find_coordinator_coordinator *read_coordinators(kq_reader *r, kq_arena *arena,
                                                            int32_t *count)
{
    int32_t n = wire_read_array_len(r, true, false);
    wire_find_coordinator_coordinator *cs =
        wire_alloc_array(r, arena, n, sizeof *cs, FC_COORDINATOR_MIN_WIRE);
    for (int32_t i = 0; i < n && !r->error; i++) {
        wire_find_coordinator_coordinator *c = &cs[i];
        c->key = wire_read_string(r, true);
        c->node_id = kq_read_i32(r);
        c->host = wire_read_string(r, true);
        c->port = kq_read_i32(r);
        c->error_code = kq_read_i16(r);
        c->error_message = wire_read_nullable_string(r, true);
        wire_read_tags_flex(r, true);
    }
    *count = r->error ? 0 : n;
    return r->error ? NULL : cs;
}

static void write_coordinators(kq_writer *w, const wire_find_coordinator_coordinator *cs,
                               int32_t n)
{
    if (!cs)
        n = 0;
    wire_write_array_len(w, true, false, n);
    for (int32_t i = 0; i < n; i++) {
        const wire_find_coordinator_coordinator *c = &cs[i];
        wire_write_string(w, true, c->key);
        kq_write_i32(w, c->node_id);
        wire_write_string(w, true, c->host);
        kq_write_i32(w, c->port);
        kq_write_i16(w, c->error_code);
        wire_write_nullable_string(w, true, c->error_message);
        wire_write_tags_flex(w, true);
    }
}

int wire_find_coordinator_response_decode(kq_reader *r, int16_t v, kq_arena *arena,
                                          wire_find_coordinator_response *out)
{
    memset(out, 0, sizeof *out);
    out->host = kq_slice_cstr("");
    out->error_message = WIRE_NULL_SLICE;
    if (!version_ok(v)) {
        kq_reader_fail(r);
        return -1;
    }
    bool flex = v >= 3;
    if (v >= 1)
        out->throttle_time_ms = kq_read_i32(r);
    if (v <= 3) {
        out->error_code = kq_read_i16(r);
        if (v >= 1)
            out->error_message = wire_read_nullable_string(r, flex);
        out->node_id = kq_read_i32(r);
        out->host = wire_read_string(r, flex);
        out->port = kq_read_i32(r);
    } else {
        out->coordinators = read_coordinators(r, arena, &out->coordinator_count);
    }
    wire_read_tags_flex(r, flex);
    return r->error ? -1 : 0;
}

void wire_find_coordinator_response_encode(kq_writer *w, int16_t v,
                                           const wire_find_coordinator_response *in)
{
    if (!version_ok(v)) {
        w->error = true;
        return;
    }
    bool flex = v >= 3;
    if (v >= 1)
        kq_write_i32(w, in->throttle_time_ms);
    if (v <= 3) {
        kq_write_i16(w, in->error_code);
        if (v >= 1)
            wire_write_nullable_string(w, flex, in->error_message);
        kq_write_i32(w, in->node_id);
        wire_write_string(w, flex, in->host);
        kq_write_i32(w, in->port);
    } else {
        write_coordinators(w, in->coordinators, in->coordinator_count);
    }
    wire_write_tags_flex(w, flex);
}
