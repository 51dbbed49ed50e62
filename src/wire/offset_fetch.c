/* OffsetFetch's description (include/kq/wire_offset_fetch.h) made into
 * descriptors. */
#include "kq/wire.h"
#include "kq/wire_offset_fetch.h"
#include "wire_desc_gen.h"

WIRE_DESC(wire_offset_fetch_request_topic, WIRE_OFFSET_FETCH_REQUEST_TOPIC)
WIRE_DESC(wire_offset_fetch_request_group, WIRE_OFFSET_FETCH_REQUEST_GROUP)
WIRE_DESC(wire_offset_fetch_request, WIRE_OFFSET_FETCH_REQUEST)
WIRE_DESC(wire_offset_fetch_partition, WIRE_OFFSET_FETCH_PARTITION)
WIRE_DESC(wire_offset_fetch_topic, WIRE_OFFSET_FETCH_TOPIC)
WIRE_DESC(wire_offset_fetch_group, WIRE_OFFSET_FETCH_GROUP)
WIRE_DESC(wire_offset_fetch_response, WIRE_OFFSET_FETCH_RESPONSE)
WIRE_MSG(wire_offset_fetch_request, WIRE_API_OFFSET_FETCH, false, 1, 10, 6)
WIRE_MSG(wire_offset_fetch_response, WIRE_API_OFFSET_FETCH, true, 1, 10, 6)
