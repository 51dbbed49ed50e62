/* Invariant voter-fetch-timely (issue 19 item 4, the quorum first): while
 * client floods run, every Fetch a voter sends to the leader on a healthy
 * link is answered within the fetch timeout (exec_config fetch_timeout_ms),
 * and with the records it was due: an answer with no records, no error, no
 * divergence and no snapshot while the leader's servable log (its flushed
 * end) reaches past the fetch offset leaves the voter where it was, so a
 * voter answered only so for longer than the fetch timeout fails too.
 *
 * Healthy: both ends running the incarnation they had when the fetch left,
 * neither paused, crashed, failed or shutting down, no cut either way
 * between them, and neither the request nor its answer lost, reset or
 * delayed past every timeout (w_req.net_fault, set by w_net.c). Observed
 * only from the peer messages the simulated network carries: the request
 * leaving (w_check_on_peer_request), the leader's answer (..._peer_answer),
 * its arrival or failure (..._peer_done, ..._peer_timeout).
 *
 * Also (same check): no leader resigns through check-quorum (LEADER to
 * RESIGNED in its epoch, not shutting down) while a majority of the voters,
 * itself included, have followed it on healthy links for longer than
 * W_QUORUM_CALM_MS, in a world whose network drew no loss, delay tail or
 * reset for as long. */
#include <stdlib.h>

#include "kq/assert.h"
#include "kq/wire.h"
#include "kq/wire_fetch.h"
#include "w_check_internal.h"

typedef struct w_voter_fetch {
    uint64_t req_id;  /* the voter's tracked fetch, 0 none */
    int leader;       /* the node it went to */
    uint64_t voter_inc, leader_inc;
    int64_t sent_ms;
    int64_t offset;
    bool healthy;     /* so far */
    /* The first fetch of an unbroken run of healthy answers without the
     * records due (-1: the last answer served it). */
    int64_t unserved_since_ms;
    int unserved_leader;
} w_voter_fetch;

/* Long enough for a lost fetch to be retried and check-quorum to judge. */
#define W_QUORUM_CALM_MS(w) (2 * (int64_t)(w)->cfg.fetch_timeout_ms + (w)->cfg.request_timeout_ms)

struct w_quorum_check {
    w_voter_fetch v[SIM_NODES_MAX];
    /* check-quorum: what each node was at the last event, since when each
     * voter has followed node follow_leader (healthy) and each node led
     * (not paused), and since when the network has been calm. */
    enum raft_role role[SIM_NODES_MAX];
    int32_t epoch[SIM_NODES_MAX];
    uint64_t inc[SIM_NODES_MAX]; /* the incarnation role[] was seen in */
    int follow_leader[SIM_NODES_MAX];
    int64_t follow_since[SIM_NODES_MAX];
    int64_t lead_since[SIM_NODES_MAX];
    int64_t calm_since;
};

static struct w_quorum_check *qstate(w_world *w)
{
    struct w_check *c = w->check;
    if (!c->quorum) {
        c->quorum = calloc(1, sizeof(*c->quorum));
        KQ_ASSERT(c->quorum);
        for (int i = 0; i < SIM_NODES_MAX; i++) {
            c->quorum->v[i].unserved_since_ms = -1;
            c->quorum->follow_since[i] = -1;
            c->quorum->lead_since[i] = -1;
            c->quorum->role[i] = RAFT_ROLE_UNATTACHED;
        }
    }
    return c->quorum;
}

void w_check_quorum_free(struct w_check *c)
{
    free(c->quorum);
    c->quorum = NULL;
}

static bool node_healthy(const w_world *w, int idx, uint64_t inc)
{
    const w_node *n = &w->nodes[idx];
    return n->running && !n->crash_pending && !n->paused && !n->shutting_down && n->inc == inc;
}

static bool pair_healthy(const w_world *w, const w_voter_fetch *f, int voter)
{
    return node_healthy(w, voter, f->voter_inc) && node_healthy(w, f->leader, f->leader_inc) &&
           !w->links[voter][f->leader].cut && !w->links[f->leader][voter].cut;
}

void w_check_quorum_on_fetch(w_world *w, int from, const w_req *req, int64_t offset)
{
    if (!w_check_on(w, W_INV_VOTER_FETCH_TIMELY) || !w_in_set(w, w_voters_now(w), from))
        return; /* a voter of the set in force (KIP-853) */
    w_voter_fetch *f = &qstate(w)->v[from];
    raft_status st;
    bool to_leader = w_node_status(w, req->to, &st) && st.role == RAFT_ROLE_LEADER;
    if (!to_leader || (f->unserved_since_ms >= 0 && f->unserved_leader != req->to))
        f->unserved_since_ms = -1;
    if (!to_leader) {
        f->req_id = 0;
        return;
    }
    *f = (w_voter_fetch){.req_id = req->id, .leader = req->to, .voter_inc = w->nodes[from].inc,
                         .leader_inc = w->nodes[req->to].inc, .sent_ms = w->now,
                         .offset = offset, .healthy = true,
                         .unserved_since_ms = f->unserved_since_ms,
                         .unserved_leader = f->unserved_leader};
    f->healthy = pair_healthy(w, f, from);
}

/* The tracked fetch of the voter that sent req, or NULL. */
static w_voter_fetch *tracked(w_world *w, const w_req *req)
{
    if (!w->check->quorum || req->from_client || req->from < 0 || req->from >= w->n)
        return NULL;
    w_voter_fetch *f = &w->check->quorum->v[req->from];
    return f->req_id == req->id ? f : NULL;
}

/* Whether the answer leaves the voter where it was although the leader
 * could serve it records. */
static bool unserved(w_world *w, const w_voter_fetch *f, int16_t version, const uint8_t *frame,
                     size_t len)
{
    raft_status st;
    if (!w_node_status(w, f->leader, &st) || st.role != RAFT_ROLE_LEADER ||
        st.flushed_offset <= f->offset || f->offset < st.log_start_offset)
        return false;
    kq_arena arena;
    kq_arena_init(&arena, 1 << 20);
    bool empty = false;
    const wire_fetch_partition_data *pd = w_fetch_answer_partition(version, frame, len, &arena);
    if (pd) {
        empty = pd->error_code == 0 && pd->records.len <= 0 &&
                !(pd->has_diverging_epoch && pd->diverging_epoch.epoch >= 0) &&
                !(pd->has_snapshot_id && pd->snapshot_id.end_offset >= 0);
    }
    kq_arena_free(&arena);
    return empty;
}

void w_check_quorum_on_answer(w_world *w, const w_req *req, const uint8_t *frame, size_t len)
{
    w_voter_fetch *f = tracked(w, req);
    if (!f || !w_check_on(w, W_INV_VOTER_FETCH_TIMELY))
        return;
    int voter = req->from;
    f->healthy = f->healthy && !req->net_fault && pair_healthy(w, f, voter);
    if (!f->healthy) {
        f->unserved_since_ms = -1;
        return;
    }
    if (!unserved(w, f, req->api_version, frame, len)) {
        f->unserved_since_ms = -1;
        return;
    }
    if (f->unserved_since_ms < 0) {
        f->unserved_since_ms = f->sent_ms;
        f->unserved_leader = f->leader;
    } else if (w->now - f->unserved_since_ms > (int64_t)w->cfg.fetch_timeout_ms) {
        w_inv_fail(w, W_INV_VOTER_FETCH_TIMELY,
                   "voter %d's fetches from offset %lld on a healthy link have been answered "
                   "without records by leader %d (flushed past it) since %lld ms (%lld ms, "
                   "fetch timeout %u ms)",
                   w->nodes[voter].id, (long long)f->offset, w->nodes[f->leader].id,
                   (long long)f->unserved_since_ms, (long long)(w->now - f->unserved_since_ms),
                   w->cfg.fetch_timeout_ms);
    }
}

void w_check_on_peer_timeout(w_world *w, const w_req *req)
{
    w_voter_fetch *f = tracked(w, req);
    if (!f || !w_check_on(w, W_INV_VOTER_FETCH_TIMELY))
        return;
    if (f->healthy && !req->net_fault && pair_healthy(w, f, req->from))
        w_inv_fail(w, W_INV_VOTER_FETCH_TIMELY,
                   "voter %d's fetch sent at %lld ms to leader %d on a healthy link timed out "
                   "unanswered (fetch timeout %u ms)",
                   w->nodes[req->from].id, (long long)f->sent_ms, w->nodes[f->leader].id,
                   w->cfg.fetch_timeout_ms);
}

void w_check_on_peer_done(w_world *w, const w_req *req, bool answered)
{
    (void)answered;
    w_voter_fetch *f = tracked(w, req);
    if (f)
        f->req_id = 0;
}

static bool links_up(const w_world *w, int a, int b)
{
    return !w->links[a][b].cut && !w->links[b][a].cut;
}

/* A leader that resigned through check-quorum: did a majority follow it? */
static void check_resignation(w_world *w, struct w_quorum_check *q, int l)
{
    int64_t calm = W_QUORUM_CALM_MS(w);
    if (w->nodes[l].shutting_down || q->lead_since[l] < 0 || w->now - q->lead_since[l] <= calm ||
        w->now - q->calm_since <= calm)
        return;
    /* Its set in force (KIP-853); a leader that removed itself resigns
     * once that is committed, as it must. */
    const kq_voter_set *set = w_voters_of(w, l);
    if (set && !w_in_set(w, set, l))
        return;
    int following = 1;
    for (int v = 0; v < w->n; v++)
        if (v != l && w_in_set(w, set, v) && q->follow_leader[v] == l &&
            q->follow_since[v] >= 0 && w->now - q->follow_since[v] > calm)
            following++;
    if (following >= w_set_majority(w, set))
        w_inv_fail(w, W_INV_VOTER_FETCH_TIMELY,
                   "leader %d resigned in epoch %d through check-quorum while %d of %d voters "
                   "followed it on healthy links for over %lld ms",
                   w->nodes[l].id, q->epoch[l], following, set ? set->count : w->p.voters,
                   (long long)calm);
}

/* Roles, leaders and followers after every event (check-quorum). */
static void track_leaders(w_world *w, struct w_quorum_check *q)
{
    if (w->loss_ppm || w->tail_ppm || w->reset_ppm)
        q->calm_since = w->now;
    raft_status st[SIM_NODES_MAX];
    bool alive[SIM_NODES_MAX];
    for (int i = 0; i < w->n; i++) {
        alive[i] = w_node_status(w, i, &st[i]) && !w->nodes[i].paused;
        if (!alive[i])
            st[i].role = RAFT_ROLE_UNATTACHED;
        /* a leader restarted between two events resumes resigned: no
         * check-quorum resignation (the incarnation changed) */
        if (alive[i] && q->role[i] == RAFT_ROLE_LEADER && st[i].role == RAFT_ROLE_RESIGNED &&
            st[i].epoch == q->epoch[i] && q->inc[i] == w->nodes[i].inc)
            check_resignation(w, q, i);
        bool leads = alive[i] && st[i].role == RAFT_ROLE_LEADER;
        if (!leads || q->role[i] != RAFT_ROLE_LEADER || q->epoch[i] != st[i].epoch)
            q->lead_since[i] = leads ? w->now : -1;
        q->role[i] = st[i].role;
        q->epoch[i] = alive[i] ? st[i].epoch : -1;
        q->inc[i] = w->nodes[i].inc;
    }
    for (int v = 0; v < w->n; v++) {
        int l = alive[v] && st[v].role == RAFT_ROLE_FOLLOWER ? w_node_index(w, st[v].leader_id) : -1;
        bool follows = l >= 0 && l != v && alive[l] && st[l].role == RAFT_ROLE_LEADER &&
                       st[l].epoch == st[v].epoch && links_up(w, v, l) &&
                       !w->nodes[v].shutting_down && !w->nodes[l].shutting_down;
        if (!follows)
            q->follow_since[v] = -1;
        else if (q->follow_since[v] < 0 || q->follow_leader[v] != l)
            q->follow_since[v] = w->now;
        q->follow_leader[v] = follows ? l : -1;
    }
}

/* After every event: a fault on the link breaks the run; a tracked fetch
 * on a still healthy link past the fetch timeout fails. */
void w_check_quorum_after_event(w_world *w)
{
    if (!w_check_on(w, W_INV_VOTER_FETCH_TIMELY))
        return;
    struct w_quorum_check *q = qstate(w);
    track_leaders(w, q);
    for (int i = 0; i < w->n && !w->failed; i++) {
        w_voter_fetch *f = &q->v[i];
        if (f->req_id == 0 && f->unserved_since_ms < 0)
            continue;
        if (!pair_healthy(w, f, i)) {
            f->healthy = false;
            f->unserved_since_ms = -1;
            continue;
        }
        if (f->req_id != 0 && f->healthy &&
            w->now - f->sent_ms > (int64_t)w->cfg.fetch_timeout_ms)
            w_inv_fail(w, W_INV_VOTER_FETCH_TIMELY,
                       "voter %d's fetch sent at %lld ms to leader %d on a healthy link is "
                       "unanswered after %lld ms (fetch timeout %u ms)",
                       w->nodes[i].id, (long long)f->sent_ms, w->nodes[f->leader].id,
                       (long long)(w->now - f->sent_ms), w->cfg.fetch_timeout_ms);
    }
}
