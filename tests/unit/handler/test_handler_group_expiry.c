/* Committed offsets expire (issue 19, offsets.retention.minutes, KIP-211):
 * the leader's tick writes a tombstone control batch once retention has
 * passed since the commit of a group without members; once committed the
 * offset is gone (OffsetFetch -1), also after a restart that rebuilds the
 * table from the log; the group commits again; a group that had a member
 * after its commit counts retention from when it became Empty (KIP-211). */
#include "handler_test_node.h"

#include "kq/group_offsets.h"
#include "kq/wire_join_group.h"
#include "kq/wire_offset_commit.h"
#include "kq/wire_offset_fetch.h"

#define META "__cluster_metadata"
#define RETENTION_MS 60000
#define CHECK_MS 1000

static void commit(tn_node *n, tn_slot *s, int32_t corr, const char *group, int64_t offset)
{
    wire_offset_commit_partition p = {.partition_index = 0, .committed_offset = offset,
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
    return resp.topics[0].partitions[0].committed_offset;
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_offsets_expire_and_stay_expired),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
