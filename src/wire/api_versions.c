/* ApiVersions' description (include/kq/wire_api_versions.h) made into
 * descriptors. */
#include "kq/wire.h"
#include "kq/wire_api_versions.h"
#include "wire_desc_gen.h"

WIRE_DESC(wire_api_versions_request, WIRE_API_VERSIONS_REQUEST)
WIRE_DESC(wire_api_range, WIRE_API_VERSIONS_API_KEY)
WIRE_DESC(wire_api_versions_response, WIRE_API_VERSIONS_RESPONSE)
WIRE_MSG(wire_api_versions_request, WIRE_API_API_VERSIONS, false, WIRE_API_VERSIONS_MIN_VERSION,
         WIRE_API_VERSIONS_MAX_VERSION, 3)
WIRE_MSG(wire_api_versions_response, WIRE_API_API_VERSIONS, true, WIRE_API_VERSIONS_MIN_VERSION,
         WIRE_API_VERSIONS_MAX_VERSION, 3)
