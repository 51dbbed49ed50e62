/* Renders the key table (config_keys.def) as Markdown: one row a key with
 * its name, aliases, type, range, default, unit and doc. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_doc.h"
#include "config_keys.h"

static const char *const type_names[CFG_TYPE_COUNT] = {
    [CFG_INT] = "int",     [CFG_BYTES] = "bytes", [CFG_DURATION] = "duration",
    [CFG_BOOL] = "bool",   [CFG_STRING] = "string", [CFG_ENUM] = "enum",
    [CFG_LIST] = "list",
};

/* A bound as written: the C limits by name, powers of two of KiB/MiB/GiB
 * with their size. */
static void print_number(FILE *f, int64_t x, bool bytes)
{
    if (x == INT64_MAX)
        fputs("2^63-1", f);
    else if (x == INT32_MAX)
        fputs("2^31-1", f);
    else
        fprintf(f, "%lld", (long long)x);
    static const char *const units[] = {"KiB", "MiB", "GiB"};
    for (int u = 2; bytes && u >= 0; u--) {
        int64_t size = (int64_t)1 << (10 * (u + 1));
        if (x >= size && x % size == 0 && x != INT32_MAX) {
            fprintf(f, " (%lld %s)", (long long)(x / size), units[u]);
            return;
        }
    }
}

static void print_aliases(FILE *f, const cfg_key_desc *k)
{
    const char *sep = "";
    for (int a = 1; a <= CFG_ALIASES_MAX && cfg_key_spelling(k, a); a++) {
        fprintf(f, "%s`%s`", sep, cfg_key_spelling(k, a));
        int64_t scale = cfg_key_scale(k, a);
        if (scale != cfg_key_scale(k, 0))
            fputs(scale == 60000 ? " (minutes)" : scale == 3600000 ? " (hours)" : " (scaled)", f);
        sep = ", ";
    }
    if (k->per_listener)
        fprintf(f, "%s`" CFG_LISTENER_PREFIX "<name>.%s`", sep, k->name);
}

static void print_range(FILE *f, const cfg_key_desc *k)
{
    bool number = k->type == CFG_INT || k->type == CFG_BYTES || k->type == CFG_DURATION;
    if (number) {
        print_number(f, k->min, false);
        fputs(" to ", f);
        print_number(f, k->max, false);
    } else if (k->type == CFG_STRING && k->has_field) {
        fprintf(f, "%s%zu bytes", k->min >= 1 ? "1 to " : "at most ", k->size - 1);
    }
}

static void print_default(FILE *f, const cfg_key_desc *k)
{
    if (k->def_doc)
        fputs(k->def_doc, f);
    else if (k->type == CFG_STRING)
        fprintf(f, "`%s`", k->def_str ? k->def_str : "");
    else if (k->type == CFG_BOOL)
        fputs(k->def ? "true" : "false", f);
    else
        print_number(f, k->def, k->type == CFG_BYTES);
}

static void print_row(FILE *f, const cfg_key_desc *k)
{
    fprintf(f, "| `%s` | ", k->name);
    print_aliases(f, k);
    fprintf(f, " | %s | ", type_names[k->type]);
    print_range(f, k);
    fputs(" | ", f);
    print_default(f, k);
    fprintf(f, " | %s | %s |\n", k->unit ? k->unit : "", k->doc);
}

char *kq_config_doc_table(void)
{
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    if (!f)
        return NULL;
    fputs("| key | aliases | type | range | default | unit | meaning |\n"
          "|---|---|---|---|---|---|---|\n",
          f);
    for (int id = 0; id < CFG_KEY_COUNT; id++)
        print_row(f, &cfg_keys[id]);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

char *kq_config_doc_splice(const char *doc)
{
    const char *begin = strstr(doc, KQ_CONFIG_DOC_BEGIN "\n");
    const char *end = begin ? strstr(begin, KQ_CONFIG_DOC_END) : NULL;
    if (!end)
        return NULL;
    char *table = kq_config_doc_table();
    if (!table)
        return NULL;
    size_t head = (size_t)(begin - doc) + strlen(KQ_CONFIG_DOC_BEGIN "\n");
    size_t tn = strlen(table), rest = strlen(end);
    char *out = malloc(head + tn + rest + 1);
    if (out) {
        memcpy(out, doc, head);
        memcpy(out + head, table, tn);
        memcpy(out + head + tn, end, rest + 1);
    }
    free(table);
    return out;
}
