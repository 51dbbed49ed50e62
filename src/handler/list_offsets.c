/* ListOffsets: earliest and latest (committed) at once; by timestamp (-3,
 * the batch holding the max timestamp, or the first batch whose max
 * timestamp is >= t) as a search of the log that the executor runs off the
 * loop (issue 19: nothing proportional to the log's size on the event
 * loop). A first pass answers what it can; when a search is needed the
 * frame is parked and HANDLER_TIME_SEARCH decided; handler_time_search_result
 * handles the frame again with the results. */
#include <stdlib.h>
#include <string.h>

#include "handler_internal.h"
#include "kq/assert.h"
#include "kq/record.h"
#include "kq/wire_list_offsets.h"

#define LIST_OFFSETS_LATEST (-1)
#define LIST_OFFSETS_EARLIEST (-2)
#define LIST_OFFSETS_MAX_TIMESTAMP (-3)

static bool is_search(int64_t timestamp)
{
    return timestamp >= 0 || timestamp == LIST_OFFSETS_MAX_TIMESTAMP;
}

int handler_time_search_batch(void *search, const uint8_t *batch, size_t len)
{
    handler_time_search *s = search;
    record_batch_header h;
    if (record_batch_parse_header(batch, len, &h) != RECORD_OK || h.base_offset >= s->limit)
        return 1;
    bool open = false;
    for (int i = 0; i < s->count; i++) {
        if (s->timestamp[i] == LIST_OFFSETS_MAX_TIMESTAMP) {
            if (h.max_timestamp > s->found_timestamp[i] || s->found_offset[i] < 0) {
                s->found_timestamp[i] = h.max_timestamp;
                s->found_offset[i] = h.base_offset;
            }
            open = true; /* every batch below the limit counts */
        } else if (s->found_offset[i] < 0) {
            if (h.max_timestamp >= s->timestamp[i]) {
                s->found_offset[i] = h.base_offset;
                s->found_timestamp[i] = h.max_timestamp;
            } else {
                open = true;
            }
        }
    }
    return open ? 0 : 1;
}

/* The index of timestamp among the targets of s (added when add), or -1. */
static int target(handler_time_search *s, int64_t timestamp, bool add)
{
    for (int i = 0; i < s->count; i++)
        if (s->timestamp[i] == timestamp)
            return i;
    if (!add || s->count == HANDLER_TIME_SEARCH_TARGETS_MAX)
        return -1;
    s->timestamp[s->count] = timestamp;
    s->found_offset[s->count] = -1;
    s->found_timestamp[s->count] = -1;
    return s->count++;
}

/* A search entry: from the results on the second pass; on the first, added
 * to plan (*wait set) or refused. */
static int16_t searched(handler *h, int64_t timestamp, handler_time_search *plan, bool can_park,
                        bool *wait, int64_t *offset, int64_t *found_ts)
{
    const handler_time_search *res = h->search_result;
    if (res) {
        int i = target((handler_time_search *)res, timestamp, false);
        if (i < 0)
            return KAFKA_INVALID_REQUEST; /* beyond the targets of one request */
        if (h->search_rc < 0)
            return KAFKA_KAFKA_STORAGE_ERROR;
        *offset = res->found_offset[i];
        *found_ts = res->found_timestamp[i];
        return KAFKA_NONE;
    }
    if (!can_park)
        return KAFKA_REQUEST_TIMED_OUT; /* every search slot taken: retriable */
    if (target(plan, timestamp, true) < 0)
        return KAFKA_INVALID_REQUEST;
    *wait = true;
    return KAFKA_NONE;
}

static int16_t lookup_offset(handler *h, const raft_status *st, int64_t timestamp,
                             bool read_committed, handler_time_search *plan, bool can_park,
                             bool *wait, int64_t *offset, int64_t *found_ts)
{
    *found_ts = -1;
    if (st->role != RAFT_ROLE_LEADER)
        return KAFKA_NOT_LEADER_OR_FOLLOWER;
    /* A new leader knows its high watermark only once an entry of its own
     * epoch commits; until then "latest" is unknown (KIP-207: retriable). */
    if (st->high_watermark < 0 && timestamp != LIST_OFFSETS_EARLIEST)
        return KAFKA_OFFSET_NOT_AVAILABLE;
    if (timestamp == LIST_OFFSETS_EARLIEST) {
        *offset = kq_log_start_offset(h->svc.log);
        return KAFKA_NONE;
    }
    if (timestamp == LIST_OFFSETS_LATEST || !is_search(timestamp)) {
        /* read_committed (isolation level 1): the last stable offset, as
         * Kafka answers it (issue 23). */
        *offset = read_committed ? handler_lso(h, st->high_watermark) : st->high_watermark;
        return KAFKA_NONE;
    }
    return searched(h, timestamp, plan, can_park, wait, offset, found_ts);
}

/* Keeps a copy of the frame for the second pass and decides the search. */
static void park(handler *h, handler_request *req, handler_time_search *plan,
                 const raft_status *st)
{
    uint8_t *copy = malloc(req->len);
    if (!copy) {
        h->svc.reply_close(h->svc.ctx, req->slot, "out of memory parking a ListOffsets");
        return;
    }
    memcpy(copy, req->frame, req->len);
    time_search_parked *p = NULL;
    for (int i = 0; i < HANDLER_TIME_SEARCHES_PARKED_MAX && !p; i++)
        if (h->searches[i].token == 0)
            p = &h->searches[i];
    KQ_ASSERT(p && h->decision);
    *p = (time_search_parked){.token = ++h->search_token, .slot = req->slot,
                              .frame = copy, .len = req->len};
    h->search_count++;
    plan->token = p->token;
    plan->from = kq_log_start_offset(h->svc.log);
    plan->limit = st->high_watermark;
    h->decision->kind = HANDLER_TIME_SEARCH;
    h->decision->search = *plan;
}

/* One partition's answer (entry rp of a topic named name). */
static void answer_partition(handler *h, const wire_list_offsets_topic *rt,
                             const wire_list_offsets_partition *rp,
                             wire_list_offsets_partition_response *pr, int64_t *old,
                             const raft_status *st, bool may_describe, int16_t v,
                             bool read_committed, handler_time_search *plan, bool can_park,
                             bool *wait)
{
    *pr = (wire_list_offsets_partition_response){
        .partition_index = rp->partition_index, .timestamp = -1, .offset = -1,
        .leader_epoch = -1};
    if (!handler_is_metadata_topic(h, rt->name) || rp->partition_index != 0) {
        pr->error_code = KAFKA_UNKNOWN_TOPIC_OR_PARTITION;
        return;
    }
    if (!may_describe) {
        pr->error_code = KAFKA_TOPIC_AUTHORIZATION_FAILED;
        return;
    }
    if (rp->current_leader_epoch >= 0 && rp->current_leader_epoch != st->epoch) {
        pr->error_code = rp->current_leader_epoch < st->epoch ? KAFKA_FENCED_LEADER_EPOCH
                                                              : KAFKA_UNKNOWN_LEADER_EPOCH;
        return;
    }
    int64_t offset = -1, ts = -1;
    pr->error_code =
        lookup_offset(h, st, rp->timestamp, read_committed, plan, can_park, wait, &offset, &ts);
    if (pr->error_code == KAFKA_NONE) {
        pr->offset = offset;
        pr->timestamp = ts;
        pr->leader_epoch = st->epoch;
        if (v == 0 && offset >= 0) {
            *old = offset;
            pr->old_style_offsets = old;
            pr->old_style_offset_count = 1;
        }
    }
}

void handle_list_offsets(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_list_offsets_request body;
    if (wire_list_offsets_request_decode(r, v, &h->arena, &body) != 0) {
        h->svc.reply_close(h->svc.ctx, req->slot, "malformed ListOffsets request");
        return;
    }
    raft_status st;
    raft_get_status(h->svc.raft, &st);
    wire_list_offsets_topic_response *topics =
        kq_arena_alloc(&h->arena, sizeof(*topics) * (size_t)(body.topic_count + 1));
    if (!topics) {
        h->svc.reply_close(h->svc.ctx, req->slot, "ListOffsets request too large");
        return;
    }
    bool may_describe = handler_authorized(h, req->slot, HANDLER_OP_DESCRIBE, "ListOffsets");
    bool can_park = h->search_result || (h->decision && req->frame &&
                                         h->search_count < HANDLER_TIME_SEARCHES_PARKED_MAX);
    handler_time_search plan = {.count = 0};
    bool wait = false;
    for (int32_t t = 0; t < body.topic_count; t++) {
        const wire_list_offsets_topic *rt = &body.topics[t];
        wire_list_offsets_partition_response *parts =
            kq_arena_alloc(&h->arena, sizeof(*parts) * (size_t)(rt->partition_count + 1));
        int64_t *old = kq_arena_alloc(&h->arena, sizeof(int64_t) * (size_t)(rt->partition_count + 1));
        if (!parts || !old) {
            h->svc.reply_close(h->svc.ctx, req->slot, "ListOffsets request too large");
            return;
        }
        topics[t] = (wire_list_offsets_topic_response){
            .name = rt->name, .partitions = parts, .partition_count = rt->partition_count};
        for (int32_t p = 0; p < rt->partition_count; p++)
            answer_partition(h, rt, &rt->partitions[p], &parts[p], &old[p], &st, may_describe,
                             v, v >= 2 && body.isolation_level == 1, &plan, can_park, &wait);
    }
    if (wait) {
        park(h, req, &plan, &st);
        return;
    }
    wire_list_offsets_response resp = {.topics = topics, .topic_count = body.topic_count};
    handler_begin_response(h, &req->header);
    wire_list_offsets_response_encode(&h->out, v, &resp);
    handler_finish_response(h, req->slot);
}

void handler_time_search_result(handler *h, const handler_time_search *s, int rc)
{
    time_search_parked *p = NULL;
    for (int i = 0; i < HANDLER_TIME_SEARCHES_PARKED_MAX && !p; i++)
        if (s->token != 0 && h->searches[i].token == s->token)
            p = &h->searches[i];
    KQ_ASSERT(p); /* each search is answered exactly once */
    time_search_parked done = *p;
    *p = (time_search_parked){.token = 0};
    h->search_count--;
    kq_reader r;
    kq_reader_init(&r, done.frame, done.len);
    handler_request req = {.slot = done.slot};
    if (wire_request_header_decode(&r, &req.header) == 0) {
        kq_arena_reset(&h->arena);
        h->search_result = s;
        h->search_rc = rc;
        handle_list_offsets(h, &req, &r);
        h->search_result = NULL;
    } else {
        h->svc.reply_close(h->svc.ctx, done.slot, "parked ListOffsets lost");
    }
    free(done.frame);
}

void list_offsets_destroy(handler *h)
{
    /* Requests still waiting are dropped unanswered, as parked fetches. */
    for (int i = 0; i < HANDLER_TIME_SEARCHES_PARKED_MAX; i++)
        free(h->searches[i].frame);
}
