/* DescribeCluster's description (include/kq/wire_describe_cluster.h) made
 * into descriptors. */
#include "kq/wire.h"
#include "kq/wire_describe_cluster.h"
#include "wire_desc_gen.h"

WIRE_DESC(wire_describe_cluster_request, WIRE_DC_REQUEST)
WIRE_DESC(wire_describe_cluster_broker, WIRE_DC_BROKER)
WIRE_DESC(wire_describe_cluster_response, WIRE_DC_RESPONSE)
WIRE_MSG(wire_describe_cluster_request, WIRE_API_DESCRIBE_CLUSTER, false, 0, 1, 0)
WIRE_MSG(wire_describe_cluster_response, WIRE_API_DESCRIBE_CLUSTER, true, 0, 1, 0)
