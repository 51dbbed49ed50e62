/* Kafka's max.connections, max.connections.per.ip and
 * max.connections.per.ip.overrides (kq/conn_limits.h; docs/hostile-clients.md "Connections
 * and descriptors"). The defaults depend on RLIMIT_NOFILE, known only at
 * start: -1 here (config_keys.def), resolved by the daemon. */
#include <stdio.h>
#include <string.h>

#include "config_internal.h"
#include "config_keys.h"
#include "kq/conn_limits.h"

#define KEY_PER_IP "max.connections.per.ip"
#define KEY_OVERRIDES "max.connections.per.ip.overrides"

/* One "ip:count" (the last ':' separates, so IPv6 literals work). */
static int parse_override(const char *s, size_t n, void *ctx, char *why, size_t whylen)
{
    kq_config *cfg = ctx;
    const char *colon = NULL;
    for (size_t i = 0; i < n; i++)
        if (s[i] == ':')
            colon = s + i;
    if (!colon) {
        snprintf(why, whylen, "\"%.*s\" is not host:count", (int)(n < 64 ? n : 64), s);
        return -1;
    }
    if (cfg->max_connections_ip_override_count >= KQ_CONN_IP_OVERRIDES_MAX) {
        snprintf(why, whylen, "more than %d entries", KQ_CONN_IP_OVERRIDES_MAX);
        return -1;
    }
    kq_conn_ip_override *o = &cfg->max_connections_ip_overrides[cfg->max_connections_ip_override_count];
    size_t hn = (size_t)(colon - s);
    while (hn && (s[hn - 1] == ' ' || s[hn - 1] == '\t'))
        hn--;
    if (!kq_conn_addr_parse(&o->addr, s, hn)) {
        snprintf(why, whylen,
                 "\"%.*s\" is not an IP address (host names are not resolved here)",
                 (int)(hn < 64 ? hn : 64), s);
        return -1;
    }
    char count[32];
    size_t cn = n - (size_t)(colon - s) - 1;
    const char *c = colon + 1;
    while (cn && (*c == ' ' || *c == '\t')) {
        c++;
        cn--;
    }
    if (cn == 0 || cn >= sizeof count) {
        snprintf(why, whylen, "\"%.*s\": the count is missing or too long", (int)(n < 64 ? n : 64), s);
        return -1;
    }
    memcpy(count, c, cn);
    count[cn] = '\0';
    int64_t x;
    char w[200];
    if (kq_config_parse_int(count, 0, KQ_MAX_CONNECTIONS_LIMIT, &x, w, sizeof w) != 0) {
        snprintf(why, whylen, "%s: %s", count, w);
        return -1;
    }
    for (int i = 0; i < cfg->max_connections_ip_override_count; i++)
        if (kq_conn_addr_equal(&cfg->max_connections_ip_overrides[i].addr, &o->addr)) {
            snprintf(why, whylen, "\"%.*s\" is given twice", (int)(hn < 64 ? hn : 64), s);
            return -1;
        }
    o->max = (uint32_t)x;
    cfg->max_connections_ip_override_count++;
    return 0;
}

/* max.connections.per.ip.overrides: the whole list is replaced. */
int kq_config_conn_parse_overrides(const cfg_set *s, char *why, size_t whylen)
{
    s->cfg->max_connections_ip_override_count = 0;
    if (s->value[0] == '\0')
        return 0;
    return kq_config_for_each_item(s->value, parse_override, s->cfg, why, whylen);
}

/* Kafka's rule: max.connections.per.ip 0 needs overrides (who may connect). */
int kq_config_conn_resolve(const kq_config *cfg, char *err, size_t errlen)
{
    if (cfg->max_connections_per_ip != 0 || cfg->max_connections_ip_override_count > 0)
        return 0;
    if (err && errlen)
        snprintf(err, errlen,
                 "%s:%d: " KEY_PER_IP ": 0 refuses every address; set " KEY_OVERRIDES
                 " to name the addresses that may connect",
                 cfg->path, cfg->max_connections_per_ip_line);
    return -1;
}
