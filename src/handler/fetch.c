/* Fetch from consumers (replica id -1): committed data only, never at or
 * above the high watermark, with long polling. Fetches from replicas go to
 * the Raft core (raft_rpc.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "handler_internal.h"
#include "kq/log_line.h"
#include "kq/mutants.h"
#include "kq/txn.h"
#include "kq/wire_fetch.h"

static bool topic_matches(const handler *h, int16_t version, kq_slice name, kq_uuid id)
{
    if (version >= 13)
        return handler_is_metadata_topic_id(h, &id);
    return handler_is_metadata_topic(h, name);
}

/* The errors of a consumer read at fetch_offset, reading nothing. */
static int16_t consumer_check(handler *h, const raft_status *st, int64_t fetch_offset)
{
    if (st->role != RAFT_ROLE_LEADER)
        return KAFKA_NOT_LEADER_OR_FOLLOWER;
    int64_t start = kq_log_start_offset(h->svc.log);
    int64_t end = kq_log_end_offset(h->svc.log);
    if (fetch_offset < start || fetch_offset > end)
        return KAFKA_OFFSET_OUT_OF_RANGE;
    return KAFKA_NONE;
}

/* The last stable offset at high watermark hw (issue 23): below the first
 * transaction not yet decided and committed. */
int64_t handler_lso(const handler *h, int64_t hw)
{
    if (!h->svc.txns || (h->svc.mutants & KQ_MUTANT_LSO_IGNORES_OPEN_TXN))
        return hw; /* the mutant: open transactions shown to read_committed */
    return txn_table_lso(h->svc.txns, hw);
}

/* read_committed (isolation level 1): the aborted transactions of the
 * records below limit from fetch_offset on, into pd. More than the answer
 * may name lowers *limit to the first one left out, so that no record of an
 * aborted transaction is sent without it. */
static void consumer_aborted(handler *h, int64_t fetch_offset, int64_t *limit,
                             wire_fetch_partition_data *pd)
{
    pd->aborted_transaction_count = 0;
    if (!h->svc.txns || fetch_offset >= *limit)
        return;
    /* Counted first: most reads name none, and the arena takes only what
     * is named. */
    int total = txn_table_aborted(h->svc.txns, fetch_offset, *limit, NULL, 0);
    if (total == 0)
        return;
    int room = total > HANDLER_FETCH_ABORTED_MAX ? HANDLER_FETCH_ABORTED_MAX + 1 : total;
    txn_aborted *found = kq_arena_alloc(&h->arena, sizeof(*found) * (size_t)room);
    wire_fetch_aborted_transaction *out = kq_arena_alloc(&h->arena, sizeof(*out) * (size_t)room);
    if (!found || !out) {
        *limit = fetch_offset; /* no room to name them: no records */
        return;
    }
    int n = txn_table_aborted(h->svc.txns, fetch_offset, *limit, found, room);
    if (n > HANDLER_FETCH_ABORTED_MAX) {
        *limit = found[HANDLER_FETCH_ABORTED_MAX].first_offset;
        n = HANDLER_FETCH_ABORTED_MAX;
    }
    for (int i = 0; i < n; i++)
        out[i] = (wire_fetch_aborted_transaction){.producer_id = found[i].producer_id,
                                                  .first_offset = found[i].first_offset};
    pd->aborted_transactions = out;
    pd->aborted_transaction_count = n;
}

/* Plans the committed batches of one partition below limit (the high
 * watermark, or for read_committed the last stable offset) (read later:
 * inline into h->records, or streamed from the log by the transport). */
static int16_t consumer_plan(handler *h, const raft_status *st, int64_t fetch_offset,
                             int64_t limit, size_t max_bytes, kq_log_range *range)
{
    memset(range, 0, sizeof(*range));
    int16_t err = consumer_check(h, st, fetch_offset);
    if (err != KAFKA_NONE)
        return err;
    if (fetch_offset >= limit)
        return KAFKA_NONE;
    int rc = kq_log_plan_read(h->svc.log, fetch_offset, limit, max_bytes, range);
    if (rc < 0) {
        handler_note_read_failure(h, fetch_offset, rc); /* fail-stop: see raft_rpc.c */
        memset(range, 0, sizeof(*range));
        return KAFKA_KAFKA_STORAGE_ERROR;
    }
    return KAFKA_NONE;
}

/* Reads a planned range into h->records (an inline answer); records->ptr
 * is the offset in h->records until the buffer is final. */
static int16_t consumer_read_inline(handler *h, const kq_log_range *range, kq_slice *records)
{
    size_t before = h->records.len;
    if (!kq_writer_ensure(&h->records, (size_t)range->len))
        return KAFKA_NONE; /* no memory for it now: an empty answer, as before */
    kq_log_cursor cur;
    kq_log_cursor_init(&cur, range);
    while (cur.done < range->len) {
        size_t need = 0;
        ssize_t n = kq_log_cursor_read(h->svc.log, &cur, h->records.data + h->records.len,
                                       (size_t)(range->len - cur.done), &need);
        if (n <= 0) { /* the plan and the read are one step: any error is the log's */
            handler_note_read_failure(h, range->first_offset, n < 0 ? (int)n : -EIO);
            h->records.len = before;
            return KAFKA_KAFKA_STORAGE_ERROR;
        }
        h->records.len += (size_t)n;
    }
    records->ptr = (const uint8_t *)(uintptr_t)before;
    records->len = (int32_t)range->len;
    return KAFKA_NONE;
}

static bool park(handler *h, handler_request *req, const uint8_t *frame, size_t len,
                 int32_t max_wait_ms, int64_t hw)
{
    if (h->parked_count >= HANDLER_FETCH_PARKED_MAX)
        return false;
    for (int i = 0; i < HANDLER_FETCH_PARKED_MAX; i++) {
        fetch_parked *p = &h->parked[i];
        if (p->in_use)
            continue;
        p->frame = malloc(len);
        if (!p->frame)
            return false;
        memcpy(p->frame, frame, len);
        p->len = len;
        p->slot = req->slot;
        p->deadline_ms = h->svc.now_ms(h->svc.ctx) + max_wait_ms;
        p->wait_from_hw = hw;
        p->in_use = true;
        h->parked_count++;
        return true;
    }
    return false;
}

static uint64_t ranges_bytes(const kq_log_range *ranges, int32_t count)
{
    uint64_t sum = 0;
    for (int32_t i = 0; i < count; i++)
        sum += ranges[i].len;
    return sum;
}

/* Encodes the answer with every range's bytes left out and hands it to
 * the transport with the ranges to stream (issue 19). */
static void fetch_answer_streamed(handler *h, handler_request *req, wire_fetch_response *resp,
                                  wire_fetch_partition_data *parts, const kq_log_range *ranges,
                                  size_t *ats, int32_t count)
{
    handler_stream_piece *pieces = kq_arena_alloc(&h->arena, sizeof(*pieces) * (size_t)count);
    if (!pieces) {
        h->svc.reply_close(h->svc.ctx, req->slot, "Fetch answer too large");
        return;
    }
    uint64_t total = 0;
    for (int32_t i = 0; i < count; i++) {
        if (ranges[i].len == 0)
            continue;
        parts[i].records = (kq_slice){NULL, (int32_t)ranges[i].len};
        parts[i].records_external_at = &ats[i];
        total += ranges[i].len;
    }
    handler_begin_response(h, &req->header);
    wire_fetch_response_encode(&h->out, req->header.api_version, resp);
    if (h->out.error || h->out.len < 4 || h->out.len - 4 + total > INT32_MAX) {
        h->svc.reply_close(h->svc.ctx, req->slot, "response could not be encoded");
        return;
    }
    uint32_t n = 0;
    for (int32_t i = 0; i < count; i++)
        if (ranges[i].len > 0)
            pieces[n++] = (handler_stream_piece){.at = ats[i], .range = ranges[i]};
    uint64_t body = h->out.len - 4 + total;
    size_t len;
    uint8_t *frame = kq_writer_take(&h->out, &len);
    frame[0] = (uint8_t)(body >> 24);
    frame[1] = (uint8_t)(body >> 16);
    frame[2] = (uint8_t)(body >> 8);
    frame[3] = (uint8_t)body;
    h->svc.reply_stream(h->svc.ctx, req->slot, frame, len, pieces, n);
}

/* Answers with the planned ranges: streamed when the transport can and the
 * data is large enough to be worth it, else read now and sent whole. */
static void fetch_answer(handler *h, handler_request *req, wire_fetch_response *resp,
                         wire_fetch_partition_data *parts, const kq_log_range *ranges,
                         size_t *ats, int32_t count)
{
    uint64_t total = ranges_bytes(ranges, count);
    uint64_t min = h->svc.fetch_stream_min_bytes ? h->svc.fetch_stream_min_bytes
                                                 : KQ_FETCH_STREAM_INLINE_BYTES_MAX;
    if (h->svc.reply_stream && total > 0 && total >= min) {
        fetch_answer_streamed(h, req, resp, parts, ranges, ats, count);
        return;
    }
    kq_writer_reset(&h->records);
    for (int32_t i = 0; i < count; i++)
        if (ranges[i].len > 0 && parts[i].error_code == KAFKA_NONE)
            parts[i].error_code = consumer_read_inline(h, &ranges[i], &parts[i].records);
    /* Fix up record pointers now that the records buffer is final. */
    for (int32_t i = 0; i < count; i++)
        if (parts[i].records.len > 0)
            parts[i].records.ptr = h->records.data + (uintptr_t)parts[i].records.ptr;
    handler_begin_response(h, &req->header);
    handler_size_answer(h, h->records.len);
    wire_fetch_response_encode(&h->out, req->header.api_version, resp);
    handler_finish_response(h, req->slot);
}

void handle_fetch(handler *h, handler_request *req, kq_reader *r, uint8_t *frame, size_t len,
                  bool may_park)
{
    int16_t v = req->header.api_version;
    wire_fetch_request body;
    if (wire_fetch_request_decode(r, v, &h->arena, &body) != 0) {
        LOG_LINE_LIMITED("request from %s: malformed Fetch v%d", h->svc.slot_peer(h->svc.ctx, req->slot), v);
        h->svc.reply_close(h->svc.ctx, req->slot, "malformed Fetch request");
        return;
    }
    if (body.replica_id >= 0) {
        handle_replica_fetch(h, req, &body);
        return;
    }
    raft_status st;
    raft_get_status(h->svc.raft, &st);
    int64_t hw = st.high_watermark < 0 ? 0 : st.high_watermark;
    int64_t lso = handler_lso(h, hw);
    bool read_committed = v >= 4 && body.isolation_level == 1;

    int32_t total = 0;
    for (int32_t t = 0; t < body.topic_count; t++)
        total += body.topics[t].partition_count;
    wire_fetch_topic_response *topics =
        kq_arena_alloc(&h->arena, sizeof(*topics) * (size_t)(body.topic_count + 1));
    wire_fetch_partition_data *parts =
        kq_arena_alloc(&h->arena, sizeof(*parts) * (size_t)(total + 1));
    kq_log_range *ranges = kq_arena_alloc(&h->arena, sizeof(*ranges) * (size_t)(total + 1));
    size_t *ats = kq_arena_alloc(&h->arena, sizeof(*ats) * (size_t)(total + 1));
    if (!topics || !parts || !ranges || !ats) {
        h->svc.reply_close(h->svc.ctx, req->slot, "Fetch request too large");
        return;
    }
    size_t budget = body.max_bytes > 0 ? (size_t)body.max_bytes : 0;
    if (budget > HANDLER_FETCH_BYTES_MAX)
        budget = HANDLER_FETCH_BYTES_MAX;
    /* The server-wide response budget (kq/budget.h) may grant less: the
     * answer then holds fewer bytes, never an error. */
    size_t wanted = budget > 0 ? budget : 1;
    size_t granted = h->svc.slot_grant ? (size_t)h->svc.slot_grant(h->svc.ctx, req->slot, wanted)
                                       : wanted;
    if (granted < budget)
        budget = granted;
    bool any_data = false;
    bool any_error = false;
    int32_t pi = 0;
    bool may_consume = handler_authorized(h, req->slot, HANDLER_OP_CONSUME, "Fetch");
    for (int32_t t = 0; t < body.topic_count; t++) {
        const wire_fetch_topic *ft = &body.topics[t];
        wire_fetch_topic_response *tr = &topics[t];
        tr->topic = ft->topic;
        tr->topic_id = ft->topic_id;
        tr->partitions = &parts[pi];
        tr->partition_count = ft->partition_count;
        bool ours = topic_matches(h, v, ft->topic, ft->topic_id);
        for (int32_t p = 0; p < ft->partition_count; p++, pi++) {
            const wire_fetch_partition *fp = &ft->partitions[p];
            wire_fetch_partition_data *pd = &parts[pi];
            memset(&ranges[pi], 0, sizeof(ranges[pi]));
            *pd = (wire_fetch_partition_data){
                .partition_index = fp->partition,
                .high_watermark = hw,
                .last_stable_offset = lso,
                .log_start_offset = kq_log_start_offset(h->svc.log),
                .aborted_transaction_count = -1,
                .preferred_read_replica = -1,
                .records = {(const uint8_t *)"", 0},
            };
            if (!ours || fp->partition != 0) {
                pd->error_code = KAFKA_UNKNOWN_TOPIC_OR_PARTITION;
                pd->high_watermark = -1;
                pd->last_stable_offset = -1;
                pd->log_start_offset = -1;
                any_error = true;
                continue;
            }
            if (!may_consume) {
                pd->error_code = KAFKA_TOPIC_AUTHORIZATION_FAILED;
                any_error = true;
                continue;
            }
            if (fp->current_leader_epoch >= 0 && fp->current_leader_epoch != st.epoch) {
                pd->error_code = fp->current_leader_epoch < st.epoch ? KAFKA_FENCED_LEADER_EPOCH
                                                                     : KAFKA_UNKNOWN_LEADER_EPOCH;
                any_error = true;
                continue;
            }
            size_t max = fp->partition_max_bytes > 0 ? (size_t)fp->partition_max_bytes : 0;
            if (max > HANDLER_FETCH_BYTES_MAX)
                max = HANDLER_FETCH_BYTES_MAX;
            if (budget < max && (any_data || granted < wanted))
                max = budget;
            int64_t limit = read_committed ? lso : hw;
            if (read_committed && granted > 0)
                consumer_aborted(h, fp->fetch_offset, &limit, pd);
            pd->error_code = granted == 0 ? consumer_check(h, &st, fp->fetch_offset)
                                          : consumer_plan(h, &st, fp->fetch_offset, limit,
                                                          max > 0 ? max : 1, &ranges[pi]);
            if (pd->error_code != KAFKA_NONE) {
                any_error = true;
                if (pd->error_code == KAFKA_NOT_LEADER_OR_FOLLOWER && st.leader_id >= 0) {
                    pd->has_current_leader = true;
                    pd->current_leader.leader_id = st.leader_id;
                    pd->current_leader.leader_epoch = st.epoch;
                }
            }
            if (ranges[pi].len > 0) {
                any_data = true;
                budget = budget > ranges[pi].len ? budget - (size_t)ranges[pi].len : 0;
            }
        }
    }
    if (!any_data && !any_error && may_park && body.max_wait_ms > 0 && body.min_bytes > 0 &&
        park(h, req, frame, len, body.max_wait_ms, hw))
        return;
    wire_fetch_response resp = {
        .responses = topics,
        .response_count = body.topic_count,
        .session_id = 0,
    };
    fetch_answer(h, req, &resp, parts, ranges, ats, pi);
}

/* Handles a parked fetch again (answering it even without data). */
static void unpark(handler *h, fetch_parked *p)
{
    p->in_use = false;
    h->parked_count--;
    kq_reader r;
    kq_reader_init(&r, p->frame, p->len);
    handler_request req = {.slot = p->slot};
    if (wire_request_header_decode(&r, &req.header) == 0) {
        kq_arena_reset(&h->arena);
        handle_fetch(h, &req, &r, p->frame, p->len, false);
    } else {
        h->svc.reply_close(h->svc.ctx, p->slot, "parked fetch lost");
    }
    free(p->frame);
    p->frame = NULL;
}

void fetch_parked_on_progress(handler *h, bool expire_all)
{
    if (h->parked_count == 0)
        return;
    raft_status st;
    raft_get_status(h->svc.raft, &st);
    for (int i = 0; i < HANDLER_FETCH_PARKED_MAX && h->parked_count > 0; i++) {
        fetch_parked *p = &h->parked[i];
        if (p->in_use && (expire_all || st.high_watermark > p->wait_from_hw ||
                          st.role != RAFT_ROLE_LEADER))
            unpark(h, p);
    }
}

void fetch_parked_on_tick(handler *h, int64_t now_ms)
{
    for (int i = 0; i < HANDLER_FETCH_PARKED_MAX && h->parked_count > 0; i++) {
        fetch_parked *p = &h->parked[i];
        if (p->in_use && p->deadline_ms <= now_ms)
            unpark(h, p);
    }
}

int64_t fetch_parked_next_deadline(const handler *h)
{
    int64_t due = INT64_MAX;
    if (h->parked_count == 0)
        return due;
    for (int i = 0; i < HANDLER_FETCH_PARKED_MAX; i++)
        if (h->parked[i].in_use && h->parked[i].deadline_ms < due)
            due = h->parked[i].deadline_ms;
    return due;
}

void handle_fetch_request(handler *h, handler_request *req, kq_reader *r)
{
    handle_fetch(h, req, r, req->frame, req->len, true);
}
