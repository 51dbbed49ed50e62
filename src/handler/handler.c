/* Request router: header, version check, dispatch by API key. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handler_internal.h"
#include "sasl_internal.h"
#include "txn_handlers.h"
#include "kq/assert.h"
#include "kq/log_line.h"
#include "kq/wire_apis.h"
#include "kq/uuid.h"
#include "kq/wire_fetch.h"

handler *handler_create(const handler_services *services)
{
    handler *h = calloc(1, sizeof(*h));
    if (!h)
        return NULL;
    h->svc = *services;
    if (!h->svc.topic_name || h->svc.topic_name[0] == '\0') {
        h->svc.topic_name = WIRE_METADATA_TOPIC_NAME;
        h->svc.topic_id = WIRE_METADATA_TOPIC_ID;
    }
    KQ_ASSERT(!kq_uuid_is_zero(&h->svc.topic_id)); /* the config refuses it */
    kq_arena_init(&h->arena, HANDLER_ARENA_BYTES_MAX);
    kq_writer_init(&h->out, HANDLER_RESPONSE_BYTES_MAX);
    kq_writer_init(&h->records, HANDLER_RESPONSE_BYTES_MAX);
    if (!groups_create(h) || !txns_create(h)) {
        handler_destroy(h);
        return NULL;
    }
    return h;
}

void handler_destroy(handler *h)
{
    if (!h)
        return;
    kq_arena_free(&h->arena);
    kq_writer_free(&h->out);
    kq_writer_free(&h->records);
    groups_destroy(h);
    txns_destroy(h);
    sasl_limits_destroy(h);
    /* Requests still waiting are dropped unanswered. */
    produce_queue *qs[2] = {&h->produce_acks_all, &h->produce_acks_one};
    for (int i = 0; i < 2; i++) {
        for (uint32_t k = qs[i]->head; k != qs[i]->tail; k++)
            free(qs[i]->items[k & (qs[i]->cap - 1)].partitions);
        free(qs[i]->items);
    }
    for (int i = 0; i < HANDLER_FETCH_PARKED_MAX; i++)
        if (h->parked[i].in_use)
            free(h->parked[i].frame);
    list_offsets_destroy(h);
    free(h);
}

/* Every answer is encoded behind room for its frame size, so that a large
 * one can be handed to the transport whole (reply_take). */
void handler_reset_response(handler *h)
{
    kq_writer_reset(&h->out);
    kq_write_u32(&h->out, 0);
}

void handler_begin_response(handler *h, const wire_request_header *hdr)
{
    handler_reset_response(h);
    wire_response_header_encode(&h->out, hdr->api_key, hdr->api_version, hdr->correlation_id);
}

void handler_size_answer(handler *h, size_t records_bytes)
{
    if (records_bytes > 0)
        (void)kq_writer_ensure(&h->out, records_bytes + HANDLER_FETCH_HEADER_BYTES_MAX);
}

void handler_finish_response(handler *h, void *slot)
{
    if (h->out.error || h->out.len < 4 || h->out.len - 4 > INT32_MAX) {
        h->svc.reply_close(h->svc.ctx, slot, "response could not be encoded");
        return;
    }
    size_t body = h->out.len - 4;
    if (!h->svc.reply_take || body < HANDLER_RESPONSE_TAKE_BYTES_MIN) {
        h->svc.reply(h->svc.ctx, slot, h->out.data + 4, body);
        return;
    }
    size_t len;
    uint8_t *frame = kq_writer_take(&h->out, &len);
    frame[0] = (uint8_t)(body >> 24);
    frame[1] = (uint8_t)(body >> 16);
    frame[2] = (uint8_t)(body >> 8);
    frame[3] = (uint8_t)body;
    h->svc.reply_take(h->svc.ctx, slot, frame, len);
}

const handler_endpoint *handler_endpoint_of(const handler *h, int32_t node_id)
{
    for (int i = 0; i < h->svc.node_count; i++)
        if (h->svc.nodes[i].node_id == node_id)
            return &h->svc.nodes[i];
    return NULL;
}

const char *handler_controller_listener(const handler *h)
{
    const char *n = h->svc.controller_listener;
    return n && n[0] ? n : "PLAINTEXT";
}

int32_t handler_leader_node_endpoint(const handler *h, int32_t leader_id, int16_t version,
                                     wire_raft_node_endpoint *ne)
{
    const handler_endpoint *e = leader_id >= 0 && version >= 1 ? handler_endpoint_of(h, leader_id)
                                                               : NULL;
    if (!e || e->port == 0 || e->host[0] == '\0')
        return 0;
    *ne = (wire_raft_node_endpoint){.node_id = leader_id, .host = kq_slice_cstr(e->host),
                                    .port = e->port};
    return 1;
}

bool handler_is_metadata_topic(const handler *h, kq_slice name)
{
    return kq_slice_eq_cstr(name, h->svc.topic_name);
}

bool handler_is_metadata_topic_id(const handler *h, const kq_uuid *id)
{
    return memcmp(id->bytes, h->svc.topic_id.bytes, sizeof id->bytes) == 0;
}

kq_slice handler_topic(const handler *h)
{
    return kq_slice_cstr(h->svc.topic_name);
}

static void dispatch_frame(handler *h, void *slot, uint8_t *frame, size_t len);

void handler_on_frame(handler *h, void *slot, uint8_t *frame, size_t len,
                      handler_decision *decision)
{
    /* The executor hands every request back before the next frame. */
    KQ_ASSERT(h->requests_out == 0);
    memset(decision, 0, sizeof(*decision));
    decision->kind = HANDLER_DONE;
    h->decision = decision;
    dispatch_frame(h, slot, frame, len);
    h->decision = NULL;
}

void handler_hand_over(handler *h, kq_request *req, enum handler_decision_kind kind)
{
    KQ_ASSERT(h->decision && h->decision->kind == HANDLER_DONE); /* one per frame */
    KQ_ASSERT((kind == HANDLER_APPEND && req->action == KQ_REQUEST_APPEND) ||
              (kind == HANDLER_PRODUCER_ID && req->action == KQ_REQUEST_PRODUCER_ID));
    kq_request_hand_over(req);
    h->requests_out++;
    h->decision->kind = kind;
    h->decision->request = req;
}

void handler_request_done(handler *h, kq_request *req)
{
    KQ_ASSERT(req->phase == KQ_REQUEST_EXECUTED); /* completed exactly once */
    KQ_ASSERT(h->requests_out > 0);
    h->requests_out--;
    switch (req->origin) {
    case KQ_REQUEST_FROM_PRODUCE:
        produce_executed(h, req);
        return;
    case KQ_REQUEST_FROM_OFFSET_COMMIT:
        groups_commit_executed(h, req);
        return;
    case KQ_REQUEST_FROM_OFFSET_EXPIRY:
        groups_expiry_executed(h, req);
        return;
    case KQ_REQUEST_FROM_INIT_PRODUCER_ID:
        init_producer_id_executed(h, req);
        return;
    case KQ_REQUEST_FROM_TXN:
        txns_executed(h, req);
        return;
    case KQ_REQUEST_FROM_GROUP_MEMBERSHIP:
        groups_persist_executed(h, req);
        return;
    case KQ_REQUEST_FROM_GROUP_ADMIN:
        groups_admin_executed(h, req);
        return;
    }
    KQ_ASSERT(!"a request of no known origin");
}

/* The handler of each API, from the one list of APIs (kq/wire_apis.h), which
 * also declares them: a new API's handler needs no other line. */
typedef void handler_api_fn(handler *h, handler_request *req, kq_reader *r);
#define API_HANDLER_DECL(N, KEY, NAME, P, ADV_MIN, HANDLER) handler_api_fn HANDLER;
WIRE_APIS(API_HANDLER_DECL)
#undef API_HANDLER_DECL

static handler_api_fn *api_handler(int16_t api_key)
{
#define API_HANDLER(N, KEY, NAME, P, ADV_MIN, HANDLER) \
    case WIRE_API_##N: return HANDLER;
    switch (api_key) {
        WIRE_APIS(API_HANDLER)
    default: return NULL;
    }
#undef API_HANDLER
}

static void dispatch_frame(handler *h, void *slot, uint8_t *frame, size_t len)
{
    if (handler_sasl_raw_token(h, slot, frame, len))
        return;
    kq_reader r;
    kq_reader_init(&r, frame, len);
    handler_request req = {.slot = slot, .frame = frame, .len = len};
    if (wire_request_header_decode(&r, &req.header) != 0) {
        LOG_LINE_LIMITED("request from %s: malformed request header", h->svc.slot_peer(h->svc.ctx, slot));
        h->svc.reply_close(h->svc.ctx, slot, "malformed request header");
        return;
    }
    req.body_offset = r.pos;
    kq_arena_reset(&h->arena);
    const wire_request_header *hdr = &req.header;
    handler_conn conn;
    handler_get_conn(h, slot, &conn);
    if (!handler_sasl_gate(h, &req, &conn))
        return;
    if (hdr->api_key == WIRE_API_API_VERSIONS) {
        handle_api_versions(h, &req, &r);
        return;
    }
    if (!wire_api_accepted(hdr->api_key, hdr->api_version)) {
        LOG_LINE_LIMITED("request from %s: %s (key %d) version %d is not supported; closing",
                 h->svc.slot_peer(h->svc.ctx, slot), wire_api_name(hdr->api_key), hdr->api_key,
                 hdr->api_version);
        h->svc.reply_close(h->svc.ctx, slot, "unsupported API or version");
        return;
    }
    handler_api_fn *fn = api_handler(hdr->api_key);
    if (fn)
        fn(h, &req, &r);
    else
        h->svc.reply_close(h->svc.ctx, slot, "unsupported API");
}

void handler_on_progress(handler *h)
{
    KQ_ASSERT(h->requests_out == 0);
    raft_status st;
    raft_get_status(h->svc.raft, &st);
    produce_on_progress(h, &st);
    fetch_parked_on_progress(h, false);
    groups_on_progress(h, &st);
    txns_on_progress(h, &st);
}

int64_t handler_next_deadline(const handler *h)
{
    int64_t a = produce_next_deadline(h);
    int64_t b = fetch_parked_next_deadline(h);
    int64_t c = groups_next_deadline(h);
    int64_t d = sasl_limits_next_deadline(h);
    int64_t e = txns_next_deadline(h);
    int64_t due = a < b ? a : b;
    due = c < due ? c : due;
    due = e < due ? e : due;
    return d < due ? d : due;
}

kq_request *handler_take_request(handler *h)
{
    KQ_ASSERT(h->requests_out == 0);
    kq_request *req = txns_take(h);
    if (!req)
        req = groups_expiry_take(h);
    if (!req)
        req = groups_persist_take(h);
    if (req) {
        kq_request_hand_over(req);
        h->requests_out++;
    }
    return req;
}

void handler_on_tick(handler *h, int64_t now_ms)
{
    produce_on_tick(h, now_ms);
    fetch_parked_on_tick(h, now_ms);
    groups_on_tick(h, now_ms);
    txns_on_tick(h, now_ms);
    sasl_limits_on_tick(h, now_ms);
}

void handler_note_read_failure(handler *h, int64_t offset, int rc)
{
    if (h->read_failed)
        return;
    h->read_failed = true;
    snprintf(h->read_failure, sizeof(h->read_failure), "reading the log at offset %lld: %s",
             (long long)offset, strerror(-rc));
}

const char *handler_read_failure(const handler *h)
{
    return h->read_failed ? h->read_failure : NULL;
}
