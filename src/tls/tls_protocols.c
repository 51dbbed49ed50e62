/* ssl.enabled.protocols, ssl.protocol and ssl.cipher.suites onto an SSL_CTX.
 * Kafka names cipher suites as JSSE does, by their IANA names; OpenSSL has
 * its own names, so each listed name is looked up among every cipher this
 * OpenSSL knows (SSL_CIPHER_standard_name). TLS 1.3 suites and older ones
 * are configured apart in OpenSSL (set_ciphersuites / set_cipher_list). */
#include <openssl/err.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "tls_internal.h"

#define PROTOCOL_TLS12 1u
#define PROTOCOL_TLS13 2u
#define NAME_BYTES_MAX 128 /* one list element */

/* Next comma-separated element of *list, trimmed, into name. Returns false
 * at the end; an element too long is returned truncated to "" + flag. */
static bool next_name(const char **list, char *name, size_t cap, bool *too_long)
{
    const char *p = *list;
    while (*p == ' ' || *p == '\t' || *p == ',')
        p++;
    if (!*p)
        return false;
    const char *end = p;
    while (*end && *end != ',')
        end++;
    *list = end;
    while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    size_t n = (size_t)(end - p);
    *too_long = n >= cap;
    if (*too_long)
        n = 0;
    memcpy(name, p, n);
    name[n] = '\0';
    return true;
}

static bool parse_protocols(const kq_tls_settings *s, unsigned *set, char *err, size_t errlen)
{
    const char *key = "ssl.protocol";
    const char *proto = s->protocol;
    if (proto && strcmp(proto, "TLSv1.3") != 0 && strcmp(proto, "TLSv1.2") != 0 &&
        strcmp(proto, "TLS") != 0)
        return tls_fail(err, errlen, key, "unknown or unsupported protocol %s "
                        "(TLSv1.3, TLSv1.2 or TLS)", proto);
    const char *list = s->enabled_protocols;
    if (!list)
        list = proto && strcmp(proto, "TLSv1.2") == 0 ? "TLSv1.2" : "TLSv1.2,TLSv1.3";
    key = "ssl.enabled.protocols";
    char name[NAME_BYTES_MAX];
    bool too_long;
    *set = 0;
    while (next_name(&list, name, sizeof name, &too_long)) {
        if (strcmp(name, "TLSv1.2") == 0)
            *set |= PROTOCOL_TLS12;
        else if (strcmp(name, "TLSv1.3") == 0)
            *set |= PROTOCOL_TLS13;
        else if (!too_long && (strcmp(name, "TLSv1.1") == 0 || strcmp(name, "TLSv1") == 0 ||
                               strcmp(name, "SSLv3") == 0))
            return tls_fail(err, errlen, key, "%s is not supported (TLSv1.2 and TLSv1.3 are)",
                            name);
        else
            return tls_fail(err, errlen, key, "unknown protocol %s", too_long ? "(too long)" : name);
    }
    if (*set == 0)
        return tls_fail(err, errlen, key, "no protocol enabled");
    return true;
}

/* Every cipher this OpenSSL knows, TLS 1.3 ones included. */
static STACK_OF(SSL_CIPHER) *all_ciphers(SSL_CTX *scratch)
{
    if (SSL_CTX_set_cipher_list(scratch, "ALL:COMPLEMENTOFALL:@SECLEVEL=0") != 1 ||
        SSL_CTX_set_ciphersuites(scratch, "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:"
                                          "TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_CCM_SHA256:"
                                          "TLS_AES_128_CCM_8_SHA256") != 1)
        return NULL;
    return SSL_CTX_get_ciphers(scratch);
}

static bool append_name(char *list, size_t cap, const char *name)
{
    size_t used = strlen(list);
    int n = snprintf(list + used, cap - used, "%s%s", used ? ":" : "", name);
    return n >= 0 && (size_t)n < cap - used;
}

/* Sorts one listed name into the TLS 1.3 or the older list. */
static bool map_cipher(STACK_OF(SSL_CIPHER) *all, const char *name, char *tls13, char *tls12,
                       size_t cap, char *err, size_t errlen)
{
    for (int i = 0; i < sk_SSL_CIPHER_num(all); i++) {
        const SSL_CIPHER *c = sk_SSL_CIPHER_value(all, i);
        const char *iana = SSL_CIPHER_standard_name(c);
        if ((!iana || strcmp(iana, name) != 0) && strcmp(SSL_CIPHER_get_name(c), name) != 0)
            continue;
        bool is13 = (SSL_CIPHER_get_protocol_id(c) >> 8) == 0x13; /* TLS 1.3's id range */
        if (!append_name(is13 ? tls13 : tls12, cap, SSL_CIPHER_get_name(c)))
            return tls_fail(err, errlen, "ssl.cipher.suites", "list too long");
        return true;
    }
    return tls_fail(err, errlen, "ssl.cipher.suites", "unknown cipher suite %s", name);
}

static bool map_ciphers(const char *list, char *tls13, char *tls12, size_t cap, char *err,
                        size_t errlen)
{
    SSL_CTX *scratch = SSL_CTX_new(TLS_method());
    STACK_OF(SSL_CIPHER) *all = scratch ? all_ciphers(scratch) : NULL;
    bool ok = all != NULL;
    if (!ok) {
        tls_fail(err, errlen, "ssl.cipher.suites", "cannot list OpenSSL's ciphers");
        tls_append_openssl_errors(err, errlen);
    }
    char name[NAME_BYTES_MAX];
    bool too_long;
    while (ok && next_name(&list, name, sizeof name, &too_long))
        ok = too_long ? tls_fail(err, errlen, "ssl.cipher.suites", "a name is too long")
                      : map_cipher(all, name, tls13, tls12, cap, err, errlen);
    SSL_CTX_free(scratch);
    return ok;
}

/* A protocol left without suites is disabled (as in Java, where it could
 * never be negotiated). */
static bool apply_ciphers(SSL_CTX *ctx, const char *tls13, const char *tls12, unsigned *set,
                          char *err, size_t errlen)
{
    const char *key = "ssl.cipher.suites";
    if (!*tls13)
        *set &= ~PROTOCOL_TLS13;
    if (!*tls12)
        *set &= ~PROTOCOL_TLS12;
    if (*set == 0)
        return tls_fail(err, errlen, key, "no listed suite works with ssl.enabled.protocols");
    if ((*tls13 && SSL_CTX_set_ciphersuites(ctx, tls13) != 1) ||
        (*tls12 && SSL_CTX_set_cipher_list(ctx, tls12) != 1)) {
        tls_fail(err, errlen, key, "OpenSSL refused the suites");
        tls_append_openssl_errors(err, errlen);
        return false;
    }
    return true;
}

bool tls_set_protocols_and_ciphers(SSL_CTX *ctx, const kq_tls_settings *s, char *err,
                                   size_t errlen)
{
    unsigned set = 0;
    if (!parse_protocols(s, &set, err, errlen))
        return false;
    const char *suites = s->cipher_suites;
    if (suites && strspn(suites, " \t,") != strlen(suites)) {
        char tls13[KQ_TLS_CIPHER_LIST_BYTES_MAX] = "";
        char tls12[KQ_TLS_CIPHER_LIST_BYTES_MAX] = "";
        if (!map_ciphers(suites, tls13, tls12, sizeof tls13, err, errlen) ||
            !apply_ciphers(ctx, tls13, tls12, &set, err, errlen))
            return false;
    }
    int min = (set & PROTOCOL_TLS12) ? TLS1_2_VERSION : TLS1_3_VERSION;
    int max = (set & PROTOCOL_TLS13) ? TLS1_3_VERSION : TLS1_2_VERSION;
    if (SSL_CTX_set_min_proto_version(ctx, min) != 1 ||
        SSL_CTX_set_max_proto_version(ctx, max) != 1) {
        tls_fail(err, errlen, "ssl.enabled.protocols", "OpenSSL refused the protocols");
        tls_append_openssl_errors(err, errlen);
        return false;
    }
    return true;
}
