/* The daemon's metrics endpoint (node_metrics.h). poll-idle-ratio-avg:
 * every second the share of that second libuv spent waiting in its poll
 * (uv_metrics_idle_time) is recorded into a Kafka-style sampled window and
 * exposed as its average, as Kafka's TimeRatio over its poll loop. */
#include "node_metrics.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "kq/log_line.h"
#include "kq/metrics.h"
#include "kq/metrics_http.h"

#define IDLE_SAMPLE_MS 1000

struct node_metrics {
    node_metrics_sources src;
    const kq_config *config;
    metrics_http *http;
    uv_timer_t idle_timer;
    uint64_t idle_prev_ns;
    uint64_t hr_prev_ns;
    kq_window idle_ratio;
};

void node_metrics_configure_loop(uv_loop_t *loop)
{
    uv_loop_configure(loop, UV_METRICS_IDLE_TIME);
}

static void on_idle_sample(uv_timer_t *t)
{
    node_metrics *m = t->data;
    uint64_t idle = uv_metrics_idle_time(m->src.loop);
    uint64_t hr = uv_hrtime();
    if (hr > m->hr_prev_ns) {
        double ratio = (double)(idle - m->idle_prev_ns) / (double)(hr - m->hr_prev_ns);
        kq_window_record(&m->idle_ratio, ratio > 1 ? 1 : ratio, (int64_t)uv_now(m->src.loop));
    }
    m->idle_prev_ns = idle;
    m->hr_prev_ns = hr;
}

typedef struct traffic {
    const char *name;
    uint64_t received_bytes;
    uint64_t sent_bytes;
} traffic;

/* <prefix>_received_bytes_total and <prefix>_sent_bytes_total by label. */
static void write_traffic(kq_mtext *t, const char *prefix, const char *label, const char *whose,
                          const traffic *io, int n)
{
    char name[96], help[192];
    for (int dir = 0; dir < 2; dir++) {
        snprintf(name, sizeof name, "%s_%s_bytes_total", prefix, dir ? "sent" : "received");
        snprintf(help, sizeof help, "Bytes %s %s (TLS: ciphertext)",
                 dir ? "written to" : "read from", whose);
        kq_mtext_family(t, name, "counter", help);
        for (int i = 0; i < n; i++) {
            kq_mlabel l = {label, io[i].name};
            uint64_t n_bytes = dir ? io[i].sent_bytes : io[i].received_bytes;
            kq_mtext_sample(t, name, &l, 1, (double)n_bytes);
        }
    }
}

static void write_network(node_metrics *m, kq_mtext *t)
{
    traffic io[KQ_CONFIG_LISTENERS_MAX > EXEC_PEERS_MAX ? KQ_CONFIG_LISTENERS_MAX
                                                        : EXEC_PEERS_MAX];
    char ids[EXEC_PEERS_MAX][16];
    for (int i = 0; i < m->config->listener_count; i++) {
        net_server_stats st;
        net_server_get_stats(m->src.servers[i], &st);
        io[i] = (traffic){m->config->listeners[i].name, st.received_bytes, st.sent_bytes};
    }
    write_traffic(t, "kq_listener", "listener", "a listener's connections (clients and peers)",
                  io, m->config->listener_count);
    for (int i = 0; i < *m->src.peer_count; i++) {
        net_peer_stats ps;
        net_peer_get_stats(m->src.peers[i], &ps);
        snprintf(ids[i], sizeof ids[i], "%d", net_peer_node_id(m->src.peers[i]));
        io[i] = (traffic){ids[i], ps.received_bytes, ps.sent_bytes};
    }
    write_traffic(t, "kq_peer", "peer", "this node's channel to a peer voter", io,
                  *m->src.peer_count);
}

/* Connections per listener, those refused at accept by reason, accept
 * failures for want of descriptors, and suppressed client-caused log lines
 * (docs/hostile-clients.md "Connections and descriptors"). */
static void write_connections(node_metrics *m, kq_mtext *t)
{
    const char *open = "kq_listener_connections";
    const char *refused = "kq_listener_connections_refused_total";
    const char *fds = "kq_listener_accept_fd_exhausted_total";
    static const char *const reasons[4] = {"max_connections", "per_ip", "tls_handshakes",
                                           "tls_handshakes_per_ip"};
    int n = m->config->listener_count;
    net_server_stats st[KQ_CONFIG_LISTENERS_MAX];
    for (int i = 0; i < n; i++)
        net_server_get_stats(m->src.servers[i], &st[i]);
    kq_mtext_family(t, open, "gauge", "Open connections of a listener");
    for (int i = 0; i < n; i++) {
        kq_mlabel l = {"listener", m->config->listeners[i].name};
        kq_mtext_sample(t, open, &l, 1, (double)st[i].connections);
    }
    kq_mtext_family(t, refused, "counter", "Connections closed at accept: max.connections, "
                    "max.connections.per.ip, TLS handshakes in progress (listener, address)");
    for (int i = 0; i < n; i++) {
        uint64_t v[4] = {st[i].refused_max_connections, st[i].refused_per_ip,
                         st[i].refused_tls_handshakes, st[i].refused_tls_handshakes_per_ip};
        for (int r = 0; r < 4; r++) {
            kq_mlabel l[2] = {{"listener", m->config->listeners[i].name}, {"reason", reasons[r]}};
            kq_mtext_sample(t, refused, l, 2, (double)v[r]);
        }
    }
    const char *evicted = "kq_listener_connections_evicted_total";
    kq_mtext_family(t, evicted, "counter", "Connections closed to admit one from an address "
                    "holding fewer, max.connections reached (the heaviest address's idlest)");
    for (int i = 0; i < n; i++) {
        kq_mlabel l = {"listener", m->config->listeners[i].name};
        kq_mtext_sample(t, evicted, &l, 1, (double)st[i].evicted);
    }
    const char *promoted = "kq_listener_connections_promoted_total";
    kq_mtext_family(t, promoted, "counter", "Connections of a listener shared by clients and "
                    "peers given the quorum's class after an accepted quorum request");
    for (int i = 0; i < n; i++) {
        kq_mlabel l = {"listener", m->config->listeners[i].name};
        kq_mtext_sample(t, promoted, &l, 1, (double)st[i].promoted_quorum);
    }
    kq_mtext_family(t, fds, "counter", "accept failed with EMFILE or ENFILE (each pauses "
                    "accepting for KQ_ACCEPT_BACKOFF_MS)");
    for (int i = 0; i < n; i++) {
        kq_mlabel l = {"listener", m->config->listeners[i].name};
        kq_mtext_sample(t, fds, &l, 1, (double)st[i].accept_fd_exhausted);
    }
    const char *sup = "kq_log_lines_suppressed_total";
    kq_mtext_family(t, sup, "counter", "Client-caused log lines suppressed by the rate limit");
    kq_mtext_sample(t, sup, NULL, 0, (double)log_line_suppressed_total());
}

static void write_process(kq_mtext *t)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long long size_pages = 0, resident_pages = 0;
    bool ok = f && fscanf(f, "%llu %llu", &size_pages, &resident_pages) == 2;
    if (f)
        fclose(f);
    if (!ok)
        return;
    double page_bytes = (double)sysconf(_SC_PAGESIZE);
    kq_mtext_family(t, "process_resident_memory_bytes", "gauge", "Resident memory size in bytes");
    kq_mtext_sample(t, "process_resident_memory_bytes", NULL, 0,
                    (double)resident_pages * page_bytes);
    kq_mtext_family(t, "process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes");
    kq_mtext_sample(t, "process_virtual_memory_bytes", NULL, 0, (double)size_pages * page_bytes);
}

static size_t render(void *ctx, char *buf, size_t cap)
{
    node_metrics *m = ctx;
    kq_mtext t;
    kq_mtext_init(&t, buf, cap);
    exec_metrics_write(m->src.exec, &t);
    const char *idle = "kafka_server_raft_metrics_poll_idle_ratio_avg";
    kq_mtext_family(&t, idle, "gauge", "The ratio of time the event loop is idle as opposed to "
                    "doing work (sampled each second, averaged over the window)");
    kq_mtext_sample(&t, idle, NULL, 0,
                    kq_window_avg(&m->idle_ratio, (int64_t)uv_now(m->src.loop)));
    write_network(m, &t);
    write_connections(m, &t);
    node_metrics_write_memory(&t, &m->src);
    const char *refused = "kq_metrics_http_refused_connections_total";
    kq_mtext_family(&t, refused, "counter", "Metrics connections closed at accept (all "
                    "connection slots taken)");
    kq_mtext_sample(&t, refused, NULL, 0, (double)metrics_http_refused(m->http));
    const char *evicted = "kq_metrics_http_evicted_connections_total";
    kq_mtext_family(&t, evicted, "counter", "Metrics connections closed to make room for a new "
                    "one (idle, or the oldest without a complete request)");
    kq_mtext_sample(&t, evicted, NULL, 0, (double)metrics_http_evicted(m->http));
    write_process(&t);
    return t.truncated ? 0 : t.len;
}

bool node_metrics_start(const kq_config *config, const node_metrics_sources *sources,
                        node_metrics **out, char *err, size_t errlen)
{
    *out = NULL;
    if (config->metrics_port == 0)
        return true;
    node_metrics *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    m->src = *sources;
    m->config = config;
    kq_window_init(&m->idle_ratio, KQ_METRICS_WINDOW_MS, (int64_t)uv_now(sources->loop));
    const char *host = config->metrics_host[0] ? config->metrics_host : config->listeners[0].host;
    metrics_http_config hc = {.host = host, .port = config->metrics_port, .render = render,
                              .ctx = m};
    m->http = metrics_http_start(sources->loop, &hc, err, errlen);
    if (!m->http) {
        free(m);
        return false;
    }
    m->idle_prev_ns = uv_metrics_idle_time(sources->loop);
    m->hr_prev_ns = uv_hrtime();
    uv_timer_init(sources->loop, &m->idle_timer);
    m->idle_timer.data = m;
    uv_timer_start(&m->idle_timer, on_idle_sample, IDLE_SAMPLE_MS, IDLE_SAMPLE_MS);
    uv_unref((uv_handle_t *)&m->idle_timer);
    log_line("node %d: metrics on http://%s:%u/metrics", config->node_id,
             host[0] ? host : "0.0.0.0", config->metrics_port);
    *out = m;
    return true;
}
