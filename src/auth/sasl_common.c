/* Mechanism names, the client-facing failure message and the output
 * helpers shared by the mechanisms. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "auth_internal.h"
#include "kq/assert.h"

static const char *const mech_names[] = {"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"};

int kq_sasl_mech_parse(kq_slice name, enum kq_sasl_mech *out)
{
    for (size_t i = 0; i < sizeof mech_names / sizeof mech_names[0]; i++) {
        if (kq_slice_eq_cstr(name, mech_names[i])) {
            *out = (enum kq_sasl_mech)i;
            return 0;
        }
    }
    return -1;
}

const char *kq_sasl_mech_name(enum kq_sasl_mech mech)
{
    return (size_t)mech < sizeof mech_names / sizeof mech_names[0] ? mech_names[mech]
                                                                   : "unknown";
}

/* Kafka's wording (SaslAuthenticationException), one text per mechanism. */
const char *kq_sasl_failure_message(enum kq_sasl_mech mech)
{
    switch (mech) {
    case KQ_SASL_PLAIN:
        return "Authentication failed: Invalid username or password";
    case KQ_SASL_SCRAM_SHA_256:
        return "Authentication failed during authentication due to invalid credentials with "
               "SASL mechanism SCRAM-SHA-256";
    case KQ_SASL_SCRAM_SHA_512:
        return "Authentication failed during authentication due to invalid credentials with "
               "SASL mechanism SCRAM-SHA-512";
    }
    return "Authentication failed";
}

void auth_output_reset(kq_sasl_output *out)
{
    out->len = 0;
    out->principal[0] = '\0';
    out->reason[0] = '\0';
}

void auth_set_reason(kq_sasl_output *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->reason, sizeof out->reason, fmt, ap);
    va_end(ap);
}

void auth_set_principal(kq_sasl_output *out, const char *user, size_t user_bytes)
{
    _Static_assert(sizeof out->principal >= 5 + AUTH_USERNAME_BYTES_MAX + 1,
                   "User: and the longest name fit");
    if (user_bytes > AUTH_USERNAME_BYTES_MAX)
        user_bytes = AUTH_USERNAME_BYTES_MAX;
    memcpy(out->principal, "User:", 5);
    memcpy(out->principal + 5, user, user_bytes);
    out->principal[5 + user_bytes] = '\0';
}

void auth_log_name(char *dst, size_t dst_bytes, const char *src, size_t n)
{
    KQ_ASSERT(dst_bytes > 0);
    size_t i = 0;
    for (; i < n && i + 1 < dst_bytes; i++)
        dst[i] = src[i] >= 0x20 && src[i] <= 0x7e ? src[i] : '?';
    dst[i] = '\0';
}
