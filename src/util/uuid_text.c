/* Kafka's Uuid text form and directory ids (kq/uuid.h). */
#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include "kq/assert.h"
#include "kq/uuid.h"

static const char b64url[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

void kq_uuid_to_string(const kq_uuid *u, char *out, size_t out_len)
{
    KQ_ASSERT(out_len > KQ_UUID_TEXT_BYTES);
    size_t o = 0;
    for (int i = 0; i < 16; i += 3) {
        uint32_t v = (uint32_t)u->bytes[i] << 16;
        if (i + 1 < 16)
            v |= (uint32_t)u->bytes[i + 1] << 8;
        if (i + 2 < 16)
            v |= u->bytes[i + 2];
        out[o++] = b64url[(v >> 18) & 63];
        out[o++] = b64url[(v >> 12) & 63];
        if (i + 1 < 16)
            out[o++] = b64url[(v >> 6) & 63];
        if (i + 2 < 16)
            out[o++] = b64url[v & 63];
    }
    out[o] = '\0';
}

int kq_uuid_from_string(const char *s, size_t len, kq_uuid *out)
{
    if (len != KQ_UUID_TEXT_BYTES)
        return -EINVAL;
    for (size_t i = 0; i < len; i++)
        if (!s[i] || !strchr(b64url, s[i]))
            return -EINVAL;
    size_t o = 0;
    for (size_t i = 0; i < len; i += 4) {
        uint32_t v = 0;
        size_t n = len - i < 4 ? len - i : 4;
        for (size_t k = 0; k < 4; k++)
            v = (v << 6) | (k < n ? (uint32_t)(strchr(b64url, s[i + k]) - b64url) : 0);
        for (size_t k = 0; k + 1 < n; k++)
            out->bytes[o++] = (uint8_t)(v >> (16 - 8 * k));
    }
    KQ_ASSERT(o == 16);
    /* Only the canonical text (the last character's low 4 bits zero). */
    char back[KQ_UUID_TEXT_BYTES + 1];
    kq_uuid_to_string(out, back, sizeof back);
    return memcmp(back, s, len) == 0 ? 0 : -EINVAL;
}

bool kq_uuid_reserved_directory(const kq_uuid *u)
{
    for (int i = 0; i < 15; i++)
        if (u->bytes[i])
            return false;
    return u->bytes[15] < 100;
}

int kq_uuid_random(kq_uuid *out)
{
    for (;;) {
        size_t got = 0;
        while (got < sizeof out->bytes) {
            ssize_t n = getrandom(out->bytes + got, sizeof out->bytes - got, 0);
            if (n < 0 && errno != EINTR)
                return -errno;
            if (n > 0)
                got += (size_t)n;
        }
        out->bytes[6] = (uint8_t)((out->bytes[6] & 0x0f) | 0x40); /* version 4 */
        out->bytes[8] = (uint8_t)((out->bytes[8] & 0x3f) | 0x80); /* IETF variant */
        char text[KQ_UUID_TEXT_BYTES + 1];
        kq_uuid_to_string(out, text, sizeof text);
        if (text[0] != '-' && !kq_uuid_reserved_directory(out))
            return 0;
    }
}

bool kq_uuid_is_zero(const kq_uuid *u)
{
    static const kq_uuid zero;
    return memcmp(u, &zero, sizeof zero) == 0;
}
