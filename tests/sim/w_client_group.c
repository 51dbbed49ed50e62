/* Offset committers (W_CLIENT_GROUP): a "simple consumer" of group g<idx>
 * (generation -1, member id "") committing a strictly increasing offset for
 * __cluster_metadata partition 0 to the node it believes coordinates the
 * group, one commit at a time, and reading it back with OffsetFetch. It
 * learns the coordinator from FindCoordinator and moves on to the next node
 * on NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS,
 * COORDINATOR_NOT_AVAILABLE, a timeout or a closed connection. Versions
 * vary: OffsetCommit v2-10, OffsetFetch v1-10 (v8+ batched; v10 names the
 * topic by id), FindCoordinator v0-6 (v4+ batched). What it sends, what is acknowledged and what it reads
 * go to the checker (w_check_groups.c). A member (W_CLIENT_GROUP_MEMBER,
 * w_client_member.c) does the same with its generation once it has joined
 * and synced. All randomness comes from w->rng. */
#include <stdio.h>
#include <string.h>

#include "kq/kafka_errors.h"
#include "kq/wire.h"
#include "kq/wire_fetch.h"
#include "kq/wire_find_coordinator.h"
#include "kq/wire_offset_commit.h"
#include "kq/wire_offset_fetch.h"
#include "prng.h"
#include "w_client_internal.h"

#define WG_FETCH_INFLIGHT_MAX 2     /* with the rest, well within WC_INFLIGHT_MAX */
#define WG_FETCH_PPM 500000       /* of actions: an OffsetFetch beside the commits */
#define WG_FETCH_AFTER_ACK_PPM 500000 /* of acks: an OffsetFetch at once */
#define WG_FETCH_WITH_COMMIT_PPM 300000 /* of commits: an OffsetFetch right behind it */
#define WG_FIND_PPM 500000        /* of rotations: FindCoordinator first */
#define WG_NULL_TOPICS_PPM 250000 /* of OffsetFetch v2+: every topic of the group */
#define WG_STEP_MAX 3             /* a commit is the last one + 1..1+WG_STEP_MAX */
#define WG_TOPIC WIRE_METADATA_TOPIC_NAME
#define WG_UNSTABLE_OFFSET_COMMIT 88 /* Kafka's UNSTABLE_OFFSET_COMMIT (require_stable) */

/* The errors after which a client looks for the coordinator elsewhere. */
static bool wg_retriable(int16_t e)
{
    return e == KAFKA_NOT_COORDINATOR || e == KAFKA_COORDINATOR_LOAD_IN_PROGRESS ||
           e == KAFKA_COORDINATOR_NOT_AVAILABLE || e == KAFKA_REQUEST_TIMED_OUT;
}

/* The answer names our topic: by name up to v9, by id from v10. */
static bool wg_topic_is_ours(kq_slice name, kq_uuid id, int16_t version)
{
    if (version >= 10)
        return memcmp(id.bytes, WIRE_METADATA_TOPIC_ID.bytes, sizeof(id.bytes)) == 0;
    return kq_slice_eq_cstr(name, WG_TOPIC);
}

static int16_t wg_version(w_world *w, int16_t key, int16_t lo, int16_t hi, int16_t fallback)
{
    int16_t v = (int16_t)sim_prng_range(&w->rng, (uint64_t)lo, (uint64_t)hi);
    return wire_api_accepted(key, v) ? v : fallback;
}

static int wg_target(w_world *w, w_client *c)
{
    if (c->group.coord_node < 0 || c->group.coord_node >= w->n)
        c->group.coord_node = (int)sim_prng_below(&w->rng, (uint64_t)w->n);
    return c->group.coord_node;
}

/* The coordinator it believed in failed it: the next node, and half the
 * time a FindCoordinator there first. A member stays one (issue 24: the
 * next coordinator loads the group from the log). */
static void wg_rotate(w_world *w, w_client *c)
{
    c->group.coord_node = (wg_target(w, c) + 1) % w->n;
    c->group.find_first = sim_prng_chance(&w->rng, WG_FIND_PPM);
}

/* ---- FindCoordinator */

static void wg_send_find(w_world *w, w_client *c)
{
    int16_t v = wg_version(w, WIRE_API_FIND_COORDINATOR, 0, 6, 0);
    kq_slice key = kq_slice_cstr(c->group.group_id);
    wire_find_coordinator_request req = {.key = key, .key_type = 0};
    if (v >= 4) {
        req.key = (kq_slice){NULL, -1};
        req.coordinator_keys = &key;
        req.coordinator_key_count = 1;
    }
    wc_inflight f = {.op = WC_OP_FIND_COORDINATOR, .version = v};
    f.corr = wc_begin(c, WIRE_API_FIND_COORDINATOR, v);
    wire_find_coordinator_request_encode(&c->frame, v, &req);
    f.node = wg_target(w, c);
    c->group.find_first = false;
    wc_send(w, c, &f, (int32_t)sim_prng_range(&w->rng, 500, 2000));
}

static void wg_on_find(w_world *w, w_client *c, const wc_inflight *f, const uint8_t *bytes,
                       size_t len)
{
    kq_reader r;
    if (!bytes) {
        wg_rotate(w, c);
        return;
    }
    if (!wc_open_response(w, c, f, WIRE_API_FIND_COORDINATOR, bytes, len, &r))
        return;
    wire_find_coordinator_response resp;
    int rc = wire_find_coordinator_response_decode(&r, f->version, &c->arena, &resp);
    if (!wc_body_ok(w, c, f, WIRE_API_FIND_COORDINATOR, &r, rc))
        return;
    int16_t e = resp.error_code;
    int32_t id = resp.node_id;
    if (f->version >= 4) {
        if (resp.coordinator_count != 1 ||
            !kq_slice_eq_cstr(resp.coordinators[0].key, c->group.group_id)) {
            w_fail(w, "client %d: FindCoordinator v%d from node %d does not answer %s", c->idx,
                   f->version, f->node, c->group.group_id);
            return;
        }
        e = resp.coordinators[0].error_code;
        id = resp.coordinators[0].node_id;
    }
    if (e == KAFKA_NONE && w_node_index(w, id) >= 0) {
        c->group.coord_node = w_node_index(w, id);
        return;
    }
    if (e == KAFKA_NONE || !wg_retriable(e)) {
        w_fail(w, "client %d: FindCoordinator v%d from node %d: %s (%d), node %d", c->idx,
               f->version, f->node, wc_error_name(e), e, id);
        return;
    }
    c->group.coord_node = (f->node + 1) % w->n;
}

/* ---- OffsetFetch */

static void wg_send_fetch(w_world *w, w_client *c, int node, bool final)
{
    int16_t v = wg_version(w, WIRE_API_OFFSET_FETCH, 1, 10, 1);
    int32_t partition = 0;
    wire_offset_fetch_request_topic t = {.name = kq_slice_cstr(WG_TOPIC),
                                         .partition_indexes = &partition,
                                         .partition_index_count = 1};
    if (v >= 10) { /* by topic id */
        t.name = (kq_slice){NULL, -1};
        t.topic_id = WIRE_METADATA_TOPIC_ID;
    }
    int32_t topic_count = v >= 2 && sim_prng_chance(&w->rng, WG_NULL_TOPICS_PPM) ? -1 : 1;
    wire_offset_fetch_request_group g = {.group_id = kq_slice_cstr(c->group.group_id),
                                         .member_id = {NULL, -1}, .member_epoch = -1,
                                         .topics = topic_count < 0 ? NULL : &t,
                                         .topic_count = topic_count};
    /* A KIP-848 member names itself and its epoch (v9+) half the time. */
    if (c->kind == W_CLIENT_CONSUMER_MEMBER && v >= 9 && c->group.generation > 0 &&
        sim_prng_below(&w->rng, 2)) {
        g.member_id = kq_slice_cstr(c->group.member_id);
        g.member_epoch = c->group.generation;
    }
    wire_offset_fetch_request req = {.group_id = kq_slice_cstr(""),
                                     .require_stable = v >= 7 && sim_prng_below(&w->rng, 2)};
    if (v >= 8) {
        req.groups = &g;
        req.group_count = 1;
    } else {
        req.group_id = g.group_id;
        req.topics = g.topics;
        req.topic_count = g.topic_count;
    }
    wc_inflight f = {.op = WC_OP_OFFSET_FETCH, .version = v, .final_fetch = final,
                     .all_topics = topic_count < 0, .cm_inst = c->group.cm.inst};
    f.corr = wc_begin(c, WIRE_API_OFFSET_FETCH, v);
    wire_offset_fetch_request_encode(&c->frame, v, &req);
    f.node = node;
    f.floor = w_check_on_offset_fetch_sent(w, c->group.slot);
    wc_send(w, c, &f, (int32_t)sim_prng_range(&w->rng, 500, 3000));
}

/* The answer's error and offset for our partition; false if malformed. */
static bool wg_fetch_result(w_world *w, const w_client *c, const wc_inflight *f,
                            const wire_offset_fetch_response *resp, int16_t *err,
                            int64_t *offset)
{
    const wire_offset_fetch_topic *topics = resp->topics;
    int32_t topic_count = resp->topic_count;
    *err = resp->error_code;
    *offset = -1;
    if (f->version >= 8) {
        if (resp->group_count != 1 ||
            !kq_slice_eq_cstr(resp->groups[0].group_id, c->group.group_id))
            return w_fail(w, "client %d: OffsetFetch v%d from node %d does not answer %s",
                          c->idx, f->version, f->node, c->group.group_id);
        *err = resp->groups[0].error_code;
        topics = resp->groups[0].topics;
        topic_count = resp->groups[0].topic_count;
    }
    if (*err != KAFKA_NONE)
        return true;
    for (int32_t i = 0; i < topic_count; i++) {
        if (!wg_topic_is_ours(topics[i].name, topics[i].topic_id, f->version))
            continue;
        for (int32_t j = 0; j < topics[i].partition_count; j++)
            if (topics[i].partitions[j].partition_index == 0) {
                *err = topics[i].partitions[j].error_code;
                *offset = topics[i].partitions[j].committed_offset;
                return true;
            }
    }
    if (f->all_topics)
        return true; /* every topic asked: none committed yet */
    return w_fail(w, "client %d: OffsetFetch v%d from node %d does not answer %s/0", c->idx,
                  f->version, f->node, WG_TOPIC);
}

static void wg_on_fetch(w_world *w, w_client *c, const wc_inflight *f, const uint8_t *bytes,
                        size_t len)
{
    if (f->final_fetch)
        c->group.final_wanted = false;
    kq_reader r;
    if (!bytes) {
        wg_rotate(w, c);
        return;
    }
    if (!wc_open_response(w, c, f, WIRE_API_OFFSET_FETCH, bytes, len, &r))
        return;
    wire_offset_fetch_response resp;
    int rc = wire_offset_fetch_response_decode(&r, f->version, &c->arena, &resp);
    if (!wc_body_ok(w, c, f, WIRE_API_OFFSET_FETCH, &r, rc))
        return;
    int16_t e;
    int64_t offset;
    if (!wg_fetch_result(w, c, f, &resp, &e, &offset))
        return;
    if (e == KAFKA_NONE) {
        w_trace(w, "client %d: %sOffsetFetch v%d from node %d: %s at %lld", c->idx,
                f->final_fetch ? "final " : "", f->version, f->node, c->group.group_id,
                (long long)offset);
        w_check_on_offset_fetched(w, c->group.slot, &f->floor, offset, f->node,
                                  f->final_fetch);
        c->group.final_answered = c->group.final_answered || f->final_fetch;
    } else if (wg_retriable(e) || e == WG_UNSTABLE_OFFSET_COMMIT) {
        wg_rotate(w, c);
    } else if (!wcn_refused(w, c, f, e)) {
        w_fail(w, "client %d: OffsetFetch v%d from node %d: %s (%d)", c->idx, f->version,
               f->node, wc_error_name(e), e);
    }
}

/* ---- OffsetCommit */

static void wg_send_commit(w_world *w, w_client *c)
{
    /* A KIP-848 member commits with OffsetCommit v9+ (its epoch), as the
     * Java consumer; the values rise across its group (the first member's). */
    bool cm = c->kind == W_CLIENT_CONSUMER_MEMBER;
    int16_t v = cm ? wg_version(w, WIRE_API_OFFSET_COMMIT, 9, 10, 9)
                   : wg_version(w, WIRE_API_OFFSET_COMMIT, 2, 10, 2);
    int64_t *last = &w->clients[c->group.slot]->group.last_value;
    int64_t value = *last + 1 + (int64_t)sim_prng_below(&w->rng, WG_STEP_MAX + 1);
    if (c->group.caught_up) { /* a consumer at the log end, or just behind it */
        int64_t end = w_check_committed_end(w) - (int64_t)sim_prng_below(&w->rng, 3);
        value = end > *last ? end : *last + 1;
    }
    *last = value;
    char meta[24];
    snprintf(meta, sizeof(meta), "m%lld", (long long)value);
    wire_offset_commit_partition p = {
        .partition_index = 0, .committed_offset = value, .committed_leader_epoch = -1,
        .committed_metadata = !c->group.caught_up && sim_prng_below(&w->rng, 2)
                                  ? kq_slice_cstr(meta)
                                  : (kq_slice){NULL, -1}};
    wire_offset_commit_topic t = {.name = kq_slice_cstr(WG_TOPIC), .partitions = &p,
                                  .partition_count = 1};
    if (v >= 10) { /* by topic id */
        t.name = (kq_slice){NULL, -1};
        t.topic_id = WIRE_METADATA_TOPIC_ID;
    }
    wire_offset_commit_request req = {.group_id = kq_slice_cstr(c->group.group_id),
                                      .generation_id_or_member_epoch = c->group.generation,
                                      .member_id = kq_slice_cstr(c->group.member_id),
                                      .group_instance_id = {NULL, -1},
                                      .retention_time_ms = -1, .topics = &t, .topic_count = 1};
    wc_inflight f = {.op = WC_OP_OFFSET_COMMIT, .version = v, .commit_value = value,
                     .member_inc = c->group.member_inc, .generation = c->group.generation,
                     .cm_inst = c->group.cm.inst};
    f.corr = wc_begin(c, WIRE_API_OFFSET_COMMIT, v);
    wire_offset_commit_request_encode(&c->frame, v, &req);
    f.node = wg_target(w, c);
    w_check_on_offset_commit_sent(w, c->group.slot, value);
    wc_send(w, c, &f, (int32_t)sim_prng_range(&w->rng, 500, 5000));
}

static void wg_on_commit(w_world *w, w_client *c, const wc_inflight *f, const uint8_t *bytes,
                         size_t len)
{
    kq_reader r;
    if (!bytes) {
        w_trace(w, "client %d: OffsetCommit v%d of %lld to node %d failed", c->idx, f->version,
                (long long)f->commit_value, f->node);
        wg_rotate(w, c); /* outcome unknown: the next commit carries a higher offset */
        return;
    }
    w_check_on_offset_commit_answered(w, c->idx, f->commit_value);
    if (!wc_open_response(w, c, f, WIRE_API_OFFSET_COMMIT, bytes, len, &r))
        return;
    wire_offset_commit_response resp;
    int rc = wire_offset_commit_response_decode(&r, f->version, &c->arena, &resp);
    if (!wc_body_ok(w, c, f, WIRE_API_OFFSET_COMMIT, &r, rc))
        return;
    if (resp.topic_count != 1 ||
        !wg_topic_is_ours(resp.topics[0].name, resp.topics[0].topic_id, f->version) ||
        resp.topics[0].partition_count != 1 ||
        resp.topics[0].partitions[0].partition_index != 0) {
        w_fail(w, "client %d: OffsetCommit v%d from node %d does not answer %s/0", c->idx,
               f->version, f->node, WG_TOPIC);
        return;
    }
    int16_t e = resp.topics[0].partitions[0].error_code;
    if (e == KAFKA_NONE) {
        w_trace(w, "client %d: OffsetCommit v%d of %lld acknowledged by node %d", c->idx,
                f->version, (long long)f->commit_value, f->node);
        w_check_on_offset_commit_acked(w, c->group.slot, f->commit_value);
        c->group.commits_acked++;
        if (wc_count_op(c, WC_OP_OFFSET_FETCH) < WG_FETCH_INFLIGHT_MAX &&
            sim_prng_chance(&w->rng, WG_FETCH_AFTER_ACK_PPM))
            wg_send_fetch(w, c, wg_target(w, c), false);
    } else if (wg_retriable(e)) {
        w_trace(w, "client %d: OffsetCommit v%d of %lld to node %d: %s", c->idx, f->version,
                (long long)f->commit_value, f->node, wc_error_name(e));
        wg_rotate(w, c);
    } else if (!wcm_commit_refused(w, c, f, e) && !wcn_refused(w, c, f, e)) {
        w_fail(w, "client %d: OffsetCommit v%d of %lld to node %d: %s (%d)", c->idx, f->version,
               (long long)f->commit_value, f->node, wc_error_name(e), e);
    }
}

/* ---- w_client_internal.h */

int wc_group_target(w_world *w, w_client *c)
{
    return wg_target(w, c);
}

void wc_group_rotate(w_world *w, w_client *c)
{
    wg_rotate(w, c);
}

void wc_group_init(w_world *w, w_client *c)
{
    snprintf(c->group.group_id, sizeof(c->group.group_id), "g%d", c->idx);
    c->group.slot = c->idx;
    c->group.generation = -1;
    c->group.coord_node = -1;
    c->group.find_first = sim_prng_below(&w->rng, 2);
    c->group.last_value = (int64_t)sim_prng_below(&w->rng, 10) - 1;
    wca_init(w, c);
    c->group.caught_up = sim_prng_below(&w->rng, 2); /* issue 24 */
}

void wc_act_group(w_world *w, w_client *c)
{
    /* Inert on a server without the group APIs. */
    if (!wire_api_accepted(WIRE_API_OFFSET_COMMIT, 2))
        return;
    bool busy = wc_count_op(c, WC_OP_OFFSET_COMMIT) > 0 ||
                wc_count_op(c, WC_OP_FIND_COORDINATOR) > 0;
    if (!busy && c->group.find_first) {
        wg_send_find(w, c);
        return;
    }
    bool may_commit = c->kind == W_CLIENT_CONSUMER_MEMBER ? wcn_act(w, c) : wcm_act(w, c);
    busy = busy || wc_count_op(c, WC_OP_JOIN_GROUP) > 0 || wc_count_op(c, WC_OP_SYNC_GROUP) > 0;
    busy = busy || wca_holds_commits(w, c) || wca_act(w, c); /* issue 24 */
    if (!busy && may_commit && w->clients_on && !c->stop_new) {
        wg_send_commit(w, c);
        if (wc_count_op(c, WC_OP_OFFSET_FETCH) < WG_FETCH_INFLIGHT_MAX &&
            sim_prng_chance(&w->rng, WG_FETCH_WITH_COMMIT_PPM))
            wg_send_fetch(w, c, wg_target(w, c), false);
    }
    if (wc_count_op(c, WC_OP_OFFSET_FETCH) < WG_FETCH_INFLIGHT_MAX &&
        sim_prng_chance(&w->rng, WG_FETCH_PPM))
        wg_send_fetch(w, c, wg_target(w, c), false);
}

void wc_on_group_response(w_world *w, w_client *c, const wc_inflight *f, const uint8_t *bytes,
                          size_t len)
{
    switch (f->op) {
    case WC_OP_OFFSET_COMMIT:
        wg_on_commit(w, c, f, bytes, len);
        break;
    case WC_OP_OFFSET_FETCH:
        wg_on_fetch(w, c, f, bytes, len);
        break;
    case WC_OP_FIND_COORDINATOR:
        wg_on_find(w, c, f, bytes, len);
        break;
    case WC_OP_DELETE_GROUPS:
    case WC_OP_OFFSET_DELETE:
        wca_on_response(w, c, f, bytes, len);
        break;
    default:
        break;
    }
}

/* ---- w_client.h */

static bool wg_is_group(const w_client *c)
{
    return c && (c->kind == W_CLIENT_GROUP || c->kind == W_CLIENT_GROUP_MEMBER ||
                 c->kind == W_CLIENT_CONSUMER_MEMBER);
}

bool w_client_group_final_fetch(w_world *w, w_client *c, int node)
{
    if (!wg_is_group(c) || !wire_api_accepted(WIRE_API_OFFSET_FETCH, 1))
        return false;
    c->group.final_wanted = true;
    wg_send_fetch(w, c, node, true);
    return true;
}

bool w_client_group_final_pending(const w_client *c)
{
    return wg_is_group(c) && c->group.final_wanted;
}

bool w_client_member_stable(const w_client *c)
{
    return !c || c->kind != W_CLIENT_GROUP_MEMBER || c->group.stable;
}

bool w_client_group_final_answered(const w_client *c)
{
    return wg_is_group(c) && c->group.final_answered;
}
