/* Consumer groups through the handler and the real executor (issue 12):
 * FindCoordinator, the classic join/sync/heartbeat/leave cycle,
 * DescribeGroups/ListGroups, OffsetCommit/OffsetFetch, and the refusals of
 * a follower and of bad input. */
#include "handler_test_node.h"

#include "kq/wire_begin_quorum_epoch.h"
#include "kq/wire_describe_groups.h"
#include "kq/wire_fetch.h"
#include "kq/wire_find_coordinator.h"
#include "kq/wire_heartbeat.h"
#include "kq/wire_join_group.h"
#include "kq/wire_leave_group.h"
#include "kq/wire_list_groups.h"
#include "kq/wire_offset_commit.h"
#include "kq/wire_offset_fetch.h"
#include "kq/wire_sync_group.h"

#define META "__cluster_metadata"
#define GROUP "g1"
#define JOIN_V 5
#define SYNC_V 3

/* ---- helpers: one request, its decoded answer */

/* Issue 24: membership records commit (flushes) and the next take runs (the
 * executor's timer, armed at once while a take waits), until nothing is
 * left to write. */
static void settle(tn_node *n)
{
    for (int i = 0; i < 16; i++) {
        int flushed = tn_flush(n);
        tn_tick(n, n->now);
        if (!flushed && !n->job)
            return;
    }
}

static void join(tn_node *n, tn_slot *s, int32_t corr, const char *member)
{
    wire_join_group_protocol proto = {kq_slice_cstr("range"), kq_slice_cstr("meta-1")};
    wire_join_group_request req = {
        .group_id = kq_slice_cstr(GROUP), .session_timeout_ms = 10000,
        .rebalance_timeout_ms = 20000, .member_id = kq_slice_cstr(member),
        .group_instance_id = {NULL, -1}, .protocol_type = kq_slice_cstr("consumer"),
        .protocols = &proto, .protocol_count = 1, .reason = {NULL, -1}};
    TN_SEND(n, s, WIRE_API_JOIN_GROUP, JOIN_V, corr, wire_join_group_request_encode, &req);
}

static wire_join_group_response join_answer(tn_node *n, tn_slot *s, int32_t corr)
{
    wire_join_group_response resp;
    TN_DECODE(n, s, WIRE_API_JOIN_GROUP, JOIN_V, corr, wire_join_group_response_decode, &resp);
    return resp;
}

static void sync_send(tn_node *n, tn_slot *s, int32_t corr, const char *member, int32_t gen,
                      const wire_sync_group_assignment *as, int count)
{
    wire_sync_group_request req = {
        .group_id = kq_slice_cstr(GROUP), .generation_id = gen, .member_id = kq_slice_cstr(member),
        .group_instance_id = {NULL, -1}, .protocol_type = {NULL, -1}, .protocol_name = {NULL, -1},
        .assignments = (wire_sync_group_assignment *)as, .assignment_count = count};
    TN_SEND(n, s, WIRE_API_SYNC_GROUP, SYNC_V, corr, wire_sync_group_request_encode, &req);
}

static int16_t heartbeat(tn_node *n, tn_slot *s, int32_t corr, const char *group,
                         const char *member, int32_t gen)
{
    wire_heartbeat_request req = {.group_id = kq_slice_cstr(group), .generation_id = gen,
                                  .member_id = kq_slice_cstr(member),
                                  .group_instance_id = {NULL, -1}};
    TN_SEND(n, s, WIRE_API_HEARTBEAT, 3, corr, wire_heartbeat_request_encode, &req);
    wire_heartbeat_response resp;
    TN_DECODE(n, s, WIRE_API_HEARTBEAT, 3, corr, wire_heartbeat_response_decode, &resp);
    return resp.error_code;
}

/* A member that joined and synced alone: its id and generation. */
typedef struct tn_member {
    char id[256];
    int32_t generation;
} tn_member;

static tn_member join_and_sync(tn_node *n, tn_slot *s)
{
    join(n, s, 1, "");
    wire_join_group_response j = join_answer(n, s, 1);
    assert_int_equal(j.error_code, KAFKA_MEMBER_ID_REQUIRED);
    assert_true(j.member_id.len > 0);
    tn_member m = {.generation = -1};
    memcpy(m.id, j.member_id.ptr, (size_t)j.member_id.len);
    int before = tn_count(n, s);
    join(n, s, 2, m.id);
    /* The first join of a group waits group.initial.rebalance.delay.ms. */
    assert_int_equal(tn_count(n, s), before);
    tn_tick(n, n->now + KQ_GROUP_INITIAL_REBALANCE_DELAY_MS_DEFAULT + 1);
    /* Issue 24: the answer waits for the group's record to commit. */
    assert_int_equal(tn_count(n, s), before);
    settle(n);
    assert_int_equal(tn_count(n, s), before + 1);
    j = join_answer(n, s, 2);
    assert_int_equal(j.error_code, KAFKA_NONE);
    assert_true(j.generation_id >= 1);
    assert_int_equal(j.member_count, 1); /* the leader is told the members */
    assert_true(kq_slice_eq_cstr(j.members[0].member_id, m.id));
    assert_true(kq_slice_eq_cstr(j.members[0].metadata, "meta-1"));
    assert_true(kq_slice_eq_cstr(j.leader, m.id));
    assert_true(kq_slice_eq_cstr(j.protocol_name, "range"));
    m.generation = j.generation_id;
    wire_sync_group_assignment a = {kq_slice_cstr(m.id), kq_slice_cstr("assign-1")};
    sync_send(n, s, 3, m.id, m.generation, &a, 1);
    assert_int_equal(tn_count(n, s), before + 1); /* held: the Stable record */
    settle(n);
    wire_sync_group_response sr;
    TN_DECODE(n, s, WIRE_API_SYNC_GROUP, SYNC_V, 3, wire_sync_group_response_decode, &sr);
    assert_int_equal(sr.error_code, KAFKA_NONE);
    assert_true(kq_slice_eq_cstr(sr.assignment, "assign-1"));
    return m;
}

/* ---- FindCoordinator */

static void test_find_coordinator_names_leader(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID};
    wire_find_coordinator_request req = {.key = kq_slice_cstr(GROUP), .key_type = 0};
    TN_SEND(&n, &s, WIRE_API_FIND_COORDINATOR, 3, 5, wire_find_coordinator_request_encode, &req);
    wire_find_coordinator_response resp;
    TN_DECODE(&n, &s, WIRE_API_FIND_COORDINATOR, 3, 5, wire_find_coordinator_response_decode,
              &resp);
    assert_int_equal(resp.error_code, KAFKA_NONE);
    assert_int_equal(resp.node_id, 1);
    assert_true(kq_slice_eq_cstr(resp.host, "node1.test"));
    assert_int_equal(resp.port, TN_PORT_BASE + 1);

    /* v4: batched keys; transactions have no coordinator; type 2 is unknown here */
    kq_slice keys[2] = {kq_slice_cstr("a"), kq_slice_cstr("b")};
    wire_find_coordinator_request b = {.key_type = 0, .coordinator_keys = keys,
                                       .coordinator_key_count = 2};
    TN_SEND(&n, &s, WIRE_API_FIND_COORDINATOR, 4, 6, wire_find_coordinator_request_encode, &b);
    TN_DECODE(&n, &s, WIRE_API_FIND_COORDINATOR, 4, 6, wire_find_coordinator_response_decode,
              &resp);
    assert_int_equal(resp.coordinator_count, 2);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(resp.coordinators[i].error_code, KAFKA_NONE);
        assert_int_equal(resp.coordinators[i].node_id, 1);
        assert_int_equal(resp.coordinators[i].port, TN_PORT_BASE + 1);
    }
    assert_true(kq_slice_eq_cstr(resp.coordinators[1].key, "b"));
    b.key_type = 1;
    TN_SEND(&n, &s, WIRE_API_FIND_COORDINATOR, 4, 7, wire_find_coordinator_request_encode, &b);
    TN_DECODE(&n, &s, WIRE_API_FIND_COORDINATOR, 4, 7, wire_find_coordinator_response_decode,
              &resp);
    /* The leader coordinates transactions too (issue 23). */
    assert_int_equal(resp.coordinators[0].error_code, KAFKA_NONE);
    assert_int_equal(resp.coordinators[0].node_id, 1);
    b.key_type = 2;
    TN_SEND(&n, &s, WIRE_API_FIND_COORDINATOR, 6, 8, wire_find_coordinator_request_encode, &b);
    TN_DECODE(&n, &s, WIRE_API_FIND_COORDINATOR, 6, 8, wire_find_coordinator_response_decode,
              &resp);
    assert_int_equal(resp.coordinators[1].error_code, KAFKA_INVALID_REQUEST);
    tn_close(&n);
}

/* ---- the classic cycle */

static void test_join_sync_heartbeat_leave(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID};
    tn_member m = join_and_sync(&n, &s);
    assert_int_equal(heartbeat(&n, &s, 10, GROUP, m.id, m.generation), KAFKA_NONE);
    assert_int_equal(heartbeat(&n, &s, 11, GROUP, m.id, m.generation + 1),
                     KAFKA_ILLEGAL_GENERATION);
    assert_int_equal(heartbeat(&n, &s, 12, GROUP, "nobody", m.generation),
                     KAFKA_UNKNOWN_MEMBER_ID);
    assert_int_equal(heartbeat(&n, &s, 13, "no-such-group", m.id, 1), KAFKA_UNKNOWN_MEMBER_ID);

    /* LeaveGroup v3 (batch) */
    wire_leave_group_member lm = {kq_slice_cstr(m.id), {NULL, -1}, {NULL, -1}};
    wire_leave_group_request lr = {.group_id = kq_slice_cstr(GROUP), .members = &lm,
                                   .member_count = 1};
    TN_SEND(&n, &s, WIRE_API_LEAVE_GROUP, 3, 14, wire_leave_group_request_encode, &lr);
    settle(&n); /* the answer waits for the member's tombstone (issue 24) */
    wire_leave_group_response resp;
    TN_DECODE(&n, &s, WIRE_API_LEAVE_GROUP, 3, 14, wire_leave_group_response_decode, &resp);
    assert_int_equal(resp.error_code, KAFKA_NONE);
    assert_int_equal(resp.member_count, 1);
    assert_int_equal(resp.members[0].error_code, KAFKA_NONE);
    assert_int_equal(heartbeat(&n, &s, 15, GROUP, m.id, m.generation), KAFKA_UNKNOWN_MEMBER_ID);
    tn_close(&n);
}

static void test_describe_and_list(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID};
    tn_member m = join_and_sync(&n, &s);
    kq_slice ids[2] = {kq_slice_cstr(GROUP), kq_slice_cstr("unknown")};
    wire_describe_groups_request dr = {.groups = ids, .group_count = 2};
    TN_SEND(&n, &s, WIRE_API_DESCRIBE_GROUPS, 5, 20, wire_describe_groups_request_encode, &dr);
    wire_describe_groups_response d;
    TN_DECODE(&n, &s, WIRE_API_DESCRIBE_GROUPS, 5, 20, wire_describe_groups_response_decode, &d);
    assert_int_equal(d.group_count, 2);
    assert_int_equal(d.groups[0].error_code, KAFKA_NONE);
    assert_true(kq_slice_eq_cstr(d.groups[0].group_state, "Stable"));
    assert_true(kq_slice_eq_cstr(d.groups[0].protocol_type, "consumer"));
    assert_true(kq_slice_eq_cstr(d.groups[0].protocol_data, "range"));
    assert_int_equal(d.groups[0].member_count, 1);
    assert_true(kq_slice_eq_cstr(d.groups[0].members[0].member_id, m.id));
    assert_true(kq_slice_eq_cstr(d.groups[0].members[0].member_assignment, "assign-1"));
    assert_int_equal(d.groups[1].error_code, KAFKA_NONE);
    assert_true(kq_slice_eq_cstr(d.groups[1].group_state, "Dead"));
    assert_int_equal(d.groups[1].member_count, 0);

    wire_list_groups_request lr = {0};
    TN_SEND(&n, &s, WIRE_API_LIST_GROUPS, 4, 21, wire_list_groups_request_encode, &lr);
    wire_list_groups_response l;
    TN_DECODE(&n, &s, WIRE_API_LIST_GROUPS, 4, 21, wire_list_groups_response_decode, &l);
    assert_int_equal(l.error_code, KAFKA_NONE);
    assert_int_equal(l.group_count, 1);
    assert_true(kq_slice_eq_cstr(l.groups[0].group_id, GROUP));
    assert_true(kq_slice_eq_cstr(l.groups[0].group_state, "Stable"));
    /* filters: state Empty matches nothing, type "classic" (any case) all,
     * "consumer" (KIP-848) nothing */
    kq_slice empty = kq_slice_cstr("Empty");
    lr.states_filter = &empty;
    lr.states_filter_count = 1;
    TN_SEND(&n, &s, WIRE_API_LIST_GROUPS, 4, 22, wire_list_groups_request_encode, &lr);
    TN_DECODE(&n, &s, WIRE_API_LIST_GROUPS, 4, 22, wire_list_groups_response_decode, &l);
    assert_int_equal(l.group_count, 0);
    kq_slice classic = kq_slice_cstr("Classic"), consumer = kq_slice_cstr("consumer");
    lr = (wire_list_groups_request){.types_filter = &classic, .types_filter_count = 1};
    TN_SEND(&n, &s, WIRE_API_LIST_GROUPS, 5, 23, wire_list_groups_request_encode, &lr);
    TN_DECODE(&n, &s, WIRE_API_LIST_GROUPS, 5, 23, wire_list_groups_response_decode, &l);
    assert_int_equal(l.group_count, 1);
    assert_true(kq_slice_eq_cstr(l.groups[0].group_type, "classic"));
    lr.types_filter = &consumer;
    TN_SEND(&n, &s, WIRE_API_LIST_GROUPS, 5, 24, wire_list_groups_request_encode, &lr);
    TN_DECODE(&n, &s, WIRE_API_LIST_GROUPS, 5, 24, wire_list_groups_response_decode, &l);
    assert_int_equal(l.group_count, 0);
    tn_close(&n);
}

/* ---- where groups are not served */

static void commit_send(tn_node *n, tn_slot *s, int16_t v, int32_t corr, const char *topic,
                        int64_t offset, kq_slice metadata);
static int16_t commit_error(tn_node *n, tn_slot *s, int16_t v, int32_t corr);

static void test_follower_not_coordinator(void **state)
{
    (void)state;
    tn_node n;
    tn_open(&n, 1, 3); /* no votes from the others: not a leader */
    assert_int_not_equal(tn_status(&n).role, RAFT_ROLE_LEADER);
    tn_slot s = {TN_CLIENT_LISTENER_ID};
    join(&n, &s, 1, "");
    assert_int_equal(join_answer(&n, &s, 1).error_code, KAFKA_NOT_COORDINATOR);
    assert_int_equal(heartbeat(&n, &s, 2, GROUP, "m", 1), KAFKA_NOT_COORDINATOR);
    wire_list_groups_request lr = {0};
    TN_SEND(&n, &s, WIRE_API_LIST_GROUPS, 3, 3, wire_list_groups_request_encode, &lr);
    wire_list_groups_response l;
    TN_DECODE(&n, &s, WIRE_API_LIST_GROUPS, 3, 3, wire_list_groups_response_decode, &l);
    /* a follower coordinates no group: none listed, no error (the admin
     * client asks every broker and fails on any error but LOAD_IN_PROGRESS) */
    assert_int_equal(l.error_code, KAFKA_NONE);
    assert_int_equal(l.group_count, 0);
    /* no leader known: no coordinator either */
    wire_find_coordinator_request fr = {.key = kq_slice_cstr(GROUP)};
    TN_SEND(&n, &s, WIRE_API_FIND_COORDINATOR, 0, 4, wire_find_coordinator_request_encode, &fr);
    wire_find_coordinator_response f;
    TN_DECODE(&n, &s, WIRE_API_FIND_COORDINATOR, 0, 4, wire_find_coordinator_response_decode, &f);
    assert_int_equal(f.error_code, KAFKA_COORDINATOR_NOT_AVAILABLE);

    /* node 2 leads epoch 5: it is the coordinator; this follower is not */
    wire_begin_quorum_epoch_partition bp = {.partition_index = 0, .leader_id = 2,
                                            .leader_epoch = 5};
    wire_begin_quorum_epoch_topic bt = {kq_slice_cstr(META), &bp, 1};
    wire_raft_listener ep = {kq_slice_cstr("PLAINTEXT"), kq_slice_cstr("node2.test"), 9092};
    wire_begin_quorum_epoch_request br = {.cluster_id = kq_slice_cstr(TN_CLUSTER_ID),
                                          .voter_id = 1, .topics = &bt, .topic_count = 1,
                                          .leader_endpoints = &ep, .leader_endpoint_count = 1};
    tn_slot peer = {9};
    TN_SEND(&n, &peer, WIRE_API_BEGIN_QUORUM_EPOCH, 1, 5, wire_begin_quorum_epoch_request_encode,
            &br);
    assert_int_equal(tn_status(&n).leader_id, 2);
    TN_SEND(&n, &s, WIRE_API_FIND_COORDINATOR, 0, 6, wire_find_coordinator_request_encode, &fr);
    TN_DECODE(&n, &s, WIRE_API_FIND_COORDINATOR, 0, 6, wire_find_coordinator_response_decode, &f);
    assert_int_equal(f.error_code, KAFKA_NONE);
    assert_int_equal(f.node_id, 2);
    assert_true(kq_slice_eq_cstr(f.host, "node2.test"));
    assert_int_equal(f.port, TN_PORT_BASE + 2);
    join(&n, &s, 7, "");
    assert_int_equal(join_answer(&n, &s, 7).error_code, KAFKA_NOT_COORDINATOR);
    commit_send(&n, &s, 8, 8, META, 1, kq_slice_cstr(""));
    assert_int_equal(commit_error(&n, &s, 8, 8), KAFKA_NOT_COORDINATOR);
    tn_close(&n);
}

static void test_leader_loading(void **state)
{
    (void)state;
    tn_node n;
    tn_open(&n, 1, 1); /* leader, its LeaderChange batch not yet committed */
    assert_int_equal(tn_status(&n).role, RAFT_ROLE_LEADER);
    assert_true(tn_status(&n).high_watermark < 1);
    tn_slot s = {TN_CLIENT_LISTENER_ID};
    assert_int_equal(heartbeat(&n, &s, 1, GROUP, "m", 1), KAFKA_COORDINATOR_LOAD_IN_PROGRESS);
    tn_flush(&n);
    assert_int_equal(heartbeat(&n, &s, 2, GROUP, "m", 1), KAFKA_UNKNOWN_MEMBER_ID);
    tn_close(&n);
}

/* ---- offsets */

static void commit_send(tn_node *n, tn_slot *s, int16_t v, int32_t corr, const char *topic,
                        int64_t offset, kq_slice metadata)
{
    wire_offset_commit_partition p = {.partition_index = 0, .committed_offset = offset,
                                      .committed_leader_epoch = 3,
                                      .committed_metadata = metadata};
    wire_offset_commit_topic t = {.name = kq_slice_cstr(topic), .partitions = &p,
                                  .partition_count = 1};
    if (v >= 10) {
        t.name = (kq_slice){NULL, -1};
        t.topic_id = WIRE_METADATA_TOPIC_ID;
    }
    wire_offset_commit_request req = {.group_id = kq_slice_cstr(GROUP),
                                      .generation_id_or_member_epoch = -1,
                                      .member_id = kq_slice_cstr(""),
                                      .group_instance_id = {NULL, -1},
                                      .retention_time_ms = -1, .topics = &t, .topic_count = 1};
    TN_SEND(n, s, WIRE_API_OFFSET_COMMIT, v, corr, wire_offset_commit_request_encode, &req);
}

static int16_t commit_error(tn_node *n, tn_slot *s, int16_t v, int32_t corr)
{
    wire_offset_commit_response resp;
    TN_DECODE(n, s, WIRE_API_OFFSET_COMMIT, v, corr, wire_offset_commit_response_decode, &resp);
    assert_int_equal(resp.topic_count, 1);
    assert_int_equal(resp.topics[0].partition_count, 1);
    return resp.topics[0].partitions[0].error_code;
}

static int64_t fetch_offset(tn_node *n, tn_slot *s, int32_t corr)
{
    int32_t part = 0;
    wire_offset_fetch_request_topic t = {.name = kq_slice_cstr(META), .partition_indexes = &part,
                                         .partition_index_count = 1};
    wire_offset_fetch_request req = {.group_id = kq_slice_cstr(GROUP), .topics = &t,
                                     .topic_count = 1};
    TN_SEND(n, s, WIRE_API_OFFSET_FETCH, 7, corr, wire_offset_fetch_request_encode, &req);
    wire_offset_fetch_response resp;
    TN_DECODE(n, s, WIRE_API_OFFSET_FETCH, 7, corr, wire_offset_fetch_response_decode, &resp);
    assert_int_equal(resp.error_code, KAFKA_NONE);
    assert_int_equal(resp.topic_count, 1);
    assert_int_equal(resp.topics[0].partitions[0].error_code, KAFKA_NONE);
    return resp.topics[0].partitions[0].committed_offset;
}

/* A group with committed offsets and no members: Empty, listed. */
static void offsets_only_group_is_empty(tn_node *n, tn_slot *s)
{
    kq_slice id = kq_slice_cstr(GROUP);
    wire_describe_groups_request dr = {.groups = &id, .group_count = 1};
    TN_SEND(n, s, WIRE_API_DESCRIBE_GROUPS, 5, 30, wire_describe_groups_request_encode, &dr);
    wire_describe_groups_response d;
    TN_DECODE(n, s, WIRE_API_DESCRIBE_GROUPS, 5, 30, wire_describe_groups_response_decode, &d);
    assert_true(kq_slice_eq_cstr(d.groups[0].group_state, "Empty"));
    assert_true(kq_slice_eq_cstr(d.groups[0].protocol_type, ""));
    wire_list_groups_request lr = {0};
    TN_SEND(n, s, WIRE_API_LIST_GROUPS, 4, 31, wire_list_groups_request_encode, &lr);
    wire_list_groups_response l;
    TN_DECODE(n, s, WIRE_API_LIST_GROUPS, 4, 31, wire_list_groups_response_decode, &l);
    assert_int_equal(l.group_count, 1);
    assert_true(kq_slice_eq_cstr(l.groups[0].group_id, GROUP));
    assert_true(kq_slice_eq_cstr(l.groups[0].group_state, "Empty"));
}

/* Needs the executor to feed the offsets table (group_offsets_note_batches
 * and _commit). */
static void test_offset_commit_then_fetch(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID}, c = {TN_CLIENT_LISTENER_ID + 1};
    assert_int_equal(fetch_offset(&n, &c, 1), -1);
    int64_t end = kq_log_end_offset(n.log);
    commit_send(&n, &s, 8, 2, META, 42, kq_slice_cstr("meta"));
    /* appended, not yet answered: the batch is not committed */
    assert_int_equal(kq_log_end_offset(n.log), end + 1);
    assert_int_equal(tn_count(&n, &s), 0);
    assert_int_equal(fetch_offset(&n, &c, 3), -1);
    tn_flush(&n);
    assert_int_equal(commit_error(&n, &s, 8, 2), KAFKA_NONE);
    assert_int_equal(fetch_offset(&n, &c, 4), 42);
    /* v10 names the topic by id */
    commit_send(&n, &s, 10, 5, META, 43, kq_slice_cstr(""));
    tn_flush(&n);
    assert_int_equal(commit_error(&n, &s, 10, 5), KAFKA_NONE);
    assert_int_equal(fetch_offset(&n, &c, 6), 43);
    offsets_only_group_is_empty(&n, &c);
    /* v8: batched groups, topics null = every committed offset */
    wire_offset_fetch_request_group groups[2] = {
        {.group_id = kq_slice_cstr(GROUP), .member_id = {NULL, -1}, .member_epoch = -1,
         .topic_count = -1},
        {.group_id = kq_slice_cstr("other"), .member_id = {NULL, -1}, .member_epoch = -1,
         .topic_count = -1}};
    wire_offset_fetch_request fr = {.groups = groups, .group_count = 2};
    TN_SEND(&n, &c, WIRE_API_OFFSET_FETCH, 8, 7, wire_offset_fetch_request_encode, &fr);
    wire_offset_fetch_response resp;
    TN_DECODE(&n, &c, WIRE_API_OFFSET_FETCH, 8, 7, wire_offset_fetch_response_decode, &resp);
    assert_int_equal(resp.group_count, 2);
    assert_int_equal(resp.groups[0].error_code, KAFKA_NONE);
    assert_int_equal(resp.groups[0].topic_count, 1);
    assert_true(kq_slice_eq_cstr(resp.groups[0].topics[0].name, META));
    assert_int_equal(resp.groups[0].topics[0].partitions[0].committed_offset, 43);
    assert_int_equal(resp.groups[0].topics[0].partitions[0].committed_leader_epoch, 3);
    assert_int_equal(resp.groups[1].topic_count, 0);
    tn_close(&n);
}

static void test_offset_commit_refusals(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID};
    int64_t end = kq_log_end_offset(n.log);
    static char big[KQ_GROUP_OFFSET_METADATA_BYTES_MAX + 2];
    memset(big, 'x', sizeof big - 1);
    commit_send(&n, &s, 8, 1, META, 1, kq_slice_cstr(big));
    assert_int_equal(commit_error(&n, &s, 8, 1), KAFKA_OFFSET_METADATA_TOO_LARGE);
    commit_send(&n, &s, 8, 2, "other-topic", 1, kq_slice_cstr(""));
    assert_int_equal(commit_error(&n, &s, 8, 2), KAFKA_UNKNOWN_TOPIC_OR_PARTITION);
    wire_offset_commit_partition p = {.partition_index = 0, .committed_offset = 1,
                                      .committed_leader_epoch = -1,
                                      .committed_metadata = {NULL, -1}};
    wire_offset_commit_topic t = {.name = {NULL, -1}, .topic_id = {{1, 2, 3}}, .partitions = &p,
                                  .partition_count = 1};
    wire_offset_commit_request req = {.group_id = kq_slice_cstr(GROUP),
                                      .generation_id_or_member_epoch = -1,
                                      .member_id = kq_slice_cstr(""),
                                      .group_instance_id = {NULL, -1}, .retention_time_ms = -1,
                                      .topics = &t, .topic_count = 1};
    TN_SEND(&n, &s, WIRE_API_OFFSET_COMMIT, 10, 3, wire_offset_commit_request_encode, &req);
    assert_int_equal(commit_error(&n, &s, 10, 3), KAFKA_UNKNOWN_TOPIC_ID);
    /* a member of a group with a wrong generation */
    tn_member m = join_and_sync(&n, &s);
    end = kq_log_end_offset(n.log);
    t = (wire_offset_commit_topic){.name = kq_slice_cstr(META), .partitions = &p,
                                   .partition_count = 1};
    req.member_id = kq_slice_cstr(m.id);
    req.generation_id_or_member_epoch = m.generation + 5;
    TN_SEND(&n, &s, WIRE_API_OFFSET_COMMIT, 8, 4, wire_offset_commit_request_encode, &req);
    assert_int_equal(commit_error(&n, &s, 8, 4), KAFKA_ILLEGAL_GENERATION);
    assert_int_equal(kq_log_end_offset(n.log), end); /* nothing appended */
    tn_close(&n);
}

/* An appended commit that does not commit in time (here: never
 * flushed) is answered COORDINATOR_NOT_AVAILABLE, as Kafka answers a
 * timed-out offsets append. */
static void test_offset_commit_times_out(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID};
    commit_send(&n, &s, 8, 1, META, 7, kq_slice_cstr(""));
    assert_int_equal(tn_count(&n, &s), 0);
    assert_int_equal(handler_next_deadline(n.h) <= n.now + HANDLER_GROUP_COMMIT_TIMEOUT_MS, true);
    tn_tick(&n, n.now + HANDLER_GROUP_COMMIT_TIMEOUT_MS - 1);
    assert_int_equal(tn_count(&n, &s), 0);
    tn_tick(&n, n.now + 1);
    assert_int_equal(commit_error(&n, &s, 8, 1), KAFKA_COORDINATOR_NOT_AVAILABLE);
    tn_close(&n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_find_coordinator_names_leader),
        cmocka_unit_test(test_join_sync_heartbeat_leave),
        cmocka_unit_test(test_describe_and_list),
        cmocka_unit_test(test_follower_not_coordinator),
        cmocka_unit_test(test_leader_loading),
        cmocka_unit_test(test_offset_commit_refusals),
        cmocka_unit_test(test_offset_commit_times_out),
        cmocka_unit_test(test_offset_commit_then_fetch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
