/* Lag 0 and no idle appends (issue 24), through the handler and the real
 * executor: a consumer caught up at the log end commits it once (appended:
 * the log end moves past its commit), then its commits of the new log end
 * are answered NONE at once without an append, however often; OffsetFetch
 * answers the end of the run of control batches, which is what ListOffsets
 * latest answers (lag 0), grows with other control batches and is fixed by
 * the next data batch at its base; other metadata, or a commit older than
 * half of offsets.retention.minutes, is appended; and after a restart from
 * a snapshot and the log the answers and the commits answered without an
 * append are the same. */
#include "handler_test_node.h"

#include "kq/snapshot_file.h"
#include "kq/wire_list_offsets.h"
#include "kq/wire_offset_commit.h"
#include "kq/wire_offset_fetch.h"
#include "kq/wire_produce.h"

#define META "__cluster_metadata"
#define GROUP "lag"

static int64_t produce(tn_node *n, tn_slot *s, int32_t corr, int count)
{
    kq_writer b;
    tn_batch(&b, -1, -1, -1, count, "v");
    wire_produce_partition pp = {.index = 0, .records = {b.data, (int32_t)b.len}};
    wire_produce_topic t = {.name = kq_slice_cstr(META), .partitions = &pp, .partition_count = 1};
    wire_produce_request req = {.transactional_id = {NULL, -1}, .acks = -1, .timeout_ms = 30000,
                                .topics = &t, .topic_count = 1};
    TN_SEND(n, s, WIRE_API_PRODUCE, 9, corr, wire_produce_request_encode, &req);
    kq_writer_free(&b);
    tn_flush(n);
    wire_produce_response resp;
    TN_DECODE(n, s, WIRE_API_PRODUCE, 9, corr, wire_produce_response_decode, &resp);
    assert_int_equal(resp.topics[0].partitions[0].error_code, KAFKA_NONE);
    return resp.topics[0].partitions[0].base_offset;
}

/* ListOffsets latest: the high watermark, what kafka-consumer-groups.sh
 * takes for the log end. */
static int64_t latest(tn_node *n, tn_slot *s, int32_t corr)
{
    wire_list_offsets_partition p = {.partition_index = 0, .current_leader_epoch = -1,
                                     .timestamp = -1};
    wire_list_offsets_topic t = {kq_slice_cstr(META), &p, 1};
    wire_list_offsets_request req = {.replica_id = -1, .topics = &t, .topic_count = 1};
    TN_SEND(n, s, WIRE_API_LIST_OFFSETS, 7, corr, wire_list_offsets_request_encode, &req);
    wire_list_offsets_response resp;
    TN_DECODE(n, s, WIRE_API_LIST_OFFSETS, 7, corr, wire_list_offsets_response_decode, &resp);
    assert_int_equal(resp.topics[0].partitions[0].error_code, KAFKA_NONE);
    return resp.topics[0].partitions[0].offset;
}

static void commit_send(tn_node *n, tn_slot *s, int32_t corr, int64_t offset,
                        const char *metadata)
{
    wire_offset_commit_partition p = {.partition_index = 0, .committed_offset = offset,
                                      .committed_leader_epoch = 1,
                                      .committed_metadata = metadata ? kq_slice_cstr(metadata)
                                                                     : (kq_slice){NULL, -1}};
    wire_offset_commit_topic t = {.name = kq_slice_cstr(META), .partitions = &p,
                                  .partition_count = 1};
    wire_offset_commit_request req = {.group_id = kq_slice_cstr(GROUP),
                                      .generation_id_or_member_epoch = -1,
                                      .member_id = kq_slice_cstr(""),
                                      .group_instance_id = {NULL, -1},
                                      .retention_time_ms = -1, .topics = &t, .topic_count = 1};
    TN_SEND(n, s, WIRE_API_OFFSET_COMMIT, 8, corr, wire_offset_commit_request_encode, &req);
}

static int16_t commit_error(tn_node *n, tn_slot *s, int32_t corr)
{
    wire_offset_commit_response resp;
    TN_DECODE(n, s, WIRE_API_OFFSET_COMMIT, 8, corr, wire_offset_commit_response_decode, &resp);
    assert_int_equal(resp.topics[0].partition_count, 1);
    return resp.topics[0].partitions[0].error_code;
}

/* A commit answered NONE at once, nothing appended. */
static void commit_without_append(tn_node *n, tn_slot *s, int32_t corr, int64_t offset,
                                  const char *metadata)
{
    int64_t end = kq_log_end_offset(n->log);
    int before = tn_count(n, s);
    commit_send(n, s, corr, offset, metadata);
    assert_int_equal(tn_count(n, s), before + 1); /* answered, no flush needed */
    assert_int_equal(commit_error(n, s, corr), KAFKA_NONE);
    assert_int_equal(kq_log_end_offset(n->log), end);
}

/* A commit appended (one batch), answered NONE once committed. */
static void commit_appended(tn_node *n, tn_slot *s, int32_t corr, int64_t offset,
                            const char *metadata)
{
    int64_t end = kq_log_end_offset(n->log);
    int before = tn_count(n, s);
    commit_send(n, s, corr, offset, metadata);
    assert_int_equal(kq_log_end_offset(n->log), end + 1);
    assert_int_equal(tn_count(n, s), before);
    tn_flush(n);
    assert_int_equal(commit_error(n, s, corr), KAFKA_NONE);
}

static int64_t fetch_offset(tn_node *n, tn_slot *s, int32_t corr, int32_t *epoch)
{
    int32_t part = 0;
    wire_offset_fetch_request_topic t = {.name = kq_slice_cstr(META), .partition_indexes = &part,
                                         .partition_index_count = 1};
    wire_offset_fetch_request req = {.group_id = kq_slice_cstr(GROUP), .topics = &t,
                                     .topic_count = 1};
    TN_SEND(n, s, WIRE_API_OFFSET_FETCH, 7, corr, wire_offset_fetch_request_encode, &req);
    wire_offset_fetch_response resp;
    TN_DECODE(n, s, WIRE_API_OFFSET_FETCH, 7, corr, wire_offset_fetch_response_decode, &resp);
    assert_int_equal(resp.topics[0].partitions[0].error_code, KAFKA_NONE);
    if (epoch)
        *epoch = resp.topics[0].partitions[0].committed_leader_epoch;
    return resp.topics[0].partitions[0].committed_offset;
}

/* A consumer reads the 3 records produced and commits at the log end: one
 * append; then lag 0 and its auto-commits append nothing. Returns the
 * answer (the log end). */
static int64_t caught_up(tn_node *n, tn_slot *s, tn_slot *c)
{
    int64_t base = produce(n, s, 1, 3);
    int64_t end = latest(n, c, 2);
    assert_int_equal(end, base + 3);
    commit_appended(n, c, 3, end, NULL);
    int64_t e = latest(n, c, 4);
    assert_int_equal(e, end + 1); /* the commit took an offset */
    int32_t epoch = 0;
    assert_int_equal(fetch_offset(n, c, 5, &epoch), e); /* lag 0 */
    assert_int_equal(epoch, -1); /* not the commit's */
    /* The consumer skipped its commit's control batch: it commits e, every
     * 5 s, answered at once. */
    for (int i = 0; i < 10; i++) {
        tn_tick(n, n->now + 5000);
        commit_without_append(n, c, 10 + i, e, NULL);
    }
    commit_without_append(n, c, 30, end, ""); /* still in the run; null and "" alike */
    assert_int_equal(fetch_offset(n, c, 31, NULL), e);
    assert_int_equal(latest(n, c, 32), e);
    return e;
}

static void test_caught_up_consumer(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID}, c = {TN_CLIENT_LISTENER_ID + 1};
    int64_t e = caught_up(&n, &s, &c);
    /* Other metadata, or beyond the log: appended. */
    commit_appended(&n, &c, 40, e, "m");
    int64_t e2 = latest(&n, &c, 41);
    assert_int_equal(fetch_offset(&n, &c, 42, NULL), e2); /* e, in the run: its end */
    commit_without_append(&n, &c, 43, e2, "m");
    commit_appended(&n, &c, 44, e2 + 5, "m");
    assert_int_equal(fetch_offset(&n, &c, 45, NULL), e2 + 5); /* above the log: itself */
    tn_close(&n);
}

/* Another group's commit extends the run; a data batch fixes its end. */
static void test_run_grows_then_ends(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID}, c = {TN_CLIENT_LISTENER_ID + 1};
    int64_t e = caught_up(&n, &s, &c);
    wire_offset_commit_partition p = {.partition_index = 0, .committed_offset = 1,
                                      .committed_leader_epoch = -1,
                                      .committed_metadata = {NULL, -1}};
    wire_offset_commit_topic t = {.name = kq_slice_cstr(META), .partitions = &p,
                                  .partition_count = 1};
    wire_offset_commit_request other = {.group_id = kq_slice_cstr("other"),
                                        .generation_id_or_member_epoch = -1,
                                        .member_id = kq_slice_cstr(""),
                                        .group_instance_id = {NULL, -1},
                                        .retention_time_ms = -1, .topics = &t, .topic_count = 1};
    TN_SEND(&n, &s, WIRE_API_OFFSET_COMMIT, 8, 50, wire_offset_commit_request_encode, &other);
    tn_flush(&n);
    assert_int_equal(commit_error(&n, &s, 50), KAFKA_NONE);
    assert_int_equal(latest(&n, &c, 51), e + 1);
    assert_int_equal(fetch_offset(&n, &c, 52, NULL), e + 1);
    commit_without_append(&n, &c, 53, e + 1, NULL);
    int64_t base = produce(&n, &s, 54, 2);
    assert_int_equal(base, e + 1);
    assert_int_equal(fetch_offset(&n, &c, 55, NULL), base); /* the data is new to it */
    assert_int_equal(latest(&n, &c, 56), base + 2);         /* lag 2 */
    commit_without_append(&n, &c, 57, base, NULL);           /* the same position */
    commit_appended(&n, &c, 58, base + 2, NULL);             /* read them */
    assert_int_equal(fetch_offset(&n, &c, 59, NULL), base + 3);
    tn_close(&n);
}

/* Retention counts from the commit kept: one older than half of
 * offsets.retention.minutes is appended again. */
static void test_commit_refreshed_before_retention(void **state)
{
    (void)state;
    tn_group_config = group_config_default();
    tn_group_config.offsets_retention_ms = 120000;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID}, c = {TN_CLIENT_LISTENER_ID + 1};
    int64_t e = caught_up(&n, &s, &c); /* 50 s of commits answered without an append */
    tn_tick(&n, n.now + 15000);         /* the kept commit is 65 s old */
    commit_appended(&n, &c, 60, e, NULL);
    int64_t e2 = latest(&n, &c, 61);
    assert_int_equal(fetch_offset(&n, &c, 62, NULL), e2);
    commit_without_append(&n, &c, 63, e2, NULL);
    tn_group_config = (group_config){0};
    tn_close(&n);
}

static void snapshot_often(exec_config *c)
{
    c->snapshot_bytes_between = 1;
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

/* After a restart (a snapshot of the run, then the log after it) the new
 * leader's LeaderChange extends the run: the answer is the new end, and the
 * consumer's commit there appends nothing. A fixed answer survives too. */
static void test_restart_keeps_runs(void **state)
{
    (void)state;
    for (int snap = 0; snap < 2; snap++) {
        tn_config_hook = snap ? snapshot_often : NULL;
        tn_node n;
        tn_open_leader(&n);
        tn_slot s = {TN_CLIENT_LISTENER_ID}, c = {TN_CLIENT_LISTENER_ID + 1};
        int64_t e = caught_up(&n, &s, &c);
        tn_tick(&n, n.now + 10);
        tn_flush(&n);
        raft_snapshot_id ids[4];
        int count = kq_snapshot_list(kq_fs_posix(), n.dir, ids, 4, false);
        assert_true(snap ? count > 0 && ids[count - 1].end_offset >= e : count == 0);
        restart_leader(&n);
        tn_config_hook = NULL;
        int64_t e2 = latest(&n, &c, 70);
        assert_true(e2 > e);
        assert_int_equal(fetch_offset(&n, &c, 71, NULL), e2);
        commit_without_append(&n, &c, 72, e2, NULL);
        int64_t base = produce(&n, &s, 73, 1);
        assert_int_equal(fetch_offset(&n, &c, 74, NULL), base);
        restart_leader(&n);
        assert_int_equal(fetch_offset(&n, &c, 75, NULL), base); /* fixed, for good */
        commit_without_append(&n, &c, 76, base, NULL);
        tn_close(&n);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_caught_up_consumer),
        cmocka_unit_test(test_run_grows_then_ends),
        cmocka_unit_test(test_commit_refreshed_before_retention),
        cmocka_unit_test(test_restart_keeps_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
