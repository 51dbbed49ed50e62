/* Committed offsets expire (issue 19, offsets.retention.minutes, KIP-211):
 * the leader's tick writes a tombstone control batch once retention has
 * passed since the commit of a group without members; once committed the
 * offset is gone (OffsetFetch -1), also after a restart that rebuilds the
 * table from the log; the group commits again; a group that had a member
 * after its commit counts retention from when it became Empty (KIP-211),
 * even for a commit after that (Kafka's currentStateTimestamp); a Stable
 * consumer group's offsets of topics no member subscribes to expire from
 * their commit, those of its topics and of unreadable subscriptions do not
 * (KIP-496, issue 24). */
#include "handler_test_node.h"

#include "kq/group_offsets.h"
#include "kq/wire_join_group.h"
#include "kq/wire_leave_group.h"
#include "kq/wire_offset_commit.h"
#include "kq/wire_offset_fetch.h"
#include "kq/wire_sync_group.h"

/* Committed offsets far above the log: none lies in the run of control
 * batches at its end, which OffsetFetch answers with the run's end
 * (issue 24's lag 0, tests/unit/handler/test_handler_group_lag.c). */
#define ABOVE ((int64_t)1 << 40)

#define META "__cluster_metadata"
#define RETENTION_MS 60000
#define CHECK_MS 1000

static void commit(tn_node *n, tn_slot *s, int32_t corr, const char *group, int64_t offset)
{
    wire_offset_commit_partition p = {.partition_index = 0, .committed_offset = ABOVE + offset,
                                      .committed_leader_epoch = 3,
                                      .committed_metadata = kq_slice_cstr("m")};
    wire_offset_commit_topic t = {.name = kq_slice_cstr(META), .partitions = &p,
                                  .partition_count = 1};
    wire_offset_commit_request req = {.group_id = kq_slice_cstr(group),
                                      .generation_id_or_member_epoch = -1,
                                      .member_id = kq_slice_cstr(""),
                                      .group_instance_id = {NULL, -1},
                                      .retention_time_ms = -1, .topics = &t, .topic_count = 1};
    TN_SEND(n, s, WIRE_API_OFFSET_COMMIT, 7, corr, wire_offset_commit_request_encode, &req);
    tn_flush(n);
    wire_offset_commit_response resp;
    TN_DECODE(n, s, WIRE_API_OFFSET_COMMIT, 7, corr, wire_offset_commit_response_decode, &resp);
    assert_int_equal(resp.topics[0].partitions[0].error_code, KAFKA_NONE);
}

static int64_t fetched(tn_node *n, tn_slot *s, int32_t corr, const char *group)
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
    int64_t got = resp.topics[0].partitions[0].committed_offset;
    return got < 0 ? got : got - ABOVE;
}

/* A member of group (JoinGroup v3: no MEMBER_ID_REQUIRED step). */
static void join(tn_node *n, tn_slot *s, int32_t corr, const char *group)
{
    wire_join_group_protocol proto = {kq_slice_cstr("range"), kq_slice_cstr("m")};
    wire_join_group_request req = {
        .group_id = kq_slice_cstr(group), .session_timeout_ms = 1800000,
        .rebalance_timeout_ms = 20000, .member_id = kq_slice_cstr(""),
        .group_instance_id = {NULL, -1}, .protocol_type = kq_slice_cstr("consumer"),
        .protocols = &proto, .protocol_count = 1, .reason = {NULL, -1}};
    TN_SEND(n, s, WIRE_API_JOIN_GROUP, 3, corr, wire_join_group_request_encode, &req);
}

static int expire_cb(void *ctx, const uint8_t *batch, size_t len)
{
    record_iter it;
    record rec;
    assert_int_equal(record_iter_open(&it, batch, len), RECORD_OK);
    while (record_iter_next(&it, &rec))
        if (record_batch_is_control(&it.header) &&
            record_control_type(rec.key) == KQ_CONTROL_OFFSET_EXPIRE)
            (*(int *)ctx)++;
    record_iter_close(&it);
    return 0;
}

static int tombstones(tn_node *n)
{
    int count = 0;
    assert_true(kq_log_scan(n->log, kq_log_start_offset(n->log), expire_cb, &count) >= 0);
    return count;
}

/* Stops the node and starts it again on its log (a single voter leads). */
static void restart(tn_node *n)
{
    char dir[64];
    snprintf(dir, sizeof(dir), "%s", n->dir);
    int64_t now = n->now;
    tn_flush(n);
    exec_destroy(n->x, false);
    for (int i = 0; i < n->reply_count; i++)
        free(n->replies[i].data);
    free(n->replies);
    kq_arena_free(&n->arena);
    tn_open_at(n, 1, 1, dir, now);
    assert_int_equal(tn_status(n).role, RAFT_ROLE_LEADER);
    tn_flush(n);
}

static void test_offsets_expire_and_stay_expired(void **state)
{
    (void)state;
    tn_group_config = group_config_default();
    tn_group_config.offsets_retention_ms = RETENTION_MS;
    tn_group_config.offsets_retention_check_interval_ms = CHECK_MS;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID}, m = {TN_CLIENT_LISTENER_ID};
    int64_t t0 = n.now;
    commit(&n, &s, 1, "idle", 42);
    commit(&n, &s, 2, "busy", 7);
    join(&n, &m, 3, "busy"); /* a member (it never syncs: removed after the
                              * rebalance timeout, the group Empty from then) */
    assert_int_equal(fetched(&n, &s, 4, "idle"), 42);
    tn_tick(&n, t0 + RETENTION_MS / 2);
    tn_flush(&n);
    assert_int_equal(tombstones(&n), 0);
    assert_int_equal(fetched(&n, &s, 5, "idle"), 42);
    /* Retention after the commit: the next check writes the tombstone. */
    tn_tick(&n, t0 + RETENTION_MS + CHECK_MS + 1);
    assert_int_equal(tombstones(&n), 1);
    tn_flush(&n);
    tn_tick(&n, t0 + RETENTION_MS + CHECK_MS + 2);
    assert_int_equal(fetched(&n, &s, 6, "idle"), -1);
    assert_int_equal(fetched(&n, &s, 7, "busy"), 7);
    /* Later checks write nothing more. */
    tn_tick(&n, t0 + RETENTION_MS + 3 * CHECK_MS);
    tn_flush(&n);
    assert_int_equal(tombstones(&n), 1);
    /* A restart rebuilds the table from the log: still expired. */
    restart(&n);
    tn_slot s2 = {TN_CLIENT_LISTENER_ID};
    assert_int_equal(fetched(&n, &s2, 8, "idle"), -1);
    assert_int_equal(fetched(&n, &s2, 9, "busy"), 7);
    /* The group commits again. */
    commit(&n, &s2, 10, "idle", 43);
    assert_int_equal(fetched(&n, &s2, 11, "idle"), 43);
    tn_close(&n);
    tn_group_config = (group_config){0};
}

/* A subscription (ConsumerProtocolSubscription v0) to one topic. */
static kq_slice subscription(uint8_t *b, const char *topic)
{
    size_t len = strlen(topic);
    const uint8_t head[] = {0, 0, 0, 0, 0, 1, 0, (uint8_t)len};
    memcpy(b, head, sizeof head);
    memcpy(b + sizeof head, topic, len);
    memset(b + sizeof head + len, 0xff, 4); /* null user data */
    return (kq_slice){b, (int32_t)(sizeof head + len + 4)};
}

/* A Stable member of group (JoinGroup v3, the initial delay, SyncGroup). */
static void stable_member(tn_node *n, tn_slot *s, int32_t corr, const char *group, kq_slice meta,
                          char *id)
{
    wire_join_group_protocol proto = {kq_slice_cstr("range"), meta};
    wire_join_group_request req = {
        .group_id = kq_slice_cstr(group), .session_timeout_ms = 1800000,
        .rebalance_timeout_ms = 20000, .member_id = kq_slice_cstr(""),
        .group_instance_id = {NULL, -1}, .protocol_type = kq_slice_cstr("consumer"),
        .protocols = &proto, .protocol_count = 1, .reason = {NULL, -1}};
    TN_SEND(n, s, WIRE_API_JOIN_GROUP, 3, corr, wire_join_group_request_encode, &req);
    tn_tick(n, n->now + KQ_GROUP_INITIAL_REBALANCE_DELAY_MS_DEFAULT + 1);
    tn_settle(n); /* the answer waits for the group's record (issue 24) */
    wire_join_group_response j;
    TN_DECODE(n, s, WIRE_API_JOIN_GROUP, 3, corr, wire_join_group_response_decode, &j);
    assert_int_equal(j.error_code, KAFKA_NONE);
    memcpy(id, j.member_id.ptr, (size_t)j.member_id.len);
    id[j.member_id.len] = 0;
    wire_sync_group_assignment a = {j.member_id, kq_slice_cstr("x")};
    wire_sync_group_request sr = {
        .group_id = kq_slice_cstr(group), .generation_id = j.generation_id,
        .member_id = j.member_id, .group_instance_id = {NULL, -1},
        .protocol_type = {NULL, -1}, .protocol_name = {NULL, -1}, .assignments = &a,
        .assignment_count = 1};
    TN_SEND(n, s, WIRE_API_SYNC_GROUP, 3, corr + 1, wire_sync_group_request_encode, &sr);
    tn_settle(n);
    wire_sync_group_response sync;
    TN_DECODE(n, s, WIRE_API_SYNC_GROUP, 3, corr + 1, wire_sync_group_response_decode, &sync);
    assert_int_equal(sync.error_code, KAFKA_NONE);
}

static void test_kip496_and_empty_since(void **state)
{
    (void)state;
    tn_group_config = group_config_default();
    tn_group_config.offsets_retention_ms = RETENTION_MS;
    tn_group_config.offsets_retention_check_interval_ms = CHECK_MS;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID}, m = {TN_CLIENT_LISTENER_ID + 1};
    uint8_t b1[64], b2[64];
    char id[256];
    int64_t t0 = n.now;
    commit(&n, &s, 1, "moved", 1);  /* its members now read another topic */
    commit(&n, &s, 2, "reading", 2); /* its members read this one */
    commit(&n, &s, 3, "unknown", 3); /* unreadable subscriptions */
    stable_member(&n, &m, 4, "moved", subscription(b1, "other"), id);
    stable_member(&n, &m, 6, "reading", subscription(b2, META), id);
    stable_member(&n, &m, 8, "unknown", kq_slice_cstr("m"), id);
    tn_tick(&n, t0 + RETENTION_MS + CHECK_MS + 1);
    assert_int_equal(tombstones(&n), 1);
    tn_flush(&n);
    tn_tick(&n, n.now + 1);
    assert_int_equal(fetched(&n, &s, 10, "moved"), -1);
    assert_int_equal(fetched(&n, &s, 11, "reading"), 2);
    assert_int_equal(fetched(&n, &s, 12, "unknown"), 3);
    tn_close(&n);

    /* Empty since t1 (its member left, an offset kept it known), a commit
     * at t1 + retention / 2: expired at t1 + retention. */
    tn_open_leader(&n);
    commit(&n, &s, 19, "late", 3);
    stable_member(&n, &m, 20, "late", subscription(b1, META), id);
    wire_leave_group_request lr = {.group_id = kq_slice_cstr("late"),
                                   .member_id = kq_slice_cstr(id)};
    TN_SEND(&n, &m, WIRE_API_LEAVE_GROUP, 0, 22, wire_leave_group_request_encode, &lr);
    int64_t t1 = n.now;
    tn_tick(&n, t1 + RETENTION_MS / 2);
    commit(&n, &s, 23, "late", 4);
    tn_tick(&n, t1 + RETENTION_MS + CHECK_MS + 1);
    assert_int_equal(tombstones(&n), 1);
    tn_flush(&n);
    tn_tick(&n, n.now + 1);
    assert_int_equal(fetched(&n, &s, 24, "late"), -1);
    tn_close(&n);
    tn_group_config = (group_config){0};
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_offsets_expire_and_stay_expired),
        cmocka_unit_test(test_kip496_and_empty_since),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
