/* Group membership through the log (issue 24), through the handler and the
 * real executor: a group formed on a leader that then restarts (a new
 * epoch, its coordinator loaded from the log, or from a snapshot and the
 * log after it) still knows the member: its Heartbeat is answered NONE and
 * its OffsetCommit at its generation accepted, and DescribeGroups shows it
 * Stable. With the mutant membership-not-replicated the member is unknown.
 * An answer that reveals a change waits for its record: a SyncGroup whose
 * record does not commit in time is answered COORDINATOR_NOT_AVAILABLE. */
#include "handler_test_node.h"

#include "kq/mutants.h"
#include "kq/snapshot_file.h"
#include "kq/wire_describe_groups.h"
#include "kq/wire_heartbeat.h"
#include "kq/wire_join_group.h"
#include "kq/wire_offset_commit.h"
#include "kq/wire_sync_group.h"

#define META "__cluster_metadata"
#define GROUP "persisted"

typedef struct member {
    char id[256];
    int32_t generation;
} member;

#define settle tn_settle

static void join(tn_node *n, tn_slot *s, int32_t corr, const char *member_id)
{
    wire_join_group_protocol proto = {kq_slice_cstr("range"), kq_slice_cstr("sub-1")};
    wire_join_group_request req = {
        .group_id = kq_slice_cstr(GROUP), .session_timeout_ms = 10000,
        .rebalance_timeout_ms = 20000, .member_id = kq_slice_cstr(member_id),
        .group_instance_id = {NULL, -1}, .protocol_type = kq_slice_cstr("consumer"),
        .protocols = &proto, .protocol_count = 1, .reason = {NULL, -1}};
    TN_SEND(n, s, WIRE_API_JOIN_GROUP, 5, corr, wire_join_group_request_encode, &req);
}

static void sync_send(tn_node *n, tn_slot *s, int32_t corr, const member *m, const char *as)
{
    wire_sync_group_assignment a = {kq_slice_cstr(m->id), kq_slice_cstr(as)};
    wire_sync_group_request req = {
        .group_id = kq_slice_cstr(GROUP), .generation_id = m->generation,
        .member_id = kq_slice_cstr(m->id), .group_instance_id = {NULL, -1},
        .protocol_type = {NULL, -1}, .protocol_name = {NULL, -1}, .assignments = &a,
        .assignment_count = as ? 1 : 0};
    TN_SEND(n, s, WIRE_API_SYNC_GROUP, 3, corr, wire_sync_group_request_encode, &req);
}

static wire_sync_group_response sync_answer(tn_node *n, tn_slot *s, int32_t corr)
{
    wire_sync_group_response r;
    TN_DECODE(n, s, WIRE_API_SYNC_GROUP, 3, corr, wire_sync_group_response_decode, &r);
    return r;
}

static int16_t heartbeat(tn_node *n, tn_slot *s, int32_t corr, const member *m)
{
    wire_heartbeat_request req = {.group_id = kq_slice_cstr(GROUP),
                                  .generation_id = m->generation,
                                  .member_id = kq_slice_cstr(m->id),
                                  .group_instance_id = {NULL, -1}};
    TN_SEND(n, s, WIRE_API_HEARTBEAT, 3, corr, wire_heartbeat_request_encode, &req);
    wire_heartbeat_response resp;
    TN_DECODE(n, s, WIRE_API_HEARTBEAT, 3, corr, wire_heartbeat_response_decode, &resp);
    return resp.error_code;
}

static int16_t commit(tn_node *n, tn_slot *s, int32_t corr, const member *m, int64_t offset)
{
    wire_offset_commit_partition p = {.partition_index = 0, .committed_offset = offset,
                                      .committed_leader_epoch = -1,
                                      .committed_metadata = {NULL, -1}};
    wire_offset_commit_topic t = {.name = kq_slice_cstr(META), .partitions = &p,
                                  .partition_count = 1};
    wire_offset_commit_request req = {.group_id = kq_slice_cstr(GROUP),
                                      .generation_id_or_member_epoch = m->generation,
                                      .member_id = kq_slice_cstr(m->id),
                                      .group_instance_id = {NULL, -1},
                                      .retention_time_ms = -1, .topics = &t, .topic_count = 1};
    TN_SEND(n, s, WIRE_API_OFFSET_COMMIT, 8, corr, wire_offset_commit_request_encode, &req);
    tn_flush(n);
    wire_offset_commit_response resp;
    TN_DECODE(n, s, WIRE_API_OFFSET_COMMIT, 8, corr, wire_offset_commit_response_decode, &resp);
    return resp.topics[0].partitions[0].error_code;
}

/* The member joins (MEMBER_ID_REQUIRED first) and is given its generation
 * once the group's record commits. */
static member join_alone(tn_node *n, tn_slot *s)
{
    member m = {.generation = -1};
    join(n, s, 1, "");
    wire_join_group_response j;
    TN_DECODE(n, s, WIRE_API_JOIN_GROUP, 5, 1, wire_join_group_response_decode, &j);
    assert_int_equal(j.error_code, KAFKA_MEMBER_ID_REQUIRED);
    memcpy(m.id, j.member_id.ptr, (size_t)j.member_id.len);
    int before = tn_count(n, s);
    join(n, s, 2, m.id);
    tn_tick(n, n->now + KQ_GROUP_INITIAL_REBALANCE_DELAY_MS_DEFAULT + 1);
    assert_int_equal(tn_count(n, s), before); /* held until its record commits */
    settle(n);
    assert_int_equal(tn_count(n, s), before + 1);
    TN_DECODE(n, s, WIRE_API_JOIN_GROUP, 5, 2, wire_join_group_response_decode, &j);
    assert_int_equal(j.error_code, KAFKA_NONE);
    m.generation = j.generation_id;
    return m;
}

static member form(tn_node *n, tn_slot *s)
{
    member m = join_alone(n, s);
    int before = tn_count(n, s);
    sync_send(n, s, 3, &m, "assign-1");
    assert_int_equal(tn_count(n, s), before); /* held: the Stable record */
    settle(n);
    wire_sync_group_response sr = sync_answer(n, s, 3);
    assert_int_equal(sr.error_code, KAFKA_NONE);
    assert_true(kq_slice_eq_cstr(sr.assignment, "assign-1"));
    assert_int_equal(heartbeat(n, s, 4, &m), KAFKA_NONE);
    assert_int_equal(commit(n, s, 5, &m, 10), KAFKA_NONE);
    return m;
}

static void restart_leader(tn_node *n)
{
    int32_t epoch = tn_status(n).epoch;
    tn_restart(n);
    for (int i = 0; i < 4 && tn_status(n).role != RAFT_ROLE_LEADER; i++)
        tn_tick(n, n->now + 2000);
    assert_int_equal(tn_status(n).role, RAFT_ROLE_LEADER);
    assert_true(tn_status(n).epoch > epoch);
    tn_flush(n);
    assert_int_equal(tn_status(n).high_watermark, kq_log_end_offset(n->log));
}

static void assert_stable(tn_node *n, tn_slot *s, const member *m)
{
    kq_slice id = kq_slice_cstr(GROUP);
    wire_describe_groups_request dr = {.groups = &id, .group_count = 1};
    TN_SEND(n, s, WIRE_API_DESCRIBE_GROUPS, 5, 40, wire_describe_groups_request_encode, &dr);
    wire_describe_groups_response d;
    TN_DECODE(n, s, WIRE_API_DESCRIBE_GROUPS, 5, 40, wire_describe_groups_response_decode, &d);
    assert_true(kq_slice_eq_cstr(d.groups[0].group_state, "Stable"));
    assert_int_equal(d.groups[0].member_count, 1);
    assert_true(kq_slice_eq_cstr(d.groups[0].members[0].member_id, m->id));
    assert_true(kq_slice_eq_cstr(d.groups[0].members[0].member_metadata, "sub-1"));
    assert_true(kq_slice_eq_cstr(d.groups[0].members[0].member_assignment, "assign-1"));
}

/* After a restart (a new epoch) the member goes on: no rebalance. */
static void test_restart_keeps_member(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID};
    member m = form(&n, &s);
    restart_leader(&n);
    assert_int_equal(heartbeat(&n, &s, 20, &m), KAFKA_NONE);
    assert_int_equal(commit(&n, &s, 21, &m, 11), KAFKA_NONE);
    assert_stable(&n, &s, &m);
    /* Its SyncGroup of the same generation gets its assignment back at once
     * (nothing changed). */
    sync_send(&n, &s, 22, &m, NULL);
    wire_sync_group_response sr = sync_answer(&n, &s, 22);
    assert_int_equal(sr.error_code, KAFKA_NONE);
    assert_true(kq_slice_eq_cstr(sr.assignment, "assign-1"));
    tn_close(&n);
}

static void snapshot_often(exec_config *c)
{
    c->snapshot_bytes_between = 1;
}

/* The same from a snapshot holding the group ("kq.group", "kq.group-member"). */
static void test_restart_from_snapshot(void **state)
{
    (void)state;
    tn_config_hook = snapshot_often;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID};
    member m = form(&n, &s);
    int64_t end = kq_log_end_offset(n.log);
    tn_tick(&n, n.now + 10);
    tn_flush(&n);
    raft_snapshot_id ids[4];
    int count = kq_snapshot_list(kq_fs_posix(), n.dir, ids, 4, false);
    assert_true(count > 0);
    assert_true(ids[count - 1].end_offset >= end); /* it holds every group record */
    restart_leader(&n);
    tn_config_hook = NULL;
    assert_int_equal(heartbeat(&n, &s, 20, &m), KAFKA_NONE);
    assert_int_equal(commit(&n, &s, 21, &m, 11), KAFKA_NONE);
    assert_stable(&n, &s, &m);
    tn_close(&n);
}

/* Before issue 24 (the mutant): the new leader does not know the member. */
static void test_mutant_forgets(void **state)
{
    (void)state;
    tn_mutants = KQ_MUTANT_MEMBERSHIP_NOT_REPLICATED;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID};
    member m = form(&n, &s);
    restart_leader(&n);
    tn_mutants = 0;
    assert_int_equal(heartbeat(&n, &s, 20, &m), KAFKA_UNKNOWN_MEMBER_ID);
    assert_int_equal(commit(&n, &s, 21, &m, 11), KAFKA_ILLEGAL_GENERATION);
    tn_close(&n);
}

/* A held answer whose record does not commit within
 * HANDLER_GROUP_COMMIT_TIMEOUT_MS: COORDINATOR_NOT_AVAILABLE. */
static void test_held_answer_times_out(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID};
    member m = join_alone(&n, &s);
    int before = tn_count(&n, &s);
    sync_send(&n, &s, 3, &m, "assign-1");
    tn_tick(&n, n.now + HANDLER_GROUP_COMMIT_TIMEOUT_MS - 1);
    assert_int_equal(tn_count(&n, &s), before);
    tn_tick(&n, n.now + 1);
    assert_int_equal(tn_count(&n, &s), before + 1);
    assert_int_equal(sync_answer(&n, &s, 3).error_code, KAFKA_COORDINATOR_NOT_AVAILABLE);
    /* Its record commits later: the member is Stable (a later SyncGroup of
     * its generation is answered at once). */
    settle(&n);
    assert_int_equal(tn_count(&n, &s), before + 1);
    sync_send(&n, &s, 4, &m, NULL);
    assert_int_equal(sync_answer(&n, &s, 4).error_code, KAFKA_NONE);
    tn_close(&n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_restart_keeps_member),
        cmocka_unit_test(test_restart_from_snapshot),
        cmocka_unit_test(test_mutant_forgets),
        cmocka_unit_test(test_held_answer_times_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
