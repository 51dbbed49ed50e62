/* Parsers for the individual property values (numbers, booleans, endpoints,
 * voter lists). They never read past the given string and bound every copy. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config_internal.h"

#define VALUE_QUOTE_MAX 64

int kq_config_why(char *why, size_t whylen, const char *fmt, ...)
{
    if (why && whylen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, whylen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Copies at most VALUE_QUOTE_MAX bytes of s[0..n) for quoting in a message. */
static void quote(char *dst, size_t dstlen, const char *s, size_t n)
{
    if (n > VALUE_QUOTE_MAX)
        snprintf(dst, dstlen, "%.*s...", VALUE_QUOTE_MAX, s);
    else
        snprintf(dst, dstlen, "%.*s", (int)n, s);
}

/* Parses the decimal integer s[0..n) strictly (optional sign, digits only). */
static int parse_int_n(const char *s, size_t n, int64_t min, int64_t max,
                       int64_t *out, char *why, size_t whylen)
{
    char q[VALUE_QUOTE_MAX + 4];
    quote(q, sizeof q, s, n);
    size_t i = 0;
    bool neg = false;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    if (i == n)
        return kq_config_why(why, whylen, "not a number: \"%s\"", q);
    uint64_t v = 0;
    bool overflow = false;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return kq_config_why(why, whylen, "not a number: \"%s\"", q);
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            overflow = true;
        else
            v = v * 10 + d;
    }
    int64_t sv;
    if (overflow || v > (uint64_t)INT64_MAX)
        overflow = true;
    sv = overflow ? 0 : (neg ? -(int64_t)v : (int64_t)v);
    if (overflow || sv < min || sv > max)
        return kq_config_why(why, whylen,
                    "out of range: \"%s\" (must be between %lld and %lld)", q,
                    (long long)min, (long long)max);
    *out = sv;
    return 0;
}

int kq_config_parse_int(const char *s, int64_t min, int64_t max, int64_t *out,
                        char *why, size_t whylen)
{
    return parse_int_n(s, strlen(s), min, max, out, why, whylen);
}

int kq_config_parse_bool(const char *s, bool *out, char *why, size_t whylen)
{
    if (strcasecmp(s, "true") == 0) {
        *out = true;
        return 0;
    }
    if (strcasecmp(s, "false") == 0) {
        *out = false;
        return 0;
    }
    char q[VALUE_QUOTE_MAX + 4];
    quote(q, sizeof q, s, strlen(s));
    return kq_config_why(why, whylen, "not a boolean (true or false): \"%s\"", q);
}

static void trim(const char **s, size_t *n)
{
    while (*n && isspace((unsigned char)(*s)[0])) {
        (*s)++;
        (*n)--;
    }
    while (*n && isspace((unsigned char)(*s)[*n - 1]))
        (*n)--;
}

int kq_config_parse_hostport(const char *s, size_t n, char *host,
                             size_t hostlen, uint16_t *port, char *why,
                             size_t whylen)
{
    char q[VALUE_QUOTE_MAX + 4];
    trim(&s, &n);
    quote(q, sizeof q, s, n);
    const char *h = s;
    size_t hn;
    const char *rest;
    if (n && s[0] == '[') {
        const char *close = memchr(s, ']', n);
        if (!close)
            return kq_config_why(why, whylen, "malformed address (no ']'): \"%s\"", q);
        h = s + 1;
        hn = (size_t)(close - h);
        rest = close + 1;
        if (rest >= s + n || *rest != ':')
            return kq_config_why(why, whylen, "malformed address (expected host:port): \"%s\"", q);
    } else {
        const char *colon = NULL;
        for (size_t i = n; i > 0; i--) {
            if (s[i - 1] == ':') {
                colon = s + i - 1;
                break;
            }
        }
        if (!colon)
            return kq_config_why(why, whylen, "malformed address (expected host:port): \"%s\"", q);
        hn = (size_t)(colon - s);
        if (memchr(s, ':', hn))
            return kq_config_why(why, whylen,
                        "malformed address (write IPv6 hosts as [addr]:port): \"%s\"", q);
        rest = colon;
    }
    for (size_t i = 0; i < hn; i++) {
        unsigned char c = (unsigned char)h[i];
        if (isspace(c) || c == '@' || c == ',' || c == '/' || c < 0x20)
            return kq_config_why(why, whylen, "malformed host: \"%s\"", q);
    }
    if (hn >= hostlen)
        return kq_config_why(why, whylen, "host name too long (max %zu): \"%s\"",
                    hostlen - 1, q);
    rest++; /* past ':' */
    int64_t p;
    char pwhy[160];
    if (parse_int_n(rest, (size_t)(s + n - rest), 1, 65535, &p, pwhy,
                    sizeof pwhy) != 0)
        return kq_config_why(why, whylen, "bad port in \"%s\": %s", q, pwhy);
    memcpy(host, h, hn);
    host[hn] = '\0';
    *port = (uint16_t)p;
    return 0;
}

/* Calls fn on each comma-separated, trimmed, non-empty element. Empty
 * elements (",,") are refused. */
int kq_config_for_each_item(const char *s, kq_config_item_fn fn, void *ctx, char *why,
                            size_t whylen)
{
    size_t total = strlen(s);
    const char *all = s;
    size_t alln = total;
    trim(&all, &alln);
    if (alln == 0)
        return 0;
    const char *p = all;
    const char *end = all + alln;
    while (p <= end) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        const char *stop = comma ? comma : end;
        const char *item = p;
        size_t n = (size_t)(stop - p);
        trim(&item, &n);
        if (n == 0)
            return kq_config_why(why, whylen, "empty element in list");
        if (fn(item, n, ctx, why, whylen) != 0)
            return -1;
        if (!comma)
            break;
        p = comma + 1;
    }
    return 0;
}

struct list_ctx {
    kq_config_endpoint *eps;
    int32_t *ids;
    int count;
};

static int check_dup(const struct list_ctx *c, int32_t id, char *why,
                     size_t whylen)
{
    for (int i = 0; i < c->count; i++) {
        int32_t other = c->eps ? c->eps[i].id : c->ids[i];
        if (other == id)
            return kq_config_why(why, whylen, "duplicate voter id %d", (int)id);
    }
    return 0;
}

static int voter_item(const char *s, size_t n, void *vctx, char *why,
                      size_t whylen)
{
    struct list_ctx *c = vctx;
    char q[VALUE_QUOTE_MAX + 4];
    quote(q, sizeof q, s, n);
    const char *at = memchr(s, '@', n);
    if (!at)
        return kq_config_why(why, whylen, "malformed voter (expected id@host:port): \"%s\"", q);
    if (c->count >= KQ_CONFIG_VOTERS_MAX)
        return kq_config_why(why, whylen, "too many voters (max %d)", KQ_CONFIG_VOTERS_MAX);
    int64_t id;
    char iwhy[160];
    if (parse_int_n(s, (size_t)(at - s), 0, INT32_MAX, &id, iwhy, sizeof iwhy) != 0)
        return kq_config_why(why, whylen, "malformed voter \"%s\": bad id: %s", q, iwhy);
    kq_config_endpoint *ep = &c->eps[c->count];
    char hwhy[200];
    if (kq_config_parse_hostport(at + 1, (size_t)(s + n - at - 1), ep->host,
                                 sizeof ep->host, &ep->port, hwhy,
                                 sizeof hwhy) != 0)
        return kq_config_why(why, whylen, "malformed voter \"%s\": %s", q, hwhy);
    if (ep->host[0] == '\0')
        return kq_config_why(why, whylen, "malformed voter \"%s\": empty host", q);
    if (check_dup(c, (int32_t)id, why, whylen) != 0)
        return -1;
    ep->id = (int32_t)id;
    c->count++;
    return 0;
}

/* Reads the list s with fn into eps or ids; *count is set on success. */
static int parse_list(const char *s, kq_config_item_fn fn, kq_config_endpoint *eps,
                      int32_t *ids, int *count, char *why, size_t whylen)
{
    struct list_ctx c = {eps, ids, 0};
    if (kq_config_for_each_item(s, fn, &c, why, whylen) != 0)
        return -1;
    *count = c.count;
    return 0;
}

int kq_config_parse_voters(const char *s, kq_config_endpoint *voters,
                           int *count, char *why, size_t whylen)
{
    return parse_list(s, voter_item, voters, NULL, count, why, whylen);
}

static int server_item(const char *s, size_t n, void *vctx, char *why,
                       size_t whylen)
{
    struct list_ctx *c = vctx;
    if (c->count >= KQ_CONFIG_VOTERS_MAX)
        return kq_config_why(why, whylen, "too many servers (max %d)", KQ_CONFIG_VOTERS_MAX);
    kq_config_endpoint *ep = &c->eps[c->count];
    if (kq_config_parse_hostport(s, n, ep->host, sizeof ep->host, &ep->port,
                                 why, whylen) != 0)
        return -1;
    if (ep->host[0] == '\0') {
        char q[VALUE_QUOTE_MAX + 4];
        quote(q, sizeof q, s, n);
        return kq_config_why(why, whylen, "empty host in \"%s\"", q);
    }
    ep->id = -1;
    c->count++;
    return 0;
}

int kq_config_parse_servers(const char *s, kq_config_endpoint *out,
                            int *count, char *why, size_t whylen)
{
    return parse_list(s, server_item, out, NULL, count, why, whylen);
}

static int id_item(const char *s, size_t n, void *vctx, char *why,
                   size_t whylen)
{
    struct list_ctx *c = vctx;
    if (c->count >= KQ_CONFIG_VOTERS_MAX)
        return kq_config_why(why, whylen, "too many voters (max %d)", KQ_CONFIG_VOTERS_MAX);
    int64_t id;
    if (parse_int_n(s, n, 0, INT32_MAX, &id, why, whylen) != 0)
        return -1;
    if (check_dup(c, (int32_t)id, why, whylen) != 0)
        return -1;
    c->ids[c->count++] = (int32_t)id;
    return 0;
}

int kq_config_parse_ids(const char *s, int32_t *ids, int *count, char *why,
                        size_t whylen)
{
    return parse_list(s, id_item, NULL, ids, count, why, whylen);
}
