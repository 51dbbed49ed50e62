/* kq-config-doc: prints docs/configuration.md's key table from the key
 * table (src/config/config_keys.def).
 *   kq-config-doc                 the table on stdout
 *   kq-config-doc --write FILE    replaces the table between FILE's markers
 *   kq-config-doc --check FILE    exit 1 when FILE's table is stale */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_doc.h"

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = NULL;
    size_t cap = 0, n = 0, got;
    do {
        if (n + 4096 + 1 > cap) {
            cap = (n + 4096 + 1) * 2;
            char *more = realloc(text, cap);
            if (!more) {
                free(text);
                fclose(f);
                return NULL;
            }
            text = more;
        }
        got = fread(text + n, 1, 4096, f);
        n += got;
    } while (got > 0);
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        free(text);
        return NULL;
    }
    text[n] = '\0';
    return text;
}

static int write_all(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t n = strlen(text);
    bool ok = fwrite(text, 1, n, f) == n;
    return fclose(f) == 0 && ok ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc == 1) {
        char *table = kq_config_doc_table();
        if (!table)
            return 2;
        fputs(table, stdout);
        free(table);
        return 0;
    }
    if (argc != 3 || (strcmp(argv[1], "--write") != 0 && strcmp(argv[1], "--check") != 0)) {
        fprintf(stderr, "usage: %s [--write FILE | --check FILE]\n", argv[0]);
        return 2;
    }
    char *doc = read_all(argv[2]);
    char *fresh = doc ? kq_config_doc_splice(doc) : NULL;
    if (!fresh) {
        fprintf(stderr, "%s: cannot read it, or it lacks the lines \"%s\" and \"%s\"\n",
                argv[2], KQ_CONFIG_DOC_BEGIN, KQ_CONFIG_DOC_END);
        free(doc);
        return 2;
    }
    int rc = 0;
    if (strcmp(fresh, doc) != 0) {
        if (strcmp(argv[1], "--check") == 0) {
            fprintf(stderr, "%s: the key table is stale: run %s --write %s\n", argv[2],
                    argv[0], argv[2]);
            rc = 1;
        } else if (write_all(argv[2], fresh) != 0) {
            fprintf(stderr, "%s: cannot write it\n", argv[2]);
            rc = 2;
        }
    }
    free(doc);
    free(fresh);
    return rc;
}
