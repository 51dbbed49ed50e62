/* Produce: validate batches, apply idempotence, append through the Raft core,
 * and answer per acks: 0 never, 1 once the leader's log is flushed past the
 * batch, -1 once the high watermark passes it. A leader that loses its epoch
 * answers what is waiting with NOT_LEADER_OR_FOLLOWER, never with success. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handler_internal.h"
#include "txn_handlers.h"
#include "kq/assert.h"
#include "kq/log_line.h"
#include "kq/mutants.h"
#include "kq/producer_state.h"
#include "kq/record.h"
#include "kq/wire_produce.h"

static bool queue_push(produce_queue *q, const produce_pending *p)
{
    if (q->tail - q->head == q->cap) {
        uint32_t cap = q->cap ? q->cap * 2 : 64;
        if (cap > HANDLER_PRODUCE_PENDING_MAX)
            return false;
        produce_pending *items = malloc(sizeof(*items) * cap);
        if (!items)
            return false;
        for (uint32_t i = 0; i < q->tail - q->head; i++)
            items[i] = q->items[(q->head + i) & (q->cap - 1)];
        free(q->items);
        q->tail -= q->head;
        q->head = 0;
        q->items = items;
        q->cap = cap;
    }
    q->items[q->tail & (q->cap - 1)] = *p;
    q->tail++;
    return true;
}

static produce_pending *queue_front(produce_queue *q)
{
    return q->head == q->tail ? NULL : &q->items[q->head & (q->cap - 1)];
}

/* Fills the NOT_LEADER_OR_FOLLOWER hints (KIP-951) from the core's view. */
static void set_leader_hint(handler *h, wire_produce_partition_response *pr)
{
    raft_status st;
    raft_get_status(h->svc.raft, &st);
    if (st.leader_id >= 0 && st.leader_id != h->svc.node_id) {
        pr->current_leader_id = st.leader_id;
        pr->current_leader_epoch = st.epoch;
    }
}

static void produce_respond(handler *h, void *slot, int16_t version, int32_t correlation_id,
                            const produce_partition_result *parts, int count)
{
    wire_produce_topic_response topics[HANDLER_PRODUCE_PARTITIONS_MAX];
    wire_produce_partition_response partitions[HANDLER_PRODUCE_PARTITIONS_MAX];
    int topic_count = 0;
    bool hint_endpoints = false;
    for (int i = 0; i < count; i++) {
        const produce_partition_result *p = &parts[i];
        wire_produce_topic_response *t = NULL;
        if (topic_count > 0 && kq_slice_eq_cstr(topics[topic_count - 1].name, p->topic))
            t = &topics[topic_count - 1];
        if (!t) {
            t = &topics[topic_count++];
            t->name = kq_slice_cstr(p->topic);
            t->partitions = &partitions[i];
            t->partition_count = 0;
        }
        wire_produce_partition_response *pr = &partitions[i];
        *pr = (wire_produce_partition_response){
            .index = p->index,
            .error_code = p->error,
            .base_offset = p->error == KAFKA_NONE ? p->base_offset : -1,
            .log_append_time_ms = -1,
            .log_start_offset = kq_log_start_offset(h->svc.log),
            .error_message = p->message ? kq_slice_cstr(p->message) : (kq_slice){NULL, -1},
            .current_leader_id = -1,
            .current_leader_epoch = -1,
        };
        if (p->error == KAFKA_NOT_LEADER_OR_FOLLOWER) {
            set_leader_hint(h, pr);
            hint_endpoints = pr->current_leader_id >= 0;
        }
        t->partition_count++;
    }
    wire_produce_node_endpoint endpoint;
    wire_produce_response resp = {.topics = topics, .topic_count = topic_count};
    if (hint_endpoints) {
        const handler_endpoint *e = handler_endpoint_of(h, partitions[0].current_leader_id);
        for (int i = 0; i < count && !e; i++)
            e = handler_endpoint_of(h, partitions[i].current_leader_id);
        if (e) {
            endpoint = (wire_produce_node_endpoint){
                .node_id = e->node_id, .host = kq_slice_cstr(e->host), .port = e->port,
                .rack = {NULL, -1}};
            resp.node_endpoints = &endpoint;
            resp.node_endpoint_count = 1;
        }
    }
    wire_request_header hdr = {.api_key = WIRE_API_PRODUCE, .api_version = version,
                               .correlation_id = correlation_id};
    handler_begin_response(h, &hdr);
    wire_produce_response_encode(&h->out, version, &resp);
    handler_finish_response(h, slot);
}

static void pending_finish(handler *h, produce_pending *p, int16_t error_for_appended)
{
    for (int i = 0; i < p->partition_count; i++)
        if (p->partitions[i].appended)
            p->partitions[i].error = error_for_appended;
    produce_respond(h, p->req.slot, p->req.api_version, p->req.correlation_id, p->partitions,
                    p->partition_count);
    free(p->partitions);
    p->partitions = NULL;
    p->req.phase = KQ_REQUEST_ANSWERED;
}

/* Answers waiting requests, oldest first, while their offsets are covered. */
static void queue_progress(handler *h, produce_queue *q, const raft_status *st, int64_t covered)
{
    produce_pending *p;
    while ((p = queue_front(q)) != NULL) {
        if (st->role != RAFT_ROLE_LEADER || st->epoch != p->epoch) {
            pending_finish(h, p, KAFKA_NOT_LEADER_OR_FOLLOWER);
        } else if (covered >= p->required_offset) {
            pending_finish(h, p, KAFKA_NONE);
        } else {
            break;
        }
        q->head++;
    }
}

void produce_on_progress(handler *h, const raft_status *st)
{
    int64_t committed = st->high_watermark;
    if (h->svc.mutants & KQ_MUTANT_ACKS_ALL_ON_FLUSHED)
        committed = kq_log_flushed_offset(h->svc.log); /* the bug: the leader's flush alone */
    queue_progress(h, &h->produce_acks_all, st, committed);
    queue_progress(h, &h->produce_acks_one, st, kq_log_flushed_offset(h->svc.log));
}

static void queue_expire(handler *h, produce_queue *q, int64_t now_ms)
{
    /* Deadlines are not ordered like offsets; expire the front only, which is
     * what blocks the rest (later requests share or exceed its offset). */
    produce_pending *p;
    while ((p = queue_front(q)) != NULL && p->deadline_ms <= now_ms) {
        pending_finish(h, p, KAFKA_REQUEST_TIMED_OUT);
        q->head++;
    }
}

void produce_on_tick(handler *h, int64_t now_ms)
{
    queue_expire(h, &h->produce_acks_all, now_ms);
    queue_expire(h, &h->produce_acks_one, now_ms);
}

int64_t produce_next_deadline(const handler *h)
{
    int64_t due = INT64_MAX;
    const produce_queue *qs[2] = {&h->produce_acks_all, &h->produce_acks_one};
    for (int i = 0; i < 2; i++) {
        const produce_queue *q = qs[i];
        if (q->head != q->tail) {
            int64_t d = q->items[q->head & (q->cap - 1)].deadline_ms;
            if (d < due)
                due = d;
        }
    }
    return due;
}

static int16_t status_to_error(enum record_status s)
{
    switch (s) {
    case RECORD_OK:
        return KAFKA_NONE;
    case RECORD_BAD_COMPRESSION:
    case RECORD_BAD_RECORDS:
        return KAFKA_CORRUPT_MESSAGE;
    default:
        return KAFKA_CORRUPT_MESSAGE;
    }
}

/* A transactional Produce (issue 23): the request names its transactional
 * id exactly when its batch is transactional, and the coordinator's table
 * holds the partition in the producer's ongoing transaction at its epoch
 * (KIP-890's check, made here since the coordinator is this leader). */
static int16_t produce_check_txn(handler *h, const record_batch_header *bh, bool transactional)
{
    if (!transactional || (bh->attributes & RECORD_ATTR_TRANSACTIONAL) == 0)
        return KAFKA_INVALID_REQUEST; /* Kafka: a transactional id without such a batch */
    raft_status st;
    raft_get_status(h->svc.raft, &st);
    if (st.role != RAFT_ROLE_LEADER)
        return KAFKA_NOT_LEADER_OR_FOLLOWER;
    return txns_check_produce(h, bh->producer_id, bh->producer_epoch);
}

/* Validates one partition's batches and, if they may be appended, fills
 * *ap, the append to decide. Returns the Kafka error (KAFKA_NONE: decided). */
static int16_t produce_partition(handler *h, kq_slice records, bool transactional,
                                 const char **message, kq_request_append *ap)
{
    if (records.len <= 0)
        return KAFKA_CORRUPT_MESSAGE;
    record_set_summary sum;
    enum record_status s = record_set_validate(records.ptr, (size_t)records.len, true, &sum);
    if (s != RECORD_OK)
        return status_to_error(s);
    record_batch_header bh;
    if (record_batch_parse_header(records.ptr, (size_t)records.len, &bh) != RECORD_OK)
        return KAFKA_CORRUPT_MESSAGE;
    /* Every batch, not only the first: control, transactional, reserved bits. */
    int16_t refused = produce_check_batches(h, &sum, &bh, message);
    if (refused == KAFKA_NONE)
        refused = produce_check_raft_shape(h, records.ptr, (size_t)records.len, message);
    if (refused != KAFKA_NONE)
        return refused;
    *ap = (kq_request_append){.records = (uint8_t *)(uintptr_t)records.ptr,
                           .len = (size_t)records.len,
                           .offset_count = sum.offset_count,
                           .producer_id = -1};
    if (bh.producer_id >= 0) {
        KQ_ASSERT(sum.batch_count == 1); /* produce_check_batches */
        int32_t last_seq = producer_sequence_add(bh.base_sequence, bh.last_offset_delta);
        if (bh.base_sequence < 0 || last_seq < 0)
            return KAFKA_INVALID_RECORD;
        ap->producer_id = bh.producer_id;
        ap->producer_epoch = bh.producer_epoch;
        ap->base_sequence = bh.base_sequence;
        ap->last_sequence = last_seq;
    }
    if ((bh.attributes & RECORD_ATTR_TRANSACTIONAL) != 0 || transactional)
        return produce_check_txn(h, &bh, transactional);
    return KAFKA_NONE;
}

/* Answers a produce whose appends (if any) are decided: at once, or once
 * its offsets are covered per acks. Takes ownership of p->partitions. */
static void produce_complete(handler *h, produce_pending *p, bool any_appended)
{
    if (p->acks == 0) {
        /* No answer is sent for acks=0; like Kafka, a failed write closes the
         * connection so the producer at least notices. */
        bool failed = false;
        for (int k = 0; k < p->partition_count; k++)
            failed |= p->partitions[k].error != KAFKA_NONE;
        free(p->partitions);
        if (failed)
            h->svc.reply_close(h->svc.ctx, p->req.slot, "acks=0 produce failed");
        else
            h->svc.reply_none(h->svc.ctx, p->req.slot);
        p->req.phase = KQ_REQUEST_ANSWERED;
        return;
    }
    if (!any_appended) {
        produce_respond(h, p->req.slot, p->req.api_version, p->req.correlation_id,
                        p->partitions, p->partition_count);
        free(p->partitions);
        p->req.phase = KQ_REQUEST_ANSWERED;
        return;
    }
    p->req.phase = KQ_REQUEST_WAITING;
    produce_queue *q = p->acks == -1 ? &h->produce_acks_all : &h->produce_acks_one;
    if (!queue_push(q, p)) {
        pending_finish(h, p, KAFKA_REQUEST_TIMED_OUT);
        return;
    }
    /* Usually nothing is covered yet (flushes complete asynchronously), but a
     * duplicate of a committed batch is answered at once. */
    raft_status st;
    raft_get_status(h->svc.raft, &st);
    produce_on_progress(h, &st);
}

/* The executor's result of the append decided (kq/request.h): the request
 * object leaves the executor's hands and waits here, per acks. */
void produce_executed(handler *h, kq_request *req)
{
    produce_pending *held = (produce_pending *)((char *)req - offsetof(produce_pending, req));
    produce_pending p = *held;
    free(held);
    const kq_request_result *r = &p.req.result;
    KQ_ASSERT(p.append_index >= 0 && p.append_index < p.partition_count);
    produce_partition_result *res = &p.partitions[p.append_index];
    res->error = r->error;
    res->appended = r->error == KAFKA_NONE;
    res->base_offset = res->appended ? r->base_offset : -1;
    p.epoch = r->epoch;
    p.required_offset = r->last_offset + 1;
    produce_complete(h, &p, res->appended);
}

static void copy_topic_name(produce_partition_result *res, kq_slice name)
{
    int n = name.len > 0 ? name.len : 0;
    if (n > (int)sizeof(res->topic) - 1)
        n = (int)sizeof(res->topic) - 1;
    memcpy(res->topic, name.ptr ? (const char *)name.ptr : "", (size_t)n);
}

void handle_produce(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_produce_request body;
    if (wire_produce_request_decode(r, v, &h->arena, &body) != 0) {
        LOG_LINE_LIMITED("request from %s: malformed Produce v%d", h->svc.slot_peer(h->svc.ctx, req->slot), v);
        h->svc.reply_close(h->svc.ctx, req->slot, "malformed Produce request");
        return;
    }
    int count = 0;
    for (int32_t t = 0; t < body.topic_count; t++)
        count += body.topics[t].partition_count;
    if (count > HANDLER_PRODUCE_PARTITIONS_MAX) {
        h->svc.reply_close(h->svc.ctx, req->slot, "too many partitions in one Produce request");
        return;
    }
    produce_partition_result *parts = calloc((size_t)(count ? count : 1), sizeof(*parts));
    if (!parts) {
        h->svc.reply_close(h->svc.ctx, req->slot, "out of memory");
        return;
    }
    bool acks_valid = body.acks == 0 || body.acks == 1 || body.acks == -1;
    bool transactional = body.transactional_id.len >= 0;
    int append_index = -1;
    kq_request_append append = {0};
    int i = 0;
    bool may_produce = handler_authorized(h, req->slot, HANDLER_OP_PRODUCE, "Produce");
    for (int32_t t = 0; t < body.topic_count; t++) {
        const wire_produce_topic *topic = &body.topics[t];
        for (int32_t p = 0; p < topic->partition_count; p++, i++) {
            produce_partition_result *res = &parts[i];
            copy_topic_name(res, topic->name);
            res->index = topic->partitions[p].index;
            res->base_offset = -1;
            if (!acks_valid)
                res->error = KAFKA_INVALID_REQUIRED_ACKS;
            else if (!may_produce)
                res->error = KAFKA_TOPIC_AUTHORIZATION_FAILED;
            else if (!handler_is_metadata_topic(h, topic->name) || res->index != 0)
                res->error = KAFKA_UNKNOWN_TOPIC_OR_PARTITION;
            else if (append_index >= 0)
                res->error = KAFKA_INVALID_REQUEST; /* the partition named twice */
            else if ((res->error = produce_partition(h, topic->partitions[p].records,
                                                     transactional, &res->message,
                                                     &append)) == KAFKA_NONE)
                append_index = i;
        }
    }
    int32_t timeout = body.timeout_ms > 0 ? body.timeout_ms : 30000;
    produce_pending pending = {
        .req = {.slot = req->slot, .api_key = WIRE_API_PRODUCE, .api_version = v,
                .correlation_id = req->header.correlation_id,
                .origin = KQ_REQUEST_FROM_PRODUCE, .action = KQ_REQUEST_APPEND,
                .append = append},
        .append_index = append_index,
        .acks = body.acks,
        .epoch = -1,
        .required_offset = -1,
        .deadline_ms = h->svc.now_ms(h->svc.ctx) + timeout,
        .partition_count = count,
        .partitions = parts,
    };
    if (append_index < 0) {
        produce_complete(h, &pending, false);
        return;
    }
    /* The request object goes to the executor, which appends and hands it
     * back (produce_executed). */
    produce_pending *held = malloc(sizeof(*held));
    if (!held) {
        free(parts);
        h->svc.reply_close(h->svc.ctx, req->slot, "out of memory");
        return;
    }
    *held = pending;
    handler_hand_over(h, &held->req, HANDLER_APPEND);
}
