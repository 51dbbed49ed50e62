/* A flood client (issue 19 item 3): it pipelines consumer Fetches for the
 * log's whole committed range, a few per action, to the leader mostly, and
 * never reads an answer (w_net holds them in its socket, charged to the
 * node's response budget). After 2-12 s its connections close, freeing
 * what they held, and it goes quiet. What it proves: with any number of
 * such answers waiting, a node's buffered client bytes never pass the
 * budget (invariant response-budget, w_check.c). */
#include "kq/wire.h"
#include "kq/wire_fetch.h"
#include "w_client_internal.h"

#define WCF_PER_ACTION_MAX 4
#define WCF_LIFETIME_MIN_MS 2000
#define WCF_LIFETIME_MAX_MS 12000
/* Requests the node does not read that fit in the socket buffers: beyond,
 * the client's sends block (TCP back-pressure). */
#define WCF_UNREAD_REQUESTS_MAX 8

void wcf_init(w_world *w, w_client *c)
{
    c->flood_until = w->now + sim_prng_range(&w->rng, WCF_LIFETIME_MIN_MS, WCF_LIFETIME_MAX_MS);
}

bool w_client_never_reads(const w_world *w, int idx)
{
    const w_client *c = idx >= 0 && idx < SIM_CLIENTS_MAX ? w->clients[idx] : NULL;
    return c && c->kind == W_CLIENT_FLOOD && !c->flood_closed;
}

static void wcf_send(w_world *w, w_client *c, int node)
{
    const w_node *n = &w->nodes[node];
    /* It knows where the log starts (as a client that asked ListOffsets). */
    int64_t from = n->running && n->x ? kq_log_start_offset(exec_log(n->x)) : 0;
    int16_t v = sim_prng_below(&w->rng, 2) ? 12 : 13;
    wire_fetch_partition p = {.partition = 0, .current_leader_epoch = -1, .fetch_offset = from,
                              .last_fetched_epoch = -1, .log_start_offset = -1,
                              .partition_max_bytes = WC_FETCH_MAX_BYTES};
    wire_fetch_topic t = {.topic = v < 13 ? kq_slice_cstr(WIRE_METADATA_TOPIC_NAME)
                                          : (kq_slice){NULL, -1},
                          .partitions = &p, .partition_count = 1};
    if (v >= 13)
        t.topic_id = WIRE_METADATA_TOPIC_ID;
    int32_t max_wait_ms = (int32_t)sim_prng_range(&w->rng, 0, 300);
    wire_fetch_request req = {.cluster_id = {NULL, -1}, .replica_id = -1, .replica_epoch = -1,
                              .max_wait_ms = max_wait_ms, .min_bytes = 1,
                              .max_bytes = WC_FETCH_MAX_BYTES, .session_epoch = -1,
                              .topics = &t, .topic_count = 1, .rack_id = kq_slice_cstr("")};
    wc_begin(c, WIRE_API_FETCH, v);
    wire_fetch_request_encode(&c->frame, v, &req);
    if (c->frame.error) {
        w_fail(w, "client %d: cannot encode a flood Fetch", c->idx);
        return;
    }
    w_net_client_send(w, c->idx, node, c->frame.data, c->frame.len, ++c->next_ref,
                      max_wait_ms + 1000);
}

void wcf_act(w_world *w, w_client *c)
{
    if (c->flood_closed)
        return;
    if (w->now >= c->flood_until || !w->clients_on) {
        c->flood_closed = true;
        w_net_client_close(w, c->idx);
        w_trace(w, "client %d: flood connections close", c->idx);
        return;
    }
    int count = (int)sim_prng_range(&w->rng, 1, WCF_PER_ACTION_MAX);
    int leader = w_current_leader(w);
    for (int i = 0; i < count && !w->failed; i++) {
        int node = leader >= 0 && sim_prng_chance(&w->rng, WC_LEADER_PPM)
                       ? leader
                       : (int)sim_prng_below(&w->rng, (uint64_t)w->n);
        if (w_net_client_backlog(w, c->idx, node) < WCF_UNREAD_REQUESTS_MAX)
            wcf_send(w, c, node);
    }
}
