/* Produce's description (include/kq/wire_produce.h) made into descriptors. */
#include "kq/wire.h"
#include "kq/wire_produce.h"
#include "wire_desc_gen.h"

WIRE_DESC(wire_produce_partition, WIRE_PRODUCE_PARTITION)
WIRE_DESC(wire_produce_topic, WIRE_PRODUCE_TOPIC)
WIRE_DESC(wire_produce_request, WIRE_PRODUCE_REQUEST)
WIRE_DESC(wire_produce_record_error, WIRE_PRODUCE_RECORD_ERROR)
WIRE_DESC_INLINE(wire_produce_partition_response, WIRE_PRODUCE_CURRENT_LEADER, current_leader)
WIRE_DESC(wire_produce_partition_response, WIRE_PRODUCE_PARTITION_RESPONSE)
WIRE_DESC(wire_produce_topic_response, WIRE_PRODUCE_TOPIC_RESPONSE)
WIRE_DESC(wire_produce_node_endpoint, WIRE_PRODUCE_NODE_ENDPOINT)
WIRE_DESC(wire_produce_response, WIRE_PRODUCE_RESPONSE)
/* The handler tests send v0-2 and v13 (advertised or Kafka's, refused). */
WIRE_MSG_ENC(wire_produce_request, WIRE_API_PRODUCE, false, WIRE_PRODUCE_MIN_VERSION,
             WIRE_PRODUCE_MAX_VERSION, 9, 0, 13)
WIRE_MSG(wire_produce_response, WIRE_API_PRODUCE, true, WIRE_PRODUCE_MIN_VERSION,
         WIRE_PRODUCE_MAX_VERSION, 9)
