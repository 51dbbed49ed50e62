/* Java regex -> POSIX ERE, for Kafka's ssl.principal.mapping.rules.
 *
 * Rewritten: "\/" (the rule syntax's escaped slash) to "/"; the classes \d
 * \D \s \S \w \W to bracket expressions; lazy quantifiers (*? +? ?? {n,m}?)
 * to greedy ones, POSIX having none (matches of the whole DN are the same;
 * which text a group captures may differ when the pattern is ambiguous,
 * since POSIX picks leftmost-longest sub-matches); a leading (?i) to
 * REG_ICASE ("\/" inside [...] too). Refused: other (? constructs (non-capturing groups,
 * look-around, inline flags). Not rewritten: inside [...] a backslash is a
 * literal in POSIX but an escape in Java; \b, \A, \z and Unicode classes do
 * not exist in POSIX (regcomp refuses some, takes others literally). */
#include <stdio.h>
#include <string.h>

#include "tls_regex.h"

static const char *class_for(char c)
{
    switch (c) {
    case 'd': return "[0-9]";
    case 'D': return "[^0-9]";
    case 's': return "[[:space:]]";
    case 'S': return "[^[:space:]]";
    case 'w': return "[[:alnum:]_]";
    case 'W': return "[^[:alnum:]_]";
    default: return NULL;
    }
}

typedef struct out_buf {
    char *p;
    size_t len;
    size_t cap;
} out_buf;

static void put(out_buf *o, const char *s, size_t n)
{
    if (o->len + n < o->cap) { /* cap covers the worst case: cannot fail */
        memcpy(o->p + o->len, s, n);
        o->len += n;
    }
}

/* Copies a bracket expression starting at src[i] == '['; returns the index
 * after its ']', or 0 if it is not closed. */
static size_t copy_bracket(const char *src, size_t len, size_t i, out_buf *o)
{
    size_t j = i + 1;
    if (j < len && src[j] == '^')
        j++;
    if (j < len && src[j] == ']')
        j++;
    while (j < len && src[j] != ']') {
        /* [:alpha:], [.x.] and [=x=] inside may hold a ']' */
        if (src[j] == '[' && j + 1 < len && strchr(":.=", src[j + 1])) {
            char kind = src[j + 1];
            size_t k = j + 2;
            while (k + 1 < len && !(src[k] == kind && src[k + 1] == ']'))
                k++;
            if (k + 1 < len)
                j = k + 1;
        }
        j++;
    }
    if (j >= len)
        return 0;
    for (size_t k = i; k <= j; k++) {
        if (src[k] == '\\' && k + 1 < j && src[k + 1] == '/')
            k++; /* the rule syntax's escaped slash */
        put(o, src + k, 1);
    }
    return j + 1;
}

bool tls_regex_translate(const char *src, size_t len, char *dst, size_t cap, bool *icase,
                         char *why, size_t whylen)
{
    out_buf o = {dst, 0, cap};
    size_t i = 0;
    *icase = len >= 4 && memcmp(src, "(?i)", 4) == 0;
    if (*icase)
        i = 4;
    bool after_quantifier = false; /* a '?' now makes it lazy */
    while (i < len) {
        char c = src[i];
        bool quantifier = false;
        if (c == '\\') {
            if (i + 1 == len) {
                snprintf(why, whylen, "pattern ends with a backslash");
                return false;
            }
            char e = src[i + 1];
            const char *cls = class_for(e);
            if (cls)
                put(&o, cls, strlen(cls));
            else if (e == '/')
                put(&o, "/", 1);
            else
                put(&o, src + i, 2);
            i += 2;
        } else if (c == '[') {
            size_t next = copy_bracket(src, len, i, &o);
            if (next == 0) {
                snprintf(why, whylen, "unclosed [ in the pattern");
                return false;
            }
            i = next;
        } else if (c == '(' && i + 1 < len && src[i + 1] == '?') {
            snprintf(why, whylen, "(? groups are not supported (POSIX regular expressions)");
            return false;
        } else if (c == '?' && after_quantifier) {
            i++; /* lazy to greedy */
        } else {
            quantifier = c == '*' || c == '+' || c == '?' || c == '}';
            put(&o, &src[i], 1);
            i++;
        }
        after_quantifier = quantifier;
    }
    o.p[o.len] = '\0';
    return true;
}
