/* Fake credentials for unknown users, so that a SCRAM exchange does not
 * reveal which users exist (RFC 5802 section 9: a server should not leak
 * the existence of a user through a distinct reply). The salt is keyed on
 * a random per-process key: stable for a name within the process, unrelated
 * across restarts and unpredictable to a client. */
#include <pthread.h>
#include <string.h>

#include <openssl/rand.h>

#include "auth_internal.h"

static uint8_t fake_key[32];
static int fake_key_rc = -1;
static pthread_once_t fake_key_once = PTHREAD_ONCE_INIT;

static void fake_key_init(void)
{
    fake_key_rc = RAND_bytes(fake_key, (int)sizeof fake_key) == 1 ? 0 : -1;
}

/* HMAC-SHA-256(fake_key, label NUL hash-name NUL user) */
static int fake_mac(const char *label, enum kq_scram_hash hash, const char *user,
                    size_t user_bytes, uint8_t out[32])
{
    char data[64 + AUTH_USERNAME_BYTES_MAX];
    size_t ll = strlen(label), hl = strlen(kq_scram_hash_name(hash));
    if (user_bytes > AUTH_USERNAME_BYTES_MAX || ll + hl + 2 > 64)
        return -1;
    memcpy(data, label, ll + 1);
    memcpy(data + ll + 1, kq_scram_hash_name(hash), hl + 1);
    memcpy(data + ll + hl + 2, user, user_bytes);
    return auth_hmac(KQ_SCRAM_SHA_256, fake_key, sizeof fake_key, data, ll + hl + 2 + user_bytes,
                     out);
}

int auth_fake_credential(enum kq_scram_hash hash, const char *user, size_t user_bytes,
                         kq_scram_credential *out)
{
    memset(out, 0, sizeof *out);
    if (pthread_once(&fake_key_once, fake_key_init) != 0 || fake_key_rc != 0)
        return -1;
    if (fake_mac("salt", hash, user, user_bytes, out->salt) != 0)
        return -1;
    size_t h = kq_scram_hash_bytes(hash);
    if (RAND_bytes(out->stored_key, (int)h) != 1 || RAND_bytes(out->server_key, (int)h) != 1)
        return -1;
    out->salt_bytes = AUTH_SALT_BYTES_DEFAULT;
    out->iterations = AUTH_SCRAM_ITERATIONS_DEFAULT;
    out->present = true;
    return 0;
}
