/* InitProducerId request/response bodies. */
#include <string.h>

#include "kq/wire_init_producer_id.h"
#include "wire_codec.h"

#define IPI_MAX_VERSION 5

int wire_init_producer_id_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                         wire_init_producer_id_request *out)
{
    (void)arena;
    memset(out, 0, sizeof *out);
    out->transactional_id = WIRE_NULL_SLICE;
    out->producer_id = -1;
    out->producer_epoch = -1;
    if (version < 0 || version > IPI_MAX_VERSION)
        return -1;
    bool flex = version >= 2;
    out->transactional_id = wire_read_nullable_string(r, flex);
    out->transaction_timeout_ms = kq_read_i32(r);
    if (version >= 3) {
        out->producer_id = kq_read_i64(r);
        out->producer_epoch = kq_read_i16(r);
    }
    wire_read_tags_flex(r, flex);
    return r->error ? -1 : 0;
}

void wire_init_producer_id_request_encode(kq_writer *w, int16_t version,
                                          const wire_init_producer_id_request *in)
{
    bool flex = version >= 2;
    wire_write_nullable_string(w, flex, in->transactional_id);
    kq_write_i32(w, in->transaction_timeout_ms);
    if (version >= 3) {
        kq_write_i64(w, in->producer_id);
        kq_write_i16(w, in->producer_epoch);
    }
    wire_write_tags_flex(w, flex);
}

int wire_init_producer_id_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                          wire_init_producer_id_response *out)
{
    (void)arena;
    memset(out, 0, sizeof *out);
    out->producer_id = -1;
    if (version < 0 || version > IPI_MAX_VERSION)
        return -1;
    bool flex = version >= 2;
    out->throttle_time_ms = kq_read_i32(r);
    out->error_code = kq_read_i16(r);
    out->producer_id = kq_read_i64(r);
    out->producer_epoch = kq_read_i16(r);
    wire_read_tags_flex(r, flex);
    return r->error ? -1 : 0;
}

void wire_init_producer_id_response_encode(kq_writer *w, int16_t version,
                                           const wire_init_producer_id_response *in)
{
    kq_write_i32(w, in->throttle_time_ms);
    kq_write_i16(w, in->error_code);
    kq_write_i64(w, in->producer_id);
    kq_write_i16(w, in->producer_epoch);
    wire_write_tags_flex(w, version >= 2);
}
