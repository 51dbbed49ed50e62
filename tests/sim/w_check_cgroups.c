/* group-exclusive (issue 24, KIP-848): no partition is owned by two members
 * of one consumer group at once.
 *
 * Server side, after every event: the group coordinator of every running
 * node (a leader's; handler_group_coord) passes
 * group_consumer_check_exclusive, which holds each group's members'
 * assigned and pending-revocation sets disjoint.
 *
 * Client side, from what the members (w_client_consumer.c) were answered: a
 * member taking partition p that another member of its group still holds
 * (took by an answer and has not given up since: no heartbeat reporting it
 * released, no leave, no restart, no fencing answer) fails when the answer
 * came from the coordinator that last answered the holder and
 *   - gave the holder's member epoch (a target assignment gives p to one
 *     member per epoch), or
 *   - was given while the coordinator could not yet have dropped the holder:
 *     before the holder's last answered heartbeat was sent plus the session
 *     timeout, and before the heartbeat that may have started a revocation
 *     (the one whose answer told of it, or the first one sent since the
 *     answer NONE before: a coordinator may have served it without the
 *     answer arriving; issue 24: the member, restored revoking by the next
 *     coordinator, is then told of it with a rebalance timeout counted from
 *     that coordinator's load; or, while no answer came, the first one sent
 *     since the last answer) was sent plus the holder's rebalance timeout.
 * Answers of another coordinator (a new leader) are not compared: without
 * replicated membership (issue 24 item 2) a new coordinator knows no member
 * and may hand p out at once; the server-side check covers it. */
#include <stdlib.h>
#include <string.h>

#include "kq/assert.h"
#include "kq/group_consumer.h"
#include "kq/handler.h"
#include "w_check_internal.h"

#define W_CG_HOLD_MAX 8

typedef struct w_cg_member {
    bool used;
    int slot;
    w_cg_tp holds[W_CG_HOLD_MAX];
    int hold_n;
    uint64_t coord;          /* coordinator of its last answer NONE */
    int32_t epoch;           /* the member epoch that answer gave */
    int64_t last_ok_sent_ms; /* when that heartbeat was sent */
    int64_t revoke_sent_ms;  /* a revocation pending since (-1: none) */
    /* The first heartbeat sent since its last answer NONE (-1: none): the
     * coordinator may have started a revocation serving it. */
    int64_t unanswered_sent_ms;
    /* That heartbeat as the last answer NONE found it (-1: none): a
     * revocation that answer tells of may have begun serving it. */
    int64_t answered_first_sent_ms;
    int32_t rebalance_ms;
} w_cg_member;

struct w_cg_check {
    w_cg_member m[SIM_CLIENTS_MAX];
};

static w_cg_member *member_of(w_world *w, int client, int slot)
{
    KQ_ASSERT(client >= 0 && client < SIM_CLIENTS_MAX);
    if (!w->check->cg) {
        w->check->cg = calloc(1, sizeof(*w->check->cg));
        KQ_ASSERT(w->check->cg);
    }
    w_cg_member *m = &w->check->cg->m[client];
    if (!m->used)
        *m = (w_cg_member){.used = true, .slot = slot, .revoke_sent_ms = -1,
                           .unanswered_sent_ms = -1, .answered_first_sent_ms = -1};
    if (slot >= 0)
        m->slot = slot;
    return m;
}

static bool tp_eq(const w_cg_tp *a, const w_cg_tp *b)
{
    return a->partition == b->partition &&
           memcmp(a->topic_id.bytes, b->topic_id.bytes, sizeof a->topic_id.bytes) == 0;
}

static bool holds(const w_cg_member *m, const w_cg_tp *tp)
{
    for (int i = 0; i < m->hold_n; i++)
        if (tp_eq(&m->holds[i], tp))
            return true;
    return false;
}

void w_check_cg_on_answer(w_world *w, int client, int slot, int64_t sent_ms, int32_t rebalance_ms,
                          const w_cg_from *from)
{
    w_cg_member *m = member_of(w, client, slot);
    m->coord = from->coord;
    m->epoch = from->epoch;
    m->last_ok_sent_ms = sent_ms;
    m->rebalance_ms = rebalance_ms;
    m->answered_first_sent_ms = m->unanswered_sent_ms;
    m->unanswered_sent_ms = -1; /* one heartbeat in flight at a time: that one */
}

void w_check_cg_on_sent(w_world *w, int client, int64_t sent_ms)
{
    w_cg_member *m = member_of(w, client, -1);
    if (m->unanswered_sent_ms < 0)
        m->unanswered_sent_ms = sent_ms;
}

void w_check_cg_on_revoke(w_world *w, int client, int64_t sent_ms)
{
    w_cg_member *m = member_of(w, client, -1);
    /* Issue 24: an earlier heartbeat since the previous answer NONE, served
     * by a coordinator whose answer never came, may have started it: its
     * record commits, a new coordinator restores the member revoking and
     * runs a fresh rebalance timeout from its load (Kafka's onLoaded), and
     * answers this heartbeat without restarting it. */
    if (m->answered_first_sent_ms >= 0 && m->answered_first_sent_ms < sent_ms)
        sent_ms = m->answered_first_sent_ms;
    if (m->revoke_sent_ms < 0 || sent_ms < m->revoke_sent_ms)
        m->revoke_sent_ms = sent_ms;
}

/* Whether the coordinator could have dropped holder h by `at`: its session
 * timed out, or a revocation did (one it was told of, or one a heartbeat
 * whose answer it has not had may have started). */
static bool may_be_gone(const w_world *w, const w_cg_member *h, int64_t at)
{
    int64_t until = h->last_ok_sent_ms + w->cfg.group.consumer_session_timeout_ms;
    if (h->revoke_sent_ms >= 0 && h->revoke_sent_ms + h->rebalance_ms < until)
        until = h->revoke_sent_ms + h->rebalance_ms;
    if (h->unanswered_sent_ms >= 0 && h->unanswered_sent_ms + h->rebalance_ms < until)
        until = h->unanswered_sent_ms + h->rebalance_ms;
    return at >= until;
}

/* Member `client` takes tp by the answer *from: against every holder. */
static void check_take(w_world *w, int client, const w_cg_member *m, const w_cg_tp *tp,
                       const w_cg_from *from)
{
    const struct w_cg_check *cg = w->check->cg;
    for (int i = 0; i < SIM_CLIENTS_MAX && !w->failed; i++) {
        const w_cg_member *h = &cg->m[i];
        if (i == client || !h->used || h->slot != m->slot || !holds(h, tp) ||
            h->coord != from->coord)
            continue;
        if (h->epoch == from->epoch)
            w_inv_fail(w, W_INV_GROUP_EXCLUSIVE,
                       "client %d takes partition %d, which client %d holds, both at member "
                       "epoch %d of one coordinator", client, tp->partition, i, from->epoch);
        else if (!may_be_gone(w, h, from->answered_ms))
            w_inv_fail(w, W_INV_GROUP_EXCLUSIVE,
                       "client %d takes partition %d (epoch %d, answered at %lld ms), which "
                       "client %d holds (epoch %d; heartbeat sent at %lld ms answered; "
                       "revocation since %lld ms, rebalance timeout %d ms; session timeout %d ms)",
                       client, tp->partition, from->epoch, (long long)from->answered_ms, i,
                       h->epoch, (long long)h->last_ok_sent_ms, (long long)h->revoke_sent_ms,
                       h->rebalance_ms, w->cfg.group.consumer_session_timeout_ms);
    }
}

void w_check_cg_on_holds(w_world *w, int client, int slot, const w_cg_tp *tps, int n,
                         const w_cg_from *from)
{
    w_cg_member *m = member_of(w, client, slot);
    KQ_ASSERT(n >= 0 && n <= W_CG_HOLD_MAX);
    for (int i = 0; i < n && !w->failed; i++)
        if (!holds(m, &tps[i]) && from && w_check_on(w, W_INV_GROUP_EXCLUSIVE))
            check_take(w, client, m, &tps[i], from);
    if (n)
        memcpy(m->holds, tps, (size_t)n * sizeof(*tps));
    m->hold_n = n;
    m->revoke_sent_ms = -1;
}

void w_check_cg_after_event(w_world *w)
{
    for (int i = 0; i < w->n && !w->failed; i++) {
        const w_node *nd = &w->nodes[i];
        if (!nd->running || !nd->x)
            continue;
        int32_t epoch;
        const group_coord *coord = handler_group_coord(exec_handler(nd->x), &epoch);
        if (!coord || !w_check_on(w, W_INV_GROUP_EXCLUSIVE))
            continue;
        char why[256];
        if (!group_consumer_check_exclusive(coord, why, sizeof why))
            w_inv_fail(w, W_INV_GROUP_EXCLUSIVE, "node %d's coordinator (epoch %d): %s", nd->id,
                       epoch, why);
    }
}
