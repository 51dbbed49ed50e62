/* SaslHandshake (key 17) and SaslAuthenticate (key 36): hand-built bytes for
 * every version, round trips with truncation and garbage checks, and the
 * API table entries. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "kq/wire.h"
#include "kq/wire_sasl.h"
#include "client_api_test_util.h"

static const kq_slice two_mechs[2] = {{(const uint8_t *)"PLAIN", 5},
                                      {(const uint8_t *)"SCRAM-SHA-256", 13}};

static void cmp_hs_req(const wire_sasl_handshake_request *a, const wire_sasl_handshake_request *b)
{
    assert_slice_equal(a->mechanism, b->mechanism);
}

static void cmp_hs_resp(const wire_sasl_handshake_response *a,
                        const wire_sasl_handshake_response *b)
{
    assert_int_equal(a->error_code, b->error_code);
    assert_int_equal(a->mechanism_count, b->mechanism_count);
    for (int32_t i = 0; i < a->mechanism_count; i++)
        assert_slice_equal(a->mechanisms[i], b->mechanisms[i]);
}

static void cmp_au_req(const wire_sasl_authenticate_request *a,
                       const wire_sasl_authenticate_request *b)
{
    assert_slice_equal(a->auth_bytes, b->auth_bytes);
}

static void cmp_au_resp(const wire_sasl_authenticate_response *a,
                        const wire_sasl_authenticate_response *b)
{
    assert_int_equal(a->error_code, b->error_code);
    assert_slice_equal(a->error_message, b->error_message);
    assert_slice_equal(a->auth_bytes, b->auth_bytes);
    assert_true(a->session_lifetime_ms == b->session_lifetime_ms);
}

static void test_handshake_golden(void **state)
{
    (void)state;
    static const uint8_t req[] = {0x00, 0x05, 'P', 'L', 'A', 'I', 'N'};
    static const uint8_t resp[] = {
        0x00, 0x00,             /* error_code */
        0x00, 0x00, 0x00, 0x02, /* mechanisms: int32 count */
        0x00, 0x05, 'P', 'L', 'A', 'I', 'N',
        0x00, 0x0d, 'S', 'C', 'R', 'A', 'M', '-', 'S', 'H', 'A', '-', '2', '5', '6',
    };
    for (int16_t v = 0; v <= 1; v++) {
        wire_sasl_handshake_request q = {test_slice("PLAIN")};
        CHECK_GOLDEN(wire_sasl_handshake_request, v, &q, q, req, sizeof req, cmp_hs_req);
        CHECK_ROUND_TRIP(wire_sasl_handshake_request, v, &q, q, cmp_hs_req, 10u + (uint32_t)v);
        wire_sasl_handshake_response p = {0, two_mechs, 2};
        CHECK_GOLDEN(wire_sasl_handshake_response, v, &p, p, resp, sizeof resp, cmp_hs_resp);
        CHECK_ROUND_TRIP(wire_sasl_handshake_response, v, &p, p, cmp_hs_resp, 20u + (uint32_t)v);
    }
}

/* UNSUPPORTED_SASL_MECHANISM (33) with an empty list. */
static void test_handshake_error_empty(void **state)
{
    (void)state;
    static const uint8_t resp[] = {0x00, 0x21, 0x00, 0x00, 0x00, 0x00};
    wire_sasl_handshake_response p = {33, NULL, 0};
    CHECK_GOLDEN(wire_sasl_handshake_response, 1, &p, p, resp, sizeof resp, cmp_hs_resp);
    /* a null mechanism string is refused */
    static const uint8_t null_req[] = {0xff, 0xff};
    kq_reader r;
    wire_sasl_handshake_request q;
    kq_reader_init(&r, null_req, sizeof null_req);
    assert_int_equal(wire_sasl_handshake_request_decode(&r, 0, NULL, &q), -1);
}

static void test_authenticate_request_golden(void **state)
{
    (void)state;
    static const uint8_t tok[] = {0x00, 'u', 0x00, 'p'};
    static const uint8_t req_v0[] = {0x00, 0x00, 0x00, 0x04, 0x00, 'u', 0x00, 'p'};
    static const uint8_t req_v2[] = {0x05, 0x00, 'u', 0x00, 'p', 0x00 /* tags */};
    wire_sasl_authenticate_request q = {{tok, 4}};
    for (int16_t v = 0; v <= 1; v++)
        CHECK_GOLDEN(wire_sasl_authenticate_request, v, &q, q, req_v0, sizeof req_v0, cmp_au_req);
    CHECK_GOLDEN(wire_sasl_authenticate_request, 2, &q, q, req_v2, sizeof req_v2, cmp_au_req);
    for (int16_t v = 0; v <= 2; v++)
        CHECK_ROUND_TRIP(wire_sasl_authenticate_request, v, &q, q, cmp_au_req, 30u + (uint32_t)v);
}

static void test_authenticate_response_golden(void **state)
{
    (void)state;
    static const uint8_t v0[] = {
        0x00, 0x3a,                   /* error_code 58 SASL_AUTHENTICATION_FAILED */
        0x00, 0x03, 'b', 'a', 'd',    /* error_message */
        0x00, 0x00, 0x00, 0x03, 'e', '=', 'x', /* auth_bytes */
    };
    static const uint8_t v1[] = {
        0x00, 0x3a, 0x00, 0x03, 'b', 'a', 'd', 0x00, 0x00, 0x00, 0x03, 'e', '=', 'x',
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x27, 0x10, /* session_lifetime_ms 10000 */
    };
    static const uint8_t v2[] = {
        0x00, 0x3a, 0x04, 'b', 'a', 'd', 0x04, 'e', '=', 'x',
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x27, 0x10, 0x00, /* tags */
    };
    wire_sasl_authenticate_response p = {58, test_slice("bad"), test_slice("e=x"), 10000};
    wire_sasl_authenticate_response p0 = p;
    p0.session_lifetime_ms = 0; /* v0 lacks it: decodes as the default */
    CHECK_GOLDEN(wire_sasl_authenticate_response, 0, &p, p0, v0, sizeof v0, cmp_au_resp);
    CHECK_GOLDEN(wire_sasl_authenticate_response, 1, &p, p, v1, sizeof v1, cmp_au_resp);
    CHECK_GOLDEN(wire_sasl_authenticate_response, 2, &p, p, v2, sizeof v2, cmp_au_resp);
    CHECK_ROUND_TRIP(wire_sasl_authenticate_response, 0, &p, p0, cmp_au_resp, 40u);
    for (int16_t v = 1; v <= 2; v++)
        CHECK_ROUND_TRIP(wire_sasl_authenticate_response, v, &p, p, cmp_au_resp, 40u + (uint32_t)v);
}

/* Success: null error message, server-final bytes. */
static void test_authenticate_response_null_message(void **state)
{
    (void)state;
    static const uint8_t v0[] = {0x00, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x02, 'v', '='};
    static const uint8_t v2[] = {0x00, 0x00, 0x00, 0x03, 'v', '=',
                                 0, 0, 0, 0, 0, 0, 0, 0, 0x00};
    wire_sasl_authenticate_response p = {0, HARNESS_NULL, test_slice("v="), 0};
    CHECK_GOLDEN(wire_sasl_authenticate_response, 0, &p, p, v0, sizeof v0, cmp_au_resp);
    CHECK_GOLDEN(wire_sasl_authenticate_response, 2, &p, p, v2, sizeof v2, cmp_au_resp);
}

static void test_bad_versions_and_null_bytes(void **state)
{
    (void)state;
    static const uint8_t req[] = {0x00, 0x00, 0x00, 0x00};
    kq_reader r;
    wire_sasl_authenticate_request q;
    wire_sasl_handshake_request h;
    kq_reader_init(&r, req, sizeof req);
    assert_int_equal(wire_sasl_authenticate_request_decode(&r, 3, NULL, &q), -1);
    kq_reader_init(&r, req, sizeof req);
    assert_int_equal(wire_sasl_authenticate_request_decode(&r, -1, NULL, &q), -1);
    kq_reader_init(&r, req, sizeof req);
    assert_int_equal(wire_sasl_handshake_request_decode(&r, 2, NULL, &h), -1);
    /* null AuthBytes: int32 -1 (v0) and compact 0 (v2) */
    static const uint8_t null_v0[] = {0xff, 0xff, 0xff, 0xff};
    static const uint8_t null_v2[] = {0x00, 0x00};
    kq_reader_init(&r, null_v0, sizeof null_v0);
    assert_int_equal(wire_sasl_authenticate_request_decode(&r, 0, NULL, &q), -1);
    kq_reader_init(&r, null_v2, sizeof null_v2);
    assert_int_equal(wire_sasl_authenticate_request_decode(&r, 2, NULL, &q), -1);
    kq_writer w;
    kq_writer_init(&w, 1024);
    wire_sasl_authenticate_request_encode(&w, 3, &q);
    assert_true(w.error);
    kq_writer_free(&w);
}

static void test_api_table(void **state)
{
    (void)state;
    assert_false(wire_api_flexible(WIRE_API_SASL_HANDSHAKE, 0));
    assert_false(wire_api_flexible(WIRE_API_SASL_HANDSHAKE, 1));
    assert_false(wire_api_flexible(WIRE_API_SASL_AUTHENTICATE, 1));
    assert_true(wire_api_flexible(WIRE_API_SASL_AUTHENTICATE, 2));
    assert_string_equal(wire_api_name(WIRE_API_SASL_HANDSHAKE), "SaslHandshake");
    assert_string_equal(wire_api_name(WIRE_API_SASL_AUTHENTICATE), "SaslAuthenticate");
    /* advertised (as Kafka does on every listener): v0-1 and v0-2 */
    assert_true(wire_api_accepted(WIRE_API_SASL_HANDSHAKE, 1));
    assert_false(wire_api_accepted(WIRE_API_SASL_HANDSHAKE, 2));
    assert_true(wire_api_accepted(WIRE_API_SASL_AUTHENTICATE, 2));
    assert_false(wire_api_accepted(WIRE_API_SASL_AUTHENTICATE, 3));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_handshake_golden),
        cmocka_unit_test(test_handshake_error_empty),
        cmocka_unit_test(test_authenticate_request_golden),
        cmocka_unit_test(test_authenticate_response_golden),
        cmocka_unit_test(test_authenticate_response_null_message),
        cmocka_unit_test(test_bad_versions_and_null_bytes),
        cmocka_unit_test(test_api_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
