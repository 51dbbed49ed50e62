/* DeleteGroups and OffsetDelete through the handlers and the real executor
 * (issue 24): a deletion is answered only once its tombstones are
 * committed, removes pending commits appended before it, survives a
 * restart; every error Kafka answers (NON_EMPTY_GROUP, GROUP_ID_NOT_FOUND,
 * GROUP_SUBSCRIBED_TO_TOPIC, UNKNOWN_TOPIC_OR_PARTITION, INVALID_GROUP_ID,
 * the authorizer's, NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS, a
 * deletion that does not commit in time) and the bounds (deletions waiting,
 * groups per request). */
#include "handler_test_node.h"

#include "kq/group_offset_codec.h"
#include "kq/group_offsets.h"
#include "kq/wire_delete_groups.h"
#include "kq/wire_join_group.h"
#include "kq/wire_leave_group.h"
#include "kq/wire_offset_commit.h"
#include "kq/wire_offset_delete.h"
#include "kq/wire_offset_fetch.h"
#include "kq/wire_sync_group.h"

/* Committed offsets far above the log: none lies in the run of control
 * batches at its end, which OffsetFetch answers with the run's end
 * (issue 24's lag 0, tests/unit/handler/test_handler_group_lag.c). */
#define ABOVE ((int64_t)1 << 40)

#define META "__cluster_metadata"

/* ---- helpers */

static void commit_send(tn_node *n, tn_slot *s, int32_t corr, const char *group, int64_t offset)
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
}

static int16_t commit_answer(tn_node *n, tn_slot *s, int32_t corr)
{
    wire_offset_commit_response resp;
    TN_DECODE(n, s, WIRE_API_OFFSET_COMMIT, 7, corr, wire_offset_commit_response_decode, &resp);
    return resp.topics[0].partitions[0].error_code;
}

static void commit(tn_node *n, tn_slot *s, int32_t corr, const char *group, int64_t offset)
{
    commit_send(n, s, corr, group, offset);
    tn_flush(n);
    assert_int_equal(commit_answer(n, s, corr), KAFKA_NONE);
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

static void delete_send(tn_node *n, tn_slot *s, int16_t v, int32_t corr, const char *const *ids,
                        int count)
{
    kq_slice names[8];
    assert_true(count <= 8);
    for (int i = 0; i < count; i++)
        names[i] = kq_slice_cstr(ids[i]);
    wire_delete_groups_request req = {.groups_names = names, .group_count = count};
    TN_SEND(n, s, WIRE_API_DELETE_GROUPS, v, corr, wire_delete_groups_request_encode, &req);
}

static wire_delete_groups_response delete_answer(tn_node *n, tn_slot *s, int16_t v, int32_t corr)
{
    wire_delete_groups_response resp;
    TN_DECODE(n, s, WIRE_API_DELETE_GROUPS, v, corr, wire_delete_groups_response_decode, &resp);
    return resp;
}

/* The error of group id in a DeleteGroups answer (asserts it is there once). */
static int16_t result_of(const wire_delete_groups_response *r, const char *id)
{
    int found = -1;
    for (int i = 0; i < r->result_count; i++)
        if (kq_slice_eq_cstr(r->results[i].group_id, id)) {
            assert_int_equal(found, -1);
            found = i;
        }
    assert_true(found >= 0);
    return r->results[found].error_code;
}

/* One group, answered at once (nothing to wait for). */
static int16_t delete_now(tn_node *n, tn_slot *s, int32_t corr, const char *id)
{
    delete_send(n, s, 2, corr, &id, 1);
    wire_delete_groups_response r = delete_answer(n, s, 2, corr);
    assert_int_equal(r.result_count, 1);
    return r.results[0].error_code;
}

typedef struct od_topic {
    const char *name;
    int32_t partitions[2];
    int count;
} od_topic;

static void offset_delete_send(tn_node *n, tn_slot *s, int32_t corr, const char *group,
                               const od_topic *topics, int count)
{
    wire_offset_delete_topic t[4];
    wire_offset_delete_partition p[4][2];
    assert_true(count <= 4);
    for (int i = 0; i < count; i++) {
        for (int k = 0; k < topics[i].count; k++)
            p[i][k].partition_index = topics[i].partitions[k];
        t[i] = (wire_offset_delete_topic){.name = kq_slice_cstr(topics[i].name),
                                          .partitions = p[i], .partition_count = topics[i].count};
    }
    wire_offset_delete_request req = {.group_id = kq_slice_cstr(group), .topics = t,
                                      .topic_count = count};
    TN_SEND(n, s, WIRE_API_OFFSET_DELETE, 0, corr, wire_offset_delete_request_encode, &req);
}

static wire_offset_delete_response offset_delete_answer(tn_node *n, tn_slot *s, int32_t corr)
{
    wire_offset_delete_response resp;
    TN_DECODE(n, s, WIRE_API_OFFSET_DELETE, 0, corr, wire_offset_delete_response_decode, &resp);
    return resp;
}

/* The top-level error of an OffsetDelete of META/0 answered at once. */
static int16_t offset_delete_now(tn_node *n, tn_slot *s, int32_t corr, const char *group,
                                 int16_t *partition_error)
{
    od_topic t = {META, {0}, 1};
    offset_delete_send(n, s, corr, group, &t, 1);
    wire_offset_delete_response r = offset_delete_answer(n, s, corr);
    *partition_error = -1;
    if (r.error_code == KAFKA_NONE) {
        assert_int_equal(r.topic_count, 1);
        assert_int_equal(r.topics[0].partition_count, 1);
        *partition_error = r.topics[0].partitions[0].error_code;
    } else {
        assert_int_equal(r.topic_count, 0);
    }
    return r.error_code;
}

/* A subscription (ConsumerProtocolSubscription v1) to one topic. */
static kq_slice subscription(uint8_t *b, const char *topic)
{
    size_t len = strlen(topic), at = 0;
    const uint8_t head[] = {0, 1, 0, 0, 0, 1, 0, (uint8_t)len};
    memcpy(b, head, sizeof head);
    at = sizeof head;
    memcpy(b + at, topic, len);
    at += len;
    const uint8_t tail[] = {0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}; /* null user data, no owned */
    memcpy(b + at, tail, sizeof tail);
    return (kq_slice){b, (int32_t)(at + sizeof tail)};
}

/* A member of group that joined and synced alone (JoinGroup v3: no
 * MEMBER_ID_REQUIRED step): Stable. Its member id into id. */
static void member(tn_node *n, tn_slot *s, int32_t corr, const char *group, const char *type,
                   kq_slice meta, char *id)
{
    wire_join_group_protocol proto = {kq_slice_cstr("range"), meta};
    wire_join_group_request req = {
        .group_id = kq_slice_cstr(group), .session_timeout_ms = 1800000,
        .rebalance_timeout_ms = 20000, .member_id = kq_slice_cstr(""),
        .group_instance_id = {NULL, -1}, .protocol_type = kq_slice_cstr(type),
        .protocols = &proto, .protocol_count = 1, .reason = {NULL, -1}};
    TN_SEND(n, s, WIRE_API_JOIN_GROUP, 3, corr, wire_join_group_request_encode, &req);
    tn_tick(n, n->now + KQ_GROUP_INITIAL_REBALANCE_DELAY_MS_DEFAULT + 1);
    tn_settle(n); /* the answer waits for the group's record (issue 24) */
    wire_join_group_response j;
    TN_DECODE(n, s, WIRE_API_JOIN_GROUP, 3, corr, wire_join_group_response_decode, &j);
    assert_int_equal(j.error_code, KAFKA_NONE);
    memcpy(id, j.member_id.ptr, (size_t)j.member_id.len);
    id[j.member_id.len] = 0;
    wire_sync_group_assignment a = {kq_slice_cstr(id), kq_slice_cstr("x")};
    wire_sync_group_request sr = {
        .group_id = kq_slice_cstr(group), .generation_id = j.generation_id,
        .member_id = kq_slice_cstr(id), .group_instance_id = {NULL, -1},
        .protocol_type = {NULL, -1}, .protocol_name = {NULL, -1}, .assignments = &a,
        .assignment_count = 1};
    TN_SEND(n, s, WIRE_API_SYNC_GROUP, 3, corr + 1, wire_sync_group_request_encode, &sr);
    tn_settle(n);
    wire_sync_group_response sync;
    TN_DECODE(n, s, WIRE_API_SYNC_GROUP, 3, corr + 1, wire_sync_group_response_decode, &sync);
    assert_int_equal(sync.error_code, KAFKA_NONE);
}

static void leave(tn_node *n, tn_slot *s, int32_t corr, const char *group, const char *id)
{
    wire_leave_group_request req = {.group_id = kq_slice_cstr(group),
                                    .member_id = kq_slice_cstr(id)};
    TN_SEND(n, s, WIRE_API_LEAVE_GROUP, 0, corr, wire_leave_group_request_encode, &req);
    tn_settle(n);
    wire_leave_group_response resp;
    TN_DECODE(n, s, WIRE_API_LEAVE_GROUP, 0, corr, wire_leave_group_response_decode, &resp);
    assert_int_equal(resp.error_code, KAFKA_NONE);
}

/* Deletion records in the log (KQ_CONTROL_OFFSET_EXPIRE with offset -2). */
static int deletion_cb(void *ctx, const uint8_t *batch, size_t len)
{
    record_iter it;
    record rec;
    assert_int_equal(record_iter_open(&it, batch, len), RECORD_OK);
    while (record_iter_next(&it, &rec)) {
        group_offset_value v;
        if (record_batch_is_control(&it.header) &&
            record_control_type(rec.key) == KQ_CONTROL_OFFSET_EXPIRE &&
            !group_offset_read_tombstone_value(rec.value, &v) &&
            v.entry.offset == KQ_GROUP_OFFSET_DELETED)
            (*(int *)ctx)++;
    }
    record_iter_close(&it);
    return 0;
}

static int deletions(tn_node *n)
{
    int count = 0;
    assert_true(kq_log_scan(n->log, kq_log_start_offset(n->log), deletion_cb, &count) >= 0);
    return count;
}

/* ---- DeleteGroups */

/* Answered once the tombstones commit: a group known only by its offsets
 * (one committed, one still pending) goes, a group with a member is
 * NON_EMPTY_GROUP, an unknown one GROUP_ID_NOT_FOUND, a name twice is
 * answered once; the deletion survives a restart and the group commits
 * again. */
static void test_delete_groups(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID}, m = {TN_CLIENT_LISTENER_ID + 1};
    commit(&n, &s, 1, "idle", 42);
    commit(&n, &s, 2, "busy", 7);
    char id[256];
    member(&n, &m, 3, "busy", "consumer", kq_slice_cstr("unparsable"), id);
    tn_slot c = {TN_CLIENT_LISTENER_ID + 3};
    commit_send(&n, &c, 5, "pending", 5); /* appended, not committed */
    int64_t end = kq_log_end_offset(n.log);
    int answered = tn_count(&n, &s);
    const char *ids[] = {"idle", "busy", "idle", "nogroup", "pending"};
    delete_send(&n, &s, 3, 6, ids, 5);
    assert_int_equal(kq_log_end_offset(n.log), end + 2); /* one record each */
    assert_int_equal(tn_count(&n, &s), answered);
    assert_int_equal(fetched(&n, &m, 7, "idle"), 42); /* not before it commits */
    tn_flush(&n);
    assert_int_equal(commit_answer(&n, &c, 5), KAFKA_NONE); /* committed, then deleted */
    wire_delete_groups_response r = delete_answer(&n, &s, 3, 6);
    assert_int_equal(r.result_count, 4);
    assert_int_equal(result_of(&r, "idle"), KAFKA_NONE);
    assert_int_equal(result_of(&r, "busy"), KAFKA_NON_EMPTY_GROUP);
    assert_int_equal(result_of(&r, "nogroup"), KAFKA_GROUP_ID_NOT_FOUND);
    assert_int_equal(result_of(&r, "pending"), KAFKA_NONE);
    assert_true(r.results[0].error_message.len < 0);
    assert_int_equal(deletions(&n), 2);
    assert_int_equal(fetched(&n, &m, 8, "idle"), -1);
    assert_int_equal(fetched(&n, &m, 9, "pending"), -1);
    assert_int_equal(fetched(&n, &m, 10, "busy"), 7);
    /* gone: deleting it again finds nothing */
    assert_int_equal(delete_now(&n, &s, 11, "idle"), KAFKA_GROUP_ID_NOT_FOUND);
    /* a restart rebuilds the table from the log: still deleted */
    tn_restart(&n);
    tn_flush(&n);
    tn_slot s2 = {TN_CLIENT_LISTENER_ID + 2};
    assert_int_equal(fetched(&n, &s2, 12, "idle"), -1);
    assert_int_equal(fetched(&n, &s2, 13, "busy"), 7);
    commit(&n, &s2, 14, "idle", 43);
    assert_int_equal(fetched(&n, &s2, 15, "idle"), 43);
    /* v0 (not flexible) */
    delete_send(&n, &s2, 0, 16, ids, 1);
    tn_flush(&n);
    r = delete_answer(&n, &s2, 0, 16);
    assert_int_equal(r.result_count, 1);
    assert_int_equal(r.results[0].error_code, KAFKA_NONE);
    assert_int_equal(fetched(&n, &s2, 17, "idle"), -1);
    tn_close(&n);
}

/* An Empty group without offsets is forgotten at once (nothing to append);
 * a group whose member left is deletable with its offsets. */
static void test_delete_empty_group(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID};
    char id[256];
    member(&n, &s, 1, "e", "consumer", kq_slice_cstr("m"), id);
    leave(&n, &s, 3, "e", id);
    int64_t end = kq_log_end_offset(n.log);
    /* no offsets: only the group's membership tombstone, answered once it
     * commits (issue 24) */
    const char *e = "e";
    int answered = tn_count(&n, &s);
    delete_send(&n, &s, 2, 4, &e, 1);
    assert_int_equal(tn_count(&n, &s), answered);
    tn_settle(&n);
    assert_int_equal(delete_answer(&n, &s, 2, 4).results[0].error_code, KAFKA_NONE);
    assert_int_equal(kq_log_end_offset(n.log), end + 1);
    assert_int_equal(delete_now(&n, &s, 5, "e"), KAFKA_GROUP_ID_NOT_FOUND);
    commit(&n, &s, 6, "f", 3);
    member(&n, &s, 7, "f", "consumer", kq_slice_cstr("m"), id);
    assert_int_equal(delete_now(&n, &s, 9, "f"), KAFKA_NON_EMPTY_GROUP);
    leave(&n, &s, 10, "f", id);
    const char *f = "f";
    delete_send(&n, &s, 2, 11, &f, 1);
    tn_settle(&n);
    assert_int_equal(delete_answer(&n, &s, 2, 11).results[0].error_code, KAFKA_NONE);
    assert_int_equal(fetched(&n, &s, 12, "f"), -1);
    tn_close(&n);
}

/* A follower and a leader still loading refuse; a deletion not committed
 * in time is COORDINATOR_NOT_AVAILABLE. */
static void test_delete_groups_not_now(void **state)
{
    (void)state;
    tn_node n;
    tn_open(&n, 1, 3); /* no votes: not a leader */
    tn_slot s = {TN_CLIENT_LISTENER_ID};
    assert_int_equal(delete_now(&n, &s, 1, "g"), KAFKA_NOT_COORDINATOR);
    int16_t part;
    assert_int_equal(offset_delete_now(&n, &s, 2, "g", &part), KAFKA_NOT_COORDINATOR);
    tn_close(&n);

    tn_open(&n, 1, 1); /* leader, its LeaderChange batch not yet committed */
    assert_int_equal(delete_now(&n, &s, 3, "g"), KAFKA_COORDINATOR_LOAD_IN_PROGRESS);
    assert_int_equal(offset_delete_now(&n, &s, 4, "g", &part),
                     KAFKA_COORDINATOR_LOAD_IN_PROGRESS);
    tn_flush(&n);
    commit(&n, &s, 5, "g", 9);
    const char *g = "g";
    int answered = tn_count(&n, &s);
    delete_send(&n, &s, 2, 6, &g, 1); /* never flushed */
    assert_int_equal(tn_count(&n, &s), answered);
    assert_true(handler_next_deadline(n.h) <= n.now + HANDLER_GROUP_COMMIT_TIMEOUT_MS);
    tn_tick(&n, n.now + HANDLER_GROUP_COMMIT_TIMEOUT_MS - 1);
    assert_int_equal(tn_count(&n, &s), answered);
    tn_tick(&n, n.now + 1);
    assert_int_equal(delete_answer(&n, &s, 2, 6).results[0].error_code,
                     KAFKA_COORDINATOR_NOT_AVAILABLE);
    tn_close(&n);
}

/* The bounds: HANDLER_GROUP_ADMIN_PENDING_MAX deletions waiting, the next
 * one COORDINATOR_NOT_AVAILABLE at once (nothing deleted); more than
 * HANDLER_GROUP_ADMIN_ENTRIES_MAX groups in one request close the
 * connection. */
static void test_bounds(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID}, w = {TN_CLIENT_LISTENER_ID + 1};
    char id[16];
    for (int i = 0; i <= HANDLER_GROUP_ADMIN_PENDING_MAX; i++) {
        snprintf(id, sizeof id, "q%d", i);
        commit(&n, &s, 100 + i, id, i);
    }
    int answered = tn_count(&n, &w);
    for (int i = 0; i < HANDLER_GROUP_ADMIN_PENDING_MAX; i++) {
        snprintf(id, sizeof id, "q%d", i);
        const char *one = id;
        delete_send(&n, &w, 2, 300 + i, &one, 1); /* not flushed: they wait */
    }
    assert_int_equal(tn_count(&n, &w), answered);
    snprintf(id, sizeof id, "q%d", HANDLER_GROUP_ADMIN_PENDING_MAX);
    assert_int_equal(delete_now(&n, &w, 400, id), KAFKA_COORDINATOR_NOT_AVAILABLE);
    tn_flush(&n);
    assert_int_equal(tn_count(&n, &w), answered + HANDLER_GROUP_ADMIN_PENDING_MAX + 1);
    assert_int_equal(fetched(&n, &s, 401, "q0"), -1);
    assert_int_equal(fetched(&n, &s, 402, id), HANDLER_GROUP_ADMIN_PENDING_MAX);

    int count = HANDLER_GROUP_ADMIN_ENTRIES_MAX + 1;
    kq_slice *names = calloc((size_t)count, sizeof(*names));
    assert_non_null(names);
    for (int i = 0; i < count; i++)
        names[i] = kq_slice_cstr("x");
    wire_delete_groups_request req = {.groups_names = names, .group_count = count};
    tn_slot big = {TN_CLIENT_LISTENER_ID + 2};
    TN_SEND(&n, &big, WIRE_API_DELETE_GROUPS, 0, 500, wire_delete_groups_request_encode, &req);
    assert_int_equal(tn_last(&n, &big)->kind, TN_REPLY_CLOSE);
    free(names);
    tn_close(&n);
}

/* Kafka's DELETE on the group (acl.delete.principals), and for
 * OffsetDelete READ on the topic (consume). */
static void test_authorizer(void **state)
{
    (void)state;
    static const char *const everyone[] = {"User:*"};
    handler_acl acl = {.enabled = true};
    acl.allowed[HANDLER_OP_CONSUME] = everyone;
    acl.allowed_count[HANDLER_OP_CONSUME] = 1;
    tn_acl = &acl;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID};
    commit(&n, &s, 1, "g", 9);
    assert_int_equal(delete_now(&n, &s, 2, "g"), KAFKA_GROUP_AUTHORIZATION_FAILED);
    int16_t part;
    assert_int_equal(offset_delete_now(&n, &s, 3, "g", &part), KAFKA_GROUP_AUTHORIZATION_FAILED);
    assert_int_equal(fetched(&n, &s, 4, "g"), 9);
    tn_close(&n);

    acl.allowed[HANDLER_OP_DELETE] = everyone;
    acl.allowed_count[HANDLER_OP_DELETE] = 1;
    tn_open_leader(&n);
    assert_int_equal(offset_delete_now(&n, &s, 5, "g", &part), KAFKA_GROUP_ID_NOT_FOUND);
    commit(&n, &s, 6, "g", 9);
    acl.allowed[HANDLER_OP_CONSUME] = NULL; /* delete, not consume (Kafka's READ on the topic) */
    acl.allowed_count[HANDLER_OP_CONSUME] = 0;
    assert_int_equal(offset_delete_now(&n, &s, 7, "g", &part), KAFKA_NONE);
    assert_int_equal(part, KAFKA_TOPIC_AUTHORIZATION_FAILED);
    acl.allowed[HANDLER_OP_CONSUME] = everyone;
    acl.allowed_count[HANDLER_OP_CONSUME] = 1;
    assert_int_equal(fetched(&n, &s, 8, "g"), 9);
    tn_close(&n);
    tn_acl = NULL;
}

/* ---- OffsetDelete */

static void test_offset_delete(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_CLIENT_LISTENER_ID}, m = {TN_CLIENT_LISTENER_ID + 1};
    int16_t part;
    assert_int_equal(offset_delete_now(&n, &s, 1, "nogroup", &part), KAFKA_GROUP_ID_NOT_FOUND);
    assert_int_equal(offset_delete_now(&n, &s, 2, "", &part), KAFKA_INVALID_GROUP_ID);
    commit(&n, &s, 3, "g", 42);
    od_topic topics[] = {{META, {0, 1}, 2}, {"other", {0}, 1}, {META, {0}, 1}};
    int answered = tn_count(&n, &s);
    offset_delete_send(&n, &s, 4, "g", topics, 3);
    assert_int_equal(tn_count(&n, &s), answered); /* waits for its tombstone */
    tn_flush(&n);
    wire_offset_delete_response r = offset_delete_answer(&n, &s, 4);
    assert_int_equal(r.error_code, KAFKA_NONE);
    assert_int_equal(r.topic_count, 3);
    assert_true(kq_slice_eq_cstr(r.topics[0].name, META));
    assert_int_equal(r.topics[0].partition_count, 2);
    assert_int_equal(r.topics[0].partitions[0].partition_index, 0);
    assert_int_equal(r.topics[0].partitions[0].error_code, KAFKA_NONE);
    assert_int_equal(r.topics[0].partitions[1].partition_index, 1);
    assert_int_equal(r.topics[0].partitions[1].error_code, KAFKA_UNKNOWN_TOPIC_OR_PARTITION);
    assert_true(kq_slice_eq_cstr(r.topics[1].name, "other"));
    assert_int_equal(r.topics[1].partitions[0].error_code, KAFKA_UNKNOWN_TOPIC_OR_PARTITION);
    assert_int_equal(r.topics[2].partitions[0].error_code, KAFKA_NONE);
    assert_int_equal(deletions(&n), 1); /* META/0 named twice: one tombstone */
    assert_int_equal(fetched(&n, &s, 5, "g"), -1);
    assert_int_equal(offset_delete_now(&n, &s, 6, "g", &part), KAFKA_GROUP_ID_NOT_FOUND);

    /* a consumer group subscribed to the topic: GROUP_SUBSCRIBED_TO_TOPIC */
    uint8_t b[64];
    char id[256];
    commit(&n, &s, 7, "sub", 5);
    member(&n, &m, 8, "sub", "consumer", subscription(b, META), id);
    assert_int_equal(offset_delete_now(&n, &s, 10, "sub", &part), KAFKA_NONE);
    assert_int_equal(part, KAFKA_GROUP_SUBSCRIBED_TO_TOPIC);
    assert_int_equal(fetched(&n, &s, 11, "sub"), 5);
    /* unparsable subscriptions count as subscribed (Kafka) */
    commit(&n, &s, 12, "unk", 6);
    member(&n, &m, 13, "unk", "consumer", kq_slice_cstr("?"), id);
    assert_int_equal(offset_delete_now(&n, &s, 15, "unk", &part), KAFKA_NONE);
    assert_int_equal(part, KAFKA_GROUP_SUBSCRIBED_TO_TOPIC);
    /* subscribed to another topic: deleted while it has a member */
    commit(&n, &s, 16, "moved", 8);
    member(&n, &m, 17, "moved", "consumer", subscription(b, "other"), id);
    od_topic one = {META, {0}, 1};
    offset_delete_send(&n, &s, 19, "moved", &one, 1);
    tn_flush(&n);
    r = offset_delete_answer(&n, &s, 19);
    assert_int_equal(r.error_code, KAFKA_NONE);
    assert_int_equal(r.topics[0].partitions[0].error_code, KAFKA_NONE);
    assert_int_equal(fetched(&n, &s, 20, "moved"), -1);
    /* the group exists (its member): answered NONE with nothing to delete */
    assert_int_equal(offset_delete_now(&n, &s, 21, "moved", &part), KAFKA_NONE);
    assert_int_equal(part, KAFKA_NONE);
    /* another protocol type with members: NON_EMPTY_GROUP */
    commit(&n, &s, 22, "conn", 9);
    member(&n, &m, 23, "conn", "connect", kq_slice_cstr("m"), id);
    assert_int_equal(offset_delete_now(&n, &s, 25, "conn", &part), KAFKA_NON_EMPTY_GROUP);
    assert_int_equal(fetched(&n, &s, 26, "conn"), 9);
    tn_close(&n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_delete_groups),
        cmocka_unit_test(test_delete_empty_group),
        cmocka_unit_test(test_delete_groups_not_now),
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_authorizer),
        cmocka_unit_test(test_offset_delete),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
