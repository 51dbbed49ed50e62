/* One connection's SASL exchange, whatever the mechanism. */
#include <string.h>

#include <openssl/crypto.h>

#include "auth_internal.h"

void kq_sasl_session_init(kq_sasl_session *s, const kq_cred_store *store, enum kq_sasl_mech mech)
{
    memset(s, 0, sizeof *s);
    s->mech = mech;
    s->store = store;
    if (mech != KQ_SASL_PLAIN)
        kq_scram_server_init(&s->scram, store,
                             mech == KQ_SASL_SCRAM_SHA_512 ? KQ_SCRAM_SHA_512 : KQ_SCRAM_SHA_256);
}

kq_sasl_status kq_sasl_session_step(kq_sasl_session *s, const uint8_t *in, size_t in_bytes,
                                    kq_sasl_output *out)
{
    kq_sasl_status st;
    if (s->finished) {
        auth_output_reset(out);
        auth_set_reason(out, "%s: token after the exchange finished", kq_sasl_mech_name(s->mech));
        return KQ_SASL_FAILURE;
    }
    if (s->mech == KQ_SASL_PLAIN)
        st = kq_sasl_plain_authenticate(s->store, in, in_bytes, out);
    else
        st = kq_scram_server_step(&s->scram, in, in_bytes, out);
    s->finished = st != KQ_SASL_CONTINUE;
    return st;
}

void kq_sasl_session_clear(kq_sasl_session *s)
{
    OPENSSL_cleanse(s, sizeof *s);
}
