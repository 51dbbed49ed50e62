/* The parsed form of ssl.principal.mapping.rules, shared by the parser
 * (tls_principal.c) and the mapper (tls_principal_map.c). */
#ifndef KQ_TLS_PRINCIPAL_H
#define KQ_TLS_PRINCIPAL_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

#include "kq/tls.h"

#define TLS_PRINCIPAL_GROUPS_MAX 10 /* $0..$9 */

typedef struct principal_rule {
    bool is_default;
    char fold; /* 0, 'L' or 'U' */
    regex_t re;
    char *replacement; /* as written, escapes kept; checked by the parser */
} principal_rule;

struct kq_tls_principal_rules {
    size_t count;
    principal_rule rules[KQ_TLS_PRINCIPAL_RULES_MAX];
};

#endif
