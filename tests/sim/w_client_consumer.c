/* KIP-848 consumer members (W_CLIENT_CONSUMER_MEMBER, issue 24): two or
 * three clients of one group c<first>, each behaving as Kafka 4.4's Java
 * consumer with group.protocol=consumer does on the wire.
 *
 * A member joins with epoch 0 (every field: its subscription, rebalance
 * timeout, server assignor half the time, an empty owned list) and then
 * heartbeats (ConsumerGroupHeartbeat v0-1) at the interval answered, with
 * only what changed (its subscription, its owned partitions) and every field
 * after an error and now and then. An answer's assignment is reconciled as
 * the Java consumer does: partitions it no longer has are revoked first
 * (after a delay, longer than its rebalance timeout one time in twenty;
 * never with a commit of its own in flight), then it owns the new
 * assignment and reports it at once. It commits (OffsetCommit v9-10, w_client_group.c)
 * with its member id and epoch while it owns __cluster_metadata-0, the
 * values shared by the group. Now and then it toggles its subscription
 * (to a topic none has: its partition goes to another member), leaves
 * (epoch -1) and comes back (epoch 0, the same member id), or its process
 * restarts (a new member id, epoch 0, answers to the old one ignored).
 * FENCED_MEMBER_EPOCH and UNKNOWN_MEMBER_ID drop its partitions and it joins
 * again; coordinator errors, timeouts and closed connections send it to the
 * next node, keeping what it owns. What it holds goes to the group-exclusive
 * check (w_check_cgroups.c). All randomness comes from w->rng. */
#include <stdio.h>
#include <string.h>

#include "kq/assert.h"
#include "kq/group_consumer.h"
#include "kq/kafka_errors.h"
#include "kq/uuid.h"
#include "kq/wire.h"
#include "kq/wire_consumer_group_heartbeat.h"
#include "kq/wire_fetch.h"
#include "prng.h"
#include "w_client_internal.h"

#define WCN_TOPIC WIRE_METADATA_TOPIC_NAME
#define WCN_NO_TOPIC "c-none"         /* subscribed instead: no partition comes with it */
#define WCN_RESTART_PPM 1500          /* of actions: the process restarts */
#define WCN_LEAVE_PPM 1500            /* of actions as a member: it leaves */
#define WCN_REJOIN_MIN_MS 100
#define WCN_REJOIN_MAX_MS 3000
#define WCN_RESUBSCRIBE_PPM 2500      /* of actions as a member: it toggles its subscription */
#define WCN_FULL_PPM 50000            /* of heartbeats: every field */
#define WCN_SLOW_REVOKE_PPM 50000     /* of revocations: past the rebalance timeout */
#define WCN_REVOKE_MAX_MS 300
#define WCN_RETRY_MIN_MS 20
#define WCN_RETRY_MAX_MS 200
#define WCN_REBALANCE_MIN_MS 800
#define WCN_REBALANCE_MAX_MS 3000
#define WCN_V0_PPM 250000             /* of instances: ConsumerGroupHeartbeat v0 */
#define WCN_STATIC_PPM 333333         /* of members: static (group.instance.id) */

static wc_cmember *wcn(w_client *c)
{
    return &c->group.cm;
}

static const wc_cmember *wcn_const(const w_client *c)
{
    return &c->group.cm;
}

/* A leave: -1, or a static member's -2 (its assignment kept for its next
 * instance until its session ends). */
static bool wcn_leaving(int32_t epoch)
{
    return epoch == GROUP_CONSUMER_LEAVE_EPOCH || epoch == GROUP_CONSUMER_STATIC_LEAVE_EPOCH;
}

static int wcn_node(w_world *w, w_client *c)
{
    if (c->group.coord_node < 0 || c->group.coord_node >= w->n)
        c->group.coord_node = (int)sim_prng_below(&w->rng, (uint64_t)w->n);
    return c->group.coord_node;
}

static bool wcn_owns_ours(const wc_cmember *m)
{
    for (int i = 0; i < m->owned_n; i++)
        if (m->owned[i].partition == 0 &&
            memcmp(m->owned[i].topic_id.bytes, WIRE_METADATA_TOPIC_ID.bytes, 16) == 0)
            return true;
    return false;
}

/* The group code commits with these (w_client_group.c). */
static void wcn_sync(w_client *c)
{
    c->group.generation = wcn(c)->epoch > 0 ? wcn(c)->epoch : -1;
    c->group.stable = wcn(c)->epoch > 0;
}

static void wcn_set_owned(w_world *w, w_client *c, const w_cg_tp *tps, int n,
                          const w_cg_from *from)
{
    wc_cmember *m = wcn(c);
    KQ_ASSERT(n >= 0 && n <= WCN_TP_MAX);
    if (n)
        memcpy(m->owned, tps, (size_t)n * sizeof(*tps));
    m->owned_n = n;
    m->owned_changed = true;
    w_check_cg_on_holds(w, c->idx, c->group.slot, tps, n, from);
}

/* Drops every partition (fenced, leaving, restarting). */
static void wcn_drop_all(w_world *w, w_client *c)
{
    wcn(c)->reconciling = false;
    wcn_set_owned(w, c, NULL, 0, NULL);
}

/* A new process: a new member id (v1: its own UUID; v0: the coordinator's). */
static void wcn_new_instance(w_world *w, w_client *c)
{
    wc_cmember *m = wcn(c);
    static const char *const assignors[] = {NULL, NULL, "uniform", "range"};
    m->inst++;
    m->version = sim_prng_chance(&w->rng, WCN_V0_PPM) ? 0 : 1;
    c->group.member_id[0] = 0;
    if (m->version >= 1) {
        kq_uuid u;
        for (int i = 0; i < 16; i++)
            u.bytes[i] = (uint8_t)sim_prng_below(&w->rng, 256);
        kq_uuid_to_string(&u, c->group.member_id, sizeof(c->group.member_id));
    }
    m->epoch = 0;
    m->interval_ms = 0;
    m->rebalance_timeout_ms =
        (int32_t)sim_prng_range(&w->rng, WCN_REBALANCE_MIN_MS, WCN_REBALANCE_MAX_MS);
    m->assignor = assignors[sim_prng_below(&w->rng, 4)];
    m->subscribed = true;
    m->full = true;
    m->left = false;
    m->next_hb_at = w->now;
    wcn_drop_all(w, c);
    wcn_sync(c);
}

/* ---- the heartbeat */

/* Its owned partitions as the request lists them: one entry per topic. */
static int wcn_owned_by_topic(const wc_cmember *m, wire_cgh_topic_partitions *out,
                              int32_t parts[][WCN_TP_MAX])
{
    int n = 0;
    for (int i = 0; i < m->owned_n; i++) {
        int t = 0;
        while (t < n && memcmp(out[t].topic_id.bytes, m->owned[i].topic_id.bytes, 16) != 0)
            t++;
        if (t == n)
            out[n++] = (wire_cgh_topic_partitions){m->owned[i].topic_id, parts[t], 0};
        parts[t][out[t].partition_count++] = m->owned[i].partition;
    }
    return n;
}

static void wcn_send_heartbeat(w_world *w, w_client *c, bool leave)
{
    wc_cmember *m = wcn(c);
    int16_t v = wire_api_accepted(WIRE_API_CONSUMER_GROUP_HEARTBEAT, m->version) ? m->version : 0;
    bool full = !leave && (m->full || m->epoch == 0 || sim_prng_chance(&w->rng, WCN_FULL_PPM));
    kq_slice topic = kq_slice_cstr(m->subscribed ? WCN_TOPIC : WCN_NO_TOPIC);
    wire_cgh_topic_partitions owned[WCN_TP_MAX];
    int32_t parts[WCN_TP_MAX][WCN_TP_MAX];
    int owned_n = wcn_owned_by_topic(m, owned, parts);
    bool send_owned = !leave && (full || m->owned_changed);
    bool send_sub = !leave && (full || m->sub_changed);
    bool is_static = m->instance_id[0] != 0;
    int32_t epoch = !leave ? m->epoch
                           : is_static ? GROUP_CONSUMER_STATIC_LEAVE_EPOCH
                                       : GROUP_CONSUMER_LEAVE_EPOCH;
    wire_consumer_group_heartbeat_request req = {
        .group_id = kq_slice_cstr(c->group.group_id),
        .member_id = kq_slice_cstr(c->group.member_id),
        .member_epoch = epoch,
        .instance_id = is_static && (full || leave) ? kq_slice_cstr(m->instance_id)
                                                    : (kq_slice){NULL, -1},
        .rack_id = full && sim_prng_below(&w->rng, 2) ? kq_slice_cstr("r1") : (kq_slice){NULL, -1},
        .rebalance_timeout_ms = full ? m->rebalance_timeout_ms : -1,
        .subscribed_topic_names = send_sub ? &topic : NULL,
        .subscribed_topic_count = send_sub ? 1 : -1,
        .subscribed_topic_regex = {NULL, -1},
        .server_assignor = full && m->assignor ? kq_slice_cstr(m->assignor) : (kq_slice){NULL, -1},
        .topic_partitions = send_owned ? owned : NULL,
        .topic_count = send_owned ? owned_n : -1};
    wc_inflight f = {.op = WC_OP_CG_HEARTBEAT, .version = v, .cm_inst = m->inst,
                     .sent_ms = w->now, .cm_epoch = epoch};
    f.corr = wc_begin(c, WIRE_API_CONSUMER_GROUP_HEARTBEAT, v);
    wire_consumer_group_heartbeat_request_encode(&c->frame, v, &req);
    f.node = wcn_node(w, c);
    w_check_cg_on_sent(w, c->idx, w->now);
    m->full = m->sub_changed = m->owned_changed = false;
    /* Within half the session timeout: an answer never arrives after the
     * coordinator could have dropped the member for its silence. */
    int32_t session = w->cfg.group.consumer_session_timeout_ms;
    wc_send(w, c, &f, (int32_t)sim_prng_range(&w->rng, 200, (uint64_t)(session / 2)));
    m->next_hb_at = w->now + (m->interval_ms > 0 ? m->interval_ms : WCN_RETRY_MAX_MS);
}

/* The assignment answered: revoke what it lost first, then own it all. */
static bool wcn_reconcile(w_world *w, w_client *c, const wire_cgh_assignment *a,
                          const w_cg_from *from, int64_t sent_ms)
{
    wc_cmember *m = wcn(c);
    w_cg_tp t[WCN_TP_MAX];
    int n = 0;
    for (int32_t i = 0; i < a->topic_count; i++)
        for (int32_t k = 0; k < a->topic_partitions[i].partition_count; k++) {
            if (n == WCN_TP_MAX)
                return w_fail(w, "client %d: an assignment of more than %d partitions", c->idx,
                              WCN_TP_MAX);
            t[n++] = (w_cg_tp){a->topic_partitions[i].topic_id,
                               a->topic_partitions[i].partitions[k]};
        }
    bool revoke = false;
    for (int i = 0; i < m->owned_n && !revoke; i++) {
        bool kept = false;
        for (int k = 0; k < n && !kept; k++)
            kept = m->owned[i].partition == t[k].partition &&
                   memcmp(m->owned[i].topic_id.bytes, t[k].topic_id.bytes, 16) == 0;
        revoke = !kept;
    }
    if (!revoke) {
        m->reconciling = false;
        wcn_set_owned(w, c, t, n, from);
        return true;
    }
    if (!m->reconciling) {
        bool slow = sim_prng_chance(&w->rng, WCN_SLOW_REVOKE_PPM);
        m->revoked_at = w->now + (slow ? m->rebalance_timeout_ms +
                                             (int64_t)sim_prng_range(&w->rng, 100, 1000)
                                       : (int64_t)sim_prng_below(&w->rng, WCN_REVOKE_MAX_MS));
        w_check_cg_on_revoke(w, c->idx, sent_ms);
    }
    m->reconciling = true;
    memcpy(m->target, t, sizeof(t));
    m->target_n = n;
    m->target_from = *from;
    m->target_sent_ms = sent_ms;
    return true;
}

/* Revocation done (its commits answered): it owns the target, or only what
 * it kept when its rebalance timeout ran out meanwhile (the coordinator may
 * have fenced it: it takes nothing new before it hears). */
static void wcn_finish_revocation(w_world *w, w_client *c)
{
    wc_cmember *m = wcn(c);
    m->reconciling = false;
    if (w->now < m->target_sent_ms + m->rebalance_timeout_ms) {
        wcn_set_owned(w, c, m->target, m->target_n, &m->target_from);
        return;
    }
    w_cg_tp kept[WCN_TP_MAX];
    int n = 0;
    for (int i = 0; i < m->owned_n; i++)
        for (int k = 0; k < m->target_n; k++)
            if (m->owned[i].partition == m->target[k].partition &&
                memcmp(m->owned[i].topic_id.bytes, m->target[k].topic_id.bytes, 16) == 0)
                kept[n++] = m->owned[i];
    wcn_set_owned(w, c, kept, n, NULL);
}

static void wcn_retry(w_world *w, w_client *c)
{
    wc_cmember *m = wcn(c);
    m->full = true;
    m->next_hb_at = w->now + (int64_t)sim_prng_range(&w->rng, WCN_RETRY_MIN_MS, WCN_RETRY_MAX_MS);
}

/* FENCED_MEMBER_EPOCH, UNKNOWN_MEMBER_ID: its partitions are lost; it joins
 * again with epoch 0 and the same member id (v0: the coordinator's next). */
static void wcn_fenced(w_world *w, w_client *c, int16_t e)
{
    wc_cmember *m = wcn(c);
    wcn_drop_all(w, c);
    m->epoch = 0;
    if (m->version == 0 && e == KAFKA_UNKNOWN_MEMBER_ID)
        c->group.member_id[0] = 0;
    wcn_sync(c);
    wcn_retry(w, c);
}

static void wcn_on_answer(w_world *w, w_client *c, const wc_inflight *f,
                          const wire_consumer_group_heartbeat_response *r)
{
    wc_cmember *m = wcn(c);
    if (r->member_id.len > 0) {
        if (m->version >= 1 && !kq_slice_eq_cstr(r->member_id, c->group.member_id)) {
            w_fail(w, "client %d: ConsumerGroupHeartbeat v%d answered member id %.*s, not its %s",
                   c->idx, f->version, (int)r->member_id.len, (const char *)r->member_id.ptr,
                   c->group.member_id);
            return;
        }
        if ((size_t)r->member_id.len >= sizeof(c->group.member_id)) {
            w_fail(w, "client %d: a member id of %d bytes", c->idx, (int)r->member_id.len);
            return;
        }
        memcpy(c->group.member_id, r->member_id.ptr, (size_t)r->member_id.len);
        c->group.member_id[r->member_id.len] = 0;
    }
    if (r->member_epoch <= 0 || r->heartbeat_interval_ms <= 0) {
        w_fail(w, "client %d: ConsumerGroupHeartbeat v%d answered epoch %d, interval %d ms",
               c->idx, f->version, r->member_epoch, r->heartbeat_interval_ms);
        return;
    }
    m->epoch = r->member_epoch;
    m->coord = w->answer_coord;
    m->last_ok_sent_ms = f->sent_ms;
    m->interval_ms = r->heartbeat_interval_ms;
    m->next_hb_at = f->sent_ms + m->interval_ms;
    wcn_sync(c);
    w_cg_from from = {w->answer_coord, r->member_epoch, w->answer_ms};
    w_check_cg_on_answer(w, c->idx, c->group.slot, f->sent_ms, m->rebalance_timeout_ms, &from);
    if (r->has_assignment)
        wcn_reconcile(w, c, &r->assignment, &from, f->sent_ms);
}

/* GROUP_ID_NOT_FOUND to a member (Kafka's answer to epoch > 0 in a group it
 * does not know; Kafka 4.4's consumer takes it as fatal): only once its
 * session could have expired and its group, empty, gone with its offsets.
 * Before, whichever coordinator answers (issue 24: a new leader loads the
 * group from the log), it is group-membership-kept's failure. */
static bool wcn_group_gone_ok(const w_world *w, const wc_cmember *m)
{
    return w->answer_ms >= m->last_ok_sent_ms + w->cfg.group.consumer_session_timeout_ms;
}

static void wcn_group_lost(w_world *w, const w_client *c, int node, const char *op)
{
    const wc_cmember *m = wcn_const(c);
    w_check_on_consumer_group_lost(w, c->idx, node, op, m->last_ok_sent_ms,
                                   w->cfg.group.consumer_session_timeout_ms);
}

static bool wcn_coordinator_error(int16_t e)
{
    return e == KAFKA_NOT_COORDINATOR || e == KAFKA_COORDINATOR_LOAD_IN_PROGRESS ||
           e == KAFKA_COORDINATOR_NOT_AVAILABLE || e == KAFKA_REQUEST_TIMED_OUT;
}

void wcn_on_response(w_world *w, w_client *c, const wc_inflight *f, const uint8_t *bytes,
                     size_t len)
{
    wc_cmember *m = wcn(c);
    /* Answers to a process that restarted since, or to a member that has
     * left since, are nobody's. */
    if (f->cm_inst != m->inst || m->left != wcn_leaving(f->cm_epoch))
        return;
    if (!bytes) {
        w_trace(w, "client %d: ConsumerGroupHeartbeat v%d to node %d failed", c->idx,
                f->version, f->node);
        c->group.coord_node = (wcn_node(w, c) + 1) % w->n;
        wcn_retry(w, c);
        return;
    }
    kq_reader r;
    if (!wc_open_response(w, c, f, WIRE_API_CONSUMER_GROUP_HEARTBEAT, bytes, len, &r))
        return;
    wire_consumer_group_heartbeat_response resp;
    int rc = wire_consumer_group_heartbeat_response_decode(&r, f->version, &c->arena, &resp);
    if (!wc_body_ok(w, c, f, WIRE_API_CONSUMER_GROUP_HEARTBEAT, &r, rc))
        return;
    int16_t e = resp.error_code;
    w_trace(w, "client %d: ConsumerGroupHeartbeat v%d epoch %d from node %d: %s, epoch %d%s",
            c->idx, f->version, f->cm_epoch, f->node, wc_error_name(e), resp.member_epoch,
            resp.has_assignment ? " with an assignment" : "");
    if (wcn_leaving(f->cm_epoch))
        return; /* left: whatever the answer, it is gone */
    if (e == KAFKA_NONE)
        wcn_on_answer(w, c, f, &resp);
    else if (e == KAFKA_GROUP_ID_NOT_FOUND && !wcn_group_gone_ok(w, m))
        wcn_group_lost(w, c, f->node, "ConsumerGroupHeartbeat");
    else if (e == KAFKA_FENCED_MEMBER_EPOCH || e == KAFKA_UNKNOWN_MEMBER_ID ||
             e == KAFKA_GROUP_ID_NOT_FOUND)
        wcn_fenced(w, c, e);
    else if (e == KAFKA_FENCED_INSTANCE_ID)
        wcn_new_instance(w, c); /* another process took its instance id */
    else if (e == KAFKA_UNRELEASED_INSTANCE_ID && f->cm_epoch == 0)
        wcn_retry(w, c); /* its previous process still holds the id (until its session ends) */
    else if (wcn_coordinator_error(e)) {
        c->group.coord_node = (f->node + 1) % w->n;
        wcn_retry(w, c);
    } else
        w_fail(w, "client %d: ConsumerGroupHeartbeat v%d epoch %d from node %d: %s (%d)",
               c->idx, f->version, f->cm_epoch, f->node, wc_error_name(e), e);
}

/* ---- w_client_internal.h */

void wcn_init(w_world *w, w_client *c, int slot)
{
    c->group.slot = slot;
    snprintf(c->group.group_id, sizeof(c->group.group_id), "c%d", slot);
    wc_cmember *m = wcn(c);
    m->instance_id[0] = 0;
    if (sim_prng_chance(&w->rng, WCN_STATIC_PPM))
        snprintf(m->instance_id, sizeof(m->instance_id), "i%d", c->idx);
    wcn_new_instance(w, c);
}

bool wcn_refused(w_world *w, w_client *c, const wc_inflight *f, int16_t e)
{
    if (c->kind != W_CLIENT_CONSUMER_MEMBER)
        return false;
    bool member_error = e == KAFKA_STALE_MEMBER_EPOCH || e == KAFKA_UNKNOWN_MEMBER_ID ||
                        e == KAFKA_FENCED_MEMBER_EPOCH || e == KAFKA_ILLEGAL_GENERATION ||
                        (e == KAFKA_GROUP_ID_NOT_FOUND &&
                         (f->cm_inst != wcn(c)->inst || wcn_group_gone_ok(w, wcn(c))));
    if (e == KAFKA_GROUP_ID_NOT_FOUND && !member_error) {
        wcn_group_lost(w, c, f->node, "OffsetCommit");
        return true; /* reported */
    }
    if (member_error && f->cm_inst == wcn(c)->inst)
        wcn(c)->next_hb_at = w->now; /* its heartbeat learns where it stands */
    return member_error;
}

bool wcn_act(w_world *w, w_client *c)
{
    wc_cmember *m = wcn(c);
    if (!wire_api_accepted(WIRE_API_CONSUMER_GROUP_HEARTBEAT, 0))
        return false;
    bool commit_out = wc_count_op(c, WC_OP_OFFSET_COMMIT) > 0;
    if (sim_prng_chance(&w->rng, WCN_RESTART_PPM)) {
        w_trace(w, "client %d: restarts (member %s of %s)", c->idx, c->group.member_id,
                c->group.group_id);
        wcn_new_instance(w, c); /* what the old process has in flight is nobody's */
    }
    if (wc_count_op(c, WC_OP_CG_HEARTBEAT) > 0)
        return m->epoch > 0 && !m->left && wcn_owns_ours(m);
    if (m->left) {
        if (w->now < m->rejoin_at)
            return false;
        if (m->instance_id[0])
            wcn_new_instance(w, c); /* a static member comes back as a new process */
        m->left = false;
        m->full = true;
        m->next_hb_at = w->now;
    } else if (m->epoch > 0 && !commit_out && sim_prng_chance(&w->rng, WCN_LEAVE_PPM)) {
        w_trace(w, "client %d: leaves %s", c->idx, c->group.group_id);
        wcn_drop_all(w, c);
        wcn_send_heartbeat(w, c, true);
        m->left = true;
        m->epoch = 0;
        m->rejoin_at = w->now + (int64_t)sim_prng_range(&w->rng, WCN_REJOIN_MIN_MS,
                                                        WCN_REJOIN_MAX_MS);
        wcn_sync(c);
        return false;
    } else if (m->epoch > 0 && sim_prng_chance(&w->rng, WCN_RESUBSCRIBE_PPM)) {
        m->subscribed = !m->subscribed;
        m->sub_changed = true;
    }
    if (m->reconciling && w->now >= m->revoked_at && !commit_out)
        wcn_finish_revocation(w, c);
    if (w->now >= m->next_hb_at || m->owned_changed || m->sub_changed)
        wcn_send_heartbeat(w, c, false);
    return m->epoch > 0 && wcn_owns_ours(m);
}

/* ---- w_client.h */

void w_client_consumer_group(w_world *w, w_client *c, int first)
{
    (void)w;
    if (!c || c->kind != W_CLIENT_CONSUMER_MEMBER)
        return;
    c->group.slot = first;
    snprintf(c->group.group_id, sizeof(c->group.group_id), "c%d", first);
}
