/* The metrics endpoint's HTTP server on libuv (docs/metrics.md): GET
 * /metrics answers 200 with the body the render callback writes; another
 * path 404, another method 405, a malformed request or one whose head
 * exceeds KQ_METRICS_HTTP_REQUEST_BYTES_MAX 400. One request per connection
 * (Connection: close). At most KQ_METRICS_HTTP_CONNS_MAX connections,
 * KQ_METRICS_HTTP_CONNS_PER_IP_MAX per address (a new one closes an idle or
 * the oldest incomplete one to make room; refused only when every one is
 * writing its answer), each closed after KQ_METRICS_HTTP_HEADER_MS without a
 * complete request head; all memory is fixed
 * at start except each answer's copy (at most one per connection). */
#ifndef KQ_METRICS_HTTP_H
#define KQ_METRICS_HTTP_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

/* Writes the body into buf (cap bytes); returns its length, or 0 when it
 * did not fit (answered 500). */
typedef size_t (*metrics_http_render_fn)(void *ctx, char *buf, size_t cap);

typedef struct metrics_http_config {
    const char *host; /* empty: 0.0.0.0 */
    uint16_t port;
    metrics_http_render_fn render;
    void *ctx;
} metrics_http_config;

typedef struct metrics_http metrics_http;

/* NULL with err filled when it cannot listen. */
metrics_http *metrics_http_start(uv_loop_t *loop, const metrics_http_config *config, char *err,
                                 size_t errlen);
/* Connections refused at accept because every slot was taken (or every
 * connection was writing its answer). */
uint64_t metrics_http_refused(const metrics_http *server);
/* Connections closed to make room for a new one (slowloris: per address at
 * most KQ_METRICS_HTTP_CONNS_PER_IP_MAX; idle first, then the oldest still
 * reading its request, whose head must arrive within
 * KQ_METRICS_HTTP_HEADER_MS). */
uint64_t metrics_http_evicted(const metrics_http *server);

#endif
