/* SaslHandshake's description (include/kq/wire_sasl.h) made into
 * descriptors; never flexible. */
#include "kq/wire.h"
#include "kq/wire_sasl.h"
#include "wire_desc_gen.h"

WIRE_DESC(wire_sasl_handshake_request, WIRE_SASL_HANDSHAKE_REQUEST)
WIRE_DESC(wire_sasl_handshake_response, WIRE_SASL_HANDSHAKE_RESPONSE)
WIRE_MSG(wire_sasl_handshake_request, WIRE_API_SASL_HANDSHAKE, false,
         WIRE_SASL_HANDSHAKE_MIN_VERSION, WIRE_SASL_HANDSHAKE_MAX_VERSION, WL)
WIRE_MSG(wire_sasl_handshake_response, WIRE_API_SASL_HANDSHAKE, true,
         WIRE_SASL_HANDSHAKE_MIN_VERSION, WIRE_SASL_HANDSHAKE_MAX_VERSION, WL)
