/* SASL through the handlers (issue 9): before authenticating, a connection
 * of a SASL listener gets only ApiVersions and the SASL APIs; SaslHandshake
 * picks an enabled mechanism (else UNSUPPORTED_SASL_MECHANISM with the list);
 * SaslAuthenticate (after v1) or raw tokens (after v0) carry the exchange; a
 * failure is SASL_AUTHENTICATION_FAILED and the connection closes next. */
#include "handler_test_node.h"

#include "kq/auth.h"
#include "kq/wire_metadata.h"
#include "kq/wire_sasl.h"

static void make_store(void)
{
    kq_scram_credential c[KQ_SCRAM_HASH_COUNT];
    memset(c, 0, sizeof c);
    assert_int_equal(kq_scram_credential_new(KQ_SCRAM_SHA_256, (const uint8_t *)"alice-pw", 8,
                                             4096, &c[0]), 0);
    char line[AUTH_CRED_LINE_BYTES_MAX];
    assert_true(kq_cred_line_format("alice", c, line, sizeof line) > 0);
    char err[256];
    assert_int_equal(kq_cred_store_parse("test", line, strlen(line), &tn_sasl_store, err,
                                         sizeof err), 0);
}

static void handshake(tn_node *n, tn_slot *s, int16_t v, int32_t corr, const char *mech,
                      wire_sasl_handshake_response *resp)
{
    wire_sasl_handshake_request req = {kq_slice_cstr(mech)};
    TN_SEND(n, s, WIRE_API_SASL_HANDSHAKE, v, corr, wire_sasl_handshake_request_encode, &req);
    TN_DECODE(n, s, WIRE_API_SASL_HANDSHAKE, v, corr, wire_sasl_handshake_response_decode, resp);
}

static int16_t authenticate(tn_node *n, tn_slot *s, int32_t corr, const char *token, size_t len)
{
    wire_sasl_authenticate_request req = {{(const uint8_t *)token, (int32_t)len}};
    TN_SEND(n, s, WIRE_API_SASL_AUTHENTICATE, 2, corr, wire_sasl_authenticate_request_encode,
            &req);
    wire_sasl_authenticate_response resp;
    TN_DECODE(n, s, WIRE_API_SASL_AUTHENTICATE, 2, corr, wire_sasl_authenticate_response_decode,
              &resp);
    return resp.error_code;
}

static void metadata(tn_node *n, tn_slot *s, int32_t corr)
{
    wire_metadata_request req = {.topics = NULL, .topic_count = -1};
    TN_SEND(n, s, WIRE_API_METADATA, 1, corr, wire_metadata_request_encode, &req);
}

static void test_sasl_gate_and_plain(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s0 = {TN_SASL_ID}, s1 = {TN_SASL_ID + 1}, s2 = {TN_SASL_ID + 2};
    metadata(&n, &s0, 1); /* before authenticating: closed */
    assert_int_equal(tn_last(&n, &s0)->kind, TN_REPLY_CLOSE);

    wire_sasl_handshake_response hs;
    handshake(&n, &s1, 1, 2, "SCRAM-SHA-512", &hs); /* not enabled here */
    assert_int_equal(hs.error_code, KAFKA_UNSUPPORTED_SASL_MECHANISM);
    assert_int_equal(hs.mechanism_count, 2);
    assert_true(kq_slice_eq_cstr(hs.mechanisms[0], "PLAIN"));
    assert_true(kq_slice_eq_cstr(hs.mechanisms[1], "SCRAM-SHA-256"));

    handshake(&n, &s2, 1, 3, "PLAIN", &hs);
    assert_int_equal(hs.error_code, KAFKA_NONE);
    assert_int_equal(authenticate(&n, &s2, 4, "\0alice\0wrong", 12), KAFKA_SASL_AUTHENTICATION_FAILED);
    metadata(&n, &s2, 5); /* failed: closed at the next frame */
    assert_int_equal(tn_last(&n, &s2)->kind, TN_REPLY_CLOSE);

    tn_slot s3 = {TN_SASL_ID + 3};
    assert_int_equal(authenticate(&n, &s3, 6, "\0alice\0alice-pw", 15), KAFKA_ILLEGAL_SASL_STATE);
    handshake(&n, &s3, 1, 7, "PLAIN", &hs);
    assert_int_equal(authenticate(&n, &s3, 8, "\0alice\0alice-pw", 15), KAFKA_NONE);
    handshake(&n, &s3, 1, 9, "PLAIN", &hs); /* once per connection */
    assert_int_equal(hs.error_code, KAFKA_ILLEGAL_SASL_STATE);
    metadata(&n, &s3, 10);
    wire_metadata_response md;
    TN_DECODE(&n, &s3, WIRE_API_METADATA, 1, 10, wire_metadata_response_decode, &md);
    assert_int_equal(md.topic_count, 1);
    tn_close(&n);
}

/* After a v0 handshake the tokens travel raw (size-prefixed, no header). */
static void test_sasl_v0_raw_tokens(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s = {TN_SASL_ID + 4};
    wire_sasl_handshake_response hs;
    handshake(&n, &s, 0, 1, "PLAIN", &hs);
    assert_int_equal(hs.error_code, KAFKA_NONE);
    tn_deliver_raw(&n, &s, (const uint8_t *)"\0alice\0alice-pw", 15);
    const tn_reply *r = tn_last(&n, &s);
    assert_int_equal(r->kind, TN_REPLY);
    assert_int_equal(r->len, 0); /* PLAIN's empty final token */
    metadata(&n, &s, 2);
    wire_metadata_response md;
    TN_DECODE(&n, &s, WIRE_API_METADATA, 1, 2, wire_metadata_response_decode, &md);

    tn_slot bad = {TN_SASL_ID + 5};
    handshake(&n, &bad, 0, 3, "PLAIN", &hs);
    tn_deliver_raw(&n, &bad, (const uint8_t *)"\0alice\0nope", 11);
    assert_int_equal(tn_last(&n, &bad)->kind, TN_REPLY_CLOSE);
    tn_close(&n);
}

static int setup(void **state)
{
    (void)state;
    make_store();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    kq_cred_store_free(tn_sasl_store);
    tn_sasl_store = NULL;
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sasl_gate_and_plain),
        cmocka_unit_test(test_sasl_v0_raw_tokens),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
