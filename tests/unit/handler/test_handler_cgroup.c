/* KIP-848 consumer groups through the handlers and the real executor
 * (issue 24): ConsumerGroupHeartbeat (join, assignment by Metadata's topic
 * id, a second member, leave and hand-over, the session timer the handler
 * wakes the coordinator for), ConsumerGroupDescribe (a consumer group, a
 * classic one, none), OffsetCommit v9+ and OffsetFetch v9+ with member
 * epochs, ListGroups' type filter, and the refusals: a follower, a leader
 * still loading, the authorizer, malformed frames and our bounds. */
#include "handler_test_node.h"

#include "kq/group_consumer.h"
#include "kq/wire_consumer_group_describe.h"
#include "kq/wire_consumer_group_heartbeat.h"
#include "kq/wire_describe_groups.h"
#include "kq/wire_fetch.h"
#include "kq/wire_join_group.h"
#include "kq/wire_list_groups.h"
#include "kq/wire_offset_commit.h"
#include "kq/wire_offset_fetch.h"

#define META "__cluster_metadata"
#define GROUP "cg1"
#define MEMBER_A "AAAAAAAAAAAAAAAAAAAAAA"
#define MEMBER_B "BBBBBBBBBBBBBBBBBBBBBB"
#define HB_V 1

/* ---- helpers */

typedef struct hb_args {
    const char *group;
    const char *member;
    int32_t epoch;
    bool join;     /* every field, as a join must carry */
    bool owns_meta; /* owned: __cluster_metadata-0 (else none), when sent */
    bool send_owned;
} hb_args;

static void hb_send(tn_node *n, tn_slot *s, int32_t corr, const hb_args *a)
{
    kq_slice topic = kq_slice_cstr(META);
    int32_t zero = 0;
    wire_cgh_topic_partitions owned = {WIRE_METADATA_TOPIC_ID, &zero, 1};
    bool send_owned = a->join || a->send_owned;
    wire_consumer_group_heartbeat_request req = {
        .group_id = kq_slice_cstr(a->group ? a->group : GROUP),
        .member_id = kq_slice_cstr(a->member),
        .member_epoch = a->epoch,
        .instance_id = {NULL, -1},
        .rack_id = {NULL, -1},
        .rebalance_timeout_ms = a->join ? 30000 : -1,
        .subscribed_topic_names = a->join ? &topic : NULL,
        .subscribed_topic_count = a->join ? 1 : -1,
        .subscribed_topic_regex = {NULL, -1},
        .server_assignor = {NULL, -1},
        .topic_partitions = send_owned ? &owned : NULL,
        .topic_count = send_owned ? (a->owns_meta ? 1 : 0) : -1};
    TN_SEND(n, s, WIRE_API_CONSUMER_GROUP_HEARTBEAT, HB_V, corr,
            wire_consumer_group_heartbeat_request_encode, &req);
}

static wire_consumer_group_heartbeat_response hb(tn_node *n, tn_slot *s, int32_t corr,
                                                 const hb_args *a)
{
    hb_send(n, s, corr, a);
    tn_settle(n); /* an answer waits for the group's records (issue 24) */
    wire_consumer_group_heartbeat_response r;
    TN_DECODE(n, s, WIRE_API_CONSUMER_GROUP_HEARTBEAT, HB_V, corr,
              wire_consumer_group_heartbeat_response_decode, &r);
    return r;
}

/* Whether an answer assigns exactly __cluster_metadata-0, by Metadata's id. */
static bool assigns_meta(const wire_consumer_group_heartbeat_response *r)
{
    return r->has_assignment && r->assignment.topic_count == 1 &&
           memcmp(r->assignment.topic_partitions[0].topic_id.bytes,
                  WIRE_METADATA_TOPIC_ID.bytes, 16) == 0 &&
           r->assignment.topic_partitions[0].partition_count == 1 &&
           r->assignment.topic_partitions[0].partitions[0] == 0;
}

static bool assigns_nothing(const wire_consumer_group_heartbeat_response *r)
{
    return r->has_assignment && r->assignment.topic_count == 0;
}

/* Member A joins alone and owns the partition: its epoch. */
static int32_t join_a(tn_node *n, tn_slot *s)
{
    hb_args a = {.member = MEMBER_A, .epoch = 0, .join = true};
    wire_consumer_group_heartbeat_response r = hb(n, s, 1, &a);
    assert_int_equal(r.error_code, KAFKA_NONE);
    assert_true(kq_slice_eq_cstr(r.member_id, MEMBER_A));
    assert_true(r.member_epoch >= 1);
    assert_int_equal(r.heartbeat_interval_ms, KQ_GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS_DEFAULT);
    assert_true(assigns_meta(&r));
    /* it reports owning it: nothing changes */
    a = (hb_args){.member = MEMBER_A, .epoch = r.member_epoch, .owns_meta = true,
                  .send_owned = true};
    wire_consumer_group_heartbeat_response r2 = hb(n, s, 2, &a);
    assert_int_equal(r2.error_code, KAFKA_NONE);
    assert_int_equal(r2.member_epoch, r.member_epoch);
    return r.member_epoch;
}

static wire_consumer_group_describe_response describe(tn_node *n, tn_slot *s, int32_t corr,
                                                      const char *group, int16_t v)
{
    kq_slice id = kq_slice_cstr(group);
    wire_consumer_group_describe_request req = {&id, 1, false};
    TN_SEND(n, s, WIRE_API_CONSUMER_GROUP_DESCRIBE, v, corr,
            wire_consumer_group_describe_request_encode, &req);
    wire_consumer_group_describe_response r;
    TN_DECODE(n, s, WIRE_API_CONSUMER_GROUP_DESCRIBE, v, corr,
              wire_consumer_group_describe_response_decode, &r);
    assert_int_equal(r.group_count, 1);
    return r;
}

/* ---- the heartbeat cycle */

static void test_join_assign_describe(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID};
    int32_t epoch = join_a(&n, &s);
    /* nothing appended for the group here (issue 24 item 2 replicates it) */
    wire_consumer_group_describe_response d = describe(&n, &s, 3, GROUP, 1);
    const wire_cgd_group *g = &d.groups[0];
    assert_int_equal(g->error_code, KAFKA_NONE);
    assert_true(kq_slice_eq_cstr(g->group_id, GROUP));
    assert_true(kq_slice_eq_cstr(g->group_state, "Stable"));
    assert_int_equal(g->group_epoch, epoch);
    assert_int_equal(g->assignment_epoch, epoch);
    assert_true(kq_slice_eq_cstr(g->assignor_name, "uniform"));
    assert_int_equal(g->member_count, 1);
    const wire_cgd_member *m = &g->members[0];
    assert_true(kq_slice_eq_cstr(m->member_id, MEMBER_A));
    assert_int_equal(m->member_epoch, epoch);
    assert_true(kq_slice_eq_cstr(m->client_id, "tester"));
    assert_int_equal(m->subscribed_topic_count, 1);
    assert_true(kq_slice_eq_cstr(m->subscribed_topic_names[0], META));
    assert_int_equal(m->assignment.topic_count, 1);
    assert_true(kq_slice_eq_cstr(m->assignment.topic_partitions[0].topic_name, META));
    assert_memory_equal(m->assignment.topic_partitions[0].topic_id.bytes,
                        WIRE_METADATA_TOPIC_ID.bytes, 16);
    assert_int_equal(m->target_assignment.topic_count, 1);
    assert_int_equal(m->member_type, 1); /* v1: a consumer member */
    /* v0 has no member type */
    d = describe(&n, &s, 4, GROUP, 0);
    assert_int_equal(d.groups[0].members[0].member_type, -1);
    /* unknown group: GROUP_ID_NOT_FOUND with a message (the admin client
     * then asks DescribeGroups) */
    d = describe(&n, &s, 5, "nope", 1);
    assert_int_equal(d.groups[0].error_code, KAFKA_GROUP_ID_NOT_FOUND);
    assert_true(d.groups[0].error_message.len > 0);
    /* "" is no group id */
    d = describe(&n, &s, 6, "", 1);
    assert_int_equal(d.groups[0].error_code, KAFKA_INVALID_GROUP_ID);
    /* DescribeGroups reads classic groups only: Dead to v5, not found to v6 */
    kq_slice id = kq_slice_cstr(GROUP);
    wire_describe_groups_request dr = {.groups = &id, .group_count = 1};
    wire_describe_groups_response dg;
    TN_SEND(&n, &s, WIRE_API_DESCRIBE_GROUPS, 5, 7, wire_describe_groups_request_encode, &dr);
    TN_DECODE(&n, &s, WIRE_API_DESCRIBE_GROUPS, 5, 7, wire_describe_groups_response_decode, &dg);
    assert_int_equal(dg.groups[0].error_code, KAFKA_NONE);
    assert_true(kq_slice_eq_cstr(dg.groups[0].group_state, "Dead"));
    TN_SEND(&n, &s, WIRE_API_DESCRIBE_GROUPS, 6, 8, wire_describe_groups_request_encode, &dr);
    TN_DECODE(&n, &s, WIRE_API_DESCRIBE_GROUPS, 6, 8, wire_describe_groups_response_decode, &dg);
    assert_int_equal(dg.groups[0].error_code, KAFKA_GROUP_ID_NOT_FOUND);
    assert_true(kq_slice_eq_cstr(dg.groups[0].error_message, "Group cg1 is not a classic group."));
    tn_close(&n);
}

/* A classic group is not a consumer group for ConsumerGroupDescribe. */
static void test_describe_classic_group(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID};
    wire_join_group_protocol proto = {kq_slice_cstr("range"), kq_slice_cstr("meta-1")};
    wire_join_group_request jr = {
        .group_id = kq_slice_cstr("classic1"), .session_timeout_ms = 10000,
        .rebalance_timeout_ms = 20000, .member_id = kq_slice_cstr(""),
        .group_instance_id = {NULL, -1}, .protocol_type = kq_slice_cstr("consumer"),
        .protocols = &proto, .protocol_count = 1, .reason = {NULL, -1}};
    TN_SEND(&n, &s, WIRE_API_JOIN_GROUP, 5, 1, wire_join_group_request_encode, &jr);
    wire_join_group_response j;
    TN_DECODE(&n, &s, WIRE_API_JOIN_GROUP, 5, 1, wire_join_group_response_decode, &j);
    assert_int_equal(j.error_code, KAFKA_MEMBER_ID_REQUIRED);
    jr.member_id = j.member_id;
    char id[256];
    memcpy(id, j.member_id.ptr, (size_t)j.member_id.len);
    jr.member_id = (kq_slice){(const uint8_t *)id, j.member_id.len};
    TN_SEND(&n, &s, WIRE_API_JOIN_GROUP, 5, 2, wire_join_group_request_encode, &jr);
    wire_consumer_group_describe_response d = describe(&n, &s, 3, "classic1", 1);
    assert_int_equal(d.groups[0].error_code, KAFKA_GROUP_ID_NOT_FOUND);
    tn_close(&n);
}

/* A second member gets nothing while A owns the partition; A leaves and B
 * is given it; ListGroups lists the group as "consumer". */
static void test_two_members_hand_over(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID}, t = {TN_CLIENT_LISTENER_ID + 1};
    join_a(&n, &s);
    hb_args b = {.member = MEMBER_B, .epoch = 0, .join = true};
    wire_consumer_group_heartbeat_response rb = hb(&n, &t, 10, &b);
    assert_int_equal(rb.error_code, KAFKA_NONE);
    assert_true(assigns_nothing(&rb));
    int32_t epoch_b = rb.member_epoch;
    /* A leaves (epoch -1) */
    hb_args la = {.member = MEMBER_A, .epoch = GROUP_CONSUMER_LEAVE_EPOCH};
    wire_consumer_group_heartbeat_response ra = hb(&n, &s, 11, &la);
    assert_int_equal(ra.error_code, KAFKA_NONE);
    assert_int_equal(ra.member_epoch, GROUP_CONSUMER_LEAVE_EPOCH);
    /* B's next heartbeat is given the partition, at a new epoch */
    b = (hb_args){.member = MEMBER_B, .epoch = epoch_b, .send_owned = true};
    rb = hb(&n, &t, 12, &b);
    assert_int_equal(rb.error_code, KAFKA_NONE);
    assert_true(rb.member_epoch > epoch_b);
    assert_true(assigns_meta(&rb));
    /* ListGroups v5: type filter "consumer" (any case) lists it, "classic" not */
    kq_slice consumer = kq_slice_cstr("Consumer"), classic = kq_slice_cstr("classic");
    wire_list_groups_request lr = {.types_filter = &consumer, .types_filter_count = 1};
    TN_SEND(&n, &t, WIRE_API_LIST_GROUPS, 5, 13, wire_list_groups_request_encode, &lr);
    wire_list_groups_response l;
    TN_DECODE(&n, &t, WIRE_API_LIST_GROUPS, 5, 13, wire_list_groups_response_decode, &l);
    assert_int_equal(l.group_count, 1);
    assert_true(kq_slice_eq_cstr(l.groups[0].group_id, GROUP));
    assert_true(kq_slice_eq_cstr(l.groups[0].group_type, "consumer"));
    assert_true(kq_slice_eq_cstr(l.groups[0].protocol_type, "consumer"));
    assert_true(kq_slice_eq_cstr(l.groups[0].group_state, "Stable"));
    lr.types_filter = &classic;
    TN_SEND(&n, &t, WIRE_API_LIST_GROUPS, 5, 14, wire_list_groups_request_encode, &lr);
    TN_DECODE(&n, &t, WIRE_API_LIST_GROUPS, 5, 14, wire_list_groups_response_decode, &l);
    assert_int_equal(l.group_count, 0);
    tn_close(&n);
}

static void commit_send(tn_node *n, tn_slot *s, int16_t v, int32_t corr, const char *member,
                        int32_t epoch, int64_t offset);
static int16_t commit_error(tn_node *n, tn_slot *s, int16_t v, int32_t corr);

/* The handler wakes the coordinator for a member's session: A, silent past
 * the session timeout, is gone; the group, with an offset, stays Empty (one
 * without offsets goes at the retention check, as Kafka's); A's next
 * heartbeat is UNKNOWN_MEMBER_ID. */
static void test_session_timeout_wakes(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID};
    int32_t epoch = join_a(&n, &s);
    commit_send(&n, &s, 9, 20, MEMBER_A, epoch, 7);
    tn_flush(&n);
    assert_int_equal(commit_error(&n, &s, 9, 20), KAFKA_NONE);
    tn_tick(&n, n.now); /* the first retention check runs now */
    int64_t due = handler_next_deadline(n.h);
    assert_true(due > n.now && due <= n.now + KQ_GROUP_CONSUMER_SESSION_TIMEOUT_MS_DEFAULT);
    tn_tick(&n, due - 1);
    assert_int_equal(describe(&n, &s, 21, GROUP, 1).groups[0].member_count, 1);
    tn_tick(&n, due);
    wire_consumer_group_describe_response d = describe(&n, &s, 3, GROUP, 1);
    assert_int_equal(d.groups[0].error_code, KAFKA_NONE);
    assert_int_equal(d.groups[0].member_count, 0);
    assert_true(kq_slice_eq_cstr(d.groups[0].group_state, "Empty"));
    hb_args a = {.member = MEMBER_A, .epoch = epoch};
    assert_int_equal(hb(&n, &s, 4, &a).error_code, KAFKA_UNKNOWN_MEMBER_ID);
    tn_close(&n);
}

/* ---- offsets with member epochs */

static void commit_send(tn_node *n, tn_slot *s, int16_t v, int32_t corr, const char *member,
                        int32_t epoch, int64_t offset)
{
    wire_offset_commit_partition p = {.partition_index = 0, .committed_offset = offset,
                                      .committed_leader_epoch = -1,
                                      .committed_metadata = {NULL, -1}};
    wire_offset_commit_topic t = {.name = {NULL, -1}, .topic_id = WIRE_METADATA_TOPIC_ID,
                                  .partitions = &p, .partition_count = 1};
    if (v < 10) {
        t.name = kq_slice_cstr(META);
        t.topic_id = (kq_uuid){{0}};
    }
    wire_offset_commit_request req = {.group_id = kq_slice_cstr(GROUP),
                                      .generation_id_or_member_epoch = epoch,
                                      .member_id = kq_slice_cstr(member),
                                      .group_instance_id = {NULL, -1}, .retention_time_ms = -1,
                                      .topics = &t, .topic_count = 1};
    TN_SEND(n, s, WIRE_API_OFFSET_COMMIT, v, corr, wire_offset_commit_request_encode, &req);
}

static int16_t commit_error(tn_node *n, tn_slot *s, int16_t v, int32_t corr)
{
    wire_offset_commit_response r;
    TN_DECODE(n, s, WIRE_API_OFFSET_COMMIT, v, corr, wire_offset_commit_response_decode, &r);
    assert_int_equal(r.topic_count, 1);
    return r.topics[0].partitions[0].error_code;
}

/* OffsetFetch v9 naming the member: the group's error and offset. */
static int16_t fetch(tn_node *n, tn_slot *s, int32_t corr, const char *member, int32_t epoch,
                     int64_t *offset)
{
    int32_t part = 0;
    wire_offset_fetch_request_topic t = {.name = kq_slice_cstr(META), .partition_indexes = &part,
                                         .partition_index_count = 1};
    wire_offset_fetch_request_group g = {.group_id = kq_slice_cstr(GROUP),
                                         .member_id = member ? kq_slice_cstr(member)
                                                             : (kq_slice){NULL, -1},
                                         .member_epoch = epoch, .topics = &t, .topic_count = 1};
    wire_offset_fetch_request req = {.groups = &g, .group_count = 1};
    TN_SEND(n, s, WIRE_API_OFFSET_FETCH, 9, corr, wire_offset_fetch_request_encode, &req);
    wire_offset_fetch_response r;
    TN_DECODE(n, s, WIRE_API_OFFSET_FETCH, 9, corr, wire_offset_fetch_response_decode, &r);
    assert_int_equal(r.group_count, 1);
    *offset = r.groups[0].topic_count == 1 ? r.groups[0].topics[0].partitions[0].committed_offset
                                           : -2;
    return r.groups[0].error_code;
}

static void test_offsets_with_member_epochs(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID};
    int32_t epoch = join_a(&n, &s);
    int64_t end = kq_log_end_offset(n.log);
    commit_send(&n, &s, 9, 10, MEMBER_A, epoch, 42);
    assert_int_equal(kq_log_end_offset(n.log), end + 1);
    tn_flush(&n);
    assert_int_equal(commit_error(&n, &s, 9, 10), KAFKA_NONE);
    /* a stale epoch (v9+), an unknown member, an older version */
    commit_send(&n, &s, 10, 11, MEMBER_A, epoch + 1, 43);
    assert_int_equal(commit_error(&n, &s, 10, 11), KAFKA_STALE_MEMBER_EPOCH);
    commit_send(&n, &s, 9, 12, "nobody", epoch, 43);
    assert_int_equal(commit_error(&n, &s, 9, 12), KAFKA_UNKNOWN_MEMBER_ID);
    commit_send(&n, &s, 8, 13, MEMBER_A, epoch, 43);
    assert_int_equal(commit_error(&n, &s, 8, 13), KAFKA_UNSUPPORTED_VERSION);
    assert_int_equal(kq_log_end_offset(n.log), end + 1); /* none of them appended */
    /* OffsetFetch v9: the member's epoch checked for the whole group */
    int64_t off = 0;
    assert_int_equal(fetch(&n, &s, 14, MEMBER_A, epoch, &off), KAFKA_NONE);
    assert_int_equal(off, 42);
    assert_int_equal(fetch(&n, &s, 15, MEMBER_A, epoch + 1, &off), KAFKA_STALE_MEMBER_EPOCH);
    assert_int_equal(fetch(&n, &s, 16, "nobody", epoch, &off), KAFKA_UNKNOWN_MEMBER_ID);
    assert_int_equal(fetch(&n, &s, 17, NULL, -1, &off), KAFKA_NONE); /* the admin client */
    assert_int_equal(off, 42);
    tn_close(&n);
}

/* ---- refusals */

static void test_follower_and_loading(void **state)
{
    (void)state;
    tn_node n;
    tn_open(&n, 1, 3); /* no votes from the others: not a leader */
    tn_slot s = {TN_CLIENT_LISTENER_ID};
    hb_args a = {.member = MEMBER_A, .epoch = 0, .join = true};
    wire_consumer_group_heartbeat_response r = hb(&n, &s, 1, &a);
    assert_int_equal(r.error_code, KAFKA_NOT_COORDINATOR);
    assert_int_equal(r.member_id.len, -1);
    assert_false(r.has_assignment);
    assert_int_equal(describe(&n, &s, 2, GROUP, 1).groups[0].error_code, KAFKA_NOT_COORDINATOR);
    tn_close(&n);

    tn_open(&n, 1, 1); /* a leader whose LeaderChange batch is not committed yet */
    assert_int_equal(hb(&n, &s, 3, &a).error_code, KAFKA_COORDINATOR_LOAD_IN_PROGRESS);
    tn_flush(&n);
    assert_int_equal(hb(&n, &s, 4, &a).error_code, KAFKA_NONE);
    tn_close(&n);
}

/* READ (consume) on the group for the heartbeat, DESCRIBE for describe. */
static void test_authorization(void **state)
{
    (void)state;
    static const char *const anonymous[] = {"User:ANONYMOUS"};
    handler_acl acl = {.enabled = true};
    acl.allowed[HANDLER_OP_DESCRIBE] = anonymous;
    acl.allowed_count[HANDLER_OP_DESCRIBE] = 1;
    tn_node n;
    tn_acl = &acl;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID};
    hb_args a = {.member = MEMBER_A, .epoch = 0, .join = true};
    assert_int_equal(hb(&n, &s, 1, &a).error_code, KAFKA_GROUP_AUTHORIZATION_FAILED);
    assert_int_equal(describe(&n, &s, 2, GROUP, 1).groups[0].error_code,
                     KAFKA_GROUP_ID_NOT_FOUND);
    tn_close(&n);
    acl.allowed_count[HANDLER_OP_DESCRIBE] = 0;
    tn_open_leader(&n);
    assert_int_equal(describe(&n, &s, 3, GROUP, 1).groups[0].error_code,
                     KAFKA_GROUP_AUTHORIZATION_FAILED);
    tn_close(&n);
    tn_acl = NULL;
}

static void test_hostile_input(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID};
    /* a truncated heartbeat closes the connection */
    kq_writer w;
    tn_begin_request(&w, WIRE_API_CONSUMER_GROUP_HEARTBEAT, HB_V, 1);
    kq_write_i8(&w, 0x03); /* group id "g" cut short */
    kq_write_i8(&w, 'g');
    tn_deliver(&n, &s, &w);
    assert_int_equal(tn_last(&n, &s)->kind, TN_REPLY_CLOSE);
    tn_begin_request(&w, WIRE_API_CONSUMER_GROUP_DESCRIBE, 0, 2);
    kq_write_uvarint(&w, 1000); /* 999 group ids promised, none there */
    tn_deliver(&n, &s, &w);
    assert_int_equal(tn_last(&n, &s)->kind, TN_REPLY_CLOSE);
    /* more subscribed topics than we take: INVALID_REQUEST */
    int many = KQ_GROUP_CONSUMER_SUBSCRIBED_TOPICS_MAX + 1;
    kq_slice *names = calloc((size_t)many, sizeof(*names));
    assert_non_null(names);
    for (int i = 0; i < many; i++)
        names[i] = kq_slice_cstr("t");
    wire_consumer_group_heartbeat_request req = {
        .group_id = kq_slice_cstr(GROUP), .member_id = kq_slice_cstr(MEMBER_A),
        .member_epoch = 0, .instance_id = {NULL, -1}, .rack_id = {NULL, -1},
        .rebalance_timeout_ms = 30000, .subscribed_topic_names = names,
        .subscribed_topic_count = many, .subscribed_topic_regex = {NULL, -1},
        .server_assignor = {NULL, -1}, .topic_count = 0};
    TN_SEND(&n, &s, WIRE_API_CONSUMER_GROUP_HEARTBEAT, HB_V, 3,
            wire_consumer_group_heartbeat_request_encode, &req);
    wire_consumer_group_heartbeat_response r;
    TN_DECODE(&n, &s, WIRE_API_CONSUMER_GROUP_HEARTBEAT, HB_V, 3,
              wire_consumer_group_heartbeat_response_decode, &r);
    assert_int_equal(r.error_code, KAFKA_INVALID_REQUEST);
    free(names);
    /* a NUL byte in the group id: INVALID_REQUEST */
    static const uint8_t nul_id[] = {'c', 0, 'g'};
    req.subscribed_topic_count = 0;
    req.group_id = (kq_slice){nul_id, 3};
    TN_SEND(&n, &s, WIRE_API_CONSUMER_GROUP_HEARTBEAT, HB_V, 4,
            wire_consumer_group_heartbeat_request_encode, &req);
    TN_DECODE(&n, &s, WIRE_API_CONSUMER_GROUP_HEARTBEAT, HB_V, 4,
              wire_consumer_group_heartbeat_response_decode, &r);
    assert_int_equal(r.error_code, KAFKA_INVALID_REQUEST);
    /* SubscribedTopicRegex: one that does not compile, one too long and
     * counted repetition are INVALID_REQUEST; "" is none (no subscription:
     * a join without names is refused); one matching the topic joins */
    static const struct { const char *re; int16_t error; } regexes[] = {
        {"(", KAFKA_INVALID_REQUEST},
        {"__cluster_metadat{1}a", KAFKA_INVALID_REQUEST}, /* would match */
        {"", KAFKA_INVALID_REQUEST},
        {"__cluster_.*", KAFKA_NONE},
    };
    char longest[KQ_GROUP_CONSUMER_REGEX_BYTES_MAX + 2]; /* one past, would match */
    memset(longest, 'a', sizeof longest - 1);
    memcpy(longest, "__cluster_metadata|", 19);
    longest[sizeof longest - 1] = 0;
    req.group_id = kq_slice_cstr("regex-group");
    for (size_t i = 0; i <= sizeof regexes / sizeof regexes[0]; i++) {
        bool last = i == sizeof regexes / sizeof regexes[0];
        req.subscribed_topic_regex = kq_slice_cstr(last ? longest : regexes[i].re);
        req.subscribed_topic_count = 0;
        req.subscribed_topic_names = NULL;
        TN_SEND(&n, &s, WIRE_API_CONSUMER_GROUP_HEARTBEAT, HB_V, 10 + (int32_t)i,
                wire_consumer_group_heartbeat_request_encode, &req);
        tn_settle(&n);
        TN_DECODE(&n, &s, WIRE_API_CONSUMER_GROUP_HEARTBEAT, HB_V, 10 + (int32_t)i,
                  wire_consumer_group_heartbeat_response_decode, &r);
        assert_int_equal(r.error_code, last ? KAFKA_INVALID_REQUEST : regexes[i].error);
        if (!last && regexes[i].error == KAFKA_NONE)
            assert_true(assigns_meta(&r));
    }
    req.subscribed_topic_regex = (kq_slice){NULL, -1};
    /* a heartbeat of a member the group does not know, epoch > 0 */
    hb_args a = {.member = MEMBER_B, .epoch = 3};
    r = hb(&n, &s, 5, &a);
    assert_true(r.error_code == KAFKA_GROUP_ID_NOT_FOUND || r.error_code == KAFKA_UNKNOWN_MEMBER_ID);
    tn_close(&n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_join_assign_describe),
        cmocka_unit_test(test_describe_classic_group),
        cmocka_unit_test(test_two_members_hand_over),
        cmocka_unit_test(test_session_timeout_wakes),
        cmocka_unit_test(test_offsets_with_member_epochs),
        cmocka_unit_test(test_follower_and_loading),
        cmocka_unit_test(test_authorization),
        cmocka_unit_test(test_hostile_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
