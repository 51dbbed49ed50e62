/* Parsers for the client's SCRAM messages (RFC 5802 section 7 grammar,
 * Kafka's KIP-84 use of it: no channel binding, extensions "key=value"). */
#include <string.h>

#include "auth_internal.h"

typedef struct cursor {
    const char *p, *end;
    bool done;
} cursor;

/* The next ','-separated field; false once the message is used up (a
 * trailing ',' yields one last, empty field). */
static bool next_field(cursor *c, const char **f, size_t *fl)
{
    if (c->done)
        return false;
    const char *comma = memchr(c->p, ',', (size_t)(c->end - c->p));
    *f = c->p;
    if (comma) {
        *fl = (size_t)(comma - c->p);
        c->p = comma + 1;
    } else {
        *fl = (size_t)(c->end - c->p);
        c->p = c->end;
        c->done = true;
    }
    return true;
}

static bool has_prefix(const char *f, size_t fl, const char *pre)
{
    size_t n = strlen(pre);
    return fl >= n && memcmp(f, pre, n) == 0;
}

bool scram_printable(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < 0x21 || s[i] > 0x7e || s[i] == ',')
            return false;
    return true;
}

/* saslname: "=2C" is ',', "=3D" is '=', any other '=' is invalid
 * (RFC 5802 section 5.1); 1..AUTH_USERNAME_BYTES_MAX bytes once decoded. */
static int saslname_decode(const char *s, size_t n, char *out, size_t *out_bytes)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '=') {
            if (n - i >= 3 && s[i + 1] == '2' && s[i + 2] == 'C')
                c = ',';
            else if (n - i >= 3 && s[i + 1] == '3' && s[i + 2] == 'D')
                c = '=';
            else
                return -1;
            i += 2;
        }
        if (o == AUTH_USERNAME_BYTES_MAX)
            return -1;
        out[o++] = c;
    }
    if (o == 0)
        return -1;
    out[o] = '\0';
    *out_bytes = o;
    return 0;
}

/* gs2-header = gs2-cbind-flag "," [authzid] ",": fills gs2_bytes and the
 * decoded authzid (empty if absent). */
static const char *parse_gs2(cursor *c, const char *msg, scram_client_first *out, char *authzid,
                             size_t *authzid_bytes)
{
    const char *f = NULL;
    size_t fl = 0;
    next_field(c, &f, &fl);
    if (has_prefix(f, fl, "p="))
        return "client requires channel binding (p=), which is not offered";
    if (fl != 1 || (f[0] != 'n' && f[0] != 'y'))
        return "bad gs2 channel-binding flag";
    if (!next_field(c, &f, &fl) || c->done)
        return "gs2 header incomplete";
    *authzid_bytes = 0;
    if (fl > 0 && (!has_prefix(f, fl, "a=") ||
                   saslname_decode(f + 2, fl - 2, authzid, authzid_bytes) != 0))
        return "bad authzid in gs2 header";
    out->gs2_bytes = (size_t)(c->p - msg);
    return NULL;
}

/* Kafka's extensions after the nonce: "key=value"; tokenauth=true asks for
 * a delegation token, which this server has not. */
static const char *parse_extensions(cursor *c)
{
    const char *f = NULL;
    size_t fl = 0;
    while (next_field(c, &f, &fl)) {
        const char *eq = memchr(f, '=', fl);
        if (!eq || eq == f)
            return "malformed extension";
        for (const char *k = f; k < eq; k++)
            if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z')))
                return "malformed extension name";
        if (has_prefix(f, fl, "tokenauth=") && fl == 14 && memcmp(eq + 1, "true", 4) == 0)
            return "delegation token authentication (tokenauth) is not supported";
    }
    return NULL;
}

int scram_parse_client_first(const char *msg, size_t n, scram_client_first *out,
                             const char **why)
{
    memset(out, 0, sizeof *out);
    char authzid[AUTH_USERNAME_BYTES_MAX + 1];
    size_t authzid_bytes = 0;
    const char *f = NULL;
    size_t fl = 0;
    cursor c = {msg, msg + n, false};
    if (n > AUTH_SCRAM_MESSAGE_BYTES_MAX || memchr(msg, '\0', n)) {
        *why = n > AUTH_SCRAM_MESSAGE_BYTES_MAX ? "client-first too long" : "NUL byte";
        return -1;
    }
    if ((*why = parse_gs2(&c, msg, out, authzid, &authzid_bytes)))
        return -1;
    next_field(&c, &f, &fl);
    if (has_prefix(f, fl, "m="))
        *why = "mandatory extension (m=) not supported";
    else if (!has_prefix(f, fl, "n=") ||
             saslname_decode(f + 2, fl - 2, out->user, &out->user_bytes) != 0)
        *why = "missing or malformed user name (n=)";
    else if (!next_field(&c, &f, &fl) || !has_prefix(f, fl, "r=") || fl == 2 ||
             fl - 2 > AUTH_SCRAM_CLIENT_NONCE_BYTES_MAX || !scram_printable(f + 2, fl - 2))
        *why = "missing or malformed nonce (r=)";
    else if (!(*why = parse_extensions(&c)) && authzid_bytes &&
             (authzid_bytes != out->user_bytes || memcmp(authzid, out->user, authzid_bytes)))
        *why = "authorization id differs from the user name";
    if (*why)
        return -1;
    out->nonce = f + 2;
    out->nonce_bytes = fl - 2;
    return 0;
}

int scram_parse_client_final(const char *msg, size_t n, enum kq_scram_hash hash,
                             scram_client_final *out, const char **why, const char **e)
{
    memset(out, 0, sizeof *out);
    const char *f = NULL;
    size_t fl = 0;
    cursor c = {msg, msg + n, false};
    *e = "invalid-encoding";
    *why = NULL;
    if (n > AUTH_SCRAM_MESSAGE_BYTES_MAX || memchr(msg, '\0', n))
        *why = n > AUTH_SCRAM_MESSAGE_BYTES_MAX ? "client-final too long" : "NUL byte";
    else if (!next_field(&c, &f, &fl) || !has_prefix(f, fl, "c=") ||
             auth_b64_decode(f + 2, fl - 2, out->cbind, sizeof out->cbind, &out->cbind_bytes))
        *why = "missing or malformed channel binding (c=)";
    else if (!next_field(&c, &f, &fl) || !has_prefix(f, fl, "r=") || fl == 2)
        *why = "missing nonce (r=)";
    if (*why)
        return -1;
    out->nonce = f + 2;
    out->nonce_bytes = fl - 2;
    /* extensions, then the proof, which must come last */
    while (next_field(&c, &f, &fl)) {
        if (!has_prefix(f, fl, "p=")) {
            if (fl < 2 || !memchr(f, '=', fl))
                break;
            continue;
        }
        out->without_proof_bytes = (size_t)(f - msg) - 1;
        if (c.done && auth_b64_decode(f + 2, fl - 2, out->proof, sizeof out->proof,
                                      &out->proof_bytes) == 0 &&
            out->proof_bytes == kq_scram_hash_bytes(hash))
            return 0;
        break;
    }
    *why = "missing or malformed proof (p=), or attributes after it";
    return -1;
}
