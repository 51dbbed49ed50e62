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








/* The handler tests send v13 (Kafka's, the v12 layout; refused). */

