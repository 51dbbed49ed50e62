/* Promotion of a shared listener's connection to the quorum's class (issue
 * 19). Without controller.listener.names (the seed's single-listener
 * files) peers and clients arrive on the same listener, so the quorum's
 * reservations by listener (the response budget's share, the turns not
 * held by the clients' total, the controller pool) do not reach the peers.
 * Once the layers above accepted a quorum request on a connection (the
 * handlers' quorum_request_allowed and cluster id check passed), that
 * connection gets them: it proved no more than the request itself did, so
 * this grants nothing a client could not already claim (docs/security.md). */
#include "kq/assert.h"
#include "server_internal.h"

bool net_slot_promote_quorum(net_slot *slot)
{
    net_conn *c = slot->conn;
    if (c->budget_class == KQ_BUDGET_QUORUM || c->closing)
        return false;
    KQ_ASSERT(!c->promoted);
    net_server *s = c->server;
    if (s->shared->promoted_open >= KQ_PROMOTED_CONNECTIONS_MAX) {
        s->stats.promote_refused++;
        return false;
    }
    s->shared->promoted_open++;
    if (s->config.budget)
        kq_budget_conn_move(s->config.budget, KQ_BUDGET_CLIENT, KQ_BUDGET_QUORUM,
                            c->write_queued_bytes);
    c->budget_class = KQ_BUDGET_QUORUM;
    conn_turns_move_to_quorum(c);
    if (c->admitted)
        kq_conn_pool_keep_member(s->config.pool, &c->member);
    c->promoted = true;
    s->stats.promoted_quorum++;
    /* Paused on the clients' share: the quorum's may let it read now. */
    if (c->paused_budget)
        conn_queue_flush(c);
    return true;
}
