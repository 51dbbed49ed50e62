/* Listeners as Kafka names them (issue 9): listeners=NAME://host:port with
 * any names, the security protocol of each from
 * listener.security.protocol.map, and controller.listener.names marking
 * the listeners that speak for the quorum. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "config_internal.h"

static bool name_eq(const char *name, const char *s, size_t n)
{
    return strlen(name) == n && strncasecmp(name, s, n) == 0;
}

static kq_config_listener *find(kq_config *cfg, const char *s, size_t n)
{
    for (int i = 0; i < cfg->listener_count; i++)
        if (name_eq(cfg->listeners[i].name, s, n))
            return &cfg->listeners[i];
    return NULL;
}

/* Where "://" starts in "NAME://host:port", or NULL. */
static const char *scheme_end(const char *s, size_t n)
{
    for (size_t i = 0; i + 2 < n; i++)
        if (s[i] == ':' && s[i + 1] == '/' && s[i + 2] == '/')
            return s + i;
    return NULL;
}

/* NAME://host:port: the name's length and where the address starts, or -1
 * with "malformed <what> ..." in why. */
static int split_entry(const char *s, size_t n, const char *what, size_t *nn,
                       const char **addr, char *why, size_t whylen)
{
    const char *sep = scheme_end(s, n);
    if (!sep)
        return kq_config_why(why, whylen, "malformed %s (expected NAME://host:port): \"%.*s\"",
                             what, (int)(n > 64 ? 64 : n), s);
    *nn = (size_t)(sep - s);
    *addr = sep + 3;
    return 0;
}

static int listener_entry(const char *s, size_t n, void *vcfg, char *why, size_t whylen)
{
    kq_config *cfg = vcfg;
    size_t nn = 0;
    const char *addr = NULL;
    if (split_entry(s, n, "listener", &nn, &addr, why, whylen) != 0)
        return -1;
    if (nn == 0 || nn >= KQ_CONFIG_LISTENER_NAME_BYTES_MAX)
        return kq_config_why(why, whylen, "malformed listener name in \"%.*s\"",
                             (int)(n > 64 ? 64 : n), s);
    if (find(cfg, s, nn))
        return kq_config_why(why, whylen, "listener name %.*s appears twice", (int)nn, s);
    if (cfg->listener_count == KQ_CONFIG_LISTENERS_MAX)
        return kq_config_why(why, whylen, "too many listeners (max %d)", KQ_CONFIG_LISTENERS_MAX);
    kq_config_listener *l = &cfg->listeners[cfg->listener_count];
    memset(l, 0, sizeof(*l));
    memcpy(l->name, s, nn);
    if (kq_config_parse_hostport(addr, (size_t)(s + n - addr), l->host, sizeof(l->host),
                                 &l->port, why, whylen) != 0)
        return -1;
    for (int i = 0; i < cfg->listener_count; i++)
        if (cfg->listeners[i].port == l->port && strcmp(cfg->listeners[i].host, l->host) == 0)
            return kq_config_why(why, whylen, "listeners %s and %s use the same address",
                         cfg->listeners[i].name, l->name);
    memcpy(l->advertised_host, l->host, sizeof(l->host)); /* same size */
    l->advertised_port = l->port;
    cfg->listener_count++;
    return 0;
}

/* Kafka's default map: each protocol name maps to itself. */
static const char *const protocols[] = {"PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"};

typedef struct map_ctx {
    kq_config *cfg;
    bool mapped[KQ_CONFIG_LISTENERS_MAX];
    bool map_given; /* listener.security.protocol.map was set */
} map_ctx;

/* Sets l->protocol, and l->sasl for SASL_PLAINTEXT and SASL_SSL. */
static int check_protocol(kq_config_listener *l, const char *p, size_t n, char *why,
                          size_t whylen)
{
    size_t found = sizeof(protocols) / sizeof(protocols[0]);
    for (size_t i = 0; i < sizeof(protocols) / sizeof(protocols[0]); i++)
        if (name_eq(protocols[i], p, n))
            found = i;
    if (found == sizeof(protocols) / sizeof(protocols[0]))
        return kq_config_why(why, whylen, "unknown security protocol %.*s for listener %s",
                             (int)n, p, l->name);
    _Static_assert(KQ_PROTOCOL_PLAINTEXT == 0 && KQ_PROTOCOL_SSL == 1 &&
                       KQ_PROTOCOL_SASL_PLAINTEXT == 2 && KQ_PROTOCOL_SASL_SSL == 3,
                   "the enum follows the protocols table");
    l->protocol = (kq_config_protocol)found;
    l->sasl = l->protocol == KQ_PROTOCOL_SASL_PLAINTEXT || l->protocol == KQ_PROTOCOL_SASL_SSL;
    return 0;
}

static int map_entry(const char *s, size_t n, void *vctx, char *why, size_t whylen)
{
    map_ctx *m = vctx;
    const char *colon = memchr(s, ':', n);
    if (!colon || colon == s || colon + 1 == s + n)
        return kq_config_why(why, whylen, "malformed entry (expected NAME:PROTOCOL): \"%.*s\"",
                             (int)(n > 64 ? 64 : n), s);
    kq_config_listener *l = find(m->cfg, s, (size_t)(colon - s));
    if (!l)
        return 0; /* Kafka lets the map name listeners this node does not have */
    m->mapped[l - m->cfg->listeners] = true;
    return check_protocol(l, colon + 1, (size_t)(s + n - colon - 1), why, whylen);
}

static int controller_entry(const char *s, size_t n, void *vcfg, char *why, size_t whylen)
{
    kq_config_listener *l = find(vcfg, s, n);
    if (!l)
        return kq_config_why(why, whylen, "%.*s is not one of the listeners", (int)n, s);
    l->controller = true;
    return 0;
}

static int default_protocols(map_ctx *m, char *why, size_t whylen)
{
    for (int i = 0; i < m->cfg->listener_count; i++) {
        kq_config_listener *l = &m->cfg->listeners[i];
        if (m->mapped[i])
            continue;
        bool is_protocol = false;
        for (size_t k = 0; k < sizeof(protocols) / sizeof(protocols[0]); k++)
            is_protocol = is_protocol || strcasecmp(protocols[k], l->name) == 0;
        /* Kafka (effectiveListenerSecurityProtocolMap): without a map, a
         * controller listener of another name is PLAINTEXT. */
        if (!is_protocol && !m->map_given && l->controller) {
            if (check_protocol(l, "PLAINTEXT", 9, why, whylen) != 0)
                return -1;
            continue;
        }
        if (!is_protocol)
            return kq_config_why(why, whylen,
                         "no security protocol for listener %s (add %s:PLAINTEXT to "
                         "listener.security.protocol.map)", l->name, l->name);
        if (check_protocol(l, l->name, strlen(l->name), why, whylen) != 0)
            return -1;
    }
    return 0;
}

int kq_config_parse_listener_set(const char *listeners, const char *protocol_map,
                                 const char *controller_names, kq_config *cfg, char *why,
                                 size_t whylen)
{
    cfg->listener_count = 0;
    if (kq_config_for_each_item(listeners, listener_entry, cfg, why, whylen) != 0)
        return -1;
    if (cfg->listener_count == 0)
        return kq_config_why(why, whylen, "no listener given (expected NAME://host:port)");
    cfg->controller_listener_named = false;
    if (controller_names) {
        if (kq_config_for_each_item(controller_names, controller_entry, cfg, why, whylen) != 0)
            return -1;
        bool any = false;
        for (int i = 0; i < cfg->listener_count; i++)
            any = any || cfg->listeners[i].controller;
        if (!any)
            return kq_config_why(why, whylen, "names no listener");
        cfg->controller_listener_named = true;
    }
    map_ctx m = {.cfg = cfg, .map_given = protocol_map != NULL};
    if (protocol_map &&
        kq_config_for_each_item(protocol_map, map_entry, &m, why, whylen) != 0)
        return -1;
    if (default_protocols(&m, why, whylen) != 0)
        return -1;
    const kq_config_listener *client = &cfg->listeners[0];
    for (int i = cfg->listener_count - 1; i >= 0; i--)
        if (!cfg->listeners[i].controller)
            client = &cfg->listeners[i];
    snprintf(cfg->listener_host, sizeof(cfg->listener_host), "%s", client->host);
    cfg->listener_port = client->port;
    return 0;
}

static int advertised_entry(const char *s, size_t n, void *vcfg, char *why, size_t whylen)
{
    kq_config *cfg = vcfg;
    size_t nn = 0;
    const char *addr = NULL;
    if (split_entry(s, n, "entry", &nn, &addr, why, whylen) != 0)
        return -1;
    kq_config_listener *l = find(cfg, s, nn);
    if (!l)
        return kq_config_why(why, whylen, "%.*s is not one of the listeners", (int)nn, s);
    if (kq_config_parse_hostport(addr, (size_t)(s + n - addr), l->advertised_host,
                                 sizeof(l->advertised_host), &l->advertised_port, why,
                                 whylen) != 0)
        return -1;
    if (strcmp(l->advertised_host, "0.0.0.0") == 0 || strcmp(l->advertised_host, "::") == 0)
        return kq_config_why(why, whylen, "listener %s: %s is not an address clients can reach",
                             l->name, l->advertised_host);
    l->advertised = true;
    return 0;
}

int kq_config_parse_advertised(const char *advertised, kq_config *cfg, char *why,
                               size_t whylen)
{
    return kq_config_for_each_item(advertised, advertised_entry, cfg, why, whylen);
}

/* ---- principals (the authorizer's lists) */

static int principal_entry(const char *s, size_t n, void *vout, char *why, size_t whylen)
{
    kq_config_principals *out = vout;
    if (n < 6 || strncmp(s, "User:", 5) != 0)
        return kq_config_why(why, whylen, "principal \"%.*s\" is not of the form User:name",
                             (int)(n > 64 ? 64 : n), s);
    if (n >= KQ_CONFIG_PRINCIPAL_BYTES_MAX)
        return kq_config_why(why, whylen, "principal \"%.*s...\" is longer than %d bytes", 32, s,
                             KQ_CONFIG_PRINCIPAL_BYTES_MAX - 1);
    if (out->count == KQ_CONFIG_PRINCIPALS_MAX)
        return kq_config_why(why, whylen, "more than %d principals", KQ_CONFIG_PRINCIPALS_MAX);
    memcpy(out->names[out->count], s, n);
    out->names[out->count][n] = '\0';
    out->count++;
    return 0;
}

int kq_config_parse_principals(const char *s, kq_config_principals *out, char *why,
                               size_t whylen)
{
    char buf[KQ_CONFIG_PRINCIPALS_MAX * KQ_CONFIG_PRINCIPAL_BYTES_MAX];
    if (strlen(s) >= sizeof(buf))
        return kq_config_why(why, whylen, "list too long");
    /* Entries are separated by ';' (Kafka's super.users) or by a ',' that
     * starts another "User:" entry: a certificate's DN holds commas. */
    size_t o = 0;
    for (const char *p = s; *p; p++) {
        const char *q = p + 1;
        while (*q == ' ')
            q++;
        buf[o++] = (*p == ';' || (*p == ',' && strncmp(q, "User:", 5) == 0)) ? '\x1f' : *p;
    }
    buf[o] = '\0';
    out->count = 0;
    char *save = NULL;
    for (char *e = strtok_r(buf, "\x1f", &save); e; e = strtok_r(NULL, "\x1f", &save)) {
        size_t n = strlen(e);
        while (n && (e[n - 1] == ' ' || e[n - 1] == '\t'))
            e[--n] = '\0';
        while (*e == ' ' || *e == '\t')
            e++, n--;
        if (n == 0)
            return kq_config_why(why, whylen, "empty element in list");
        if (principal_entry(e, n, out, why, whylen) != 0)
            return -1;
    }
    return 0;
}

/* ---- SASL mechanisms */

static int mechanism_entry(const char *s, size_t n, void *vbits, char *why, size_t whylen)
{
    static const char *const names[] = {"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"};
    for (uint32_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (strlen(names[i]) == n && strncmp(names[i], s, n) == 0) {
            *(uint32_t *)vbits |= 1u << i; /* enum kq_sasl_mech order */
            return 0;
        }
    }
    return kq_config_why(why, whylen, "SASL mechanism %.*s is not supported (PLAIN, SCRAM-SHA-256, "
                 "SCRAM-SHA-512)", (int)(n > 32 ? 32 : n), s);
}

int kq_config_parse_mechanisms(const char *s, uint32_t *bits, char *why, size_t whylen)
{
    *bits = 0;
    if (kq_config_for_each_item(s, mechanism_entry, bits, why, whylen) != 0)
        return -1;
    return *bits ? 0 : kq_config_why(why, whylen, "no mechanism given");
}

bool kq_config_listener_name_is(const kq_config_listener *l, const char *s, size_t n)
{
    return name_eq(l->name, s, n);
}
