/* SaslHandshake (key 17) v0-1, never flexible, and SaslAuthenticate (key 36)
 * v0-2, flexible from v2 (KIP-152: v1 handshakes are followed by
 * SaslAuthenticate requests carrying the mechanism's tokens). The mechanism
 * itself lives in include/kq/auth.h. */
#ifndef KQ_WIRE_SASL_H
#define KQ_WIRE_SASL_H

#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"

#define WIRE_SASL_HANDSHAKE_MIN_VERSION 0
#define WIRE_SASL_HANDSHAKE_MAX_VERSION 1
#define WIRE_SASL_AUTHENTICATE_MIN_VERSION 0
#define WIRE_SASL_AUTHENTICATE_MAX_VERSION 2

#define WIRE_SASL_HANDSHAKE_REQUEST(S) \
    WF(S, STRING, mechanism, 0, WL) /* e.g. "SCRAM-SHA-256" */
WIRE_STRUCT(wire_sasl_handshake_request, WIRE_SASL_HANDSHAKE_REQUEST)

/* mechanisms: those enabled on this listener */
#define WIRE_SASL_HANDSHAKE_RESPONSE(S) \
    WF(S, I16, error_code, 0, WL)       \
    WAKC(S, STRING, mechanisms, mechanism_count, 0, WL)
WIRE_STRUCT(wire_sasl_handshake_response, WIRE_SASL_HANDSHAKE_RESPONSE)

/* auth_bytes: the mechanism's token; never null on the wire (a null slice
 * is written as empty bytes) */
#define WIRE_SASL_AUTHENTICATE_REQUEST(S) \
    WF(S, BYTES, auth_bytes, 0, WL)
WIRE_STRUCT(wire_sasl_authenticate_request, WIRE_SASL_AUTHENTICATE_REQUEST)

/* session_lifetime_ms 0: no re-authentication */
#define WIRE_SASL_AUTHENTICATE_RESPONSE(S)                    \
    WF(S, I16, error_code, 0, WL)                             \
    WF(S, STRING, error_message, 0, WL, WIRE_NULLABLE(0))     \
    WF(S, BYTES, auth_bytes, 0, WL)                           \
    WF(S, I64, session_lifetime_ms, 1, WL)
WIRE_STRUCT(wire_sasl_authenticate_response, WIRE_SASL_AUTHENTICATE_RESPONSE)

/* Return 0, or -1 on malformed input or a version outside the range;
 * encoders set w->error for a version outside it. Strings and bytes are
 * borrowed from the input, arrays taken from arena. */
int wire_sasl_handshake_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                       wire_sasl_handshake_request *out);
void wire_sasl_handshake_request_encode(kq_writer *w, int16_t version,
                                        const wire_sasl_handshake_request *in);
int wire_sasl_handshake_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                        wire_sasl_handshake_response *out);
void wire_sasl_handshake_response_encode(kq_writer *w, int16_t version,
                                         const wire_sasl_handshake_response *in);

int wire_sasl_authenticate_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                          wire_sasl_authenticate_request *out);
void wire_sasl_authenticate_request_encode(kq_writer *w, int16_t version,
                                           const wire_sasl_authenticate_request *in);
int wire_sasl_authenticate_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                           wire_sasl_authenticate_response *out);
void wire_sasl_authenticate_response_encode(kq_writer *w, int16_t version,
                                            const wire_sasl_authenticate_response *in);

#endif
