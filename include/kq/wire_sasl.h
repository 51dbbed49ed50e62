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
#define WIRE_SASL_HANDSHAKE_FLEX_VERSION WL
#define WIRE_SASL_AUTHENTICATE_MIN_VERSION 0
#define WIRE_SASL_AUTHENTICATE_MAX_VERSION 2
#define WIRE_SASL_AUTHENTICATE_FLEX_VERSION 2

#define WIRE_SASL_HANDSHAKE_REQUEST(S) \
    WF(S, STRING, mechanism, 0, WL) /* e.g. "SCRAM-SHA-256" */

/* mechanisms: those enabled on this listener */
#define WIRE_SASL_HANDSHAKE_RESPONSE(S) \
    WF(S, I16, error_code, 0, WL)       \
    WAKC(S, STRING, mechanisms, mechanism_count, 0, WL)

/* auth_bytes: the mechanism's token; never null on the wire (a null slice
 * is written as empty bytes) */
#define WIRE_SASL_AUTHENTICATE_REQUEST(S) \
    WF(S, BYTES, auth_bytes, 0, WL)

/* session_lifetime_ms 0: no re-authentication */
#define WIRE_SASL_AUTHENTICATE_RESPONSE(S)                    \
    WF(S, I16, error_code, 0, WL)                             \
    WF(S, STRING, error_message, 0, WL, WIRE_NULLABLE(0))     \
    WF(S, BYTES, auth_bytes, 0, WL)                           \
    WF(S, I64, session_lifetime_ms, 1, WL)

#define WIRE_SASL_HANDSHAKE_STRUCTS(D, DI) \
    D(wire_sasl_handshake_request, WIRE_SASL_HANDSHAKE_REQUEST) \
    D(wire_sasl_handshake_response, WIRE_SASL_HANDSHAKE_RESPONSE)
WIRE_DECLARE_STRUCTS(WIRE_SASL_HANDSHAKE_STRUCTS)
WIRE_API_FUNCS(wire_sasl_handshake)

#define WIRE_SASL_AUTHENTICATE_STRUCTS(D, DI) \
    D(wire_sasl_authenticate_request, WIRE_SASL_AUTHENTICATE_REQUEST) \
    D(wire_sasl_authenticate_response, WIRE_SASL_AUTHENTICATE_RESPONSE)
WIRE_DECLARE_STRUCTS(WIRE_SASL_AUTHENTICATE_STRUCTS)
WIRE_API_FUNCS(wire_sasl_authenticate)

#endif
