#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "kq/wire_list_offsets.h"
#include "client_api_test_util.h"

/* Expected values are built per version: fields absent in that version take
 * their documented defaults. */
static wire_list_offsets_partition req_part;
static wire_list_offsets_topic req_topic;
static wire_list_offsets_partition_response resp_part;
static wire_list_offsets_topic_response resp_topic;
static const int64_t old_offsets[] = {42, 7};

static wire_list_offsets_request request_for_version(int v)
{
    req_part = (wire_list_offsets_partition){0, 5, -1, 3};
    if (v >= 0) {
        if (v < 4)
            req_part.current_leader_epoch = -1;
        if (v != 0)
            req_part.max_num_offsets = 1;
    }
    req_topic = (wire_list_offsets_topic){test_slice("t"), &req_part, 1};
    wire_list_offsets_request q = {-1, 1, &req_topic, 1, 500};
    if (v >= 0 && v < 2)
        q.isolation_level = 0;
    if (v >= 0 && v < 10)
        q.timeout_ms = 0;
    return q;
}

static wire_list_offsets_response response_for_version(int v)
{
    resp_part = (wire_list_offsets_partition_response){0, 0, old_offsets, 2, 100, 42, 5};
    if (v >= 0) {
        if (v == 0) {
            resp_part.timestamp = -1;
            resp_part.offset = -1;
        } else {
            resp_part.old_style_offsets = NULL;
            resp_part.old_style_offset_count = 0;
        }
        if (v < 4)
            resp_part.leader_epoch = -1;
    }
    resp_topic = (wire_list_offsets_topic_response){test_slice("t"), &resp_part, 1};
    wire_list_offsets_response p = {7, &resp_topic, 1};
    if (v >= 0 && v < 2)
        p.throttle_time_ms = 0;
    return p;
}

static void compare_partition(const void *a, const void *b, int16_t v)
{
    (void)v;
    const wire_list_offsets_partition *x = a, *y = b;
    assert_int_equal(x->partition_index, y->partition_index);
    assert_int_equal(x->current_leader_epoch, y->current_leader_epoch);
    assert_true(x->timestamp == y->timestamp);
    assert_int_equal(x->max_num_offsets, y->max_num_offsets);
}

static void compare_partition_response(const void *a, const void *b, int16_t v)
{
    (void)v;
    const wire_list_offsets_partition_response *x = a, *y = b;
    assert_int_equal(x->partition_index, y->partition_index);
    assert_int_equal(x->error_code, y->error_code);
    assert_int_equal(x->old_style_offset_count, y->old_style_offset_count);
    for (int32_t j = 0; j < x->old_style_offset_count; j++)
        assert_true(x->old_style_offsets[j] == y->old_style_offsets[j]);
    assert_true(x->timestamp == y->timestamp);
    assert_true(x->offset == y->offset);
    assert_int_equal(x->leader_epoch, y->leader_epoch);
}

static const harness_topics request_topics =
    HARNESS_TOPICS(wire_list_offsets_topic, name, compare_partition);
static const harness_topics response_topics =
    HARNESS_TOPICS(wire_list_offsets_topic_response, name, compare_partition_response);

/* Expected values already hold each version's defaults, so no version here. */
static void compare_request(const wire_list_offsets_request *a, const wire_list_offsets_request *b)
{
    assert_int_equal(a->replica_id, b->replica_id);
    assert_int_equal(a->isolation_level, b->isolation_level);
    assert_int_equal(a->timeout_ms, b->timeout_ms);
    harness_check_topics(&request_topics, a->topics, a->topic_count, b->topics, b->topic_count, 0);
}

static void compare_response(const wire_list_offsets_response *a,
                             const wire_list_offsets_response *b)
{
    assert_int_equal(a->throttle_time_ms, b->throttle_time_ms);
    harness_check_topics(&response_topics, a->topics, a->topic_count, b->topics, b->topic_count,
                         0);
}

static void test_roundtrip_all_versions(void **state)
{
    (void)state;
    for (int16_t v = 0; v <= 10; v++) {
        wire_list_offsets_request q = request_for_version(-1);
        CHECK_ROUND_TRIP(wire_list_offsets_request, v, &q, request_for_version(v), compare_request,
                         500u + (uint32_t)v);
        wire_list_offsets_response p = response_for_version(-1);
        CHECK_ROUND_TRIP(wire_list_offsets_response, v, &p, response_for_version(v),
                         compare_response, 600u + (uint32_t)v);
    }
}

static void check_golden(int16_t v, const uint8_t *req, size_t req_len, const uint8_t *resp,
                         size_t resp_len)
{
    wire_list_offsets_request q = request_for_version(-1);
    CHECK_GOLDEN(wire_list_offsets_request, v, &q, request_for_version(v), req, req_len,
                 compare_request);
    wire_list_offsets_response p = response_for_version(-1);
    CHECK_GOLDEN(wire_list_offsets_response, v, &p, response_for_version(v), resp, resp_len,
                 compare_response);
}

static void test_golden_v0(void **state)
{
    (void)state;
    static const uint8_t req[] = {
        0xFF, 0xFF, 0xFF, 0xFF, /* replica_id -1 */
        0x00, 0x00, 0x00, 0x01, /* topics: 1 */
        0x00, 0x01, 't',        /* name "t" */
        0x00, 0x00, 0x00, 0x01, /* partitions: 1 */
        0x00, 0x00, 0x00, 0x00, /* partition_index 0 */
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, /* timestamp -1 (latest) */
        0x00, 0x00, 0x00, 0x03, /* max_num_offsets 3 (v0 only) */
    };
    static const uint8_t resp[] = {
        0x00, 0x00, 0x00, 0x01, /* topics: 1 */
        0x00, 0x01, 't',        /* name "t" */
        0x00, 0x00, 0x00, 0x01, /* partitions: 1 */
        0x00, 0x00, 0x00, 0x00, /* partition_index 0 */
        0x00, 0x00,             /* error_code 0 */
        0x00, 0x00, 0x00, 0x02, /* old_style_offsets: 2 */
        0, 0, 0, 0, 0, 0, 0, 0x2A, /* 42 */
        0, 0, 0, 0, 0, 0, 0, 0x07, /* 7 */
    };
    check_golden(0, req, sizeof req, resp, sizeof resp);
}

static void test_golden_v10(void **state)
{
    (void)state;
    static const uint8_t req[] = {
        0xFF, 0xFF, 0xFF, 0xFF, /* replica_id -1 */
        0x01,                   /* isolation_level 1 */
        0x02,                   /* topics: compact 1 */
        0x02, 't',              /* name "t" */
        0x02,                   /* partitions: compact 1 */
        0x00, 0x00, 0x00, 0x00, /* partition_index 0 */
        0x00, 0x00, 0x00, 0x05, /* current_leader_epoch 5 */
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, /* timestamp -1 */
        0x00,                   /* partition tags */
        0x00,                   /* topic tags */
        0x00, 0x00, 0x01, 0xF4, /* timeout_ms 500 */
        0x00,                   /* tags */
    };
    static const uint8_t resp[] = {
        0x00, 0x00, 0x00, 0x07, /* throttle_time_ms 7 */
        0x02,                   /* topics: compact 1 */
        0x02, 't',              /* name "t" */
        0x02,                   /* partitions: compact 1 */
        0x00, 0x00, 0x00, 0x00, /* partition_index 0 */
        0x00, 0x00,             /* error_code 0 */
        0, 0, 0, 0, 0, 0, 0, 0x64, /* timestamp 100 */
        0, 0, 0, 0, 0, 0, 0, 0x2A, /* offset 42 */
        0x00, 0x00, 0x00, 0x05, /* leader_epoch 5 */
        0x00,                   /* partition tags */
        0x00,                   /* topic tags */
        0x00,                   /* tags */
    };
    check_golden(10, req, sizeof req, resp, sizeof resp);
}

static void test_huge_count_rejected(void **state)
{
    (void)state;
    /* topic count 0x7fffffff with a few bytes: must fail without allocating */
    static const uint8_t req[] = {0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0xFF, 0xFF, 0xFF, 0x00, 0x01, 't'};
    kq_arena arena;
    kq_arena_init(&arena, TEST_ARENA_MAX);
    kq_reader r;
    kq_reader_init(&r, req, sizeof req);
    wire_list_offsets_request q;
    assert_int_equal(wire_list_offsets_request_decode(&r, 1, &arena, &q), -1);
    kq_arena_free(&arena);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_all_versions),
        cmocka_unit_test(test_golden_v0),
        cmocka_unit_test(test_golden_v10),
        cmocka_unit_test(test_huge_count_rejected),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
