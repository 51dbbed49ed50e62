/* Transactions (issue 23, KIP-98) through the handlers and the real
 * executor: InitProducerId with a transactional id, AddPartitionsToTxn,
 * transactional Produce, read_committed Fetch and ListOffsets (the last
 * stable offset, aborted transactions), EndTxn and its markers,
 * AddOffsetsToTxn/TxnOffsetCommit, the timeout abort, Describe/
 * ListTransactions, FindCoordinator, a follower's answers, and the state
 * rebuilt after a restart (from the log and from a snapshot). */
#include "handler_test_node.h"

#include "kq/snapshot_file.h"
#include "kq/wire_add_offsets_to_txn.h"
#include "kq/wire_add_partitions_to_txn.h"
#include "kq/wire_describe_transactions.h"
#include "kq/wire_end_txn.h"
#include "kq/wire_fetch.h"
#include "kq/wire_find_coordinator.h"
#include "kq/wire_init_producer_id.h"
#include "kq/wire_list_offsets.h"
#include "kq/wire_list_transactions.h"
#include "kq/wire_offset_fetch.h"
#include "kq/wire_produce.h"
#include "kq/wire_txn_offset_commit.h"

#define META "__cluster_metadata"
#define TIMEOUT_MS 60000

/* ---- InitProducerId */

typedef struct pid_epoch {
    int16_t error;
    int64_t pid;
    int16_t epoch;
} pid_epoch;

/* Sends InitProducerId v4 and drives the node (tick, flush) until it is
 * answered: a new id takes two steps, every append waits for the HW. */
static pid_epoch init_pid(tn_node *n, tn_slot *s, int32_t corr, kq_slice tid, int32_t timeout_ms,
                          int64_t pid, int16_t epoch)
{
    wire_init_producer_id_request req = {.transactional_id = tid,
                                         .transaction_timeout_ms = timeout_ms,
                                         .producer_id = pid, .producer_epoch = epoch};
    int before = tn_count(n, s);
    TN_SEND(n, s, WIRE_API_INIT_PRODUCER_ID, 4, corr, wire_init_producer_id_request_encode, &req);
    for (int i = 0; i < 4 && tn_count(n, s) == before; i++) {
        tn_flush(n);
        if (tn_count(n, s) == before)
            tn_tick(n, n->now);
    }
    assert_int_equal(tn_count(n, s), before + 1);
    wire_init_producer_id_response resp;
    TN_DECODE(n, s, WIRE_API_INIT_PRODUCER_ID, 4, corr, wire_init_producer_id_response_decode,
              &resp);
    return (pid_epoch){resp.error_code, resp.producer_id, resp.producer_epoch};
}

static pid_epoch init_new(tn_node *n, tn_slot *s, int32_t corr, const char *tid)
{
    pid_epoch p = init_pid(n, s, corr, kq_slice_cstr(tid), TIMEOUT_MS, -1, -1);
    assert_int_equal(p.error, KAFKA_NONE);
    assert_true(p.pid >= 0);
    return p;
}

/* ---- AddPartitionsToTxn (v3), AddOffsetsToTxn, EndTxn: sent, then the
 * answer once it comes (after a flush if they appended). */

static void add_partitions_send(tn_node *n, tn_slot *s, int32_t corr, const char *tid,
                                pid_epoch p)
{
    int32_t part = 0;
    wire_add_partitions_to_txn_topic t = {.name = kq_slice_cstr(META), .partitions = &part,
                                          .partition_count = 1};
    wire_add_partitions_to_txn_request req = {
        .v3_and_below_transactional_id = kq_slice_cstr(tid), .v3_and_below_producer_id = p.pid,
        .v3_and_below_producer_epoch = p.epoch, .v3_and_below_topics = &t,
        .v3_and_below_topic_count = 1};
    TN_SEND(n, s, WIRE_API_ADD_PARTITIONS_TO_TXN, 3, corr,
            wire_add_partitions_to_txn_request_encode, &req);
}

static int16_t add_partitions_answer(tn_node *n, tn_slot *s, int32_t corr)
{
    wire_add_partitions_to_txn_response resp;
    TN_DECODE(n, s, WIRE_API_ADD_PARTITIONS_TO_TXN, 3, corr,
              wire_add_partitions_to_txn_response_decode, &resp);
    assert_int_equal(resp.v3_and_below_topic_count, 1);
    assert_true(kq_slice_eq_cstr(resp.results_by_topic_v3_and_below[0].name, META));
    assert_int_equal(resp.results_by_topic_v3_and_below[0].partition_count, 1);
    assert_int_equal(resp.results_by_topic_v3_and_below[0].results_by_partition[0].partition_index,
                     0);
    return resp.results_by_topic_v3_and_below[0].results_by_partition[0].partition_error_code;
}

static int16_t add_partitions(tn_node *n, tn_slot *s, int32_t corr, const char *tid, pid_epoch p)
{
    add_partitions_send(n, s, corr, tid, p);
    tn_flush(n);
    return add_partitions_answer(n, s, corr);
}

static int16_t add_offsets(tn_node *n, tn_slot *s, int32_t corr, const char *tid, pid_epoch p,
                           const char *group)
{
    wire_add_offsets_to_txn_request req = {.transactional_id = kq_slice_cstr(tid),
                                           .producer_id = p.pid, .producer_epoch = p.epoch,
                                           .group_id = kq_slice_cstr(group)};
    TN_SEND(n, s, WIRE_API_ADD_OFFSETS_TO_TXN, 3, corr, wire_add_offsets_to_txn_request_encode,
            &req);
    tn_flush(n);
    wire_add_offsets_to_txn_response resp;
    TN_DECODE(n, s, WIRE_API_ADD_OFFSETS_TO_TXN, 3, corr, wire_add_offsets_to_txn_response_decode,
              &resp);
    return resp.error_code;
}

static void end_send(tn_node *n, tn_slot *s, int32_t corr, const char *tid, pid_epoch p,
                     bool commit)
{
    wire_end_txn_request req = {.transactional_id = kq_slice_cstr(tid), .producer_id = p.pid,
                                .producer_epoch = p.epoch, .committed = commit};
    TN_SEND(n, s, WIRE_API_END_TXN, 3, corr, wire_end_txn_request_encode, &req);
}

static int16_t end_answer(tn_node *n, tn_slot *s, int32_t corr)
{
    wire_end_txn_response resp;
    TN_DECODE(n, s, WIRE_API_END_TXN, 3, corr, wire_end_txn_response_decode, &resp);
    return resp.error_code;
}

static int16_t end_txn(tn_node *n, tn_slot *s, int32_t corr, const char *tid, pid_epoch p,
                       bool commit)
{
    end_send(n, s, corr, tid, p, commit);
    tn_flush(n);
    return end_answer(n, s, corr);
}

/* ---- Produce */

/* One uncompressed batch of count records "<tag>-<i>" of producer p at
 * sequence seq, transactional or not. */
static void txn_batch(kq_writer *w, pid_epoch p, int32_t seq, int count, const char *tag,
                      bool transactional)
{
    char values[8][32];
    record recs[8];
    assert_true(count > 0 && count <= 8);
    for (int i = 0; i < count; i++) {
        snprintf(values[i], sizeof(values[i]), "%s-%d", tag, i);
        recs[i] = (record){.timestamp = 1600000000000 + i, .key = {NULL, -1},
                           .value = kq_slice_cstr(values[i])};
    }
    record_batch_builder_args a = {
        .partition_leader_epoch = -1, .base_timestamp = 1600000000000,
        .attributes = transactional ? RECORD_ATTR_TRANSACTIONAL : 0, .producer_id = p.pid,
        .producer_epoch = p.epoch, .base_sequence = seq, .records = recs, .record_count = count};
    kq_writer_init(w, 0);
    assert_true(record_batch_build(w, &a));
}

/* Produce v9 acks -1 of a batch of p (tid: the request's transactional id,
 * NULL: none), flushed; the partition's error, its base offset in *base. */
static int16_t produce(tn_node *n, tn_slot *s, int32_t corr, const char *tid, pid_epoch p,
                       int32_t seq, int count, const char *tag, bool transactional, int64_t *base)
{
    kq_writer b;
    txn_batch(&b, p, seq, count, tag, transactional);
    wire_produce_partition pp = {.index = 0, .records = {b.data, (int32_t)b.len}};
    wire_produce_topic t = {.name = kq_slice_cstr(META), .partitions = &pp, .partition_count = 1};
    wire_produce_request req = {.transactional_id = tid ? kq_slice_cstr(tid) : (kq_slice){NULL, -1},
                                .acks = -1, .timeout_ms = 30000, .topics = &t, .topic_count = 1};
    TN_SEND(n, s, WIRE_API_PRODUCE, 9, corr, wire_produce_request_encode, &req);
    kq_writer_free(&b);
    tn_flush(n);
    wire_produce_response resp;
    TN_DECODE(n, s, WIRE_API_PRODUCE, 9, corr, wire_produce_response_decode, &resp);
    assert_int_equal(resp.topic_count, 1);
    assert_int_equal(resp.topics[0].partition_count, 1);
    if (base)
        *base = resp.topics[0].partitions[0].base_offset;
    return resp.topics[0].partitions[0].error_code;
}

/* ---- Fetch and ListOffsets */

static wire_fetch_partition_data fetch(tn_node *n, tn_slot *s, int32_t corr, int64_t offset,
                                       int8_t isolation)
{
    wire_fetch_partition p = {.partition = 0, .current_leader_epoch = -1, .fetch_offset = offset,
                              .last_fetched_epoch = -1, .log_start_offset = -1,
                              .partition_max_bytes = 1 << 20};
    wire_fetch_topic t = {.topic = kq_slice_cstr(META), .partitions = &p, .partition_count = 1};
    wire_fetch_request req = {.cluster_id = {NULL, -1}, .replica_id = -1, .replica_epoch = -1,
                              .max_wait_ms = 0, .min_bytes = 1, .max_bytes = 1 << 20,
                              .isolation_level = isolation, .session_epoch = -1, .topics = &t,
                              .topic_count = 1, .rack_id = kq_slice_cstr("")};
    TN_SEND(n, s, WIRE_API_FETCH, 11, corr, wire_fetch_request_encode, &req);
    wire_fetch_response resp;
    TN_DECODE(n, s, WIRE_API_FETCH, 11, corr, wire_fetch_response_decode, &resp);
    assert_int_equal(resp.error_code, KAFKA_NONE);
    assert_int_equal(resp.response_count, 1);
    assert_int_equal(resp.responses[0].partition_count, 1);
    assert_int_equal(resp.responses[0].partitions[0].error_code, KAFKA_NONE);
    return resp.responses[0].partitions[0];
}

/* What a Fetch answer's records hold. */
typedef struct fetched {
    int data_batches; /* non-control */
    int data_records;
    int markers;      /* control batches with attributes 0x30 */
    int64_t last_marker_offset;
    int64_t marker_pid;
    int16_t marker_epoch;
    int marker_type; /* control type of the last marker's record */
    int64_t first_base, last_base;
} fetched;

/* The control type of a marker batch (attributes exactly 0x30: control and
 * transactional, base sequence -1, one record of key {0, type}), or -1. */
static int marker_type(const uint8_t *batch, size_t len, const record_batch_header *h)
{
    if (h->attributes != (RECORD_ATTR_CONTROL | RECORD_ATTR_TRANSACTIONAL))
        return -1;
    assert_int_equal(h->base_sequence, -1);
    assert_int_equal(h->record_count, 1);
    record_iter it;
    assert_int_equal(record_iter_open(&it, batch, len), RECORD_OK);
    record rec;
    assert_true(record_iter_next(&it, &rec));
    int type = record_control_type(rec.key);
    assert_int_equal(rec.key.len, 4);
    assert_int_equal(rec.key.ptr[0], 0); /* version 0 */
    assert_int_equal(rec.key.ptr[1], 0);
    /* EndTransactionMarker v0: version 0, coordinator epoch 0 */
    assert_int_equal(rec.value.len, 6);
    for (int i = 0; i < 6; i++)
        assert_int_equal(rec.value.ptr[i], 0);
    assert_false(record_iter_next(&it, &rec));
    record_iter_close(&it);
    assert_true(type == 0 || type == 1);
    return type;
}

static void fetched_add(fetched *f, const uint8_t *batch, size_t len)
{
    record_batch_header h;
    assert_int_equal(record_batch_check(batch, len, &h), RECORD_OK);
    if (f->first_base < 0)
        f->first_base = h.base_offset;
    f->last_base = h.base_offset;
    if (!record_batch_is_control(&h)) {
        f->data_batches++;
        f->data_records += h.record_count;
        return;
    }
    int type = marker_type(batch, len, &h);
    if (type < 0)
        return; /* LeaderChange, our state records */
    f->markers++;
    f->last_marker_offset = h.base_offset;
    f->marker_pid = h.producer_id;
    f->marker_epoch = h.producer_epoch;
    f->marker_type = type;
}

static fetched read_records(kq_slice records)
{
    fetched f = {.last_marker_offset = -1, .marker_type = -1, .first_base = -1,
                 .last_base = -1};
    size_t pos = 0;
    while (pos < (size_t)records.len) {
        record_batch_header h;
        assert_int_equal(record_batch_check(records.ptr + pos, (size_t)records.len - pos, &h),
                         RECORD_OK);
        fetched_add(&f, records.ptr + pos, record_batch_size(&h));
        pos += record_batch_size(&h);
    }
    return f;
}

static int log_scan_cb(void *ctx, const uint8_t *batch, size_t len)
{
    fetched_add(ctx, batch, len);
    return 0;
}

/* The whole log, as read_records reads an answer. */
static fetched read_log(tn_node *n)
{
    fetched f = {.last_marker_offset = -1, .marker_type = -1, .first_base = -1,
                 .last_base = -1};
    assert_true(kq_log_scan(n->log, kq_log_start_offset(n->log), log_scan_cb, &f) >= 0);
    return f;
}

/* ListOffsets v7 latest (-1) at isolation level iso. */
static int64_t latest_offset(tn_node *n, tn_slot *s, int32_t corr, int8_t iso)
{
    wire_list_offsets_partition p = {.partition_index = 0, .current_leader_epoch = -1,
                                     .timestamp = -1};
    wire_list_offsets_topic t = {kq_slice_cstr(META), &p, 1};
    wire_list_offsets_request req = {.replica_id = -1, .isolation_level = iso, .topics = &t,
                                     .topic_count = 1};
    TN_SEND(n, s, WIRE_API_LIST_OFFSETS, 7, corr, wire_list_offsets_request_encode, &req);
    wire_list_offsets_response resp;
    TN_DECODE(n, s, WIRE_API_LIST_OFFSETS, 7, corr, wire_list_offsets_response_decode, &resp);
    assert_int_equal(resp.topic_count, 1);
    assert_int_equal(resp.topics[0].partitions[0].error_code, KAFKA_NONE);
    return resp.topics[0].partitions[0].offset;
}

/* ---- Describe and List */

static wire_describe_transactions_state describe(tn_node *n, tn_slot *s, int32_t corr,
                                                 const char *tid)
{
    kq_slice id = kq_slice_cstr(tid);
    wire_describe_transactions_request req = {.transactional_ids = &id,
                                              .transactional_id_count = 1};
    TN_SEND(n, s, WIRE_API_DESCRIBE_TRANSACTIONS, 0, corr,
            wire_describe_transactions_request_encode, &req);
    wire_describe_transactions_response resp;
    TN_DECODE(n, s, WIRE_API_DESCRIBE_TRANSACTIONS, 0, corr,
              wire_describe_transactions_response_decode, &resp);
    assert_int_equal(resp.state_count, 1);
    assert_true(kq_slice_eq_cstr(resp.transaction_states[0].transactional_id, tid));
    return resp.transaction_states[0];
}

static void assert_state(tn_node *n, tn_slot *s, int32_t corr, const char *tid, const char *state,
                         pid_epoch p)
{
    wire_describe_transactions_state d = describe(n, s, corr, tid);
    assert_int_equal(d.error_code, KAFKA_NONE);
    if (!kq_slice_eq_cstr(d.transaction_state, state))
        fail_msg("%s: state %.*s, expected %s", tid, (int)d.transaction_state.len,
                 (const char *)d.transaction_state.ptr, state);
    assert_int_equal(d.producer_id, p.pid);
    assert_int_equal(d.producer_epoch, p.epoch);
}

/* ---- 1. InitProducerId */

static void test_init_producer_id(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID};
    int64_t end = kq_log_end_offset(n.log);
    pid_epoch a = init_new(&n, &s, 1, "t1");
    assert_int_equal(a.epoch, 0);
    assert_int_equal(kq_log_end_offset(n.log), end + 1); /* the id's state record */
    /* again: the same producer id, the epoch bumped (the old one fenced) */
    pid_epoch b = init_new(&n, &s, 2, "t1");
    assert_int_equal(b.pid, a.pid);
    assert_int_equal(b.epoch, 1);
    /* another id: another producer id */
    pid_epoch c = init_new(&n, &s, 3, "t2");
    assert_int_not_equal(c.pid, a.pid);
    assert_int_equal(c.epoch, 0);

    end = kq_log_end_offset(n.log);
    pid_epoch e = init_pid(&n, &s, 4, kq_slice_cstr("t1"), KQ_TXN_MAX_TIMEOUT_MS_DEFAULT + 1, -1,
                           -1);
    assert_int_equal(e.error, KAFKA_INVALID_TRANSACTION_TIMEOUT);
    assert_int_equal(e.pid, -1);
    e = init_pid(&n, &s, 5, kq_slice_cstr("t3"), 0, -1, -1);
    assert_int_equal(e.error, KAFKA_INVALID_TRANSACTION_TIMEOUT);
    e = init_pid(&n, &s, 6, kq_slice_cstr(""), TIMEOUT_MS, -1, -1);
    assert_int_equal(e.error, KAFKA_INVALID_REQUEST);
    char longer[KQ_TXN_ID_BYTES_MAX + 1];
    memset(longer, 'x', sizeof(longer) - 1);
    longer[sizeof(longer) - 1] = 0;
    e = init_pid(&n, &s, 60, kq_slice_cstr(longer), TIMEOUT_MS, -1, -1);
    assert_int_equal(e.error, KAFKA_INVALID_REQUEST);
    /* KIP-360: a producer naming an epoch that is not the current one is a zombie */
    e = init_pid(&n, &s, 7, kq_slice_cstr("t1"), TIMEOUT_MS, a.pid, 0);
    assert_int_equal(e.error, KAFKA_PRODUCER_FENCED);
    e = init_pid(&n, &s, 8, kq_slice_cstr("t1"), TIMEOUT_MS, c.pid, 1);
    assert_int_equal(e.error, KAFKA_PRODUCER_FENCED);
    assert_int_equal(kq_log_end_offset(n.log), end); /* refusals append nothing */
    /* the current id and epoch bump */
    e = init_pid(&n, &s, 9, kq_slice_cstr("t1"), TIMEOUT_MS, a.pid, 1);
    assert_int_equal(e.error, KAFKA_NONE);
    assert_int_equal(e.pid, a.pid);
    assert_int_equal(e.epoch, 2);
    tn_close(&n);
}

/* ---- 2. A committed transaction */

static void test_committed_transaction(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID}, c = {TN_CLIENT_LISTENER_ID + 1};
    pid_epoch p = init_new(&n, &s, 1, "tx");
    assert_int_equal(add_partitions(&n, &s, 2, "tx", p), KAFKA_NONE);
    /* again: already in the transaction, answered at once, nothing appended */
    int64_t end = kq_log_end_offset(n.log);
    int before = tn_count(&n, &s);
    add_partitions_send(&n, &s, 3, "tx", p);
    assert_int_equal(tn_count(&n, &s), before + 1);
    assert_int_equal(add_partitions_answer(&n, &s, 3), KAFKA_NONE);
    assert_int_equal(kq_log_end_offset(n.log), end);
    assert_false(n.flush_wanted);

    int64_t first = -1, second = -1;
    assert_int_equal(produce(&n, &s, 4, "tx", p, 0, 3, "v", true, &first), KAFKA_NONE);
    assert_int_equal(first, end);
    assert_int_equal(produce(&n, &s, 5, "tx", p, 3, 2, "w", true, &second), KAFKA_NONE);
    assert_int_equal(second, first + 3);
    int64_t hw = tn_status(&n).high_watermark;
    assert_int_equal(hw, first + 5);

    /* open: read_committed sees nothing from its first offset on */
    wire_fetch_partition_data pd = fetch(&n, &c, 10, first, 1);
    assert_int_equal(pd.high_watermark, hw);
    assert_int_equal(pd.last_stable_offset, first);
    assert_int_equal(pd.records.len, 0);
    assert_int_equal(pd.aborted_transaction_count, 0);
    /* from inside the open transaction, or at the high watermark: nothing, no error */
    pd = fetch(&n, &c, 30, first + 3, 1);
    assert_int_equal(pd.records.len, 0);
    assert_int_equal(pd.last_stable_offset, first);
    pd = fetch(&n, &c, 31, hw, 1);
    assert_int_equal(pd.records.len, 0);
    pd = fetch(&n, &c, 11, 0, 1); /* what lies below is readable */
    fetched f = read_records(pd.records);
    assert_int_equal(f.data_batches, 0);
    assert_true(f.last_base < first);
    /* read_uncommitted sees the records */
    pd = fetch(&n, &c, 12, first, 0);
    assert_int_equal(pd.last_stable_offset, first);
    f = read_records(pd.records);
    assert_int_equal(f.data_batches, 2);
    assert_int_equal(f.data_records, 5);
    assert_int_equal(f.markers, 0);
    tn_assert_record_value(pd.records.ptr, (size_t)pd.records.len, 2, "v-2");
    assert_int_equal(latest_offset(&n, &c, 13, 1), first);
    assert_int_equal(latest_offset(&n, &c, 14, 0), hw);

    /* EndTxn commit: the marker is appended, answered once it commits */
    int count = tn_count(&n, &s);
    end_send(&n, &s, 20, "tx", p, true);
    assert_int_equal(kq_log_end_offset(n.log), hw + 1);
    assert_true(n.flush_wanted);
    assert_int_equal(tn_count(&n, &s), count); /* not before the flush */
    assert_int_equal(latest_offset(&n, &c, 21, 1), first); /* marker not committed yet */
    tn_flush(&n);
    assert_int_equal(tn_count(&n, &s), count + 1);
    assert_int_equal(end_answer(&n, &s, 20), KAFKA_NONE);

    pd = fetch(&n, &c, 22, first, 1);
    assert_int_equal(pd.high_watermark, hw + 1);
    assert_int_equal(pd.last_stable_offset, hw + 1);
    assert_int_equal(pd.aborted_transaction_count, 0);
    f = read_records(pd.records);
    assert_int_equal(f.data_batches, 2);
    assert_int_equal(f.data_records, 5);
    assert_int_equal(f.markers, 1);
    assert_int_equal(f.last_marker_offset, hw);
    assert_int_equal(f.marker_type, 1); /* COMMIT */
    assert_int_equal(f.marker_pid, p.pid);
    assert_int_equal(f.marker_epoch, p.epoch);
    assert_int_equal(latest_offset(&n, &c, 23, 1), hw + 1);
    assert_state(&n, &c, 24, "tx", "CompleteCommit", p);

    /* a retry of the commit: NONE, nothing appended; an abort now: refused */
    end = kq_log_end_offset(n.log);
    assert_int_equal(end_txn(&n, &s, 25, "tx", p, true), KAFKA_NONE);
    assert_int_equal(end_txn(&n, &s, 26, "tx", p, false), KAFKA_INVALID_TXN_STATE);
    assert_int_equal(kq_log_end_offset(n.log), end);
    tn_close(&n);
}

/* ---- 3. An aborted transaction */

static void test_aborted_transaction(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID}, c = {TN_CLIENT_LISTENER_ID + 1};
    pid_epoch p = init_new(&n, &s, 1, "ta");
    int64_t from = kq_log_end_offset(n.log);
    assert_int_equal(add_partitions(&n, &s, 2, "ta", p), KAFKA_NONE);
    int64_t first = -1;
    assert_int_equal(produce(&n, &s, 3, "ta", p, 0, 2, "x", true, &first), KAFKA_NONE);
    assert_int_equal(end_txn(&n, &s, 4, "ta", p, false), KAFKA_NONE);
    int64_t hw = tn_status(&n).high_watermark;
    assert_int_equal(hw, first + 3);

    wire_fetch_partition_data pd = fetch(&n, &c, 5, from, 1);
    assert_int_equal(pd.last_stable_offset, hw);
    assert_int_equal(pd.aborted_transaction_count, 1);
    assert_int_equal(pd.aborted_transactions[0].producer_id, p.pid);
    assert_int_equal(pd.aborted_transactions[0].first_offset, first);
    fetched f = read_records(pd.records);
    assert_int_equal(f.data_batches, 1); /* the consumer drops them by the list */
    assert_int_equal(f.markers, 1);
    assert_int_equal(f.marker_type, 0); /* ABORT */
    assert_int_equal(f.marker_pid, p.pid);
    /* a read from after the marker needs no list; read_uncommitted none either */
    pd = fetch(&n, &c, 6, hw, 1);
    assert_int_equal(pd.aborted_transaction_count, 0);
    pd = fetch(&n, &c, 7, from, 0);
    assert_int_equal(pd.aborted_transaction_count, -1);
    assert_state(&n, &c, 8, "ta", "CompleteAbort", p);
    assert_int_equal(end_txn(&n, &s, 9, "ta", p, false), KAFKA_NONE);  /* a retry */
    assert_int_equal(end_txn(&n, &s, 10, "ta", p, true), KAFKA_INVALID_TXN_STATE);
    tn_close(&n);
}

/* ---- 4. Produce and coordinator refusals */

static void test_refusals(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID};
    pid_epoch p = init_new(&n, &s, 1, "tr");
    int64_t end = kq_log_end_offset(n.log);
    /* not added to a transaction (KIP-890) */
    assert_int_equal(produce(&n, &s, 2, "tr", p, 0, 1, "a", true, NULL), KAFKA_INVALID_TXN_STATE);
    /* a transactional id with a batch that is not transactional */
    assert_int_equal(produce(&n, &s, 3, "tr", p, 0, 1, "a", false, NULL), KAFKA_INVALID_REQUEST);
    /* a transactional batch without the request's transactional id */
    assert_int_equal(produce(&n, &s, 4, NULL, p, 0, 1, "a", true, NULL), KAFKA_INVALID_REQUEST);
    /* nothing begun: no transaction to end */
    assert_int_equal(end_txn(&n, &s, 40, "tr", p, true), KAFKA_INVALID_TXN_STATE);
    assert_int_equal(end_txn(&n, &s, 41, "tr", p, false), KAFKA_INVALID_TXN_STATE);
    /* a partition that does not exist: it is named, the others not attempted */
    int32_t parts[2] = {0, 1};
    wire_add_partitions_to_txn_topic t = {.name = kq_slice_cstr(META), .partitions = parts,
                                          .partition_count = 2};
    wire_add_partitions_to_txn_request ar = {
        .v3_and_below_transactional_id = kq_slice_cstr("tr"), .v3_and_below_producer_id = p.pid,
        .v3_and_below_producer_epoch = p.epoch, .v3_and_below_topics = &t,
        .v3_and_below_topic_count = 1};
    TN_SEND(&n, &s, WIRE_API_ADD_PARTITIONS_TO_TXN, 3, 42,
            wire_add_partitions_to_txn_request_encode, &ar);
    wire_add_partitions_to_txn_response resp;
    TN_DECODE(&n, &s, WIRE_API_ADD_PARTITIONS_TO_TXN, 3, 42,
              wire_add_partitions_to_txn_response_decode, &resp);
    assert_int_equal(resp.results_by_topic_v3_and_below[0].partition_count, 2);
    assert_int_equal(resp.results_by_topic_v3_and_below[0].results_by_partition[0]
                         .partition_error_code, KAFKA_OPERATION_NOT_ATTEMPTED);
    assert_int_equal(resp.results_by_topic_v3_and_below[0].results_by_partition[1]
                         .partition_error_code, KAFKA_UNKNOWN_TOPIC_OR_PARTITION);
    assert_int_equal(kq_log_end_offset(n.log), end);
    /* more partitions than KQ_TXN_ADD_PARTITIONS_MAX: every one refused */
    int32_t *many = calloc(KQ_TXN_ADD_PARTITIONS_MAX + 1, sizeof(*many));
    assert_non_null(many);
    t.partitions = many;
    t.partition_count = KQ_TXN_ADD_PARTITIONS_MAX + 1;
    TN_SEND(&n, &s, WIRE_API_ADD_PARTITIONS_TO_TXN, 3, 43,
            wire_add_partitions_to_txn_request_encode, &ar);
    TN_DECODE(&n, &s, WIRE_API_ADD_PARTITIONS_TO_TXN, 3, 43,
              wire_add_partitions_to_txn_response_decode, &resp);
    assert_int_equal(resp.results_by_topic_v3_and_below[0].partition_count,
                     KQ_TXN_ADD_PARTITIONS_MAX + 1);
    for (int i = 0; i <= KQ_TXN_ADD_PARTITIONS_MAX; i++)
        assert_int_equal(resp.results_by_topic_v3_and_below[0].results_by_partition[i]
                             .partition_error_code, KAFKA_INVALID_REQUEST);
    free(many);
    assert_int_equal(kq_log_end_offset(n.log), end);

    /* the producer is fenced by a second InitProducerId */
    assert_int_equal(add_partitions(&n, &s, 5, "tr", p), KAFKA_NONE);
    pid_epoch q = init_new(&n, &s, 6, "tr");
    assert_int_equal(q.pid, p.pid);
    assert_int_equal(q.epoch, p.epoch + 1);
    assert_int_equal(add_partitions(&n, &s, 7, "tr", q), KAFKA_NONE);
    end = kq_log_end_offset(n.log);
    assert_int_equal(produce(&n, &s, 8, "tr", p, 0, 1, "old", true, NULL),
                     KAFKA_INVALID_PRODUCER_EPOCH);
    assert_int_equal(add_partitions(&n, &s, 9, "tr", p), KAFKA_PRODUCER_FENCED);
    assert_int_equal(end_txn(&n, &s, 10, "tr", p, true), KAFKA_PRODUCER_FENCED);
    assert_int_equal(add_offsets(&n, &s, 11, "tr", p, "g"), KAFKA_PRODUCER_FENCED);
    /* a producer id that is not the id's */
    pid_epoch other = {KAFKA_NONE, p.pid + 77, q.epoch};
    assert_int_equal(add_partitions(&n, &s, 12, "tr", other), KAFKA_INVALID_PRODUCER_ID_MAPPING);
    assert_int_equal(end_txn(&n, &s, 13, "tr", other, true), KAFKA_INVALID_PRODUCER_ID_MAPPING);
    /* an unknown transactional id */
    assert_int_equal(end_txn(&n, &s, 14, "nope", q, true), KAFKA_INVALID_PRODUCER_ID_MAPPING);
    /* a producer that no id holds */
    assert_int_equal(produce(&n, &s, 15, "tr", other, 0, 1, "b", true, NULL),
                     KAFKA_INVALID_TXN_STATE);
    assert_int_equal(kq_log_end_offset(n.log), end);
    /* the new epoch writes */
    assert_int_equal(produce(&n, &s, 16, "tr", q, 0, 1, "new", true, NULL), KAFKA_NONE);
    assert_int_equal(end_txn(&n, &s, 17, "tr", q, true), KAFKA_NONE);
    /* complete: a transactional batch is refused until the partition is added again */
    assert_int_equal(produce(&n, &s, 18, "tr", q, 1, 1, "late", true, NULL),
                     KAFKA_INVALID_TXN_STATE);
    tn_close(&n);
}

/* ---- 5. InitProducerId aborts an ongoing transaction */

static void test_init_aborts_ongoing(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID}, c = {TN_CLIENT_LISTENER_ID + 1};
    pid_epoch p = init_new(&n, &s, 1, "ti");
    assert_int_equal(add_partitions(&n, &s, 2, "ti", p), KAFKA_NONE);
    int64_t first = -1;
    assert_int_equal(produce(&n, &s, 3, "ti", p, 0, 2, "a", true, &first), KAFKA_NONE);
    assert_state(&n, &c, 4, "ti", "Ongoing", p);
    assert_int_equal(read_log(&n).markers, 0);

    pid_epoch q = init_new(&n, &s, 5, "ti");
    assert_int_equal(q.pid, p.pid);
    assert_int_equal(q.epoch, p.epoch + 1);
    fetched f = read_log(&n);
    assert_int_equal(f.markers, 1);
    assert_int_equal(f.marker_type, 0); /* ABORT */
    assert_int_equal(f.marker_pid, p.pid);
    assert_int_equal(f.marker_epoch, q.epoch); /* under the new epoch */
    assert_true(f.last_marker_offset > first);
    assert_state(&n, &c, 6, "ti", "Empty", q);
    wire_fetch_partition_data pd = fetch(&n, &c, 7, first, 1);
    assert_int_equal(pd.last_stable_offset, pd.high_watermark);
    assert_int_equal(pd.aborted_transaction_count, 1);
    assert_int_equal(pd.aborted_transactions[0].first_offset, first);
    /* the old producer is fenced */
    assert_int_equal(end_txn(&n, &s, 8, "ti", p, true), KAFKA_PRODUCER_FENCED);
    assert_int_equal(produce(&n, &s, 9, "ti", p, 2, 1, "z", true, NULL),
                     KAFKA_INVALID_PRODUCER_EPOCH);
    /* the new epoch starts again from sequence 0 */
    assert_int_equal(add_partitions(&n, &s, 10, "ti", q), KAFKA_NONE);
    assert_int_equal(produce(&n, &s, 11, "ti", q, 0, 1, "b", true, NULL), KAFKA_NONE);
    assert_int_equal(end_txn(&n, &s, 12, "ti", q, true), KAFKA_NONE);
    assert_state(&n, &c, 13, "ti", "CompleteCommit", q);
    tn_close(&n);
}

/* ---- 6. Offsets in a transaction */

static int16_t txn_offset_commit(tn_node *n, tn_slot *s, int32_t corr, const char *tid,
                                 pid_epoch p, const char *group, int64_t offset)
{
    wire_txn_offset_commit_partition part = {.partition_index = 0, .committed_offset = offset,
                                             .committed_leader_epoch = -1,
                                             .committed_metadata = kq_slice_cstr("m")};
    wire_txn_offset_commit_topic t = {.name = kq_slice_cstr(META), .partitions = &part,
                                      .partition_count = 1};
    wire_txn_offset_commit_request req = {
        .transactional_id = kq_slice_cstr(tid), .group_id = kq_slice_cstr(group),
        .producer_id = p.pid, .producer_epoch = p.epoch, .generation_id_or_member_epoch = -1,
        .member_id = kq_slice_cstr(""), .group_instance_id = {NULL, -1}, .topics = &t,
        .topic_count = 1};
    TN_SEND(n, s, WIRE_API_TXN_OFFSET_COMMIT, 3, corr, wire_txn_offset_commit_request_encode,
            &req);
    tn_flush(n);
    wire_txn_offset_commit_response resp;
    TN_DECODE(n, s, WIRE_API_TXN_OFFSET_COMMIT, 3, corr, wire_txn_offset_commit_response_decode,
              &resp);
    assert_int_equal(resp.topic_count, 1);
    assert_int_equal(resp.topics[0].partition_count, 1);
    return resp.topics[0].partitions[0].error_code;
}

static int64_t committed_offset(tn_node *n, tn_slot *s, int32_t corr, const char *group)
{
    int32_t part = 0;
    wire_offset_fetch_request_topic t = {.name = kq_slice_cstr(META), .partition_indexes = &part,
                                         .partition_index_count = 1};
    wire_offset_fetch_request req = {.group_id = kq_slice_cstr(group), .topics = &t,
                                     .topic_count = 1};
    TN_SEND(n, s, WIRE_API_OFFSET_FETCH, 7, corr, wire_offset_fetch_request_encode, &req);
    wire_offset_fetch_response resp;
    TN_DECODE(n, s, WIRE_API_OFFSET_FETCH, 7, corr, wire_offset_fetch_response_decode, &resp);
    assert_int_equal(resp.error_code, KAFKA_NONE);
    assert_int_equal(resp.topic_count, 1);
    assert_int_equal(resp.topics[0].partitions[0].error_code, KAFKA_NONE);
    return resp.topics[0].partitions[0].committed_offset;
}

/* OffsetFetch v7 with require_stable (KIP-447): the partition's error. */
static int16_t stable_fetch_error(tn_node *n, tn_slot *s, int32_t corr, const char *group)
{
    int32_t part = 0;
    wire_offset_fetch_request_topic t = {.name = kq_slice_cstr(META), .partition_indexes = &part,
                                         .partition_index_count = 1};
    wire_offset_fetch_request req = {.group_id = kq_slice_cstr(group), .topics = &t,
                                     .topic_count = 1, .require_stable = true};
    TN_SEND(n, s, WIRE_API_OFFSET_FETCH, 7, corr, wire_offset_fetch_request_encode, &req);
    wire_offset_fetch_response resp;
    TN_DECODE(n, s, WIRE_API_OFFSET_FETCH, 7, corr, wire_offset_fetch_response_decode, &resp);
    assert_int_equal(resp.topic_count, 1);
    return resp.topics[0].partitions[0].error_code;
}

static void test_txn_offset_commit(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID}, c = {TN_CLIENT_LISTENER_ID + 1};
    /* Data first: the offsets committed below lie inside it, so they are
     * answered as committed, not as the end of the run of control batches
     * they would lie in in a log of control batches only (issue 24). */
    pid_epoch none = {.pid = -1, .epoch = -1};
    int64_t base = -1;
    assert_int_equal(produce(&n, &s, 90, NULL, none, -1, 8, "d", false, &base), KAFKA_NONE);
    assert_int_equal(produce(&n, &s, 91, NULL, none, -1, 8, "e", false, NULL), KAFKA_NONE);
    assert_true(base >= 0 && base <= 5 && base + 16 > 11);
    pid_epoch p = init_new(&n, &s, 1, "to");
    int64_t end = kq_log_end_offset(n.log);
    /* the group not added to the transaction */
    assert_int_equal(txn_offset_commit(&n, &s, 2, "to", p, "gc", 5), KAFKA_INVALID_TXN_STATE);
    assert_int_equal(kq_log_end_offset(n.log), end);

    assert_int_equal(add_offsets(&n, &s, 3, "to", p, "gc"), KAFKA_NONE);
    assert_state(&n, &c, 4, "to", "Ongoing", p);
    assert_int_equal(txn_offset_commit(&n, &s, 5, "to", p, "gc", 5), KAFKA_NONE);
    /* offsets only: no partition in it, the last stable offset not held */
    assert_int_equal(describe(&n, &c, 50, "to").topic_count, 0);
    wire_fetch_partition_data pd = fetch(&n, &c, 51, 0, 1);
    assert_int_equal(pd.last_stable_offset, pd.high_watermark);
    /* another group, not added */
    assert_int_equal(txn_offset_commit(&n, &s, 6, "to", p, "other", 5), KAFKA_INVALID_TXN_STATE);
    assert_int_equal(committed_offset(&n, &c, 7, "gc"), -1);
    /* a read_committed consumer asks for stable offsets: not yet */
    assert_int_equal(stable_fetch_error(&n, &c, 70, "gc"), KAFKA_UNSTABLE_OFFSET_COMMIT);
    assert_int_equal(stable_fetch_error(&n, &c, 71, "other"), KAFKA_NONE);
    end_send(&n, &s, 8, "to", p, true);
    assert_int_equal(committed_offset(&n, &c, 9, "gc"), -1); /* the marker not committed */
    tn_flush(&n);
    assert_int_equal(end_answer(&n, &s, 8), KAFKA_NONE);
    assert_int_equal(committed_offset(&n, &c, 10, "gc"), 5);
    assert_int_equal(stable_fetch_error(&n, &c, 72, "gc"), KAFKA_NONE);

    /* aborted: never visible */
    assert_int_equal(add_offsets(&n, &s, 11, "to", p, "gc"), KAFKA_NONE);
    assert_int_equal(add_offsets(&n, &s, 12, "to", p, "ga"), KAFKA_NONE);
    assert_int_equal(txn_offset_commit(&n, &s, 13, "to", p, "gc", 9), KAFKA_NONE);
    assert_int_equal(txn_offset_commit(&n, &s, 14, "to", p, "ga", 9), KAFKA_NONE);
    assert_int_equal(end_txn(&n, &s, 15, "to", p, false), KAFKA_NONE);
    assert_int_equal(committed_offset(&n, &c, 16, "gc"), 5);
    assert_int_equal(committed_offset(&n, &c, 17, "ga"), -1);
    /* complete: no commit outside a transaction */
    assert_int_equal(txn_offset_commit(&n, &s, 18, "to", p, "gc", 11), KAFKA_INVALID_TXN_STATE);
    tn_tick(&n, n.now + 1000);
    assert_int_equal(committed_offset(&n, &c, 19, "gc"), 5);
    assert_int_equal(committed_offset(&n, &c, 20, "ga"), -1);
    tn_close(&n);
}

/* ---- 7. Timeouts */

static void small_abort_interval(exec_config *c)
{
    c->txn_abort_interval_ms = 100;
}

static void test_timeout_aborts(void **state)
{
    (void)state;
    tn_config_hook = small_abort_interval;
    tn_node n;
    tn_open_leader(&n);
    tn_config_hook = NULL;
    tn_slot s = {TN_CLIENT_LISTENER_ID}, c = {TN_CLIENT_LISTENER_ID + 1};
    pid_epoch p = init_pid(&n, &s, 1, kq_slice_cstr("tt"), 1000, -1, -1);
    assert_int_equal(p.error, KAFKA_NONE);
    assert_int_equal(add_partitions(&n, &s, 2, "tt", p), KAFKA_NONE);
    int64_t first = -1;
    assert_int_equal(produce(&n, &s, 3, "tt", p, 0, 1, "a", true, &first), KAFKA_NONE);
    /* not yet timed out: nothing happens */
    int64_t end = kq_log_end_offset(n.log);
    tn_tick(&n, n.now + 500);
    tn_flush(&n);
    assert_int_equal(kq_log_end_offset(n.log), end);
    assert_state(&n, &c, 4, "tt", "Ongoing", p);

    tn_tick(&n, n.now + 1000);
    tn_flush(&n);
    fetched f = read_log(&n);
    assert_int_equal(f.markers, 1);
    assert_int_equal(f.marker_type, 0);
    assert_int_equal(f.marker_pid, p.pid);
    assert_int_equal(f.marker_epoch, p.epoch + 1);
    pid_epoch bumped = {KAFKA_NONE, p.pid, (int16_t)(p.epoch + 1)};
    assert_state(&n, &c, 5, "tt", "CompleteAbort", bumped);
    wire_fetch_partition_data pd = fetch(&n, &c, 6, first, 1);
    assert_int_equal(pd.last_stable_offset, pd.high_watermark);
    assert_int_equal(pd.aborted_transaction_count, 1);
    /* the producer learns it was fenced */
    assert_int_equal(end_txn(&n, &s, 7, "tt", p, true), KAFKA_PRODUCER_FENCED);
    assert_int_equal(produce(&n, &s, 8, "tt", p, 1, 1, "b", true, NULL),
                     KAFKA_INVALID_PRODUCER_EPOCH);
    /* KIP-360: the producer of the epoch before the abort may bump again */
    pid_epoch q = init_pid(&n, &s, 9, kq_slice_cstr("tt"), 1000, p.pid, p.epoch);
    assert_int_equal(q.error, KAFKA_NONE);
    assert_int_equal(q.pid, p.pid);
    assert_int_equal(q.epoch, p.epoch + 2);
    /* and writes a new transaction from sequence 0 */
    assert_int_equal(add_partitions(&n, &s, 10, "tt", q), KAFKA_NONE);
    assert_int_equal(produce(&n, &s, 11, "tt", q, 0, 1, "c", true, NULL), KAFKA_NONE);
    assert_int_equal(end_txn(&n, &s, 12, "tt", q, true), KAFKA_NONE);
    /* nothing more to abort */
    end = kq_log_end_offset(n.log);
    tn_tick(&n, n.now + 5000);
    tn_flush(&n);
    assert_int_equal(kq_log_end_offset(n.log), end);
    tn_close(&n);
}

static void small_expiration(exec_config *c)
{
    c->txn_abort_interval_ms = 100;
    c->txn_id_expiration_ms = 1000;
}

/* transactional.id.expiration.ms: an idle id is forgotten; an ongoing one
 * is not (it times out first). */
static void test_idle_id_expires(void **state)
{
    (void)state;
    tn_config_hook = small_expiration;
    tn_node n;
    tn_open_leader(&n);
    tn_config_hook = NULL;
    tn_slot s = {TN_CLIENT_LISTENER_ID}, c = {TN_CLIENT_LISTENER_ID + 1};
    pid_epoch idle = init_new(&n, &s, 1, "ei");
    pid_epoch busy = init_new(&n, &s, 2, "eb");
    tn_tick(&n, n.now + 500);
    tn_flush(&n);
    assert_int_equal(add_partitions(&n, &s, 3, "eb", busy), KAFKA_NONE);
    tn_tick(&n, n.now + 600); /* "ei" idle 1100 ms, "eb" ongoing for 600 */
    tn_flush(&n);
    assert_int_equal(describe(&n, &c, 4, "ei").error_code, KAFKA_TRANSACTIONAL_ID_NOT_FOUND);
    assert_state(&n, &c, 5, "eb", "Ongoing", busy);
    assert_int_equal(end_txn(&n, &s, 6, "ei", idle, true), KAFKA_INVALID_PRODUCER_ID_MAPPING);
    /* the forgotten id starts again */
    pid_epoch again = init_new(&n, &s, 7, "ei");
    assert_int_equal(again.epoch, 0);
    tn_close(&n);
}

/* ---- 8. Describe and List */

static wire_list_transactions_response list(tn_node *n, tn_slot *s, int16_t v, int32_t corr,
                                            kq_slice *states, int state_count, int64_t *pids,
                                            int pid_count, int64_t duration)
{
    wire_list_transactions_request req = {.state_filters = states,
                                          .state_filter_count = state_count,
                                          .producer_id_filters = pids,
                                          .producer_id_filter_count = pid_count,
                                          .duration_filter = duration,
                                          .transactional_id_pattern = {NULL, -1}};
    TN_SEND(n, s, WIRE_API_LIST_TRANSACTIONS, v, corr, wire_list_transactions_request_encode,
            &req);
    wire_list_transactions_response resp;
    TN_DECODE(n, s, WIRE_API_LIST_TRANSACTIONS, v, corr, wire_list_transactions_response_decode,
              &resp);
    assert_int_equal(resp.error_code, KAFKA_NONE);
    return resp;
}

static void test_describe_and_list(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID}, c = {TN_CLIENT_LISTENER_ID + 1};
    pid_epoch a = init_new(&n, &s, 1, "da");
    pid_epoch b = init_new(&n, &s, 2, "db");
    assert_state(&n, &c, 3, "da", "Empty", a);
    int64_t started = n.now;
    assert_int_equal(add_partitions(&n, &s, 4, "da", a), KAFKA_NONE);
    wire_describe_transactions_state d = describe(&n, &c, 5, "da");
    assert_int_equal(d.error_code, KAFKA_NONE);
    assert_true(kq_slice_eq_cstr(d.transaction_state, "Ongoing"));
    assert_int_equal(d.transaction_timeout_ms, TIMEOUT_MS);
    assert_int_equal(d.transaction_start_time_ms, started);
    assert_int_equal(d.topic_count, 1);
    assert_true(kq_slice_eq_cstr(d.topics[0].topic, META));
    assert_int_equal(d.topics[0].partition_count, 1);
    assert_int_equal(d.topics[0].partitions[0], 0);
    assert_int_equal(add_partitions(&n, &s, 6, "db", b), KAFKA_NONE);
    assert_int_equal(end_txn(&n, &s, 7, "db", b, true), KAFKA_NONE);
    d = describe(&n, &c, 8, "db");
    assert_true(kq_slice_eq_cstr(d.transaction_state, "CompleteCommit"));
    assert_int_equal(d.topic_count, 0);
    d = describe(&n, &c, 9, "unknown");
    assert_int_equal(d.error_code, KAFKA_TRANSACTIONAL_ID_NOT_FOUND);
    d = describe(&n, &c, 10, "");
    assert_int_equal(d.error_code, KAFKA_INVALID_REQUEST);

    wire_list_transactions_response l = list(&n, &c, 0, 11, NULL, 0, NULL, 0, -1);
    assert_int_equal(l.state_count, 2);
    assert_int_equal(l.unknown_state_filter_count, 0);
    assert_true(kq_slice_eq_cstr(l.transaction_states[0].transactional_id, "da"));
    assert_int_equal(l.transaction_states[0].producer_id, a.pid);
    assert_true(kq_slice_eq_cstr(l.transaction_states[0].transaction_state, "Ongoing"));
    assert_true(kq_slice_eq_cstr(l.transaction_states[1].transactional_id, "db"));
    assert_true(kq_slice_eq_cstr(l.transaction_states[1].transaction_state, "CompleteCommit"));

    kq_slice ongoing = kq_slice_cstr("Ongoing");
    l = list(&n, &c, 0, 12, &ongoing, 1, NULL, 0, -1);
    assert_int_equal(l.state_count, 1);
    assert_true(kq_slice_eq_cstr(l.transaction_states[0].transactional_id, "da"));
    kq_slice mixed[2] = {kq_slice_cstr("CompleteCommit"), kq_slice_cstr("Bogus")};
    l = list(&n, &c, 0, 13, mixed, 2, NULL, 0, -1);
    assert_int_equal(l.state_count, 1);
    assert_true(kq_slice_eq_cstr(l.transaction_states[0].transactional_id, "db"));
    assert_int_equal(l.unknown_state_filter_count, 1);
    assert_true(kq_slice_eq_cstr(l.unknown_state_filters[0], "Bogus"));
    l = list(&n, &c, 0, 14, &mixed[1], 1, NULL, 0, -1); /* only an unknown one: none */
    assert_int_equal(l.state_count, 0);
    assert_int_equal(l.unknown_state_filter_count, 1);
    int64_t pids[2] = {b.pid, 999999};
    l = list(&n, &c, 0, 15, NULL, 0, pids, 2, -1);
    assert_int_equal(l.state_count, 1);
    assert_true(kq_slice_eq_cstr(l.transaction_states[0].transactional_id, "db"));
    /* v1: only transactions running at least this long */
    l = list(&n, &c, 1, 16, NULL, 0, NULL, 0, 5000);
    assert_int_equal(l.state_count, 0);
    n.now = started + 5000;
    l = list(&n, &c, 1, 17, NULL, 0, NULL, 0, 5000);
    assert_int_equal(l.state_count, 1);
    assert_true(kq_slice_eq_cstr(l.transaction_states[0].transactional_id, "da"));
    tn_close(&n);
}

/* ---- 9. FindCoordinator */

static void test_find_coordinator(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID};
    wire_find_coordinator_request req = {.key = kq_slice_cstr("tx"), .key_type = 1};
    TN_SEND(&n, &s, WIRE_API_FIND_COORDINATOR, 3, 1, wire_find_coordinator_request_encode, &req);
    wire_find_coordinator_response resp;
    TN_DECODE(&n, &s, WIRE_API_FIND_COORDINATOR, 3, 1, wire_find_coordinator_response_decode,
              &resp);
    assert_int_equal(resp.error_code, KAFKA_NONE);
    assert_int_equal(resp.node_id, 1);
    assert_true(kq_slice_eq_cstr(resp.host, "node1.test"));
    assert_int_equal(resp.port, TN_PORT_BASE + 1);
    tn_close(&n);
}

/* ---- 10. A follower */

static void test_follower(void **state)
{
    (void)state;
    tn_node n;
    tn_open(&n, 1, 3); /* no votes from the others: not a leader */
    assert_int_not_equal(tn_status(&n).role, RAFT_ROLE_LEADER);
    tn_slot s = {TN_CLIENT_LISTENER_ID};
    pid_epoch p = init_pid(&n, &s, 1, kq_slice_cstr("tf"), TIMEOUT_MS, -1, -1);
    assert_int_equal(p.error, KAFKA_NOT_COORDINATOR);
    assert_int_equal(p.pid, -1);
    pid_epoch any = {KAFKA_NONE, 1000, 0};
    assert_int_equal(add_partitions(&n, &s, 2, "tf", any), KAFKA_NOT_COORDINATOR);
    assert_int_equal(add_offsets(&n, &s, 3, "tf", any, "g"), KAFKA_NOT_COORDINATOR);
    assert_int_equal(end_txn(&n, &s, 4, "tf", any, true), KAFKA_NOT_COORDINATOR);
    assert_int_equal(txn_offset_commit(&n, &s, 5, "tf", any, "g", 1), KAFKA_NOT_COORDINATOR);
    assert_int_equal(describe(&n, &s, 6, "tf").error_code, KAFKA_NOT_COORDINATOR);
    wire_list_transactions_response l = list(&n, &s, 1, 7, NULL, 0, NULL, 0, -1);
    assert_int_equal(l.state_count, 0);
    tn_close(&n);
}

/* A leader whose epoch's first batch is not committed yet: loading. */
static void test_leader_loading(void **state)
{
    (void)state;
    tn_node n;
    tn_open(&n, 1, 1);
    assert_int_equal(tn_status(&n).role, RAFT_ROLE_LEADER);
    tn_slot s = {TN_CLIENT_LISTENER_ID};
    wire_init_producer_id_request req = {.transactional_id = kq_slice_cstr("tl"),
                                         .transaction_timeout_ms = TIMEOUT_MS,
                                         .producer_id = -1, .producer_epoch = -1};
    TN_SEND(&n, &s, WIRE_API_INIT_PRODUCER_ID, 4, 1, wire_init_producer_id_request_encode, &req);
    wire_init_producer_id_response resp;
    TN_DECODE(&n, &s, WIRE_API_INIT_PRODUCER_ID, 4, 1, wire_init_producer_id_response_decode,
              &resp);
    assert_int_equal(resp.error_code, KAFKA_COORDINATOR_LOAD_IN_PROGRESS);
    assert_int_equal(describe(&n, &s, 2, "tl").error_code, KAFKA_COORDINATOR_LOAD_IN_PROGRESS);
    tn_flush(&n);
    assert_int_equal(init_new(&n, &s, 3, "tl").epoch, 0);
    tn_close(&n);
}

/* ---- 11. Restart */

/* Three ids: "rc" committed, "ra" aborted, "ro" ongoing with a record. */
typedef struct three {
    pid_epoch rc, ra, ro;
    int64_t aborted_first, open_first;
} three;

static three make_three(tn_node *n, tn_slot *s)
{
    three t;
    t.rc = init_new(n, s, 100, "rc");
    t.ra = init_new(n, s, 101, "ra");
    t.ro = init_new(n, s, 102, "ro");
    assert_int_equal(add_partitions(n, s, 103, "rc", t.rc), KAFKA_NONE);
    assert_int_equal(produce(n, s, 104, "rc", t.rc, 0, 1, "c", true, NULL), KAFKA_NONE);
    assert_int_equal(end_txn(n, s, 105, "rc", t.rc, true), KAFKA_NONE);
    assert_int_equal(add_partitions(n, s, 106, "ra", t.ra), KAFKA_NONE);
    assert_int_equal(produce(n, s, 107, "ra", t.ra, 0, 1, "a", true, &t.aborted_first),
                     KAFKA_NONE);
    assert_int_equal(end_txn(n, s, 108, "ra", t.ra, false), KAFKA_NONE);
    assert_int_equal(add_partitions(n, s, 109, "ro", t.ro), KAFKA_NONE);
    assert_int_equal(add_offsets(n, s, 110, "ro", t.ro, "gr"), KAFKA_NONE);
    assert_int_equal(txn_offset_commit(n, s, 111, "ro", t.ro, "gr", 7), KAFKA_NONE);
    assert_int_equal(produce(n, s, 112, "ro", t.ro, 0, 2, "o", true, &t.open_first), KAFKA_NONE);
    return t;
}

static void check_three(tn_node *n, tn_slot *s, const three *t)
{
    assert_state(n, s, 200, "rc", "CompleteCommit", t->rc);
    assert_state(n, s, 201, "ra", "CompleteAbort", t->ra);
    assert_state(n, s, 202, "ro", "Ongoing", t->ro);
    wire_describe_transactions_state d = describe(n, s, 203, "ro");
    assert_int_equal(d.topic_count, 1);
    wire_fetch_partition_data pd = fetch(n, s, 204, 0, 1);
    assert_int_equal(pd.last_stable_offset, t->open_first);
    assert_int_equal(pd.aborted_transaction_count, 1);
    assert_int_equal(pd.aborted_transactions[0].producer_id, t->ra.pid);
    assert_int_equal(pd.aborted_transactions[0].first_offset, t->aborted_first);
    assert_int_equal(committed_offset(n, s, 205, "gr"), -1);
}

/* After the restart, the open transaction goes on and commits. */
static void finish_three(tn_node *n, tn_slot *s, const three *t)
{
    assert_int_equal(produce(n, s, 210, "ro", t->ro, 2, 1, "p", true, NULL), KAFKA_NONE);
    assert_int_equal(end_txn(n, s, 211, "ro", t->ro, true), KAFKA_NONE);
    assert_state(n, s, 212, "ro", "CompleteCommit", t->ro);
    assert_int_equal(committed_offset(n, s, 213, "gr"), 7);
    wire_fetch_partition_data pd = fetch(n, s, 214, t->open_first, 1);
    assert_int_equal(pd.last_stable_offset, pd.high_watermark);
    fetched f = read_records(pd.records);
    assert_int_equal(f.data_records, 3);
    /* a new id gets a producer id no other holds */
    pid_epoch x = init_new(n, s, 215, "rx");
    assert_true(x.pid != t->rc.pid && x.pid != t->ra.pid && x.pid != t->ro.pid);
}

static void restart_leader(tn_node *n)
{
    tn_restart(n);
    for (int i = 0; i < 4 && tn_status(n).role != RAFT_ROLE_LEADER; i++)
        tn_tick(n, n->now + 2000);
    assert_int_equal(tn_status(n).role, RAFT_ROLE_LEADER);
    tn_flush(n);
    assert_int_equal(tn_status(n).high_watermark, kq_log_end_offset(n->log));
}

static void test_restart_rebuilds_from_log(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID};
    three t = make_three(&n, &s);
    check_three(&n, &s, &t);
    restart_leader(&n);
    check_three(&n, &s, &t);
    finish_three(&n, &s, &t);
    tn_close(&n);
}

static void snapshot_often(exec_config *c)
{
    c->snapshot_bytes_between = 1;
}

static void test_restart_from_snapshot(void **state)
{
    (void)state;
    tn_config_hook = snapshot_often;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID};
    three t = make_three(&n, &s);
    tn_tick(&n, n.now + 10);
    tn_flush(&n);
    raft_snapshot_id ids[4];
    int count = kq_snapshot_list(kq_fs_posix(), n.dir, ids, 4, false);
    assert_true(count > 0);
    /* the newest snapshot holds the open transaction and the aborted one */
    assert_true(ids[count - 1].end_offset > t.open_first);
    restart_leader(&n);
    tn_config_hook = NULL;
    check_three(&n, &s, &t);
    finish_three(&n, &s, &t);
    tn_close(&n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_producer_id),
        cmocka_unit_test(test_committed_transaction),
        cmocka_unit_test(test_aborted_transaction),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_init_aborts_ongoing),
        cmocka_unit_test(test_txn_offset_commit),
        cmocka_unit_test(test_timeout_aborts),
        cmocka_unit_test(test_idle_id_expires),
        cmocka_unit_test(test_describe_and_list),
        cmocka_unit_test(test_find_coordinator),
        cmocka_unit_test(test_follower),
        cmocka_unit_test(test_leader_loading),
        cmocka_unit_test(test_restart_rebuilds_from_log),
        cmocka_unit_test(test_restart_from_snapshot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
