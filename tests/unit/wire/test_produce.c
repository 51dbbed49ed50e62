#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "kq/wire_produce.h"
#include "client_api_test_util.h"

static const kq_slice null_slice = {NULL, -1};
static const uint8_t records[] = {0x01, 0x02, 0x03};

static wire_produce_partition req_part;
static wire_produce_topic req_topic;
static wire_produce_record_error rec_err;
static wire_produce_partition_response resp_part;
static wire_produce_topic_response resp_topic;
static wire_produce_node_endpoint endpoint;

static wire_produce_request full_request(void)
{
    req_part = (wire_produce_partition){0, {records, 3}};
    req_topic = (wire_produce_topic){test_slice("t"), &req_part, 1};
    wire_produce_request q = {test_slice("tx"), -1, 30000, &req_topic, 1};
    return q;
}

/* v < 0: the full struct; otherwise what decoding version v must produce. */
static wire_produce_response response_for_version(int v)
{
    rec_err = (wire_produce_record_error){1, test_slice("bad")};
    resp_part = (wire_produce_partition_response){0, 6, 100, -1, 5, &rec_err, 1, test_slice("m"), 2, 7};
    resp_topic = (wire_produce_topic_response){test_slice("t"), &resp_part, 1};
    endpoint = (wire_produce_node_endpoint){2, test_slice("h"), 9092, null_slice};
    wire_produce_response p = {&resp_topic, 1, 4, &endpoint, 1};
    if (v >= 0) {
        if (v < 5)
            resp_part.log_start_offset = -1;
        if (v < 8) {
            resp_part.record_errors = NULL;
            resp_part.record_error_count = 0;
            resp_part.error_message = null_slice;
        }
        if (v < 10) {
            resp_part.current_leader_id = -1;
            resp_part.current_leader_epoch = -1;
            p.node_endpoints = NULL;
            p.node_endpoint_count = 0;
        }
    }
    return p;
}

static void compare_partition(const void *a, const void *b, int16_t v)
{
    (void)v;
    const wire_produce_partition *x = a, *y = b;
    assert_int_equal(x->index, y->index);
    assert_slice_equal(x->records, y->records);
}

static void compare_partition_response(const void *a, const void *b, int16_t v)
{
    (void)v;
    const wire_produce_partition_response *x = a, *y = b;
    assert_int_equal(x->index, y->index);
    assert_int_equal(x->error_code, y->error_code);
    assert_true(x->base_offset == y->base_offset);
    assert_true(x->log_append_time_ms == y->log_append_time_ms);
    assert_true(x->log_start_offset == y->log_start_offset);
    assert_int_equal(x->record_error_count, y->record_error_count);
    for (int32_t j = 0; j < x->record_error_count; j++) {
        assert_int_equal(x->record_errors[j].batch_index, y->record_errors[j].batch_index);
        assert_slice_equal(x->record_errors[j].message, y->record_errors[j].message);
    }
    assert_slice_equal(x->error_message, y->error_message);
    assert_int_equal(x->current_leader_id, y->current_leader_id);
    assert_int_equal(x->current_leader_epoch, y->current_leader_epoch);
}

static const harness_topics request_topics =
    HARNESS_TOPICS(wire_produce_topic, name, compare_partition);
static const harness_topics response_topics =
    HARNESS_TOPICS(wire_produce_topic_response, name, compare_partition_response);

static void compare_request(const wire_produce_request *a, const wire_produce_request *b)
{
    assert_slice_equal(a->transactional_id, b->transactional_id);
    assert_int_equal(a->acks, b->acks);
    assert_int_equal(a->timeout_ms, b->timeout_ms);
    harness_check_topics(&request_topics, a->topics, a->topic_count, b->topics, b->topic_count, 0);
}

static void compare_response(const wire_produce_response *a, const wire_produce_response *b)
{
    assert_int_equal(a->throttle_time_ms, b->throttle_time_ms);
    harness_check_topics(&response_topics, a->topics, a->topic_count, b->topics, b->topic_count,
                         0);
    assert_int_equal(a->node_endpoint_count, b->node_endpoint_count);
    for (int32_t i = 0; i < a->node_endpoint_count; i++) {
        assert_int_equal(a->node_endpoints[i].node_id, b->node_endpoints[i].node_id);
        assert_slice_equal(a->node_endpoints[i].host, b->node_endpoints[i].host);
        assert_int_equal(a->node_endpoints[i].port, b->node_endpoints[i].port);
        assert_slice_equal(a->node_endpoints[i].rack, b->node_endpoints[i].rack);
    }
}

static void test_roundtrip_all_versions(void **state)
{
    (void)state;
    for (int16_t v = 3; v <= 12; v++) {
        kq_arena arena;
        kq_arena_init(&arena, TEST_ARENA_MAX);
        kq_writer w;

        wire_produce_request q = full_request(), qd;
        CHECK_ROUND_TRIP(wire_produce_request, v, &q, q, compare_request, 900u + (uint32_t)v);

        /* null transactional id and null records survive */
        q.transactional_id = null_slice;
        req_part.records = null_slice;
        ENCODE_DECODE(wire_produce_request_encode, wire_produce_request_decode, v, &q, &qd,
                      &arena, w);
        compare_request(&qd, &q);
        kq_writer_free(&w);

        wire_produce_response p = response_for_version(-1), pd;
        CHECK_ROUND_TRIP(wire_produce_response, v, &p, response_for_version(v), compare_response,
                         1000u + (uint32_t)v);

        /* without a leader hint and endpoints no tags are written at v10+ */
        p = response_for_version(-1);
        resp_part.current_leader_id = -1;
        resp_part.current_leader_epoch = -1;
        p.node_endpoint_count = 0;
        ENCODE_DECODE(wire_produce_response_encode, wire_produce_response_decode, v, &p, &pd,
                      &arena, w);
        assert_int_equal(pd.topics[0].partitions[0].current_leader_id, -1);
        assert_int_equal(pd.node_endpoint_count, 0);
        if (v >= 9)
            assert_int_equal(w.data[w.len - 1], 0); /* empty top-level tags */
        kq_writer_free(&w);
        kq_arena_free(&arena);
    }
}

static void check_golden(int16_t v, const uint8_t *req, size_t req_len, const uint8_t *resp,
                         size_t resp_len)
{
    wire_produce_request q = full_request();
    CHECK_GOLDEN(wire_produce_request, v, &q, full_request(), req, req_len, compare_request);
    wire_produce_response p = response_for_version(-1);
    CHECK_GOLDEN(wire_produce_response, v, &p, response_for_version(v), resp, resp_len,
                 compare_response);
}

static void test_golden_v3(void **state)
{
    (void)state;
    static const uint8_t req[] = {
        0x00, 0x02, 't', 'x',   /* transactional_id "tx" */
        0xFF, 0xFF,             /* acks -1 */
        0x00, 0x00, 0x75, 0x30, /* timeout_ms 30000 */
        0x00, 0x00, 0x00, 0x01, /* topics: 1 */
        0x00, 0x01, 't',        /* name "t" */
        0x00, 0x00, 0x00, 0x01, /* partitions: 1 */
        0x00, 0x00, 0x00, 0x00, /* index 0 */
        0x00, 0x00, 0x00, 0x03, 0x01, 0x02, 0x03, /* records: int32 length + bytes */
    };
    static const uint8_t resp[] = {
        0x00, 0x00, 0x00, 0x01, /* responses: 1 */
        0x00, 0x01, 't',        /* name "t" */
        0x00, 0x00, 0x00, 0x01, /* partitions: 1 */
        0x00, 0x00, 0x00, 0x00, /* index 0 */
        0x00, 0x06,             /* error_code 6 */
        0, 0, 0, 0, 0, 0, 0, 0x64, /* base_offset 100 */
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, /* log_append_time_ms -1 */
        0x00, 0x00, 0x00, 0x04, /* throttle_time_ms 4 (last) */
    };
    check_golden(3, req, sizeof req, resp, sizeof resp);
}

static void test_golden_v12(void **state)
{
    (void)state;
    static const uint8_t req[] = {
        0x03, 't', 'x',         /* transactional_id: compact nullable "tx" */
        0xFF, 0xFF,             /* acks -1 */
        0x00, 0x00, 0x75, 0x30, /* timeout_ms 30000 */
        0x02,                   /* topics: compact 1 */
        0x02, 't',              /* name "t" */
        0x02,                   /* partitions: compact 1 */
        0x00, 0x00, 0x00, 0x00, /* index 0 */
        0x04, 0x01, 0x02, 0x03, /* records: compact length 3+1 + bytes */
        0x00,                   /* partition tags */
        0x00,                   /* topic tags */
        0x00,                   /* tags */
    };
    static const uint8_t resp[] = {
        0x02,                   /* responses: compact 1 */
        0x02, 't',              /* name "t" */
        0x02,                   /* partitions: compact 1 */
        0x00, 0x00, 0x00, 0x00, /* index 0 */
        0x00, 0x06,             /* error_code 6 */
        0, 0, 0, 0, 0, 0, 0, 0x64, /* base_offset 100 */
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, /* log_append_time_ms -1 */
        0, 0, 0, 0, 0, 0, 0, 0x05, /* log_start_offset 5 */
        0x02,                   /* record_errors: compact 1 */
        0x00, 0x00, 0x00, 0x01, /* batch_index 1 */
        0x04, 'b', 'a', 'd',    /* batch_index_error_message "bad" */
        0x00,                   /* record error tags */
        0x02, 'm',              /* error_message "m" */
        0x01,                   /* partition tags: 1 field */
        0x00, 0x09,             /* tag 0 (CurrentLeader), size 9 */
        0x00, 0x00, 0x00, 0x02, /* leader_id 2 */
        0x00, 0x00, 0x00, 0x07, /* leader_epoch 7 */
        0x00,                   /* CurrentLeader's own tags */
        0x00,                   /* topic tags */
        0x00, 0x00, 0x00, 0x04, /* throttle_time_ms 4 */
        0x01,                   /* tags: 1 field */
        0x00, 0x0D,             /* tag 0 (NodeEndpoints), size 13 */
        0x02,                   /* endpoints: compact 1 */
        0x00, 0x00, 0x00, 0x02, /* node_id 2 */
        0x02, 'h',              /* host "h" */
        0x00, 0x00, 0x23, 0x84, /* port 9092 */
        0x00,                   /* rack null */
        0x00,                   /* endpoint tags */
    };
    check_golden(12, req, sizeof req, resp, sizeof resp);
}

static void test_unknown_tags_and_versions(void **state)
{
    (void)state;
    kq_arena arena;
    kq_arena_init(&arena, TEST_ARENA_MAX);
    kq_reader r;
    /* v9 response: the CurrentLeader tag is not defined before v10: skipped */
    static const uint8_t v9[] = {
        0x02, 0x02, 't', 0x02, 0, 0, 0, 0, 0x00, 0x06,
        0, 0, 0, 0, 0, 0, 0, 0x64, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0, 0, 0, 0, 0, 0, 0, 0x05, 0x01, 0x00,
        0x02, 0x00, 0x09, 0, 0, 0, 2, 0, 0, 0, 7, 0x00, 0x05, 0x01, 0xEE, /* tags 0 and 5 */
        0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
    };
    wire_produce_response p;
    kq_reader_init(&r, v9, sizeof v9);
    assert_int_equal(wire_produce_response_decode(&r, 9, &arena, &p), 0);
    assert_int_equal(p.topics[0].partitions[0].current_leader_id, -1);
    assert_int_equal(kq_reader_remaining(&r), 0);
    /* the same bytes at v10 read the leader */
    kq_reader_init(&r, v9, sizeof v9);
    assert_int_equal(wire_produce_response_decode(&r, 10, &arena, &p), 0);
    assert_int_equal(p.topics[0].partitions[0].current_leader_id, 2);
    assert_int_equal(p.topics[0].partitions[0].current_leader_epoch, 7);
    /* a CurrentLeader tag whose payload is too short fails */
    static const uint8_t short_tag[] = {
        0x02, 0x02, 't', 0x02, 0, 0, 0, 0, 0x00, 0x06,
        0, 0, 0, 0, 0, 0, 0, 0x64, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0, 0, 0, 0, 0, 0, 0, 0x05, 0x01, 0x00,
        0x01, 0x00, 0x03, 0, 0, 0,
        0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
    };
    kq_reader_init(&r, short_tag, sizeof short_tag);
    assert_int_equal(wire_produce_response_decode(&r, 10, &arena, &p), -1);
    /* versions outside 3-12 are refused */
    wire_produce_request q;
    static const uint8_t empty_req[] = {0xFF, 0xFF, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0};
    kq_reader_init(&r, empty_req, sizeof empty_req);
    assert_int_equal(wire_produce_request_decode(&r, 3, &arena, &q), 0);
    assert_int_equal(q.transactional_id.len, -1);
    assert_int_equal(q.acks, 1);
    kq_reader_init(&r, empty_req, sizeof empty_req);
    assert_int_equal(wire_produce_request_decode(&r, 2, &arena, &q), -1);
    kq_reader_init(&r, empty_req, sizeof empty_req);
    assert_int_equal(wire_produce_request_decode(&r, 13, &arena, &q), -1);
    kq_arena_free(&arena);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_all_versions),
        cmocka_unit_test(test_golden_v3),
        cmocka_unit_test(test_golden_v12),
        cmocka_unit_test(test_unknown_tags_and_versions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
