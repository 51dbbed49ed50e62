/* Fetch's description (include/kq/wire_fetch.h) made into descriptors. */
#include "kq/wire.h"
#include "kq/wire_fetch.h"

const kq_uuid WIRE_METADATA_TOPIC_ID = {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}};















