/* Connections of the simulated network (issue 19 item 2): every node has
 * the daemon's two pools (kq_conn_pools_init: a client pool of
 * max.connections, per address the default share, with eviction; a
 * controller pool for the peers), set up for each incarnation. Every
 * connection a client, a peer or a connection flood opens is admitted or
 * refused by them, as src/net does at accept: a refused one fails its
 * requests like a closed connection, an admission that evicts closes the
 * victim (its requests in flight fail, as on a reset), a close releases.
 * A connection that was answered a request is "used" (evicted after the
 * fresh ones). The verdicts go to the checker (w_check_conn.c). */
#include <stddef.h>
#include <string.h>

#include "kq/assert.h"
#include "sim.h"
#include "w_client.h"
#include "w_check.h"

/* Addresses: 10.0.0.<node+1>, 10.0.1.<client+1>, 10.0.2.<k+1>. */
static kq_conn_addr addr_of(uint8_t net, int idx)
{
    kq_conn_addr a = {.family = 4, .bytes = {10, 0, net, (uint8_t)(idx + 1)}};
    return a;
}

kq_conn_addr w_addr_peer(int idx)
{
    return addr_of(0, idx);
}

kq_conn_addr w_addr_client(int idx)
{
    return addr_of(1, idx);
}

kq_conn_addr w_addr_flood(int k)
{
    return addr_of(2, k);
}

/* The evictable callback sees only the member: the world it belongs to is
 * the one admitting (one world at a time). */
static const w_world *admitting;

bool w_conn_idle(const w_world *w, const w_conn *c)
{
    if (!c->open || c->outstanding > 0)
        return false;
    return c->client < 0 || w->nodes[c->node].held[c->client] == 0;
}

static bool conn_evictable(kq_conn_member *m)
{
    const w_conn *c = (const w_conn *)((const char *)m - offsetof(w_conn, member));
    return w_conn_idle(admitting, c);
}

kq_conn_pool *w_conn_pool(w_world *w, const w_conn *c)
{
    w_node *n = &w->nodes[c->node];
    /* The simulated nodes name a controller listener, the peers' one. */
    return kq_conn_pool_of_listener(&n->client_pool, &n->controller_pool, true,
                                    c->peer || c->controller);
}

/* c was released from its pool: closed, a client's requests on it fail. */
static void conn_gone(w_world *w, w_conn *c)
{
    w_node *n = &w->nodes[c->node];
    c->open = false;
    c->member = (kq_conn_member){0};
    if (c->client < 0)
        return;
    if (n->conn_open[c->client]) {
        n->conn_open[c->client] = false;
        kq_budget_conn_close(&n->budget, KQ_BUDGET_CLIENT);
    }
    w_net_fail_conn(w, c->client, c->node, c->serial);
}

void w_conn_close(w_world *w, w_conn *c)
{
    if (!c->open)
        return;
    kq_conn_pool_release_member(w_conn_pool(w, c), &c->addr, &c->member);
    conn_gone(w, c);
}

/* The pool took victim's slot for by: it is released there already. */
static void conn_evicted(w_world *w, const w_conn *by, kq_conn_member *victim)
{
    w_conn *v = (w_conn *)((char *)victim - offsetof(w_conn, member));
    KQ_ASSERT(v->open && v != by && v->node == by->node);
    w_check_on_conn_evicted(w, v, by);
    w_trace(w, "node %d evicts a connection from %u.%u.%u.%u for %u.%u.%u.%u",
            w->nodes[v->node].id, v->addr.bytes[0], v->addr.bytes[1], v->addr.bytes[2],
            v->addr.bytes[3], by->addr.bytes[0], by->addr.bytes[1], by->addr.bytes[2],
            by->addr.bytes[3]);
    conn_gone(w, v);
}

/* Admits c (closed, its fields set) into its pool: true when open. */
static bool conn_admit(w_world *w, w_conn *c)
{
    KQ_ASSERT(!c->open);
    c->member = (kq_conn_member){0};
    kq_conn_member *victim = NULL;
    admitting = w;
    kq_conn_verdict v =
        kq_conn_pool_admit_member(w_conn_pool(w, c), &c->addr, &c->member, conn_evictable, &victim);
    admitting = NULL;
    if (victim)
        conn_evicted(w, c, victim);
    if (v != KQ_CONN_ADMIT) {
        w_check_on_conn_refused(w, c, v);
        return false;
    }
    c->open = true;
    c->serial = ++w->conn_serial;
    c->outstanding = 0;
    return true;
}

void w_conn_node_up(w_world *w, int idx)
{
    w_node *n = &w->nodes[idx];
    kq_conn_pool_free(&n->client_pool);
    kq_conn_pool_free(&n->controller_pool);
    kq_conn_pools_init(&n->client_pool, &n->controller_pool,
                       &(kq_conn_pools_config){.max_connections = w->max_connections,
                                               .max_connections_per_ip = -1,
                                               .mutants = w->p.mutants});
    memset(n->client_conns, 0, sizeof(n->client_conns));
    memset(n->peer_conns, 0, sizeof(n->peer_conns));
    memset(n->flood_conns, 0, sizeof(n->flood_conns));
}

void w_conn_node_down(w_world *w, int idx)
{
    w_node *n = &w->nodes[idx];
    /* Its process is gone: every connection into it, and its own into the
     * others (their controller pools release them). */
    kq_conn_pool_free(&n->client_pool);
    kq_conn_pool_free(&n->controller_pool);
    memset(&n->client_pool, 0, sizeof(n->client_pool));
    memset(&n->controller_pool, 0, sizeof(n->controller_pool));
    memset(n->client_conns, 0, sizeof(n->client_conns));
    memset(n->peer_conns, 0, sizeof(n->peer_conns));
    memset(n->flood_conns, 0, sizeof(n->flood_conns));
    for (int j = 0; j < w->n; j++)
        if (j != idx)
            w_conn_close(w, &w->nodes[j].peer_conns[idx]);
}

w_conn *w_conn_client(w_world *w, int client, int node)
{
    KQ_ASSERT(client >= 0 && client < SIM_CLIENTS_MAX && w->nodes[node].running);
    w_conn *c = &w->nodes[node].client_conns[client];
    if (c->open)
        return c;
    *c = (w_conn){.addr = w_addr_client(client), .node = (int8_t)node, .client = (int8_t)client,
                  .flood_addr = -1, .controller = w_client_on_controller(w, client)};
    return conn_admit(w, c) ? c : NULL;
}

w_conn *w_conn_peer(w_world *w, int from, int to)
{
    KQ_ASSERT(w->nodes[to].running && from != to);
    w_conn *c = &w->nodes[to].peer_conns[from];
    if (c->open)
        return c;
    *c = (w_conn){.addr = w_addr_peer(from), .peer = true, .node = (int8_t)to, .client = -1,
                  .flood_addr = -1};
    return conn_admit(w, c) ? c : NULL;
}

bool w_conn_flood_open(w_world *w, int node, int k)
{
    KQ_ASSERT(w->nodes[node].running && k >= 0 && k < W_CONNFLOOD_ADDRS_MAX);
    w_node *n = &w->nodes[node];
    for (int i = 0; i < W_CONNFLOOD_CONNS_MAX; i++) {
        w_conn *c = &n->flood_conns[i];
        if (c->open)
            continue;
        *c = (w_conn){.addr = w_addr_flood(k), .node = (int8_t)node, .client = -1,
                      .flood_addr = (int8_t)k};
        return conn_admit(w, c);
    }
    return false;
}

void w_conn_on_read(w_conn *c)
{
    c->outstanding++;
    kq_conn_evict_touch(&c->member, false);
}

void w_conn_on_answered(w_conn *c)
{
    KQ_ASSERT(c->outstanding > 0);
    c->outstanding--;
    kq_conn_evict_touch(&c->member, true);
}
