/* OffsetCommit's description (include/kq/wire_offset_commit.h) made into
 * descriptors. */
#include "kq/wire.h"
#include "kq/wire_offset_commit.h"
#include "wire_desc_gen.h"

WIRE_DESC(wire_offset_commit_partition, WIRE_OFFSET_COMMIT_PARTITION)
WIRE_DESC(wire_offset_commit_topic, WIRE_OFFSET_COMMIT_TOPIC)
WIRE_DESC(wire_offset_commit_request, WIRE_OFFSET_COMMIT_REQUEST)
WIRE_DESC(wire_offset_commit_partition_response, WIRE_OFFSET_COMMIT_PARTITION_RESPONSE)
WIRE_DESC(wire_offset_commit_topic_response, WIRE_OFFSET_COMMIT_TOPIC_RESPONSE)
WIRE_DESC(wire_offset_commit_response, WIRE_OFFSET_COMMIT_RESPONSE)
WIRE_MSG(wire_offset_commit_request, WIRE_API_OFFSET_COMMIT, false, 2, 10, 8)
WIRE_MSG(wire_offset_commit_response, WIRE_API_OFFSET_COMMIT, true, 2, 10, 8)
