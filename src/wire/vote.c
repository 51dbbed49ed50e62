/* Vote's description (include/kq/wire_vote.h) made into descriptors. */
#include "kq/wire.h"
#include "kq/wire_vote.h"
#include "wire_desc_gen.h"

WIRE_DESC(wire_vote_partition, WIRE_VOTE_PARTITION)
WIRE_DESC(wire_vote_topic, WIRE_VOTE_TOPIC)
WIRE_DESC(wire_vote_request, WIRE_VOTE_REQUEST)
WIRE_DESC(wire_vote_partition_result, WIRE_VOTE_PARTITION_RESULT)
WIRE_DESC(wire_vote_topic_result, WIRE_VOTE_TOPIC_RESULT)
WIRE_DESC(wire_vote_response, WIRE_VOTE_RESPONSE)
WIRE_MSG(wire_vote_request, WIRE_API_VOTE, false, 0, 2, 0)
WIRE_MSG(wire_vote_response, WIRE_API_VOTE, true, 0, 2, 0)
