/* ListGroups request/response codec, versions 0-5 (flexible from v3). */
#include <string.h>

#include "kq/wire_list_groups.h"
#include "wire_codec.h"

/* Least bytes of one listed group: two strings (2 bytes each classic, 1
 * compact, with a tags byte). */
#define LG_GROUP_MIN_WIRE 3

static bool version_ok(int16_t v)
{
    return v >= WIRE_LIST_GROUPS_MIN_VERSION && v <= WIRE_LIST_GROUPS_MAX_VERSION;
}

int wire_list_groups_request_decode(kq_reader *r, int16_t v, kq_arena *arena,
                                    wire_list_groups_request *out)
{
    memset(out, 0, sizeof *out);
    if (!version_ok(v)) {
        kq_reader_fail(r);
        return -1;
    }
    bool flex = v >= 3;
    if (v >= 4)
        out->states_filter = wire_read_string_array(r, arena, flex, &out->states_filter_count);
    if (v >= 5)
        out->types_filter = wire_read_string_array(r, arena, flex, &out->types_filter_count);
    wire_read_tags_flex(r, flex);
    return r->error ? -1 : 0;
}

void wire_list_groups_request_encode(kq_writer *w, int16_t v, const wire_list_groups_request *in)
{
    if (!version_ok(v)) {
        w->error = true;
        return;
    }
    bool flex = v >= 3;
    if (v >= 4)
        wire_write_string_array(w, flex, in->states_filter, in->states_filter_count);
    if (v >= 5)
        wire_write_string_array(w, flex, in->types_filter, in->types_filter_count);
    wire_write_tags_flex(w, flex);
}

static void read_group(kq_reader *r, int16_t v, bool flex, wire_list_groups_group *g)
{
    g->group_id = wire_read_string(r, flex);
    g->protocol_type = wire_read_string(r, flex);
    g->group_state = kq_slice_cstr("");
    g->group_type = kq_slice_cstr("");
    if (v >= 4)
        g->group_state = wire_read_string(r, flex);
    if (v >= 5)
        g->group_type = wire_read_string(r, flex);
    wire_read_tags_flex(r, flex);
}

int wire_list_groups_response_decode(kq_reader *r, int16_t v, kq_arena *arena,
                                     wire_list_groups_response *out)
{
    memset(out, 0, sizeof *out);
    if (!version_ok(v)) {
        kq_reader_fail(r);
        return -1;
    }
    bool flex = v >= 3;
    if (v >= 1)
        out->throttle_time_ms = kq_read_i32(r);
    out->error_code = kq_read_i16(r);
    int32_t n = wire_read_array_len(r, flex, false);
    out->groups = wire_alloc_array(r, arena, n, sizeof *out->groups,
                                   flex ? LG_GROUP_MIN_WIRE : 4);
    for (int32_t i = 0; i < n && !r->error; i++)
        read_group(r, v, flex, &out->groups[i]);
    out->group_count = r->error ? 0 : n;
    wire_read_tags_flex(r, flex);
    return r->error ? -1 : 0;
}

void wire_list_groups_response_encode(kq_writer *w, int16_t v,
                                      const wire_list_groups_response *in)
{
    if (!version_ok(v)) {
        w->error = true;
        return;
    }
    bool flex = v >= 3;
    if (v >= 1)
        kq_write_i32(w, in->throttle_time_ms);
    kq_write_i16(w, in->error_code);
    int32_t n = in->groups ? in->group_count : 0;
    wire_write_array_len(w, flex, false, n);
    for (int32_t i = 0; i < n; i++) {
        const wire_list_groups_group *g = &in->groups[i];
        wire_write_string(w, flex, g->group_id);
        wire_write_string(w, flex, g->protocol_type);
        if (v >= 4)
            wire_write_string(w, flex, g->group_state);
        if (v >= 5)
            wire_write_string(w, flex, g->group_type);
        wire_write_tags_flex(w, flex);
    }
    wire_write_tags_flex(w, flex);
}
