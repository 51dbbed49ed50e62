/* The description of every configuration key (config_keys.def, one entry a
 * key): its names, type, range, default, unit, one-line doc and where its
 * value goes. The loader (config_load.c) parses and checks the simple typed
 * keys from it, the complex ones through the parse function their entry
 * names; kq_config_defaults fills the defaults from it, and kq-config-doc
 * prints docs/configuration.md's key table from it (config_doc.c). */
#ifndef KQ_CONFIG_KEYS_H
#define KQ_CONFIG_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kq/config.h"

/* The type shown in the docs; for keys without a parse function it also
 * says how the value is read (integers into a field of 2, 4 or 8 bytes). */
enum cfg_type {
    CFG_INT = 0,
    CFG_BYTES,    /* an integer count of bytes */
    CFG_DURATION, /* an integer duration in .unit (stored as ms when .scale says so) */
    CFG_BOOL,     /* true or false, any case */
    CFG_STRING,   /* at most the field's size less 1 bytes; .min 1: not empty */
    CFG_ENUM,     /* one of the words the doc lists (a parse function checks it) */
    CFG_LIST,     /* comma-separated (a parse function reads it) */
    CFG_TYPE_COUNT
};

#define CFG_ALIASES_MAX 3
#define CFG_LISTENER_PREFIX "listener.name."

/* Another spelling of a key. scale and max (0: the key's) are for a
 * spelling in other units, e.g. log.retention.hours for a key in ms. */
typedef struct cfg_alias {
    const char *name;
    int64_t scale;
    int64_t max;
} cfg_alias;

struct cfg_load; /* the loader's state while a file is read (config_load.h) */
struct cfg_key_desc;

/* One line of the file, for a key with a parse function. */
typedef struct cfg_set {
    kq_config *cfg;
    struct cfg_load *load;
    const struct cfg_key_desc *key;
    int key_id;           /* enum cfg_key_id */
    const char *spelling; /* the key as written (listener.name.<l>. included) */
    int alias;            /* 0: the key's own name, else 1 + the alias index */
    /* listener.name.<listener>.<key> (lower case as written); "" otherwise. */
    const char *listener;
    const char *value;
    int line;
} cfg_set;

/* Returns 0, or -1 with the reason (no file, line or key) in why. */
typedef int (*cfg_parse_fn)(const cfg_set *s, char *why, size_t whylen);

typedef struct cfg_key_desc {
    const char *name;                 /* the canonical spelling */
    cfg_alias aliases[CFG_ALIASES_MAX]; /* unused ones have name NULL */
    /* The key's own name wins over its aliases, and an earlier alias over
     * a later one, wherever each is in the file (Kafka's precedence);
     * otherwise the spelling last in the file wins. An outranked value is
     * still checked. */
    bool ranked;
    /* Also accepted as listener.name.<listener>.<name>, for one listener. */
    bool per_listener;
    enum cfg_type type;
    int64_t min, max; /* the accepted values (CFG_STRING: min 1 = not empty) */
    int64_t scale;    /* 0 or 1: stored as read; else multiplied (-1 stays) */
    int64_t def;      /* the default of a numeric field */
    const char *def_str; /* the default of a CFG_STRING field */
    /* The default as the docs give it when it is not simply def (derived,
     * required, off, ...); then def need not lie within min..max. */
    const char *def_doc;
    const char *unit; /* "bytes", "ms", "minutes", ... or NULL */
    const char *doc;  /* one line of Markdown */
    /* Where the value goes: a field of kq_config (offset, size), and the
     * field that keeps its line (line_at, when has_line) ... */
    size_t offset, size;
    bool has_field, has_line;
    size_t line_at;
    /* ... or a parse function (with a per-key argument) for the complex
     * keys; the field, if any, then only gives the default. */
    cfg_parse_fn parse;
    int arg;
} cfg_key_desc;

/* The entry's field and line field. */
#define CFG_FIELD(f)                                                                         \
    .offset = offsetof(kq_config, f), .size = sizeof(((kq_config *)0)->f), .has_field = true
#define CFG_LINE(f) .line_at = offsetof(kq_config, f), .has_line = true

/* The parse functions the table names: the loader's (config_load_keys.c),
 * the connection limits' (config_conn.c) and TLS's (config_ssl.c). */
int cfg_parse_node_id(const cfg_set *s, char *why, size_t whylen);
int cfg_parse_keep(const cfg_set *s, char *why, size_t whylen);
int cfg_parse_topic_id(const cfg_set *s, char *why, size_t whylen);
int cfg_parse_queued_max(const cfg_set *s, char *why, size_t whylen);
int cfg_parse_idle_max(const cfg_set *s, char *why, size_t whylen);
int cfg_parse_mechanisms(const cfg_set *s, char *why, size_t whylen);
int cfg_parse_authorizer(const cfg_set *s, char *why, size_t whylen);
int cfg_parse_principals(const cfg_set *s, char *why, size_t whylen);
int cfg_parse_assignors(const cfg_set *s, char *why, size_t whylen);
int cfg_parse_migration(const cfg_set *s, char *why, size_t whylen);
int kq_config_conn_parse_overrides(const cfg_set *s, char *why, size_t whylen);
int kq_config_ssl_parse(const cfg_set *s, char *why, size_t whylen);
int kq_config_ssl_parse_voter_principals(const cfg_set *s, char *why, size_t whylen);

enum cfg_key_id {
#define CFG_KEY(id, ...) CFG_##id,
#include "config_keys.def"
#undef CFG_KEY
    CFG_KEY_COUNT
};

extern const cfg_key_desc cfg_keys[CFG_KEY_COUNT];

/* The key spelled name: its id (or -1), which spelling (0 the name, else
 * 1 + alias index) and, for listener.name.<l>.<key>, the listener (into
 * listener, "" otherwise). A listener name too long for a listener is
 * refused with *too_long set. */
int cfg_key_find(const char *name, int *alias, char *listener, size_t listener_cap,
                 bool *too_long);
/* The spelling's name, scale and max (alias 0: the key's own). */
const char *cfg_key_spelling(const cfg_key_desc *k, int alias);
int64_t cfg_key_scale(const cfg_key_desc *k, int alias);
int64_t cfg_key_max(const cfg_key_desc *k, int alias);
/* Precedence of a spelling: higher wins (all equal when not ranked). */
int cfg_key_rank(const cfg_key_desc *k, int alias);

/* Reads value as the key's type into *x (numbers) or checks it (bool,
 * string); 0, or -1 with the reason. */
int cfg_key_check(const cfg_key_desc *k, int alias, const char *value, int64_t *x,
                  char *why, size_t whylen);
/* x read with spelling alias, in the field's unit (-1 stays -1). */
int64_t cfg_key_scaled(const cfg_key_desc *k, int alias, int64_t x);
/* Stores a checked value into cfg (the key must have a field). */
void cfg_key_store(const cfg_key_desc *k, kq_config *cfg, const char *value, int64_t x);

#endif
