/* Group members (W_CLIENT_GROUP_MEMBER): the offset committer of
 * w_client_group.c as a real member of its group g<idx>. It joins
 * (JoinGroup v0-9, the MEMBER_ID_REQUIRED round from v4), syncs (SyncGroup
 * v0-5; it is the only member, so the leader, and assigns itself), sends a
 * Heartbeat every second and commits with its generation and member id
 * while stable. A rebalance, an unknown member id, a stale generation or
 * another coordinator sends it back to JoinGroup. All randomness comes from
 * w->rng. */
#include <stdio.h>
#include <string.h>

#include "kq/kafka_errors.h"
#include "kq/wire.h"
#include "kq/wire_heartbeat.h"
#include "kq/wire_join_group.h"
#include "kq/wire_sync_group.h"
#include "prng.h"
#include "w_client_internal.h"

#define WM_SESSION_TIMEOUT_MS 6000   /* Kafka's group.min.session.timeout.ms */
#define WM_REBALANCE_TIMEOUT_MS 6000
/* A JoinGroup waits for a new group's initial delay (3 s) or the
 * rebalance; more, as Kafka's consumer waits rebalance timeout + 5 s. */
#define WM_JOIN_WAIT_MS (WM_REBALANCE_TIMEOUT_MS + 5000)
#define WM_HEARTBEAT_MS 1000
#define WM_PROTOCOL_TYPE "consumer"
#define WM_PROTOCOL "range"

static bool wm_coordinator_error(int16_t e)
{
    return e == KAFKA_NOT_COORDINATOR || e == KAFKA_COORDINATOR_LOAD_IN_PROGRESS ||
           e == KAFKA_COORDINATOR_NOT_AVAILABLE || e == KAFKA_REQUEST_TIMED_OUT;
}

static int16_t wm_version(w_world *w, int16_t key, int16_t lo, int16_t hi)
{
    int16_t v = (int16_t)sim_prng_range(&w->rng, (uint64_t)lo, (uint64_t)hi);
    return wire_api_accepted(key, v) ? v : lo;
}

static int wm_node(w_world *w, w_client *c)
{
    if (c->group.coord_node < 0 || c->group.coord_node >= w->n)
        c->group.coord_node = (int)sim_prng_below(&w->rng, (uint64_t)w->n);
    return c->group.coord_node;
}

void wcm_reset(w_client *c, bool keep_id)
{
    c->group.stable = false;
    c->group.generation = -1;
    if (!keep_id) {
        c->group.member_id[0] = 0;
        c->group.member_inc = 0;
    }
}

static bool wm_set_member_id(w_world *w, w_client *c, kq_slice id)
{
    if (id.len < 0 || (size_t)id.len >= sizeof(c->group.member_id))
        return w_fail(w, "client %d: member id of %d bytes", c->idx, (int)id.len);
    if (c->group.member_inc == 0 || !kq_slice_eq_cstr(id, c->group.member_id)) {
        c->group.member_inc = ++c->group.next_inc;
        c->group.inc_since_ms = w->now;
    }
    memcpy(c->group.member_id, id.ptr, (size_t)id.len);
    c->group.member_id[id.len] = 0;
    return true;
}

/* group-membership-kept (issue 24): what the member's request was answered. */
static void wm_check(w_world *w, w_client *c, const wc_inflight *f, uint32_t inc,
                     int32_t generation, int16_t e)
{
    w_check_on_member_answer(w, c->idx, f->sent_ms, inc, generation, e, WM_SESSION_TIMEOUT_MS,
                             WM_REBALANCE_TIMEOUT_MS);
}

/* After a failure: coordinator errors, a timeout or a closed connection
 * move to the next node, the member keeping its id and generation (issue
 * 24: the next coordinator loads the group from the log; a Java consumer
 * does the same); the member errors rejoin. */
static void wm_failed(w_world *w, w_client *c, int16_t e, bool answered)
{
    if (!answered || wm_coordinator_error(e)) {
        c->group.coord_node = (wm_node(w, c) + 1) % w->n;
        return;
    }
    wcm_reset(c, e != KAFKA_UNKNOWN_MEMBER_ID);
}

static bool wm_member_error(int16_t e)
{
    return e == KAFKA_UNKNOWN_MEMBER_ID || e == KAFKA_ILLEGAL_GENERATION ||
           e == KAFKA_REBALANCE_IN_PROGRESS || e == KAFKA_MEMBER_ID_REQUIRED;
}

bool wcm_commit_refused(w_world *w, w_client *c, const wc_inflight *f, int16_t e)
{
    if (c->kind != W_CLIENT_GROUP_MEMBER || !wm_member_error(e))
        return false;
    wm_check(w, c, f, f->member_inc, f->generation, e);
    wcm_reset(c, e != KAFKA_UNKNOWN_MEMBER_ID);
    return true;
}

/* ---- JoinGroup */

static void wm_send_join(w_world *w, w_client *c)
{
    int16_t v = wm_version(w, WIRE_API_JOIN_GROUP, 0, 9);
    wire_join_group_protocol p = {.name = kq_slice_cstr(WM_PROTOCOL),
                                  .metadata = wca_subscription(c)};
    wire_join_group_request req = {.group_id = kq_slice_cstr(c->group.group_id),
                                   .session_timeout_ms = WM_SESSION_TIMEOUT_MS,
                                   .rebalance_timeout_ms = WM_REBALANCE_TIMEOUT_MS,
                                   .member_id = kq_slice_cstr(c->group.member_id),
                                   .group_instance_id = {NULL, -1},
                                   .protocol_type = kq_slice_cstr(WM_PROTOCOL_TYPE),
                                   .protocols = &p, .protocol_count = 1,
                                   .reason = {NULL, -1}};
    wc_inflight f = {.op = WC_OP_JOIN_GROUP, .version = v,
                     .member_inc = c->group.member_id[0] ? c->group.member_inc : 0,
                     .generation = c->group.generation};
    f.corr = wc_begin(c, WIRE_API_JOIN_GROUP, v);
    wire_join_group_request_encode(&c->frame, v, &req);
    f.node = wm_node(w, c);
    wc_send(w, c, &f, WM_JOIN_WAIT_MS);
}

static void wm_send_sync(w_world *w, w_client *c, int node, kq_slice protocol)
{
    int16_t v = wm_version(w, WIRE_API_SYNC_GROUP, 0, 5);
    static const uint8_t assignment[] = {0, 1, 0, 0, 0, 0, 0, 0, 0, 0};
    wire_sync_group_assignment a = {.member_id = kq_slice_cstr(c->group.member_id),
                                    .assignment = {assignment, (int32_t)sizeof(assignment)}};
    wire_sync_group_request req = {.group_id = kq_slice_cstr(c->group.group_id),
                                   .generation_id = c->group.generation,
                                   .member_id = kq_slice_cstr(c->group.member_id),
                                   .group_instance_id = {NULL, -1},
                                   .protocol_type = kq_slice_cstr(WM_PROTOCOL_TYPE),
                                   .protocol_name = protocol, .assignments = &a,
                                   .assignment_count = 1};
    wc_inflight f = {.op = WC_OP_SYNC_GROUP, .version = v, .member_inc = c->group.member_inc,
                     .generation = c->group.generation};
    f.corr = wc_begin(c, WIRE_API_SYNC_GROUP, v);
    wire_sync_group_request_encode(&c->frame, v, &req);
    f.node = node;
    wc_send(w, c, &f, WM_JOIN_WAIT_MS);
}

static void wm_on_join(w_world *w, w_client *c, const wc_inflight *f, const uint8_t *bytes,
                       size_t len)
{
    kq_reader r;
    if (!bytes) {
        w_trace(w, "client %d: JoinGroup v%d to node %d failed", c->idx, f->version, f->node);
        wm_failed(w, c, KAFKA_NONE, false);
        return;
    }
    if (!wc_open_response(w, c, f, WIRE_API_JOIN_GROUP, bytes, len, &r))
        return;
    wire_join_group_response resp;
    int rc = wire_join_group_response_decode(&r, f->version, &c->arena, &resp);
    if (!wc_body_ok(w, c, f, WIRE_API_JOIN_GROUP, &r, rc))
        return;
    int16_t e = resp.error_code;
    w_trace(w, "client %d: JoinGroup v%d from node %d: %s", c->idx, f->version, f->node,
            wc_error_name(e));
    if (e == KAFKA_MEMBER_ID_REQUIRED) {
        wm_set_member_id(w, c, resp.member_id); /* joins again with it */
        return;
    }
    if (e == KAFKA_NONE) {
        if (!wm_set_member_id(w, c, resp.member_id))
            return;
        c->group.generation = resp.generation_id;
        /* A join's answer may wait for the group's record (issue 24) while
         * deadlines set before it was sent (the pending sync after an
         * earlier join of this member id) run: counted from when the member
         * id was learned. */
        wc_inflight j = *f;
        if (c->group.inc_since_ms < j.sent_ms)
            j.sent_ms = c->group.inc_since_ms;
        wm_check(w, c, &j, c->group.member_inc, resp.generation_id, e);
        w_trace(w, "client %d: joined %s as %s, generation %d", c->idx, c->group.group_id,
                c->group.member_id, resp.generation_id);
        wm_send_sync(w, c, f->node, resp.protocol_name);
        return;
    }
    if (wm_coordinator_error(e) || wm_member_error(e)) {
        wm_check(w, c, f, f->member_inc, f->generation, e);
        wm_failed(w, c, e, true);
        return;
    }
    w_fail(w, "client %d: JoinGroup v%d from node %d: %s (%d)", c->idx, f->version, f->node,
           wc_error_name(e), e);
}

/* ---- SyncGroup and Heartbeat: both answer only an error code here */

static bool wm_decode_sync(w_world *w, w_client *c, const wc_inflight *f, const uint8_t *bytes,
                           size_t len, int16_t *e)
{
    kq_reader r;
    if (!wc_open_response(w, c, f, WIRE_API_SYNC_GROUP, bytes, len, &r))
        return false;
    wire_sync_group_response resp;
    int rc = wire_sync_group_response_decode(&r, f->version, &c->arena, &resp);
    if (!wc_body_ok(w, c, f, WIRE_API_SYNC_GROUP, &r, rc))
        return false;
    *e = resp.error_code;
    return true;
}

static bool wm_decode_heartbeat(w_world *w, w_client *c, const wc_inflight *f,
                                const uint8_t *bytes, size_t len, int16_t *e)
{
    kq_reader r;
    if (!wc_open_response(w, c, f, WIRE_API_HEARTBEAT, bytes, len, &r))
        return false;
    wire_heartbeat_response resp;
    int rc = wire_heartbeat_response_decode(&r, f->version, &c->arena, &resp);
    if (!wc_body_ok(w, c, f, WIRE_API_HEARTBEAT, &r, rc))
        return false;
    *e = resp.error_code;
    return true;
}

static void wm_on_sync_or_heartbeat(w_world *w, w_client *c, const wc_inflight *f,
                                    const uint8_t *bytes, size_t len)
{
    int16_t e = KAFKA_NONE;
    if (!bytes) {
        wm_failed(w, c, KAFKA_NONE, false);
        return;
    }
    bool sync = f->op == WC_OP_SYNC_GROUP;
    if (!(sync ? wm_decode_sync(w, c, f, bytes, len, &e)
               : wm_decode_heartbeat(w, c, f, bytes, len, &e)))
        return;
    w_trace(w, "client %d: %s v%d from node %d: %s", c->idx, sync ? "SyncGroup" : "Heartbeat",
            f->version, f->node, wc_error_name(e));
    wm_check(w, c, f, f->member_inc, f->generation, e);
    if (e == KAFKA_NONE) {
        if (sync && c->group.generation >= 0) {
            c->group.stable = true;
            c->group.heartbeat_at = w->now + WM_HEARTBEAT_MS;
        }
        return;
    }
    if (wm_coordinator_error(e) || wm_member_error(e)) {
        wm_failed(w, c, e, true);
        return;
    }
    w_fail(w, "client %d: %s v%d from node %d: %s (%d)", c->idx, sync ? "SyncGroup" : "Heartbeat",
           f->version, f->node, wc_error_name(e), e);
}

static void wm_send_heartbeat(w_world *w, w_client *c)
{
    int16_t v = wm_version(w, WIRE_API_HEARTBEAT, 0, 4);
    wire_heartbeat_request req = {.group_id = kq_slice_cstr(c->group.group_id),
                                  .generation_id = c->group.generation,
                                  .member_id = kq_slice_cstr(c->group.member_id),
                                  .group_instance_id = {NULL, -1}};
    wc_inflight f = {.op = WC_OP_HEARTBEAT, .version = v, .member_inc = c->group.member_inc,
                     .generation = c->group.generation};
    f.corr = wc_begin(c, WIRE_API_HEARTBEAT, v);
    wire_heartbeat_request_encode(&c->frame, v, &req);
    f.node = wm_node(w, c);
    c->group.heartbeat_at = w->now + WM_HEARTBEAT_MS;
    wc_send(w, c, &f, (int32_t)sim_prng_range(&w->rng, 500, 3000));
}

/* ---- w_client_internal.h */

bool wcm_act(w_world *w, w_client *c)
{
    if (c->kind != W_CLIENT_GROUP_MEMBER)
        return true;
    if (!wire_api_accepted(WIRE_API_JOIN_GROUP, 0) ||
        wc_count_op(c, WC_OP_JOIN_GROUP) > 0 || wc_count_op(c, WC_OP_SYNC_GROUP) > 0)
        return false;
    if (!c->group.stable) {
        wm_send_join(w, c);
        return false;
    }
    if (w->now >= c->group.heartbeat_at && wc_count_op(c, WC_OP_HEARTBEAT) == 0)
        wm_send_heartbeat(w, c);
    return true;
}

void wcm_on_response(w_world *w, w_client *c, const wc_inflight *f, const uint8_t *bytes,
                     size_t len)
{
    if (f->op == WC_OP_JOIN_GROUP)
        wm_on_join(w, c, f, bytes, len);
    else
        wm_on_sync_or_heartbeat(w, c, f, bytes, len);
}
