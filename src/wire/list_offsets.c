/* ListOffsets' description (include/kq/wire_list_offsets.h) made into
 * descriptors. */
#include "kq/wire.h"
#include "kq/wire_list_offsets.h"
#include "wire_desc_gen.h"

WIRE_DESC(wire_list_offsets_partition, WIRE_LIST_OFFSETS_PARTITION)
WIRE_DESC(wire_list_offsets_topic, WIRE_LIST_OFFSETS_TOPIC)
WIRE_DESC(wire_list_offsets_request, WIRE_LIST_OFFSETS_REQUEST)
WIRE_DESC(wire_list_offsets_partition_response, WIRE_LIST_OFFSETS_PARTITION_RESPONSE)
WIRE_DESC(wire_list_offsets_topic_response, WIRE_LIST_OFFSETS_TOPIC_RESPONSE)
WIRE_DESC(wire_list_offsets_response, WIRE_LIST_OFFSETS_RESPONSE)
WIRE_MSG(wire_list_offsets_request, WIRE_API_LIST_OFFSETS, false, WIRE_LIST_OFFSETS_MIN_VERSION,
         WIRE_LIST_OFFSETS_MAX_VERSION, 6)
WIRE_MSG(wire_list_offsets_response, WIRE_API_LIST_OFFSETS, true, WIRE_LIST_OFFSETS_MIN_VERSION,
         WIRE_LIST_OFFSETS_MAX_VERSION, 6)
