/* DescribeQuorum's description (include/kq/wire_describe_quorum.h) made into
 * descriptors. */
#include "kq/wire.h"
#include "kq/wire_describe_quorum.h"
#include "wire_desc_gen.h"

WIRE_DESC(wire_describe_quorum_partition, WIRE_DQ_PARTITION)
WIRE_DESC(wire_describe_quorum_topic, WIRE_DQ_TOPIC)
WIRE_DESC(wire_describe_quorum_request, WIRE_DQ_REQUEST)
WIRE_DESC(wire_describe_quorum_replica_state, WIRE_DQ_REPLICA_STATE)
WIRE_DESC(wire_describe_quorum_partition_data, WIRE_DQ_PARTITION_DATA)
WIRE_DESC(wire_describe_quorum_topic_data, WIRE_DQ_TOPIC_DATA)
WIRE_DESC(wire_describe_quorum_node, WIRE_DQ_NODE)
WIRE_DESC(wire_describe_quorum_response, WIRE_DQ_RESPONSE)
WIRE_MSG(wire_describe_quorum_request, WIRE_API_DESCRIBE_QUORUM, false, 0, 2, 0)
WIRE_MSG(wire_describe_quorum_response, WIRE_API_DESCRIBE_QUORUM, true, 0, 2, 0)
