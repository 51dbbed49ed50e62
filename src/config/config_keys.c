/* The key table (config_keys.def) and what is done with an entry alone:
 * finding a key by any spelling, reading and storing a simple typed value,
 * and the defaults. */
#include <stdio.h>
#include <string.h>

#include "config_internal.h"
#include "config_keys.h"
#include "kq/assert.h"

const cfg_key_desc cfg_keys[CFG_KEY_COUNT] = {
#define CFG_KEY(id, ...) [CFG_##id] = __VA_ARGS__,
#include "config_keys.def"
#undef CFG_KEY
};

const char *cfg_key_spelling(const cfg_key_desc *k, int alias)
{
    return alias == 0 ? k->name : k->aliases[alias - 1].name;
}

int64_t cfg_key_scale(const cfg_key_desc *k, int alias)
{
    if (alias > 0 && k->aliases[alias - 1].scale > 1)
        return k->aliases[alias - 1].scale;
    return k->scale > 1 ? k->scale : 1;
}

int64_t cfg_key_max(const cfg_key_desc *k, int alias)
{
    if (alias > 0 && k->aliases[alias - 1].max != 0)
        return k->aliases[alias - 1].max;
    return k->max;
}

int cfg_key_rank(const cfg_key_desc *k, int alias)
{
    return k->ranked ? CFG_ALIASES_MAX - alias : 0;
}

static int find_exact(const char *name, int *alias)
{
    for (int id = 0; id < CFG_KEY_COUNT; id++)
        for (int a = 0; a <= CFG_ALIASES_MAX; a++) {
            const char *s = cfg_key_spelling(&cfg_keys[id], a);
            if (a > 0 && !s)
                break;
            if (strcmp(s, name) == 0) {
                *alias = a;
                return id;
            }
        }
    return -1;
}

/* listener.name.<listener>.<key> for a per_listener key: the longest key
 * that ends name after a non-empty listener part. */
static int find_per_listener(const char *name, char *listener, size_t cap, bool *too_long)
{
    size_t pre = strlen(CFG_LISTENER_PREFIX), n = strlen(name);
    if (strncmp(name, CFG_LISTENER_PREFIX, pre) != 0)
        return -1;
    int best = -1;
    size_t best_len = 0;
    for (int id = 0; id < CFG_KEY_COUNT; id++) {
        const char *k = cfg_keys[id].name;
        size_t kn = strlen(k);
        if (!cfg_keys[id].per_listener || n < pre + 2 + kn || kn <= best_len ||
            strcmp(name + n - kn, k) != 0 || name[n - kn - 1] != '.')
            continue;
        best = id;
        best_len = kn;
    }
    if (best < 0)
        return -1;
    size_t ln = n - pre - best_len - 1;
    *too_long = ln >= cap;
    if (!*too_long) {
        memcpy(listener, name + pre, ln);
        listener[ln] = '\0';
    }
    return best;
}

int cfg_key_find(const char *name, int *alias, char *listener, size_t listener_cap,
                 bool *too_long)
{
    *alias = 0;
    *too_long = false;
    listener[0] = '\0';
    int id = find_exact(name, alias);
    return id >= 0 ? id : find_per_listener(name, listener, listener_cap, too_long);
}

int cfg_key_check(const cfg_key_desc *k, int alias, const char *value, int64_t *x,
                  char *why, size_t whylen)
{
    bool b;
    size_t n = strlen(value);
    switch (k->type) {
    case CFG_INT:
    case CFG_BYTES:
    case CFG_DURATION:
        return kq_config_parse_int(value, k->min, cfg_key_max(k, alias), x, why, whylen);
    case CFG_BOOL:
        if (kq_config_parse_bool(value, &b, why, whylen) != 0)
            return -1;
        *x = b;
        return 0;
    case CFG_STRING:
        if (k->min >= 1 && (n == 0 || n >= k->size)) {
            snprintf(why, whylen, "must be 1 to %zu characters", k->size - 1);
            return -1;
        }
        if (n >= k->size) {
            snprintf(why, whylen, "must be shorter than %zu bytes", k->size);
            return -1;
        }
        return 0;
    default:
        snprintf(why, whylen, "no reader for this key (a defect)");
        return -1;
    }
}

/* An integer into a field of 2, 4 or 8 bytes (the range fits the field:
 * test_config_keys.c checks it). */
static void store_int(const cfg_key_desc *k, kq_config *cfg, int64_t x)
{
    char *f = (char *)cfg + k->offset;
    if (k->size == sizeof(uint16_t)) {
        uint16_t v = (uint16_t)x;
        memcpy(f, &v, sizeof v);
    } else if (k->size == sizeof(uint32_t)) {
        uint32_t v = (uint32_t)x;
        memcpy(f, &v, sizeof v);
    } else {
        KQ_ASSERT(k->size == sizeof(uint64_t));
        uint64_t v = (uint64_t)x;
        memcpy(f, &v, sizeof v);
    }
}

void cfg_key_store(const cfg_key_desc *k, kq_config *cfg, const char *value, int64_t x)
{
    KQ_ASSERT(k->has_field);
    char *f = (char *)cfg + k->offset;
    if (k->type == CFG_STRING) {
        KQ_ASSERT(strlen(value) < k->size);
        memcpy(f, value, strlen(value) + 1);
    } else if (k->type == CFG_BOOL) {
        bool b = x != 0;
        memcpy(f, &b, sizeof b);
    } else {
        store_int(k, cfg, x);
    }
}

/* A value read with spelling alias, in the field's unit (-1 stays -1). */
int64_t cfg_key_scaled(const cfg_key_desc *k, int alias, int64_t x)
{
    int64_t scale = cfg_key_scale(k, alias);
    return scale == 1 ? x : x < 0 ? -1 : x * scale;
}

void kq_config_defaults(kq_config *out)
{
    memset(out, 0, sizeof *out);
    for (int id = 0; id < CFG_KEY_COUNT; id++) {
        const cfg_key_desc *k = &cfg_keys[id];
        if (!k->has_field)
            continue;
        if (k->type != CFG_STRING)
            cfg_key_store(k, out, NULL, cfg_key_scaled(k, 0, k->def));
        else if (k->def_str)
            cfg_key_store(k, out, k->def_str, 0);
    }
    out->listener_port = 9092; /* of the default listeners, until they are read */
}
