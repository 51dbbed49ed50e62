/* Kafka's ssl.* keys, their listener.name.<name>.ssl.* forms, and our
 * controller.quorum.voter.principals: kept as written while the file is
 * read, checked once everything is read by building every TLS context the
 * node will need (so a bad keystore, password, protocol or cipher is a
 * configuration error naming its line), and read per listener by the
 * daemon (kq/config_ssl.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config_internal.h"
#include "config_keys.h"
#include "kq/assert.h"
#include "kq/config_ssl.h"

#define LISTENER_PREFIX CFG_LISTENER_PREFIX
#define VOTER_PRINCIPALS_KEY "controller.quorum.voter.principals"

/* The ssl.* entries of the key table (config_keys.def): arg is the
 * enum kq_config_ssl_key. */
static int ssl_key_of(const char *name)
{
    for (int id = 0; id < CFG_KEY_COUNT; id++)
        if (cfg_keys[id].parse == kq_config_ssl_parse && strcmp(cfg_keys[id].name, name) == 0)
            return cfg_keys[id].arg;
    return -1;
}

static const char *ssl_key_name(int key)
{
    for (int id = 0; id < CFG_KEY_COUNT; id++)
        if (cfg_keys[id].parse == kq_config_ssl_parse && cfg_keys[id].arg == key)
            return cfg_keys[id].name;
    KQ_ASSERT(!"an ssl key without an entry in config_keys.def");
    return "";
}

static int check_value(int key, const char *value, char *why, size_t whylen)
{
    kq_tls_store_type t;
    kq_tls_client_auth a;
    char reason[256];
    if ((key == KQ_SSL_KEYSTORE_TYPE || key == KQ_SSL_TRUSTSTORE_TYPE) &&
        !kq_tls_parse_store_type(value, &t, reason, sizeof reason))
        return kq_config_why(why, whylen, "\"%.64s\": %s", value, reason);
    if (key == KQ_SSL_CLIENT_AUTH && !kq_tls_parse_client_auth(value, &a, reason, sizeof reason))
        return kq_config_why(why, whylen, "\"%.64s\": %s", value, reason);
    if (key == KQ_SSL_ENDPOINT_IDENTIFICATION_ALGORITHM && value[0] &&
        strcasecmp(value, "https") != 0)
        return kq_config_why(why, whylen, "\"%s\" is not supported (https, or empty for none)",
                        value);
    return 0;
}

static int voter_principal_entry(const char *s, size_t n, void *vcfg, char *why, size_t whylen)
{
    kq_config *cfg = vcfg;
    const char *colon = memchr(s, ':', n);
    char id[16];
    if (!colon || colon == s || (size_t)(colon - s) >= sizeof id)
        return kq_config_why(why, whylen, "malformed entry (expected id:User:name): \"%.*s\"",
                        (int)(n > 64 ? 64 : n), s);
    memcpy(id, s, (size_t)(colon - s));
    id[colon - s] = '\0';
    int64_t x;
    if (kq_config_parse_int(id, 0, INT32_MAX, &x, why, whylen) != 0)
        return -1;
    kq_config_principals one;
    char p[KQ_CONFIG_PRINCIPAL_BYTES_MAX + 1];
    size_t pn = (size_t)(s + n - colon - 1);
    snprintf(p, sizeof p, "%.*s", (int)(pn < sizeof p ? pn : sizeof p - 1), colon + 1);
    if (kq_config_parse_principals(p, &one, why, whylen) != 0)
        return -1;
    if (one.count != 1)
        return kq_config_why(why, whylen, "malformed entry \"%.*s\"", (int)(n > 64 ? 64 : n), s);
    for (int i = 0; i < cfg->voter_principal_count; i++)
        if (cfg->voter_principals[i].id == (int32_t)x)
            return kq_config_why(why, whylen, "voter %lld appears twice", (long long)x);
    if (cfg->voter_principal_count == KQ_CONFIG_VOTERS_MAX)
        return kq_config_why(why, whylen, "more than %d voters", KQ_CONFIG_VOTERS_MAX);
    kq_config_voter_principal *vp = &cfg->voter_principals[cfg->voter_principal_count++];
    vp->id = (int32_t)x;
    snprintf(vp->principal, sizeof vp->principal, "%s", one.names[0]);
    return 0;
}

static kq_config_ssl_entry *ssl_entry_for(kq_config_ssl *ssl, const char *listener, int key)
{
    for (int i = 0; i < ssl->count; i++)
        if (ssl->entries[i].key == key && strcmp(ssl->entries[i].listener, listener) == 0)
            return &ssl->entries[i];
    if (ssl->count == KQ_CONFIG_SSL_ENTRIES_MAX)
        return NULL;
    return &ssl->entries[ssl->count++];
}

int kq_config_ssl_parse_voter_principals(const cfg_set *s, char *why, size_t whylen)
{
    s->cfg->voter_principal_count = 0;
    s->cfg->voter_principals_line = s->line;
    return kq_config_for_each_item(s->value, voter_principal_entry, s->cfg, why, whylen);
}

/* An ssl.* key, or its listener.name.<listener>. form: kept as written. */
int kq_config_ssl_parse(const cfg_set *s, char *why, size_t whylen)
{
    int key = s->key->arg;
    if (check_value(key, s->value, why, whylen) != 0)
        return -1;
    kq_config_ssl *ssl = &s->cfg->ssl;
    size_t n = strlen(s->value) + 1;
    if (ssl->text_used == 0)
        ssl->text_used = 1; /* offset 0 means unset */
    if (n > sizeof ssl->text - ssl->text_used)
        return kq_config_why(why, whylen, "too much ssl.* text (max %zu bytes in all)",
                             sizeof ssl->text);
    kq_config_ssl_entry *e = ssl_entry_for(ssl, s->listener, key);
    if (!e)
        return kq_config_why(why, whylen, "too many ssl.* keys (max %d)",
                             KQ_CONFIG_SSL_ENTRIES_MAX);
    snprintf(e->listener, sizeof e->listener, "%s", s->listener);
    e->key = key;
    e->line = s->line;
    e->offset = ssl->text_used;
    memcpy(ssl->text + ssl->text_used, s->value, n);
    ssl->text_used += (uint32_t)n;
    return 0;
}

/* ---- reading per listener */

static void lower_copy(char *dst, const char *s, size_t cap)
{
    size_t i = 0;
    for (; s[i] && i + 1 < cap; i++)
        dst[i] = (char)tolower((unsigned char)s[i]);
    dst[i] = '\0';
}

static const kq_config_ssl_entry *ssl_effective(const kq_config *cfg, int listener, int key)
{
    char name[KQ_CONFIG_LISTENER_NAME_BYTES_MAX] = "";
    if (listener >= 0)
        lower_copy(name, cfg->listeners[listener].name, sizeof name);
    const kq_config_ssl_entry *plain = NULL;
    for (int i = 0; i < cfg->ssl.count; i++) {
        const kq_config_ssl_entry *e = &cfg->ssl.entries[i];
        if (e->key != key)
            continue;
        if (e->listener[0] == '\0')
            plain = e;
        else if (listener >= 0 && strcmp(e->listener, name) == 0)
            return e;
    }
    return plain;
}

const char *kq_config_ssl_value(const kq_config *cfg, int listener, enum kq_config_ssl_key key,
                                int *line)
{
    const kq_config_ssl_entry *e = ssl_effective(cfg, listener, (int)key);
    if (line)
        *line = e ? e->line : 0;
    return e ? cfg->ssl.text + e->offset : NULL;
}

int kq_config_peer_listener(const kq_config *cfg)
{
    for (int i = 0; i < cfg->listener_count; i++)
        if (cfg->listeners[i].controller)
            return i;
    return 0;
}

/* Turns the TLS module's "key: reason" into "file[:line]: written-key: reason". */
static void ssl_error_line(const kq_config *cfg, int listener, const char *tls_err, char *err,
                           size_t errlen)
{
    const char *sep = strstr(tls_err, ": ");
    char key[64] = "";
    if (sep && (size_t)(sep - tls_err) < sizeof key)
        snprintf(key, sizeof key, "%.*s", (int)(sep - tls_err), tls_err);
    int k = ssl_key_of(key);
    const kq_config_ssl_entry *e = k >= 0 ? ssl_effective(cfg, listener, k) : NULL;
    if (!e) { /* a key not set: blame the listener that needs it */
        if (cfg->listeners_line > 0)
            snprintf(err, errlen, "%s:%d: %s (listener %s)", cfg->path, cfg->listeners_line,
                     tls_err, cfg->listeners[listener].name);
        else
            snprintf(err, errlen, "%s: %s (listener %s)", cfg->path, tls_err,
                     cfg->listeners[listener].name);
        return;
    }
    if (e->listener[0])
        snprintf(err, errlen, "%s:%d: " LISTENER_PREFIX "%s.%s", cfg->path, e->line, e->listener,
                 tls_err);
    else
        snprintf(err, errlen, "%s:%d: %s", cfg->path, e->line, tls_err);
}

static void ssl_settings(const kq_config *cfg, int l, kq_tls_settings *s)
{
    char why[256];
    const char *v;
    memset(s, 0, sizeof *s);
    if ((v = kq_config_ssl_value(cfg, l, KQ_SSL_KEYSTORE_TYPE, NULL)))
        kq_tls_parse_store_type(v, &s->keystore_type, why, sizeof why); /* checked when set */
    if ((v = kq_config_ssl_value(cfg, l, KQ_SSL_TRUSTSTORE_TYPE, NULL)))
        kq_tls_parse_store_type(v, &s->truststore_type, why, sizeof why);
    if ((v = kq_config_ssl_value(cfg, l, KQ_SSL_CLIENT_AUTH, NULL)))
        kq_tls_parse_client_auth(v, &s->client_auth, why, sizeof why);
    s->keystore_location = kq_config_ssl_value(cfg, l, KQ_SSL_KEYSTORE_LOCATION, NULL);
    s->keystore_password = kq_config_ssl_value(cfg, l, KQ_SSL_KEYSTORE_PASSWORD, NULL);
    s->key_password = kq_config_ssl_value(cfg, l, KQ_SSL_KEY_PASSWORD, NULL);
    s->keystore_certificate_chain =
        kq_config_ssl_value(cfg, l, KQ_SSL_KEYSTORE_CERTIFICATE_CHAIN, NULL);
    s->keystore_key = kq_config_ssl_value(cfg, l, KQ_SSL_KEYSTORE_KEY, NULL);
    s->truststore_location = kq_config_ssl_value(cfg, l, KQ_SSL_TRUSTSTORE_LOCATION, NULL);
    s->truststore_password = kq_config_ssl_value(cfg, l, KQ_SSL_TRUSTSTORE_PASSWORD, NULL);
    s->truststore_certificates =
        kq_config_ssl_value(cfg, l, KQ_SSL_TRUSTSTORE_CERTIFICATES, NULL);
    s->enabled_protocols = kq_config_ssl_value(cfg, l, KQ_SSL_ENABLED_PROTOCOLS, NULL);
    s->protocol = kq_config_ssl_value(cfg, l, KQ_SSL_PROTOCOL, NULL);
    s->cipher_suites = kq_config_ssl_value(cfg, l, KQ_SSL_CIPHER_SUITES, NULL);
    s->endpoint_identification_algorithm =
        kq_config_ssl_value(cfg, l, KQ_SSL_ENDPOINT_IDENTIFICATION_ALGORITHM, NULL);
}

static kq_tls_ctx *tls_ctx(const kq_config *cfg, int listener, bool server, char *err,
                           size_t errlen)
{
    kq_tls_settings s;
    ssl_settings(cfg, listener, &s);
    char tls_err[KQ_TLS_ERROR_BYTES];
    kq_tls_ctx *ctx = server ? kq_tls_ctx_create_server(&s, tls_err, sizeof tls_err)
                             : kq_tls_ctx_create_client(&s, tls_err, sizeof tls_err);
    if (!ctx)
        ssl_error_line(cfg, listener, tls_err, err, errlen);
    return ctx;
}

kq_tls_ctx *kq_config_tls_server(const kq_config *cfg, int listener, char *err, size_t errlen)
{
    return tls_ctx(cfg, listener, true, err, errlen);
}

kq_tls_ctx *kq_config_tls_client(const kq_config *cfg, int listener, char *err, size_t errlen)
{
    return tls_ctx(cfg, listener, false, err, errlen);
}

kq_tls_principal_rules *kq_config_tls_rules(const kq_config *cfg, int listener, char *err,
                                            size_t errlen)
{
    char tls_err[KQ_TLS_ERROR_BYTES];
    const char *v = kq_config_ssl_value(cfg, listener, KQ_SSL_PRINCIPAL_MAPPING_RULES, NULL);
    kq_tls_principal_rules *r = kq_tls_principal_rules_parse(v, tls_err, sizeof tls_err);
    if (!r)
        ssl_error_line(cfg, listener, tls_err, err, errlen);
    return r;
}

int32_t kq_config_voter_for_principal(const kq_config *cfg, const char *principal)
{
    if (!principal)
        return -1;
    for (int i = 0; i < cfg->voter_principal_count; i++)
        if (strcmp(cfg->voter_principals[i].principal, principal) == 0)
            return cfg->voter_principals[i].id;
    return -1;
}

/* ---- the check once the whole file is read */

static int check_overrides(const kq_config *cfg, char *err, size_t errlen)
{
    for (int i = 0; i < cfg->ssl.count; i++) {
        const kq_config_ssl_entry *e = &cfg->ssl.entries[i];
        if (!e->listener[0])
            continue;
        bool found = false;
        for (int l = 0; l < cfg->listener_count && !found; l++) {
            char name[KQ_CONFIG_LISTENER_NAME_BYTES_MAX];
            lower_copy(name, cfg->listeners[l].name, sizeof name);
            found = strcmp(name, e->listener) == 0;
        }
        if (!found) {
            snprintf(err, errlen,
                     "%s:%d: " LISTENER_PREFIX "%s.%s: no listener is named %s (the name is "
                     "written in lower case)",
                     cfg->path, e->line, e->listener, ssl_key_name(e->key), e->listener);
            return -1;
        }
    }
    return 0;
}

/* Builds (and drops) every context and rule list the node will use. */
static int check_listener(const kq_config *cfg, int l, bool peer, char *err, size_t errlen)
{
    kq_tls_ctx *ctx = kq_config_tls_server(cfg, l, err, errlen);
    if (!ctx)
        return -1;
    kq_tls_ctx_destroy(ctx);
    kq_tls_principal_rules *r = kq_config_tls_rules(cfg, l, err, errlen);
    if (!r)
        return -1;
    kq_tls_principal_rules_free(r);
    if (!peer)
        return 0;
    ctx = kq_config_tls_client(cfg, l, err, errlen);
    kq_tls_ctx_destroy(ctx);
    return ctx ? 0 : -1;
}

static int check_voter_principals(const kq_config *cfg, char *err, size_t errlen)
{
    if (cfg->voter_principal_count == 0)
        return 0;
    int l = kq_config_peer_listener(cfg);
    const char *auth = kq_config_ssl_value(cfg, l, KQ_SSL_CLIENT_AUTH, NULL);
    if (cfg->listeners[l].protocol != KQ_PROTOCOL_SSL || !auth ||
        strcasecmp(auth, "required") != 0) {
        snprintf(err, errlen,
                 "%s:%d: " VOTER_PRINCIPALS_KEY ": needs the controller listener %s to be SSL "
                 "with ssl.client.auth=required (voters are proven by their certificates)",
                 cfg->path, cfg->voter_principals_line, cfg->listeners[l].name);
        return -1;
    }
    for (int i = 0; i < cfg->voter_principal_count; i++) {
        bool voter = false;
        for (int v = 0; v < cfg->voter_count; v++)
            voter = voter || cfg->voters[v].id == cfg->voter_principals[i].id;
        if (!voter) {
            snprintf(err, errlen, "%s:%d: " VOTER_PRINCIPALS_KEY ": %d is not one of the voters",
                     cfg->path, cfg->voter_principals_line, (int)cfg->voter_principals[i].id);
            return -1;
        }
    }
    return 0;
}

int kq_config_ssl_resolve(kq_config *cfg, char *err, size_t errlen)
{
    if (check_overrides(cfg, err, errlen) != 0)
        return -1;
    int peer = kq_config_peer_listener(cfg);
    for (int l = 0; l < cfg->listener_count; l++)
        if (kq_config_listener_tls(&cfg->listeners[l]) &&
            check_listener(cfg, l, l == peer && cfg->voter_count > 1, err, errlen) != 0)
            return -1;
    return check_voter_principals(cfg, err, errlen);
}
