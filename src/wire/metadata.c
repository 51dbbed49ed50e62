/* Metadata's description (include/kq/wire_metadata.h) made into
 * descriptors, and the request's "every topic" rule. */
#include "kq/wire.h"
#include "kq/wire_metadata.h"

bool wire_metadata_request_all_topics(const wire_metadata_request *req, int16_t version)
{
    if (req->topic_count < 0)
        return true;
    return version == 0 && req->topic_count == 0;
}

#include "wire_desc_gen.h"

WIRE_DESC(wire_metadata_request_topic, WIRE_METADATA_REQUEST_TOPIC)
WIRE_DESC(wire_metadata_request, WIRE_METADATA_REQUEST)
WIRE_DESC(wire_metadata_broker, WIRE_METADATA_BROKER)
WIRE_DESC(wire_metadata_partition, WIRE_METADATA_PARTITION)
WIRE_DESC(wire_metadata_topic, WIRE_METADATA_TOPIC)
WIRE_DESC(wire_metadata_response, WIRE_METADATA_RESPONSE)
/* The handler tests send v13 (Kafka's, the v12 layout; refused). */
WIRE_MSG_ENC(wire_metadata_request, WIRE_API_METADATA, false, WIRE_METADATA_MIN_VERSION,
             WIRE_METADATA_MAX_VERSION, 9, WIRE_METADATA_MIN_VERSION, 13)
WIRE_MSG(wire_metadata_response, WIRE_API_METADATA, true, WIRE_METADATA_MIN_VERSION,
         WIRE_METADATA_MAX_VERSION, 9)
