/* InitProducerId's description (include/kq/wire_init_producer_id.h) made
 * into descriptors. */
#include "kq/wire.h"
#include "kq/wire_init_producer_id.h"
#include "wire_desc_gen.h"

WIRE_DESC(wire_init_producer_id_request, WIRE_INIT_PRODUCER_ID_REQUEST)
WIRE_DESC(wire_init_producer_id_response, WIRE_INIT_PRODUCER_ID_RESPONSE)
WIRE_MSG(wire_init_producer_id_request, WIRE_API_INIT_PRODUCER_ID, false,
         WIRE_INIT_PRODUCER_ID_MIN_VERSION, WIRE_INIT_PRODUCER_ID_MAX_VERSION, 2)
WIRE_MSG(wire_init_producer_id_response, WIRE_API_INIT_PRODUCER_ID, true,
         WIRE_INIT_PRODUCER_ID_MIN_VERSION, WIRE_INIT_PRODUCER_ID_MAX_VERSION, 2)
