/* SASL on SASL_PLAINTEXT and SASL_SSL listeners (issue 9, KIP-43, KIP-152):
 * SaslHandshake v0-1 picks the mechanism, then the tokens travel in
 * SaslAuthenticate v0-2 (after a v1 handshake) or raw, size-prefixed (after
 * a v0 handshake, as pre-1.0 clients do). Until it authenticates, a
 * connection gets only ApiVersions and the SASL APIs; anything else closes
 * it. A failed exchange is answered with SASL_AUTHENTICATION_FAILED and the
 * connection closes at its next frame. The exchanges themselves are
 * src/auth's; this file is the connection state and the wire; the bounds
 * on pending handshakes and the delay of failed logins are sasl_limits.c's
 * (issue 19). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/assert.h"
#include "kq/log_line.h"
#include "kq/wire_sasl.h"
#include "sasl_internal.h"

static const char *const mech_names[] = {"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"};

void handler_get_conn(handler *h, void *slot, handler_conn *out)
{
    *out = (handler_conn){.quorum_listener = true, .voter_id = -1};
    if (h->svc.slot_conn)
        h->svc.slot_conn(h->svc.ctx, slot, out);
    const handler_sasl *s = out->session ? *out->session : NULL;
    if (out->sasl_listener && s && s->state == SASL_AUTHENTICATED)
        out->principal = s->principal; /* SASL's name, as Kafka's SASL_SSL */
}

void handler_conn_closed(handler *h, void *session)
{
    handler_sasl *s = session;
    if (!s)
        return;
    if (s->state == SASL_MECH_CHOSEN)
        sasl_end_exchange(h, s, SASL_FAILED);
    free(s);
    KQ_ASSERT(h->sasl_sessions > 0);
    h->sasl_sessions--;
}

/* What a SASL listener lets through before authentication; false: the
 * frame was answered (or the connection closed) here. */
bool handler_sasl_gate(handler *h, handler_request *req, const handler_conn *conn)
{
    if (!conn->sasl_listener)
        return true;
    handler_sasl *s = conn->session ? *conn->session : NULL;
    int16_t key = req->header.api_key;
    if (s && s->state == SASL_FAILED) {
        h->svc.reply_close(h->svc.ctx, req->slot, "SASL authentication failed");
        return false;
    }
    if ((s && s->state == SASL_AUTHENTICATED) || key == WIRE_API_API_VERSIONS ||
        key == WIRE_API_SASL_HANDSHAKE || key == WIRE_API_SASL_AUTHENTICATE)
        return true;
    LOG_LINE_LIMITED("request from %s: %s before SASL authentication; closing",
             h->svc.slot_peer(h->svc.ctx, req->slot), wire_api_name(key));
    h->svc.reply_close(h->svc.ctx, req->slot, "request before SASL authentication");
    return false;
}

static int16_t handshake_error(handler *h, const handler_conn *conn, kq_slice name,
                               enum kq_sasl_mech *mech)
{
    if (!conn->sasl_listener || !conn->session || !h->svc.sasl_credentials)
        return KAFKA_ILLEGAL_SASL_STATE; /* not a SASL listener */
    if (*conn->session)
        return KAFKA_ILLEGAL_SASL_STATE; /* one handshake per connection (no re-auth) */
    if (kq_sasl_mech_parse(name, mech) != 0 || !(conn->sasl_mechanisms & (1u << *mech)))
        return KAFKA_UNSUPPORTED_SASL_MECHANISM;
    return KAFKA_NONE;
}

void sasl_end_exchange(handler *h, handler_sasl *s, enum sasl_state state)
{
    KQ_ASSERT(s->state == SASL_MECH_CHOSEN && state != SASL_MECH_CHOSEN);
    s->state = state;
    sasl_pending_remove(h, s);
    if (s->session) {
        kq_sasl_session_clear(s->session); /* no keys kept past the exchange */
        free(s->session);
        s->session = NULL;
    }
}

void handle_sasl_handshake(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_sasl_handshake_request body;
    if (wire_sasl_handshake_request_decode(r, v, &h->arena, &body) != 0) {
        h->svc.reply_close(h->svc.ctx, req->slot, "malformed SaslHandshake request");
        return;
    }
    handler_conn conn;
    handler_get_conn(h, req->slot, &conn);
    enum kq_sasl_mech mech = KQ_SASL_PLAIN;
    int16_t err = handshake_error(h, &conn, body.mechanism, &mech);
    kq_slice names[3];
    int32_t n = 0;
    for (int m = 0; m < 3; m++)
        if (conn.sasl_mechanisms & (1u << m))
            names[n++] = kq_slice_cstr(mech_names[m]);
    if (err == KAFKA_NONE) {
        handler_sasl *s = calloc(1, sizeof(*s));
        KQ_ASSERT(s);
        s->session = malloc(sizeof *s->session);
        KQ_ASSERT(s->session);
        s->state = SASL_MECH_CHOSEN;
        s->raw_tokens = v == 0;
        s->pending = -1;
        kq_sasl_session_init(s->session, h->svc.sasl_credentials, mech);
        *conn.session = s;
        s->cell = conn.session;
        h->sasl_sessions++;
        sasl_pending_add(h, s, h->svc.slot_peer(h->svc.ctx, req->slot));
    } else {
        LOG_LINE_LIMITED("request from %s: SaslHandshake for %.*s refused (error %d)",
                 h->svc.slot_peer(h->svc.ctx, req->slot),
                 body.mechanism.len > 0 ? (int)(body.mechanism.len > 64 ? 64 : body.mechanism.len) : 0,
                 body.mechanism.len > 0 ? (const char *)body.mechanism.ptr : "", err);
    }
    wire_sasl_handshake_response resp = {.error_code = err, .mechanisms = names,
                                         .mechanism_count = n};
    handler_begin_response(h, &req->header);
    wire_sasl_handshake_response_encode(&h->out, v, &resp);
    handler_finish_response(h, req->slot);
}

/* One token through the session: the state moves on; out holds the reply. */
static kq_sasl_status sasl_step(handler *h, void *slot, handler_sasl *s, const uint8_t *in,
                                size_t len, kq_sasl_output *out)
{
    enum kq_sasl_mech mech = s->session->mech;
    kq_sasl_status st = kq_sasl_session_step(s->session, in, len, out);
    if (st == KQ_SASL_SUCCESS) {
        snprintf(s->principal, sizeof(s->principal), "%s", out->principal);
        sasl_end_exchange(h, s, SASL_AUTHENTICATED);
        if (h->svc.slot_authenticated)
            h->svc.slot_authenticated(h->svc.ctx, slot);
    } else if (st == KQ_SASL_FAILURE) {
        sasl_end_exchange(h, s, SASL_FAILED);
        LOG_LINE_LIMITED("request from %s: SASL %s authentication failed: %s",
                 h->svc.slot_peer(h->svc.ctx, slot), kq_sasl_mech_name(mech), out->reason);
    }
    return st;
}

void handle_sasl_authenticate(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_sasl_authenticate_request body;
    if (wire_sasl_authenticate_request_decode(r, v, &h->arena, &body) != 0) {
        h->svc.reply_close(h->svc.ctx, req->slot, "malformed SaslAuthenticate request");
        return;
    }
    handler_conn conn;
    handler_get_conn(h, req->slot, &conn);
    handler_sasl *s = conn.sasl_listener && conn.session ? *conn.session : NULL;
    wire_sasl_authenticate_response resp = {.error_message = {NULL, -1},
                                            .auth_bytes = {(const uint8_t *)"", 0}};
    kq_sasl_output *out = kq_arena_alloc(&h->arena, sizeof(*out));
    if (!out) {
        h->svc.reply_close(h->svc.ctx, req->slot, "out of memory");
        return;
    }
    bool failed = false;
    if (!s || s->state != SASL_MECH_CHOSEN || s->raw_tokens) {
        resp.error_code = KAFKA_ILLEGAL_SASL_STATE;
        resp.error_message = kq_slice_cstr(s && s->state == SASL_FAILED
                                               ? "SASL handshake expired or evicted"
                                               : "SaslAuthenticate without a SaslHandshake v1 first");
    } else {
        enum kq_sasl_mech mech = s->session->mech;
        if (sasl_step(h, req->slot, s, body.auth_bytes.ptr, (size_t)body.auth_bytes.len, out) ==
            KQ_SASL_FAILURE) {
            failed = true;
            resp.error_code = KAFKA_SASL_AUTHENTICATION_FAILED;
            resp.error_message = kq_slice_cstr(kq_sasl_failure_message(mech));
        } else {
            resp.auth_bytes = (kq_slice){out->bytes, (int32_t)out->len};
        }
    }
    handler_begin_response(h, &req->header);
    wire_sasl_authenticate_response_encode(&h->out, v, &resp);
    /* A failed login is answered late (KIP-306), when it can be held. */
    if (failed && !h->out.error && h->out.len >= 4 &&
        sasl_delay_failure(h, req->slot, h->out.data + 4, h->out.len - 4, false))
        return;
    handler_finish_response(h, req->slot);
}

bool handler_sasl_raw_token(handler *h, void *slot, const uint8_t *frame, size_t len)
{
    handler_conn conn;
    handler_get_conn(h, slot, &conn);
    handler_sasl *s = conn.sasl_listener && conn.session ? *conn.session : NULL;
    if (!s || !s->raw_tokens || s->state != SASL_MECH_CHOSEN)
        return false;
    kq_sasl_output out;
    if (sasl_step(h, slot, s, frame, len, &out) == KQ_SASL_FAILURE) {
        if (!sasl_delay_failure(h, slot, NULL, 0, true))
            h->svc.reply_close(h->svc.ctx, slot, "SASL authentication failed");
        return true;
    }
    h->svc.reply(h->svc.ctx, slot, out.bytes, out.len); /* raw: no Kafka header */
    return true;
}
