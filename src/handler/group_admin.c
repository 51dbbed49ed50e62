/* DeleteGroups and OffsetDelete (issue 24) wait as OffsetCommit does: their
 * tombstones (one control batch, kq/group_offsets.h) are appended through
 * the Raft core and the answer waits until the high watermark and the
 * offsets table pass the batch, so that a deletion answered NONE is never
 * undone by a failover. Losing the lead answers NOT_COORDINATOR; no commit
 * within HANDLER_GROUP_COMMIT_TIMEOUT_MS answers COORDINATOR_NOT_AVAILABLE
 * (Kafka's answers to a failed or timed-out coordinator write). Here: the
 * queue and the two answers' encoders; the decisions are in
 * group_delete.c and group_offset_delete.c. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "group_handlers.h"
#include "kq/assert.h"
#include "kq/wire_delete_groups.h"
#include "kq/wire_offset_delete.h"

#define ADMIN_MASK (HANDLER_GROUP_ADMIN_PENDING_MAX - 1)

void groups_admin_init(handler *h)
{
    kq_writer_init(&h->groups->admin_batch, RECORD_BATCH_BYTES_MAX);
}

static void admin_free(admin_pending *p)
{
    free(p->results);
    free(p->names);
    p->results = NULL;
    p->names = NULL;
}

void groups_admin_free(handler *h)
{
    handler_groups *g = h->groups;
    for (uint32_t k = g->admin_head; k != g->admin_tail; k++)
        admin_free(&g->admin_queue[k & ADMIN_MASK]);
    g->admin_head = g->admin_tail = 0;
    kq_writer_free(&g->admin_batch);
}

bool groups_admin_alloc(admin_pending *p, int count, size_t names)
{
    p->count = count;
    p->results = calloc((size_t)(count > 0 ? count : 1), sizeof(*p->results));
    p->names = malloc(names ? names : 1);
    if (!p->results || !p->names) {
        admin_free(p);
        return false;
    }
    return true;
}

bool groups_admin_room(const handler *h)
{
    const handler_groups *g = h->groups;
    return g->admin_tail - g->admin_head < HANDLER_GROUP_ADMIN_PENDING_MAX;
}

static bool respond_delete_groups(handler *h, const admin_pending *p)
{
    wire_delete_groups_response resp = {0};
    resp.results = kq_arena_alloc(&h->arena, sizeof(*resp.results) * (size_t)(p->count ? p->count : 1));
    if (!resp.results)
        return false;
    for (int i = 0; i < p->count; i++)
        resp.results[i] = (wire_delete_groups_result){.group_id = p->results[i].name,
                                                      .error_code = p->results[i].error,
                                                      .error_message = {NULL, -1}};
    resp.result_count = p->count;
    wire_request_header hdr = {.api_key = WIRE_API_DELETE_GROUPS, .api_version = p->version,
                               .correlation_id = p->correlation_id};
    handler_begin_response(h, &hdr);
    wire_delete_groups_response_encode(&h->out, p->version, &resp);
    return true;
}

/* Partitions grouped under their request topic, in request order; with a
 * top-level error, no topics (Kafka's getErrorResponse). */
static bool respond_offset_delete(handler *h, const admin_pending *p)
{
    wire_offset_delete_response resp = {.error_code = p->error};
    int n = p->error == KAFKA_NONE ? p->count : 0;
    resp.topics = kq_arena_alloc(&h->arena, sizeof(*resp.topics) * (size_t)(n ? n : 1));
    wire_offset_delete_partition_response *parts =
        kq_arena_alloc(&h->arena, sizeof(*parts) * (size_t)(n ? n : 1));
    if (!resp.topics || !parts)
        return false;
    for (int i = 0; i < n; i++) {
        const admin_result *r = &p->results[i];
        if (i == 0 || r->topic != p->results[i - 1].topic)
            resp.topics[resp.topic_count++] =
                (wire_offset_delete_topic_response){.name = r->name, .partitions = &parts[i]};
        parts[i] = (wire_offset_delete_partition_response){.partition_index = r->partition,
                                                           .error_code = r->error};
        resp.topics[resp.topic_count - 1].partition_count++;
    }
    wire_request_header hdr = {.api_key = WIRE_API_OFFSET_DELETE, .api_version = p->version,
                               .correlation_id = p->correlation_id};
    handler_begin_response(h, &hdr);
    wire_offset_delete_response_encode(&h->out, p->version, &resp);
    return true;
}

void groups_admin_finish(handler *h, admin_pending *p, int16_t error)
{
    /* With a membership tombstone to wait for, every deleted group's
     * answer depends on it (its offsets' too). */
    for (int i = 0; i < p->count; i++)
        if (p->results[i].appended || (p->hold_seq && p->results[i].error == KAFKA_NONE))
            p->results[i].error = error;
    bool ok = p->api_key == WIRE_API_DELETE_GROUPS ? respond_delete_groups(h, p)
                                                   : respond_offset_delete(h, p);
    if (ok)
        handler_finish_response(h, p->slot);
    else
        h->svc.reply_close(h->svc.ctx, p->slot, "out of memory");
    admin_free(p);
}

static admin_pending *queue_front(handler_groups *g)
{
    return g->admin_head == g->admin_tail ? NULL : &g->admin_queue[g->admin_head & ADMIN_MASK];
}

void groups_admin_progress(handler *h, const raft_status *st)
{
    handler_groups *g = h->groups;
    int64_t applied = h->svc.offsets ? group_offsets_committed_to(h->svc.offsets) : INT64_MAX;
    admin_pending *p;
    while ((p = queue_front(g)) != NULL) {
        if (st->role != RAFT_ROLE_LEADER || st->epoch != p->epoch)
            groups_admin_finish(h, p, KAFKA_NOT_COORDINATOR);
        else if (p->hold_seq && p->coord_made != g->coords_made)
            groups_admin_finish(h, p, KAFKA_COORDINATOR_NOT_AVAILABLE); /* loaded again */
        else if (st->high_watermark > p->last_offset && applied > p->last_offset &&
                 p->hold_seq <= g->persist_committed_seq)
            groups_admin_finish(h, p, KAFKA_NONE);
        else
            break;
        g->admin_head++;
    }
}

void groups_admin_expire(handler *h, int64_t now_ms)
{
    handler_groups *g = h->groups;
    admin_pending *p;
    if (queue_front(g)) { /* a membership tombstone may have committed without a new HW */
        raft_status st;
        raft_get_status(h->svc.raft, &st);
        if (!h->decision)
            kq_arena_reset(&h->arena); /* as groups_on_tick: nothing else holds it */
        groups_admin_progress(h, &st);
    }
    /* Deadlines follow the append order: the front expires first. */
    while ((p = queue_front(g)) != NULL && p->deadline_ms <= now_ms) {
        groups_admin_finish(h, p, KAFKA_COORDINATOR_NOT_AVAILABLE);
        g->admin_head++;
    }
}

int64_t groups_admin_deadline(const handler *h)
{
    const handler_groups *g = h->groups;
    return g->admin_head == g->admin_tail ? INT64_MAX
                                          : g->admin_queue[g->admin_head & ADMIN_MASK].deadline_ms;
}

void groups_admin_submit(handler *h, admin_pending *p, int count)
{
    handler_groups *g = h->groups;
    if (count == 0 && p->hold_seq == 0) {
        groups_admin_finish(h, p, KAFKA_NONE);
        return;
    }
    if (count == 0) { /* only the membership tombstones to wait for */
        raft_status st;
        raft_get_status(h->svc.raft, &st);
        p->epoch = st.epoch;
        p->last_offset = -1;
        p->deadline_ms = h->svc.now_ms(h->svc.ctx) + HANDLER_GROUP_COMMIT_TIMEOUT_MS;
        KQ_ASSERT(groups_admin_room(h)); /* checked at the decision, in this frame */
        g->admin_queue[g->admin_tail & ADMIN_MASK] = *p;
        g->admin_tail++;
        groups_persist_now(h);
        groups_admin_progress(h, &st);
        return;
    }
    admin_request *held = malloc(sizeof(*held));
    if (!held) {
        groups_admin_finish(h, p, KAFKA_COORDINATOR_NOT_AVAILABLE);
        return;
    }
    *held = (admin_request){
        .req = {.slot = p->slot, .api_key = p->api_key, .api_version = p->version,
                .correlation_id = p->correlation_id, .origin = KQ_REQUEST_FROM_GROUP_ADMIN,
                .action = KQ_REQUEST_APPEND,
                .append = {.records = g->admin_batch.data, .len = g->admin_batch.len,
                           .offset_count = count, .producer_id = -1}},
        .pending = *p};
    handler_hand_over(h, &held->req, HANDLER_APPEND);
}

void groups_admin_executed(handler *h, kq_request *req)
{
    handler_groups *g = h->groups;
    KQ_ASSERT(req->origin == KQ_REQUEST_FROM_GROUP_ADMIN);
    admin_request *held = (admin_request *)((char *)req - offsetof(admin_request, req));
    admin_pending p = held->pending;
    kq_request_result res = req->result;
    free(held);
    kq_writer_reset(&g->admin_batch);
    if (res.error != KAFKA_NONE) {
        groups_admin_finish(h, &p, res.error == KAFKA_NOT_LEADER_OR_FOLLOWER
                                       ? KAFKA_NOT_COORDINATOR
                                       : KAFKA_COORDINATOR_NOT_AVAILABLE);
        return;
    }
    p.epoch = res.epoch;
    p.last_offset = res.last_offset;
    p.deadline_ms = h->svc.now_ms(h->svc.ctx) + HANDLER_GROUP_COMMIT_TIMEOUT_MS;
    KQ_ASSERT(groups_admin_room(h)); /* checked at the decision, in this frame */
    g->admin_queue[g->admin_tail & ADMIN_MASK] = p;
    g->admin_tail++;
    raft_status st;
    raft_get_status(h->svc.raft, &st);
    groups_admin_progress(h, &st);
}
