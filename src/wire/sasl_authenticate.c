/* SaslAuthenticate request/response bodies; flexible from v2. */
#include <string.h>

#include "kq/wire_sasl.h"
#include "wire_codec.h"

#define SASL_AUTH_MAX_VERSION 2
#define SASL_AUTH_FLEX_FROM 2

static bool version_ok(int16_t version)
{
    return version >= 0 && version <= SASL_AUTH_MAX_VERSION;
}

int wire_sasl_authenticate_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                          wire_sasl_authenticate_request *out)
{
    (void)arena;
    memset(out, 0, sizeof *out);
    if (!version_ok(version))
        return -1;
    bool flex = version >= SASL_AUTH_FLEX_FROM;
    out->auth_bytes = wire_read_nullable_bytes(r, flex);
    if (wire_slice_is_null(out->auth_bytes))
        kq_reader_fail(r); /* AuthBytes is not nullable */
    wire_read_tags_flex(r, flex);
    return r->error ? -1 : 0;
}

void wire_sasl_authenticate_request_encode(kq_writer *w, int16_t version,
                                           const wire_sasl_authenticate_request *in)
{
    if (!version_ok(version)) {
        w->error = true;
        return;
    }
    bool flex = version >= SASL_AUTH_FLEX_FROM;
    kq_slice b = wire_slice_is_null(in->auth_bytes) ? kq_slice_cstr("") : in->auth_bytes;
    wire_write_nullable_bytes(w, flex, b);
    wire_write_tags_flex(w, flex);
}

int wire_sasl_authenticate_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                           wire_sasl_authenticate_response *out)
{
    (void)arena;
    memset(out, 0, sizeof *out);
    out->error_message = WIRE_NULL_SLICE;
    if (!version_ok(version))
        return -1;
    bool flex = version >= SASL_AUTH_FLEX_FROM;
    out->error_code = kq_read_i16(r);
    out->error_message = wire_read_nullable_string(r, flex);
    out->auth_bytes = wire_read_nullable_bytes(r, flex);
    if (wire_slice_is_null(out->auth_bytes))
        kq_reader_fail(r);
    if (version >= 1)
        out->session_lifetime_ms = kq_read_i64(r);
    wire_read_tags_flex(r, flex);
    return r->error ? -1 : 0;
}

void wire_sasl_authenticate_response_encode(kq_writer *w, int16_t version,
                                            const wire_sasl_authenticate_response *in)
{
    if (!version_ok(version)) {
        w->error = true;
        return;
    }
    bool flex = version >= SASL_AUTH_FLEX_FROM;
    kq_write_i16(w, in->error_code);
    wire_write_nullable_string(w, flex, in->error_message);
    kq_slice b = wire_slice_is_null(in->auth_bytes) ? kq_slice_cstr("") : in->auth_bytes;
    wire_write_nullable_bytes(w, flex, b);
    /* SessionLifetimeMs is ignorable: v0 simply lacks it */
    if (version >= 1)
        kq_write_i64(w, in->session_lifetime_ms);
    wire_write_tags_flex(w, flex);
}
