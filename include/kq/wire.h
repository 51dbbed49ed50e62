/* Kafka request/response headers, API keys and the table of API versions we
 * advertise and accept. Per-API bodies live in include/kq/wire_<api>.h. */
#ifndef KQ_WIRE_H
#define KQ_WIRE_H

#include <stdbool.h>
#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"

enum wire_api_key {
    WIRE_API_PRODUCE = 0,
    WIRE_API_FETCH = 1,
    WIRE_API_LIST_OFFSETS = 2,
    WIRE_API_METADATA = 3,
    WIRE_API_OFFSET_COMMIT = 8,
    WIRE_API_OFFSET_FETCH = 9,
    WIRE_API_FIND_COORDINATOR = 10,
    WIRE_API_JOIN_GROUP = 11,
    WIRE_API_HEARTBEAT = 12,
    WIRE_API_LEAVE_GROUP = 13,
    WIRE_API_SYNC_GROUP = 14,
    WIRE_API_DESCRIBE_GROUPS = 15,
    WIRE_API_LIST_GROUPS = 16,
    WIRE_API_SASL_HANDSHAKE = 17,
    WIRE_API_API_VERSIONS = 18,
    WIRE_API_INIT_PRODUCER_ID = 22,
    WIRE_API_SASL_AUTHENTICATE = 36,
    WIRE_API_VOTE = 52,
    WIRE_API_BEGIN_QUORUM_EPOCH = 53,
    WIRE_API_END_QUORUM_EPOCH = 54,
    WIRE_API_DESCRIBE_QUORUM = 55,
    WIRE_API_FETCH_SNAPSHOT = 59,
    WIRE_API_DESCRIBE_CLUSTER = 60,
};

typedef struct wire_request_header {
    int16_t api_key;
    int16_t api_version;
    int32_t correlation_id;
    kq_slice client_id; /* nullable; borrowed from the input */
} wire_request_header;

/* Request header v1 for non-flexible versions (and unknown API keys), v2
 * (client_id keeps its int16 length, then tagged fields) for flexible ones.
 * Returns 0, or -1 on malformed input. */
int wire_request_header_decode(kq_reader *r, wire_request_header *h);
void wire_request_header_encode(kq_writer *w, const wire_request_header *h);

/* Response header v0 (correlation id) or v1 (+ empty tagged fields) for
 * flexible versions; ApiVersions always uses v0. */
void wire_response_header_encode(kq_writer *w, int16_t api_key, int16_t api_version,
                                 int32_t correlation_id);
int wire_response_header_decode(kq_reader *r, int16_t api_key, int16_t api_version,
                                int32_t *correlation_id);

/* Whether this version of a known API uses the flexible (compact + tagged
 * fields) encoding. Unknown keys: false. */
bool wire_api_flexible(int16_t api_key, int16_t version);

/* One API's version range: the API table's row and ApiVersions' ApiKeys
 * element alike. */
#define WIRE_API_RANGE(S)              \
    WF(S, I16, api_key, 0, WL)         \
    WF(S, I16, min_version, 0, WL)     \
    WF(S, I16, max_version, 0, WL)
#define WIRE_API_RANGE_STRUCTS(D, DI) D(wire_api_range, WIRE_API_RANGE)
WIRE_DECLARE_STRUCTS(WIRE_API_RANGE_STRUCTS)

/* What ApiVersions advertises (static table, *count entries). */
const wire_api_range *wire_advertised_apis(int *count);
/* Whether we decode this (key, version); narrower than advertised for
 * Produce (3-12: v0-2 are advertised only so librdkafka compresses). */
bool wire_api_accepted(int16_t api_key, int16_t version);
/* Human readable name for log lines; "Unknown" for unknown keys. */
const char *wire_api_name(int16_t api_key);

#endif
