/* SaslHandshake (key 17) v0-1, never flexible, and SaslAuthenticate (key 36)
 * v0-2, flexible from v2 (KIP-152: v1 handshakes are followed by
 * SaslAuthenticate requests carrying the mechanism's tokens). The mechanism
 * itself lives in include/kq/auth.h. */
#ifndef KQ_WIRE_SASL_H
#define KQ_WIRE_SASL_H

#include <stdint.h>

#include "kq/buf.h"

typedef struct wire_sasl_handshake_request {
    kq_slice mechanism; /* e.g. "SCRAM-SHA-256"; borrowed from the input */
} wire_sasl_handshake_request;

typedef struct wire_sasl_handshake_response {
    int16_t error_code;
    const kq_slice *mechanisms; /* the mechanisms enabled on this listener */
    int32_t mechanism_count;
} wire_sasl_handshake_response;

typedef struct wire_sasl_authenticate_request {
    kq_slice auth_bytes; /* the mechanism's token; never null */
} wire_sasl_authenticate_request;

typedef struct wire_sasl_authenticate_response {
    int16_t error_code;
    kq_slice error_message;      /* nullable */
    kq_slice auth_bytes;         /* a null slice is written as empty bytes */
    int64_t session_lifetime_ms; /* v1+; default 0 (no re-authentication) */
} wire_sasl_authenticate_response;

/* Return 0, or -1 on malformed input or a version outside the range. */
int wire_sasl_handshake_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                       wire_sasl_handshake_request *out);
void wire_sasl_handshake_request_encode(kq_writer *w, int16_t version,
                                        const wire_sasl_handshake_request *in);
/* Decoded mechanisms are allocated from arena. */
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
