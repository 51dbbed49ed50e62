/* Applies parsed ssl.principal.mapping.rules to a DN: the first rule whose
 * pattern matches the whole DN gives the name. */
#include <string.h>

#include "tls_principal.h"

typedef struct name_out {
    char *p;
    size_t len;
    size_t cap; /* including the NUL */
    char fold;
    bool overflow;
} name_out;

static char fold_ascii(char c, char fold)
{
    if (fold == 'L' && c >= 'A' && c <= 'Z')
        return (char)(c - 'A' + 'a');
    if (fold == 'U' && c >= 'a' && c <= 'z')
        return (char)(c - 'a' + 'A');
    return c;
}

static void put(name_out *o, const char *s, size_t n)
{
    if (o->overflow || n >= o->cap - o->len) {
        o->overflow = true;
        return;
    }
    for (size_t i = 0; i < n; i++)
        o->p[o->len++] = fold_ascii(s[i], o->fold);
}

/* The replacement with $n and \x resolved against the match m of dn. */
static void expand(const principal_rule *rule, const char *dn, const regmatch_t *m, name_out *o)
{
    const char *r = rule->replacement;
    for (size_t i = 0; r[i] && !o->overflow; i++) {
        if (r[i] == '\\') {
            put(o, &r[++i], 1);
        } else if (r[i] == '$') {
            const regmatch_t *g = &m[r[++i] - '0'];
            if (g->rm_so >= 0 && g->rm_eo >= g->rm_so) /* an unset group adds nothing */
                put(o, dn + g->rm_so, (size_t)(g->rm_eo - g->rm_so));
        } else {
            put(o, &r[i], 1);
        }
    }
}

static bool matches_whole(const principal_rule *rule, const char *dn, regmatch_t *m)
{
    if (regexec(&rule->re, dn, TLS_PRINCIPAL_GROUPS_MAX, m, 0) != 0)
        return false;
    /* POSIX takes the leftmost-longest match: the whole DN if it matches. */
    return m[0].rm_so == 0 && (size_t)m[0].rm_eo == strlen(dn);
}

kq_tls_principal_result kq_tls_principal_map(const kq_tls_principal_rules *rules, const char *dn,
                                             char *dst, size_t cap)
{
    if (cap > 0)
        dst[0] = '\0';
    for (size_t i = 0; i < rules->count; i++) {
        const principal_rule *rule = &rules->rules[i];
        regmatch_t m[TLS_PRINCIPAL_GROUPS_MAX];
        if (!rule->is_default && !matches_whole(rule, dn, m))
            continue;
        name_out o = {dst, 0, cap, rule->fold, cap == 0};
        if (rule->is_default)
            put(&o, dn, strlen(dn));
        else
            expand(rule, dn, m, &o);
        if (o.overflow) {
            if (cap > 0)
                dst[0] = '\0';
            return KQ_TLS_PRINCIPAL_TOO_LONG;
        }
        dst[o.len] = '\0';
        return KQ_TLS_PRINCIPAL_OK;
    }
    return KQ_TLS_PRINCIPAL_NO_MATCH;
}
