/* The daemon's metrics endpoint (docs/metrics.md): the HTTP server of
 * src/net/metrics_http.c on metrics.host:metrics.port, serving the
 * executor's metrics plus what only the daemon sees: the loop's idle ratio
 * (Kafka's poll-idle-ratio-avg), the listeners' and peer channels' byte
 * counters, the request and response budgets and the process's memory. */
#ifndef KQ_DAEMON_NODE_METRICS_H
#define KQ_DAEMON_NODE_METRICS_H

#include <stdbool.h>
#include <uv.h>

#include "kq/config.h"
#include "kq/budget.h"
#include "kq/exec.h"
#include "kq/metrics.h"
#include "kq/net.h"

typedef struct node_metrics_sources {
    uv_loop_t *loop;
    kq_exec *exec;
    net_server *const *servers; /* one per config listener, same order */
    net_peer *const *peers;   /* peer_count of them; the set follows the voters */
    const int *peer_count;
    const net_shared *net_shared;     /* queued.max.request.bytes, client turns */
    const kq_budget *response_budget; /* queued.max.response.bytes */
} node_metrics_sources;

typedef struct node_metrics node_metrics;

/* Before uv_run: turns on libuv's idle-time accounting. */
void node_metrics_configure_loop(uv_loop_t *loop);
/* Off (NULL, true) without metrics.port; NULL and false with err filled
 * when the endpoint cannot listen. */
/* node_metrics_memory.c: the request and response budgets' families. */
void node_metrics_write_memory(kq_mtext *t, const node_metrics_sources *src);
bool node_metrics_start(const kq_config *config, const node_metrics_sources *sources,
                        node_metrics **out, char *err, size_t errlen);

#endif
