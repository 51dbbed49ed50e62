#include "kq/wire_find_coordinator.h"

#include "wire_codec.h"

int wire_find_coordinator_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                         wire_find_coordinator_request *out)
{
    (void)arena;
    if (version != 0)
        return -1;
    out->key = wire_read_string(r, false);
    return r->error ? -1 : 0;
}

void wire_find_coordinator_request_encode(kq_writer *w, int16_t version,
                                          const wire_find_coordinator_request *in)
{
    if (version != 0) {
        w->error = true;
        return;
    }
    wire_write_string(w, false, in->key);
}

int wire_find_coordinator_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                          wire_find_coordinator_response *out)
{
    (void)arena;
    if (version != 0)
        return -1;
    out->error_code = kq_read_i16(r);
    out->node_id = kq_read_i32(r);
    out->host = wire_read_string(r, false);
    out->port = kq_read_i32(r);
    return r->error ? -1 : 0;
}

void wire_find_coordinator_response_encode(kq_writer *w, int16_t version,
                                           const wire_find_coordinator_response *in)
{
    if (version != 0) {
        w->error = true;
        return;
    }
    kq_write_i16(w, in->error_code);
    kq_write_i32(w, in->node_id);
    wire_write_string(w, false, in->host);
    kq_write_i32(w, in->port);
}
