/* OffsetCommit: the valid partitions become one control batch appended
 * through the Raft core (HANDLER_APPEND); the answer waits until the high
 * watermark and the offsets table pass the batch, so that a committed
 * offset is never lost by a failover. Losing the lead answers
 * NOT_COORDINATOR; no commit within HANDLER_GROUP_COMMIT_TIMEOUT_MS
 * answers COORDINATOR_NOT_AVAILABLE (Kafka's answer to a timed-out
 * offsets append). A partition whose committed offset already stands for
 * it (the same offset, or both in the trailing run of control batches,
 * group_offsets_commit_is_noop) is answered NONE without an append (issue
 * 24: an idle consumer's auto-commits append nothing). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "group_handlers.h"
#include "kq/group_consumer.h"
#include "kq/assert.h"
#include "kq/mutants.h"
#include "kq/wire_fetch.h"
#include "kq/wire_offset_commit.h"

static void commit_respond(handler *h, const commit_pending *p)
{
    wire_offset_commit_response resp = {0};
    int n = p->count;
    resp.topics = kq_arena_alloc(&h->arena, sizeof(*resp.topics) * (size_t)(n ? n : 1));
    wire_offset_commit_partition_response *parts =
        kq_arena_alloc(&h->arena, sizeof(*parts) * (size_t)(n ? n : 1));
    if (!resp.topics || !parts) {
        h->svc.reply_close(h->svc.ctx, p->slot, "out of memory");
        return;
    }
    for (int i = 0; i < n; i++) {
        const commit_result *c = &p->results[i];
        if (i == 0 || c->topic != p->results[i - 1].topic) {
            wire_offset_commit_topic_response *t = &resp.topics[resp.topic_count++];
            *t = (wire_offset_commit_topic_response){.name = c->name, .topic_id = c->id,
                                                     .partitions = &parts[i]};
        }
        parts[i] = (wire_offset_commit_partition_response){.partition_index = c->partition,
                                                           .error_code = c->error};
        resp.topics[resp.topic_count - 1].partition_count++;
    }
    wire_request_header hdr = {.api_key = WIRE_API_OFFSET_COMMIT, .api_version = p->version,
                               .correlation_id = p->correlation_id};
    handler_begin_response(h, &hdr);
    wire_offset_commit_response_encode(&h->out, p->version, &resp);
    handler_finish_response(h, p->slot);
}

static void commit_free(commit_pending *p)
{
    free(p->results);
    free(p->names);
    p->results = NULL;
    p->names = NULL;
}

/* Answers p, its appended partitions with error, and frees it. */
static void commit_finish(handler *h, commit_pending *p, int16_t error)
{
    for (int i = 0; i < p->count; i++)
        if (p->results[i].appended)
            p->results[i].error = error;
    commit_respond(h, p);
    commit_free(p);
}

static commit_pending *queue_front(handler_groups *g)
{
    return g->head == g->tail ? NULL : &g->queue[g->head & (GROUP_COMMIT_QUEUE_CAP - 1)];
}

static int64_t offsets_committed_to(const handler *h)
{
    return h->svc.offsets ? group_offsets_committed_to(h->svc.offsets) : INT64_MAX;
}

void groups_commits_progress(handler *h, const raft_status *st)
{
    handler_groups *g = h->groups;
    commit_pending *p;
    while ((p = queue_front(g)) != NULL) {
        if (st->role != RAFT_ROLE_LEADER || st->epoch != p->epoch)
            commit_finish(h, p, KAFKA_NOT_COORDINATOR);
        else if (st->high_watermark > p->last_offset && offsets_committed_to(h) > p->last_offset)
            commit_finish(h, p, KAFKA_NONE);
        else
            break;
        g->head++;
    }
}

void groups_commits_expire(handler *h, int64_t now_ms)
{
    handler_groups *g = h->groups;
    commit_pending *p;
    /* Deadlines follow the append order: the front expires first. */
    while ((p = queue_front(g)) != NULL && p->deadline_ms <= now_ms) {
        commit_finish(h, p, KAFKA_COORDINATOR_NOT_AVAILABLE);
        g->head++;
    }
}

void groups_commits_free(handler *h)
{
    handler_groups *g = h->groups;
    for (uint32_t k = g->head; k != g->tail; k++)
        commit_free(&g->queue[k & (GROUP_COMMIT_QUEUE_CAP - 1)]);
    g->head = g->tail = 0;
}

void groups_commit_executed(handler *h, kq_request *req)
{
    handler_groups *g = h->groups;
    KQ_ASSERT(req->origin == KQ_REQUEST_FROM_OFFSET_COMMIT);
    commit_request *held = (commit_request *)((char *)req - offsetof(commit_request, req));
    commit_pending p = held->pending;
    int16_t error = req->result.error;
    int64_t last_offset = req->result.last_offset;
    int32_t epoch = req->result.epoch;
    free(held);
    kq_writer_reset(&g->batch);
    if (error != KAFKA_NONE) {
        commit_finish(h, &p, error == KAFKA_NOT_LEADER_OR_FOLLOWER ? KAFKA_NOT_COORDINATOR
                                                                    : KAFKA_COORDINATOR_NOT_AVAILABLE);
        return;
    }
    if (h->svc.mutants & KQ_MUTANT_OFFSET_COMMIT_ON_APPEND) {
        commit_finish(h, &p, KAFKA_NONE); /* the bug: answered before it is committed */
        return;
    }
    p.epoch = epoch;
    p.last_offset = last_offset;
    p.deadline_ms = h->svc.now_ms(h->svc.ctx) + HANDLER_GROUP_COMMIT_TIMEOUT_MS;
    if (g->tail - g->head == GROUP_COMMIT_QUEUE_CAP) {
        commit_finish(h, &p, KAFKA_COORDINATOR_NOT_AVAILABLE);
        return;
    }
    g->queue[g->tail & (GROUP_COMMIT_QUEUE_CAP - 1)] = p;
    g->tail++;
    raft_status st;
    raft_get_status(h->svc.raft, &st);
    groups_commits_progress(h, &st);
}

/* The request-level checks: KAFKA_NONE when its partitions may commit. */
static int16_t commit_check_group(handler *h, handler_request *req,
                                  const wire_offset_commit_request *body, const char **group_id)
{
    const char *member_id = NULL, *instance_id = NULL;
    if (!handler_authorized(h, req->slot, HANDLER_OP_CONSUME, "OffsetCommit"))
        return KAFKA_GROUP_AUTHORIZATION_FAILED;
    if (!groups_cstr(h, body->group_id, group_id) || !groups_id_storable(*group_id))
        return KAFKA_INVALID_GROUP_ID;
    if (!groups_cstr(h, body->member_id, &member_id) ||
        !groups_cstr(h, body->group_instance_id, &instance_id))
        return KAFKA_INVALID_REQUEST;
    int16_t error = groups_gate(h);
    if (error != KAFKA_NONE)
        return error;
    /* Classic generations and KIP-848 member epochs alike (v9+: a stale
     * member epoch is STALE_MEMBER_EPOCH). */
    group_commit_check check = {.group_id = *group_id,
                                .member_id = member_id ? member_id : "",
                                .instance_id = instance_id,
                                .generation = body->generation_id_or_member_epoch,
                                .api_version = req->header.api_version};
    bool exists = false;
    return (int16_t)group_validate_commit(h->groups->coord, &check, &exists);
}

/* One partition's own checks (the topic, its metadata, the table's room). */
static int16_t commit_check_partition(handler *h, int16_t v, const wire_offset_commit_topic *t,
                                      const wire_offset_commit_partition *p, const char *group_id)
{
    if (v >= 10 && !handler_is_metadata_topic_id(h, &t->topic_id))
        return KAFKA_UNKNOWN_TOPIC_ID;
    if ((v < 10 && !handler_is_metadata_topic(h, t->name)) || p->partition_index != 0)
        return KAFKA_UNKNOWN_TOPIC_OR_PARTITION;
    if (p->committed_metadata.len > (int32_t)KQ_GROUP_OFFSET_METADATA_BYTES_MAX)
        return KAFKA_OFFSET_METADATA_TOO_LARGE;
    if (p->committed_metadata.len > 0 &&
        memchr(p->committed_metadata.ptr, 0, (size_t)p->committed_metadata.len))
        return KAFKA_INVALID_REQUEST; /* the table keeps metadata as a C string */
    if (p->committed_offset < -1)
        return KAFKA_INVALID_COMMIT_OFFSET_SIZE; /* the table keeps offsets >= -1 */
    const group_offsets *o = h->svc.offsets;
    group_offset cur;
    if (o && group_offsets_count(o) >= KQ_GROUP_OFFSETS_MAX &&
        !group_offsets_get(o, group_id, h->svc.topic_name, 0, &cur))
        return KAFKA_INVALID_COMMIT_OFFSET_SIZE;
    return KAFKA_NONE;
}

/* Allocates p's results and copies the topic names they echo. */
static bool commit_alloc(commit_pending *p, const wire_offset_commit_request *body, int count)
{
    size_t names = 1;
    for (int32_t t = 0; t < body->topic_count; t++)
        names += body->topics[t].name.len > 0 ? (size_t)body->topics[t].name.len : 0;
    p->results = calloc((size_t)(count ? count : 1), sizeof(*p->results));
    p->names = malloc(names);
    if (!p->results || !p->names) {
        commit_free(p);
        return false;
    }
    return true;
}

/* The entry a valid partition commits (strings in the request's arena). */
static bool commit_entry(handler *h, const wire_offset_commit_partition *p, const char *group_id,
                         group_offset *e)
{
    const char *metadata = NULL;
    if (!groups_cstr(h, p->committed_metadata, &metadata))
        return false;
    *e = (group_offset){.group_id = group_id, .topic = h->svc.topic_name,
                        .partition = p->partition_index, .offset = p->committed_offset,
                        .leader_epoch = p->committed_leader_epoch, .metadata = metadata,
                        /* Kafka's commitTimestamp: the coordinator's clock,
                         * what offsets.retention.minutes counts from. */
                        .commit_timestamp_ms = h->svc.now_ms(h->svc.ctx), .log_offset = -1};
    return true;
}

/* Whether the valid partition e (the request's earlier valid ones in
 * entries[0, valid)) is answered without an append (issue 24): the
 * committed offset stands for it, committed within half of
 * offsets.retention.minutes (a standalone consumer's offset then never
 * expires while it commits), and no earlier partition of this request
 * appends the same key. */
static bool commit_noop(handler *h, const group_offset *entries, int valid, const group_offset *e)
{
    if (!h->svc.offsets)
        return false;
    for (int k = 0; k < valid; k++)
        if (entries[k].partition == e->partition)
            return false; /* same group and topic: appended, then this one */
    int64_t retention = h->svc.group.max_size > 0
                            ? h->svc.group.offsets_retention_ms
                            : (int64_t)KQ_OFFSETS_RETENTION_MINUTES_DEFAULT * 60000;
    int64_t fresh_from = retention > 0 ? e->commit_timestamp_ms - retention / 2 : INT64_MIN;
    return group_offsets_commit_is_noop(h->svc.offsets, e, fresh_from);
}

/* Fills p's results; the valid partitions' entries go to entries. Returns
 * how many are valid. */
static int commit_fill(handler *h, int16_t v, const wire_offset_commit_request *body,
                       const char *group_id, int16_t top_error, commit_pending *p,
                       group_offset *entries)
{
    int valid = 0, i = 0;
    size_t name_at = 0;
    uint64_t admitted = 0;
    for (int32_t t = 0; t < body->topic_count; t++) {
        const wire_offset_commit_topic *topic = &body->topics[t];
        kq_slice name = {NULL, -1};
        if (topic->name.len >= 0) {
            if (topic->name.len > 0)
                memcpy(p->names + name_at, topic->name.ptr, (size_t)topic->name.len);
            name = (kq_slice){(const uint8_t *)p->names + name_at, topic->name.len};
            name_at += (size_t)topic->name.len;
        }
        for (int32_t k = 0; k < topic->partition_count; k++, i++) {
            commit_result *c = &p->results[i];
            const wire_offset_commit_partition *part = &topic->partitions[k];
            *c = (commit_result){.topic = t, .name = name, .id = topic->topic_id,
                                 .partition = part->partition_index, .error = top_error};
            if (c->error == KAFKA_NONE)
                c->error = commit_check_partition(h, v, topic, part, group_id);
            if (c->error == KAFKA_NONE && !commit_entry(h, part, group_id, &entries[valid]))
                c->error = KAFKA_INVALID_REQUEST;
            if (c->error == KAFKA_NONE && commit_noop(h, entries, valid, &entries[valid]))
                continue; /* NONE, not appended */
            /* The table's byte budget, this request's earlier entries
             * counted: every admitted table fits a snapshot (limits.h). */
            if (c->error == KAFKA_NONE && h->svc.offsets &&
                !group_offsets_admits(h->svc.offsets, &entries[valid], admitted))
                c->error = KAFKA_INVALID_COMMIT_OFFSET_SIZE;
            if (c->error == KAFKA_NONE) {
                admitted += group_offsets_entry_bytes(&entries[valid]);
                c->appended = true;
                valid++;
            }
        }
    }
    return valid;
}

void handle_offset_commit(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_offset_commit_request body;
    if (wire_offset_commit_request_decode(r, v, &h->arena, &body) != 0) {
        groups_malformed(h, req, "OffsetCommit");
        return;
    }
    int64_t count = 0;
    for (int32_t t = 0; t < body.topic_count; t++)
        count += body.topics[t].partition_count > 0 ? body.topics[t].partition_count : 0;
    const char *group_id = NULL;
    int16_t top = commit_check_group(h, req, &body, &group_id);
    if (top == KAFKA_NONE && count > KQ_GROUP_COMMIT_PARTITIONS_MAX)
        top = KAFKA_INVALID_COMMIT_OFFSET_SIZE;
    if (count > INT32_MAX) {
        h->svc.reply_close(h->svc.ctx, req->slot, "too many partitions");
        return;
    }
    commit_pending p = {.slot = req->slot, .version = v,
                        .correlation_id = req->header.correlation_id, .count = (int)count};
    group_offset *entries = kq_arena_alloc(&h->arena, sizeof(*entries) * (size_t)(count ? count : 1));
    if (!entries || !commit_alloc(&p, &body, (int)count)) {
        h->svc.reply_close(h->svc.ctx, req->slot, "out of memory");
        return;
    }
    int valid = commit_fill(h, v, &body, group_id, top, &p, entries);
    handler_groups *g = h->groups;
    kq_writer_reset(&g->batch);
    if (valid > 0 && !group_offsets_build_batch(&g->batch, entries, valid,
                                                h->svc.now_ms(h->svc.ctx))) {
        commit_finish(h, &p, KAFKA_INVALID_REQUEST);
        return;
    }
    if (valid == 0) {
        commit_finish(h, &p, KAFKA_NONE);
        return;
    }
    /* The executor appends and hands the request back: groups_commit_executed. */
    commit_request *held = malloc(sizeof(*held));
    if (!held) {
        commit_finish(h, &p, KAFKA_COORDINATOR_NOT_AVAILABLE);
        return;
    }
    *held = (commit_request){
        .req = {.slot = req->slot, .api_key = WIRE_API_OFFSET_COMMIT, .api_version = v,
                .correlation_id = req->header.correlation_id,
                .origin = KQ_REQUEST_FROM_OFFSET_COMMIT, .action = KQ_REQUEST_APPEND,
                .append = {.records = g->batch.data, .len = g->batch.len,
                           .offset_count = valid, .producer_id = -1}},
        .pending = p};
    handler_hand_over(h, &held->req, HANDLER_APPEND);
}
