/* The group coordinator's life in the handlers: it exists only while this
 * node leads, one per epoch, loaded from the group store (issue 24: the
 * members of every group, so that they keep their generation across a
 * failover); group APIs wait until the leader's offsets table holds every
 * commit up to the high watermark of its epoch and the store only
 * committed records ("loaded"). JoinGroup and
 * SyncGroup wait in a bounded table keyed by token until the coordinator
 * answers them; losing the lead answers them NOT_COORDINATOR. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "group_handlers.h"
#include "kq/assert.h"
#include "kq/group_consumer.h"
#include "kq/log_line.h"
#include "kq/mutants.h"

bool groups_create(handler *h)
{
    h->groups = calloc(1, sizeof(*h->groups));
    if (!h->groups)
        return false;
    h->groups->wake_at_ms = INT64_MAX;
    kq_writer_init(&h->groups->batch, RECORD_BATCH_BYTES_MAX);
    kq_writer_init(&h->groups->expiry_batch, RECORD_BATCH_BYTES_MAX);
    group_store_batch_init(&h->groups->persist_take);
    kq_writer_init(&h->groups->persist_batch, RECORD_BATCH_BYTES_MAX);
    groups_admin_init(h);
    return true;
}

/* Answers every waiting JoinGroup/SyncGroup with error and forgets them. */
static void pending_fail_all(handler *h, int16_t error)
{
    handler_groups *g = h->groups;
    for (int i = 0; i < HANDLER_GROUP_PENDING_MAX && g->pending_count > 0; i++) {
        group_pending *p = &g->pending[i];
        if (!p->in_use)
            continue;
        wire_request_header hdr = {
            .api_key = p->kind == GROUP_ANSWER_JOIN ? WIRE_API_JOIN_GROUP : WIRE_API_SYNC_GROUP,
            .api_version = p->version,
            .correlation_id = p->correlation_id};
        p->in_use = false;
        g->pending_count--;
        groups_answer_error(h, p->slot, &hdr, p->kind, error);
    }
}

void groups_coord_drop(handler *h, int16_t error)
{
    handler_groups *g = h->groups;
    if (!g->coord)
        return;
    group_coord_destroy(g->coord);
    g->coord = NULL;
    g->wake_at_ms = INT64_MAX;
    pending_fail_all(h, error);
    groups_persist_reset(h, error);
}

void groups_destroy(handler *h)
{
    if (!h->groups)
        return;
    /* Requests still waiting are dropped unanswered. */
    if (h->groups->coord)
        group_coord_destroy(h->groups->coord);
    groups_commits_free(h);
    groups_persist_free(h);
    groups_admin_free(h);
    kq_writer_free(&h->groups->batch);
    kq_writer_free(&h->groups->expiry_batch);
    free(h->groups);
    h->groups = NULL;
}

/* The coordinator belongs to the epoch it was made in, as leader. */
static void coord_check_role(handler *h, const raft_status *st)
{
    handler_groups *g = h->groups;
    if (g->coord && (st->role != RAFT_ROLE_LEADER || st->epoch != g->coord_epoch))
        groups_coord_drop(h, KAFKA_NOT_COORDINATOR);
}

/* Offset of the leader's first batch in its epoch (-1: none yet). */
static int64_t epoch_start(const handler *h, int32_t epoch)
{
    raft_epoch_entry e;
    if (kq_log_epochs(h->svc.log, &e, 1) != 1 || e.epoch != epoch)
        return -1;
    return e.start_offset;
}

/* Without an offsets table (a harness) there is nothing to wait for. */
static bool offsets_loaded(const handler *h, const raft_status *st)
{
    if (!h->svc.offsets)
        return true;
    return group_offsets_committed_to(h->svc.offsets) >= st->high_watermark;
}

/* Issue 24: a new coordinator waits until every record of the group store
 * lies below the high watermark (all of the log before the epoch once the
 * epoch's first batch commits; after a refused append, the batches before
 * it). */
static bool store_loaded(const handler *h, const raft_status *st)
{
    return !h->svc.groups || group_store_last_offset(h->svc.groups) < st->high_watermark;
}

static bool coord_make(handler *h, int32_t epoch)
{
    handler_groups *g = h->groups;
    group_config c = h->svc.group.max_size > 0 ? h->svc.group : group_config_default();
    /* Member ids differ between nodes, epochs and coordinators. */
    g->coords_made++;
    c.random_seed ^= ((uint64_t)(uint32_t)epoch << 32) ^ (uint64_t)(uint32_t)h->svc.node_id ^
                     ((uint64_t)g->coords_made << 20);
    if (h->svc.groups)
        c.persist_bytes_max = KQ_GROUP_STORE_BYTES_MAX;
    c.mutants = h->svc.mutants; /* KQ_MUTANT_DOUBLE_ASSIGNMENT (simulator only) */
    g->coord = group_coord_create(&c);
    if (!g->coord)
        return false;
    /* The one topic KIP-848's assignors hand out, by the id Metadata
     * answers (assignments name topics by id). */
    group_topic topic = {.name = h->svc.topic_name, .partition_count = 1};
    memcpy(topic.id, h->svc.topic_id.bytes, sizeof topic.id);
    bool topics_set = group_consumer_set_topics(g->coord, &topic, 1);
    KQ_ASSERT(topics_set); /* one topic of one partition is within every bound */
    g->coord_epoch = epoch;
    g->wake_at_ms = INT64_MAX;
    groups_persist_reset(h, KAFKA_NOT_COORDINATOR); /* nothing is held here */
    int64_t now = h->svc.now_ms(h->svc.ctx);
    if (h->svc.groups && !(h->svc.mutants & KQ_MUTANT_MEMBERSHIP_NOT_REPLICATED)) {
        int n = group_coord_restore(g->coord, h->svc.groups, now);
        if (n > 0)
            log_line("group coordinator: loaded %d group(s) from the log (epoch %d)", n, epoch);
    }
    groups_deliver(h, group_tick(g->coord, now)); /* its timers (no answers) */
    return true;
}

int16_t groups_ready(handler *h)
{
    raft_status st;
    raft_get_status(h->svc.raft, &st);
    coord_check_role(h, &st);
    if (st.role != RAFT_ROLE_LEADER)
        return KAFKA_NOT_COORDINATOR;
    int64_t start = epoch_start(h, st.epoch);
    if (start < 0 || st.high_watermark <= start || !offsets_loaded(h, &st))
        return KAFKA_COORDINATOR_LOAD_IN_PROGRESS;
    return KAFKA_NONE;
}

int16_t groups_gate(handler *h)
{
    raft_status st;
    raft_get_status(h->svc.raft, &st);
    coord_check_role(h, &st);
    if (st.role != RAFT_ROLE_LEADER)
        return KAFKA_NOT_COORDINATOR;
    int64_t start = epoch_start(h, st.epoch);
    if (start < 0 || st.high_watermark <= start || !offsets_loaded(h, &st))
        return KAFKA_COORDINATOR_LOAD_IN_PROGRESS;
    if (!h->groups->coord && !store_loaded(h, &st))
        return KAFKA_COORDINATOR_LOAD_IN_PROGRESS;
    if (!h->groups->coord && !coord_make(h, st.epoch))
        return KAFKA_COORDINATOR_NOT_AVAILABLE;
    return KAFKA_NONE;
}

uint64_t groups_pending_add(handler *h, handler_request *req, enum group_answer_kind kind,
                            const char *group_id)
{
    handler_groups *g = h->groups;
    if (g->pending_count >= HANDLER_GROUP_PENDING_MAX)
        return 0;
    for (int i = 0; i < HANDLER_GROUP_PENDING_MAX; i++) {
        group_pending *p = &g->pending[i];
        if (p->in_use)
            continue;
        g->generation = g->generation == UINT32_MAX ? 1 : g->generation + 1;
        *p = (group_pending){.in_use = true, .generation = g->generation, .kind = kind,
                             .slot = req->slot, .version = req->header.api_version,
                             .correlation_id = req->header.correlation_id};
        size_t n = strlen(group_id);
        KQ_ASSERT(n < sizeof(p->group_id)); /* the coordinator refuses longer ids first */
        memcpy(p->group_id, group_id, n + 1);
        g->pending_count++;
        return ((uint64_t)p->generation << 16) | (uint64_t)i;
    }
    KQ_ASSERT(false); /* pending_count says there is a free entry */
    return 0;
}

void groups_deliver(handler *h, const group_output *out)
{
    handler_groups *g = h->groups;
    for (int i = 0; i < out->answer_count; i++) {
        const group_answer *a = &out->answers[i];
        uint64_t index = a->token & 0xffff;
        KQ_ASSERT(index < HANDLER_GROUP_PENDING_MAX);
        group_pending *p = &g->pending[index];
        KQ_ASSERT(p->in_use && p->generation == (uint32_t)(a->token >> 16) && p->kind == a->kind);
        if (a->limit)
            groups_log_limit(h, p->slot, a->kind == GROUP_ANSWER_JOIN ? "JoinGroup" : "SyncGroup",
                             p->group_id, a->limit);
        /* Issue 24: an answer revealing a change waits for its record. */
        g->hold_seq = a->error == KAFKA_NONE ? groups_persist_seq(h, p->group_id) : 0;
        groups_answer(h, p, a);
        g->hold_seq = 0;
        p->in_use = false;
        g->pending_count--;
    }
    g->wake_at_ms = out->wake_at_ms;
}

void groups_on_progress(handler *h, const raft_status *st)
{
    coord_check_role(h, st);
    groups_commits_progress(h, st);
    groups_persist_progress(h, st);
    groups_admin_progress(h, st);
}

void groups_on_tick(handler *h, int64_t now_ms)
{
    raft_status st;
    raft_get_status(h->svc.raft, &st);
    coord_check_role(h, &st);
    handler_groups *g = h->groups;
    if (g->coord && g->wake_at_ms <= now_ms) {
        /* Answers are encoded with the arena's help; outside a frame
         * nothing else holds it (else ticks alone would fill it). */
        if (!h->decision)
            kq_arena_reset(&h->arena);
        groups_deliver(h, group_tick(g->coord, now_ms));
        /* A wake-up that is still due could not be served now: later, not
         * at once again (the executor would spin). */
        if (g->wake_at_ms <= now_ms)
            g->wake_at_ms = now_ms + 1;
    }
    groups_commits_expire(h, now_ms);
    groups_persist_tick(h, now_ms);
    groups_admin_expire(h, now_ms);
    groups_expiry_tick(h, now_ms);
}

const struct group_coord *handler_group_coord(const handler *h, int32_t *epoch)
{
    const handler_groups *g = h->groups;
    *epoch = g && g->coord ? g->coord_epoch : -1;
    return g ? g->coord : NULL;
}

int64_t groups_next_deadline(const handler *h)
{
    const handler_groups *g = h->groups;
    int64_t due = g->coord ? g->wake_at_ms : INT64_MAX;
    if (g->coord && h->svc.offsets && !g->expiry_inflight && g->expiry_due_ms < due &&
        (h->svc.group.max_size > 0 ? h->svc.group.offsets_retention_ms > 0 : true))
        due = g->expiry_due_ms;
    if (g->head != g->tail) {
        int64_t d = g->queue[g->head & (GROUP_COMMIT_QUEUE_CAP - 1)].deadline_ms;
        if (d < due)
            due = d;
    }
    int64_t p = groups_persist_next_deadline(h);
    if (p < due)
        due = p;
    int64_t a = groups_admin_deadline(h);
    return a < due ? a : due;
}

void groups_log_limit(handler *h, void *slot, const char *api, const char *group_id,
                      const char *limit)
{
    handler_groups *g = h->groups;
    int64_t now = h->svc.now_ms(h->svc.ctx);
    if (g->limit_logged && now - g->limit_logged_ms < KQ_GROUP_LIMIT_LOG_INTERVAL_MS) {
        g->limit_suppressed++;
        return;
    }
    handler_conn conn = {0};
    if (h->svc.slot_conn)
        h->svc.slot_conn(h->svc.ctx, slot, &conn);
    char suppressed[64] = "";
    if (g->limit_suppressed)
        snprintf(suppressed, sizeof(suppressed), " (%llu more such lines left out before)",
                 (unsigned long long)g->limit_suppressed);
    log_line("%s for group %s from %s at %s refused: limit %s reached%s", api, group_id,
             conn.principal ? conn.principal : "User:ANONYMOUS",
             h->svc.slot_peer(h->svc.ctx, slot), limit, suppressed);
    g->limit_logged = true;
    g->limit_logged_ms = now;
    g->limit_suppressed = 0;
}

bool groups_cstr(handler *h, kq_slice s, const char **out)
{
    *out = NULL;
    if (s.len < 0)
        return true;
    if (s.len > 0 && memchr(s.ptr, 0, (size_t)s.len))
        return false;
    char *c = kq_arena_alloc(&h->arena, (size_t)s.len + 1);
    if (!c)
        return false;
    if (s.len > 0)
        memcpy(c, s.ptr, (size_t)s.len);
    c[s.len] = '\0';
    *out = c;
    return true;
}

bool groups_id_storable(const char *group_id)
{
    return group_id && group_id[0] && strlen(group_id) < KQ_GROUP_NAME_BYTES_MAX;
}

void groups_malformed(handler *h, handler_request *req, const char *what)
{
    LOG_LINE_LIMITED("request from %s: malformed %s v%d", h->svc.slot_peer(h->svc.ctx, req->slot), what,
             req->header.api_version);
    h->svc.reply_close(h->svc.ctx, req->slot, "malformed request");
}
