/* Connection floods (issue 19 item 2): what the shipped pools guarantee,
 * checked at each verdict w_conn.c carries out, against the simulator's own
 * table of open connections (not the pool's counts).
 *
 * `quorum-connections`: a peer's connection (controller pool) is never
 * refused nor evicted, whatever the clients hold.
 * `client-admitted`: eviction (kq/conn_evict.h) closes an idle connection
 * of an address holding the most. So when every address holding the most
 * connections of a node's client pool is a connection flood's, all of its
 * connections idle, a connection from an address holding fewer (and fewer
 * than its per-address limit) is never refused for the pool being full;
 * and no client's connection is evicted while a flood's address holds more
 * connections than the client's. */
#include "w_check_internal.h"

typedef struct conn_counts {
    uint32_t open;                            /* in the client pool */
    uint32_t flood[W_CONNFLOOD_ADDRS_MAX];    /* per flood address */
    bool flood_busy[W_CONNFLOOD_ADDRS_MAX];   /* one of them is not idle */
    uint32_t client_max;                      /* the most of another address (0 or 1) */
} conn_counts;

static conn_counts count_client_pool(w_world *w, int node)
{
    w_node *n = &w->nodes[node];
    conn_counts k = {0};
    for (int i = 0; i < SIM_CLIENTS_MAX + SIM_NODES_MAX; i++) {
        const w_conn *c = i < SIM_CLIENTS_MAX ? &n->client_conns[i]
                                              : &n->peer_conns[i - SIM_CLIENTS_MAX];
        if (c->open && w_conn_pool(w, c) == &n->client_pool) {
            k.open++;
            k.client_max = 1; /* one connection per client (or peer) and node */
        }
    }
    for (int i = 0; i < W_CONNFLOOD_CONNS_MAX; i++) {
        const w_conn *c = &n->flood_conns[i];
        if (!c->open)
            continue;
        k.open++;
        k.flood[c->flood_addr]++;
        if (!w_conn_idle(w, c))
            k.flood_busy[c->flood_addr] = true;
    }
    return k;
}

static const char *verdict_name(kq_conn_verdict v)
{
    switch (v) {
    case KQ_CONN_ADMIT: return "admitted";
    case KQ_CONN_REFUSE_TOTAL: return "the pool is full";
    case KQ_CONN_REFUSE_PER_IP: return "its address's limit";
    case KQ_CONN_REFUSE_MEMORY: return "out of memory";
    }
    return "?";
}

void w_check_on_conn_refused(w_world *w, const w_conn *c, kq_conn_verdict v)
{
    const w_node *n = &w->nodes[c->node];
    if (c->peer) {
        if (w_check_on(w, W_INV_QUORUM_CONNECTIONS))
            w_inv_fail(w, W_INV_QUORUM_CONNECTIONS,
                       "node %d refuses node %d's connection (%s; controller pool %u/%u open)",
                       n->id, c->addr.bytes[3], verdict_name(v), n->controller_pool.open,
                       n->controller_pool.max_connections);
        return;
    }
    if (c->flood_addr >= 0 || v != KQ_CONN_REFUSE_TOTAL || !w_check_on(w, W_INV_CLIENT_ADMITTED))
        return;
    conn_counts k = count_client_pool(w, c->node);
    if (k.open != n->client_pool.open) {
        w_fail(w, "harness: node %d's client pool counts %u open connections, the network %u",
               n->id, n->client_pool.open, k.open);
        return;
    }
    uint32_t top = k.client_max;
    for (int f = 0; f < W_CONNFLOOD_ADDRS_MAX; f++)
        if (k.flood[f] > top)
            top = k.flood[f];
    /* client c holds none into the node (it is opening its one) */
    if (top <= k.client_max || kq_conn_pool_ip_limit(&n->client_pool, &c->addr) == 0)
        return; /* a client's address holds the most too, or none may */
    for (int f = 0; f < W_CONNFLOOD_ADDRS_MAX; f++) {
        if (k.flood[f] == top && k.flood_busy[f])
            return; /* the policy may find no idle one to close */
    }
    for (int f = 0; f < W_CONNFLOOD_ADDRS_MAX; f++)
        if (k.flood[f] == top) {
            w_inv_fail(w, W_INV_CLIENT_ADMITTED,
                       "node %d refuses client %d's connection (the pool is full: %u/%u) while "
                       "flood address 10.0.2.%d holds %u idle connections, the most",
                       n->id, c->client, n->client_pool.open, n->client_pool.max_connections,
                       f + 1, k.flood[f]);
            return;
        }
}

void w_check_on_conn_evicted(w_world *w, const w_conn *victim, const w_conn *by)
{
    const w_node *n = &w->nodes[victim->node];
    if (victim->peer) {
        if (w_check_on(w, W_INV_QUORUM_CONNECTIONS))
            w_inv_fail(w, W_INV_QUORUM_CONNECTIONS,
                       "node %d evicts node %d's connection for %u.%u.%u.%u", n->id,
                       victim->addr.bytes[3], by->addr.bytes[0], by->addr.bytes[1],
                       by->addr.bytes[2], by->addr.bytes[3]);
        return;
    }
    if (victim->client < 0 || !w_check_on(w, W_INV_CLIENT_ADMITTED))
        return;
    conn_counts k = count_client_pool(w, victim->node);
    for (int f = 0; f < W_CONNFLOOD_ADDRS_MAX; f++)
        if (k.flood[f] > 1) {
            w_inv_fail(w, W_INV_CLIENT_ADMITTED,
                       "node %d evicts client %d's connection while flood address 10.0.2.%d "
                       "holds %u connections",
                       n->id, victim->client, f + 1, k.flood[f]);
            return;
        }
}
