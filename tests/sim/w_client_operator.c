/* The operator (W_CLIENT_OPERATOR, KIP-853): an admin tool reaching the
 * controllers on their controller listener (as kafka-metadata-quorum
 * add-controller / remove-controller with --bootstrap-controller do),
 * changing the voter set one change at a time as the scenario asks
 * (w_operator_change): AddRaftVoter v0 or v1 (AckWhenCommitted either
 * way) naming the replica's directory id and its endpoint node<id>.sim on
 * listener CONTROLLER, RemoveRaftVoter v0 (the leader itself too). Real
 * encoded frames through the real handlers.
 *
 * It sends to the node it believes leads; on NOT_LEADER_OR_FOLLOWER, a
 * timeout or a closed connection it tries the next node, on
 * REQUEST_TIMED_OUT (the leader is busy: a change in flight, its epoch or
 * the set in force not committed yet, the new voter not caught up) the
 * same one, after a backoff. A change is settled when acknowledged with
 * AckWhenCommitted, or when a retry after an acknowledgement on append
 * (or a lost answer) is refused DUPLICATE_VOTER (add) or VOTER_NOT_FOUND
 * (remove): the leader answers those only once the set in force is
 * committed (reconfig.c's busy() runs first), so the change is in it.
 * Each settled change goes to the checker (w_check_on_voter_change). */
#include <stdio.h>
#include <string.h>

#include "kq/kafka_errors.h"
#include "kq/wire.h"
#include "kq/wire_add_raft_voter.h"
#include "kq/wire_remove_raft_voter.h"
#include "prng.h"
#include "w_client_internal.h"

#define WOP_BACKOFF_MIN_MS 5
#define WOP_BACKOFF_MAX_MS 200
#define WOP_TIMEOUT_MIN_MS 1000 /* the request's TimeoutMs */
#define WOP_TIMEOUT_MAX_MS 6000

bool w_operator_change(w_world *w, w_client *c, w_op_kind kind, int32_t id, kq_uuid dir)
{
    if (!c || c->kind != W_CLIENT_OPERATOR || c->op.active || c->inflight_n > 0)
        return false;
    int L = w_current_leader(w);
    c->op = (wc_operator){.active = true, .kind = kind, .id = id, .dir = dir,
                          .target = L >= 0 ? L : (int)sim_prng_below(&w->rng, (uint64_t)w->n),
                          .next_at = w->now};
    w_trace(w, "operator: %s voter %d", kind == W_OP_ADD ? "add" : "remove", id);
    return true;
}

bool w_operator_settled(const w_client *c)
{
    return c && !c->op.active && c->inflight_n == 0;
}

static void wop_send_add(w_world *w, w_client *c, wc_inflight *f)
{
    char host[32];
    snprintf(host, sizeof host, "node%d.sim", c->op.id);
    wire_raft_listener l = {.name = kq_slice_cstr("CONTROLLER"), .host = kq_slice_cstr(host),
                            .port = (uint16_t)(9090 + c->op.id)};
    f->version = (int16_t)sim_prng_below(&w->rng, 2);
    f->ack_committed = f->version == 0 || sim_prng_below(&w->rng, 2);
    wire_add_raft_voter_request req = {
        .cluster_id = sim_prng_below(&w->rng, 2) ? kq_slice_cstr(w->cfg.cluster_id)
                                                 : (kq_slice){NULL, -1},
        .timeout_ms = (int32_t)sim_prng_range(&w->rng, WOP_TIMEOUT_MIN_MS, WOP_TIMEOUT_MAX_MS),
        .voter_id = c->op.id, .voter_directory_id = c->op.dir, .listeners = &l,
        .listener_count = 1, .ack_when_committed = f->ack_committed};
    f->corr = wc_begin(c, WIRE_API_ADD_RAFT_VOTER, f->version);
    wire_add_raft_voter_request_encode(&c->frame, f->version, &req);
    wc_send(w, c, f, req.timeout_ms + (int32_t)w->cfg.request_timeout_ms);
}

static void wop_send_remove(w_world *w, w_client *c, wc_inflight *f)
{
    f->version = 0;
    wire_remove_raft_voter_request req = {
        .cluster_id = sim_prng_below(&w->rng, 2) ? kq_slice_cstr(w->cfg.cluster_id)
                                                 : (kq_slice){NULL, -1},
        .voter_id = c->op.id, .voter_directory_id = c->op.dir};
    f->corr = wc_begin(c, WIRE_API_REMOVE_RAFT_VOTER, f->version);
    wire_remove_raft_voter_request_encode(&c->frame, f->version, &req);
    wc_send(w, c, f, (int32_t)w->cfg.request_timeout_ms * 2);
}

void wcop_act(w_world *w, w_client *c)
{
    if (!c->op.active || c->inflight_n > 0 || w->now < c->op.next_at)
        return;
    if (c->op.target < 0 || c->op.target >= w->n)
        c->op.target = 0;
    wc_inflight f = {.op = WC_OP_VOTER_CHANGE, .node = c->op.target};
    c->op.attempts++;
    if (c->op.kind == W_OP_ADD)
        wop_send_add(w, c, &f);
    else
        wop_send_remove(w, c, &f);
}

static void wop_retry(w_world *w, w_client *c, bool next_node)
{
    if (next_node)
        c->op.target = (c->op.target + 1) % w->n;
    c->op.next_at = w->now + sim_prng_range(&w->rng, WOP_BACKOFF_MIN_MS, WOP_BACKOFF_MAX_MS);
}

static void wop_settle(w_world *w, w_client *c, const char *how)
{
    w_trace(w, "operator: %s voter %d settled (%s) after %d attempt(s)",
            c->op.kind == W_OP_ADD ? "add" : "remove", c->op.id, how, c->op.attempts);
    c->op.active = false;
    w_check_on_voter_change(w, c->op.kind == W_OP_ADD, c->op.id, c->op.dir);
}

void wcop_on_response(w_world *w, w_client *c, const wc_inflight *f, const uint8_t *bytes,
                      size_t len)
{
    if (!bytes) {
        wop_retry(w, c, true);
        return;
    }
    bool add = c->op.kind == W_OP_ADD;
    int16_t key = add ? WIRE_API_ADD_RAFT_VOTER : WIRE_API_REMOVE_RAFT_VOTER;
    kq_reader r;
    if (!wc_open_response(w, c, f, key, bytes, len, &r))
        return;
    int16_t e;
    int rc;
    if (add) {
        wire_add_raft_voter_response resp;
        rc = wire_add_raft_voter_response_decode(&r, f->version, &c->arena, &resp);
        e = resp.error_code;
    } else {
        wire_remove_raft_voter_response resp;
        rc = wire_remove_raft_voter_response_decode(&r, f->version, &c->arena, &resp);
        e = resp.error_code;
    }
    if (!wc_body_ok(w, c, f, key, &r, rc))
        return;
    if (e == KAFKA_NONE && (f->ack_committed || !add)) {
        wop_settle(w, c, "acknowledged committed");
    } else if (e == KAFKA_NONE) {
        c->op.confirm = true; /* on append only: a retry must find it in force */
        c->op.next_at = w->now; /* at once */
    } else if ((add && e == KAFKA_DUPLICATE_VOTER) || (!add && e == KAFKA_VOTER_NOT_FOUND)) {
        /* Settled only after one of our attempts may have applied it: an
         * acknowledgement on append or an answer lost on the way. */
        if (c->op.attempts > 1)
            wop_settle(w, c, "found in force");
        else
            w_fail(w, "operator: %s of voter %d refused at once: %s", add ? "add" : "removal",
                   c->op.id, wc_error_name(e));
    } else if (e == KAFKA_NOT_LEADER_OR_FOLLOWER || e == KAFKA_BROKER_NOT_AVAILABLE) {
        wop_retry(w, c, true);
    } else if (e == KAFKA_REQUEST_TIMED_OUT) {
        wop_retry(w, c, false);
    } else {
        w_fail(w, "operator: %s of voter %d v%d answered %s (%d) by node %d",
               add ? "add" : "removal", c->op.id, f->version, wc_error_name(e), e, f->node + 1);
    }
}
