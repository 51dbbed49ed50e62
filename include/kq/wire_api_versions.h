/* ApiVersions (key 18) v0-4; flexible from v3. The handler answers a version
 * it does not know at v0 (KIP-511); the codec only speaks 0-4. */
#ifndef KQ_WIRE_API_VERSIONS_H
#define KQ_WIRE_API_VERSIONS_H

#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire.h"
#include "kq/wire_desc.h"

#define WIRE_API_VERSIONS_MIN_VERSION 0
#define WIRE_API_VERSIONS_MAX_VERSION 4

#define WIRE_API_VERSIONS_REQUEST(S)              \
    WF(S, STRING, client_software_name, 3, WL)    \
    WF(S, STRING, client_software_version, 3, WL)
WIRE_STRUCT(wire_api_versions_request, WIRE_API_VERSIONS_REQUEST)

/* ApiKeys' element is wire_api_range (kq/wire.h), the API table's own. */
#define WIRE_API_VERSIONS_API_KEY(S) \
    WF(S, I16, api_key, 0, WL)       \
    WF(S, I16, min_version, 0, WL)   \
    WF(S, I16, max_version, 0, WL)
extern const struct wire_struct_desc wire_api_range_desc;

/* Kafka's v3+ tagged SupportedFeatures (0), FinalizedFeaturesEpoch (1),
 * FinalizedFeatures (2) and ZkMigrationReady (3) are not described yet: we
 * send none and skip them on decode. Adding members would break the tests'
 * positional initializers (-Wmissing-field-initializers). */
#define WIRE_API_VERSIONS_RESPONSE(S)                                               \
    WF(S, I16, error_code, 0, WL)                                                   \
    WAC(S, wire_api_range, api_keys, api_key_count, 0, WL) /* or wire_advertised_apis() */ \
    WF(S, I32, throttle_time_ms, 1, WL)
WIRE_STRUCT(wire_api_versions_response, WIRE_API_VERSIONS_RESPONSE)

/* Body after the header; decoders return 0 or -1 (malformed, truncated or
 * unsupported version). Encoders set w->error for an unsupported version. */
int wire_api_versions_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                     wire_api_versions_request *out);
void wire_api_versions_request_encode(kq_writer *w, int16_t version,
                                      const wire_api_versions_request *in);
int wire_api_versions_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                      wire_api_versions_response *out);
void wire_api_versions_response_encode(kq_writer *w, int16_t version,
                                       const wire_api_versions_response *in);

#endif
