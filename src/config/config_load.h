/* The loader's state while one file is read (config_load.c), shared with
 * the parse functions of its own keys (config_load_keys.c) and the checks
 * across keys made once the file is read (config_resolve.c). */
#ifndef KQ_CONFIG_LOAD_H
#define KQ_CONFIG_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "config_keys.h"
#include "kq/config.h"

/* listener.name.<name>.sasl.enabled.mechanisms, kept until the listeners
 * are known. */
typedef struct cfg_listener_value {
    char name[KQ_CONFIG_LISTENER_NAME_BYTES_MAX];
    char spelling[KQ_CONFIG_LISTENER_NAME_BYTES_MAX + 64];
    char *value;
    int line;
} cfg_listener_value;

typedef struct cfg_load {
    const char *path;
    kq_config *cfg;
    char *err;
    size_t errlen;
    int err_line; /* 0 when no error yet */
    bool failed;
    /* Per key: the line and spelling that set it (0 / NULL: unset), the
     * rank of that spelling (config_keys.h .ranked), and the value as
     * written when a check after the file needs it (cfg_parse_keep). */
    int line[CFG_KEY_COUNT];
    const char *spelling[CFG_KEY_COUNT];
    int rank[CFG_KEY_COUNT];
    char *raw[CFG_KEY_COUNT];
    /* broker.id and node.id, which must agree (-1: not given). */
    int64_t node_id[2];
    int node_id_line[2];
    cfg_listener_value sasl_overrides[KQ_CONFIG_LISTENERS_MAX];
    int sasl_override_count;
} cfg_load;

/* Records the first error only: "<file>[:<line>]: [<key>: ]<reason>". */
void cfg_fail(cfg_load *c, int line, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The checks across keys, once the whole file is read (config_resolve.c):
 * 0, or -1 after cfg_fail. */
int cfg_resolve(cfg_load *c);

void cfg_load_free(cfg_load *c);

#endif
