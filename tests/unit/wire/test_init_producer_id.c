#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "kq/wire_init_producer_id.h"
#include "client_api_test_util.h"

static wire_init_producer_id_request full_request(void)
{
    wire_init_producer_id_request q = {test_slice("tx"), 60000, 1234, 7};
    return q;
}

static wire_init_producer_id_request request_for_version(int16_t v)
{
    wire_init_producer_id_request q = full_request();
    if (v < 3) {
        q.producer_id = -1;
        q.producer_epoch = -1;
    }
    return q;
}

static wire_init_producer_id_response full_response(void)
{
    wire_init_producer_id_response p = {10, 0, 0x0102030405060708LL, 3};
    return p;
}

static void compare_request(const wire_init_producer_id_request *a,
                            const wire_init_producer_id_request *b)
{
    assert_slice_equal(a->transactional_id, b->transactional_id);
    assert_int_equal(a->transaction_timeout_ms, b->transaction_timeout_ms);
    assert_true(a->producer_id == b->producer_id);
    assert_int_equal(a->producer_epoch, b->producer_epoch);
}

static void compare_response(const wire_init_producer_id_response *a,
                             const wire_init_producer_id_response *b)
{
    assert_int_equal(a->throttle_time_ms, b->throttle_time_ms);
    assert_int_equal(a->error_code, b->error_code);
    assert_true(a->producer_id == b->producer_id);
    assert_int_equal(a->producer_epoch, b->producer_epoch);
}

static void test_roundtrip_all_versions(void **state)
{
    (void)state;
    for (int16_t v = 0; v <= 5; v++) {
        kq_arena arena;
        kq_arena_init(&arena, TEST_ARENA_MAX);
        kq_writer w;

        wire_init_producer_id_request q = full_request(), qd;
        CHECK_ROUND_TRIP(wire_init_producer_id_request, v, &q, request_for_version(v),
                         compare_request, 300u + (uint32_t)v);

        /* null transactional id survives */
        q.transactional_id = (kq_slice){NULL, -1};
        ENCODE_DECODE(wire_init_producer_id_request_encode, wire_init_producer_id_request_decode,
                      v, &q, &qd, &arena, w);
        assert_int_equal(qd.transactional_id.len, -1);
        kq_writer_free(&w);

        wire_init_producer_id_response p = full_response();
        CHECK_ROUND_TRIP(wire_init_producer_id_response, v, &p, p, compare_response,
                         400u + (uint32_t)v);
        kq_arena_free(&arena);
    }
}

static void check_golden(int16_t v, const uint8_t *req, size_t req_len, const uint8_t *resp,
                         size_t resp_len)
{
    wire_init_producer_id_request q = full_request();
    CHECK_GOLDEN(wire_init_producer_id_request, v, &q, request_for_version(v), req, req_len,
                 compare_request);
    wire_init_producer_id_response p = full_response();
    CHECK_GOLDEN(wire_init_producer_id_response, v, &p, full_response(), resp, resp_len,
                 compare_response);
}

static void test_golden_v0(void **state)
{
    (void)state;
    static const uint8_t req[] = {
        0x00, 0x02, 't', 'x',   /* transactional_id "tx" (int16 length) */
        0x00, 0x00, 0xEA, 0x60, /* transaction_timeout_ms 60000 */
    };
    static const uint8_t resp[] = {
        0x00, 0x00, 0x00, 0x0A, /* throttle_time_ms 10 */
        0x00, 0x00,             /* error_code 0 */
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, /* producer_id */
        0x00, 0x03,             /* producer_epoch 3 */
    };
    check_golden(0, req, sizeof req, resp, sizeof resp);
}

static void test_golden_v5(void **state)
{
    (void)state;
    static const uint8_t req[] = {
        0x03, 't', 'x',         /* transactional_id: compact nullable string */
        0x00, 0x00, 0xEA, 0x60, /* transaction_timeout_ms 60000 */
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0xD2, /* producer_id 1234 */
        0x00, 0x07,             /* producer_epoch 7 */
        0x00,                   /* tagged fields */
    };
    static const uint8_t resp[] = {
        0x00, 0x00, 0x00, 0x0A, /* throttle_time_ms 10 */
        0x00, 0x00,             /* error_code 0 */
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, /* producer_id */
        0x00, 0x03,             /* producer_epoch 3 */
        0x00,                   /* tagged fields */
    };
    check_golden(5, req, sizeof req, resp, sizeof resp);
}

static void test_out_of_range_version(void **state)
{
    (void)state;
    static const uint8_t req[] = {0xFF, 0xFF, 0, 0, 0, 1};
    kq_arena arena;
    kq_arena_init(&arena, TEST_ARENA_MAX);
    kq_reader r;
    wire_init_producer_id_request q;
    kq_reader_init(&r, req, sizeof req);
    assert_int_equal(wire_init_producer_id_request_decode(&r, 1, &arena, &q), 0);
    assert_int_equal(q.transactional_id.len, -1);
    assert_int_equal(q.producer_epoch, -1);
    kq_reader_init(&r, req, sizeof req);
    assert_int_equal(wire_init_producer_id_request_decode(&r, 6, &arena, &q), -1);
    kq_arena_free(&arena);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_all_versions),
        cmocka_unit_test(test_golden_v0),
        cmocka_unit_test(test_golden_v5),
        cmocka_unit_test(test_out_of_range_version),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
