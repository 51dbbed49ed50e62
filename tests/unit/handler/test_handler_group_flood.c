/* Consumer groups under floods (issue 12, "bad input"): one client sending
 * thousands of JoinGroup requests to one group and to thousands of groups
 * gets Kafka's errors at once beyond the limits of include/kq/limits.h
 * (GROUP_MAX_SIZE_REACHED past group.max.size, COORDINATOR_NOT_AVAILABLE
 * once HANDLER_GROUP_PENDING_MAX joins wait), and every waiting join is
 * answered once its rebalance completes. */
#include "handler_test_node.h"

#include "kq/wire_join_group.h"

#define JOIN_V 3 /* before MEMBER_ID_REQUIRED: every join waits as a member */
#define FLOOD_ONE_GROUP (KQ_GROUP_MAX_SIZE_DEFAULT + 500)
#define FLOOD_GROUPS (HANDLER_GROUP_PENDING_MAX + 200)
#define SLOTS (FLOOD_ONE_GROUP + FLOOD_GROUPS)

static tn_slot slots[SLOTS];

static void join(tn_node *n, tn_slot *s, int32_t corr, const char *group)
{
    wire_join_group_protocol proto = {kq_slice_cstr("range"), kq_slice_cstr("m")};
    wire_join_group_request req = {
        .group_id = kq_slice_cstr(group), .session_timeout_ms = 10000,
        .rebalance_timeout_ms = 20000, .member_id = kq_slice_cstr(""),
        .group_instance_id = {NULL, -1}, .protocol_type = kq_slice_cstr("consumer"),
        .protocols = &proto, .protocol_count = 1, .reason = {NULL, -1}};
    TN_SEND(n, s, WIRE_API_JOIN_GROUP, JOIN_V, corr, wire_join_group_request_encode, &req);
}

static int16_t join_error(tn_node *n, tn_slot *s, int32_t corr)
{
    wire_join_group_response resp;
    TN_DECODE(n, s, WIRE_API_JOIN_GROUP, JOIN_V, corr, wire_join_group_response_decode, &resp);
    return resp.error_code;
}

/* How many slots in [from, to) have an answer, and with error e. */
static int answered(tn_node *n, int from, int to, int16_t e, int *with_e)
{
    int count = 0;
    *with_e = 0;
    for (int i = from; i < to; i++) {
        if (tn_count(n, &slots[i]) == 0)
            continue;
        assert_int_equal(tn_count(n, &slots[i]), 1);
        count++;
        if (join_error(n, &slots[i], i) == e)
            (*with_e)++;
    }
    return count;
}

static void test_join_floods(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    for (int i = 0; i < SLOTS; i++)
        slots[i].id = TN_CLIENT_LISTENER_ID;
    /* One group: group.max.size members wait, the rest are refused at once. */
    for (int i = 0; i < FLOOD_ONE_GROUP; i++)
        join(&n, &slots[i], i, "flooded");
    int full = 0;
    int now = answered(&n, 0, FLOOD_ONE_GROUP, KAFKA_GROUP_MAX_SIZE_REACHED, &full);
    assert_int_equal(now, FLOOD_ONE_GROUP - KQ_GROUP_MAX_SIZE_DEFAULT);
    assert_int_equal(full, now);
    /* Thousands of groups: joins wait until the table of waiting requests
     * is full; beyond it COORDINATOR_NOT_AVAILABLE (retriable) at once. */
    char name[32];
    for (int i = 0; i < FLOOD_GROUPS; i++) {
        snprintf(name, sizeof(name), "g-%d", i);
        join(&n, &slots[FLOOD_ONE_GROUP + i], FLOOD_ONE_GROUP + i, name);
    }
    int busy = 0;
    now = answered(&n, FLOOD_ONE_GROUP, SLOTS, KAFKA_COORDINATOR_NOT_AVAILABLE, &busy);
    int waiting = HANDLER_GROUP_PENDING_MAX - KQ_GROUP_MAX_SIZE_DEFAULT;
    assert_int_equal(now, FLOOD_GROUPS - waiting);
    assert_int_equal(busy, now);
    /* Past the initial rebalance delay (extended while members kept
     * joining, at most to the rebalance timeout) every waiting join
     * completes. */
    for (int k = 0; k < 2; k++) /* once more: members joined during the first */
        tn_tick(&n, n.now + KQ_GROUP_INITIAL_REBALANCE_DELAY_MS_DEFAULT + 1);
    /* One step answers at most KQ_GROUP_ANSWERS_MAX; the rest 1 ms later. */
    for (int k = 0; k < 2 * (SLOTS / KQ_GROUP_ANSWERS_MAX + 1); k++)
        tn_tick(&n, n.now + 1);
    /* Issue 24: the answers wait for the groups' records (a take at a time,
     * each one control batch) to commit. */
    for (int k = 0; k < 16; k++) {
        tn_flush(&n);
        tn_tick(&n, n.now + 1);
    }
    int ok = 0;
    assert_int_equal(answered(&n, 0, FLOOD_ONE_GROUP, KAFKA_NONE, &ok), FLOOD_ONE_GROUP);
    assert_int_equal(ok, KQ_GROUP_MAX_SIZE_DEFAULT);
    assert_int_equal(answered(&n, FLOOD_ONE_GROUP, SLOTS, KAFKA_NONE, &ok), FLOOD_GROUPS);
    assert_int_equal(ok, waiting);
    tn_close(&n);
}

/* Issue 19: 4,096 JoinGroups (v4: MEMBER_ID_REQUIRED, a pending id each) to
 * distinct groups from one connection: it holds at most
 * KQ_GROUP_MEMBERS_PER_CONNECTION_MAX, the rest are refused at once, and a
 * consumer on another connection still joins a new group. */
static void test_one_connection_cannot_take_every_group(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot attacker = {TN_CLIENT_LISTENER_ID}, consumer = {TN_CLIENT_LISTENER_ID};
    wire_join_group_protocol proto = {kq_slice_cstr("range"), kq_slice_cstr("m")};
    wire_join_group_request req = {
        .session_timeout_ms = 10000, .rebalance_timeout_ms = 20000,
        .member_id = kq_slice_cstr(""), .group_instance_id = {NULL, -1},
        .protocol_type = kq_slice_cstr("consumer"), .protocols = &proto, .protocol_count = 1,
        .reason = {NULL, -1}};
    char name[32];
    int required = 0, refused = 0;
    for (int i = 0; i < KQ_GROUPS_MAX; i++) {
        snprintf(name, sizeof(name), "flood-%d", i);
        req.group_id = kq_slice_cstr(name);
        TN_SEND(&n, &attacker, WIRE_API_JOIN_GROUP, 4, i, wire_join_group_request_encode, &req);
        wire_join_group_response resp;
        TN_DECODE(&n, &attacker, WIRE_API_JOIN_GROUP, 4, i, wire_join_group_response_decode, &resp);
        required += resp.error_code == KAFKA_MEMBER_ID_REQUIRED;
        refused += resp.error_code == KAFKA_GROUP_MAX_SIZE_REACHED;
    }
    assert_int_equal(required, KQ_GROUP_MEMBERS_PER_CONNECTION_MAX);
    assert_int_equal(refused, KQ_GROUPS_MAX - KQ_GROUP_MEMBERS_PER_CONNECTION_MAX);
    req.group_id = kq_slice_cstr("real-consumers");
    TN_SEND(&n, &consumer, WIRE_API_JOIN_GROUP, 4, 1, wire_join_group_request_encode, &req);
    wire_join_group_response resp;
    TN_DECODE(&n, &consumer, WIRE_API_JOIN_GROUP, 4, 1, wire_join_group_response_decode, &resp);
    assert_int_equal(resp.error_code, KAFKA_MEMBER_ID_REQUIRED);
    /* With its member id it joins (the group's first member: its leader). */
    char id[KQ_GROUP_NAME_BYTES_MAX];
    snprintf(id, sizeof(id), "%.*s", (int)resp.member_id.len, (const char *)resp.member_id.ptr);
    req.member_id = kq_slice_cstr(id);
    TN_SEND(&n, &consumer, WIRE_API_JOIN_GROUP, 4, 2, wire_join_group_request_encode, &req);
    tn_tick(&n, n.now + KQ_GROUP_INITIAL_REBALANCE_DELAY_MS_DEFAULT + 1);
    for (int k = 0; k < 4; k++) { /* its record commits (issue 24) */
        tn_flush(&n);
        tn_tick(&n, n.now + 1);
    }
    TN_DECODE(&n, &consumer, WIRE_API_JOIN_GROUP, 4, 2, wire_join_group_response_decode, &resp);
    assert_int_equal(resp.error_code, KAFKA_NONE);
    tn_close(&n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_join_floods),
        cmocka_unit_test(test_one_connection_cannot_take_every_group),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
