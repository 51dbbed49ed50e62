/* Transactional producers (W_CLIENT_TXN, issue 23, KIP-98): a producer with
 * transactional id "tx<tid>" runs Kafka's producer loop against the
 * coordinator (the Raft leader): InitProducerId v3+ with its id and a
 * transaction timeout of 1-10 s, then transactions: AddPartitionsToTxn
 * v0-3 for __cluster_metadata/0, 1-5 transactional batches (idempotent
 * sequences, acks -1, Produce with the transactional id), a third of them
 * AddOffsetsToTxn and TxnOffsetCommit for group "t<tid>", and EndTxn with
 * its decision (commit two times in three). One step at a time, retried
 * as Kafka's producer does: NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE,
 * COORDINATOR_LOAD_IN_PROGRESS, CONCURRENT_TRANSACTIONS, a timeout or a
 * closed connection send the same step again (to the leader, or the next
 * node); an EndTxn keeps its decision across retries. PRODUCER_FENCED,
 * INVALID_PRODUCER_EPOCH, INVALID_TXN_STATE (a transaction that timed out
 * ends so) start over with InitProducerId. 1% of its actions restart it
 * (mid-transaction: the coordinator times the transaction out or the next
 * InitProducerId aborts it); a zombie twin shares its id (each
 * InitProducerId fences the other). It reads its group back with
 * OffsetFetch. What it is answered goes to the checker (w_check_txn.c). */
#include <stdio.h>
#include <string.h>

#include "kq/kafka_errors.h"
#include "kq/wire.h"
#include "kq/wire_add_offsets_to_txn.h"
#include "kq/wire_add_partitions_to_txn.h"
#include "kq/wire_end_txn.h"
#include "kq/wire_fetch.h"
#include "kq/wire_init_producer_id.h"
#include "kq/wire_offset_fetch.h"
#include "kq/wire_produce.h"
#include "kq/wire_txn_offset_commit.h"
#include "prng.h"
#include "w_client_internal.h"

#define WCX_RESTART_PPM 10000     /* of actions: the client restarts */
#define WCX_OFFSETS_PPM 333333    /* of transactions: offsets committed in it */
#define WCX_COMMIT_PPM 666666     /* of transactions: committed */
#define WCX_FETCH_PPM 50000       /* of actions: an OffsetFetch of its group */
#define WCX_BACKOFF_MAX_MS 100
#define WCX_TOPIC WIRE_METADATA_TOPIC_NAME
#define WCX_UNSTABLE_OFFSET_COMMIT 88

static int16_t wcx_version(w_world *w, int16_t key, int16_t lo, int16_t hi, int16_t fallback)
{
    int16_t v = (int16_t)sim_prng_range(&w->rng, (uint64_t)lo, (uint64_t)hi);
    return wire_api_accepted(key, v) ? v : fallback;
}

static bool wcx_retriable(int16_t e)
{
    return e == KAFKA_NOT_COORDINATOR || e == KAFKA_COORDINATOR_NOT_AVAILABLE ||
           e == KAFKA_COORDINATOR_LOAD_IN_PROGRESS || e == KAFKA_CONCURRENT_TRANSACTIONS ||
           e == KAFKA_REQUEST_TIMED_OUT;
}

static bool wcx_fenced(int16_t e)
{
    return e == KAFKA_PRODUCER_FENCED || e == KAFKA_INVALID_PRODUCER_EPOCH ||
           e == KAFKA_INVALID_TXN_STATE || e == KAFKA_INVALID_PRODUCER_ID_MAPPING;
}

/* The coordinator is the leader: the one it knows, else a random node. */
static int wcx_target(w_world *w, w_client *c)
{
    int leader = w_current_leader(w);
    if (c->txn.node < 0 || c->txn.node >= w->n)
        c->txn.node = leader >= 0 && sim_prng_below(&w->rng, 4) ? leader
                                                                  : (int)sim_prng_below(&w->rng, (uint64_t)w->n);
    return c->txn.node;
}

/* Look for the coordinator again, after a backoff. */
static void wcx_retry(w_world *w, w_client *c)
{
    c->txn.node = -1;
    c->txn.next_at = w->now + (int64_t)sim_prng_range(&w->rng, 1, WCX_BACKOFF_MAX_MS);
}

/* Start over with InitProducerId (fenced, timed out, or restarted). */
static void wcx_reinit(w_world *w, w_client *c, const char *why)
{
    w_trace(w, "client %d (%s): InitProducerId again: %s", c->idx, c->txn.tid_s, why);
    c->txn.step = WCX_INIT;
    c->batch.live = false;
    c->producer_id = -1;
    c->producer_epoch = -1;
    wcx_retry(w, c);
}

static void wcx_send(w_world *w, w_client *c, int16_t key, int16_t v)
{
    wc_inflight f = {.op = WC_OP_TXN, .version = v, .txn_inst = c->txn.inst, .txn_key = key,
                     .node = wcx_target(w, c)};
    f.corr = c->next_corr; /* wc_begin was called by the encoder's caller */
    wc_send(w, c, &f, (int32_t)sim_prng_range(&w->rng, 1000, 4000));
}

/* ---- the steps */

static void wcx_send_init(w_world *w, w_client *c)
{
    int16_t v = wcx_version(w, WIRE_API_INIT_PRODUCER_ID, 3, 5, 3);
    wire_init_producer_id_request req = {.transactional_id = kq_slice_cstr(c->txn.tid_s),
                                         .transaction_timeout_ms = c->txn.timeout_ms,
                                         .producer_id = -1, .producer_epoch = -1};
    wc_begin(c, WIRE_API_INIT_PRODUCER_ID, v);
    wire_init_producer_id_request_encode(&c->frame, v, &req);
    wcx_send(w, c, WIRE_API_INIT_PRODUCER_ID, v);
}

static void wcx_send_add_partitions(w_world *w, w_client *c)
{
    int16_t v = wcx_version(w, WIRE_API_ADD_PARTITIONS_TO_TXN, 0, 3, 3);
    int32_t partition = 0;
    wire_add_partitions_to_txn_topic t = {.name = kq_slice_cstr(WCX_TOPIC),
                                          .partitions = &partition, .partition_count = 1};
    wire_add_partitions_to_txn_request req = {
        .v3_and_below_transactional_id = kq_slice_cstr(c->txn.tid_s),
        .v3_and_below_producer_id = c->producer_id,
        .v3_and_below_producer_epoch = c->producer_epoch, .v3_and_below_topics = &t,
        .v3_and_below_topic_count = 1};
    wc_begin(c, WIRE_API_ADD_PARTITIONS_TO_TXN, v);
    wire_add_partitions_to_txn_request_encode(&c->frame, v, &req);
    wcx_send(w, c, WIRE_API_ADD_PARTITIONS_TO_TXN, v);
}

static void wcx_send_add_offsets(w_world *w, w_client *c)
{
    int16_t v = wcx_version(w, WIRE_API_ADD_OFFSETS_TO_TXN, 0, 3, 0);
    wire_add_offsets_to_txn_request req = {.transactional_id = kq_slice_cstr(c->txn.tid_s),
                                           .producer_id = c->producer_id,
                                           .producer_epoch = c->producer_epoch,
                                           .group_id = kq_slice_cstr(c->txn.group)};
    wc_begin(c, WIRE_API_ADD_OFFSETS_TO_TXN, v);
    wire_add_offsets_to_txn_request_encode(&c->frame, v, &req);
    wcx_send(w, c, WIRE_API_ADD_OFFSETS_TO_TXN, v);
}

static void wcx_send_commit_offsets(w_world *w, w_client *c)
{
    int16_t v = wcx_version(w, WIRE_API_TXN_OFFSET_COMMIT, 0, 6, 0);
    wire_txn_offset_commit_partition p = {.partition_index = 0,
                                          .committed_offset = c->txn.offset_value,
                                          .committed_leader_epoch = -1,
                                          .committed_metadata = {NULL, -1}};
    wire_txn_offset_commit_topic t = {.name = kq_slice_cstr(WCX_TOPIC), .partitions = &p,
                                      .partition_count = 1};
    if (v >= 6) {
        t.name = (kq_slice){NULL, -1};
        t.topic_id = WIRE_METADATA_TOPIC_ID;
    }
    wire_txn_offset_commit_request req = {
        .transactional_id = kq_slice_cstr(c->txn.tid_s), .group_id = kq_slice_cstr(c->txn.group),
        .producer_id = c->producer_id, .producer_epoch = c->producer_epoch,
        .generation_id_or_member_epoch = -1, .member_id = kq_slice_cstr(""),
        .group_instance_id = {NULL, -1}, .topics = &t, .topic_count = 1};
    wc_begin(c, WIRE_API_TXN_OFFSET_COMMIT, v);
    wire_txn_offset_commit_request_encode(&c->frame, v, &req);
    wcx_send(w, c, WIRE_API_TXN_OFFSET_COMMIT, v);
}

static void wcx_send_end(w_world *w, w_client *c)
{
    int16_t v = wcx_version(w, WIRE_API_END_TXN, 0, 4, 0);
    wire_end_txn_request req = {.transactional_id = kq_slice_cstr(c->txn.tid_s),
                                .producer_id = c->producer_id,
                                .producer_epoch = c->producer_epoch, .committed = c->txn.commit};
    wc_begin(c, WIRE_API_END_TXN, v);
    wire_end_txn_request_encode(&c->frame, v, &req);
    wcx_send(w, c, WIRE_API_END_TXN, v);
}

/* The group read back (v1-7: one group; require_stable half the time). */
static void wcx_send_offset_fetch(w_world *w, w_client *c)
{
    int16_t v = wcx_version(w, WIRE_API_OFFSET_FETCH, 1, 7, 1);
    int32_t partition = 0;
    wire_offset_fetch_request_topic t = {.name = kq_slice_cstr(WCX_TOPIC),
                                         .partition_indexes = &partition,
                                         .partition_index_count = 1};
    wire_offset_fetch_request req = {.group_id = kq_slice_cstr(c->txn.group), .topics = &t,
                                     .topic_count = 1,
                                     .require_stable = v >= 7 && sim_prng_below(&w->rng, 2)};
    wc_inflight f = {.op = WC_OP_TXN_OFFSET_FETCH, .version = v, .txn_inst = c->txn.inst,
                     .node = wcx_target(w, c)};
    f.corr = wc_begin(c, WIRE_API_OFFSET_FETCH, v);
    wire_offset_fetch_request_encode(&c->frame, v, &req);
    f.commit_value = w_check_txn_on_offset_fetch_sent(w, c->txn.tid);
    wc_send(w, c, &f, (int32_t)sim_prng_range(&w->rng, 500, 3000));
}

/* A new transaction: its shape and decision. */
static void wcx_begin(w_world *w, w_client *c)
{
    c->txn.txn_no++;
    c->txn.rec_no = 0;
    c->txn.value_n = 0;
    c->txn.batches_left = (int)sim_prng_range(&w->rng, 1, 5);
    c->txn.with_offsets = sim_prng_chance(&w->rng, WCX_OFFSETS_PPM);
    c->txn.commit = sim_prng_chance(&w->rng, WCX_COMMIT_PPM);
    c->txn.offset_value = ((int64_t)c->idx << 32) | c->txn.txn_no; /* unique in its group */
    c->txn.step = WCX_BEGIN;
}

/* The step due now (nothing of this instance in flight). */
static void wcx_step(w_world *w, w_client *c)
{
    switch (c->txn.step) {
    case WCX_INIT:
        wcx_send_init(w, c);
        break;
    case WCX_BEGIN:
        wcx_send_add_partitions(w, c);
        break;
    case WCX_PRODUCE:
        if (!c->batch.live) {
            if (!wc_build_batch(w, c, c->next_sequence))
                return;
            c->next_sequence = wc_sequence_add(c->next_sequence, c->batch.count);
        }
        c->batch.attempts++;
        wc_send_produce(w, c, &c->batch.bytes, c->batch.gen);
        break;
    case WCX_ADD_OFFSETS:
        wcx_send_add_offsets(w, c);
        break;
    case WCX_COMMIT_OFFSETS:
        wcx_send_commit_offsets(w, c);
        break;
    case WCX_END:
        wcx_send_end(w, c);
        break;
    }
}

/* ---- answers */

static void wcx_on_init(w_world *w, w_client *c, const wire_init_producer_id_response *r,
                        const wc_inflight *f)
{
    if (r->error_code != KAFKA_NONE) {
        if (!wcx_retriable(r->error_code))
            w_fail(w, "client %d: InitProducerId v%d for %s from node %d: %s (%d)", c->idx,
                   f->version, c->txn.tid_s, f->node, wc_error_name(r->error_code),
                   r->error_code);
        wcx_retry(w, c);
        return;
    }
    w_trace(w, "client %d (%s): producer %lld epoch %d", c->idx, c->txn.tid_s,
            (long long)r->producer_id, r->producer_epoch);
    w_check_txn_on_init(w, c->idx, c->txn.tid, r->producer_id, r->producer_epoch);
    if (r->producer_epoch == 0)
        w_check_on_producer_id(w, c->idx, r->producer_id);
    c->producer_id = r->producer_id;
    c->producer_epoch = r->producer_epoch;
    c->next_sequence = 0;
    wcx_begin(w, c);
}

/* The step answered NONE: the next one. */
static void wcx_next(w_world *w, w_client *c)
{
    switch (c->txn.step) {
    case WCX_BEGIN:
        c->txn.step = WCX_PRODUCE;
        break;
    case WCX_PRODUCE:
        if (--c->txn.batches_left <= 0)
            c->txn.step = c->txn.with_offsets ? WCX_ADD_OFFSETS : WCX_END;
        break;
    case WCX_ADD_OFFSETS:
        c->txn.step = WCX_COMMIT_OFFSETS;
        break;
    case WCX_COMMIT_OFFSETS:
        c->txn.step = WCX_END;
        break;
    case WCX_END:
        w_trace(w, "client %d (%s): transaction %u %s", c->idx, c->txn.tid_s, c->txn.txn_no,
                c->txn.commit ? "committed" : "aborted");
        if (c->txn.commit)
            w_check_txn_on_committed(w, c->idx, c->txn.values, c->txn.value_n,
                                     c->txn.with_offsets ? c->txn.offset_value : -1);
        wcx_begin(w, c);
        break;
    case WCX_INIT:
        break;
    }
}

/* The error of one step's answer (decoded per API); false if malformed. */
static bool wcx_error(w_world *w, w_client *c, const wc_inflight *f, const uint8_t *bytes,
                      size_t len, int16_t *e)
{
    kq_reader r;
    int rc;
    if (!wc_open_response(w, c, f, f->txn_key, bytes, len, &r))
        return false;
    switch (f->txn_key) {
    case WIRE_API_INIT_PRODUCER_ID: {
        wire_init_producer_id_response x;
        rc = wire_init_producer_id_response_decode(&r, f->version, &c->arena, &x);
        if (!wc_body_ok(w, c, f, f->txn_key, &r, rc))
            return false;
        wcx_on_init(w, c, &x, f);
        *e = -1; /* handled */
        return true;
    }
    case WIRE_API_ADD_PARTITIONS_TO_TXN: {
        wire_add_partitions_to_txn_response x;
        rc = wire_add_partitions_to_txn_response_decode(&r, f->version, &c->arena, &x);
        if (!wc_body_ok(w, c, f, f->txn_key, &r, rc))
            return false;
        if (x.v3_and_below_topic_count != 1 ||
            x.results_by_topic_v3_and_below[0].partition_count != 1)
            return w_fail(w, "client %d: AddPartitionsToTxn v%d from node %d does not answer "
                             "its partition", c->idx, f->version, f->node);
        *e = x.results_by_topic_v3_and_below[0].results_by_partition[0].partition_error_code;
        return true;
    }
    case WIRE_API_ADD_OFFSETS_TO_TXN: {
        wire_add_offsets_to_txn_response x;
        rc = wire_add_offsets_to_txn_response_decode(&r, f->version, &c->arena, &x);
        if (!wc_body_ok(w, c, f, f->txn_key, &r, rc))
            return false;
        *e = x.error_code;
        return true;
    }
    case WIRE_API_TXN_OFFSET_COMMIT: {
        wire_txn_offset_commit_response x;
        rc = wire_txn_offset_commit_response_decode(&r, f->version, &c->arena, &x);
        if (!wc_body_ok(w, c, f, f->txn_key, &r, rc))
            return false;
        if (x.topic_count != 1 || x.topics[0].partition_count != 1)
            return w_fail(w, "client %d: TxnOffsetCommit v%d from node %d does not answer its "
                             "partition", c->idx, f->version, f->node);
        *e = x.topics[0].partitions[0].error_code;
        return true;
    }
    case WIRE_API_END_TXN: {
        wire_end_txn_response x;
        rc = wire_end_txn_response_decode(&r, f->version, &c->arena, &x);
        if (!wc_body_ok(w, c, f, f->txn_key, &r, rc))
            return false;
        *e = x.error_code;
        return true;
    }
    default:
        return w_fail(w, "client %d: answer of unknown API %d", c->idx, f->txn_key);
    }
}

static void wcx_on_step(w_world *w, w_client *c, const wc_inflight *f, const uint8_t *bytes,
                        size_t len)
{
    if (!bytes) {
        w_trace(w, "client %d (%s): %s v%d to node %d failed", c->idx, c->txn.tid_s,
                wire_api_name(f->txn_key), f->version, f->node + 1);
        wcx_retry(w, c); /* the same step again (EndTxn: the same decision) */
        return;
    }
    int16_t e = -1;
    if (!wcx_error(w, c, f, bytes, len, &e) || e == -1)
        return;
    w_trace(w, "client %d (%s): %s v%d from node %d: %s", c->idx, c->txn.tid_s,
            wire_api_name(f->txn_key), f->version, f->node + 1, wc_error_name(e));
    if (e == KAFKA_NONE)
        wcx_next(w, c);
    else if (wcx_retriable(e))
        wcx_retry(w, c);
    else if (wcx_fenced(e))
        wcx_reinit(w, c, wc_error_name(e));
    else
        w_fail(w, "client %d: %s v%d for %s from node %d: %s (%d)", c->idx,
               wire_api_name(f->txn_key), f->version, c->txn.tid_s, f->node, wc_error_name(e),
               e);
}

static void wcx_on_produce(w_world *w, w_client *c, const wc_inflight *f, const uint8_t *bytes,
                           size_t len)
{
    wc_batch *b = &c->batch;
    if (!bytes || !b->live || b->gen != f->batch_gen)
        return; /* outcome unknown: the same batch again; or an older batch's */
    wire_produce_partition_response pr;
    if (!wc_decode_produce(w, c, f, bytes, len, &pr))
        return;
    int16_t e = pr.error_code;
    if (e == KAFKA_NONE) {
        w_check_on_acked(w, c->idx, pr.base_offset, b->values, b->count, b->producer_id,
                         b->base_sequence);
        for (int i = 0; i < b->count && c->txn.value_n < WCX_VALUES_MAX; i++)
            c->txn.values[c->txn.value_n++] = b->values[i];
        b->live = false;
        wcx_next(w, c);
        return;
    }
    bool stale = e == KAFKA_OUT_OF_ORDER_SEQUENCE_NUMBER && f->node != w_current_leader(w);
    if (e == KAFKA_NOT_LEADER_OR_FOLLOWER || e == KAFKA_REQUEST_TIMED_OUT ||
        e == KAFKA_NOT_ENOUGH_REPLICAS || e == KAFKA_LEADER_NOT_AVAILABLE ||
        e == KAFKA_KAFKA_STORAGE_ERROR || e == KAFKA_NETWORK_EXCEPTION || stale)
        return; /* the same batch again */
    if (wcx_fenced(e)) {
        wcx_reinit(w, c, wc_error_name(e));
        return;
    }
    w_fail(w, "client %d: transactional Produce v%d to node %d (producer %lld epoch %d seq %d): "
              "%s (%d)", c->idx, f->version, f->node, (long long)b->producer_id,
           c->producer_epoch, b->base_sequence, wc_error_name(e), e);
}

static void wcx_on_offset_fetch(w_world *w, w_client *c, const wc_inflight *f,
                                const uint8_t *bytes, size_t len)
{
    kq_reader r;
    if (!bytes || !wc_open_response(w, c, f, WIRE_API_OFFSET_FETCH, bytes, len, &r))
        return;
    wire_offset_fetch_response resp;
    int rc = wire_offset_fetch_response_decode(&r, f->version, &c->arena, &resp);
    if (!wc_body_ok(w, c, f, WIRE_API_OFFSET_FETCH, &r, rc))
        return;
    int16_t e = resp.error_code;
    if (e == KAFKA_NONE && (resp.topic_count != 1 || resp.topics[0].partition_count != 1)) {
        w_fail(w, "client %d: OffsetFetch v%d from node %d does not answer %s/0", c->idx,
               f->version, f->node, WCX_TOPIC);
        return;
    }
    if (e == KAFKA_NONE)
        e = resp.topics[0].partitions[0].error_code;
    if (e == KAFKA_NONE)
        w_check_txn_on_offset_fetched(w, c->idx, c->txn.tid, f->commit_value,
                                      resp.topics[0].partitions[0].committed_offset, f->node);
    else if (!wcx_retriable(e) && e != WCX_UNSTABLE_OFFSET_COMMIT)
        w_fail(w, "client %d: OffsetFetch v%d of %s from node %d: %s (%d)", c->idx, f->version,
               c->txn.group, f->node, wc_error_name(e), e);
}

/* ---- w_client_internal.h */

void wcx_init(w_world *w, w_client *c, int tid)
{
    c->txn.tid = tid;
    snprintf(c->txn.tid_s, sizeof(c->txn.tid_s), "tx%d", tid);
    snprintf(c->txn.group, sizeof(c->txn.group), "t%d", tid);
    c->txn.node = -1;
    c->txn.timeout_ms = (int32_t)sim_prng_range(&w->rng, 1000, 10000);
    c->acks = -1;
    w_check_txn_on_client(w, c->idx, tid);
}

void wcx_act(w_world *w, w_client *c)
{
    if (!wire_api_accepted(WIRE_API_END_TXN, 0) || !w->clients_on || c->stop_new)
        return;
    if (wc_count_op(c, WC_OP_TXN_OFFSET_FETCH) == 0 && sim_prng_chance(&w->rng, WCX_FETCH_PPM))
        wcx_send_offset_fetch(w, c);
    bool busy = wc_count_op(c, WC_OP_TXN) > 0 || wc_count_op(c, WC_OP_PRODUCE) > 0;
    if (!busy && sim_prng_chance(&w->rng, WCX_RESTART_PPM)) {
        /* A restart: the transaction is left open (a new instance). */
        c->txn.inst++;
        wcx_reinit(w, c, "restarted");
    }
    if (busy || w->now < c->txn.next_at || c->inflight_n >= WC_INFLIGHT_MAX - 1)
        return;
    wcx_step(w, c);
}

void wcx_on_response(w_world *w, w_client *c, const wc_inflight *f, const uint8_t *bytes,
                     size_t len)
{
    if (f->op == WC_OP_TXN_OFFSET_FETCH) {
        wcx_on_offset_fetch(w, c, f, bytes, len);
        return;
    }
    if (f->txn_inst != c->txn.inst)
        return; /* an instance before a restart: not read */
    if (f->op == WC_OP_PRODUCE)
        wcx_on_produce(w, c, f, bytes, len);
    else
        wcx_on_step(w, c, f, bytes, len);
}

/* ---- w_client.h */

void w_client_txn_twin(w_world *w, w_client *c, const w_client *twin)
{
    if (!c || !twin || c->kind != W_CLIENT_TXN || twin->kind != W_CLIENT_TXN)
        return;
    wcx_init(w, c, twin->txn.tid);
}
