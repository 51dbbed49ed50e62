/* Committed offsets expire (issue 19; Kafka's offsets.retention.minutes,
 * checked every offsets.retention.check.interval.ms, KIP-211, KIP-496,
 * Kafka's OffsetMetadataManager.cleanupExpiredOffsets): the leader's
 * coordinator, once loaded, picks on its tick the offsets whose group has
 * an expiration condition (group_offsets_may_expire: unknown, Empty with no
 * pending member id, or Stable "consumer" with known subscriptions), whose
 * topic no member subscribes to (group_subscribes_to), that no open
 * transaction holds, and whose retention has passed since their commit, or
 * since an Empty group with a protocol type became Empty (Kafka's
 * currentStateTimestamp, even when a commit came later), and decides one
 * tombstone batch (KQ_CONTROL_OFFSET_EXPIRE, at most
 * KQ_GROUP_COMMIT_PARTITIONS_MAX records) that the executor appends
 * (handler_take_request). Every replica and restart forget those keys when
 * the batch commits. One batch is in flight at a time; a check that found
 * more runs again once it is applied. The same check forgets Empty groups
 * without offsets (Kafka's cleanupGroupMetadata). */
#include <stdlib.h>
#include <string.h>

#include "group_handlers.h"
#include "kq/assert.h"
#include "kq/log_line.h"
#include "kq/mutants.h"

/* Not leading, or loading: the check is tried again this much later. */
#define EXPIRY_NOT_READY_RETRY_MS 1000

typedef struct expiry_walk {
    bool early; /* KQ_MUTANT_OFFSETS_EXPIRE_EARLY */
    const group_coord *coord;
    const group_offsets *offsets;
    int64_t now_ms;
    int64_t retention_ms;
    group_offset *entries;
    int count;
    bool more;
} expiry_walk;

static const group_config *config(const handler *h)
{
    static group_config defaults;
    static bool made;
    if (h->svc.group.max_size > 0)
        return &h->svc.group;
    if (!made) {
        defaults = group_config_default();
        made = true;
    }
    return &defaults;
}

static int pick(void *ctx, const group_offset *e)
{
    expiry_walk *w = ctx;
    int64_t since = INT64_MIN;
    if (w->coord && (!group_offsets_may_expire(w->coord, e->group_id, &since) ||
                     group_subscribes_to(w->coord, e->group_id, e->topic)))
        return 0;
    /* Kafka keeps an offset an open transaction may still change. */
    if (group_offsets_txn_pending(w->offsets, e->group_id, e->topic, e->partition))
        return 0;
    int64_t from = since != INT64_MIN ? since : e->commit_timestamp_ms;
    if (from > w->now_ms - w->retention_ms && !w->early)
        return 0;
    if (w->count == KQ_GROUP_COMMIT_PARTITIONS_MAX) {
        w->more = true;
        return 1;
    }
    w->entries[w->count++] = *e;
    return 0;
}

/* Kafka removes a group that is Empty and has no offsets. */
static void forget_empty_groups(handler *h)
{
    group_coord *c = h->groups->coord;
    for (int i = group_count(c) - 1; i >= 0; i--) {
        group_summary s;
        if (!group_at(c, i, &s) || s.state != GROUP_EMPTY || s.member_count > 0)
            continue;
        int64_t since;
        if (group_offsets_may_expire(c, s.group_id, &since) &&
            !group_offsets_has_group(h->svc.offsets, s.group_id)) {
            char id[KQ_GROUP_NAME_BYTES_MAX];
            strcpy(id, s.group_id); /* group_delete frees s's strings */
            group_delete(c, id);
        }
    }
}

/* Whether the batch in flight is done with (applied, or its epoch lost). */
static bool inflight_done(handler *h)
{
    handler_groups *g = h->groups;
    raft_status st;
    raft_get_status(h->svc.raft, &st);
    return st.role != RAFT_ROLE_LEADER || st.epoch != g->expiry_epoch ||
           group_offsets_committed_to(h->svc.offsets) > g->expiry_last_offset;
}

void groups_expiry_tick(handler *h, int64_t now_ms)
{
    handler_groups *g = h->groups;
    const group_config *cfg = config(h);
    if (!h->svc.offsets || cfg->offsets_retention_ms <= 0 || g->expiry_open)
        return;
    if (g->expiry_inflight && !inflight_done(h))
        return;
    g->expiry_inflight = false;
    if (now_ms < g->expiry_due_ms)
        return;
    /* Leading with every commit of the epoch applied (else again soon). No
     * coordinator yet in this epoch: it is loaded from the group store when
     * the store knows groups (issue 24: their members count), else no
     * group has members. */
    int16_t ready = groups_ready(h);
    if (ready == KAFKA_NONE && !g->coord && h->svc.groups &&
        group_store_group_count(h->svc.groups) > 0)
        ready = groups_gate(h);
    if (ready != KAFKA_NONE) {
        g->expiry_due_ms = now_ms + EXPIRY_NOT_READY_RETRY_MS;
        return;
    }
    group_offset *entries = malloc(sizeof(group_offset) * KQ_GROUP_COMMIT_PARTITIONS_MAX);
    if (!entries)
        return; /* at the next tick */
    expiry_walk w = {.early = (h->svc.mutants & KQ_MUTANT_OFFSETS_EXPIRE_EARLY) != 0,
                     .coord = g->coord, .offsets = h->svc.offsets, .now_ms = now_ms,
                     .retention_ms = cfg->offsets_retention_ms, .entries = entries};
    group_offsets_foreach(h->svc.offsets, pick, &w);
    if (g->coord)
        forget_empty_groups(h);
    g->expiry_due_ms = w.more ? now_ms : now_ms + cfg->offsets_retention_check_interval_ms;
    kq_writer_reset(&g->expiry_batch);
    bool built = w.count == 0 ||
                 group_offsets_build_expire_batch(&g->expiry_batch, entries, w.count, now_ms);
    free(entries);
    if (w.count == 0 || !built)
        return; /* !built: out of memory, tried again at the next check */
    g->expiry_open = true;
    g->expiry_count = w.count;
    log_line("group offsets: %d committed offset(s) expired (offsets.retention.minutes), "
             "writing their tombstones%s", w.count, w.more ? "; more at the next check" : "");
}

kq_request *groups_expiry_take(handler *h)
{
    handler_groups *g = h->groups;
    if (!g->expiry_open || g->expiry_batch.len == 0)
        return NULL;
    g->expiry_req = (kq_request){
        .origin = KQ_REQUEST_FROM_OFFSET_EXPIRY, .action = KQ_REQUEST_APPEND,
        .append = {.records = g->expiry_batch.data, .len = g->expiry_batch.len,
                   .offset_count = g->expiry_count, .producer_id = -1}};
    return &g->expiry_req;
}

void groups_expiry_executed(handler *h, kq_request *req)
{
    handler_groups *g = h->groups;
    KQ_ASSERT(req == &g->expiry_req && g->expiry_open);
    g->expiry_open = false;
    kq_writer_reset(&g->expiry_batch);
    req->phase = KQ_REQUEST_ANSWERED; /* no client to answer */
    if (req->result.error != KAFKA_NONE)
        return; /* tried again at the next check */
    g->expiry_inflight = true;
    g->expiry_epoch = req->result.epoch;
    g->expiry_last_offset = req->result.last_offset;
}
