/* Fetch's description (include/kq/wire_fetch.h) made into descriptors. */
#include "kq/wire.h"
#include "kq/wire_fetch.h"
#include "wire_desc_gen.h"

const kq_uuid WIRE_METADATA_TOPIC_ID = {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}};

WIRE_DESC(wire_fetch_partition, WIRE_FETCH_PARTITION)
WIRE_DESC(wire_fetch_topic, WIRE_FETCH_TOPIC)
WIRE_DESC(wire_fetch_forgotten_topic, WIRE_FETCH_FORGOTTEN_TOPIC)
WIRE_DESC_INLINE(wire_fetch_request, WIRE_FETCH_REPLICA_STATE, replica_state)
WIRE_DESC(wire_fetch_request, WIRE_FETCH_REQUEST)
WIRE_DESC(wire_fetch_epoch_end_offset, WIRE_FETCH_EPOCH_END_OFFSET)
WIRE_DESC(wire_fetch_leader_id_and_epoch, WIRE_FETCH_LEADER_ID_AND_EPOCH)
WIRE_DESC(wire_fetch_snapshot_id, WIRE_FETCH_SNAPSHOT_ID)
WIRE_DESC(wire_fetch_aborted_transaction, WIRE_FETCH_ABORTED_TRANSACTION)
WIRE_DESC(wire_fetch_partition_data, WIRE_FETCH_PARTITION_DATA)
WIRE_DESC(wire_fetch_topic_response, WIRE_FETCH_TOPIC_RESPONSE)
WIRE_DESC(wire_fetch_node_endpoint, WIRE_FETCH_NODE_ENDPOINT)
WIRE_DESC(wire_fetch_response, WIRE_FETCH_RESPONSE)
WIRE_MSG(wire_fetch_request, WIRE_API_FETCH, false, WIRE_FETCH_MIN_VERSION, WIRE_FETCH_MAX_VERSION,
         12)
WIRE_MSG(wire_fetch_response, WIRE_API_FETCH, true, WIRE_FETCH_MIN_VERSION, WIRE_FETCH_MAX_VERSION,
         12)
