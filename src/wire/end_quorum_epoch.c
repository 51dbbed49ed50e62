/* EndQuorumEpoch's description (include/kq/wire_end_quorum_epoch.h) made into
 * descriptors. */
#include "kq/wire.h"
#include "kq/wire_end_quorum_epoch.h"
#include "wire_desc_gen.h"

WIRE_DESC(wire_end_quorum_epoch_candidate, WIRE_EQE_CANDIDATE)
WIRE_DESC(wire_end_quorum_epoch_partition, WIRE_EQE_PARTITION)
WIRE_DESC(wire_end_quorum_epoch_topic, WIRE_EQE_TOPIC)
WIRE_DESC(wire_end_quorum_epoch_request, WIRE_EQE_REQUEST)
WIRE_DESC(wire_end_quorum_epoch_partition_result, WIRE_EQE_PARTITION_RESULT)
WIRE_DESC(wire_end_quorum_epoch_topic_result, WIRE_EQE_TOPIC_RESULT)
WIRE_DESC(wire_end_quorum_epoch_response, WIRE_EQE_RESPONSE)
WIRE_MSG(wire_end_quorum_epoch_request, WIRE_API_END_QUORUM_EPOCH, false, 0, 1, 1)
WIRE_MSG(wire_end_quorum_epoch_response, WIRE_API_END_QUORUM_EPOCH, true, 0, 1, 1)
