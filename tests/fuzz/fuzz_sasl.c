/* Fuzz target: the SASL server exchanges (include/kq/auth.h) and the
 * credentials file parser, on bytes a client or an operator controls.
 * Input: a first byte choosing the mechanism (0 PLAIN, 1 SCRAM-SHA-256,
 * 2 SCRAM-SHA-512) or, for any other value, the credentials-file parser
 * on the rest; then up to four tokens, each a 2-byte big-endian length and
 * that many bytes, fed to one session in turn.
 * Properties: no crash or UB; a success names the one user there is
 * ("User:alice"), only after the exchange's last step; a failure or a
 * finished exchange refuses every later token; replies fit their buffer. */
#include <string.h>

#include "fuzz.h"
#include "kq/auth.h"

#define TOKENS_MAX 4

static const kq_cred_store *store(void)
{
    static kq_cred_store *s;
    if (s)
        return s;
    kq_scram_credential c[KQ_SCRAM_HASH_COUNT];
    memset(c, 0, sizeof c);
    static const uint8_t salt[16] = "fuzz-salt-16byte";
    FUZZ_CHECK(kq_scram_credential_derive(KQ_SCRAM_SHA_256, (const uint8_t *)"pw", 2, salt,
                                          sizeof salt, 4096, &c[0]) == 0 &&
                   kq_scram_credential_derive(KQ_SCRAM_SHA_512, (const uint8_t *)"pw", 2, salt,
                                              sizeof salt, 4096, &c[1]) == 0,
               "the fuzz credential derives");
    char line[AUTH_CRED_LINE_BYTES_MAX];
    FUZZ_CHECK(kq_cred_line_format("alice", c, line, sizeof line) > 0, "it formats");
    char err[256];
    FUZZ_CHECK(kq_cred_store_parse("fuzz", line, strlen(line), &s, err, sizeof err) == 0,
               "it parses back");
    return s;
}

static void run_session(enum kq_sasl_mech mech, const uint8_t *data, size_t size)
{
    kq_sasl_session s;
    kq_sasl_session_init(&s, store(), mech);
    bool over = false;
    for (int t = 0; t < TOKENS_MAX && size >= 2; t++) {
        size_t len = (size_t)data[0] << 8 | data[1];
        data += 2;
        size -= 2;
        if (len > size)
            len = size;
        kq_sasl_output out;
        kq_sasl_status st = kq_sasl_session_step(&s, data, len, &out);
        data += len;
        size -= len;
        FUZZ_CHECK(out.len <= sizeof out.bytes, "the reply fits");
        FUZZ_CHECK(!over || st == KQ_SASL_FAILURE, "nothing is taken after the end");
        if (st == KQ_SASL_SUCCESS)
            FUZZ_CHECK(strcmp(out.principal, "User:alice") == 0, "success names alice");
        over = over || st != KQ_SASL_CONTINUE;
    }
    kq_sasl_session_clear(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0 || size > FUZZ_FILE_INPUT_BYTES_MAX)
        return 0;
    if (data[0] <= 2) {
        run_session((enum kq_sasl_mech)data[0], data + 1, size - 1);
        return 0;
    }
    kq_cred_store *s = NULL;
    char err[256];
    if (kq_cred_store_parse("fuzz", (const char *)data + 1, size - 1, &s, err, sizeof err) == 0)
        kq_cred_store_free(s);
    return 0;
}
