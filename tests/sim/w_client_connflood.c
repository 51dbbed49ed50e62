/* A connection flood (issue 19 item 2): from one to three addresses of its
 * own (two thirds of them) or from 16-64 (a botnet's), it opens idle connections into every running node's client
 * listener, up to 8 per node and action (more than max.connections in a
 * few actions), and opens new ones for those closed or evicted; it never
 * sends a byte. After 5-20 s it closes them all and goes quiet. What it
 * proves: the shipped pools (w_conn.c) keep room for the other clients
 * (`client-admitted`) and for the quorum (`quorum-connections`), and the
 * quorum keeps its pace (`voter-fetch-timely`). Each action costs a few
 * admissions per node. */
#include "w_client_internal.h"

#define WCC_PER_ACTION_MAX 8
#define WCC_LIFETIME_MIN_MS 5000
#define WCC_LIFETIME_MAX_MS 20000

void wcc_init(w_world *w, w_client *c)
{
    c->flood_until = w->now + sim_prng_range(&w->rng, WCC_LIFETIME_MIN_MS, WCC_LIFETIME_MAX_MS);
    c->connflood_addrs = sim_prng_below(&w->rng, 3) ? (int)sim_prng_range(&w->rng, 1, 3)
                                                    : (int)sim_prng_range(&w->rng, 16, 64);
}

static void wcc_close_all(w_world *w)
{
    for (int i = 0; i < w->n; i++)
        for (int j = 0; j < W_CONNFLOOD_CONNS_MAX; j++)
            w_conn_close(w, &w->nodes[i].flood_conns[j]);
}

void wcc_act(w_world *w, w_client *c)
{
    if (c->flood_closed)
        return;
    if (w->now >= c->flood_until || !w->clients_on) {
        c->flood_closed = true;
        wcc_close_all(w);
        w_trace(w, "client %d: connection flood closes", c->idx);
        return;
    }
    for (int node = 0; node < w->n && !w->failed; node++) {
        if (!w->nodes[node].running)
            continue;
        int count = (int)sim_prng_range(&w->rng, 1, WCC_PER_ACTION_MAX);
        for (int i = 0; i < count && !w->failed; i++)
            w_conn_flood_open(w, node, (int)sim_prng_below(&w->rng, (uint64_t)c->connflood_addrs));
    }
}
