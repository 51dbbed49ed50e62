/* Request and response headers (RequestHeader v1/v2, ResponseHeader v0/v1). */
#include "kq/wire.h"

static bool response_header_flexible(int16_t api_key, int16_t api_version)
{
    /* ApiVersions responses always use header v0 so that a client can parse
     * them before it knows which versions the broker supports. */
    return api_key != WIRE_API_API_VERSIONS && wire_api_flexible(api_key, api_version);
}

int wire_request_header_decode(kq_reader *r, wire_request_header *h)
{
    h->api_key = kq_read_i16(r);
    h->api_version = kq_read_i16(r);
    h->correlation_id = kq_read_i32(r);
    h->client_id = kq_read_string(r);
    if (!r->error && wire_api_flexible(h->api_key, h->api_version))
        kq_skip_tagged_fields(r);
    return r->error ? -1 : 0;
}

void wire_request_header_encode(kq_writer *w, const wire_request_header *h)
{
    kq_write_i16(w, h->api_key);
    kq_write_i16(w, h->api_version);
    kq_write_i32(w, h->correlation_id);
    kq_write_string(w, h->client_id);
    if (wire_api_flexible(h->api_key, h->api_version))
        kq_write_empty_tagged_fields(w);
}

void wire_response_header_encode(kq_writer *w, int16_t api_key, int16_t api_version,
                                 int32_t correlation_id)
{
    kq_write_i32(w, correlation_id);
    if (response_header_flexible(api_key, api_version))
        kq_write_empty_tagged_fields(w);
}

int wire_response_header_decode(kq_reader *r, int16_t api_key, int16_t api_version,
                                int32_t *correlation_id)
{
    *correlation_id = kq_read_i32(r);
    if (response_header_flexible(api_key, api_version))
        kq_skip_tagged_fields(r);
    return r->error ? -1 : 0;
}
