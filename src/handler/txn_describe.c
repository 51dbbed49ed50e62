/* DescribeTransactions and ListTransactions (KIP-664: kafka-transactions.sh
 * describe and list), answered from the coordinator's table at the log end.
 * A transaction's partitions are the replicated partition when it was
 * added; the groups of AddOffsetsToTxn are not listed (Kafka lists the
 * __consumer_offsets partitions, which do not exist here). */
#include <string.h>

#include "group_handlers.h"
#include "txn_handlers.h"
#include "kq/wire_describe_transactions.h"
#include "kq/wire_list_transactions.h"

static void describe_one(handler *h, kq_slice id, int16_t gate, wire_describe_transactions_state *s)
{
    *s = (wire_describe_transactions_state){.transactional_id = id,
                                            .transaction_state = kq_slice_cstr(""),
                                            .transaction_start_time_ms = -1,
                                            .producer_id = -1, .producer_epoch = -1};
    int16_t error = gate;
    const char *tid = error == KAFKA_NONE ? txns_id(h, id, &error) : NULL;
    txn_entry e;
    if (error == KAFKA_NONE && !txn_table_get(h->svc.txns, tid, &e))
        error = KAFKA_TRANSACTIONAL_ID_NOT_FOUND;
    s->error_code = error;
    if (error != KAFKA_NONE)
        return;
    s->transaction_state = kq_slice_cstr(txn_state_name(e.state));
    s->transaction_timeout_ms = e.timeout_ms;
    s->transaction_start_time_ms = e.start_timestamp_ms;
    s->producer_id = e.producer_id;
    s->producer_epoch = e.producer_epoch;
    if (e.state == TXN_ONGOING && e.partition_added) {
        wire_describe_transactions_topic *t = kq_arena_alloc(&h->arena, sizeof(*t));
        int32_t *zero = kq_arena_alloc(&h->arena, sizeof(*zero));
        if (t && zero) {
            *zero = 0;
            *t = (wire_describe_transactions_topic){.topic = handler_topic(h), .partitions = zero,
                                                    .partition_count = 1};
            s->topics = t;
            s->topic_count = 1;
        }
    }
}

void handle_describe_transactions(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_describe_transactions_request body;
    if (wire_describe_transactions_request_decode(r, v, &h->arena, &body) != 0) {
        groups_malformed(h, req, "DescribeTransactions");
        return;
    }
    int32_t n = body.transactional_id_count > 0 ? body.transactional_id_count : 0;
    wire_describe_transactions_response resp = {0};
    resp.transaction_states =
        kq_arena_alloc(&h->arena, sizeof(*resp.transaction_states) * (size_t)(n ? n : 1));
    if (!resp.transaction_states) {
        h->svc.reply_close(h->svc.ctx, req->slot, "DescribeTransactions request too large");
        return;
    }
    int16_t gate = handler_authorized(h, req->slot, HANDLER_OP_DESCRIBE, "DescribeTransactions")
                       ? txns_gate(h)
                       : KAFKA_TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
    for (int32_t i = 0; i < n; i++)
        describe_one(h, body.transactional_ids[i], gate, &resp.transaction_states[i]);
    resp.state_count = n;
    handler_begin_response(h, &req->header);
    wire_describe_transactions_response_encode(&h->out, v, &resp);
    handler_finish_response(h, req->slot);
}

typedef struct list_walk {
    handler *h;
    const wire_list_transactions_request *b;
    int64_t now_ms;
    uint32_t states;      /* bit per enum txn_state; 0: all */
    wire_list_transactions_state *out;
    int count;
} list_walk;

static bool pid_listed(const wire_list_transactions_request *b, int64_t pid)
{
    if (b->producer_id_filter_count <= 0)
        return true;
    for (int32_t i = 0; i < b->producer_id_filter_count; i++)
        if (b->producer_id_filters[i] == pid)
            return true;
    return false;
}

/* KIP-1152's pattern is a Java regular expression; a literal pattern or
 * one ending in ".*" (a prefix) is matched here, anything else as a
 * literal id. */
static bool id_matches(kq_slice pattern, const char *id)
{
    if (pattern.len < 0 || pattern.len == 0)
        return true;
    size_t n = (size_t)pattern.len;
    if (n >= 2 && pattern.ptr[n - 2] == '.' && pattern.ptr[n - 1] == '*')
        return strncmp(id, (const char *)pattern.ptr, n - 2) == 0;
    return strlen(id) == n && memcmp(id, pattern.ptr, n) == 0;
}

static int list_one(void *ctx, const txn_entry *e)
{
    list_walk *w = ctx;
    const wire_list_transactions_request *b = w->b;
    if (w->states && !(w->states & (1u << e->state)))
        return 0;
    if (!pid_listed(b, e->producer_id) || !id_matches(b->transactional_id_pattern,
                                                      e->transactional_id))
        return 0;
    /* KIP-994: only transactions running at least this long. */
    if (b->duration_filter >= 0 &&
        (e->state != TXN_ONGOING || e->start_timestamp_ms < 0 ||
         w->now_ms - e->start_timestamp_ms < b->duration_filter))
        return 0;
    w->out[w->count++] = (wire_list_transactions_state){
        .transactional_id = kq_slice_cstr(e->transactional_id), .producer_id = e->producer_id,
        .transaction_state = kq_slice_cstr(txn_state_name(e->state))};
    return 0;
}

void handle_list_transactions(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_list_transactions_request body;
    if (wire_list_transactions_request_decode(r, v, &h->arena, &body) != 0) {
        groups_malformed(h, req, "ListTransactions");
        return;
    }
    wire_list_transactions_response resp = {0};
    int32_t nf = body.state_filter_count > 0 ? body.state_filter_count : 0;
    resp.unknown_state_filters = kq_arena_alloc(&h->arena, sizeof(kq_slice) * (size_t)(nf ? nf : 1));
    list_walk w = {.h = h, .b = &body, .now_ms = h->svc.now_ms(h->svc.ctx)};
    for (int32_t i = 0; resp.unknown_state_filters && i < nf; i++) {
        kq_slice f = body.state_filters[i];
        int s = f.len > 0 ? txn_state_parse((const char *)f.ptr, (size_t)f.len) : -1;
        if (s < 0)
            resp.unknown_state_filters[resp.unknown_state_filter_count++] = f;
        else
            w.states |= 1u << s;
    }
    if (nf > 0 && w.states == 0)
        w.states = 1u << 31; /* only unknown states asked: none matches */
    resp.error_code = handler_authorized(h, req->slot, HANDLER_OP_DESCRIBE, "ListTransactions")
                          ? txns_gate(h)
                          : KAFKA_CLUSTER_AUTHORIZATION_FAILED;
    /* The admin client asks every broker: one that does not lead
     * coordinates nothing and says so with an empty list. */
    bool empty = resp.error_code == KAFKA_NOT_COORDINATOR;
    if (empty)
        resp.error_code = KAFKA_NONE;
    int total = h->svc.txns ? txn_table_count(h->svc.txns) : 0;
    w.out = kq_arena_alloc(&h->arena, sizeof(*w.out) * (size_t)(total ? total : 1));
    if (!w.out || !resp.unknown_state_filters) {
        h->svc.reply_close(h->svc.ctx, req->slot, "out of memory");
        return;
    }
    if (resp.error_code == KAFKA_NONE && !empty)
        txn_table_foreach(h->svc.txns, list_one, &w);
    resp.transaction_states = w.out;
    resp.state_count = w.count;
    handler_begin_response(h, &req->header);
    wire_list_transactions_response_encode(&h->out, v, &resp);
    handler_finish_response(h, req->slot);
}
