/* Strict base64 over OpenSSL's block coder: EVP_DecodeBlock accepts
 * sloppy input, so the shape is checked first and the result re-encoded. */
#include <string.h>

#include <openssl/evp.h>

#include "auth_internal.h"
#include "kq/assert.h"

size_t auth_b64_encode(const uint8_t *in, size_t n, char *out, size_t out_bytes)
{
    if (n == 0 || n > (size_t)INT32_MAX / 2 || AUTH_B64_BYTES(n) + 1 > out_bytes)
        return 0;
    int len = EVP_EncodeBlock((unsigned char *)out, in, (int)n);
    KQ_ASSERT(len >= 0 && (size_t)len == AUTH_B64_BYTES(n));
    return (size_t)len;
}

static bool b64_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '+' || c == '/';
}

/* Length multiple of 4, alphabet only, at most two '=' and only at the end.
 * Returns the number of padding characters, or -1. */
static int b64_shape(const char *in, size_t n)
{
    if (n == 0 || n % 4 != 0)
        return -1;
    int pad = 0;
    if (in[n - 1] == '=')
        pad = in[n - 2] == '=' ? 2 : 1;
    for (size_t i = 0; i < n - (size_t)pad; i++)
        if (!b64_char(in[i]))
            return -1;
    return pad;
}

int auth_b64_decode(const char *in, size_t n, uint8_t *out, size_t out_bytes, size_t *out_len)
{
    if (n > AUTH_SCRAM_MESSAGE_BYTES_MAX * 2)
        return -1;
    int pad = b64_shape(in, n);
    if (pad < 0)
        return -1;
    size_t len = n / 4 * 3 - (size_t)pad;
    uint8_t tmp[AUTH_SCRAM_MESSAGE_BYTES_MAX * 2 / 4 * 3];
    char back[AUTH_SCRAM_MESSAGE_BYTES_MAX * 2 + 1];
    if (len > out_bytes || EVP_DecodeBlock(tmp, (const unsigned char *)in, (int)n) < 0)
        return -1;
    /* canonical: the re-encoding gives the input back (no stray low bits) */
    if (auth_b64_encode(tmp, len, back, sizeof back) != n || memcmp(back, in, n) != 0)
        return -1;
    memcpy(out, tmp, len);
    *out_len = len;
    return 0;
}
