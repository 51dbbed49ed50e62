/* The memory bounds' metrics (docs/hostile-clients.md, "Every bound, in sum"): the request
 * budget shared by every listener (queued.max.request.bytes, kq/net.h),
 * the response budget (queued.max.response.bytes, kq/budget.h) per class,
 * and the client frames held to the next loop turn. */
#include "node_metrics.h"

static void gauge(kq_mtext *t, const char *name, const char *help, double v)
{
    kq_mtext_family(t, name, "gauge", help);
    kq_mtext_sample(t, name, NULL, 0, v);
}

static void counter(kq_mtext *t, const char *name, const char *help, double v)
{
    kq_mtext_family(t, name, "counter", help);
    kq_mtext_sample(t, name, NULL, 0, v);
}

static void write_request_memory(kq_mtext *t, const net_shared *shared)
{
    net_shared_stats s;
    net_shared_get_stats(shared, &s);
    gauge(t, "kq_request_memory_max_bytes", "queued.max.request.bytes: the read buffers of "
          "every listener's connections together", (double)s.request_bytes_max);
    gauge(t, "kq_request_memory_used_bytes", "Read buffers held for requests being received, "
          "every listener", (double)s.request_bytes);
    gauge(t, "kq_request_memory_peak_bytes", "The most the read buffers held together since "
          "start", (double)s.request_bytes_peak);
    gauge(t, "kq_request_memory_waiting_connections", "Connections not read until request "
          "memory frees", (double)s.conns_waiting_memory);
    counter(t, "kq_request_memory_waits_total", "Times a connection began to wait for request "
            "memory", (double)s.request_waits);
    counter(t, "kq_client_turns_full_total", "Client connections held to the next loop turn "
            "by the client frames per turn (KQ_NET_CLIENT_FRAMES_PER_TURN_MAX)",
            (double)s.client_turns_full);
}

static void write_response_memory(kq_mtext *t, const kq_budget *b)
{
    static const char *const classes[KQ_BUDGET_CLASSES] = {"client", "quorum"};
    const char *used = "kq_response_memory_used_bytes";
    gauge(t, "kq_response_memory_max_bytes", "queued.max.response.bytes: responses not yet "
          "written, every listener", (double)b->bytes_max);
    kq_mtext_family(t, used, "gauge", "Responses not yet taken by the kernel, by class "
                    "(quorum: the controller listener's connections)");
    for (int c = 0; c < KQ_BUDGET_CLASSES; c++) {
        kq_mlabel l = {"class", classes[c]};
        kq_mtext_sample(t, used, &l, 1, (double)b->used[c]);
    }
    gauge(t, "kq_response_memory_peak_bytes", "The most responses not yet written held "
          "together since start", (double)b->peak);
    counter(t, "kq_response_memory_reads_refused_total", "Requests left unread because the "
            "response budget refused their connection", (double)b->reads_refused);
    counter(t, "kq_response_memory_fetch_grants_cut_total", "Fetch answers given less log "
            "data than asked by the response budget or the connection's write queue",
            (double)b->grants_cut);
}

void node_metrics_write_memory(kq_mtext *t, const node_metrics_sources *src)
{
    if (src->net_shared)
        write_request_memory(t, src->net_shared);
    if (src->response_budget)
        write_response_memory(t, src->response_budget);
}
