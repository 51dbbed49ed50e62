/* The key table (src/config/config_keys.def) itself: every key documented,
 * a default within its range, unique spellings, a field that holds its
 * range, and every alias read into the same place as its key's name. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config_keys.h"
#include "kq/config.h"

static kq_config got, want, dflt; /* large: not on the stack */

static void test_every_key_documented(void **state)
{
    (void)state;
    for (int id = 0; id < CFG_KEY_COUNT; id++) {
        const cfg_key_desc *k = &cfg_keys[id];
        if (!k->name || !k->doc || !k->doc[0] || strchr(k->doc, '|') || strchr(k->doc, '\n'))
            fail_msg("key %d (%s): needs a one-line doc without '|'", id,
                     k->name ? k->name : "?");
        assert_true(k->type >= 0 && k->type < CFG_TYPE_COUNT);
        /* Something reads it: a parse function, or the generic reader into a field. */
        if (!k->parse && (!k->has_field || k->type == CFG_ENUM || k->type == CFG_LIST))
            fail_msg("%s: no parse function and no field the generic reader can fill", k->name);
    }
}

static void test_defaults_within_range(void **state)
{
    (void)state;
    char why[256];
    for (int id = 0; id < CFG_KEY_COUNT; id++) {
        const cfg_key_desc *k = &cfg_keys[id];
        if (k->def_doc)
            continue; /* derived, required or off: said in words */
        int64_t x;
        char num[32];
        snprintf(num, sizeof num, "%lld", (long long)k->def);
        const char *v = k->type == CFG_STRING ? k->def_str
                        : k->type == CFG_BOOL ? (k->def ? "true" : "false")
                                              : num;
        if (!v || cfg_key_check(k, 0, v, &x, why, sizeof why) != 0)
            fail_msg("%s: default %s: %s", k->name, v ? v : "(none)", v ? why : "");
    }
}

static void test_spellings_unique(void **state)
{
    (void)state;
    for (int i = 0; i < CFG_KEY_COUNT; i++)
        for (int a = 0; a <= CFG_ALIASES_MAX && cfg_key_spelling(&cfg_keys[i], a); a++) {
            const char *s = cfg_key_spelling(&cfg_keys[i], a);
            int alias = -1;
            bool too_long = true;
            char listener[64];
            int id = cfg_key_find(s, &alias, listener, sizeof listener, &too_long);
            if (id != i || alias != a)
                fail_msg("%s: found as key %d spelling %d, not key %d spelling %d", s, id,
                         alias, i, a);
            for (int j = 0; j < CFG_KEY_COUNT; j++)
                for (int b = 0; b <= CFG_ALIASES_MAX && cfg_key_spelling(&cfg_keys[j], b); b++)
                    if ((i != j || a != b) && strcmp(s, cfg_key_spelling(&cfg_keys[j], b)) == 0)
                        fail_msg("%s is spelled twice", s);
        }
}

/* listener.name.<listener>.<key> finds a per_listener key and its
 * listener; an empty listener, or another key, is no key. */
static void test_per_listener_spellings(void **state)
{
    (void)state;
    int alias;
    bool too_long;
    char l[16];
    assert_int_equal(cfg_key_find("listener.name.ssl.ssl.keystore.location", &alias, l,
                                  sizeof l, &too_long),
                     CFG_SSL_KEYSTORE_LOCATION);
    assert_string_equal(l, "ssl");
    assert_false(too_long);
    assert_int_equal(cfg_key_find("listener.name.a.b.sasl.enabled.mechanisms", &alias, l,
                                  sizeof l, &too_long),
                     CFG_SASL_MECHANISMS);
    assert_string_equal(l, "a.b");
    assert_int_equal(cfg_key_find("listener.name.averyveryverylongname.ssl.protocol", &alias,
                                  l, sizeof l, &too_long),
                     CFG_SSL_PROTOCOL);
    assert_true(too_long);
    assert_int_equal(cfg_key_find("listener.name..ssl.protocol", &alias, l, sizeof l,
                                  &too_long),
                     -1);
    assert_int_equal(cfg_key_find("listener.name.x.cluster.id", &alias, l, sizeof l, &too_long),
                     -1);
    assert_int_equal(cfg_key_find("zookeeper.connect", &alias, l, sizeof l, &too_long), -1);
}

/* The field can hold every value of the range (the generic store writes 2,
 * 4 or 8 bytes). */
static void test_fields_hold_ranges(void **state)
{
    (void)state;
    for (int id = 0; id < CFG_KEY_COUNT; id++) {
        const cfg_key_desc *k = &cfg_keys[id];
        if (!k->has_field || k->type == CFG_STRING)
            continue;
        int64_t lo = k->min < 0 ? -1 : 0, hi = k->max;
        for (int a = 0; a <= CFG_ALIASES_MAX && cfg_key_spelling(k, a); a++)
            if (cfg_key_scaled(k, a, cfg_key_max(k, a)) > hi)
                hi = cfg_key_scaled(k, a, cfg_key_max(k, a));
        bool ok = k->type == CFG_BOOL ? k->size == sizeof(bool)
                  : k->size == 2      ? k->min >= 0 && hi <= UINT16_MAX
                  : k->size == 4      ? k->min >= INT32_MIN && hi <= (int64_t)UINT32_MAX
                                      : k->size == 8;
        if (!ok || (lo < 0 && k->size != 8 && k->size != 4))
            fail_msg("%s: a field of %zu bytes cannot hold %lld to %lld", k->name, k->size,
                     (long long)k->min, (long long)hi);
    }
}

static char props_path[64];

static int load(const char *text, kq_config *cfg)
{
    strcpy(props_path, "/tmp/kq-config-keys-test-XXXXXX");
    int fd = mkstemp(props_path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    char err[1024];
    int rc = kq_config_load_warn(props_path, cfg, err, sizeof err, NULL);
    unlink(props_path);
    if (rc != 0)
        fail_msg("%s: %s", text, err);
    memset(cfg->path, 0, sizeof cfg->path);
    return rc;
}

/* A value for spelling alias of k that is not the default (and lines
 * another key needs), written into text. */
static void sample(const cfg_key_desc *k, int id, int alias, char *text, size_t cap)
{
    const char *s = cfg_key_spelling(k, alias);
    const char *pre = id == CFG_NODE_ID ? "" : "broker.id=1\n";
    int64_t v = (k->min > 0 ? k->min : 1) + 1;
    switch (id) {
    case CFG_NODE_ID: snprintf(text, cap, "%s=1\n", s); return;
    case CFG_VOTERS: snprintf(text, cap, "%s%s=1@h:1,2@h:2\n", pre, s); return;
    case CFG_BOOT_SERVERS:
        snprintf(text, cap, "%s%s=h:1,h:2\nquorum.bootstrap.voters=1,2\n", pre, s);
        return;
    case CFG_BOOT_VOTERS:
        snprintf(text, cap, "%s%s=2,1\nquorum.bootstrap.servers=h:1,h:2\n", pre, s);
        return;
    case CFG_LOG_DIR: snprintf(text, cap, "%s%s=/sample\n", pre, s); return;
    default: snprintf(text, cap, "%s%s=%lld\n", pre, s, (long long)v);
    }
}

/* Every alias sets what the key's own name sets, to a value other than the
 * default. An alias in other units is compared with the name given the
 * same duration. */
static void test_aliases_read_like_their_key(void **state)
{
    (void)state;
    char text[256];
    for (int id = 0; id < CFG_KEY_COUNT; id++) {
        const cfg_key_desc *k = &cfg_keys[id];
        for (int a = 1; a <= CFG_ALIASES_MAX && cfg_key_spelling(k, a); a++) {
            sample(k, id, a, text, sizeof text);
            load(text, &got);
            char name_text[256];
            const char *s = cfg_key_spelling(k, a), *eq = strchr(strstr(text, s), '=');
            int64_t v = strtoll(eq + 1, NULL, 10);
            if (k->parse)
                snprintf(name_text, sizeof name_text, "%.*s%s%s", (int)(strstr(text, s) - text),
                         text, k->name, eq);
            else /* the alias' unit, in the key's */
                snprintf(name_text, sizeof name_text, "broker.id=1\n%s=%lld\n", k->name,
                         (long long)(v * (k->aliases[a - 1].scale > 1 ? k->aliases[a - 1].scale
                                                                      : 1)));
            load(name_text, &want);
            load(id == CFG_NODE_ID ? "broker.id=7\n" : "broker.id=1\n", &dflt);
            if (memcmp(&got, &want, sizeof got) != 0)
                fail_msg("%s: \"%s\" and \"%s\" differ", s, text, name_text);
            if (memcmp(&got, &dflt, sizeof got) == 0)
                fail_msg("%s: \"%s\" changed nothing", s, text);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_key_documented),
        cmocka_unit_test(test_defaults_within_range),
        cmocka_unit_test(test_spellings_unique),
        cmocka_unit_test(test_fields_hold_ranges),
        cmocka_unit_test(test_per_listener_spellings),
        cmocka_unit_test(test_aliases_read_like_their_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
