/* BeginQuorumEpoch's description (include/kq/wire_begin_quorum_epoch.h) made
 * into descriptors. */
#include "kq/wire.h"
#include "kq/wire_begin_quorum_epoch.h"
#include "wire_desc_gen.h"

WIRE_DESC(wire_begin_quorum_epoch_partition, WIRE_BQE_PARTITION)
WIRE_DESC(wire_begin_quorum_epoch_topic, WIRE_BQE_TOPIC)
WIRE_DESC(wire_begin_quorum_epoch_request, WIRE_BQE_REQUEST)
WIRE_DESC(wire_begin_quorum_epoch_partition_result, WIRE_BQE_PARTITION_RESULT)
WIRE_DESC(wire_begin_quorum_epoch_topic_result, WIRE_BQE_TOPIC_RESULT)
WIRE_DESC(wire_begin_quorum_epoch_response, WIRE_BQE_RESPONSE)
WIRE_MSG(wire_begin_quorum_epoch_request, WIRE_API_BEGIN_QUORUM_EPOCH, false, 0, 1, 1)
WIRE_MSG(wire_begin_quorum_epoch_response, WIRE_API_BEGIN_QUORUM_EPOCH, true, 0, 1, 1)
