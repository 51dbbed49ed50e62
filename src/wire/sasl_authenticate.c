/* SaslAuthenticate's description (include/kq/wire_sasl.h) made into
 * descriptors; flexible from v2. */
#include "kq/wire.h"
#include "kq/wire_sasl.h"
#include "wire_desc_gen.h"

WIRE_DESC(wire_sasl_authenticate_request, WIRE_SASL_AUTHENTICATE_REQUEST)
WIRE_DESC(wire_sasl_authenticate_response, WIRE_SASL_AUTHENTICATE_RESPONSE)
WIRE_MSG(wire_sasl_authenticate_request, WIRE_API_SASL_AUTHENTICATE, false,
         WIRE_SASL_AUTHENTICATE_MIN_VERSION, WIRE_SASL_AUTHENTICATE_MAX_VERSION, 2)
WIRE_MSG(wire_sasl_authenticate_response, WIRE_API_SASL_AUTHENTICATE, true,
         WIRE_SASL_AUTHENTICATE_MIN_VERSION, WIRE_SASL_AUTHENTICATE_MAX_VERSION, 2)
