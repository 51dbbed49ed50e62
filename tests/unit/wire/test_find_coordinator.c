/* FindCoordinator v0-6 codec: the v0 goldens the handler relies on, round
 * trips at every version, goldens of the batched (v4+) and flexible forms,
 * truncation, version bounds and garbage. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "codec_harness.h"
#include "kq/wire.h"
#include "kq/wire_find_coordinator.h"

HARNESS_CODEC(wire_find_coordinator_request, wire_find_coordinator_request);
HARNESS_CODEC(wire_find_coordinator_response, wire_find_coordinator_response);
static const harness_api api = {
    &wire_find_coordinator_request_codec, &wire_find_coordinator_response_codec,
    WIRE_FIND_COORDINATOR_MIN_VERSION, WIRE_FIND_COORDINATOR_MAX_VERSION};

/* Response v0: error_code 15, node_id -1, host "" (int16 length 0), port -1. */
static const uint8_t golden_response_v0[] = {
    0x00, 0x0f,             /* error_code COORDINATOR_NOT_AVAILABLE */
    0xff, 0xff, 0xff, 0xff, /* node_id -1 */
    0x00, 0x00,             /* host "" */
    0xff, 0xff, 0xff, 0xff, /* port -1 */
};

/* Request v0: key "g1". */
static const uint8_t golden_request_v0[] = {0x00, 0x02, 'g', '1'};

static kq_slice sample_keys[2];
static wire_find_coordinator_coordinator sample_coords[2];
static wire_find_coordinator_request sample_req;
static wire_find_coordinator_response sample_resp;

static void build_samples(void)
{
    sample_keys[0] = harness_str("group-a");
    sample_keys[1] = harness_str("");
    sample_req = (wire_find_coordinator_request){harness_str("g1"), 1, sample_keys, 2};
    sample_coords[0] = (wire_find_coordinator_coordinator){
        harness_str("group-a"), 3, harness_str("broker3"), 9092, 0, HARNESS_NULL};
    sample_coords[1] = (wire_find_coordinator_coordinator){
        harness_str(""), -1, harness_str(""), -1, 15, harness_str("not available")};
    sample_resp = (wire_find_coordinator_response){
        .error_code = 15, .node_id = 7, .host = harness_str("h7"), .port = 9093,
        .throttle_time_ms = 25, .error_message = harness_str("msg"),
        .coordinators = sample_coords, .coordinator_count = 2};
}

static void check_request(const wire_find_coordinator_request *a,
                          const wire_find_coordinator_request *d, int16_t v)
{
    if (v <= 3)
        harness_assert_slice_eq(a->key, d->key);
    else
        assert_int_equal(d->key.len, 0);
    assert_int_equal(d->key_type, v >= 1 ? a->key_type : 0);
    int32_t n = v >= 4 ? a->coordinator_key_count : 0;
    assert_int_equal(d->coordinator_key_count, n);
    for (int32_t i = 0; i < n; i++)
        harness_assert_slice_eq(a->coordinator_keys[i], d->coordinator_keys[i]);
}

static void check_response(const wire_find_coordinator_response *a,
                           const wire_find_coordinator_response *d, int16_t v)
{
    assert_int_equal(d->throttle_time_ms, v >= 1 ? a->throttle_time_ms : 0);
    if (v >= 1 && v <= 3)
        harness_assert_slice_eq(a->error_message, d->error_message);
    else
        harness_assert_null(d->error_message);
    if (v <= 3) {
        assert_int_equal(d->error_code, a->error_code);
        assert_int_equal(d->node_id, a->node_id);
        harness_assert_slice_eq(a->host, d->host);
        assert_int_equal(d->port, a->port);
        assert_int_equal(d->coordinator_count, 0);
        return;
    }
    assert_int_equal(d->coordinator_count, a->coordinator_count);
    for (int32_t i = 0; i < a->coordinator_count; i++) {
        const wire_find_coordinator_coordinator *x = &a->coordinators[i];
        const wire_find_coordinator_coordinator *y = &d->coordinators[i];
        harness_assert_slice_eq(x->key, y->key);
        assert_int_equal(y->node_id, x->node_id);
        harness_assert_slice_eq(x->host, y->host);
        assert_int_equal(y->port, x->port);
        assert_int_equal(y->error_code, x->error_code);
        harness_assert_slice_eq(x->error_message, y->error_message);
    }
}

HARNESS_CHECK(check_request, wire_find_coordinator_request)
HARNESS_CHECK(check_response, wire_find_coordinator_response)

static void test_golden_v0(void **state)
{
    (void)state;
    kq_writer w;
    kq_writer_init(&w, 1 << 16);
    wire_find_coordinator_response resp = {
        .error_code = 15, .node_id = -1, .host = kq_slice_cstr(""), .port = -1};
    wire_find_coordinator_response_encode(&w, 0, &resp);
    assert_false(w.error);
    assert_int_equal(w.len, sizeof(golden_response_v0));
    assert_memory_equal(w.data, golden_response_v0, sizeof(golden_response_v0));

    kq_reader r;
    kq_reader_init(&r, golden_request_v0, sizeof(golden_request_v0));
    wire_find_coordinator_request req;
    assert_int_equal(wire_find_coordinator_request_decode(&r, 0, NULL, &req), 0);
    assert_true(kq_slice_eq_cstr(req.key, "g1"));

    kq_reader_init(&r, w.data, w.len);
    wire_find_coordinator_response back;
    assert_int_equal(wire_find_coordinator_response_decode(&r, 0, NULL, &back), 0);
    assert_int_equal(back.error_code, 15);
    assert_int_equal(back.node_id, -1);
    assert_int_equal(back.port, -1);
    kq_writer_free(&w);
    /* every version the codec speaks is advertised */
    assert_true(wire_api_accepted(WIRE_API_FIND_COORDINATOR, 0));
    assert_true(wire_api_accepted(WIRE_API_FIND_COORDINATOR, 6));
    assert_false(wire_api_accepted(WIRE_API_FIND_COORDINATOR, 7));
}

static void test_round_trip_all_versions(void **state)
{
    (void)state;
    build_samples();
    for (int16_t v = api.min_version; v <= api.max_version; v++) {
        harness_check_round_trip(api.request, v, &sample_req, check_request_any, true);
        harness_check_round_trip(api.response, v, &sample_resp, check_response_any, true);
        wire_find_coordinator_request empty = {.key = harness_str("")};
        harness_check_round_trip(api.request, v, &empty, check_request_any, true);
        wire_find_coordinator_response none = {.host = harness_str(""),
                                               .error_message = HARNESS_NULL};
        harness_check_round_trip(api.response, v, &none, check_response_any, true);
    }
}

static void test_golden_later_versions(void **state)
{
    (void)state;
    kq_slice key = harness_str("g1");
    wire_find_coordinator_request req = {harness_str("g1"), 1, NULL, 0};
    static const uint8_t req_v1[] = {0x00, 0x02, 'g', '1', 0x01};
    harness_check_golden(api.request, 1, &req, req_v1, sizeof req_v1, check_request_any);
    static const uint8_t req_v3[] = {0x03, 'g', '1', 0x01, 0x00};
    harness_check_golden(api.request, 3, &req, req_v3, sizeof req_v3, check_request_any);
    req = (wire_find_coordinator_request){harness_str(""), 0, &key, 1};
    static const uint8_t req_v4[] = {0x00, 0x02, 0x03, 'g', '1', 0x00};
    harness_check_golden(api.request, 4, &req, req_v4, sizeof req_v4, check_request_any);

    wire_find_coordinator_response resp = {15, -1, harness_str(""), -1, 0, HARNESS_NULL,
                                           NULL, 0};
    static const uint8_t resp_v3[] = {0, 0, 0, 0, 0x00, 0x0f, 0x00, 0xff, 0xff, 0xff,
                                      0xff, 0x01, 0xff, 0xff, 0xff, 0xff, 0x00};
    harness_check_golden(api.response, 3, &resp, resp_v3, sizeof resp_v3, check_response_any);
    wire_find_coordinator_coordinator c = {key, 2, harness_str("h"), 9092, 0, HARNESS_NULL};
    resp = (wire_find_coordinator_response){.error_message = HARNESS_NULL, .coordinators = &c,
                                            .coordinator_count = 1};
    static const uint8_t resp_v4[] = {0, 0, 0, 0, 0x02, 0x03, 'g', '1', 0, 0, 0, 2, 0x02, 'h',
                                      0, 0, 0x23, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00};
    harness_check_golden(api.response, 4, &resp, resp_v4, sizeof resp_v4, check_response_any);
}

static void test_bad_versions(void **state)
{
    (void)state;
    build_samples();
    harness_api_bad_versions(&api, &sample_req, &sample_resp);
}

static void test_garbage(void **state)
{
    (void)state;
    build_samples();
    harness_api_garbage(&api, &sample_req, &sample_resp, 5000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_v0),
        cmocka_unit_test(test_round_trip_all_versions),
        cmocka_unit_test(test_golden_later_versions),
        cmocka_unit_test(test_bad_versions),
        cmocka_unit_test(test_garbage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
