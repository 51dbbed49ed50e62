/* Kafka's ssl.principal.mapping.rules (KIP-371): DN -> principal name.
 *
 * Differences from Kafka (besides the regex dialect, see tls_regex.c):
 * Kafka applies replaceAll to a DN the pattern matches whole, so a pattern
 * that can also match an empty string at the end (".*") yields the
 * replacement twice there; here the replacement is applied once. Group
 * references are $0..$9 (Kafka's Java takes $10 as group 10 when it
 * exists); a reference to a missing group or a '$' without a digit is a
 * parse error here, an authentication-time exception in Kafka. Text after
 * the L/U suffix is refused (Kafka ignores it). L and U fold ASCII only. */
#include <ctype.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tls_internal.h"
#include "tls_principal.h"
#include "tls_regex.h"

#define KEY "ssl.principal.mapping.rules"

/* Length of a pattern or replacement at p: up to the first unescaped '/'. */
static size_t segment_len(const char *p, bool *closed)
{
    size_t n = 0;
    while (p[n] && p[n] != '/')
        n += (p[n] == '\\' && p[n + 1]) ? 2 : 1;
    *closed = p[n] == '/';
    return n;
}

static bool check_replacement(const char *r, size_t nsub, size_t index, char *err, size_t errlen)
{
    for (size_t i = 0; r[i]; i++) {
        if (r[i] == '\\') {
            i++; /* segment_len guarantees a character follows */
        } else if (r[i] == '$') {
            if (!isdigit((unsigned char)r[i + 1]))
                return tls_fail(err, errlen, KEY,
                                "rule %zu: '$' without a group number (\\$ is a literal $)",
                                index);
            if ((size_t)(r[i + 1] - '0') > nsub)
                return tls_fail(err, errlen, KEY, "rule %zu: $%c but the pattern has %zu groups",
                                index, r[i + 1], nsub);
            i++;
        }
    }
    return true;
}

static bool compile_pattern(principal_rule *rule, const char *pat, size_t len, size_t index,
                            char *err, size_t errlen)
{
    size_t cap = TLS_REGEX_EXPANSION * len + 1;
    char *posix = malloc(cap);
    if (!posix)
        return tls_fail(err, errlen, KEY, "out of memory");
    char why[128];
    bool icase = false;
    if (!tls_regex_translate(pat, len, posix, cap, &icase, why, sizeof why)) {
        free(posix);
        return tls_fail(err, errlen, KEY, "rule %zu: %s", index, why);
    }
    int rc = regcomp(&rule->re, posix, REG_EXTENDED | (icase ? REG_ICASE : 0));
    free(posix);
    if (rc != 0) {
        regerror(rc, &rule->re, why, sizeof why);
        return tls_fail(err, errlen, KEY, "rule %zu: bad pattern: %s", index, why);
    }
    return true;
}

/* Parses "RULE:pattern/replacement/[LU]" at *p (after "RULE:"). */
static bool parse_rule(principal_rule *rule, const char **p, size_t index, char *err,
                       size_t errlen)
{
    bool closed;
    const char *pat = *p;
    size_t pat_len = segment_len(pat, &closed);
    if (!closed)
        return tls_fail(err, errlen, KEY, "rule %zu: pattern not closed by '/'", index);
    const char *rep = pat + pat_len + 1;
    size_t rep_len = segment_len(rep, &closed);
    if (!closed)
        return tls_fail(err, errlen, KEY, "rule %zu: replacement not closed by '/'", index);
    if (!compile_pattern(rule, pat, pat_len, index, err, errlen))
        return false;
    rule->replacement = strndup(rep, rep_len);
    if (!rule->replacement) {
        regfree(&rule->re);
        return tls_fail(err, errlen, KEY, "out of memory");
    }
    *p = rep + rep_len + 1;
    if (**p == 'L' || **p == 'U')
        rule->fold = *(*p)++;
    if (!check_replacement(rule->replacement, rule->re.re_nsub, index, err, errlen)) {
        regfree(&rule->re);
        free(rule->replacement);
        return false;
    }
    return true;
}

static const char *skip_space(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

static bool parse_one(kq_tls_principal_rules *rules, const char **p, char *err, size_t errlen)
{
    size_t index = rules->count + 1;
    if (rules->count == KQ_TLS_PRINCIPAL_RULES_MAX)
        return tls_fail(err, errlen, KEY, "more than %d rules", KQ_TLS_PRINCIPAL_RULES_MAX);
    principal_rule *rule = &rules->rules[rules->count];
    memset(rule, 0, sizeof *rule);
    if (strncmp(*p, "DEFAULT", 7) == 0) {
        rule->is_default = true;
        *p += 7;
    } else if (strncmp(*p, "RULE:", 5) == 0) {
        *p += 5;
        if (!parse_rule(rule, p, index, err, errlen))
            return false;
    } else {
        return tls_fail(err, errlen, KEY, "rule %zu: expected DEFAULT or "
                        "RULE:pattern/replacement/[LU] at \"%.32s\"", index, *p);
    }
    rules->count++;
    *p = skip_space(*p);
    if (**p == ',') {
        *p = skip_space(*p + 1);
        if (**p == '\0')
            return tls_fail(err, errlen, KEY, "empty rule after the last ','");
    } else if (**p != '\0') {
        return tls_fail(err, errlen, KEY, "rule %zu: unexpected \"%.32s\" after it", index, *p);
    }
    return true;
}

kq_tls_principal_rules *kq_tls_principal_rules_parse(const char *text, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!text)
        text = "";
    if (strlen(text) > KQ_TLS_PRINCIPAL_RULES_BYTES_MAX) {
        tls_fail(err, errlen, KEY, "longer than %u bytes", KQ_TLS_PRINCIPAL_RULES_BYTES_MAX);
        return NULL;
    }
    kq_tls_principal_rules *rules = calloc(1, sizeof *rules);
    if (!rules) {
        tls_fail(err, errlen, KEY, "out of memory");
        return NULL;
    }
    const char *p = skip_space(text);
    if (*p == '\0') {
        rules->rules[0].is_default = true;
        rules->count = 1;
        return rules;
    }
    while (*p != '\0')
        if (!parse_one(rules, &p, err, errlen)) {
            kq_tls_principal_rules_free(rules);
            return NULL;
        }
    return rules;
}

void kq_tls_principal_rules_free(kq_tls_principal_rules *rules)
{
    if (!rules)
        return;
    for (size_t i = 0; i < rules->count; i++)
        if (!rules->rules[i].is_default) {
            regfree(&rules->rules[i].re);
            free(rules->rules[i].replacement);
        }
    free(rules);
}
