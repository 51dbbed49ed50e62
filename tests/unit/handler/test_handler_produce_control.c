/* Issue 19: only the server writes control records. A Produce of several
 * batches with a control batch (leader change, a forged offset commit, one
 * whose value does not parse) in any position is refused whole with
 * INVALID_RECORD and Kafka's message, with and without the authorizer;
 * the transactional bit, reserved bits and a producer id are checked in
 * every batch too. Defence in depth: a log that holds an unparsable
 * offset-commit record (written here through the mutant that re-creates
 * the old first-batch-only check) keeps the node up, skips the record,
 * counts it, and restarts over it. */
#include "handler_test_node.h"

#include "kq/group_offsets.h"
#include "kq/metrics.h"
#include "kq/mutants.h"
#include "kq/wire_produce.h"

#define META "__cluster_metadata"
#define BATCHES 3
#define CONTROL_MESSAGE "Clients are not allowed to write control records"

enum bad_kind { BAD_LEADER_CHANGE, BAD_FORGED_COMMIT, BAD_UNPARSABLE_COMMIT, BAD_KIND_COUNT };

/* A control batch of kind k, appended to w. */
static void append_control(kq_writer *w, enum bad_kind k)
{
    int32_t voters[] = {1};
    static const uint8_t key[4] = {0, 0, (uint8_t)(KQ_CONTROL_OFFSET_COMMIT >> 8),
                                   (uint8_t)(KQ_CONTROL_OFFSET_COMMIT & 0xff)};
    static const uint8_t junk[5] = {0, 0, 0, 9, 'x'}; /* a group id cut short */
    group_offset e = {.group_id = "victim", .topic = "t", .partition = 0, .offset = 424242,
                      .leader_epoch = -1, .commit_timestamp_ms = 1600000000000,
                      .log_offset = -1};
    record rec = {.key = {key, 4}, .value = {junk, sizeof junk}};
    record_batch_builder_args a = {.attributes = RECORD_ATTR_CONTROL, .producer_id = -1,
                                   .producer_epoch = -1, .base_sequence = -1,
                                   .base_timestamp = 1600000000000, .records = &rec,
                                   .record_count = 1};
    switch (k) {
    case BAD_LEADER_CHANGE:
        assert_true(record_build_leader_change(w, 0, 1, 1600000000000, 1, voters, 1, voters, 1));
        break;
    case BAD_FORGED_COMMIT:
        assert_true(group_offsets_build_batch(w, &e, 1, 1600000000000));
        break;
    case BAD_UNPARSABLE_COMMIT:
    case BAD_KIND_COUNT:
        assert_true(record_batch_build(w, &a));
        break;
    }
}

/* A data batch, its attributes or-ed with extra (CRC recomputed). */
static void append_data(kq_writer *w, int16_t extra, int64_t pid)
{
    record rec = {.key = {NULL, -1}, .value = kq_slice_cstr("data")};
    record_batch_builder_args a = {.attributes = extra, .producer_id = pid,
                                   .producer_epoch = pid >= 0 ? 0 : -1,
                                   .base_sequence = pid >= 0 ? 0 : -1,
                                   .base_timestamp = 1600000000000, .records = &rec,
                                   .record_count = 1};
    assert_true(record_batch_build(w, &a));
}

static wire_produce_partition_response produce(tn_node *n, tn_slot *s, int16_t v, int32_t corr,
                                               const kq_writer *records)
{
    wire_produce_partition p = {.index = 0, .records = {records->data, (int32_t)records->len}};
    wire_produce_topic t = {.name = kq_slice_cstr(META), .partitions = &p, .partition_count = 1};
    wire_produce_request req = {.transactional_id = {NULL, -1}, .acks = 1, .timeout_ms = 30000,
                                .topics = &t, .topic_count = 1};
    TN_SEND(n, s, WIRE_API_PRODUCE, v, corr, wire_produce_request_encode, &req);
    wire_produce_response resp;
    TN_DECODE(n, s, WIRE_API_PRODUCE, v, corr, wire_produce_response_decode, &resp);
    assert_int_equal(resp.topic_count, 1);
    assert_int_equal(resp.topics[0].partition_count, 1);
    return resp.topics[0].partitions[0];
}

static void assert_refused(const wire_produce_partition_response *pr, int16_t v,
                           const char *message)
{
    assert_int_equal(pr->error_code, KAFKA_INVALID_RECORD);
    assert_int_equal(pr->base_offset, -1);
    if (v >= 8) {
        assert_int_equal(pr->error_message.len, (int32_t)strlen(message));
        assert_memory_equal(pr->error_message.ptr, message, strlen(message));
    }
}

/* Every kind of control batch in every position of a 3-batch Produce. */
static void run_every_position(const handler_acl *acl)
{
    tn_node n;
    tn_acl = acl;
    tn_open_leader(&n);
    int32_t corr = 100;
    const int16_t versions[] = {3, 8, 9, 11};
    for (int k = 0; k < BAD_KIND_COUNT; k++) {
        for (int pos = 0; pos < BATCHES; pos++) {
            int16_t v = versions[(k * BATCHES + pos) % 4];
            kq_writer w;
            kq_writer_init(&w, 0);
            for (int i = 0; i < BATCHES; i++) {
                if (i == pos)
                    append_control(&w, (enum bad_kind)k);
                else
                    append_data(&w, 0, -1);
            }
            tn_slot s = {1};
            wire_produce_partition_response pr = produce(&n, &s, v, ++corr, &w);
            assert_refused(&pr, v, CONTROL_MESSAGE);
            assert_int_equal(kq_log_end_offset(n.log), 1); /* nothing of it appended */
            kq_writer_free(&w);
        }
    }
    /* The same request without the control batch is taken. */
    kq_writer w;
    kq_writer_init(&w, 0);
    for (int i = 0; i < BATCHES; i++)
        append_data(&w, 0, -1);
    tn_slot s = {1};
    wire_produce_partition p = {.index = 0, .records = {w.data, (int32_t)w.len}};
    wire_produce_topic t = {.name = kq_slice_cstr(META), .partitions = &p, .partition_count = 1};
    wire_produce_request req = {.transactional_id = {NULL, -1}, .acks = 1, .timeout_ms = 30000,
                                .topics = &t, .topic_count = 1};
    TN_SEND(&n, &s, WIRE_API_PRODUCE, 9, ++corr, wire_produce_request_encode, &req);
    tn_flush(&n);
    assert_int_equal(kq_log_end_offset(n.log), 1 + BATCHES);
    kq_writer_free(&w);
    tn_close(&n);
    tn_acl = NULL;
}

static void test_control_batch_every_position(void **state)
{
    (void)state;
    run_every_position(NULL);
}

/* The principal may produce and nothing else: a forged commit still fails. */
static void test_control_batch_every_position_authorizer(void **state)
{
    (void)state;
    static const char *const everyone[] = {"User:*"};
    handler_acl acl = {.enabled = true};
    acl.allowed[HANDLER_OP_PRODUCE] = everyone;
    acl.allowed_count[HANDLER_OP_PRODUCE] = 1;
    run_every_position(&acl);
}

/* Transactional bit, reserved bits and a producer id in a later batch. */
static void test_attributes_checked_in_every_batch(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    struct {
        int16_t attributes;
        int64_t pid;
    } cases[] = {{RECORD_ATTR_TRANSACTIONAL, 1000}, {0x40, -1}, {(int16_t)0x8000, -1},
                 {0, 1000}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (int pos = 0; pos < BATCHES; pos++) {
            kq_writer w;
            kq_writer_init(&w, 0);
            for (int i = 0; i < BATCHES; i++)
                append_data(&w, i == pos ? cases[c].attributes : 0, i == pos ? cases[c].pid : -1);
            tn_slot s = {1};
            wire_produce_partition_response pr = produce(&n, &s, 9, (int32_t)(10 * c + pos), &w);
            assert_int_equal(pr.error_code, KAFKA_INVALID_RECORD);
            assert_true(pr.error_message.len > 0);
            assert_int_equal(kq_log_end_offset(n.log), 1);
            kq_writer_free(&w);
        }
    }
    tn_close(&n);
}

static double skipped_metric(tn_node *n)
{
    static char buf[1 << 17];
    kq_mtext t;
    kq_mtext_init(&t, buf, sizeof buf);
    exec_metrics_write(n->x, &t);
    assert_false(t.truncated);
    const char *name = "\nkq_records_unparsable_skipped_total ";
    const char *at = strstr(buf, name);
    assert_non_null(at);
    return strtod(at + strlen(name), NULL);
}

/* The old check (first batch only) lets an unparsable offset commit into
 * the log: the applier skips and counts it, the node stays up (tn_fatal_cb
 * fails the test otherwise), and restarts over it, twice. */
static void test_unparsable_commit_in_log_skipped_and_restart(void **state)
{
    (void)state;
    tn_node n;
    tn_mutants = KQ_MUTANT_CONTROL_BATCH_FIRST_ONLY;
    tn_open_leader(&n);
    kq_writer w;
    kq_writer_init(&w, 0);
    append_data(&w, 0, -1);
    append_control(&w, BAD_UNPARSABLE_COMMIT);
    append_data(&w, 0, -1);
    tn_slot s = {1};
    wire_produce_partition p = {.index = 0, .records = {w.data, (int32_t)w.len}};
    wire_produce_topic t = {.name = kq_slice_cstr(META), .partitions = &p, .partition_count = 1};
    wire_produce_request req = {.transactional_id = {NULL, -1}, .acks = 1, .timeout_ms = 30000,
                                .topics = &t, .topic_count = 1};
    TN_SEND(&n, &s, WIRE_API_PRODUCE, 9, 7, wire_produce_request_encode, &req);
    tn_flush(&n);
    kq_writer_free(&w);
    assert_int_equal(kq_log_end_offset(n.log), 4); /* the mutant's hole: appended */
    assert_true(skipped_metric(&n) == 1.0);
    tn_mutants = 0;
    for (int round = 0; round < 2; round++) {
        tn_restart(&n);
        tn_flush(&n);
        assert_int_equal(tn_status(&n).role, RAFT_ROLE_LEADER);
        assert_true(kq_log_end_offset(n.log) >= 4);
        assert_true(skipped_metric(&n) == 1.0); /* the rebuild met it again */
    }
    tn_scan sc = tn_scan_log(&n);
    assert_true(sc.batches >= 4);
    tn_close(&n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_control_batch_every_position),
        cmocka_unit_test(test_control_batch_every_position_authorizer),
        cmocka_unit_test(test_attributes_checked_in_every_batch),
        cmocka_unit_test(test_unparsable_commit_in_log_skipped_and_restart),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
