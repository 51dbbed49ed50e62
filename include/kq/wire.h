/* Kafka request/response headers, API keys and the table of API versions we
 * advertise and accept. Per-API bodies live in include/kq/wire_<api>.h. */
#ifndef KQ_WIRE_H
#define KQ_WIRE_H

#include <stdbool.h>
#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_apis.h"
#include "kq/wire_desc.h"

/* WIRE_API_<N> for every API in the one list (kq/wire_apis.h). */
#define WIRE_API_ENUM(N, KEY, NAME, P, ADV_MIN, HANDLER) WIRE_API_##N = (KEY),
enum wire_api_key { WIRE_APIS(WIRE_API_ENUM) };
#undef WIRE_API_ENUM

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
