#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "kq/wire.h"
#include "kq/wire_find_coordinator.h"

/* Response v0: error_code 15, node_id -1, host "" (int16 length 0), port -1. */
static const uint8_t golden_response_v0[] = {
    0x00, 0x0f,             /* error_code COORDINATOR_NOT_AVAILABLE */
    0xff, 0xff, 0xff, 0xff, /* node_id -1 */
    0x00, 0x00,             /* host "" */
    0xff, 0xff, 0xff, 0xff, /* port -1 */
};

/* Request v0: key "g1". */
static const uint8_t golden_request_v0[] = {0x00, 0x02, 'g', '1'};

static void test_golden_and_round_trip(void **state)
{
    (void)state;
    kq_writer w;
    kq_writer_init(&w, 1 << 16);
    wire_find_coordinator_response resp = {15, -1, kq_slice_cstr(""), -1};
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
}

static void test_truncations_and_versions(void **state)
{
    (void)state;
    for (size_t n = 0; n < sizeof(golden_response_v0); n++) {
        kq_reader r;
        kq_reader_init(&r, golden_response_v0, n);
        wire_find_coordinator_response out;
        assert_int_equal(wire_find_coordinator_response_decode(&r, 0, NULL, &out), -1);
    }
    kq_reader r;
    kq_reader_init(&r, golden_request_v0, sizeof(golden_request_v0));
    wire_find_coordinator_request req;
    assert_int_equal(wire_find_coordinator_request_decode(&r, 1, NULL, &req), -1);
    assert_true(wire_api_accepted(WIRE_API_FIND_COORDINATOR, 0));
    assert_false(wire_api_accepted(WIRE_API_FIND_COORDINATOR, 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_and_round_trip),
        cmocka_unit_test(test_truncations_and_versions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
