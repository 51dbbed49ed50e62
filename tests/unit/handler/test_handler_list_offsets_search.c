/* ListOffsets by timestamp runs off the loop (issue 19): the request is
 * parked until its search job is done; at most EXEC_TIME_SEARCHES_RUNNING_MAX
 * jobs are out, the others wait in order; other requests are answered
 * meanwhile; the answers carry the offsets an inline scan finds; beyond
 * HANDLER_TIME_SEARCHES_PARKED_MAX a request is answered REQUEST_TIMED_OUT,
 * beyond HANDLER_TIME_SEARCH_TARGETS_MAX timestamps an entry INVALID_REQUEST;
 * a failed search is KAFKA_STORAGE_ERROR; jobs out at close are freed. */
#include <errno.h>

#include "handler_test_node.h"

#include "kq/wire_api_versions.h"
#include "kq/wire_list_offsets.h"
#include "kq/wire_produce.h"

#define META "__cluster_metadata"
#define TS0 1600000000000LL
#define JOBS_MAX 512

static struct exec_search_job *jobs[JOBS_MAX];
static int job_count;

static void capture(void *ctx, struct exec_search_job *job)
{
    (void)ctx;
    assert_true(job_count < JOBS_MAX);
    jobs[job_count++] = job;
}

/* Runs and completes the i-th job handed out (removing it). */
static void complete(tn_node *n, int i, bool fail)
{
    struct exec_search_job *job = jobs[i];
    memmove(&jobs[i], &jobs[i + 1], sizeof(jobs[0]) * (size_t)(job_count - i - 1));
    job_count--;
    int rc = exec_search_job_run(job);
    exec_search_done(n->x, job, fail ? -EIO : rc);
    tn_after(n);
}

static void produce(tn_node *n, tn_slot *slot, int count, const char *tag)
{
    kq_writer b;
    tn_batch(&b, -1, -1, -1, count, tag);
    wire_produce_partition p = {.index = 0, .records = {b.data, (int32_t)b.len}};
    wire_produce_topic t = {.name = kq_slice_cstr(META), .partitions = &p, .partition_count = 1};
    wire_produce_request req = {.transactional_id = {NULL, -1}, .acks = 1,
                                .timeout_ms = 30000, .topics = &t, .topic_count = 1};
    TN_SEND(n, slot, WIRE_API_PRODUCE, 9, 1, wire_produce_request_encode, &req);
    kq_writer_free(&b);
    tn_flush(n);
}

/* A ListOffsets of count entries for partition 0, timestamps ts[]. */
static void send_list(tn_node *n, tn_slot *s, int32_t corr, const int64_t *ts, int count)
{
    wire_list_offsets_partition p[32];
    assert_true(count <= 32);
    for (int i = 0; i < count; i++)
        p[i] = (wire_list_offsets_partition){.partition_index = 0, .current_leader_epoch = -1,
                                             .timestamp = ts[i], .max_num_offsets = 1};
    wire_list_offsets_topic t = {kq_slice_cstr(META), p, count};
    wire_list_offsets_request req = {.replica_id = -1, .topics = &t, .topic_count = 1};
    TN_SEND(n, s, WIRE_API_LIST_OFFSETS, 7, corr, wire_list_offsets_request_encode, &req);
}

static wire_list_offsets_partition_response answer(tn_node *n, tn_slot *s, int32_t corr,
                                                   int entry)
{
    wire_list_offsets_response resp;
    TN_DECODE(n, s, WIRE_API_LIST_OFFSETS, 7, corr, wire_list_offsets_response_decode, &resp);
    assert_int_equal(resp.topic_count, 1);
    assert_true(entry < resp.topics[0].partition_count);
    return resp.topics[0].partitions[entry];
}

/* A leader holding batches a (offsets 1-2, max ts TS0+1), b (3-7, TS0+4)
 * and c (8-10, TS0+2), all committed. */
static void open_with_batches(tn_node *n)
{
    job_count = 0;
    tn_search_start = capture;
    tn_open_leader(n);
    tn_search_start = NULL;
    tn_slot p = {900};
    produce(n, &p, 2, "a");
    produce(n, &p, 5, "b");
    produce(n, &p, 3, "c");
    assert_int_equal(tn_status(n).high_watermark, 11);
}

static void test_parked_until_done_in_order(void **state)
{
    (void)state;
    tn_node n;
    open_with_batches(&n);
    tn_slot s[4] = {{1}, {2}, {3}, {4}};
    int64_t max_ts = -3;
    for (int i = 0; i < 4; i++)
        send_list(&n, &s[i], 10 + i, &max_ts, 1);
    for (int i = 0; i < 4; i++)
        assert_int_equal(tn_count(&n, &s[i]), 0);
    assert_int_equal(job_count, EXEC_TIME_SEARCHES_RUNNING_MAX);
    /* the loop is free meanwhile */
    tn_slot av = {5};
    wire_api_versions_request avr = {.client_software_name = kq_slice_cstr("t"),
                                     .client_software_version = kq_slice_cstr("1")};
    TN_SEND(&n, &av, WIRE_API_API_VERSIONS, 3, 99, wire_api_versions_request_encode, &avr);
    assert_int_equal(tn_count(&n, &av), 1);
    /* the second job done first; then each done starts the next waiting */
    complete(&n, 1, false);
    assert_int_equal(tn_count(&n, &s[1]), 1);
    assert_int_equal(tn_count(&n, &s[0]), 0);
    assert_int_equal(job_count, EXEC_TIME_SEARCHES_RUNNING_MAX);
    while (job_count > 0)
        complete(&n, 0, false);
    for (int i = 0; i < 4; i++) {
        wire_list_offsets_partition_response pr = answer(&n, &s[i], 10 + i, 0);
        assert_int_equal(pr.error_code, KAFKA_NONE);
        assert_int_equal(pr.offset, 3);
        assert_int_equal(pr.timestamp, TS0 + 4);
    }
    tn_close(&n);
}

static void test_timestamps_and_errors(void **state)
{
    (void)state;
    tn_node n;
    open_with_batches(&n);
    tn_slot s = {1}, f = {2};
    int64_t ts[4] = {TS0 + 2, TS0, TS0 + 1000, -2};
    send_list(&n, &s, 20, ts, 4);
    assert_int_equal(tn_count(&n, &s), 0);
    assert_int_equal(job_count, 1); /* one search for every timestamp */
    complete(&n, 0, false);
    int64_t want[4] = {3, 1, -1, 0};
    for (int i = 0; i < 4; i++) {
        wire_list_offsets_partition_response pr = answer(&n, &s, 20, i);
        assert_int_equal(pr.error_code, KAFKA_NONE);
        assert_int_equal(pr.offset, want[i]);
    }
    /* more distinct timestamps than one search takes */
    int64_t many[HANDLER_TIME_SEARCH_TARGETS_MAX + 1];
    for (int i = 0; i <= HANDLER_TIME_SEARCH_TARGETS_MAX; i++)
        many[i] = TS0 + i;
    send_list(&n, &s, 21, many, HANDLER_TIME_SEARCH_TARGETS_MAX + 1);
    complete(&n, 0, false);
    assert_int_equal(answer(&n, &s, 21, 0).offset, 1);
    assert_int_equal(answer(&n, &s, 21, HANDLER_TIME_SEARCH_TARGETS_MAX).error_code,
                     KAFKA_INVALID_REQUEST);
    /* a failed search */
    send_list(&n, &f, 22, ts, 1);
    complete(&n, 0, true);
    assert_int_equal(answer(&n, &f, 22, 0).error_code, KAFKA_KAFKA_STORAGE_ERROR);
    tn_close(&n);
}

static void test_parked_bound_and_close(void **state)
{
    (void)state;
    tn_node n;
    open_with_batches(&n);
    static tn_slot s[HANDLER_TIME_SEARCHES_PARKED_MAX + 1];
    int64_t max_ts = -3;
    for (int i = 0; i <= HANDLER_TIME_SEARCHES_PARKED_MAX; i++) {
        s[i].id = 1 + i;
        send_list(&n, &s[i], 1000 + i, &max_ts, 1);
    }
    for (int i = 0; i < HANDLER_TIME_SEARCHES_PARKED_MAX; i++)
        assert_int_equal(tn_count(&n, &s[i]), 0);
    tn_slot *last = &s[HANDLER_TIME_SEARCHES_PARKED_MAX];
    assert_int_equal(answer(&n, last, 1000 + HANDLER_TIME_SEARCHES_PARKED_MAX, 0).error_code,
                     KAFKA_REQUEST_TIMED_OUT);
    assert_int_equal(job_count, EXEC_TIME_SEARCHES_RUNNING_MAX);
    complete(&n, 0, false);
    assert_int_equal(answer(&n, &s[0], 1000, 0).offset, 3);
    /* closing with searches out and waiting frees them (ASan) */
    tn_close(&n);
    job_count = 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parked_until_done_in_order),
        cmocka_unit_test(test_timestamps_and_errors),
        cmocka_unit_test(test_parked_bound_and_close),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
