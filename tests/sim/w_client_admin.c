/* Offset committers that delete (issue 24): half of them, now and then
 * (when no commit is out), send a DeleteGroups (v0-3) of their group or an
 * OffsetDelete (v0) of its __cluster_metadata/0, a third of the time also
 * naming partition 1 and an unknown topic (each must be answered
 * UNKNOWN_TOPIC_OR_PARTITION). After a deletion answered NONE the client
 * commits nothing for 0.5-3 s (it only reads back), and a simple consumer
 * retires a quarter of the time: it never commits again, so that its
 * offset stays deleted to the end of the run (the final OffsetFetch comes
 * after every node restarted). What each sends and learns goes to
 * deleted-stays-deleted (w_check_deleted.c).
 *
 * The answers a client may get: a simple consumer's group never has
 * members (NONE or GROUP_ID_NOT_FOUND, never NON_EMPTY_GROUP nor
 * GROUP_SUBSCRIBED_TO_TOPIC); a member's DeleteGroups is NON_EMPTY_GROUP
 * while the coordinator knows it, its OffsetDelete GROUP_SUBSCRIBED_TO_TOPIC
 * when it subscribes to the topic or its subscription does not parse (a
 * coordinator that lost the member answers NONE); NOT_COORDINATOR,
 * COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, a timeout or a
 * closed connection send it to the next node. Members subscribe to the
 * topic (half), to another topic (a quarter: their offsets then expire
 * while they are members, KIP-496) or with metadata that does not parse. */
#include <string.h>

#include "kq/kafka_errors.h"
#include "kq/wire.h"
#include "kq/wire_delete_groups.h"
#include "kq/wire_fetch.h"
#include "kq/wire_offset_delete.h"
#include "prng.h"
#include "w_client_internal.h"

#define WCA_DELETE_PPM 150000   /* of actions between two commits: a deletion */
#define WCA_EXTRA_PPM 333333    /* of OffsetDeletes: an unknown partition and topic */
#define WCA_RETIRE_PPM 500000   /* of a simple consumer's deletions answered NONE */
#define WCA_QUIET_MIN_MS 500
#define WCA_QUIET_MAX_MS 3000
#define WCA_OTHER_TOPIC "sim-other-topic"

void wca_init(w_world *w, w_client *c)
{
    c->group.deleter = sim_prng_below(&w->rng, 2);
    uint64_t r = sim_prng_below(&w->rng, 4);
    c->group.subscription = r < 2 ? WCA_SUB_META : r == 2 ? WCA_SUB_OTHER : WCA_SUB_UNREADABLE;
}

kq_slice wca_subscription(const w_client *c)
{
    /* ConsumerProtocolSubscription v1: version, one topic, null user data,
     * no owned partitions. */
    static const uint8_t meta[] = {0, 1, 0, 0, 0, 1, 0, 18, '_', '_', 'c', 'l', 'u', 's', 't',
                                   'e', 'r', '_', 'm', 'e', 't', 'a', 'd', 'a', 't', 'a',
                                   0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0};
    static const uint8_t other[] = {0, 1, 0, 0, 0, 1, 0, 15, 's', 'i', 'm', '-', 'o', 't', 'h',
                                    'e', 'r', '-', 't', 'o', 'p', 'i', 'c',
                                    0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0};
    static const uint8_t unreadable[] = {0, 1, 0, 0, 0, 0}; /* no user data */
    _Static_assert(sizeof(WIRE_METADATA_TOPIC_NAME) - 1 == 18, "the topic's length above");
    _Static_assert(sizeof(WCA_OTHER_TOPIC) - 1 == 15, "the other topic's length above");
    switch (c->group.subscription) {
    case WCA_SUB_META: return (kq_slice){meta, (int32_t)sizeof meta};
    case WCA_SUB_OTHER: return (kq_slice){other, (int32_t)sizeof other};
    default: return (kq_slice){unreadable, (int32_t)sizeof unreadable};
    }
}

bool wca_holds_commits(const w_world *w, const w_client *c)
{
    return c->group.retired || w->now < c->group.quiet_until ||
           wc_count_op(c, WC_OP_DELETE_GROUPS) > 0 || wc_count_op(c, WC_OP_OFFSET_DELETE) > 0;
}

static void wca_send_delete_groups(w_world *w, w_client *c, wc_inflight *f)
{
    int16_t v = (int16_t)sim_prng_range(&w->rng, 0, 3);
    kq_slice id = kq_slice_cstr(c->group.group_id);
    wire_delete_groups_request req = {.groups_names = &id, .group_count = 1};
    f->op = WC_OP_DELETE_GROUPS;
    f->version = v;
    f->corr = wc_begin(c, WIRE_API_DELETE_GROUPS, v);
    wire_delete_groups_request_encode(&c->frame, v, &req);
}

static void wca_send_offset_delete(w_world *w, w_client *c, wc_inflight *f)
{
    wire_offset_delete_partition parts[2] = {{0}, {1}};
    wire_offset_delete_topic topics[2] = {
        {.name = kq_slice_cstr(WIRE_METADATA_TOPIC_NAME), .partitions = parts,
         .partition_count = 1},
        {.name = kq_slice_cstr(WCA_OTHER_TOPIC), .partitions = parts, .partition_count = 1}};
    f->extra_partitions = sim_prng_chance(&w->rng, WCA_EXTRA_PPM);
    if (f->extra_partitions)
        topics[0].partition_count = 2;
    wire_offset_delete_request req = {.group_id = kq_slice_cstr(c->group.group_id),
                                      .topics = topics,
                                      .topic_count = f->extra_partitions ? 2 : 1};
    f->op = WC_OP_OFFSET_DELETE;
    f->version = 0;
    f->corr = wc_begin(c, WIRE_API_OFFSET_DELETE, 0);
    wire_offset_delete_request_encode(&c->frame, 0, &req);
}

bool wca_act(w_world *w, w_client *c)
{
    /* KIP-848 members share their group (its offsets are every member's):
     * they do not delete. */
    if (!c->group.deleter || c->kind == W_CLIENT_CONSUMER_MEMBER || !w->clients_on ||
        c->stop_new ||
        !wire_api_accepted(WIRE_API_DELETE_GROUPS, 0) || wca_holds_commits(w, c) ||
        wc_count_op(c, WC_OP_OFFSET_COMMIT) > 0 || !sim_prng_chance(&w->rng, WCA_DELETE_PPM))
        return false;
    wc_inflight f = {0};
    if (sim_prng_below(&w->rng, 2))
        wca_send_delete_groups(w, c, &f);
    else
        wca_send_offset_delete(w, c, &f);
    f.node = wc_group_target(w, c);
    f.delete_handle = w_check_on_delete_sent(w, c->idx);
    w_trace(w, "client %d: %s of %s to node %d", c->idx,
            f.op == WC_OP_DELETE_GROUPS ? "DeleteGroups" : "OffsetDelete", c->group.group_id,
            f.node);
    wc_send(w, c, &f, (int32_t)sim_prng_range(&w->rng, 500, 5000));
    return true;
}

static bool wca_retriable(int16_t e)
{
    return e == KAFKA_NOT_COORDINATOR || e == KAFKA_COORDINATOR_LOAD_IN_PROGRESS ||
           e == KAFKA_COORDINATOR_NOT_AVAILABLE || e == KAFKA_REQUEST_TIMED_OUT;
}

/* The error of the group (DeleteGroups) or of __cluster_metadata/0 (an
 * OffsetDelete answered NONE at the top); false after a w_fail. */
static bool wca_decode(w_world *w, w_client *c, const wc_inflight *f, const uint8_t *bytes,
                       size_t len, int16_t *top, int16_t *mine);

/* Whether e may answer this client's deletion (see the top comment). */
static bool wca_allowed(const w_client *c, const wc_inflight *f, int16_t e)
{
    bool member = c->kind == W_CLIENT_GROUP_MEMBER;
    if (e == KAFKA_NONE || e == KAFKA_GROUP_ID_NOT_FOUND || wca_retriable(e))
        return true;
    if (f->op == WC_OP_DELETE_GROUPS)
        return member && e == KAFKA_NON_EMPTY_GROUP;
    return member && e == KAFKA_GROUP_SUBSCRIBED_TO_TOPIC &&
           c->group.subscription != WCA_SUB_OTHER;
}

void wca_on_response(w_world *w, w_client *c, const wc_inflight *f, const uint8_t *bytes,
                     size_t len)
{
    const char *api = f->op == WC_OP_DELETE_GROUPS ? "DeleteGroups" : "OffsetDelete";
    if (!bytes) {
        w_check_on_delete_done(w, c->idx, f->delete_handle, false, false);
        wc_group_rotate(w, c);
        return;
    }
    int16_t top = KAFKA_NONE, e = KAFKA_NONE;
    if (!wca_decode(w, c, f, bytes, len, &top, &e))
        return;
    int16_t err = top != KAFKA_NONE ? top : e;
    w_trace(w, "client %d: %s v%d of %s from node %d: %s", c->idx, api, f->version,
            c->group.group_id, f->node, wc_error_name(err));
    if (!wca_allowed(c, f, err)) {
        w_fail(w, "client %d: %s v%d of %s from node %d: %s (%d)", c->idx, api, f->version,
               c->group.group_id, f->node, wc_error_name(err), err);
        return;
    }
    bool deleted = err == KAFKA_NONE;
    w_check_on_delete_done(w, c->idx, f->delete_handle, true, deleted);
    if (wca_retriable(err)) {
        wc_group_rotate(w, c);
        return;
    }
    if (!deleted)
        return;
    c->group.quiet_until = w->now + sim_prng_range(&w->rng, WCA_QUIET_MIN_MS, WCA_QUIET_MAX_MS);
    if (c->kind == W_CLIENT_GROUP && sim_prng_chance(&w->rng, WCA_RETIRE_PPM)) {
        c->group.retired = true;
        w_trace(w, "client %d: retires: %s commits nothing more", c->idx, c->group.group_id);
    }
}

/* OffsetDelete's partitions: ours first, the extra ones UNKNOWN_TOPIC_OR_PARTITION. */
static bool wca_offset_delete_partitions(w_world *w, const w_client *c, const wc_inflight *f,
                                         const wire_offset_delete_response *r, int16_t *mine)
{
    int want_topics = f->extra_partitions ? 2 : 1;
    bool ok = r->topic_count == want_topics &&
              kq_slice_eq_cstr(r->topics[0].name, WIRE_METADATA_TOPIC_NAME) &&
              r->topics[0].partition_count == (f->extra_partitions ? 2 : 1) &&
              r->topics[0].partitions[0].partition_index == 0;
    if (ok && f->extra_partitions)
        ok = r->topics[0].partitions[1].partition_index == 1 &&
             r->topics[0].partitions[1].error_code == KAFKA_UNKNOWN_TOPIC_OR_PARTITION &&
             kq_slice_eq_cstr(r->topics[1].name, WCA_OTHER_TOPIC) &&
             r->topics[1].partition_count == 1 &&
             r->topics[1].partitions[0].error_code == KAFKA_UNKNOWN_TOPIC_OR_PARTITION;
    if (!ok)
        return w_fail(w, "client %d: OffsetDelete of %s from node %d: not the partitions asked "
                      "(or an unknown one not UNKNOWN_TOPIC_OR_PARTITION)", c->idx,
                      c->group.group_id, f->node);
    *mine = r->topics[0].partitions[0].error_code;
    return true;
}

static bool wca_decode(w_world *w, w_client *c, const wc_inflight *f, const uint8_t *bytes,
                       size_t len, int16_t *top, int16_t *mine)
{
    kq_reader r;
    if (f->op == WC_OP_DELETE_GROUPS) {
        if (!wc_open_response(w, c, f, WIRE_API_DELETE_GROUPS, bytes, len, &r))
            return false;
        wire_delete_groups_response resp;
        int rc = wire_delete_groups_response_decode(&r, f->version, &c->arena, &resp);
        if (!wc_body_ok(w, c, f, WIRE_API_DELETE_GROUPS, &r, rc))
            return false;
        if (resp.result_count != 1 || !kq_slice_eq_cstr(resp.results[0].group_id, c->group.group_id))
            return w_fail(w, "client %d: DeleteGroups v%d from node %d does not answer %s",
                          c->idx, f->version, f->node, c->group.group_id);
        *mine = resp.results[0].error_code;
        return true;
    }
    if (!wc_open_response(w, c, f, WIRE_API_OFFSET_DELETE, bytes, len, &r))
        return false;
    wire_offset_delete_response resp;
    int rc = wire_offset_delete_response_decode(&r, f->version, &c->arena, &resp);
    if (!wc_body_ok(w, c, f, WIRE_API_OFFSET_DELETE, &r, rc))
        return false;
    *top = resp.error_code;
    if (*top != KAFKA_NONE) {
        if (resp.topic_count != 0)
            return w_fail(w, "client %d: OffsetDelete of %s from node %d: %s with topics",
                          c->idx, c->group.group_id, f->node, wc_error_name(*top));
        return true;
    }
    return wca_offset_delete_partitions(w, c, f, &resp, mine);
}
