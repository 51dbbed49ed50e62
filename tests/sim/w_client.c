/* Simulated Kafka clients of the whole-server simulation (w_client.h). Each
 * client acts on its own W_EV_CLIENT chain (one wake-up every 5-50 ms, kept
 * alive for the whole run so it notices w->clients_on turning back on),
 * encodes real requests with the wire encoders, sends them through w_net and
 * decodes every answer strictly (correlation id, every byte taken). Record
 * values are unique 8-byte big-endian numbers: the client index in the top 8
 * bits, a per-client counter below. The group clients' protocol is in
 * w_client_group.c and w_client_member.c. All randomness comes from w->rng. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "kq/buf.h"
#include "kq/kafka_errors.h"
#include "kq/record.h"
#include "kq/wire.h"
#include "kq/wire_fetch.h"
#include "kq/wire_init_producer_id.h"
#include "kq/wire_produce.h"
#include "kq/txn.h"
#include "prng.h"
#include "w_check.h"
#include "w_client.h"
#include "w_client_internal.h"

/* ---- small helpers */

static w_client *wc_get(w_world *w, int idx)
{
    return idx >= 0 && idx < SIM_CLIENTS_MAX ? w->clients[idx] : NULL;
}

const char *wc_error_name(int16_t e)
{
    switch (e) {
    case KAFKA_NONE: return "NONE";
    case KAFKA_OFFSET_OUT_OF_RANGE: return "OFFSET_OUT_OF_RANGE";
    case KAFKA_CORRUPT_MESSAGE: return "CORRUPT_MESSAGE";
    case KAFKA_UNKNOWN_TOPIC_OR_PARTITION: return "UNKNOWN_TOPIC_OR_PARTITION";
    case KAFKA_NOT_LEADER_OR_FOLLOWER: return "NOT_LEADER_OR_FOLLOWER";
    case KAFKA_REQUEST_TIMED_OUT: return "REQUEST_TIMED_OUT";
    case KAFKA_NOT_ENOUGH_REPLICAS: return "NOT_ENOUGH_REPLICAS";
    case KAFKA_INVALID_REQUEST: return "INVALID_REQUEST";
    case KAFKA_OUT_OF_ORDER_SEQUENCE_NUMBER: return "OUT_OF_ORDER_SEQUENCE_NUMBER";
    case KAFKA_DUPLICATE_SEQUENCE_NUMBER: return "DUPLICATE_SEQUENCE_NUMBER";
    case KAFKA_INVALID_PRODUCER_EPOCH: return "INVALID_PRODUCER_EPOCH";
    case KAFKA_INVALID_RECORD: return "INVALID_RECORD";
    case KAFKA_KAFKA_STORAGE_ERROR: return "KAFKA_STORAGE_ERROR";
    case KAFKA_UNKNOWN_PRODUCER_ID: return "UNKNOWN_PRODUCER_ID";
    case KAFKA_FENCED_LEADER_EPOCH: return "FENCED_LEADER_EPOCH";
    case KAFKA_UNKNOWN_LEADER_EPOCH: return "UNKNOWN_LEADER_EPOCH";
    case KAFKA_COORDINATOR_LOAD_IN_PROGRESS: return "COORDINATOR_LOAD_IN_PROGRESS";
    case KAFKA_COORDINATOR_NOT_AVAILABLE: return "COORDINATOR_NOT_AVAILABLE";
    case KAFKA_NOT_COORDINATOR: return "NOT_COORDINATOR";
    case KAFKA_ILLEGAL_GENERATION: return "ILLEGAL_GENERATION";
    case KAFKA_UNKNOWN_MEMBER_ID: return "UNKNOWN_MEMBER_ID";
    case KAFKA_REBALANCE_IN_PROGRESS: return "REBALANCE_IN_PROGRESS";
    case KAFKA_INVALID_GROUP_ID: return "INVALID_GROUP_ID";
    case KAFKA_UNSUPPORTED_VERSION: return "UNSUPPORTED_VERSION";
    case KAFKA_MEMBER_ID_REQUIRED: return "MEMBER_ID_REQUIRED";
    default: return kafka_error_name(e);
    }
}

static uint64_t wc_be64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = (v << 8) | p[i];
    return v;
}

static void wc_put_be64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--) {
        p[i] = (uint8_t)(v & 0xff);
        v >>= 8;
    }
}

int32_t wc_sequence_add(int32_t seq, int32_t n)
{
    int64_t s = (int64_t)seq + n;
    if (s > INT32_MAX)
        s -= (int64_t)INT32_MAX + 1;
    return (int32_t)s;
}

int wc_count_op(const w_client *c, enum wc_op op)
{
    int n = 0;
    for (int i = 0; i < WC_INFLIGHT_MAX; i++)
        if (c->inflight[i].used && c->inflight[i].op == op)
            n++;
    return n;
}

static void wc_schedule(w_world *w, const w_client *c)
{
    int64_t delay_ms = sim_prng_range(&w->rng, WC_PACE_MIN_MS, WC_PACE_MAX_MS);
    w_schedule(w, w->now + delay_ms, W_EV_CLIENT, c->idx, 0, 0, NULL);
}

/* The node for the next request: a hint once, else mostly the leader. */
static int wc_target(w_world *w, w_client *c)
{
    if (c->hint_node >= 0 && c->hint_node < w->n) {
        int node = c->hint_node;
        c->hint_node = -1;
        return node;
    }
    c->hint_node = -1;
    int leader = w_current_leader(w);
    if (sim_prng_chance(&w->rng, WC_LEADER_PPM) && leader >= 0)
        return leader;
    return (int)sim_prng_below(&w->rng, (uint64_t)w->n);
}

static void wc_hint(w_world *w, w_client *c, int32_t leader_id, int32_t leader_epoch)
{
    if (leader_id < 0)
        return;
    int node = w_node_index(w, leader_id);
    if (node >= 0)
        c->hint_node = node;
    if (leader_epoch >= 0)
        c->known_epoch = leader_epoch;
}

/* ---- sending and matching answers */

/* Starts c->frame with a request header; returns the correlation id. */
int32_t wc_begin(w_client *c, int16_t key, int16_t version)
{
    c->next_corr = c->next_corr == INT32_MAX ? 1 : c->next_corr + 1;
    kq_writer_reset(&c->frame);
    wire_request_header hdr = {.api_key = key, .api_version = version,
                               .correlation_id = c->next_corr,
                               .client_id = kq_slice_cstr(c->client_id)};
    wire_request_header_encode(&c->frame, &hdr);
    return c->next_corr;
}

/* Sends c->frame to f->node and records f as in flight. */
void wc_send(w_world *w, w_client *c, const wc_inflight *f, int32_t timeout_ms)
{
    if (c->frame.error) {
        w_fail(w, "client %d: cannot encode request (op %d v%d)", c->idx, (int)f->op,
               f->version);
        return;
    }
    wc_inflight *slot = NULL;
    for (int i = 0; i < WC_INFLIGHT_MAX && !slot; i++)
        if (!c->inflight[i].used)
            slot = &c->inflight[i];
    if (!slot) {
        w_fail(w, "client %d: more than %d requests in flight", c->idx, WC_INFLIGHT_MAX);
        return;
    }
    *slot = *f;
    slot->used = true;
    slot->sent_ms = w->now;
    slot->ref = ++c->next_ref;
    c->inflight_n++;
    w_net_client_send(w, c->idx, f->node, c->frame.data, c->frame.len, slot->ref, timeout_ms);
}

static bool wc_take(w_client *c, uint64_t ref, wc_inflight *out)
{
    for (int i = 0; i < WC_INFLIGHT_MAX; i++) {
        wc_inflight *f = &c->inflight[i];
        if (f->used && f->ref == ref) {
            *out = *f;
            f->used = false;
            c->inflight_n--;
            return true;
        }
    }
    return false;
}

/* A reader over the body of an answer, after its header (correlation id
 * checked); the arena is reset for the body's decoder. */
bool wc_open_response(w_world *w, w_client *c, const wc_inflight *f, int16_t key,
                             const uint8_t *bytes, size_t len, kq_reader *r)
{
    kq_reader_init(r, bytes, len);
    int32_t corr = 0;
    if (wire_response_header_decode(r, key, f->version, &corr) != 0) {
        w_fail(w, "client %d: malformed %s v%d response header from node %d", c->idx,
               wire_api_name(key), f->version, f->node);
        return false;
    }
    if (corr != f->corr) {
        w_fail(w, "client %d: %s v%d response from node %d has correlation id %d, sent %d",
               c->idx, wire_api_name(key), f->version, f->node, corr, f->corr);
        return false;
    }
    kq_arena_reset(&c->arena);
    return true;
}

bool wc_body_ok(w_world *w, const w_client *c, const wc_inflight *f, int16_t key,
                       const kq_reader *r, int rc)
{
    if (rc == 0 && !r->error && kq_reader_remaining(r) == 0)
        return true;
    w_fail(w, "client %d: malformed %s v%d response from node %d (rc %d, %zu bytes left)",
           c->idx, wire_api_name(key), f->version, f->node, rc, kq_reader_remaining(r));
    return false;
}

/* ---- record batches */

/* Replaces the records of the uncompressed batch in b with their gzip
 * stream: attributes, Length and CRC rewritten. */
static bool wc_gzip_batch(kq_writer *b)
{
    if (b->len <= RECORD_BATCH_HEADER_BYTES)
        return false;
    size_t plain_len = b->len - RECORD_BATCH_HEADER_BYTES;
    uint8_t *plain = malloc(plain_len);
    if (!plain)
        return false;
    memcpy(plain, b->data + RECORD_BATCH_HEADER_BYTES, plain_len);
    z_stream zs;
    memset(&zs, 0, sizeof(zs));
    bool ok = false;
    if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8,
                     Z_DEFAULT_STRATEGY) == Z_OK) {
        size_t bound = deflateBound(&zs, (uLong)plain_len);
        b->len = RECORD_BATCH_HEADER_BYTES;
        uint8_t *dst = kq_writer_reserve(b, bound);
        if (dst) {
            zs.next_in = plain;
            zs.avail_in = (uInt)plain_len;
            zs.next_out = dst;
            zs.avail_out = (uInt)bound;
            ok = deflate(&zs, Z_FINISH) == Z_STREAM_END;
            b->len -= zs.avail_out;
        }
        deflateEnd(&zs);
    }
    free(plain);
    if (!ok)
        return false;
    b->data[22] = (uint8_t)(b->data[22] | RECORD_COMPRESSION_GZIP); /* attributes, low byte */
    kq_writer_patch_i32(b, 8, (int32_t)(b->len - RECORD_BATCH_LOG_OVERHEAD));
    uint32_t crc = kq_crc32c(0, b->data + 21, b->len - 21);
    for (int i = 0; i < 4; i++)
        b->data[17 + i] = (uint8_t)(crc >> (24 - 8 * i));
    return true;
}

/* The next fresh value: the client index in the top 8 bits, a counter
 * below; a transactional producer's also name the transaction and the
 * record in it (bits 24-55 and 0-23, w_check_txn.c reads them). */
static uint64_t wc_next_value(w_client *c)
{
    uint64_t client = (uint64_t)c->idx << WC_VALUE_CLIENT_SHIFT;
    if (c->kind == W_CLIENT_TXN)
        return client | ((uint64_t)c->txn.txn_no << 24) | (++c->txn.rec_no & 0xffffff);
    c->value_seq++;
    return client | (c->value_seq & WC_VALUE_SEQ_MASK);
}

/* Builds a new batch of 1-3 fresh values into c->batch and reports them. */
bool wc_build_batch(w_world *w, w_client *c, int32_t base_sequence)
{
    wc_batch *b = &c->batch;
    uint8_t value_bytes[WC_BATCH_RECORDS_MAX][8];
    record recs[WC_BATCH_RECORDS_MAX];
    int64_t ts_ms = WC_TIMESTAMP_BASE_MS + w->now;
    b->count = (int)sim_prng_range(&w->rng, 1, WC_BATCH_RECORDS_MAX);
    for (int i = 0; i < b->count; i++) {
        b->values[i] = wc_next_value(c);
        wc_put_be64(value_bytes[i], b->values[i]);
        memset(&recs[i], 0, sizeof(recs[i]));
        recs[i].timestamp = ts_ms;
        recs[i].key = (kq_slice){NULL, -1};
        recs[i].value = (kq_slice){value_bytes[i], 8};
    }
    bool idem = c->producer_id >= 0;
    record_batch_builder_args a = {
        .base_offset = 0,
        .partition_leader_epoch = -1,
        .attributes = c->kind == W_CLIENT_TXN ? RECORD_ATTR_TRANSACTIONAL : 0,
        .base_timestamp = ts_ms,
        .producer_id = idem ? c->producer_id : -1,
        .producer_epoch = idem ? c->producer_epoch : -1,
        .base_sequence = idem ? base_sequence : -1,
        .records = recs,
        .record_count = b->count,
    };
    kq_writer_reset(&b->bytes);
    bool ok = record_batch_build(&b->bytes, &a);
    if (ok && sim_prng_chance(&w->rng, WC_GZIP_PPM))
        ok = wc_gzip_batch(&b->bytes);
    if (ok && !b->bytes.error &&
        record_set_validate(b->bytes.data, b->bytes.len, true, NULL) != RECORD_OK)
        ok = false;
    if (!ok || b->bytes.error) {
        w_fail(w, "client %d: cannot build a record batch", c->idx);
        return false;
    }
    for (int i = 0; i < b->count; i++)
        w_check_on_sent(w, b->values[i]);
    b->live = true;
    b->gen = ++c->batch_gen;
    b->producer_id = a.producer_id;
    b->base_sequence = a.base_sequence;
    b->attempts = 0;
    return true;
}

/* ---- Produce */

static int16_t wc_produce_version(w_world *w)
{
    uint64_t roll = sim_prng_below(&w->rng, 100);
    int16_t v = 9;
    if (roll < 15)
        v = 3;
    else if (roll < 30)
        v = 12;
    else if (roll < 40)
        v = (int16_t)sim_prng_range(&w->rng, 3, 12);
    return wire_api_accepted(WIRE_API_PRODUCE, v) ? v : 9;
}

void wc_send_produce(w_world *w, w_client *c, const kq_writer *batch, uint64_t gen)
{
    int16_t v = wc_produce_version(w);
    int32_t timeout_ms = (int32_t)sim_prng_range(&w->rng, 1000, 5000);
    wire_produce_partition p = {.index = 0, .records = {batch->data, (int32_t)batch->len}};
    wire_produce_topic t = {.name = kq_slice_cstr(WIRE_METADATA_TOPIC_NAME), .partitions = &p,
                            .partition_count = 1};
    kq_slice tid = c->kind == W_CLIENT_TXN ? kq_slice_cstr(c->txn.tid_s) : (kq_slice){NULL, -1};
    wire_produce_request req = {.transactional_id = tid, .acks = c->acks,
                                .timeout_ms = timeout_ms, .topics = &t, .topic_count = 1};
    wc_inflight f = {.op = WC_OP_PRODUCE, .version = v, .acks = c->acks, .batch_gen = gen,
                     .txn_inst = c->txn.inst};
    f.corr = wc_begin(c, WIRE_API_PRODUCE, v);
    wire_produce_request_encode(&c->frame, v, &req);
    f.node = wc_target(w, c);
    /* acks=0 is never answered: the failure comes when the wait ends. The
     * others sometimes give up before the server's own timeout. */
    int32_t wait_ms = c->acks == 0
                          ? (int32_t)sim_prng_range(&w->rng, 100, 1000)
                          : (int32_t)sim_prng_range(&w->rng, timeout_ms / 2, timeout_ms + 2000);
    wc_send(w, c, &f, wait_ms);
}

/* The single partition result of a Produce answer. */
bool wc_decode_produce(w_world *w, w_client *c, const wc_inflight *f, const uint8_t *bytes,
                       size_t len, wire_produce_partition_response *out)
{
    kq_reader r;
    if (!wc_open_response(w, c, f, WIRE_API_PRODUCE, bytes, len, &r))
        return false;
    wire_produce_response resp;
    int rc = wire_produce_response_decode(&r, f->version, &c->arena, &resp);
    if (!wc_body_ok(w, c, f, WIRE_API_PRODUCE, &r, rc))
        return false;
    if (resp.topic_count != 1 ||
        !kq_slice_eq_cstr(resp.topics[0].name, WIRE_METADATA_TOPIC_NAME) ||
        resp.topics[0].partition_count != 1 || resp.topics[0].partitions[0].index != 0) {
        w_fail(w, "client %d: Produce v%d response from node %d does not answer partition 0 "
                  "of %s", c->idx, f->version, f->node, WIRE_METADATA_TOPIC_NAME);
        return false;
    }
    *out = resp.topics[0].partitions[0];
    return true;
}

static bool wc_produce_retriable(int16_t e)
{
    return e == KAFKA_NOT_LEADER_OR_FOLLOWER || e == KAFKA_REQUEST_TIMED_OUT ||
           e == KAFKA_NOT_ENOUGH_REPLICAS || e == KAFKA_LEADER_NOT_AVAILABLE ||
           e == KAFKA_KAFKA_STORAGE_ERROR || e == KAFKA_NETWORK_EXCEPTION;
}

static void wc_produce_result(w_world *w, w_client *c, const wc_inflight *f,
                              const wire_produce_partition_response *pr)
{
    wc_batch *b = &c->batch;
    bool idem = b->base_sequence >= 0;
    int16_t e = pr->error_code;
    if (e == KAFKA_NONE) {
        if (pr->base_offset < 0) {
            w_fail(w, "client %d: Produce v%d to node %d succeeded at offset %lld", c->idx,
                   f->version, f->node, (long long)pr->base_offset);
            return;
        }
        if (c->acks == -1)
            w_check_on_acked(w, c->idx, pr->base_offset, b->values, b->count, b->producer_id,
                             b->base_sequence);
        b->live = false;
        return;
    }
    if (e == KAFKA_NOT_LEADER_OR_FOLLOWER)
        wc_hint(w, c, pr->current_leader_id, pr->current_leader_epoch);
    /* A stale leader (cut off, paused, not yet told of the new epoch) lacks
     * the batches its successor committed, so it sees a sequence gap, as a
     * Kafka broker would; only the newest leader's OUT_OF_ORDER is a bug. */
    bool stale = e == KAFKA_OUT_OF_ORDER_SEQUENCE_NUMBER && idem && f->node != w_current_leader(w);
    if (wc_produce_retriable(e) || stale) {
        if (!idem)
            b->live = false; /* may have been appended: a retry could duplicate it */
        return;
    }
    w_fail(w, "client %d: Produce v%d acks=%d to node %d (producer %lld seq %d, attempt %d): %s "
              "(%d)", c->idx, f->version, c->acks, f->node, (long long)b->producer_id,
           b->base_sequence, b->attempts, wc_error_name(e), e);
}

static void wc_on_produce(w_world *w, w_client *c, const wc_inflight *f, const uint8_t *bytes,
                          size_t len)
{
    if (f->acks == 0) {
        if (bytes)
            w_fail(w, "client %d: acks=0 Produce v%d answered by node %d", c->idx, f->version,
                   f->node);
        return;
    }
    wc_batch *b = &c->batch;
    bool current = b->live && b->gen == f->batch_gen;
    if (!bytes) {
        /* Outcome unknown: the idempotent producer resends the same batch. */
        if (current && b->base_sequence < 0)
            b->live = false;
        return;
    }
    wire_produce_partition_response pr;
    if (!wc_decode_produce(w, c, f, bytes, len, &pr) || !current)
        return;
    wc_produce_result(w, c, f, &pr);
}

/* ---- InitProducerId */

static void wc_send_init(w_world *w, w_client *c)
{
    int16_t v = 4;
    if (sim_prng_chance(&w->rng, 200000))
        v = (int16_t)sim_prng_range(&w->rng, 0, 5);
    if (!wire_api_accepted(WIRE_API_INIT_PRODUCER_ID, v))
        v = 4;
    wire_init_producer_id_request req = {.transactional_id = {NULL, -1},
                                         .transaction_timeout_ms = WC_TXN_TIMEOUT_MS,
                                         .producer_id = -1, .producer_epoch = -1};
    wc_inflight f = {.op = WC_OP_INIT_PID, .version = v};
    f.corr = wc_begin(c, WIRE_API_INIT_PRODUCER_ID, v);
    wire_init_producer_id_request_encode(&c->frame, v, &req);
    f.node = (int)sim_prng_below(&w->rng, (uint64_t)w->n);
    c->init_left--;
    wc_send(w, c, &f, (int32_t)sim_prng_range(&w->rng, 500, 2000));
}

static void wc_on_init(w_world *w, w_client *c, const wc_inflight *f, const uint8_t *bytes,
                       size_t len)
{
    if (!bytes)
        return;
    kq_reader r;
    if (!wc_open_response(w, c, f, WIRE_API_INIT_PRODUCER_ID, bytes, len, &r))
        return;
    wire_init_producer_id_response resp;
    int rc = wire_init_producer_id_response_decode(&r, f->version, &c->arena, &resp);
    if (!wc_body_ok(w, c, f, WIRE_API_INIT_PRODUCER_ID, &r, rc))
        return;
    int16_t e = resp.error_code;
    if (e == KAFKA_NONE) {
        if (resp.producer_id < 0 || resp.producer_epoch != 0) {
            w_fail(w, "client %d: InitProducerId v%d from node %d gave producer %lld epoch %d",
                   c->idx, f->version, f->node, (long long)resp.producer_id,
                   resp.producer_epoch);
            return;
        }
        w_check_on_producer_id(w, c->idx, resp.producer_id);
        c->init_got = resp.producer_id;
        return;
    }
    if (e == KAFKA_NOT_LEADER_OR_FOLLOWER || e == KAFKA_COORDINATOR_NOT_AVAILABLE ||
        e == KAFKA_NOT_CONTROLLER || e == KAFKA_REQUEST_TIMED_OUT ||
        e == KAFKA_KAFKA_STORAGE_ERROR)
        return;
    w_fail(w, "client %d: InitProducerId v%d from node %d: %s (%d)", c->idx, f->version, f->node,
           wc_error_name(e), e);
}

/* A (re)started idempotent producer: a new id, the unacknowledged batch
 * abandoned (its values may or may not reach the log). */
static void wc_restart(w_world *w, w_client *c)
{
    c->producer_id = -1;
    c->producer_epoch = -1;
    c->next_sequence = 0;
    c->init_got = -1;
    c->batch.live = false;
    c->init_left = 1;
    if (sim_prng_chance(&w->rng, WC_BURST_PPM))
        c->init_left = (int)sim_prng_range(&w->rng, WC_BURST_MIN, WC_BURST_MAX);
    w_trace(w, "client %d: producer (re)starts with %d InitProducerId", c->idx, c->init_left);
}

/* Once every InitProducerId of a (re)start is answered: the newest id, or
 * one more request if none succeeded. */
static void wc_settle_producer_id(w_client *c)
{
    if (c->producer_id >= 0 || c->init_left > 0 || wc_count_op(c, WC_OP_INIT_PID) > 0)
        return;
    if (c->init_got < 0) {
        c->init_left = 1;
        return;
    }
    c->producer_id = c->init_got;
    c->producer_epoch = 0;
    c->next_sequence = 0;
    c->init_got = -1;
}

/* ---- producer actions */

static void wc_act_idempotent(w_world *w, w_client *c)
{
    bool may_start = w->clients_on && !c->stop_new;
    wc_settle_producer_id(c);
    bool produce_busy = wc_count_op(c, WC_OP_PRODUCE) > 0;
    /* Never while a Produce is out, so acks stay in send order. */
    if (c->producer_id >= 0 && may_start && !produce_busy &&
        sim_prng_chance(&w->rng, WC_RESTART_PPM))
        wc_restart(w, c);
    if (c->producer_id < 0) {
        if (may_start && c->init_left > 0 && c->inflight_n < WC_INFLIGHT_MAX)
            wc_send_init(w, c);
        return;
    }
    if (produce_busy)
        return;
    if (!c->batch.live) {
        if (!may_start || !wc_build_batch(w, c, c->next_sequence))
            return;
        c->next_sequence = wc_sequence_add(c->next_sequence, c->batch.count);
    }
    c->batch.attempts++;
    wc_send_produce(w, c, &c->batch.bytes, c->batch.gen);
}

static void wc_act_plain(w_world *w, w_client *c)
{
    if (!w->clients_on || c->stop_new)
        return;
    int producing = wc_count_op(c, WC_OP_PRODUCE);
    if (c->acks == 0) {
        if (producing >= WC_ACKS_ZERO_INFLIGHT_MAX || !wc_build_batch(w, c, -1))
            return;
        c->batch.live = false; /* fire and forget */
        wc_send_produce(w, c, &c->batch.bytes, c->batch.gen);
        return;
    }
    if (producing > 0 || c->batch.live || !wc_build_batch(w, c, -1))
        return;
    c->batch.attempts++;
    wc_send_produce(w, c, &c->batch.bytes, c->batch.gen);
}

/* ---- Fetch */

static void wc_send_fetch(w_world *w, w_client *c)
{
    int16_t v = sim_prng_chance(&w->rng, 400000) ? 12 : (int16_t)sim_prng_range(&w->rng, 13, 17);
    if (c->read_committed) /* from v5, which tells the log start (a reset needs it) */
        v = (int16_t)sim_prng_range(&w->rng, 5, 17);
    if (!wire_api_accepted(WIRE_API_FETCH, v))
        v = 12;
    int32_t max_wait_ms = (int32_t)sim_prng_range(&w->rng, 50, 500);
    int32_t epoch = c->known_epoch >= 0 && sim_prng_chance(&w->rng, WC_FETCH_EPOCH_PPM)
                        ? c->known_epoch
                        : -1;
    wire_fetch_partition p = {.partition = 0, .current_leader_epoch = epoch,
                              .fetch_offset = c->fetch_offset, .last_fetched_epoch = -1,
                              .log_start_offset = -1, .partition_max_bytes = WC_FETCH_MAX_BYTES};
    wire_fetch_topic t = {.topic = v < 13 ? kq_slice_cstr(WIRE_METADATA_TOPIC_NAME)
                                          : (kq_slice){NULL, -1},
                          .partitions = &p, .partition_count = 1};
    if (v >= 13)
        t.topic_id = WIRE_METADATA_TOPIC_ID;
    wire_fetch_request req = {.cluster_id = {NULL, -1}, .replica_id = -1, .replica_epoch = -1,
                              .max_wait_ms = max_wait_ms, .min_bytes = 1,
                              .max_bytes = WC_FETCH_MAX_BYTES, .session_epoch = -1,
                              .isolation_level = c->read_committed ? 1 : 0,
                              .topics = &t, .topic_count = 1,
                              .rack_id = kq_slice_cstr("")};
    wc_inflight f = {.op = WC_OP_FETCH, .version = v, .fetch_offset = c->fetch_offset};
    f.corr = wc_begin(c, WIRE_API_FETCH, v);
    wire_fetch_request_encode(&c->frame, v, &req);
    f.node = wc_target(w, c);
    wc_send(w, c, &f, max_wait_ms + (int32_t)sim_prng_range(&w->rng, 500, 2000));
}

/* Reports the data records of one batch at or above from_offset. */
static bool wc_consume_batch(w_world *w, w_client *c, const uint8_t *batch, size_t len,
                             int64_t from_offset)
{
    record_iter it;
    bool ok = record_iter_open(&it, batch, len) == RECORD_OK;
    record rec;
    while (ok && record_iter_next(&it, &rec)) {
        if (rec.offset < from_offset)
            continue;
        if (rec.value.len != 8) {
            w_fail(w, "client %d: consumed record at offset %lld has a %d-byte value", c->idx,
                   (long long)rec.offset, (int)rec.value.len);
            ok = false;
            break;
        }
        w_check_on_consumed(w, c->idx, rec.offset, wc_be64(rec.value.ptr));
        if (c->read_committed)
            w_check_txn_on_rc_read(w, c->idx, rec.offset, wc_be64(rec.value.ptr));
    }
    if (ok && it.status != RECORD_OK) {
        w_fail(w, "client %d: fetched batch at offset %lld: %s", c->idx,
               (long long)it.header.base_offset, record_status_name(it.status));
        ok = false;
    }
    record_iter_close(&it);
    return ok;
}

/* read_committed, as Kafka's consumer reads a fetched partition
 * (CompletedFetch): the answer's aborted transactions, in first-offset
 * order, make their producer ids aborted from the batch holding their
 * first offset on, until that producer's ABORT marker. */
#define WC_RC_PIDS_MAX 64
typedef struct wc_rc {
    const wire_fetch_partition_data *pd;
    int32_t next;                      /* aborted_transactions taken */
    int64_t pids[WC_RC_PIDS_MAX];      /* aborted producer ids */
    int pid_n;
} wc_rc;

static int wc_rc_find(const wc_rc *rc, int64_t pid)
{
    for (int i = 0; i < rc->pid_n; i++)
        if (rc->pids[i] == pid)
            return i;
    return -1;
}

/* Whether a read_committed consumer skips this batch (data or control). */
static bool wc_rc_skips(w_world *w, w_client *c, wc_rc *rc, const uint8_t *batch, size_t len,
                        const record_batch_header *h)
{
    if (h->producer_id < 0)
        return false;
    int64_t last = record_batch_last_offset(h);
    const wire_fetch_partition_data *pd = rc->pd;
    while (pd->aborted_transaction_count > 0 && rc->next < pd->aborted_transaction_count &&
           pd->aborted_transactions[rc->next].first_offset <= last) {
        int64_t pid = pd->aborted_transactions[rc->next++].producer_id;
        if (wc_rc_find(rc, pid) < 0 && rc->pid_n < WC_RC_PIDS_MAX)
            rc->pids[rc->pid_n++] = pid;
        else if (wc_rc_find(rc, pid) < 0)
            w_fail(w, "client %d: more than %d aborted producers in one Fetch", c->idx,
                   WC_RC_PIDS_MAX);
    }
    int64_t pid;
    int16_t epoch;
    bool commit;
    int at = wc_rc_find(rc, h->producer_id);
    if (record_batch_is_control(h)) {
        if (at >= 0 && txn_parse_marker(batch, len, &pid, &epoch, &commit) && !commit)
            rc->pids[at] = rc->pids[--rc->pid_n];
        return true;
    }
    return (h->attributes & RECORD_ATTR_TRANSACTIONAL) && at >= 0;
}

/* Walks the fetched batches (contiguous offsets, a torn tail ignored) and
 * moves the fetch offset past the last whole one. */
static void wc_consume(w_world *w, w_client *c, const wire_fetch_partition_data *pd)
{
    kq_slice records = pd->records;
    wc_rc rc = {.pd = pd};
    size_t len = records.len > 0 ? (size_t)records.len : 0;
    size_t pos = 0;
    int64_t next = c->fetch_offset;
    while (pos < len) {
        record_batch_header h;
        memset(&h, 0, sizeof(h));
        enum record_status s = record_batch_check(records.ptr + pos, len - pos, &h);
        if (s == RECORD_TRUNCATED)
            break;
        if (s != RECORD_OK || h.base_offset > next) {
            w_fail(w, "client %d: Fetch at offset %lld: batch at byte %zu (offset %lld): %s",
                   c->idx, (long long)c->fetch_offset, pos, (long long)h.base_offset,
                   s != RECORD_OK ? record_status_name(s) : "offsets skipped");
            return;
        }
        int64_t last = record_batch_last_offset(&h);
        if (last >= next) {
            bool skip = c->read_committed &&
                        wc_rc_skips(w, c, &rc, records.ptr + pos, record_batch_size(&h), &h);
            skip = skip || record_batch_is_control(&h);
            if (w->failed ||
                (!skip && !wc_consume_batch(w, c, records.ptr + pos, record_batch_size(&h), next)))
                return;
            next = last + 1;
        }
        pos += record_batch_size(&h);
    }
    c->fetch_offset = next;
    if (c->read_committed)
        w_check_txn_on_rc_position(w, c->idx, next);
}

static bool wc_fetch_topic_ok(const wire_fetch_topic_response *t, int16_t version)
{
    if (version >= 13)
        return memcmp(t->topic_id.bytes, WIRE_METADATA_TOPIC_ID.bytes, 16) == 0;
    return kq_slice_eq_cstr(t->topic, WIRE_METADATA_TOPIC_NAME);
}

static void wc_on_fetch(w_world *w, w_client *c, const wc_inflight *f, const uint8_t *bytes,
                        size_t len)
{
    kq_reader r;
    if (!bytes || !wc_open_response(w, c, f, WIRE_API_FETCH, bytes, len, &r))
        return;
    wire_fetch_response resp;
    int rc = wire_fetch_response_decode(&r, f->version, &c->arena, &resp);
    if (!wc_body_ok(w, c, f, WIRE_API_FETCH, &r, rc))
        return;
    if (resp.error_code != KAFKA_NONE) {
        w_trace(w, "client %d: Fetch from node %d: %s", c->idx, f->node,
                wc_error_name(resp.error_code));
        return;
    }
    if (resp.response_count != 1 || !wc_fetch_topic_ok(&resp.responses[0], f->version) ||
        resp.responses[0].partition_count != 1 ||
        resp.responses[0].partitions[0].partition_index != 0) {
        w_fail(w, "client %d: Fetch v%d response from node %d does not answer partition 0",
               c->idx, f->version, f->node);
        return;
    }
    const wire_fetch_partition_data *pd = &resp.responses[0].partitions[0];
    switch (pd->error_code) {
    case KAFKA_NONE:
        w_check_txn_on_lso(w, c->idx, f->node, pd->high_watermark, pd->last_stable_offset);
        if (f->fetch_offset == c->fetch_offset && !w->failed)
            wc_consume(w, c, pd);
        return;
    case KAFKA_NOT_LEADER_OR_FOLLOWER:
        if (pd->has_current_leader)
            wc_hint(w, c, pd->current_leader.leader_id, pd->current_leader.leader_epoch);
        return;
    case KAFKA_FENCED_LEADER_EPOCH:
    case KAFKA_UNKNOWN_LEADER_EPOCH:
        c->known_epoch = -1;
        return;
    case KAFKA_OFFSET_OUT_OF_RANGE:
        w_check_on_out_of_range(w, c->idx, f->fetch_offset, pd->log_start_offset,
                                pd->high_watermark);
        /* Retention moved the log start past us: reset to the earliest
         * offset, as auto.offset.reset=earliest does. */
        if (f->fetch_offset == c->fetch_offset && pd->log_start_offset > c->fetch_offset) {
            w_trace(w, "client %d: offset %lld is below the log start %lld: reset", c->idx,
                    (long long)c->fetch_offset, (long long)pd->log_start_offset);
            c->fetch_offset = pd->log_start_offset;
            if (c->read_committed)
                w_check_txn_on_rc_reset(w, c->idx, c->fetch_offset);
        }
        return;
    case KAFKA_KAFKA_STORAGE_ERROR:
    case KAFKA_LEADER_NOT_AVAILABLE:
        return;
    default:
        w_fail(w, "client %d: Fetch v%d at offset %lld from node %d: %s (%d)", c->idx,
               f->version, (long long)f->fetch_offset, f->node, wc_error_name(pd->error_code),
               pd->error_code);
    }
}

/* ---- Forged replica fetches (issue 9) */

/* Claims to be a random follower voter that has everything the leader
 * has: a Fetch at the leader's end with replica_id set, as any client on a
 * client listener could send. Taken, it would count that voter as caught
 * up (majority-durable, acked-durable); it must be refused. */
static void wc_send_forged_fetch(w_world *w, w_client *c)
{
    int L = w_current_leader(w);
    raft_status st;
    if (L < 0 || w->p.voters < 2 || !w_node_status(w, L, &st))
        return;
    int victim = (int)sim_prng_below(&w->rng, (uint64_t)w->p.voters - 1);
    if (victim >= L)
        victim++;
    int16_t v = (int16_t)sim_prng_range(&w->rng, 13, 17);
    wire_fetch_partition p = {.partition = 0, .current_leader_epoch = st.epoch,
                              .fetch_offset = st.log_end_offset,
                              .last_fetched_epoch = st.epoch, .log_start_offset = -1,
                              .partition_max_bytes = WC_FETCH_MAX_BYTES};
    wire_fetch_topic t = {.topic = {NULL, -1}, .topic_id = WIRE_METADATA_TOPIC_ID,
                          .partitions = &p, .partition_count = 1};
    wire_fetch_request req = {.cluster_id = kq_slice_cstr(w->cfg.cluster_id),
                              .replica_id = w->nodes[victim].id, .replica_epoch = -1,
                              .max_wait_ms = 0, .min_bytes = 1, .max_bytes = WC_FETCH_MAX_BYTES,
                              .session_epoch = -1, .topics = &t, .topic_count = 1,
                              .rack_id = kq_slice_cstr("")};
    wc_inflight f = {.op = WC_OP_FORGE, .version = v, .fetch_offset = st.log_end_offset};
    f.corr = wc_begin(c, WIRE_API_FETCH, v);
    wire_fetch_request_encode(&c->frame, v, &req);
    f.node = L;
    wc_send(w, c, &f, (int32_t)sim_prng_range(&w->rng, 500, 2000));
}

static void wc_on_forged_fetch(w_world *w, w_client *c, const wc_inflight *f,
                               const uint8_t *bytes, size_t len)
{
    kq_reader r;
    if (!bytes || !wc_open_response(w, c, f, WIRE_API_FETCH, bytes, len, &r))
        return;
    wire_fetch_response resp;
    int rc = wire_fetch_response_decode(&r, f->version, &c->arena, &resp);
    if (!wc_body_ok(w, c, f, WIRE_API_FETCH, &r, rc))
        return;
    w_trace(w, "client %d: forged replica Fetch at %lld to node %d: %s", c->idx,
            (long long)f->fetch_offset, f->node, wc_error_name(resp.error_code));
}

/* ---- w_client.h */

static int16_t wc_acks_of(w_client_kind kind)
{
    switch (kind) {
    case W_CLIENT_ACKS_ONE: return 1;
    case W_CLIENT_ACKS_ZERO: return 0;
    default: return -1;
    }
}

w_client *w_client_create(w_world *w, int idx, w_client_kind kind)
{
    if (idx < 0 || idx >= SIM_CLIENTS_MAX || w->n <= 0)
        return NULL;
    w_client *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    c->idx = idx;
    c->kind = kind;
    snprintf(c->client_id, sizeof(c->client_id), "sim-client-%d", idx);
    c->hint_node = -1;
    c->known_epoch = -1;
    c->acks = wc_acks_of(kind);
    c->producer_id = -1;
    c->producer_epoch = -1;
    c->init_got = -1;
    kq_arena_init(&c->arena, WC_ARENA_BYTES_MAX);
    kq_writer_init(&c->frame, 0);
    kq_writer_init(&c->batch.bytes, 0);
    if (kind == W_CLIENT_IDEMPOTENT)
        wc_restart(w, c);
    if (kind == W_CLIENT_GROUP || kind == W_CLIENT_GROUP_MEMBER ||
        kind == W_CLIENT_CONSUMER_MEMBER)
        wc_group_init(w, c);
    if (kind == W_CLIENT_CONSUMER_MEMBER)
        wcn_init(w, c, idx);
    if (kind == W_CLIENT_FLOOD)
        wcf_init(w, c);
    if (kind == W_CLIENT_CONNFLOOD)
        wcc_init(w, c);
    if (kind == W_CLIENT_TXN)
        wcx_init(w, c, idx);
    c->read_committed = kind == W_CLIENT_CONSUMER_RC;
    w->clients[idx] = c; /* the caller counts it in w->client_n */
    wc_schedule(w, c);
    return c;
}

void w_client_destroy(w_client *c)
{
    if (!c)
        return;
    kq_arena_free(&c->arena);
    kq_writer_free(&c->frame);
    kq_writer_free(&c->batch.bytes);
    free(c);
}

void w_client_on_event(w_world *w, int idx)
{
    w_client *c = wc_get(w, idx);
    if (!c || w->failed)
        return;
    switch (c->kind) {
    case W_CLIENT_IDEMPOTENT:
        wc_act_idempotent(w, c);
        break;
    case W_CLIENT_ACKS_ALL:
    case W_CLIENT_ACKS_ONE:
    case W_CLIENT_ACKS_ZERO:
        wc_act_plain(w, c);
        break;
    case W_CLIENT_CONSUMER:
    case W_CLIENT_CONSUMER_RC:
        if (wc_count_op(c, WC_OP_FETCH) == 0)
            wc_send_fetch(w, c);
        if (!w->failed && w->clients_on && !c->stop_new &&
            wc_count_op(c, WC_OP_LIST_OFFSETS) == 0 && sim_prng_chance(&w->rng, 300000))
            wco_send_list_offsets(w, c);
        break;
    case W_CLIENT_FORGER:
        if (wc_count_op(c, WC_OP_FORGE) == 0)
            wc_send_forged_fetch(w, c);
        break;
    case W_CLIENT_GROUP:
    case W_CLIENT_GROUP_MEMBER:
    case W_CLIENT_CONSUMER_MEMBER:
        wc_act_group(w, c);
        break;
    case W_CLIENT_HOSTILE:
        wch_act(w, c);
        break;
    case W_CLIENT_FLOOD:
        wcf_act(w, c);
        break;
    case W_CLIENT_CONNFLOOD:
        wcc_act(w, c);
        break;
    case W_CLIENT_OPERATOR:
        wcop_act(w, c);
        break;
    case W_CLIENT_TXN:
        wcx_act(w, c);
        break;
    }
    if (!w->failed)
        wc_schedule(w, c);
}

void w_client_on_response(w_world *w, int idx, uint64_t client_ref, const uint8_t *bytes,
                          size_t len)
{
    w_client *c = wc_get(w, idx);
    if (!c || c->kind == W_CLIENT_FLOOD || c->kind == W_CLIENT_CONNFLOOD)
        return; /* it never reads: outcomes are not looked at */
    wc_inflight f;
    if (!wc_take(c, client_ref, &f)) {
        w_fail(w, "client %d: an outcome for request %llu, which is not in flight", idx,
               (unsigned long long)client_ref);
        return;
    }
    if (w->failed)
        return;
    switch (f.op) {
    case WC_OP_PRODUCE:
        if (c->kind == W_CLIENT_TXN)
            wcx_on_response(w, c, &f, bytes, len);
        else
            wc_on_produce(w, c, &f, bytes, len);
        break;
    case WC_OP_INIT_PID:
        wc_on_init(w, c, &f, bytes, len);
        break;
    case WC_OP_FETCH:
        wc_on_fetch(w, c, &f, bytes, len);
        break;
    case WC_OP_FORGE:
        wc_on_forged_fetch(w, c, &f, bytes, len);
        break;
    case WC_OP_OFFSET_COMMIT:
    case WC_OP_OFFSET_FETCH:
    case WC_OP_FIND_COORDINATOR:
    case WC_OP_DELETE_GROUPS:
    case WC_OP_OFFSET_DELETE:
        wc_on_group_response(w, c, &f, bytes, len);
        break;
    case WC_OP_JOIN_GROUP:
    case WC_OP_SYNC_GROUP:
    case WC_OP_HEARTBEAT:
        wcm_on_response(w, c, &f, bytes, len);
        break;
    case WC_OP_HOSTILE_PRODUCE:
        wch_on_response(w, c, &f, bytes, len);
        break;
    case WC_OP_LIST_OFFSETS:
        wco_on_list_offsets(w, c, &f, bytes, len);
        break;
    case WC_OP_VOTER_CHANGE:
        wcop_on_response(w, c, &f, bytes, len);
        break;
    case WC_OP_TXN:
    case WC_OP_TXN_OFFSET_FETCH:
        wcx_on_response(w, c, &f, bytes, len);
        break;
    case WC_OP_CG_HEARTBEAT:
        wcn_on_response(w, c, &f, bytes, len);
        break;
    }
}

bool w_client_idle(const w_client *c)
{
    /* A consumer polls forever: it never holds anything back; an offset
     * committer is idle with no commit out (it reads back forever). */
    if (c && (c->kind == W_CLIENT_GROUP || c->kind == W_CLIENT_GROUP_MEMBER ||
              c->kind == W_CLIENT_CONSUMER_MEMBER))
        return wc_count_op(c, WC_OP_OFFSET_COMMIT) == 0;
    if (c && (c->kind == W_CLIENT_OPERATOR || c->kind == W_CLIENT_TXN))
        return c->inflight_n == 0;
    return !c || c->kind == W_CLIENT_CONSUMER || c->kind == W_CLIENT_CONSUMER_RC ||
           c->kind == W_CLIENT_FORGER ||
           c->kind == W_CLIENT_HOSTILE ||
           c->kind == W_CLIENT_FLOOD || c->kind == W_CLIENT_CONNFLOOD ||
           (c->inflight_n == 0 && !c->batch.live);
}

bool w_client_on_controller(const w_world *w, int idx)
{
    const w_client *c = idx >= 0 && idx < SIM_CLIENTS_MAX ? w->clients[idx] : NULL;
    return c && c->kind == W_CLIENT_OPERATOR;
}

void w_client_stop_new(w_client *c)
{
    if (c)
        c->stop_new = true;
    if (c && (c->kind == W_CLIENT_FLOOD || c->kind == W_CLIENT_CONNFLOOD) && c->flood_until > 0)
        c->flood_until = 0; /* it closes at its next action */
}
