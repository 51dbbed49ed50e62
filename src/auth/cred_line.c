/* One line of the credentials file (format: include/kq/auth.h, src/auth/README.md):
 * "<user> SCRAM-SHA-256=salt=..,stored_key=..,server_key=..,iterations=N ..." */
#include <stdio.h>
#include <string.h>

#include "auth_internal.h"

enum { ATTR_SALT = 1, ATTR_STORED = 2, ATTR_SERVER = 4, ATTR_ITER = 8, ATTR_ALL = 15 };

static bool blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

static bool slice_is(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

/* Decimal without sign or leading zeros, within the iteration limits. */
static int parse_iterations(const char *s, size_t n, uint32_t *out)
{
    uint32_t v = 0;
    if (n == 0 || n > 5 || s[0] == '0')
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (uint32_t)(s[i] - '0');
    }
    if (v < AUTH_SCRAM_ITERATIONS_MIN || v > AUTH_SCRAM_ITERATIONS_MAX)
        return -1;
    *out = v;
    return 0;
}

static int attr_value(unsigned bit, const char *v, size_t vl, enum kq_scram_hash hash,
                      kq_scram_credential *c, char *err, size_t err_bytes)
{
    size_t got = 0, h = kq_scram_hash_bytes(hash);
    switch (bit) {
    case ATTR_SALT:
        if (auth_b64_decode(v, vl, c->salt, sizeof c->salt, &c->salt_bytes) == 0 &&
            c->salt_bytes >= AUTH_SALT_BYTES_MIN)
            return 0;
        snprintf(err, err_bytes, "salt is not base64 of %d..%d bytes", AUTH_SALT_BYTES_MIN,
                 AUTH_SALT_BYTES_MAX);
        return -1;
    case ATTR_STORED:
    case ATTR_SERVER:
        if (auth_b64_decode(v, vl, bit == ATTR_STORED ? c->stored_key : c->server_key, h,
                            &got) == 0 && got == h)
            return 0;
        snprintf(err, err_bytes, "%s is not base64 of %zu bytes",
                 bit == ATTR_STORED ? "stored_key" : "server_key", h);
        return -1;
    default:
        if (parse_iterations(v, vl, &c->iterations) == 0)
            return 0;
        snprintf(err, err_bytes, "iterations must be a number in %d..%d",
                 AUTH_SCRAM_ITERATIONS_MIN, AUTH_SCRAM_ITERATIONS_MAX);
        return -1;
    }
}

/* One "key=value" of a mechanism; sets its bit in *seen. */
static int parse_attr(const char *a, size_t n, enum kq_scram_hash hash, kq_scram_credential *c,
                      unsigned *seen, char *err, size_t err_bytes)
{
    const char *eq = memchr(a, '=', n);
    if (!eq) {
        snprintf(err, err_bytes, "attribute '%.*s' has no '='", (int)(n > 40 ? 40 : n), a);
        return -1;
    }
    size_t kl = (size_t)(eq - a);
    unsigned bit = slice_is(a, kl, "salt")         ? ATTR_SALT
                   : slice_is(a, kl, "stored_key") ? ATTR_STORED
                   : slice_is(a, kl, "server_key") ? ATTR_SERVER
                   : slice_is(a, kl, "iterations") ? ATTR_ITER
                                                   : 0;
    if (bit == 0 || (*seen & bit)) {
        snprintf(err, err_bytes, "%s attribute '%.*s'", bit ? "repeated" : "unknown",
                 (int)(kl > 40 ? 40 : kl), a);
        return -1;
    }
    *seen |= bit;
    return attr_value(bit, eq + 1, n - kl - 1, hash, c, err, err_bytes);
}

/* "SCRAM-SHA-256=attr,attr,attr,attr" */
static int parse_mech(const char *t, size_t n, auth_user *u, char *err, size_t err_bytes)
{
    const char *eq = memchr(t, '=', n);
    size_t ml = eq ? (size_t)(eq - t) : n;
    enum kq_scram_hash hash;
    if (slice_is(t, ml, "SCRAM-SHA-256"))
        hash = KQ_SCRAM_SHA_256;
    else if (slice_is(t, ml, "SCRAM-SHA-512"))
        hash = KQ_SCRAM_SHA_512;
    else {
        snprintf(err, err_bytes, "unknown mechanism '%.*s'", (int)(ml > 40 ? 40 : ml), t);
        return -1;
    }
    kq_scram_credential *c = &u->cred[hash];
    if (c->present) {
        snprintf(err, err_bytes, "%s given twice", kq_scram_hash_name(hash));
        return -1;
    }
    unsigned seen = 0;
    const char *p = eq ? eq + 1 : t + n, *end = t + n;
    while (p < end) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        size_t al = comma ? (size_t)(comma - p) : (size_t)(end - p);
        if (parse_attr(p, al, hash, c, &seen, err, err_bytes) != 0)
            return -1;
        p += al + (comma ? 1 : 0);
        if (comma && p == end) {
            snprintf(err, err_bytes, "trailing ',' after %s", kq_scram_hash_name(hash));
            return -1;
        }
    }
    if (seen != ATTR_ALL) {
        snprintf(err, err_bytes, "%s needs salt, stored_key, server_key and iterations",
                 kq_scram_hash_name(hash));
        return -1;
    }
    c->present = true;
    return 0;
}

int auth_cred_line_parse(const char *line, size_t n, auth_user *u, char *err, size_t err_bytes)
{
    memset(u, 0, sizeof *u);
    size_t pos = 0, tokens = 0;
    while (pos < n) {
        while (pos < n && blank(line[pos]))
            pos++;
        size_t start = pos;
        while (pos < n && !blank(line[pos]))
            pos++;
        if (pos == start)
            break;
        const char *t = line + start;
        size_t tl = pos - start;
        if (tokens++ == 0) {
            if (!auth_username_valid(t, tl)) {
                snprintf(err, err_bytes, "user name must be 1..%d bytes of printable ASCII",
                         AUTH_USERNAME_BYTES_MAX);
                return -1;
            }
            memcpy(u->name, t, tl);
            u->name_bytes = tl;
        } else if (parse_mech(t, tl, u, err, err_bytes) != 0) {
            return -1;
        }
    }
    if (tokens < 2) {
        snprintf(err, err_bytes, "user '%s' has no SCRAM-SHA-256= or SCRAM-SHA-512= credential",
                 u->name);
        return -1;
    }
    return 0;
}
