/* ApiVersions request/response bodies. */
#include <string.h>

#include "kq/wire_api_versions.h"
#include "wire_codec.h"

#define AV_MAX_VERSION 4

int wire_api_versions_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                     wire_api_versions_request *out)
{
    (void)arena;
    out->client_software_name = WIRE_NULL_SLICE;
    out->client_software_version = WIRE_NULL_SLICE;
    if (version < 0 || version > AV_MAX_VERSION)
        return -1;
    if (version >= 3) {
        out->client_software_name = wire_read_string(r, true);
        out->client_software_version = wire_read_string(r, true);
        kq_skip_tagged_fields(r);
    }
    return r->error ? -1 : 0;
}

void wire_api_versions_request_encode(kq_writer *w, int16_t version,
                                      const wire_api_versions_request *in)
{
    if (version >= 3) {
        wire_write_string(w, true, in->client_software_name);
        wire_write_string(w, true, in->client_software_version);
        kq_write_empty_tagged_fields(w);
    }
}

int wire_api_versions_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                      wire_api_versions_response *out)
{
    memset(out, 0, sizeof *out);
    if (version < 0 || version > AV_MAX_VERSION)
        return -1;
    bool flex = version >= 3;
    out->error_code = kq_read_i16(r);
    int32_t n = wire_read_array_len(r, flex, false);
    wire_api_range *keys = wire_alloc_array(r, arena, n, sizeof *keys, 6);
    for (int32_t i = 0; i < n && !r->error; i++) {
        keys[i].api_key = kq_read_i16(r);
        keys[i].min_version = kq_read_i16(r);
        keys[i].max_version = kq_read_i16(r);
        wire_read_tags_flex(r, flex);
    }
    out->api_keys = keys;
    out->api_key_count = r->error ? 0 : n;
    if (version >= 1)
        out->throttle_time_ms = kq_read_i32(r);
    wire_read_tags_flex(r, flex);
    return r->error ? -1 : 0;
}

void wire_api_versions_response_encode(kq_writer *w, int16_t version,
                                       const wire_api_versions_response *in)
{
    bool flex = version >= 3;
    kq_write_i16(w, in->error_code);
    int32_t n = in->api_keys ? in->api_key_count : 0;
    wire_write_array_len(w, flex, false, n);
    for (int32_t i = 0; i < n; i++) {
        kq_write_i16(w, in->api_keys[i].api_key);
        kq_write_i16(w, in->api_keys[i].min_version);
        kq_write_i16(w, in->api_keys[i].max_version);
        wire_write_tags_flex(w, flex);
    }
    if (version >= 1)
        kq_write_i32(w, in->throttle_time_ms);
    wire_write_tags_flex(w, flex);
}
