/* The simulated network: real encoded Kafka frames between simulated nodes
 * and from simulated clients. A request has exactly one outcome for its
 * sender, as with src/net: the answer, or a failure (timeout, reset, node
 * down). Faults: delay with a tail beyond every timeout, loss, duplicated
 * request delivery, one-way and two-way partitions, connection resets that
 * fail everything in flight on a link.
 *
 * Client connections hold their answers under each node's response budget
 * (kq/budget.h, the shipped decisions, as src/net applies them): an answer
 * is charged when the node gives it and released when it arrives at the
 * client, or never for a client that never reads (w_client_flood.c); a
 * request the budget does not let be read waits at the node, behind the
 * earlier ones of its client, until released bytes let it in.
 *
 * Every connection is admitted or refused by the node's pools (w_conn.c):
 * a request goes on its client's connection into the node, opened on
 * demand; a refused or closed connection fails the requests on it. */
#include <stdlib.h>
#include <string.h>

#include "kq/assert.h"
#include "kq/handler.h"
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

static int64_t delay_ms(w_world *w, bool *tail)
{
    if (w->tail_ppm && sim_prng_chance(&w->rng, w->tail_ppm)) {
        *tail = true;
        return sim_prng_range(&w->rng, 500, 7000); /* past every timeout */
    }
    return sim_prng_range(&w->rng, 0, 8);
}

static bool link_up(const w_world *w, int from, int to)
{
    if (from < 0 || to < 0)
        return true; /* clients reach every node */
    return !w->links[from][to].cut;
}

static w_msg *msg_new(uint64_t id, int to, const uint8_t *frame, size_t len)
{
    w_msg *m = calloc(1, sizeof(*m));
    KQ_ASSERT(m);
    m->req_id = id;
    m->to = to;
    m->len = len;
    m->held_node = -1;
    m->bytes = malloc(len ? len : 1);
    KQ_ASSERT(m->bytes);
    if (len)
        memcpy(m->bytes, frame, len);
    return m;
}

static w_msg *send_frame(w_world *w, enum w_ev type, uint64_t id, int to, const uint8_t *frame,
                         size_t len, int64_t extra_ms)
{
    w_msg *m = msg_new(id, to, frame, len);
    bool tail = false;
    w_schedule(w, w->now + delay_ms(w, &tail) + extra_ms, type, to, 0, 0, m);
    w_req *r = tail ? req_get(w, id) : NULL;
    if (r)
        r->net_fault = true;
    return m;
}

static void deliver_request(w_world *w, uint64_t id, const w_req *r, const uint8_t *frame,
                            size_t len)
{
    int from = r->from_client ? W_CLIENT_FROM : r->from;
    if (!link_up(w, from, r->to) || (w->loss_ppm && sim_prng_chance(&w->rng, w->loss_ppm))) {
        w_req *lost = req_get(w, id);
        if (lost)
            lost->net_fault = true;
        return; /* lost: the sender times out */
    }
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
    w_req *r = &w->reqs[id % w->req_cap];
    w_check_on_peer_request(w, from, frame, len, r);
    if (w->nodes[to].running) {
        w_conn *conn = w_conn_peer(w, from, to);
        if (!conn) {
            r->net_fault = true; /* refused: fails as a closed connection */
            w_schedule(w, w->now + sim_prng_range(&w->rng, 1, 8), W_EV_REQ_TIMEOUT, from, 0,
                       (int64_t)id, NULL);
            return true;
        }
        r->conn_serial = conn->serial;
    }
    deliver_request(w, id, r, frame, len);
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
    if (w->nodes[to].running) {
        w_conn *conn = w_conn_client(w, client, to);
        if (!conn) { /* refused: the request fails as on a closed connection */
            uint64_t id = req_new(w, &t);
            w_schedule(w, w->now + sim_prng_range(&w->rng, 1, 8), W_EV_REQ_TIMEOUT, -1, 0,
                       (int64_t)id, NULL);
            return id;
        }
        t.conn_serial = conn->serial;
    }
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
    if (!r->from_client)
        w_check_on_peer_done(w, r, frame != NULL);
    if (getenv("SIM_TRACE_PEER") && !r->from_client)
        w_trace(w, "peer req %llu done (%s)", (unsigned long long)id, frame ? "answer" : "failed");
    if (r->from_client) {
        w->answer_coord = r->answer_coord;
        w->answer_ms = r->answered_ms;
        w_client_on_response(w, r->from, r->client_ref, frame, len);
        w->answer_coord = 0;
        return;
    }
    w_node *n = &w->nodes[r->from];
    if (!n->running || n->inc != r->from_inc || n->crash_pending)
        return;
    w->current_node = r->from;
    exec_on_peer_response(n->x, w->nodes[r->to].id, r->tag, frame, len);
    w->current_node = -1;
}

/* The group coordinator node idx holds now, as one number: the node, its
 * incarnation and the Raft epoch of the coordinator; 0 when it holds none. */
uint64_t w_net_coord_id(const w_world *w, int idx)
{
    const w_node *n = &w->nodes[idx];
    int32_t epoch;
    if (!n->running || !n->x || !handler_group_coord(exec_handler(n->x), &epoch))
        return 0;
    return ((uint64_t)(idx + 1) << 56) ^ ((uint64_t)n->inc << 32) ^ (uint32_t)epoch;
}

/* ---- the response budget of the client connections */

static void held_charge(w_world *w, int node, int client, size_t len)
{
    w_node *n = &w->nodes[node];
    KQ_ASSERT(client >= 0 && client < SIM_CLIENTS_MAX);
    kq_budget_charge(&n->budget, KQ_BUDGET_CLIENT, len);
    n->held[client] += len;
}

static void on_request(w_world *w, w_msg *m);

static bool client_deferred(const w_node *n, int client)
{
    for (int i = 0; i < n->deferred_n; i++)
        if (n->deferred[i]->held_client == client)
            return true;
    return false;
}

/* Requests waiting for the budget, oldest first: each one the budget now
 * lets in is read, unless an earlier one of its client still waits. */
static void deferred_drain(w_world *w, int node)
{
    w_node *n = &w->nodes[node];
    bool blocked[SIM_CLIENTS_MAX] = {0};
    int i = 0;
    while (i < n->deferred_n && n->running) {
        w_msg *m = n->deferred[i];
        int client = m->held_client;
        if (blocked[client] ||
            !kq_budget_may_read(&n->budget, KQ_BUDGET_CLIENT, n->held[client])) {
            blocked[client] = true;
            i++;
            continue;
        }
        memmove(&n->deferred[i], &n->deferred[i + 1],
                sizeof(*n->deferred) * (size_t)(n->deferred_n - i - 1));
        n->deferred_n--;
        m->held_node = -2; /* read now, in its turn */
        on_request(w, m);
        free(m->bytes);
        free(m);
    }
}

static void held_release(w_world *w, const w_msg *m)
{
    if (m->held_node < 0)
        return;
    w_node *n = &w->nodes[m->held_node];
    if (!n->running || n->inc != m->held_inc)
        return; /* the connection went with the process */
    kq_budget_release(&n->budget, KQ_BUDGET_CLIENT, m->len);
    KQ_ASSERT(n->held[m->held_client] >= m->len);
    n->held[m->held_client] -= m->len;
    deferred_drain(w, m->held_node);
}

static void defer_request(w_node *n, const w_msg *m, int client)
{
    if (n->deferred_n == n->deferred_cap) {
        n->deferred_cap = n->deferred_cap ? n->deferred_cap * 2 : 16;
        n->deferred = realloc(n->deferred, sizeof(*n->deferred) * (size_t)n->deferred_cap);
        KQ_ASSERT(n->deferred);
    }
    w_msg *copy = msg_new(m->req_id, m->to, m->bytes, m->len);
    copy->held_client = client;
    n->deferred[n->deferred_n++] = copy;
}

int w_net_client_backlog(const w_world *w, int client, int node)
{
    const w_node *n = &w->nodes[node];
    int count = 0;
    for (int i = 0; i < n->deferred_n; i++)
        count += n->deferred[i]->held_client == client;
    return count;
}

uint64_t w_net_slot_grant(w_world *w, const w_slot *slot, uint64_t want)
{
    w_node *n = &w->nodes[slot->node];
    const w_req *r = req_get(w, slot->req_id);
    if (!slot->from_client || !r)
        return kq_budget_grant(&n->budget, KQ_BUDGET_QUORUM, 0, want);
    return kq_budget_grant(&n->budget, KQ_BUDGET_CLIENT, n->held[r->from], want);
}

void w_net_client_close(w_world *w, int client)
{
    KQ_ASSERT(client >= 0 && client < SIM_CLIENTS_MAX);
    for (int i = 0; i < w->n; i++) {
        w_node *n = &w->nodes[i];
        if (!n->running)
            continue;
        kq_budget_release(&n->budget, KQ_BUDGET_CLIENT, n->held[client]);
        n->held[client] = 0;
        w_conn_close(w, &n->client_conns[client]);
        if (n->conn_open[client]) {
            n->conn_open[client] = false;
            kq_budget_conn_close(&n->budget, KQ_BUDGET_CLIENT);
        }
        int k = 0;
        for (int j = 0; j < n->deferred_n; j++) {
            w_msg *m = n->deferred[j];
            if (m->held_client == client) {
                free(m->bytes);
                free(m);
            } else {
                n->deferred[k++] = m;
            }
        }
        n->deferred_n = k;
        deferred_drain(w, i);
    }
}

void w_net_node_up(w_world *w, int idx)
{
    w_node *n = &w->nodes[idx];
    kq_budget_init(&n->budget, W_BUDGET_BYTES, W_BUDGET_CONN_BYTES, w->p.mutants);
    memset(n->held, 0, sizeof(n->held));
    memset(n->conn_open, 0, sizeof(n->conn_open));
    w_conn_node_up(w, idx);
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
    w_conn *conn = slot->from_client ? &n->client_conns[slot->from] : &n->peer_conns[slot->from];
    if (conn->open && conn->serial == slot->conn_serial)
        w_conn_on_answered(conn); /* the node is done with it: no longer outstanding */
    if (r && data && !r->from_client)
        w_check_on_peer_answer(w, slot->node, r, data, len);
    if (r && r->from_client) {
        r->answer_coord = w_net_coord_id(w, slot->node);
        r->answered_ms = w->now;
    }
    if (r && data && !close && r->from_client && w_client_never_reads(w, r->from)) {
        held_charge(w, slot->node, r->from, len); /* in its socket for good */
    } else if (r && !r->done && data && !close) {
        int from = r->from_client ? W_CLIENT_FROM : r->from;
        bool up = link_up(w, slot->node, from < 0 ? -1 : from);
        if (!up || (w->loss_ppm && sim_prng_chance(&w->rng, w->loss_ppm))) {
            r->net_fault = true; /* the answer is lost */
        } else {
            w_msg *m = send_frame(w, W_EV_RESPONSE, slot->req_id, from, data, len, 0);
            if (r->from_client) {
                held_charge(w, slot->node, r->from, len);
                m->held_node = slot->node;
                m->held_inc = w->nodes[slot->node].inc;
                m->held_client = r->from;
            }
        }
    } else if (r && !r->done && close) {
        complete(w, slot->req_id, NULL, 0); /* the connection closed: fails at once */
    }
    if (close && conn->open && conn->serial == slot->conn_serial)
        w_conn_close(w, conn); /* released; the rest on it fail */
    free(slot);
}

static void on_request(w_world *w, w_msg *m)
{
    w_node *n = &w->nodes[m->to];
    w_req *r = req_get(w, m->req_id);
    if (!r || (r->done && !r->from_client) || !n->running || n->crash_pending)
        return;
    if (r->from_client) {
        /* TCP: a request the client gave up on is still read, in order. */
        int client = r->from;
        KQ_ASSERT(client >= 0 && client < SIM_CLIENTS_MAX);
        w_conn *conn = &n->client_conns[client];
        if (!conn->open || conn->serial != r->conn_serial)
            return; /* its connection closed (failed then) or went with the process */
        bool arrived = m->held_node != -2; /* not one read from the deferred ones */
        if (!n->conn_open[client]) {
            n->conn_open[client] = true;
            kq_budget_conn_open(&n->budget, KQ_BUDGET_CLIENT);
        }
        if (arrived && (client_deferred(n, client) ||
                        !kq_budget_may_read(&n->budget, KQ_BUDGET_CLIENT, n->held[client]))) {
            w_conn_on_read(conn); /* waits at the node: not idle */
            defer_request(n, m, client);
            return;
        }
        if (r->done) {
            if (!arrived)
                w_conn_on_answered(conn); /* nothing to answer: done with it */
            return;
        }
        if (arrived)
            w_conn_on_read(conn);
    } else {
        w_conn *conn = &n->peer_conns[r->from];
        if (!conn->open || conn->serial != r->conn_serial)
            return; /* its connection closed: the request failed then */
        w_conn_on_read(conn);
    }
    w_slot *s = calloc(1, sizeof(*s));
    KQ_ASSERT(s);
    s->req_id = m->req_id;
    s->node = m->to;
    s->inc = n->inc;
    s->from_client = r->from_client;
    s->from = r->from;
    s->conn_serial = r->conn_serial;
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
        held_release(w, m);
        complete(w, m->req_id, m->bytes, m->len);
        break;
    }
    case W_EV_REQ_TIMEOUT: {
        w_req *r = req_get(w, (uint64_t)ev->arg);
        if (r && !r->done && !r->from_client)
            w_check_on_peer_timeout(w, r);
        complete(w, (uint64_t)ev->arg, NULL, 0);
        break;
    }
    default:
        break;
    }
}

void w_net_node_down(w_world *w, int idx)
{
    w_node *n = &w->nodes[idx];
    w_conn_node_down(w, idx);
    for (int i = 0; i < n->slot_n; i++)
        free(n->slots[i]); /* never answered: their senders time out */
    n->slot_n = 0;
    for (int i = 0; i < n->deferred_n; i++) {
        free(n->deferred[i]->bytes);
        free(n->deferred[i]);
    }
    n->deferred_n = 0;
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
 * receiver never sees a partial frame; src/net drops it). The connection
 * closes; the next request opens another. */
void w_net_reset(w_world *w, int from, int to)
{
    if (from != to)
        w_conn_close(w, &w->nodes[to].peer_conns[from]);
    for (size_t i = 0; w->reqs && i < w->req_cap; i++) {
        w_req *r = &w->reqs[i];
        if (r->in_use && !r->done && !r->from_client && r->from == from && r->to == to) {
            r->net_fault = true;
            complete(w, r->id, NULL, 0);
        }
    }
}

/* The failures are events of this instant: the client learns of them
 * when the close is over (an eviction happens inside another's send). */
void w_net_fail_conn(w_world *w, int client, int node, uint64_t serial)
{
    for (size_t i = 0; w->reqs && i < w->req_cap; i++) {
        w_req *r = &w->reqs[i];
        if (r->in_use && !r->done && r->from_client && r->from == client && r->to == node &&
            r->conn_serial == serial)
            w_schedule(w, w->now, W_EV_REQ_TIMEOUT, -1, 0, (int64_t)r->id, NULL);
    }
}
