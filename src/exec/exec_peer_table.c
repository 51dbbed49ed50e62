/* The peer table (KIP-853): the nodes this one talks to, the configured
 * voters and the voters of the set in force, following that set at run
 * time. Each slot holds a node's endpoint and everything kept per peer
 * (send failures, endpoint requests, error log stamps), reset on reuse.
 * Bounded (limits.h EXEC_PEERS_MAX): a configured voter keeps its slot for
 * the process's life (static configurations behave as before), a voter
 * of the set has one, and so does the leader followed (a removed leader
 * still leads until its removal commits, and the followers must reach it
 * to commit it); any other slot is freed when the table follows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec_peer.h"
#include "kq/assert.h"
#include "kq/log_line.h"

static void slot_take(exec_peers *p, exec_peer_slot *s, int32_t node_id, const char *host,
                      uint16_t port)
{
    uint32_t generation = ++p->slot_generation;
    memset(s, 0, sizeof(*s)); /* a reused slot starts afresh */
    s->in_use = true;
    s->generation = generation;
    s->endpoint.node_id = node_id;
    snprintf(s->endpoint.host, sizeof(s->endpoint.host), "%s", host);
    s->endpoint.port = port;
}

exec_peers *exec_peers_create(const exec_config *cfg)
{
    exec_peers *p = calloc(1, sizeof(*p));
    if (!p)
        return NULL;
    p->next_correlation_id = 1;
    KQ_ASSERT(cfg->voter_count >= 0 && cfg->voter_count <= EXEC_VOTERS_MAX);
    for (int i = 0; i < cfg->voter_count; i++) {
        slot_take(p, &p->slots[i], cfg->voters[i].node_id, cfg->voters[i].host,
                  cfg->voters[i].port);
        p->slots[i].configured = true;
    }
    KQ_ASSERT(cfg->bootstrap_server_count >= 0 &&
              cfg->bootstrap_server_count <= RAFT_BOOTSTRAP_SERVERS_MAX);
    for (int k = 0; k < cfg->bootstrap_server_count; k++) { /* ids -2, -3, ... */
        exec_peer_slot *s = &p->slots[cfg->voter_count + k];
        slot_take(p, s, cfg->bootstrap_servers[k].node_id, cfg->bootstrap_servers[k].host,
                  cfg->bootstrap_servers[k].port);
        s->configured = true;
    }
    return p;
}

void exec_peers_destroy(exec_peers *p)
{
    free(p);
}

bool exec_peers_take_send_failed(exec_peers *p, int32_t *node_id, enum raft_msg_type *type)
{
    for (int i = 0; i < EXEC_PEERS_MAX; i++) {
        exec_peer_slot *s = &p->slots[i];
        if (!s->in_use || s->send_failed == 0)
            continue;
        int t = __builtin_ctz(s->send_failed);
        s->send_failed &= ~(1u << t);
        *node_id = s->endpoint.node_id;
        *type = (enum raft_msg_type)t;
        return true;
    }
    for (int i = 0; i < EXEC_PEERS_UNKNOWN_FAILED_MAX; i++) {
        if (p->unknown_failed[i].types == 0)
            continue;
        int t = __builtin_ctz(p->unknown_failed[i].types);
        p->unknown_failed[i].types &= ~(1u << t);
        *node_id = p->unknown_failed[i].node_id;
        *type = (enum raft_msg_type)t;
        return true;
    }
    return false;
}

int exec_peer_index(const exec_peers *p, int32_t node_id)
{
    for (int i = 0; i < EXEC_PEERS_MAX; i++)
        if (p->slots[i].in_use && p->slots[i].endpoint.node_id == node_id)
            return i;
    return -1;
}

int exec_peers_count(const exec_peers *p)
{
    int n = 0;
    for (int i = 0; i < EXEC_PEERS_MAX; i++)
        n += p->slots[i].in_use;
    return n;
}

int exec_peers_nodes(const exec_peers *p, handler_endpoint *out)
{
    int n = 0;
    for (int i = 0; i < EXEC_PEERS_MAX; i++) {
        const exec_peer_slot *s = &p->slots[i];
        if (!s->in_use || s->endpoint.port == 0 || s->endpoint.node_id < 0)
            continue; /* bootstrap servers are no nodes of the cluster */
        out[n].node_id = s->endpoint.node_id;
        snprintf(out[n].host, sizeof(out[n].host), "%s", s->endpoint.host);
        out[n].port = s->endpoint.port;
        n++;
    }
    return n;
}

/* Tells the transport where node i is now (host NULL: forgotten). */
static void announce(kq_exec *x, const exec_peer_slot *s, bool forget)
{
    if (!x->env.peer_endpoint || s->endpoint.node_id == x->cfg.node_id)
        return;
    x->env.peer_endpoint(x->env.ctx, s->endpoint.node_id, forget ? NULL : s->endpoint.host,
                         forget ? 0 : s->endpoint.port);
}

/* A replaced or dropped channel answers none of its requests: the relays
 * to node_id get their failure answer now (the client retries); a late
 * answer finds its relay slot free and is dropped. */
static void give_up_relays(kq_exec *x, int32_t node_id)
{
    for (int k = 0; k < EXEC_FORWARDS_MAX; k++) {
        exec_relay *e = &x->peers->forwards[k];
        if (!e->in_use || e->f.leader_id != node_id)
            continue;
        e->in_use = false;
        handler_forward_answer(x->handler, e->slot, &e->f, NULL, 0);
    }
}

static bool drop_stale(kq_exec *x, const kq_voter_set *set, int32_t leader_id)
{
    bool changed = false;
    for (int i = 0; i < EXEC_PEERS_MAX; i++) {
        exec_peer_slot *s = &x->peers->slots[i];
        int32_t id = s->endpoint.node_id;
        if (!s->in_use || s->configured || id == leader_id || kq_voter_set_find(set, id) >= 0)
            continue;
        log_line("node %d: peer %d is no longer a voter; forgetting its endpoint",
                 x->cfg.node_id, id);
        announce(x, s, true);
        give_up_relays(x, id);
        memset(s, 0, sizeof(*s));
        changed = true;
    }
    return changed;
}

static int free_slot(const exec_peers *p)
{
    for (int i = 0; i < EXEC_PEERS_MAX; i++)
        if (!p->slots[i].in_use)
            return i;
    return -1;
}

bool exec_peers_learn(kq_exec *x, const handler_endpoint *e)
{
    exec_peers *p = x->peers;
    if (e->node_id < 0 || e->node_id == x->cfg.node_id || exec_peer_index(p, e->node_id) >= 0)
        return false; /* known: the voter set or the configuration says where */
    int i = free_slot(p);
    if (i < 0)
        return false; /* full: the core's request to it times out, it asks again */
    slot_take(p, &p->slots[i], e->node_id, e->host, e->port);
    log_line("node %d: leader %d at %s:%u (from a fetch answer)", x->cfg.node_id, e->node_id,
             e->host, e->port);
    announce(x, &p->slots[i], false);
    return true;
}

void exec_peers_hint_leader(exec_peers *p, int32_t leader_id, int32_t self)
{
    if (leader_id >= 0 && leader_id != self)
        p->last_leader_plus1 = leader_id + 1;
}

bool exec_peers_follow(kq_exec *x, const kq_voter_set *set, int32_t leader_id)
{
    exec_peers *p = x->peers;
    /* Leaderless, the last leader keeps its slot: the core asks it when
     * its set names no one else (KIP-853). */
    if (leader_id >= 0 && leader_id != x->cfg.node_id)
        p->last_leader_plus1 = leader_id + 1;
    else if (leader_id < 0)
        leader_id = p->last_leader_plus1 - 1;
    bool changed = drop_stale(x, set, leader_id);
    KQ_ASSERT(set->count >= 0 && set->count <= KQ_VOTER_SET_MAX);
    for (int v = 0; v < set->count; v++) {
        const kq_voter *voter = &set->voters[v];
        bool has = voter->port != 0 && voter->host[0] != '\0';
        int i = exec_peer_index(p, voter->id);
        if (i < 0) {
            i = free_slot(p);
            KQ_ASSERT(i >= 0); /* limits.h: EXEC_PEERS_MAX */
            slot_take(p, &p->slots[i], voter->id, has ? voter->host : "", has ? voter->port : 0);
        } else {
            exec_peer_slot *s = &p->slots[i];
            if (!has || (s->endpoint.port == voter->port &&
                         strcmp(s->endpoint.host, voter->host) == 0))
                continue; /* a static voter keeps its configured endpoint */
            give_up_relays(x, voter->id);
            bool configured = s->configured;
            uint32_t failed = s->send_failed; /* still owed to the core */
            slot_take(p, s, voter->id, voter->host, voter->port);
            s->configured = configured;
            s->send_failed = failed;
        }
        changed = true;
        if (has) {
            log_line("node %d: voter %d at %s:%u", x->cfg.node_id, voter->id, voter->host,
                     voter->port);
            announce(x, &p->slots[i], false);
        }
    }
    /* The leader followed, named by no voter of our set (ours is behind
     * the leader's, KIP-853): a slot without an endpoint. A transport that
     * routes by node id (the simulator) reaches it; the daemon's needs its
     * endpoint, which nothing here learns yet (Kafka: the NodeEndpoints of
     * the Fetch and Vote answers). */
    if (leader_id >= 0 && leader_id != x->cfg.node_id && exec_peer_index(p, leader_id) < 0) {
        int i = free_slot(p);
        if (i >= 0) {
            slot_take(p, &p->slots[i], leader_id, "", 0);
            changed = true;
        }
    }
    return changed;
}
