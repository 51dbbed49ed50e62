/* Frames per loop turn, and what the listeners of a node share (net_shared).
 *
 * A connection dispatches at most NET_FRAMES_PER_TURN_MAX frames per loop
 * turn; the client connections of every listener sharing a net_shared at
 * most KQ_NET_CLIENT_FRAMES_PER_TURN_MAX together (issue 19: the loop's
 * time reserved for the quorum). Past either bound a connection pauses on
 * its backlog and waits on its set's deferred list, which the next turn
 * resumes oldest first, within the total. Without the first bound one turn
 * handled every frame a client pipelined; without the second, thousands of
 * clients' eight frames each before a voter's Fetch on the controller
 * listener. A quorum listener's connections are a set of their own with no
 * total (only the per-connection bound), and so are a client-class
 * listener's connections promoted to the quorum's class (the peers of a
 * shared listener, net_slot_promote_quorum).
 *
 * A turn runs from one check phase of the set's owner to the next: each
 * server's check handle runs once per loop iteration, so one of them (the
 * first to run, another once it stops) advances the set's turn. */
#include <stdlib.h>

#include "kq/assert.h"
#include "server_internal.h"

net_shared *net_shared_create(uint64_t request_bytes_max)
{
    net_shared *sh = calloc(1, sizeof(*sh));
    if (!sh)
        return NULL;
    sh->request_bytes_max = request_bytes_max ? request_bytes_max : KQ_QUEUED_REQUEST_BYTES_DEFAULT;
    sh->client_turns.frames_max = KQ_NET_CLIENT_FRAMES_PER_TURN_MAX;
    return sh;
}

void net_shared_destroy(net_shared *shared)
{
    if (!shared)
        return;
    KQ_ASSERT(shared->memory_holders == 0 && !shared->mem_head && !shared->client_turns.owner &&
              !shared->client_turns.defer_head);
    free(shared);
}

void net_shared_get_stats(const net_shared *shared, net_shared_stats *out)
{
    *out = (net_shared_stats){
        .request_bytes_max = shared->request_bytes_max,
        .request_bytes = shared->request_bytes,
        .request_bytes_peak = shared->request_bytes_peak,
        .request_waits = shared->request_waits,
        .conns_waiting_memory = shared->conns_waiting,
        .client_turns_full = shared->client_turns.full,
    };
}

bool server_turns_init(net_server *s)
{
    s->shared = s->config.shared;
    if (!s->shared) {
        s->own_shared = net_shared_create(s->config.request_bytes_max);
        if (!s->own_shared)
            return false;
        s->shared = s->own_shared;
    }
    s->config.request_bytes_max = s->shared->request_bytes_max;
    /* frames_max 0: never held by the clients' total. On a client-class
     * listener, the set of its promoted connections. */
    s->quorum_turns.owner = s;
    if (s->config.budget_class == KQ_BUDGET_QUORUM)
        s->turns = &s->quorum_turns;
    else
        s->turns = &s->shared->client_turns;
    return true;
}

/* Keeps the poll phase of the next turn from blocking. */
static void turns_wake(net_turns *t, net_server *fallback)
{
    net_server *s = t->owner ? t->owner : fallback;
    uv_idle_start(&s->flush_idle, server_on_idle);
}

void server_turns_stop(net_server *s)
{
    net_turns *t = s->turns;
    if (t->owner != s)
        return;
    t->owner = NULL;
    /* Its connections left the list as they closed: another's run on. */
    if (t->defer_head) {
        t->owner = t->defer_head->server;
        turns_wake(t, t->owner);
    }
}

static bool turns_full(const net_turns *t)
{
    return t->frames_max > 0 && t->frames >= t->frames_max;
}

/* c's count of this turn, reset when the turn moved on. */
static void conn_turn_sync(net_conn *c)
{
    net_turns *t = c->turns;
    if (c->turn_seen != t->turn) {
        c->turn_seen = t->turn;
        c->turn_frames = 0;
    }
}

void conn_turn_count(net_conn *c)
{
    conn_turn_sync(c);
    c->turn_frames++;
    c->turns->frames++;
}

static void conn_defer(net_conn *c)
{
    net_turns *t = c->turns;
    if (c->deferred || c->closing)
        return;
    c->deferred = true;
    c->defer_next = NULL;
    c->defer_prev = t->defer_tail;
    if (t->defer_tail)
        t->defer_tail->defer_next = c;
    else
        t->defer_head = c;
    t->defer_tail = c;
    turns_wake(t, c->server);
}

bool conn_turn_defer(net_conn *c)
{
    conn_turn_sync(c);
    net_turns *t = c->turns;
    bool own = c->turn_frames >= NET_FRAMES_PER_TURN_MAX;
    if (!own && !turns_full(t))
        return false;
    if (!own && !c->deferred)
        t->full++;
    conn_defer(c);
    return true;
}

void conn_undefer(net_conn *c)
{
    net_turns *t = c->turns;
    if (!c->deferred)
        return;
    if (c->defer_prev)
        c->defer_prev->defer_next = c->defer_next;
    else
        t->defer_head = c->defer_next;
    if (c->defer_next)
        c->defer_next->defer_prev = c->defer_prev;
    else
        t->defer_tail = c->defer_prev;
    c->defer_prev = c->defer_next = NULL;
    c->deferred = false;
}

void conn_turns_move_to_quorum(net_conn *c)
{
    net_turns *to = &c->server->quorum_turns;
    if (c->turns == to)
        return;
    bool deferred = c->deferred;
    conn_undefer(c);
    /* This turn's frames stay counted in the old set's total (already
     * dispatched); its own count carries over into the new set's turn. */
    conn_turn_sync(c);
    c->turns = to;
    c->turn_seen = to->turn;
    if (deferred)
        conn_defer(c);
}

static void turns_resume(net_server *s, net_turns *t)
{
    if (!t->owner)
        t->owner = s;
    if (t->owner != s)
        return;
    t->turn++;
    t->frames = 0;
    /* Those deferred again now (at the tail, in this turn) wait for the
     * next; so do the rest once the total is reached. */
    while (t->defer_head && t->defer_head->turn_seen != t->turn && !turns_full(t)) {
        net_conn *c = t->defer_head;
        conn_undefer(c);
        c->outstanding++; /* keep c alive across the resume */
        conn_resume_backlog(c);
        c->outstanding--;
        conn_maybe_free(c);
    }
    if (t->defer_head)
        turns_wake(t, s);
}

void server_resume_deferred(net_server *s)
{
    turns_resume(s, s->turns);
    if (s->turns != &s->quorum_turns)
        turns_resume(s, &s->quorum_turns); /* its promoted connections */
}
