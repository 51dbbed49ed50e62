/* The simulated network: real encoded Kafka frames between simulated nodes
 * and from simulated clients. A request has exactly one outcome for its
 * sender, as with src/net: the answer, or a failure (timeout, reset, node
 * down). Faults: delay with a tail beyond every timeout, loss, duplicated
 * request delivery, one-way and two-way partitions, connection resets that
 * fail everything in flight on a link. */
#include <stdlib.h>
#include <string.h>

#include "kq/assert.h"
#include "kq/wire.h"
#include "sim.h"
#include "w_check.h"
#include "w_client.h"

#define W_CLIENT_FROM (-1)

int w_node_index(const w_world *w, int32_t id)
{
    for (int i = 0; i < w->n; i++)
        if (w->nodes[i].id == id)
            return i;
    return -1;
}

static w_req *req_get(w_world *w, uint64_t id)
{
    if (id == 0 || id >= w->next_req)
        return NULL;
    w_req *r = &w->reqs[id % w->req_cap];
    return r->in_use && r->id == id ? r : NULL;
}

static uint64_t req_new(w_world *w, const w_req *tmpl)
{
    if (!w->reqs) {
        w->req_cap = 1u << 16;
        w->reqs = calloc(w->req_cap, sizeof(*w->reqs));
        KQ_ASSERT(w->reqs);
        w->next_req = 1;
    }
    uint64_t id = w->next_req++;
    w_req *r = &w->reqs[id % w->req_cap];
    /* A request older than 65536 newer ones is long timed out. */
    KQ_ASSERT(!r->in_use || r->done);
    *r = *tmpl;
    r->id = id;
    r->in_use = true;
    r->done = false;
    return id;
}

static int64_t delay_ms(w_world *w)
{
    if (w->tail_ppm && sim_prng_chance(&w->rng, w->tail_ppm))
        return sim_prng_range(&w->rng, 500, 7000); /* past every timeout */
    return sim_prng_range(&w->rng, 0, 8);
}

static bool link_up(const w_world *w, int from, int to)
{
    if (from < 0 || to < 0)
        return true; /* clients reach every node */
    return !w->links[from][to].cut;
}

static void send_frame(w_world *w, enum w_ev type, uint64_t id, int to, const uint8_t *frame,
                       size_t len, int64_t extra_ms)
{
    w_msg *m = malloc(sizeof(*m));
    KQ_ASSERT(m);
    m->req_id = id;
    m->to = to;
    m->len = len;
    m->bytes = malloc(len ? len : 1);
    KQ_ASSERT(m->bytes);
    if (len)
        memcpy(m->bytes, frame, len);
    w_schedule(w, w->now + delay_ms(w) + extra_ms, type, to, 0, 0, m);
}

static void deliver_request(w_world *w, uint64_t id, const w_req *r, const uint8_t *frame,
                            size_t len)
{
    int from = r->from_client ? W_CLIENT_FROM : r->from;
    if (!link_up(w, from, r->to) || (w->loss_ppm && sim_prng_chance(&w->rng, w->loss_ppm)))
        return; /* lost: the sender times out */
    send_frame(w, W_EV_REQUEST, id, r->to, frame, len, 0);
    /* Duplicated delivery only between servers: a client's TCP connection
     * never repeats a Produce (non-idempotent producers could not dedupe). */
    if (!r->from_client && w->dup_ppm && sim_prng_chance(&w->rng, w->dup_ppm))
        send_frame(w, W_EV_REQUEST, id, r->to, frame, len, sim_prng_range(&w->rng, 0, 50));
}

/* The request's API key and version, decoded by src/wire. */
static wire_request_header header_of(const uint8_t *frame, size_t len)
{
    kq_reader r;
    kq_reader_init(&r, frame, len);
    wire_request_header h = {.api_key = -1, .api_version = -1};
    if (wire_request_header_decode(&r, &h) != 0)
        h.api_key = -1;
    return h;
}

bool w_net_peer_send(w_world *w, int from, int32_t to_id, int32_t corr, const uint8_t *frame,
                     size_t len, uint64_t tag)
{
    int to = w_node_index(w, to_id);
    KQ_ASSERT(to >= 0 && len >= 8);
    wire_request_header h = header_of(frame, len);
    w_req t = {.from = from, .from_inc = w->nodes[from].inc, .to = to, .tag = tag,
               .api_key = h.api_key, .api_version = h.api_version, .correlation_id = corr};
    uint64_t id = req_new(w, &t);
    if (getenv("SIM_TRACE_PEER"))
        w_trace(w, "peer req %llu: node %d -> %d api %d", (unsigned long long)id, from + 1, to + 1,
                h.api_key);
    w_check_on_peer_request(w, from, frame, len, &w->reqs[id % w->req_cap]);
    deliver_request(w, id, &w->reqs[id % w->req_cap], frame, len);
    w_schedule(w, w->now + w->cfg.request_timeout_ms, W_EV_REQ_TIMEOUT, from, 0, (int64_t)id,
               NULL);
    return true;
}

uint64_t w_net_client_send(w_world *w, int client, int to, const uint8_t *frame, size_t len,
                           uint64_t client_ref, int32_t timeout_ms)
{
    KQ_ASSERT(len >= 8 && to >= 0 && to < w->n);
    wire_request_header h = header_of(frame, len);
    w_req t = {.from_client = true, .from = client, .to = to, .api_key = h.api_key,
               .api_version = h.api_version, .client_ref = client_ref};
    uint64_t id = req_new(w, &t);
    deliver_request(w, id, &w->reqs[id % w->req_cap], frame, len);
    w_schedule(w, w->now + timeout_ms, W_EV_REQ_TIMEOUT, -1, 0, (int64_t)id, NULL);
    return id;
}

/* The one outcome of request id: the answer (frame) or a failure (NULL). */
static void complete(w_world *w, uint64_t id, const uint8_t *frame, size_t len)
{
    w_req *r = req_get(w, id);
    if (!r || r->done)
        return; /* late: the sender already gave up (or got a duplicate's answer) */
    r->done = true;
    if (getenv("SIM_TRACE_PEER") && !r->from_client)
        w_trace(w, "peer req %llu done (%s)", (unsigned long long)id, frame ? "answer" : "failed");
    if (r->from_client) {
        w_client_on_response(w, r->from, r->client_ref, frame, len);
        return;
    }
    w_node *n = &w->nodes[r->from];
    if (!n->running || n->inc != r->from_inc || n->crash_pending)
        return;
    w->current_node = r->from;
    exec_on_peer_response(n->x, w->nodes[r->to].id, r->tag, frame, len);
    w->current_node = -1;
}

void w_net_reply(w_world *w, w_slot *slot, const uint8_t *data, size_t len, bool close)
{
    KQ_ASSERT(!slot->answered);
    slot->answered = true;
    w_node *n = &w->nodes[slot->node];
    for (int i = 0; i < n->slot_n; i++)
        if (n->slots[i] == slot) {
            n->slots[i] = n->slots[--n->slot_n];
            break;
        }
    w_req *r = req_get(w, slot->req_id);
    if (r && data && !r->from_client)
        w_check_on_peer_answer(w, slot->node, r, data, len);
    if (r && !r->done && data && !close) {
        int from = r->from_client ? W_CLIENT_FROM : r->from;
        bool up = link_up(w, slot->node, from < 0 ? -1 : from);
        if (up && !(w->loss_ppm && sim_prng_chance(&w->rng, w->loss_ppm)))
            send_frame(w, W_EV_RESPONSE, slot->req_id, from, data, len, 0);
    } else if (r && !r->done && close) {
        complete(w, slot->req_id, NULL, 0); /* the connection closed: fails at once */
    }
    free(slot);
}

static void on_request(w_world *w, w_msg *m)
{
    w_node *n = &w->nodes[m->to];
    w_req *r = req_get(w, m->req_id);
    if (!r || r->done || !n->running || n->crash_pending)
        return;
    w_slot *s = calloc(1, sizeof(*s));
    KQ_ASSERT(s);
    s->req_id = m->req_id;
    s->node = m->to;
    s->inc = n->inc;
    s->from_client = r->from_client;
    if (n->slot_n == n->slot_cap) {
        n->slot_cap = n->slot_cap ? n->slot_cap * 2 : 64;
        n->slots = realloc(n->slots, sizeof(*n->slots) * (size_t)n->slot_cap);
        KQ_ASSERT(n->slots);
    }
    n->slots[n->slot_n++] = s;
    w->current_node = m->to;
    exec_on_frame(n->x, s, m->bytes, m->len);
    w->current_node = -1;
}

void w_net_on_event(w_world *w, const sim_event *ev)
{
    switch ((enum w_ev)ev->type) {
    case W_EV_REQUEST:
        on_request(w, ev->ptr);
        break;
    case W_EV_RESPONSE: {
        w_msg *m = ev->ptr;
        complete(w, m->req_id, m->bytes, m->len);
        break;
    }
    case W_EV_REQ_TIMEOUT:
        complete(w, (uint64_t)ev->arg, NULL, 0);
        break;
    default:
        break;
    }
}

void w_net_node_down(w_world *w, int idx)
{
    w_node *n = &w->nodes[idx];
    for (int i = 0; i < n->slot_n; i++)
        free(n->slots[i]); /* never answered: their senders time out */
    n->slot_n = 0;
}

void w_net_partition(w_world *w, const bool *side_a)
{
    for (int i = 0; i < w->n; i++)
        for (int j = 0; j < w->n; j++)
            if (side_a[i] != side_a[j])
                w->links[i][j].cut = true;
}

void w_net_cut_one_way(w_world *w, int from, int to)
{
    w->links[from][to].cut = true;
}

void w_net_heal(w_world *w)
{
    memset(w->links, 0, sizeof(w->links));
}

/* A connection reset on the link from -> to, in the middle of whatever
 * frames were in flight: every request on it fails now for its sender (the
 * receiver never sees a partial frame; src/net drops it). */
void w_net_reset(w_world *w, int from, int to)
{
    for (size_t i = 0; w->reqs && i < w->req_cap; i++) {
        w_req *r = &w->reqs[i];
        if (r->in_use && !r->done && !r->from_client && r->from == from && r->to == to)
            complete(w, r->id, NULL, 0);
    }
}
