/* The SCRAM functions of RFC 5802 section 3 over OpenSSL (HMAC, EVP_Digest,
 * PKCS5_PBKDF2_HMAC) and the derivation of stored credentials. */
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "auth_internal.h"
#include "kq/assert.h"

static const EVP_MD *md_of(enum kq_scram_hash hash)
{
    KQ_ASSERT(hash == KQ_SCRAM_SHA_256 || hash == KQ_SCRAM_SHA_512);
    return hash == KQ_SCRAM_SHA_256 ? EVP_sha256() : EVP_sha512();
}

const char *kq_scram_hash_name(enum kq_scram_hash hash)
{
    return hash == KQ_SCRAM_SHA_512 ? "SCRAM-SHA-512" : "SCRAM-SHA-256";
}

size_t kq_scram_hash_bytes(enum kq_scram_hash hash)
{
    return hash == KQ_SCRAM_SHA_512 ? 64 : 32;
}

int auth_hmac(enum kq_scram_hash hash, const uint8_t *key, size_t key_bytes, const void *data,
              size_t data_bytes, uint8_t *out)
{
    unsigned int len = 0;
    if (key_bytes > INT32_MAX ||
        !HMAC(md_of(hash), key, (int)key_bytes, data, data_bytes, out, &len))
        return -1;
    return len == kq_scram_hash_bytes(hash) ? 0 : -1;
}

int auth_digest(enum kq_scram_hash hash, const void *data, size_t data_bytes, uint8_t *out)
{
    unsigned int len = 0;
    if (!EVP_Digest(data, data_bytes, out, &len, md_of(hash), NULL))
        return -1;
    return len == kq_scram_hash_bytes(hash) ? 0 : -1;
}

int auth_salted_password(enum kq_scram_hash hash, const uint8_t *password, size_t password_bytes,
                         const uint8_t *salt, size_t salt_bytes, uint32_t iterations,
                         uint8_t *out)
{
    if (password_bytes > AUTH_PASSWORD_BYTES_MAX || salt_bytes > AUTH_SALT_BYTES_MAX ||
        iterations < AUTH_SCRAM_ITERATIONS_MIN || iterations > AUTH_SCRAM_ITERATIONS_MAX)
        return -1;
    /* Hi() is PBKDF2 with HMAC-H and dkLen = the hash length (RFC 5802 section 2.2) */
    int ok = PKCS5_PBKDF2_HMAC((const char *)password, (int)password_bytes, salt,
                               (int)salt_bytes, (int)iterations, md_of(hash),
                               (int)kq_scram_hash_bytes(hash), out);
    return ok == 1 ? 0 : -1;
}

int auth_client_key(enum kq_scram_hash hash, const uint8_t *salted, uint8_t *out)
{
    return auth_hmac(hash, salted, kq_scram_hash_bytes(hash), "Client Key", 10, out);
}

int kq_scram_credential_derive(enum kq_scram_hash hash, const uint8_t *password,
                               size_t password_bytes, const uint8_t *salt, size_t salt_bytes,
                               uint32_t iterations, kq_scram_credential *out)
{
    memset(out, 0, sizeof *out);
    if ((hash != KQ_SCRAM_SHA_256 && hash != KQ_SCRAM_SHA_512) ||
        salt_bytes < AUTH_SALT_BYTES_MIN || salt_bytes > AUTH_SALT_BYTES_MAX)
        return -1;
    size_t h = kq_scram_hash_bytes(hash);
    uint8_t salted[AUTH_HASH_BYTES_MAX], client_key[AUTH_HASH_BYTES_MAX];
    int rc = -1;
    if (auth_salted_password(hash, password, password_bytes, salt, salt_bytes, iterations,
                             salted) == 0 &&
        auth_client_key(hash, salted, client_key) == 0 &&
        auth_digest(hash, client_key, h, out->stored_key) == 0 &&
        auth_hmac(hash, salted, h, "Server Key", 10, out->server_key) == 0)
        rc = 0;
    OPENSSL_cleanse(salted, sizeof salted);
    OPENSSL_cleanse(client_key, sizeof client_key);
    if (rc != 0) {
        memset(out, 0, sizeof *out);
        return -1;
    }
    memcpy(out->salt, salt, salt_bytes);
    out->salt_bytes = salt_bytes;
    out->iterations = iterations;
    out->present = true;
    return 0;
}

int kq_scram_credential_new(enum kq_scram_hash hash, const uint8_t *password,
                            size_t password_bytes, uint32_t iterations,
                            kq_scram_credential *out)
{
    uint8_t salt[AUTH_SALT_BYTES_DEFAULT];
    memset(out, 0, sizeof *out);
    if (RAND_bytes(salt, (int)sizeof salt) != 1)
        return -1;
    return kq_scram_credential_derive(hash, password, password_bytes, salt, sizeof salt,
                                      iterations, out);
}
