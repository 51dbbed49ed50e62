/* KIP-848 consumer groups: Kafka's request checks and errors, the group
 * types sharing one namespace, describe, OffsetCommit/OffsetFetch checks
 * and our bounds. */
#include "consumer_test_util.h"

static group_consumer_heartbeat_request join_req(const char *member)
{
    static const char *topics[] = {"t0"};
    group_consumer_heartbeat_request r = {
        .version = 1, .group_id = "g", .member_id = member, .member_epoch = 0,
        .rebalance_timeout_ms = 30000, .subscribed_topic_names = topics,
        .subscribed_topic_count = 1, .owned_count = 0, .client_id = "cl", .client_host = "/h:1",
    };
    return r;
}

static void expect(group_coord *c, const group_consumer_heartbeat_request *r,
                   enum kafka_error e, const char *message)
{
    group_consumer_heartbeat_response out;
    group_consumer_heartbeat(c, r, 0, &out);
    assert_int_equal(out.error, e);
    if (message)
        assert_string_equal(out.error_message, message);
    assert_non_null(out.output);
}

static void test_invalid_requests(void **state)
{
    (void)state;
    group_coord *c = tc_coord(0);
    group_consumer_heartbeat_request r = join_req("A");
    r.group_id = " ";
    expect(c, &r, KAFKA_INVALID_REQUEST, "GroupId can't be empty.");
    r = join_req("A");
    r.instance_id = "";
    expect(c, &r, KAFKA_INVALID_REQUEST, "InstanceId can't be empty.");
    r = join_req("A");
    r.rack_id = "  ";
    expect(c, &r, KAFKA_INVALID_REQUEST, "RackId can't be empty.");
    r = join_req("A");
    r.subscribed_topic_regex = "t.*";
    expect(c, &r, KAFKA_INVALID_REQUEST, "SubscribedTopicRegex is not supported yet.");
    r = join_req("");
    expect(c, &r, KAFKA_INVALID_REQUEST, "MemberId can't be empty."); /* v1 */
    r = join_req("A");
    r.rebalance_timeout_ms = -1;
    expect(c, &r, KAFKA_INVALID_REQUEST, "RebalanceTimeoutMs must be provided in first request.");
    r = join_req("A");
    r.owned_count = -1;
    expect(c, &r, KAFKA_INVALID_REQUEST, "TopicPartitions must be empty when (re-)joining.");
    r = join_req("A");
    r.subscribed_topic_count = 0;
    expect(c, &r, KAFKA_INVALID_REQUEST, "SubscribedTopicNames must be set in first request.");
    r = join_req("A");
    r.member_epoch = -2;
    expect(c, &r, KAFKA_INVALID_REQUEST, "InstanceId can't be null.");
    r.member_epoch = -3;
    expect(c, &r, KAFKA_INVALID_REQUEST, "MemberEpoch is invalid.");
    r = join_req("A");
    r.server_assignor = "sticky";
    expect(c, &r, KAFKA_UNSUPPORTED_ASSIGNOR,
           "ServerAssignor sticky is not supported. Supported assignors: uniform, range.");
    r = join_req("A");
    r.subscribed_topic_count = KQ_GROUP_CONSUMER_SUBSCRIBED_TOPICS_MAX + 1;
    expect(c, &r, KAFKA_INVALID_REQUEST, NULL);
    assert_int_equal(group_count(c), 0); /* nothing was created */
    group_coord_destroy(c);
}

/* v0: the coordinator makes the member id. */
static void test_v0_member_id(void **state)
{
    (void)state;
    group_coord *c = tc_coord(0);
    group_consumer_heartbeat_request r = join_req("");
    r.version = 0;
    group_consumer_heartbeat_response out;
    group_consumer_heartbeat(c, &r, 0, &out);
    assert_int_equal(out.error, KAFKA_NONE);
    assert_int_equal(strlen(out.member_id), 22);
    char id[64];
    strcpy(id, out.member_id);
    group_consumer_member_view v;
    assert_true(group_consumer_member_at(c, "g", 0, &v));
    assert_string_equal(v.member_id, id);
    assert_string_equal(v.client_id, "cl");
    assert_string_equal(v.client_host, "/h:1");
    group_coord_destroy(c);
}

static void test_unknown_and_missing(void **state)
{
    (void)state;
    group_coord *c = tc_coord(0);
    group_consumer_heartbeat_request r = join_req("A");
    r.member_epoch = 1;
    r.rebalance_timeout_ms = -1;
    r.subscribed_topic_count = -1;
    expect(c, &r, KAFKA_GROUP_ID_NOT_FOUND, "Consumer group g not found.");
    r.member_epoch = -1;
    expect(c, &r, KAFKA_GROUP_ID_NOT_FOUND, "Group g not found.");
    group_consumer_heartbeat_request j = join_req("A");
    expect(c, &j, KAFKA_NONE, NULL);
    r.member_id = "B";
    r.member_epoch = 1;
    expect(c, &r, KAFKA_UNKNOWN_MEMBER_ID, "Member B is not a member of group g.");
    r.member_epoch = -1;
    expect(c, &r, KAFKA_UNKNOWN_MEMBER_ID, NULL);
    r.member_id = "A";
    r.member_epoch = 2;
    expect(c, &r, KAFKA_FENCED_MEMBER_EPOCH, NULL);
    r.instance_id = "i";
    r.member_epoch = 1;
    expect(c, &r, KAFKA_UNKNOWN_MEMBER_ID, "Instance id i is unknown.");
    group_coord_destroy(c);
}

static void test_max_size(void **state)
{
    (void)state;
    group_config cfg = group_config_default();
    cfg.consumer_max_size = 2;
    cfg.members_per_connection_max = 0;
    group_coord *c = group_coord_create(&cfg);
    group_topic t = tc_topic(0);
    group_consumer_set_topics(c, &t, 1);
    group_consumer_heartbeat_request r = join_req("A");
    expect(c, &r, KAFKA_NONE, NULL);
    r.member_id = "B";
    expect(c, &r, KAFKA_NONE, NULL);
    r.member_id = "C";
    expect(c, &r, KAFKA_GROUP_MAX_SIZE_REACHED,
           "The consumer group has reached its maximum capacity of 2 members.");
    r.member_id = "B"; /* a member already in may rejoin */
    expect(c, &r, KAFKA_NONE, NULL);
    group_coord_destroy(c);
}

/* One connection may not hold more members than its bound. */
static void test_per_connection_bound(void **state)
{
    (void)state;
    group_config cfg = group_config_default();
    cfg.members_per_connection_max = 2;
    group_coord *c = group_coord_create(&cfg);
    group_consumer_heartbeat_request r = join_req("A");
    expect(c, &r, KAFKA_NONE, NULL);
    r.member_id = "B";
    expect(c, &r, KAFKA_NONE, NULL);
    r.member_id = "C";
    group_consumer_heartbeat_response out;
    group_consumer_heartbeat(c, &r, 0, &out);
    assert_int_equal(out.error, KAFKA_GROUP_MAX_SIZE_REACHED);
    assert_non_null(out.limit);
    r.client_host = "/other:2";
    expect(c, &r, KAFKA_NONE, NULL);
    assert_true(group_bytes_of(c, "g") > 3 * KQ_GROUP_CONSUMER_MEMBER_FIXED_BYTES);
    assert_int_equal(group_bytes(c), group_bytes_of(c, "g"));
    group_coord_destroy(c);
}

/* A subscription over its byte bound is refused; members' bytes count in
 * their group and the coordinator, and leave with them. */
static void test_bytes_bound(void **state)
{
    (void)state;
    group_coord *c = tc_coord(0);
    static char names[8][KQ_TOPIC_NAME_BYTES_MAX];
    static const char *ptrs[8];
    for (int i = 0; i < 8; i++) {
        memset(names[i], 'x', KQ_TOPIC_NAME_BYTES_MAX - 1);
        names[i][0] = (char)('a' + i);
        ptrs[i] = names[i];
    }
    group_consumer_heartbeat_request r = join_req("m");
    r.subscribed_topic_names = ptrs;
    r.subscribed_topic_count = 8; /* 8 x 251 bytes > KQ_GROUP_CONSUMER_SUBSCRIPTION_BYTES_MAX */
    expect(c, &r, KAFKA_INVALID_REQUEST, NULL);
    r.subscribed_topic_count = 3;
    expect(c, &r, KAFKA_NONE, NULL);
    uint64_t one = group_bytes_of(c, "g");
    assert_true(one >= KQ_GROUP_CONSUMER_MEMBER_FIXED_BYTES + 3 * (KQ_TOPIC_NAME_BYTES_MAX - 1));
    r.member_id = "n";
    expect(c, &r, KAFKA_NONE, NULL);
    assert_int_equal(group_bytes_of(c, "g"), 2 * one);
    assert_int_equal(group_bytes(c), 2 * one);
    r.member_epoch = -1;
    expect(c, &r, KAFKA_NONE, NULL);
    assert_int_equal(group_bytes(c), one);
    group_coord_destroy(c);
}

/* Classic and consumer groups share the ids: Kafka's errors when the
 * types clash; Empty groups change type. */
static void test_types_share_ids(void **state)
{
    (void)state;
    group_coord *c = tc_coord(0);
    static const uint8_t meta[] = {0, 1};
    group_protocol p = {"range", meta, sizeof(meta)};
    group_join_request j = {
        .token = 1, .group_id = "g", .member_id = "", .client_id = "x", .client_host = "/h",
        .protocol_type = "consumer", .protocols = &p, .protocol_count = 1,
        .session_timeout_ms = 10000, .rebalance_timeout_ms = 10000,
    };
    const group_output *o = group_join(c, &j, 0); /* waits out the initial delay */
    assert_int_equal(o->answer_count, 0);
    group_consumer_heartbeat_request r = join_req("A");
    expect(c, &r, KAFKA_GROUP_ID_NOT_FOUND, "Group g is not a consumer group.");
    group_summary s;
    assert_true(group_at(c, 0, &s));
    assert_int_equal(s.type, GROUP_TYPE_CLASSIC);
    assert_int_equal(group_count(c), 1);
    group_coord_destroy(c);

    c = tc_coord(0);
    /* An Empty consumer group and a JoinGroup: it becomes classic. */
    r = join_req("A");
    expect(c, &r, KAFKA_NONE, NULL);
    assert_true(group_at(c, 0, &s));
    assert_int_equal(s.type, GROUP_TYPE_CONSUMER);
    assert_string_equal(s.state_name, "Stable");
    assert_string_equal(s.protocol_type, "consumer");
    assert_int_equal(s.generation, 1);
    assert_int_equal(group_describe(c, "g", &s), KAFKA_GROUP_ID_NOT_FOUND);
    enum group_type type;
    assert_true(group_type_of(c, "g", &type));
    assert_int_equal(type, GROUP_TYPE_CONSUMER);
    assert_int_equal(group_delete(c, "g"), KAFKA_NON_EMPTY_GROUP);
    r.member_epoch = -1;
    expect(c, &r, KAFKA_NONE, NULL);
    j.group_id = "g";
    o = group_join(c, &j, 10);
    assert_true(group_type_of(c, "g", &type));
    assert_int_equal(type, GROUP_TYPE_CLASSIC);
    const char *msg;
    group_consumer_summary cs;
    assert_int_equal(group_consumer_describe(c, "g", &cs, &msg), KAFKA_GROUP_ID_NOT_FOUND);
    assert_non_null(msg);
    group_coord_destroy(c);
}

static void test_commit_checks(void **state)
{
    (void)state;
    group_coord *c = tc_coord(0);
    tc_client a;
    tc_init(&a, "A", "t0");
    bool exists;
    group_commit_check k = {.group_id = "g", .member_id = "", .generation = -1,
                            .api_version = 9};
    assert_int_equal(group_validate_commit(c, &k, &exists), KAFKA_NONE);
    assert_false(exists);
    k.generation = 3;
    assert_int_equal(group_validate_commit(c, &k, &exists), KAFKA_GROUP_ID_NOT_FOUND);
    k.api_version = 8;
    assert_int_equal(group_validate_commit(c, &k, &exists), KAFKA_ILLEGAL_GENERATION);
    assert_int_equal(tc_hb(c, "g", &a, 0), KAFKA_NONE);
    k = (group_commit_check){.group_id = "g", .member_id = "A", .generation = 1,
                             .api_version = 9};
    assert_int_equal(group_validate_commit(c, &k, &exists), KAFKA_NONE);
    assert_true(exists);
    k.generation = 0;
    assert_int_equal(group_validate_commit(c, &k, &exists), KAFKA_STALE_MEMBER_EPOCH);
    k.transactional = true;
    assert_int_equal(group_validate_commit(c, &k, &exists), KAFKA_ILLEGAL_GENERATION);
    k = (group_commit_check){.group_id = "g", .member_id = "A", .generation = 1,
                             .api_version = 8};
    assert_int_equal(group_validate_commit(c, &k, &exists), KAFKA_UNSUPPORTED_VERSION);
    k.member_id = "Z";
    assert_int_equal(group_validate_commit(c, &k, &exists), KAFKA_UNKNOWN_MEMBER_ID);
    k = (group_commit_check){.group_id = "g", .member_id = "", .generation = -1,
                             .api_version = 9};
    assert_int_equal(group_validate_commit(c, &k, &exists), KAFKA_UNKNOWN_MEMBER_ID);
    assert_int_equal(group_validate_offset_commit(c, "g", "A", NULL, 1, &exists), KAFKA_NONE);
    assert_int_equal(group_validate_offset_commit(c, "g", "A", NULL, 2, &exists),
                     KAFKA_STALE_MEMBER_EPOCH);
    /* OffsetFetch v9+. */
    assert_int_equal(group_validate_offset_fetch(c, "g", NULL, -1), KAFKA_NONE);
    assert_int_equal(group_validate_offset_fetch(c, "g", "A", 1), KAFKA_NONE);
    assert_int_equal(group_validate_offset_fetch(c, "g", "A", 0), KAFKA_STALE_MEMBER_EPOCH);
    assert_int_equal(group_validate_offset_fetch(c, "g", "Z", 1), KAFKA_UNKNOWN_MEMBER_ID);
    assert_int_equal(group_validate_offset_fetch(c, "other", "Z", 1), KAFKA_NONE);
    /* An Empty consumer group takes an admin commit. */
    a.epoch = -1;
    assert_int_equal(tc_hb(c, "g", &a, 1), KAFKA_NONE);
    k = (group_commit_check){.group_id = "g", .member_id = "", .generation = -1,
                             .api_version = 9};
    assert_int_equal(group_validate_commit(c, &k, &exists), KAFKA_NONE);
    assert_true(exists);
    group_coord_destroy(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_invalid_requests),
        cmocka_unit_test(test_v0_member_id),
        cmocka_unit_test(test_unknown_and_missing),
        cmocka_unit_test(test_max_size),
        cmocka_unit_test(test_per_connection_bound),
        cmocka_unit_test(test_bytes_bound),
        cmocka_unit_test(test_types_share_ids),
        cmocka_unit_test(test_commit_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
