#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "kq/wire_metadata.h"
#include "client_api_test_util.h"

static const kq_slice null_slice = {NULL, -1};
static const kq_uuid one_uuid = {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}};
static const kq_uuid zero_uuid = {{0}};

static wire_metadata_request_topic req_topic;
static wire_metadata_broker broker;
static wire_metadata_partition part;
static wire_metadata_topic topic;
static const int32_t replicas[] = {1, 2};
static const int32_t isr[] = {1};
static const int32_t offline[] = {2};

/* v < 0: the full struct; otherwise what decoding version v must produce. */
static wire_metadata_request request_for_version(int v)
{
    req_topic = (wire_metadata_request_topic){one_uuid, test_slice("t")};
    wire_metadata_request q = {&req_topic, 1, false, true, true};
    if (v >= 0) {
        if (v < 10)
            req_topic.topic_id = zero_uuid;
        if (v < 4)
            q.allow_auto_topic_creation = true;
        if (v < 8 || v > 10)
            q.include_cluster_authorized_operations = false;
        if (v < 8)
            q.include_topic_authorized_operations = false;
    }
    return q;
}

static wire_metadata_response response_for_version(int v)
{
    broker = (wire_metadata_broker){1, test_slice("h"), 9092, test_slice("r")};
    part = (wire_metadata_partition){0, 0, 1, 4, replicas, 2, isr, 1, offline, 1};
    topic = (wire_metadata_topic){0, test_slice("t"), one_uuid, true, &part, 1, 8};
    wire_metadata_response p = {3, &broker, 1, test_slice("c"), 1, &topic, 1, 9};
    if (v >= 0) {
        if (v < 3)
            p.throttle_time_ms = 0;
        if (v < 1) {
            broker.rack = null_slice;
            p.controller_id = -1;
            topic.is_internal = false;
        }
        if (v < 2)
            p.cluster_id = null_slice;
        if (v < 10)
            topic.topic_id = zero_uuid;
        if (v < 7)
            part.leader_epoch = -1;
        if (v < 5) {
            part.offline_replicas = NULL;
            part.offline_replica_count = 0;
        }
        if (v < 8)
            topic.topic_authorized_operations = INT32_MIN;
        if (v < 8 || v > 10)
            p.cluster_authorized_operations = INT32_MIN;
    }
    return p;
}

static void compare_request(const wire_metadata_request *a, const wire_metadata_request *b)
{
    assert_int_equal(a->topic_count, b->topic_count);
    for (int32_t i = 0; i < a->topic_count; i++) {
        assert_memory_equal(a->topics[i].topic_id.bytes, b->topics[i].topic_id.bytes, 16);
        assert_slice_equal(a->topics[i].name, b->topics[i].name);
    }
    assert_int_equal(a->allow_auto_topic_creation, b->allow_auto_topic_creation);
    assert_int_equal(a->include_cluster_authorized_operations,
                     b->include_cluster_authorized_operations);
    assert_int_equal(a->include_topic_authorized_operations,
                     b->include_topic_authorized_operations);
}

static void compare_int32s(const int32_t *a, int32_t na, const int32_t *b, int32_t nb)
{
    assert_int_equal(na, nb);
    for (int32_t i = 0; i < na; i++)
        assert_int_equal(a[i], b[i]);
}

static void compare_response(const wire_metadata_response *a, const wire_metadata_response *b)
{
    assert_int_equal(a->throttle_time_ms, b->throttle_time_ms);
    assert_int_equal(a->broker_count, b->broker_count);
    for (int32_t i = 0; i < a->broker_count; i++) {
        assert_int_equal(a->brokers[i].node_id, b->brokers[i].node_id);
        assert_slice_equal(a->brokers[i].host, b->brokers[i].host);
        assert_int_equal(a->brokers[i].port, b->brokers[i].port);
        assert_slice_equal(a->brokers[i].rack, b->brokers[i].rack);
    }
    assert_slice_equal(a->cluster_id, b->cluster_id);
    assert_int_equal(a->controller_id, b->controller_id);
    assert_int_equal(a->cluster_authorized_operations, b->cluster_authorized_operations);
    assert_int_equal(a->topic_count, b->topic_count);
    for (int32_t i = 0; i < a->topic_count; i++) {
        const wire_metadata_topic *x = &a->topics[i], *y = &b->topics[i];
        assert_int_equal(x->error_code, y->error_code);
        assert_slice_equal(x->name, y->name);
        assert_memory_equal(x->topic_id.bytes, y->topic_id.bytes, 16);
        assert_int_equal(x->is_internal, y->is_internal);
        assert_int_equal(x->topic_authorized_operations, y->topic_authorized_operations);
        assert_int_equal(x->partition_count, y->partition_count);
        for (int32_t k = 0; k < x->partition_count; k++) {
            const wire_metadata_partition *p = &x->partitions[k], *q = &y->partitions[k];
            assert_int_equal(p->error_code, q->error_code);
            assert_int_equal(p->partition_index, q->partition_index);
            assert_int_equal(p->leader_id, q->leader_id);
            assert_int_equal(p->leader_epoch, q->leader_epoch);
            compare_int32s(p->replica_nodes, p->replica_node_count, q->replica_nodes,
                           q->replica_node_count);
            compare_int32s(p->isr_nodes, p->isr_node_count, q->isr_nodes, q->isr_node_count);
            compare_int32s(p->offline_replicas, p->offline_replica_count, q->offline_replicas,
                           q->offline_replica_count);
        }
    }
}

static void test_roundtrip_all_versions(void **state)
{
    (void)state;
    for (int16_t v = 0; v <= 12; v++) {
        kq_arena arena;
        kq_arena_init(&arena, TEST_ARENA_MAX);
        kq_writer w;

        wire_metadata_request q = request_for_version(-1), qd;
        CHECK_ROUND_TRIP(wire_metadata_request, v, &q, request_for_version(v), compare_request,
                         700u + (uint32_t)v);

        /* "all topics": null from v1, empty array at v0 */
        q.topics = NULL;
        q.topic_count = -1;
        ENCODE_DECODE(wire_metadata_request_encode, wire_metadata_request_decode, v, &q, &qd,
                      &arena, w);
        assert_int_equal(qd.topic_count, v == 0 ? 0 : -1);
        assert_true(wire_metadata_request_all_topics(&qd, v));
        kq_writer_free(&w);
        q.topic_count = 0;
        ENCODE_DECODE(wire_metadata_request_encode, wire_metadata_request_decode, v, &q, &qd,
                      &arena, w);
        assert_int_equal(qd.topic_count, 0);
        assert_int_equal(wire_metadata_request_all_topics(&qd, v), v == 0);
        kq_writer_free(&w);

        wire_metadata_response p = response_for_version(-1);
        CHECK_ROUND_TRIP(wire_metadata_response, v, &p, response_for_version(v), compare_response,
                         800u + (uint32_t)v);
        kq_arena_free(&arena);
    }
}

static void check_golden(int16_t v, const uint8_t *req, size_t req_len, const uint8_t *resp,
                         size_t resp_len)
{
    wire_metadata_request q = request_for_version(-1);
    CHECK_GOLDEN(wire_metadata_request, v, &q, request_for_version(v), req, req_len,
                 compare_request);
    wire_metadata_response p = response_for_version(-1);
    CHECK_GOLDEN(wire_metadata_response, v, &p, response_for_version(v), resp, resp_len,
                 compare_response);
}

static void test_golden_v0(void **state)
{
    (void)state;
    static const uint8_t req[] = {
        0x00, 0x00, 0x00, 0x01, /* topics: 1 */
        0x00, 0x01, 't',        /* name "t" */
    };
    static const uint8_t resp[] = {
        0x00, 0x00, 0x00, 0x01, /* brokers: 1 */
        0x00, 0x00, 0x00, 0x01, /* node_id 1 */
        0x00, 0x01, 'h',        /* host "h" */
        0x00, 0x00, 0x23, 0x84, /* port 9092 */
        0x00, 0x00, 0x00, 0x01, /* topics: 1 */
        0x00, 0x00,             /* error_code 0 */
        0x00, 0x01, 't',        /* name "t" */
        0x00, 0x00, 0x00, 0x01, /* partitions: 1 */
        0x00, 0x00,             /* error_code 0 */
        0x00, 0x00, 0x00, 0x00, /* partition_index 0 */
        0x00, 0x00, 0x00, 0x01, /* leader_id 1 */
        0x00, 0x00, 0x00, 0x02, 0, 0, 0, 1, 0, 0, 0, 2, /* replica_nodes [1,2] */
        0x00, 0x00, 0x00, 0x01, 0, 0, 0, 1,             /* isr_nodes [1] */
    };
    check_golden(0, req, sizeof req, resp, sizeof resp);
}

static void test_golden_v12(void **state)
{
    (void)state;
    static const uint8_t req[] = {
        0x02,                   /* topics: compact 1 */
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, /* topic_id */
        0x02, 't',              /* name "t" (compact nullable) */
        0x00,                   /* topic tags */
        0x00,                   /* allow_auto_topic_creation false */
        0x01,                   /* include_topic_authorized_operations true */
        0x00,                   /* tags (no cluster-ops flag after v10) */
    };
    static const uint8_t resp[] = {
        0x00, 0x00, 0x00, 0x03, /* throttle_time_ms 3 */
        0x02,                   /* brokers: compact 1 */
        0x00, 0x00, 0x00, 0x01, /* node_id 1 */
        0x02, 'h',              /* host "h" */
        0x00, 0x00, 0x23, 0x84, /* port 9092 */
        0x02, 'r',              /* rack "r" */
        0x00,                   /* broker tags */
        0x02, 'c',              /* cluster_id "c" */
        0x00, 0x00, 0x00, 0x01, /* controller_id 1 */
        0x02,                   /* topics: compact 1 */
        0x00, 0x00,             /* error_code 0 */
        0x02, 't',              /* name "t" */
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, /* topic_id */
        0x01,                   /* is_internal true */
        0x02,                   /* partitions: compact 1 */
        0x00, 0x00,             /* error_code 0 */
        0x00, 0x00, 0x00, 0x00, /* partition_index 0 */
        0x00, 0x00, 0x00, 0x01, /* leader_id 1 */
        0x00, 0x00, 0x00, 0x04, /* leader_epoch 4 */
        0x03, 0, 0, 0, 1, 0, 0, 0, 2, /* replica_nodes [1,2] */
        0x02, 0, 0, 0, 1,       /* isr_nodes [1] */
        0x02, 0, 0, 0, 2,       /* offline_replicas [2] */
        0x00,                   /* partition tags */
        0x00, 0x00, 0x00, 0x08, /* topic_authorized_operations 8 */
        0x00,                   /* topic tags */
        0x00,                   /* tags (no cluster ops after v10) */
    };
    check_golden(12, req, sizeof req, resp, sizeof resp);
}

static void test_nullability(void **state)
{
    (void)state;
    kq_arena arena;
    kq_arena_init(&arena, TEST_ARENA_MAX);
    kq_reader r;
    wire_metadata_request q;
    /* v0: a null topics array is not allowed */
    static const uint8_t v0_null[] = {0xFF, 0xFF, 0xFF, 0xFF};
    kq_reader_init(&r, v0_null, sizeof v0_null);
    assert_int_equal(wire_metadata_request_decode(&r, 0, &arena, &q), -1);
    /* v1: allowed, and defaults are set */
    kq_reader_init(&r, v0_null, sizeof v0_null);
    assert_int_equal(wire_metadata_request_decode(&r, 1, &arena, &q), 0);
    assert_int_equal(q.topic_count, -1);
    assert_true(q.allow_auto_topic_creation);
    /* v9 topic name null is invalid, v10 allows it */
    static const uint8_t v9_null_name[] = {0x02, 0x00, 0x00, 0x01, 0x00, 0x00};
    kq_reader_init(&r, v9_null_name, sizeof v9_null_name);
    assert_int_equal(wire_metadata_request_decode(&r, 9, &arena, &q), -1);
    static const uint8_t v13[] = {0x01, 0x01, 0x00, 0x00};
    kq_reader_init(&r, v13, sizeof v13);
    assert_int_equal(wire_metadata_request_decode(&r, 13, &arena, &q), -1);
    kq_arena_free(&arena);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_all_versions),
        cmocka_unit_test(test_golden_v0),
        cmocka_unit_test(test_golden_v12),
        cmocka_unit_test(test_nullability),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
