/* Names valid in the credentials file and the line kq-scram-credential
 * prints for a user. */
#include <stdio.h>
#include <string.h>

#include "auth_internal.h"

bool auth_username_valid(const char *name, size_t n)
{
    if (n == 0 || n > AUTH_USERNAME_BYTES_MAX || name[0] == '#')
        return false;
    /* printable ASCII without blanks: SASLprep (RFC 4013) maps none of it */
    for (size_t i = 0; i < n; i++)
        if (name[i] < 0x21 || name[i] > 0x7e)
            return false;
    return true;
}

/* Appends " SCRAM-SHA-xxx=salt=..,stored_key=..,server_key=..,iterations=N". */
static int format_mech(enum kq_scram_hash hash, const kq_scram_credential *c, char *out,
                       size_t out_bytes)
{
    char salt[AUTH_B64_BYTES(AUTH_SALT_BYTES_MAX) + 1];
    char stored[AUTH_B64_BYTES(AUTH_HASH_BYTES_MAX) + 1];
    char server[AUTH_B64_BYTES(AUTH_HASH_BYTES_MAX) + 1];
    size_t h = kq_scram_hash_bytes(hash);
    if (c->salt_bytes < AUTH_SALT_BYTES_MIN || c->salt_bytes > AUTH_SALT_BYTES_MAX ||
        c->iterations < AUTH_SCRAM_ITERATIONS_MIN || c->iterations > AUTH_SCRAM_ITERATIONS_MAX ||
        !auth_b64_encode(c->salt, c->salt_bytes, salt, sizeof salt) ||
        !auth_b64_encode(c->stored_key, h, stored, sizeof stored) ||
        !auth_b64_encode(c->server_key, h, server, sizeof server))
        return -1;
    int n = snprintf(out, out_bytes, " %s=salt=%s,stored_key=%s,server_key=%s,iterations=%u",
                     kq_scram_hash_name(hash), salt, stored, server, (unsigned)c->iterations);
    return n < 0 || (size_t)n >= out_bytes ? -1 : n;
}

int kq_cred_line_format(const char *user, const kq_scram_credential creds[KQ_SCRAM_HASH_COUNT],
                        char *out, size_t out_bytes)
{
    size_t ul = strlen(user), len = ul;
    bool any = false;
    if (!auth_username_valid(user, ul) || ul >= out_bytes)
        return -1;
    memcpy(out, user, ul + 1);
    for (int h = 0; h < KQ_SCRAM_HASH_COUNT; h++) {
        if (!creds[h].present)
            continue;
        int n = format_mech((enum kq_scram_hash)h, &creds[h], out + len, out_bytes - len);
        if (n < 0)
            return -1;
        len += (size_t)n;
        any = true;
    }
    return any ? (int)len : -1;
}
