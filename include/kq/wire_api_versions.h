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
#define WIRE_API_VERSIONS_FLEX_VERSION 3

#define WIRE_API_VERSIONS_REQUEST(S)              \
    WF(S, STRING, client_software_name, 3, WL)    \
    WF(S, STRING, client_software_version, 3, WL)

#define WIRE_API_VERSIONS_SUPPORTED_FEATURE(S) \
    WF(S, STRING, name, 3, WL)                  \
    WF(S, I16, min_version, 3, WL)              \
    WF(S, I16, max_version, 3, WL)

#define WIRE_API_VERSIONS_FINALIZED_FEATURE(S) \
    WF(S, STRING, name, 3, WL)                  \
    WF(S, I16, max_version_level, 3, WL)        \
    WF(S, I16, min_version_level, 3, WL)

/* ApiKeys' element is the API table's own wire_api_range (kq/wire.h), so the
 * handler can answer with wire_advertised_apis(). The v3+ tagged features
 * are empty unless set (we finalize none: the epoch is written only when
 * has_finalized_features_epoch). */
#define WIRE_API_VERSIONS_RESPONSE(S)                                                       \
    WF(S, I16, error_code, 0, WL)                                                           \
    WAC(S, wire_api_range, api_keys, api_key_count, 0, WL)                                  \
    WF(S, I32, throttle_time_ms, 1, WL)                                                     \
    WA(S, wire_api_versions_supported_feature, supported_features, supported_feature_count, \
       3, WL, WIRE_TAG(0, 3))                                                               \
    WFP(S, I64, finalized_features_epoch, has_finalized_features_epoch, 3, WL,              \
        WIRE_TAG(1, 3), WIRE_DEFAULT(-1))                                                   \
    WA(S, wire_api_versions_finalized_feature, finalized_features, finalized_feature_count, \
       3, WL, WIRE_TAG(2, 3))                                                               \
    WF(S, BOOL, zk_migration_ready, 3, WL, WIRE_TAG(3, 3))

#define WIRE_API_VERSIONS_STRUCTS(D, DI)                                                \
    D(wire_api_versions_request, WIRE_API_VERSIONS_REQUEST)                             \
    D(wire_api_versions_supported_feature, WIRE_API_VERSIONS_SUPPORTED_FEATURE)         \
    D(wire_api_versions_finalized_feature, WIRE_API_VERSIONS_FINALIZED_FEATURE)         \
    D(wire_api_versions_response, WIRE_API_VERSIONS_RESPONSE)
WIRE_DECLARE_STRUCTS(WIRE_API_VERSIONS_STRUCTS)
WIRE_API_FUNCS(wire_api_versions)

#endif
