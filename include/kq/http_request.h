/* The metrics endpoint's HTTP/1.x request parser: a pure function over the
 * bytes received so far (fuzzed by tests/fuzz/fuzz_http_request.c). It
 * accepts only what a scraper sends: a request line "METHOD SP target SP
 * HTTP/1.0|1.1" and header lines "name: value", each ending in CRLF (or a
 * bare LF), up to the empty line; every byte printable ASCII, tab, CR or
 * LF. The body, if any, is never read. */
#ifndef KQ_HTTP_REQUEST_H
#define KQ_HTTP_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#include "kq/limits.h"

enum kq_http_parse {
    KQ_HTTP_INCOMPLETE = 0, /* valid so far: wait for more bytes */
    KQ_HTTP_COMPLETE,       /* the request line and headers are all there */
    KQ_HTTP_BAD,            /* malformed, or no end within the byte bound */
};

typedef struct kq_http_request {
    char method[KQ_METRICS_HTTP_METHOD_BYTES_MAX]; /* NUL-terminated */
    /* The target's path (before any '?'), borrowed from the input. */
    const uint8_t *path;
    size_t path_len;
    size_t head_bytes; /* request line and headers, the empty line included */
} kq_http_request;

/* Parses buf[0, len). A request whose head is not complete within
 * KQ_METRICS_HTTP_REQUEST_BYTES_MAX bytes is BAD. out is filled on
 * COMPLETE only. */
enum kq_http_parse kq_http_parse_request(const uint8_t *buf, size_t len, kq_http_request *out);

#endif
