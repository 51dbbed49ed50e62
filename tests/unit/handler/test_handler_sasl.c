/* SASL through the handlers (issue 9): before authenticating, a connection
 * of a SASL listener gets only ApiVersions and the SASL APIs; SaslHandshake
 * picks an enabled mechanism (else UNSUPPORTED_SASL_MECHANISM with the list);
 * SaslAuthenticate (after v1) or raw tokens (after v0) carry the exchange; a
 * failure is SASL_AUTHENTICATION_FAILED and the connection closes next.
 * Issue 19: pending handshakes are bounded per address and in total, with
 * eviction and expiry, so a flood of handshakes cannot lock out logins; a
 * failed login is answered after connection.failed.authentication.delay.ms,
 * with a bounded number waiting. */
#include "handler_test_node.h"

#include "handler_internal.h"
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

static void handshake_only(tn_node *n, int k)
{
    tn_slot s = {TN_SASL_ID + k};
    wire_sasl_handshake_response hs;
    handshake(n, &s, 1, 1, "PLAIN", &hs);
    assert_int_equal(hs.error_code, KAFKA_NONE);
}

/* The flood: more connections than KQ_SASL_PENDING_MAX, from many
 * addresses, that only send SaslHandshake; a real login still works, and
 * the oldest handshakes of the busiest addresses were the ones evicted. */
static void test_sasl_handshake_flood_cannot_lock_out(void **state)
{
    (void)state;
    tn_sasl_addresses = 40; /* 1100 / 40 < KQ_SASL_PENDING_PER_ADDRESS_MAX each */
    tn_node n;
    tn_open_leader(&n);
    int flood = KQ_SASL_PENDING_MAX + 76;
    for (int k = 0; k < flood; k++) {
        n.now++;
        handshake_only(&n, k);
        assert_true(n.h->sasl_pending_count <= KQ_SASL_PENDING_MAX);
    }
    assert_int_equal(n.h->sasl_pending_count, KQ_SASL_PENDING_MAX);
    /* The evicted connections are closed at once, sending nothing more
     * (issue 19); the others, still pending, stay open. */
    int closed = 0;
    for (int k = 0; k < flood; k++)
        closed += tn_sasl_closed[k];
    assert_int_equal(closed, flood - KQ_SASL_PENDING_MAX);
    assert_true(tn_sasl_closed[0]);
    assert_false(tn_sasl_closed[flood - 1]);
    tn_slot alice = {TN_SASL_ID + flood};
    wire_sasl_handshake_response hs;
    handshake(&n, &alice, 1, 2, "PLAIN", &hs);
    assert_int_equal(hs.error_code, KAFKA_NONE);
    assert_int_equal(authenticate(&n, &alice, 3, "\0alice\0alice-pw", 15), KAFKA_NONE);
    assert_false(tn_sasl_closed[flood]); /* authenticated: never closed */
    /* A transport that still dispatches its login closes it then. */
    tn_slot first = {TN_SASL_ID};
    wire_sasl_authenticate_request req = {{(const uint8_t *)"\0alice\0alice-pw", 15}};
    TN_SEND(&n, &first, WIRE_API_SASL_AUTHENTICATE, 2, 4, wire_sasl_authenticate_request_encode,
            &req);
    assert_int_equal(tn_last(&n, &first)->kind, TN_REPLY_CLOSE);
    tn_close(&n);
    tn_sasl_addresses = 0;
}

/* One address holds at most KQ_SASL_PENDING_PER_ADDRESS_MAX: its own oldest
 * go first, and the others' handshakes are untouched; an unfinished
 * handshake expires after KQ_SASL_HANDSHAKE_TIMEOUT_MS. */
static void test_sasl_pending_per_address_and_expiry(void **state)
{
    (void)state;
    tn_sasl_addresses = 1; /* all from 10.0.0.0 */
    tn_node n;
    tn_open_leader(&n);
    int many = KQ_SASL_PENDING_PER_ADDRESS_MAX + 5;
    for (int k = 0; k < many; k++) {
        n.now++;
        handshake_only(&n, k);
    }
    assert_int_equal(n.h->sasl_pending_count, KQ_SASL_PENDING_PER_ADDRESS_MAX);
    for (int k = 0; k < many; k++) /* the address's oldest were evicted and closed */
        assert_int_equal(tn_sasl_closed[k], k < 5);
    tn_slot last = {TN_SASL_ID + many - 1};
    assert_int_equal(authenticate(&n, &last, 5, "\0alice\0alice-pw", 15), KAFKA_NONE);
    assert_int_equal(n.h->sasl_pending_count, KQ_SASL_PENDING_PER_ADDRESS_MAX - 1);

    int64_t expiry = handler_next_deadline(n.h);
    assert_true(expiry <= n.now + KQ_SASL_HANDSHAKE_TIMEOUT_MS);
    tn_tick(&n, n.now + KQ_SASL_HANDSHAKE_TIMEOUT_MS + 1);
    assert_int_equal(n.h->sasl_pending_count, 0);
    for (int k = 0; k < many; k++) /* expired ones closed on the tick, without a frame */
        assert_int_equal(tn_sasl_closed[k], k != many - 1);
    tn_slot stale = {TN_SASL_ID + many - 2};
    metadata(&n, &stale, 6);
    assert_int_equal(tn_last(&n, &stale)->kind, TN_REPLY_CLOSE);
    /* The authenticated one is not touched by the expiry. */
    metadata(&n, &last, 7);
    assert_int_equal(tn_last(&n, &last)->kind, TN_REPLY);
    tn_close(&n);
    tn_sasl_addresses = 0;
}

/* connection.failed.authentication.delay.ms: the failure is answered only
 * once the delay passed; beyond KQ_SASL_FAILED_DELAYED_MAX waiting, at once. */
static void test_sasl_failed_login_delayed_and_bounded(void **state)
{
    (void)state;
    tn_failed_auth_delay_ms = 100;
    tn_sasl_addresses = 64;
    tn_node n;
    tn_open_leader(&n);
    int tries = KQ_SASL_FAILED_DELAYED_MAX + 3;
    wire_sasl_authenticate_request bad = {{(const uint8_t *)"\0alice\0wrong", 12}};
    static tn_slot slots[KQ_SASL_FAILED_DELAYED_MAX + 3]; /* distinct, outliving the loop */
    for (int k = 0; k < tries; k++) {
        tn_slot *s = &slots[k];
        s->id = TN_SASL_ID + k;
        handshake_only(&n, k);
        TN_SEND(&n, s, WIRE_API_SASL_AUTHENTICATE, 2, 8, wire_sasl_authenticate_request_encode,
                &bad);
        assert_int_equal(tn_count(&n, s), k < KQ_SASL_FAILED_DELAYED_MAX ? 0 : 1);
    }
    assert_int_equal(handler_next_deadline(n.h), n.now + 100);
    tn_tick(&n, n.now + 99);
    assert_int_equal(tn_count(&n, &slots[0]), 0);
    tn_tick(&n, n.now + 1);
    for (int k = 0; k < tries; k++) {
        assert_int_equal(tn_count(&n, &slots[k]), 1);
        wire_sasl_authenticate_response resp;
        TN_DECODE(&n, &slots[k], WIRE_API_SASL_AUTHENTICATE, 2, 8,
                  wire_sasl_authenticate_response_decode, &resp);
        assert_int_equal(resp.error_code, KAFKA_SASL_AUTHENTICATION_FAILED);
    }
    assert_int_equal(n.h->sasl_delayed_count, 0);
    tn_close(&n);
    tn_failed_auth_delay_ms = 0;
    tn_sasl_addresses = 0;
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
        cmocka_unit_test(test_sasl_handshake_flood_cannot_lock_out),
        cmocka_unit_test(test_sasl_pending_per_address_and_expiry),
        cmocka_unit_test(test_sasl_failed_login_delayed_and_bounded),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
