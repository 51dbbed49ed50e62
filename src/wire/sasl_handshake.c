/* SaslHandshake request/response bodies (never flexible). */
#include <string.h>

#include "kq/wire_sasl.h"
#include "wire_codec.h"

#define SASL_HANDSHAKE_MAX_VERSION 1

static bool version_ok(int16_t version)
{
    return version >= 0 && version <= SASL_HANDSHAKE_MAX_VERSION;
}

int wire_sasl_handshake_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                       wire_sasl_handshake_request *out)
{
    (void)arena;
    memset(out, 0, sizeof *out);
    if (!version_ok(version))
        return -1;
    out->mechanism = wire_read_string(r, false);
    return r->error ? -1 : 0;
}

void wire_sasl_handshake_request_encode(kq_writer *w, int16_t version,
                                        const wire_sasl_handshake_request *in)
{
    if (!version_ok(version)) {
        w->error = true;
        return;
    }
    wire_write_string(w, false, in->mechanism);
}

int wire_sasl_handshake_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                        wire_sasl_handshake_response *out)
{
    memset(out, 0, sizeof *out);
    if (!version_ok(version))
        return -1;
    out->error_code = kq_read_i16(r);
    int32_t n = wire_read_array_len(r, false, false);
    /* each string takes at least its 2-byte length */
    kq_slice *mechs = wire_alloc_array(r, arena, n, sizeof *mechs, 2);
    for (int32_t i = 0; i < n && !r->error; i++)
        mechs[i] = wire_read_string(r, false);
    if (r->error)
        return -1;
    out->mechanisms = mechs;
    out->mechanism_count = n;
    return 0;
}

void wire_sasl_handshake_response_encode(kq_writer *w, int16_t version,
                                         const wire_sasl_handshake_response *in)
{
    if (!version_ok(version)) {
        w->error = true;
        return;
    }
    kq_write_i16(w, in->error_code);
    int32_t n = in->mechanisms ? in->mechanism_count : 0;
    wire_write_array_len(w, false, false, n);
    for (int32_t i = 0; i < n; i++)
        wire_write_string(w, false, in->mechanisms[i]);
}
