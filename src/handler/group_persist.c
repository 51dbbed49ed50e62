/* Group membership through the log in the handlers (issue 24;
 * kq/group_store.h): what the coordinator marked is taken as one
 * KQ_CONTROL_GROUP control batch, the handlers' own request
 * (handler_take_request), one in flight at a time; the answers that reveal
 * a change (a rebalance's JoinGroup and SyncGroup answers, a static
 * member's replacement, a LeaveGroup) are held, encoded, until a batch
 * covering the change is below the high watermark. Losing the epoch
 * answers them NOT_COORDINATOR; no commit within
 * HANDLER_GROUP_COMMIT_TIMEOUT_MS COORDINATOR_NOT_AVAILABLE (Kafka's answer
 * to a failed group-metadata append); an append the executor refuses
 * drops the coordinator, which is loaded again from the store. */
#include <stdlib.h>
#include <string.h>

#include "group_handlers.h"
#include "kq/assert.h"
#include "kq/log_line.h"

bool groups_persisting(const handler *h)
{
    return h->svc.groups != NULL;
}

static void held_free(group_held *x)
{
    free(x->frame);
    free(x);
}

/* Unlinks x (after prev, NULL: the head). */
static void held_unlink(handler_groups *g, group_held *prev, group_held *x)
{
    if (prev)
        prev->next = x->next;
    else
        g->held_head = x->next;
    if (g->held_tail == x)
        g->held_tail = prev;
    g->held_count--;
    g->held_bytes -= x->len;
}

static void held_send(handler *h, group_held *x)
{
    size_t body = x->len - 4;
    x->frame[0] = (uint8_t)(body >> 24);
    x->frame[1] = (uint8_t)(body >> 16);
    x->frame[2] = (uint8_t)(body >> 8);
    x->frame[3] = (uint8_t)body;
    if (h->svc.reply_take) {
        h->svc.reply_take(h->svc.ctx, x->slot, x->frame, x->len);
        x->frame = NULL;
    } else {
        h->svc.reply(h->svc.ctx, x->slot, x->frame + 4, body);
    }
}

/* An error answer is never held (hold_seq cleared while it is encoded). */
static void answer_error(handler *h, groups_error_fn *fn, void *slot,
                         const wire_request_header *hdr, int16_t error)
{
    uint64_t seq = h->groups->hold_seq;
    h->groups->hold_seq = 0;
    fn(h, slot, hdr, error);
    h->groups->hold_seq = seq;
}

static void held_fail(handler *h, group_held *x, int16_t error)
{
    if (!h->decision)
        kq_arena_reset(&h->arena); /* as groups_on_tick: nothing else holds it */
    answer_error(h, x->error_answer, x->slot, &x->hdr, error);
}

/* Answers (and frees) the held answers whose change is committed, or all of
 * them with error (KAFKA_NONE: only the committed ones). */
static void held_settle(handler *h, int16_t error)
{
    handler_groups *g = h->groups;
    group_held *prev = NULL, *x = g->held_head;
    while (x) {
        group_held *next = x->next;
        if (error != KAFKA_NONE || x->need_seq <= g->persist_committed_seq) {
            held_unlink(g, prev, x);
            if (error != KAFKA_NONE)
                held_fail(h, x, error);
            else
                held_send(h, x);
            held_free(x);
        } else {
            prev = x;
        }
        x = next;
    }
}

void groups_persist_reset(handler *h, int16_t error)
{
    handler_groups *g = h->groups;
    held_settle(h, error);
    g->persist_inflight = false;
    g->persist_taken_seq = g->persist_committed_seq = 0;
    group_store_batch_reset(&g->persist_take);
}

uint64_t groups_persist_seq(handler *h, const char *group_id)
{
    handler_groups *g = h->groups;
    if (!g->coord || !groups_persisting(h))
        return 0;
    uint64_t seq = group_id ? group_coord_group_seq(g->coord, group_id)
                            : group_coord_change_seq(g->coord);
    return seq > g->persist_committed_seq ? seq : 0;
}

void groups_finish(handler *h, void *slot, const wire_request_header *hdr,
                   groups_error_fn *error_answer)
{
    handler_groups *g = h->groups;
    uint64_t seq = g->hold_seq;
    if (seq == 0 || seq <= g->persist_committed_seq) {
        handler_finish_response(h, slot);
        return;
    }
    group_held *x = NULL;
    if (h->out.error || h->out.len < 4 || g->held_count >= HANDLER_GROUP_PENDING_MAX ||
        g->held_bytes + h->out.len > HANDLER_GROUP_HELD_BYTES_MAX ||
        !(x = calloc(1, sizeof(*x)))) {
        answer_error(h, error_answer, slot, hdr, KAFKA_COORDINATOR_NOT_AVAILABLE); /* retriable */
        return;
    }
    *x = (group_held){.slot = slot, .error_answer = error_answer, .need_seq = seq,
                      .deadline_ms = h->svc.now_ms(h->svc.ctx) + HANDLER_GROUP_COMMIT_TIMEOUT_MS,
                      .hdr = {.api_key = hdr->api_key, .api_version = hdr->api_version,
                              .correlation_id = hdr->correlation_id,
                              .client_id = {NULL, -1}}};
    x->frame = kq_writer_take(&h->out, &x->len);
    handler_reset_response(h);
    if (g->held_tail)
        g->held_tail->next = x;
    else
        g->held_head = x;
    g->held_tail = x;
    g->held_count++;
    g->held_bytes += x->len;
}

kq_request *groups_persist_take(handler *h)
{
    handler_groups *g = h->groups;
    if (!g->coord || !groups_persisting(h) || g->persist_inflight ||
        group_coord_change_seq(g->coord) <= g->persist_taken_seq)
        return NULL;
    group_store_batch_reset(&g->persist_take);
    uint64_t covered = 0;
    bool more = false;
    bool any = group_coord_take_changes(g->coord, &g->persist_take, &covered, &more);
    int64_t now = h->svc.now_ms(h->svc.ctx);
    kq_writer_reset(&g->persist_batch);
    if (g->persist_take.failed || (any && !group_store_batch_build(&g->persist_take,
                                                                   &g->persist_batch, now))) {
        log_line("group membership: cannot write the coordinator's changes (out of memory); "
                 "it is loaded again from the log");
        groups_coord_drop(h, KAFKA_COORDINATOR_NOT_AVAILABLE);
        return NULL;
    }
    g->persist_taken_seq = covered;
    if (!any) { /* nothing to write: those changes are as good as committed */
        if (g->persist_committed_seq < covered)
            g->persist_committed_seq = covered;
        held_settle(h, KAFKA_NONE);
        return NULL;
    }
    g->persist_req = (kq_request){
        .origin = KQ_REQUEST_FROM_GROUP_MEMBERSHIP, .action = KQ_REQUEST_APPEND,
        .append = {.records = g->persist_batch.data, .len = g->persist_batch.len,
                   .offset_count = g->persist_take.count, .producer_id = -1}};
    g->persist_inflight = true;
    g->persist_epoch = -1; /* known once appended */
    return &g->persist_req;
}

void groups_persist_now(handler *h)
{
    if (!h->decision || h->decision->kind != HANDLER_DONE)
        return; /* at the next handler_take_request */
    kq_request *req = groups_persist_take(h);
    if (req)
        handler_hand_over(h, req, HANDLER_APPEND);
}

void groups_persist_executed(handler *h, kq_request *req)
{
    handler_groups *g = h->groups;
    KQ_ASSERT(req == &g->persist_req && g->persist_inflight);
    req->phase = KQ_REQUEST_ANSWERED; /* no client: its answers are held */
    if (req->result.error != KAFKA_NONE) {
        groups_coord_drop(h, req->result.error == KAFKA_NOT_LEADER_OR_FOLLOWER
                                 ? KAFKA_NOT_COORDINATOR
                                 : KAFKA_COORDINATOR_NOT_AVAILABLE);
        return;
    }
    g->persist_epoch = req->result.epoch;
    g->persist_last_offset = req->result.last_offset;
    raft_status st;
    raft_get_status(h->svc.raft, &st);
    groups_persist_progress(h, &st);
}

void groups_persist_progress(handler *h, const raft_status *st)
{
    handler_groups *g = h->groups;
    if (!g->persist_inflight || g->persist_epoch < 0)
        return;
    if (st->role != RAFT_ROLE_LEADER || st->epoch != g->persist_epoch) {
        groups_persist_reset(h, KAFKA_NOT_COORDINATOR);
        return;
    }
    if (st->high_watermark <= g->persist_last_offset)
        return;
    g->persist_inflight = false;
    g->persist_committed_seq = g->persist_taken_seq;
    held_settle(h, KAFKA_NONE);
}

void groups_persist_tick(handler *h, int64_t now_ms)
{
    handler_groups *g = h->groups;
    group_held *x;
    /* Held in order: the first to expire is at the head. */
    while ((x = g->held_head) != NULL && x->deadline_ms <= now_ms) {
        held_unlink(g, NULL, x);
        held_fail(h, x, KAFKA_COORDINATOR_NOT_AVAILABLE);
        held_free(x);
    }
}

int64_t groups_persist_next_deadline(const handler *h)
{
    const handler_groups *g = h->groups;
    if (g->coord && groups_persisting(h) && !g->persist_inflight &&
        group_coord_change_seq(g->coord) > g->persist_taken_seq)
        return 0; /* a take waits for handler_take_request */
    return g->held_head ? g->held_head->deadline_ms : INT64_MAX;
}

void groups_persist_free(handler *h)
{
    handler_groups *g = h->groups;
    while (g->held_head) { /* dropped unanswered, as pending joins are */
        group_held *x = g->held_head;
        held_unlink(g, NULL, x);
        held_free(x);
    }
    group_store_batch_free(&g->persist_take);
    kq_writer_free(&g->persist_batch);
}

/* The answers an error takes when a held one cannot be sent. */
void groups_join_error(handler *h, void *slot, const wire_request_header *hdr, int16_t error)
{
    groups_answer_error(h, slot, hdr, GROUP_ANSWER_JOIN, error);
}

void groups_sync_error(handler *h, void *slot, const wire_request_header *hdr, int16_t error)
{
    groups_answer_error(h, slot, hdr, GROUP_ANSWER_SYNC, error);
}
