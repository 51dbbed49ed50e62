/* ApiVersions (key 18) v0-4; flexible from v3. */
#ifndef KQ_WIRE_API_VERSIONS_H
#define KQ_WIRE_API_VERSIONS_H

#include "kq/buf.h"
#include "kq/wire.h"

typedef struct wire_api_versions_request {
    kq_slice client_software_name;    /* v3+; default null */
    kq_slice client_software_version; /* v3+; default null */
} wire_api_versions_request;

typedef struct wire_api_versions_response {
    int16_t error_code;
    const wire_api_range *api_keys; /* may point at wire_advertised_apis() */
    int32_t api_key_count;
    int32_t throttle_time_ms; /* v1+; default 0 */
    /* v3+ tagged features (tags 0-3) are not encoded and skipped on decode */
} wire_api_versions_response;

int wire_api_versions_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                     wire_api_versions_request *out);
void wire_api_versions_request_encode(kq_writer *w, int16_t version,
                                      const wire_api_versions_request *in);
int wire_api_versions_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                      wire_api_versions_response *out);
void wire_api_versions_response_encode(kq_writer *w, int16_t version,
                                       const wire_api_versions_response *in);

#endif
